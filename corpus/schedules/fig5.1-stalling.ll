;; Thesis Fig. 5.1 (§5.1): without progress, a runtime schedule may pick blocks that
;; no lane has its control mask set for, and the execution stalls (5.1b); progress
;; (Def. 14) implies that at least one lane has cmask = 1 for the scheduled block
;; (5.1c).
;; The picture did not survive. Rebuilt as the loop-free diamond the caption names:
;; A branches on p = (thread_id == 0) to B (true) or C; B, C -> D; D returns
;; x = phi [1 from B, 2 from C]. So t0 goes A -> B -> D and t1 goes A -> C -> D.
;;
;; Derivation of the stalling schedule A, D, D, D (5.1b, cut after three D):
;;   A: cmask 1 1, amask 1 1, i = 0 1: t0 next B, t1 next C ([PC-ACTIVE]).
;;   D: t0 next = B, t1 next = C; neither is D nor ⊤, so cmask 0 0 (Def. 6): both
;;      lanes keep their control state ([PC-PASSIVE]) and nothing changes, as often
;;      as D is scheduled. The schedule ends with no lane terminated: incomplete.
;;   Def. 14 at step 2: no lane's control mask is set for D, so D does not make
;;      progress (the stalling that progress excludes); the witness is no single
;;      lane.
;; Legality after A (state: in = A A, next = B C):
;;   B: t0 has next = B (Def. 14 clause 1). Def. 17: t1 (cmask 0 for B) waits at C;
;;      fwdreaching(B) = {A}, C is not in it: synchronizing. Legal.
;;   C: t1 has next = C; t0 waits at B, B is not in fwdreaching(C) = {A}. Legal.
;;   A, D: no lane's control mask is set (next = B C, no ⊤): Def. 14.
;; The greedy schedule A, B, C, D (5.1c): after B, t0 waits at D and only C is
;;   legal (D: t1 waits at C and C reaches D, Def. 17); after C both wait at D.
;;   x = [1, 2].
;; lowest: the block index (§2.5) is a topological order whose ties go by the
;;   reverse postorder of the documented DFS (successor 0 first): the DFS runs
;;   A, B, D, then C, so its reverse postorder is A, C, B, D, and B and C tie (no
;;   edge between them): A 0, C 1, B 2, D 3. Legal sets: {A}; {B, C}, lowest C;
;;   then t1 waits at D and t0 at B, so only B (D is not synchronizing); then D.
;;   Schedule A, C, B, D, x = [1, 2].
;; Every greedy schedule (explore): A; then B, C in either order; then D. Both
;;   orders give [1, 2]. Concurrent next blocks (Def. 20): after A the lanes want B
;;   and C; after A, B they want D and C; after A, C they want B and D. All of
;;   these make progress (clause 1), so Cnb = {B, C}, {B, D}, {C, D}.
; run stall: --threads 2 --interp fr --schedule A,D,D,D
; run after-a: --threads 2 --interp fr --schedule A
; run greedy: --threads 2 --interp fr --schedule A,B,C,D
; run lowest: --threads 2 --interp fr --sched lowest
; run all: --threads 2 --interp fr --explore
; expect stall outcome: incomplete
; expect stall result: [-, -]
; expect stall first violation: D at step 2 (Def. 14)
; expect stall trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 1
;   D  | A A | B C  | 0 0   | 1 1   | 0 0   | ⊤ ⊤
;   D  | A A | B C  | 0 0   | 1 1   | 0 0   | ⊤ ⊤
;   D  | A A | B C  | 0 0   | 1 1   | 0 0   | ⊤ ⊤
; expect after-a legal: B, C
; expect after-a illegal: A (Def. 14), D (Def. 14)
; expect greedy first violation: none
; expect greedy result: [1, 2]
; expect lowest schedule: A,C,B,D
; expect lowest first violation: none
; expect lowest result: [1, 2]
; expect all outcomes: [1, 2]
; expect all cnb: {B, C}, {B, D}, {C, D}

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %p = icmp eq i32 %t, 0
  br i1 %p, label %B, label %C

B:
  br label %D

C:
  br label %D

D:
  %x = phi i32 [ 1, %B ], [ 2, %C ]
  ret i32 %x
}
