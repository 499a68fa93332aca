;; Thesis Fig. 5.5 (§5.3) and the schedulers' spin detection, on the program of
;; schedules/fig5.5-termination.ll (same program, rebuilt there): A -> B; B,
;; predicated by p = (x != 0), loops to itself or goes to C; C -> D; D returns 7.
;; With x = 0 every execution of B is passive.
;;
;; State after A, B: both lanes in = B, next = ⊤ ([PC-ND-BRANCH]).
;;   B: no lane has next = B, but both lanes reach B by the edge B -> B and their
;;      guide sets are empty (no lane with in = B has a block as next), so clause
;;      2 of Def. 14 holds. Def. 17: the lanes accept B and C, but B only by the
;;      back edge B -> B, which does not count (RULES.md, "Readings", 3), and C
;;      does not reach B. C: the same with the edge B -> C (C ∉ fwdreaching(C),
;;      B not counted). A, D: no lane's control mask is
;;      set (Def. 14). After B the state is the same again (B writes nothing), and
;;      from it C, D terminates; so neither B nor C rules out termination: both
;;      are legal, and §5.3 forbids only the infinite schedule A, B, B, B, ...
;; lowest: the block index (§2.5) is A 0, B 1, C 2, D 3 (a chain; B's loop is B). Legal sets: {A}, {B},
;;   then {B, C}: lowest takes B. The next state repeats the one in which B was
;;   just chosen (state repetition), so the run offers only the block chosen less
;;   often there, C (§5.3: choose differently); then D. Schedule A, B, B, C, D.
;; highest: {B, C} -> C at once: A, B, C, D.
;; explore: states: initial, after A, after A B (the spin's state, which B leads
;;   back to), after C, terminated. One outcome [7, 7]. Cnb (Def. 20): in the
;;   spin's state both lanes accept B and C, both making progress: {B, C}. B is
;;   the header of the natural loop {B}, C is outside it (Theorem 1 holds).
; run after-ab: --threads 2 --interp fr --schedule A,B --arg x=0,0
; run lowest: --threads 2 --interp fr --sched lowest --arg x=0,0
; run highest: --threads 2 --interp fr --sched highest --arg x=0,0
; run all: --threads 2 --interp fr --explore --arg x=0,0
; expect after-ab legal: B, C
; expect after-ab illegal: A (Def. 14), D (Def. 14)
; expect lowest schedule: A,B,B,C,D
; expect lowest first violation: none
; expect lowest result: [7, 7]
; expect highest schedule: A,B,C,D
; expect highest result: [7, 7]
; expect all outcomes: [7, 7]
; expect all cnb: {B, C}

define i32 @f(i32 %x) {
A:
  %p = icmp ne i32 %x, 0
  %again = icmp ult i32 %x, 10
  br label %B

B:
  predicate %p
  br i1 %again, label %B, label %C

C:
  br label %D

D:
  ret i32 7
}
