;; Thesis Fig. 4.16b (§4.10): "The variable x is set to ⊤ under OBLIVIOUS and so
;; the use by x.lcssa is ill-formed." x is defined in the divergent loop B and read
;; by the LCSSA phi in the exit block C. Two threads; the first leaves the loop
;; first, the second in a later iteration. Under FR, passive execution does not
;; touch x, so both threads see x as last defined actively. Under OBL, the second
;; execution of B assigns ⊤ to the first thread's x under a 0 activation
;; (definition mask 0, Def. 10.1), and C then uses it actively: a violation of
;; predicated def-before-use (Def. 11.3).
;; The picture did not survive. Rebuilt from the prose: A -> B, loop B -> {B, C},
;; C: x.lcssa = phi [x from B], returned. Lane t leaves after t + 1 iterations.
;;
;; Derivation (schedule A, B, B, C):
;;   B1: both active, x = [1, 1]; t0 exits (next C), t1 stays.
;;   B2: t0 passive (cmask 0). FR: t0's x stays 1 (still defined); OBL: t0's x
;;       := ⊤ with definition mask 0. t1: x = 2, exits.
;;   C:  both active, x.lcssa reads x from B.
;;   strict-fr: nothing undefined is used: returned [1, 2].
;;   strict-obl: t0 uses x (definition mask 0) actively: undefined (Def. 11).
;;   obl (not strict): returns [⊤, 2].
; run strict-fr: --threads 2 --interp fr --strict --schedule A,B,B,C
; run strict-obl: --threads 2 --interp obl --strict --schedule A,B,B,C
; run obl: --threads 2 --interp obl --schedule A,B,B,C
; expect strict-fr outcome: returned
; expect strict-fr result: [1, 2]
; expect strict-obl outcome: undefined: Def. 11
; expect obl outcome: returned
; expect obl result: [⊤, 2]
; expect obl trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 0
;   B  | A A | B B  | 1 1   | 1 1   | 1 1   | 1 0
;   B  | B B | C B  | 0 1   | 1 1   | 0 1   | ⊤ 1
;   C  | B B | C C  | 1 1   | 1 1   | 1 1   | □ □

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %n = add i32 %t, 1
  br label %B

B:
  %i = phi i32 [ 0, %A ], [ %x, %B ]
  %x = add i32 %i, 1
  %again = icmp ult i32 %x, %n
  br i1 %again, label %B, label %C

C:
  %x.lcssa = phi i32 [ %x, %B ]
  ret i32 %x.lcssa
}
