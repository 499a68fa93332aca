;; Thesis Fig. 7.1c/d (Ch. 7): temporal divergence. "The definition of x.inc
;; changes in every loop iteration, it is however the same for all threads in the
;; same iteration. When the first thread exits the loop the value of x.inc for that
;; thread is 1. The second thread takes another iteration and leaves with 2":
;; vec(x.lc) = [1, 2]. The boxed pair of concurrent next blocks is {B, X}.
;; The CFG picture did not survive. Rebuilt from the trace table (Fig. 7.1d): A ->
;; B, loop B -> {B, X}, X: x.lc = phi [x.inc from B]. Lane t leaves after t + 1
;; iterations (exit test x.inc < t + 1, written with thread_id).
;;
;; Fig. 7.1d, ground truth (ℓin before, ℓnext after each block):
;;   A: in ⊥ ⊥, next' B B;  B: in A A, next' X B;  B: in B B, next' X X;
;;   X: in B B, next' □ □.
;; Derivation: B1 both active, x.inc = [1, 1]; t0: 1 < 1 false -> X (i = 1);
;; t1: 1 < 2 -> B (i = 0). B2: t0 has next = X, cmask 0, passive; t1: x.inc = 2,
;; 2 < 2 false -> X. X: x.lc = x.inc = FR [1, 2]. Under OBL the passive B2 wrote ⊤
;; into t0's x.inc, so x.lc = [⊤, 2] (this is the ill-formed use of Fig. 4.16b).
;; Analyses: %x and %x.inc are uniform ("the same for all threads in the same
;; iteration"): [DA-PHI-U], [DA-UARITH]. %again compares with %n = t + 1: varying,
;; so B's branch is divergent; global_joins({B, X}) gives tdep {X} (Axiom 2) →
;; %x.lc varying by [DA-PHI-D]. B post-dominates its own successor B: it runs
;; again with only the lanes that stayed (activation varying); X uniform.
; run fr: --threads 2 --interp fr --schedule A,B,B,X
; run obl: --threads 2 --interp obl --schedule A,B,B,X
; expect outcome: returned
; expect fr result: [1, 2]
; expect fr env: %x.lc = [1, 2]
; expect obl result: [⊤, 2]
; expect obl env: %x.lc = [⊤, 2]
; expect trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 0
;   B  | A A | B B  | 1 1   | 1 1   | 1 1   | 1 0
;   B  | B B | X B  | 0 1   | 1 1   | 0 1   | ⊤ 1
;   X  | B B | X X  | 1 1   | 1 1   | 1 1   | □ □

define i32 @f() {
A:                                      ; expect: uniform
  %t = call i32 @pllvm.thread_id()      ; expect: varying
  %n = add i32 %t, 1                    ; expect: varying
  br label %B

B:                                      ; expect: varying
  %x = phi i32 [ 0, %A ], [ %x.inc, %B ] ; expect: uniform
  %x.inc = add i32 %x, 1                ; expect: uniform
  %again = icmp ult i32 %x.inc, %n      ; expect: varying
  br i1 %again, label %B, label %X      ; expect: varying

X:                                      ; expect: uniform
  %x.lc = phi i32 [ %x.inc, %B ]        ; expect: varying
  ret i32 %x.lc
}
