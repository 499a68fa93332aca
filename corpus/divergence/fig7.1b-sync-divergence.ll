;; Thesis Fig. 7.1a/b (Ch. 7): sync divergence. "Both threads start out in A, from
;; there the threads part ways. Finally, they reconverge in the block D. By
;; selecting different values for x, the value of x diverges": vec(x) = [0, 1].
;; The boxed pair of concurrent next blocks (Def. 20) is {C, D}: before C is
;; scheduled t0 waits at D and t1 at C.
;; The CFG picture did not survive. Rebuilt from the trace table (Fig. 7.1b):
;; A -> {B, C}, B -> D, C -> D, D: x = phi [0 from B, 1 from C].
;;
;; Fig. 7.1b, ground truth (ℓin before, ℓnext after each block):
;;   A: in ⊥ ⊥, next' B C;  B: in A A, next' D C;  C: in B A, next' D D;
;;   D: in B C, next' □ □.
;; The trace below shows the state before each block, so its next column is the
;; thesis' next' shifted down one row. The join in D sees in = [B, C].
;; Analyses (thesis Ch. 6-7, POPL'21): %c compares the thread id: varying, so A's
;; branch is divergent; global_joins({B, C}) = sdep {D} (Axiom 1) → %x varying by
;; [DA-PHI-D]. B and C are control dependent on A (activation varying); D
;; post-dominates A (uniform). POPL'21: A ∈ splits(D) (disjoint paths B→D, C→D).
; run: --threads 2 --interp fr --schedule A,B,C,D
; run obl: --threads 2 --interp obl --schedule A,B,C,D
; expect outcome: returned
; expect result: [0, 1]
; expect env: %x = [0, 1]
; expect trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 1
;   B  | A A | B C  | 1 0   | 1 1   | 1 0   | 0 ⊤
;   C  | B A | D C  | 0 1   | 1 1   | 0 1   | ⊤ 0
;   D  | B C | D D  | 1 1   | 1 1   | 1 1   | □ □

define i32 @f() {
A:                                      ; expect: uniform
  %t = call i32 @pllvm.thread_id()      ; expect: varying
  %c = icmp eq i32 %t, 0                ; expect: varying
  br i1 %c, label %B, label %C          ; expect: varying

B:                                      ; expect: varying
  br label %D

C:                                      ; expect: varying
  br label %D

D:                                      ; expect: uniform
  %x = phi i32 [ 0, %B ], [ 1, %C ]     ; expect: varying
  ret i32 %x
}
