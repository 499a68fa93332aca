;; Thesis Fig. 5.2 (§5.1) and [PC-ND-BRANCH]: how a lane comes to have next = ⊤,
;; and how a runtime schedule that does not make progress (Def. 14) sends it down
;; the other side of a uniform branch.
;;
;; When does ℓnext = ⊤ arise? evalterm (Fig. 4.9) gives i = ⊤ exactly for lanes
;; with amask = 0. A lane with cmask = 0 is handled by [PC-PASSIVE], which ignores
;; i and keeps its control state. So ⊤ reaches advancepc only for a lane with
;; cmask = 1 and amask = 0, that is: the lane's control state accepts the scheduled
;; block but the block predicate is false for it. [PC-ND-BRANCH] then sets
;; in = ℓsc, next = ⊤, and by Def. 6 the lane has cmask 1 for ANY successor of
;; ℓsc that is scheduled next.
;;
;; Fig. 5.2: "Assume that vec(p) = [1, 0]. The branch condition in A is uniform.
;; The thread t0 actively branches to block B. Since its activation is set to false
;; by the block predicate, the thread t1 will have ℓnext = ⊤ after A has been
;; scheduled ... when C is scheduled next, t1 will proceed to block C ... the
;; threads will reach D from two different incoming blocks. The phi node in D is
;; hence not uniform."
;; The picture did not survive. Rebuilt: A is predicated by p and branches on a
;; uniform condition u to B (true) or C; B, C -> D; D's phi is x = [1 from B,
;; 2 from C]. A's predicate must be defined in a dominating block (Def. 11.1), so
;; an entry block `entry` computing p and u is added in front of A. (The thesis
;; text names the guide sets inconsistently; the schedules follow the prose.)
;;
;; Derivation, p = (thread_id == 0) = [1, 0], u = (k == 0) = [1, 1]:
;;   A: cmask 1 1, pmask 1 0, amask 1 0. t0: i = 0 -> next B ([PC-ACTIVE]).
;;      t1: i = ⊤ -> in A, next ⊤ ([PC-ND-BRANCH]).
;;   progress (entry A B D): B: t0 next = B; t1 next = ⊤ and (A, 0, B) ∈ E, so
;;      cmask 1 1: both take B, x = [1, 1].
;;   spurious (entry A C B D): C: t0 next = B (cmask 0); t1 next = ⊤ and
;;      (A, 1, C) ∈ E, so cmask 0 1: t1 runs C actively and goes to D. B: t0 only.
;;      D: t0 from B, t1 from C: x = [1, 2], a divergent phi behind a uniform
;;      branch. Scheduling C does not make progress (Def. 14): no lane has next = C
;;      and t0's guide set is {B}.
; run progress: --threads 2 --interp fr --schedule entry,A,B,D --arg k=0
; run spurious: --threads 2 --interp fr --schedule entry,A,C,B,D --arg k=0
; expect outcome: returned
;; Greedy check (Def. 14, see fig5.2-progress-legality.ll): after entry, A the
;; guide set of t1 is {B}, so C at step 3 makes no progress (witness t1).
; expect progress first violation: none
; expect spurious first violation: C at step 3 (Def. 14, lane 1)
; expect progress result: [1, 1]
; expect spurious result: [1, 2]
; expect progress trace:
;   sc    | in          | next        | cmask | pmask | amask | i
;   entry | ⊥ ⊥         | entry entry | 1 1   | 1 1   | 1 1   | 0 0
;   A     | entry entry | A A         | 1 1   | 1 0   | 1 0   | 0 ⊤
;   B     | A A         | B ⊤         | 1 1   | 1 1   | 1 1   | 0 0
;   D     | B B         | D D         | 1 1   | 1 1   | 1 1   | □ □
; expect spurious trace:
;   sc    | in          | next        | cmask | pmask | amask | i
;   entry | ⊥ ⊥         | entry entry | 1 1   | 1 1   | 1 1   | 0 0
;   A     | entry entry | A A         | 1 1   | 1 0   | 1 0   | 0 ⊤
;   C     | A A         | B ⊤         | 0 1   | 1 1   | 0 1   | ⊤ 0
;   B     | A C         | B D         | 1 0   | 1 1   | 1 0   | 0 ⊤
;   D     | B C         | D D         | 1 1   | 1 1   | 1 1   | □ □

define i32 @f(i32 %k) {
entry:
  %t = call i32 @pllvm.thread_id()
  %p = icmp eq i32 %t, 0
  %u = icmp eq i32 %k, 0
  br label %A

A:
  predicate %p
  br i1 %u, label %B, label %C

B:
  br label %D

C:
  br label %D

D:
  %x = phi i32 [ 1, %B ], [ 2, %C ]
  ret i32 %x
}
