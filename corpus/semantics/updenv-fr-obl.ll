;; updenv ([UPD-ENV], Fig. 4.8) and evalphi (§4.8) under FR and OBL. A loop whose
;; three lanes (W = 3) leave after 1, 2 and 3 iterations, so B executes passively
;; for lanes that have left. Passive lanes: an instruction keeps its old value
;; under FR and becomes ⊤ under OBL; a plain phi does the same; a shadow phi takes
;; its shadow operand under both.
;; A run with W = 1 shows that a single lane is never passive: FR = OBL.
;;
;; Derivation, n = [1, 2, 3], schedule A, B, B, B, X:
;;   B1: all active: i = s = [0, 0, 0], i.next = [1, 1, 1]; lane 0 exits.
;;   B2: lane 0 cmask 0. Lanes 1, 2: i = s = 1, i.next = 2; lane 1 exits.
;;       lane 0: i FR 0 / OBL ⊤; s = -1 (shadow); i.next FR 1 / OBL ⊤.
;;   B3: lanes 0, 1 cmask 0. Lane 2: i = s = 2, i.next = 3, exits.
;;       lane 1: i FR 1 / OBL ⊤; s = -1; i.next FR 2 / OBL ⊤.
;;   X:  all active; r = i.next: FR [1, 2, 3], OBL [⊤, ⊤, 3].
; run fr: --threads 3 --interp fr --schedule A,B,B,B,X --arg n=1,2,3
; run obl: --threads 3 --interp obl --schedule A,B,B,B,X --arg n=1,2,3
; run single-fr: --threads 1 --interp fr --schedule A,B,B,B,X --arg n=3
; run single-obl: --threads 1 --interp obl --schedule A,B,B,B,X --arg n=3
; expect outcome: returned
; expect fr result: [1, 2, 3]
; expect fr env: %i = [0, 1, 2]
; expect fr env: %s = [-1, -1, 2]
; expect fr env: %i.next = [1, 2, 3]
; expect obl result: [⊤, ⊤, 3]
; expect obl env: %i = [⊤, ⊤, 2]
; expect obl env: %s = [-1, -1, 2]
; expect obl env: %i.next = [⊤, ⊤, 3]
; expect single-fr result: [3]
; expect single-obl result: [3]
; expect fr trace:
;   sc | in    | next  | cmask | pmask | amask | i
;   A  | ⊥ ⊥ ⊥ | A A A | 1 1 1 | 1 1 1 | 1 1 1 | 0 0 0
;   B  | A A A | B B B | 1 1 1 | 1 1 1 | 1 1 1 | 1 0 0
;   B  | B B B | X B B | 0 1 1 | 1 1 1 | 0 1 1 | ⊤ 1 0
;   B  | B B B | X X B | 0 0 1 | 1 1 1 | 0 0 1 | ⊤ ⊤ 1
;   X  | B B B | X X X | 1 1 1 | 1 1 1 | 1 1 1 | □ □ □
; expect obl trace:
;   sc | in    | next  | cmask | pmask | amask | i
;   A  | ⊥ ⊥ ⊥ | A A A | 1 1 1 | 1 1 1 | 1 1 1 | 0 0 0
;   B  | A A A | B B B | 1 1 1 | 1 1 1 | 1 1 1 | 1 0 0
;   B  | B B B | X B B | 0 1 1 | 1 1 1 | 0 1 1 | ⊤ 1 0
;   B  | B B B | X X B | 0 0 1 | 1 1 1 | 0 0 1 | ⊤ ⊤ 1
;   X  | B B B | X X X | 1 1 1 | 1 1 1 | 1 1 1 | □ □ □

define i32 @f(i32 %n) {
A:
  br label %B

B:
  %i = phi i32 [ 0, %A ], [ %i.next, %B ]
  %s = phi i32 [ 0, %A ], [ %i.next, %B ] shadow(-1)
  %i.next = add i32 %i, 1
  %again = icmp slt i32 %i.next, %n
  br i1 %again, label %B, label %X

X:
  %r = phi i32 [ %i.next, %B ]
  ret i32 %r
}
