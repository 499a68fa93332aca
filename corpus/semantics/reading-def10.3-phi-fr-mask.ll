;; Reading (semantics/RULES.md, "Readings", 2): the definition mask of a phi
;; under FREEZING when the lane's control mask is 0 (Def. 10.3).
;; Def. 10.3 reads: the definition mask of a non-shadow phi is "the conjunction of
;; the control mask under which the ϕ evaluates and the definition mask of the
;; selected incoming value". Under FR, evalphi (§4.8) does not assign the phi in a
;; lane with cmask 0: the lane keeps its value, like a passive instruction under
;; [UPD-ENV]. pllvm lets that lane keep its definition mask too (the reading of
;; Def. 10.1 for instructions under FR, §4.10 on Fig. 4.16b). Under OBL the lane
;; gets ⊤ with definition mask 0, as Def. 10.3 says.
;;
;; The program: a loop whose header H is also its exit, and a use of the header
;; phi %i after the loop. Lane 0 leaves at once; lane 1 runs one more iteration,
;; so H runs again with lane 0's control mask 0. §4.10 calls programs with
;; divergent loops ill-formed under OBLIVIOUS ("Generally, predicated
;; def-before-use implies that programs with divergent loops are ill-formed under
;; the OBLIVIOUS interpretation"), not under FREEZING; under the literal
;; conjunction, this FR program (and every divergent loop whose exit reads the
;; header's phis) would be ill-formed too: the strict-fr run below would be
;; undefined (Def. 11) instead of returning [10, 11].
;;
;; Derivation, schedule A, H, L, H, X, two threads:
;;   A: t = [0, 1].
;;   H1: cmask 1 1; i = [0, 0] (from A, defined); go = (i < t) = [0, 1]: lane 0
;;       to X (index 1), lane 1 to L (index 0).
;;   L: cmask 0 1; lane 1: i.inc = 1.
;;   H2: cmask 0 1. Lane 1: i = i.inc = 1 (from L), go = (1 < 1) = 0: to X.
;;       Lane 0 (cmask 0): FR keeps i = 0 and, in this reading, its definition
;;       mask 1; OBL gives i = ⊤ with definition mask 0.
;;   X: cmask 1 1, both active; r = i + 10 uses i in both lanes.
;;   strict-fr: lane 0's i is defined: returned [10, 11].
;;   strict-obl: lane 0 uses i with definition mask 0: undefined (Def. 11).
;;   obl (not strict): [⊤, 11].
; run strict-fr: --threads 2 --interp fr --strict --schedule A,H,L,H,X
; run strict-obl: --threads 2 --interp obl --strict --schedule A,H,L,H,X
; run obl: --threads 2 --interp obl --schedule A,H,L,H,X
; expect strict-fr outcome: returned
; expect strict-fr result: [10, 11]
; expect strict-fr env: %i = [0, 1]
; expect strict-obl outcome: undefined: Def. 11
; expect obl outcome: returned
; expect obl result: [⊤, 11]
; expect obl env: %i = [⊤, 1]
; expect strict-fr trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 0
;   H  | A A | H H  | 1 1   | 1 1   | 1 1   | 1 0
;   L  | H H | X L  | 0 1   | 1 1   | 0 1   | ⊤ 0
;   H  | H L | X H  | 0 1   | 1 1   | 0 1   | ⊤ 1
;   X  | H H | X X  | 1 1   | 1 1   | 1 1   | □ □

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  br label %H

H:
  %i = phi i32 [ 0, %A ], [ %i.inc, %L ]
  %go = icmp ult i32 %i, %t
  br i1 %go, label %L, label %X

L:
  %i.inc = add i32 %i, 1
  br label %H

X:
  %r = add i32 %i, 10
  ret i32 %r
}
