;; Thesis Fig. 4.6 (§4.4, "Example: Thread Activation"): divergent control plus a
;; predicated block. Two threads; p evaluates to [0, 1] (Δ(x)(t0) = 0,
;; Δ(x)(t1) = 1). The branch in A sends t0 to C and t1 to B, so cmask = [0, 1]
;; when B is scheduled. Block C carries the predicate notp; when C is scheduled
;; pmask = [1, 0].
;; The CFG picture (Fig. 4.6a) and the masks table (Fig. 4.6b) did not survive;
;; the prose above fixes A -> {B, C} and C's predicate. Rebuilt here: B falls
;; through to C (so t1 reaches C as well and is masked off only by notp), and C
;; leads to an exit block D. The phi in C and the select in D are added so the
;; result shows the activation: t0 computes w = v + 1 actively in C, t1 keeps v.
;;
;; Derivation (Def. 6-8, Fig. 4.4, Fig. 4.9):
;;   A: cmask 1 1, pmask 1 1 (unpredicated), amask 1 1. p = [0, 1]: t0 i = 1 (C),
;;      t1 i = 0 (B).
;;   B: in A A, next C B: cmask 0 1, amask 0 1; t1 i = 0 -> C.
;;   C: in A B, next C C: cmask 1 1; pmask = notp = [1, 0]; amask 1 0.
;;      The phi takes [10 from A] for t0 and [20 from B] for t1 (cmask is 1 for
;;      both, the predicate does not affect phis). t0: i = 0 -> D ([PC-ACTIVE]).
;;      t1: cmask 1 but amask 0, so evalterm gives i = ⊤ and [PC-ND-BRANCH] sets
;;      in = C, next = ⊤.
;;   D: t0 next = D; t1 next = ⊤ and (C, 0, D) ∈ E, so cmask 1 1.
;;      r = notp ? w : v = [11, 20] (select ignores the unselected ⊤ of t1's w).
; run fr: --threads 2 --interp fr --schedule A,B,C,D --arg x=0,1
; run obl: --threads 2 --interp obl --schedule A,B,C,D --arg x=0,1
; expect outcome: returned
; expect result: [11, 20]
; expect env: %v = [10, 20]
; expect obl env: %w = [11, ⊤]
; expect trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 1 0
;   B  | A A | C B  | 0 1   | 1 1   | 0 1   | ⊤ 0
;   C  | A B | C C  | 1 1   | 1 0   | 1 0   | 0 ⊤
;   D  | C C | D ⊤  | 1 1   | 1 1   | 1 1   | □ □

define i32 @f(i32 %x) {
A:
  %p = icmp ne i32 %x, 0
  %notp = xor i1 %p, true
  br i1 %p, label %B, label %C

B:
  br label %C

C:
  predicate %notp
  %v = phi i32 [ 10, %A ], [ 20, %B ]
  %w = add i32 %v, 1
  br label %D

D:
  %r = select i1 %notp, i32 %w, i32 %v
  ret i32 %r
}
