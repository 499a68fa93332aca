;; Thesis Fig. 5.2 (§5.1), Def. 13-14: the greedy constraints on the program of
;; schedules/fig5.2-spurious-divergence.ll (same program, rebuilt there): A is
;; predicated by p = (thread_id == 0) = [1, 0] and branches on the uniform
;; u = (k == 0) to B (true) or C; B, C -> D; x = phi [1 from B, 2 from C].
;;
;; State after entry, A: t0 in A, next B (active, i = 0); t1 in A, next ⊤ (cmask 1,
;; pmask 0: [PC-ND-BRANCH]).
;;   Guides (Def. 13): both lanes have in = A; the lanes with in = A and a block
;;   as next are {t0}, so Guides(σ, t0) = Guides(σ, t1) = {B}.
;;   B: t0 has next = B (clause 1): progress. Def. 17: t0 waits at B itself, and
;;      t1 (⊤, guide set {B}) waits only where its guides are (RULES.md,
;;      "Readings", 3), so no lane waits at a block reaching B: legal.
;;   C: no lane has next = C; t1 has the edge A -> C and Guides = {B} ≠ {} (clause
;;      2 fails). C does not make progress (Def. 14). The witness is t1, the lane
;;      the step would carry down the other side of the uniform branch.
;;   D, entry, A: no lane's control mask is set for them (Def. 14).
;; The spurious schedule entry, A, C, B, D therefore breaks Def. 14 at step 3
;;   (witness lane 1); entry, A, B, D is greedy.
;; Schedulers: after A only B is legal, after B both lanes are at D (t1 ran B
;;   actively, B has no predicate), so every policy gives entry, A, B, D and
;;   x = [1, 1]; every greedy schedule does (explore: one outcome). No state has two
;;   lanes wanting different blocks that make progress (after A, t1 accepts C,
;;   but C makes no progress), so Cnb is empty: the uniform branch stays uniform.
; run after-a: --threads 2 --interp fr --schedule entry,A --arg k=0
; run spurious: --threads 2 --interp fr --schedule entry,A,C,B,D --arg k=0
; run progress: --threads 2 --interp fr --schedule entry,A,B,D --arg k=0
; run highest: --threads 2 --interp fr --sched highest --arg k=0
; run all: --threads 2 --interp fr --explore --arg k=0
; expect after-a outcome: incomplete
; expect after-a legal: B
; expect after-a illegal: C (Def. 14, lane 1), D (Def. 14), entry (Def. 14), A (Def. 14)
; expect spurious first violation: C at step 3 (Def. 14, lane 1)
; expect spurious result: [1, 2]
; expect progress first violation: none
; expect progress result: [1, 1]
; expect highest schedule: entry,A,B,D
; expect highest first violation: none
; expect highest result: [1, 1]
; expect all outcomes: [1, 1]
; expect all cnb: none

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
