;; Thesis Fig. 4.11 (§4.8): two threads approach a shadow phi in block C.
;; The second thread goes A -> B -> C; the first goes from A right to D. When C is
;; scheduled the first thread's control mask is off, so the shadow phi x resolves
;; to its shadow input 2; the second thread arrives from B and resolves x to 1.
;; The CFG picture did not survive. Rebuilt from the prose: A -> {B, D},
;; B -> C, C -> D, schedule A, B, C, D. The caption's columns (ℓsc, cmask, amask,
;; ℓnext', ℓin') are covered by the trace below (state before each block).
;; The prose also says "the phi node resolution is unaffected by the activation of
;; its incoming block B"; B's predicate, if the figure had one, is not recoverable,
;; so B is unpredicated here. D's phi is added so the program returns something.
;;
;; Derivation (evalphi, §4.8): shadow phis ignore FR/OBL.
;;   C: cmask = [0, 1]. t0: ¬cmask -> eval shadow = 2. t1: cmask ∧ ℓin = B -> 1.
;;   So x = [2, 1] under both interpretations.
;;   D: t0 from A -> r = 0; t1 from C -> r = x = 1.
; run fr: --threads 2 --interp fr --schedule A,B,C,D
; run obl: --threads 2 --interp obl --schedule A,B,C,D
; expect outcome: returned
; expect result: [0, 1]
; expect env: %x = [2, 1]
; expect trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 1 0
;   B  | A A | D B  | 0 1   | 1 1   | 0 1   | ⊤ 0
;   C  | A B | D C  | 0 1   | 1 1   | 0 1   | ⊤ 0
;   D  | A C | D D  | 1 1   | 1 1   | 1 1   | □ □

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %to.b = icmp eq i32 %t, 1
  br i1 %to.b, label %B, label %D

B:
  br label %C

C:
  %x = phi i32 [ 1, %B ] shadow(2)
  br label %D

D:
  %r = phi i32 [ 0, %A ], [ %x, %C ]
  ret i32 %r
}
