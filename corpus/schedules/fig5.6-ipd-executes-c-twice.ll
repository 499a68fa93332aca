;; Thesis Fig. 5.6 (§5.4): D is the immediate post-dominator of A. When the branch
;; in A diverges, a GPU divergence stack (IPD reconvergence) reconverges only at D,
;; so C runs twice: once for the lanes that branch A -> C, once for the lanes that
;; come through B. "This means that the IPD model of reconvergence is incompatible
;; with OBLIVIOUS semantics: when a block is executed for the second time the
;; threads that already passed it in the first execution see their variables set
;; to ⊤. In contrast, greedy schedules guarantee that C only executes once."
;; The picture did not survive. Rebuilt: A -> {C, B}; B -> {D, C} (B needs an
;; edge to D, otherwise C, not D, would post-dominate A); C -> D. t0 goes A -> C,
;; t1 goes A -> B -> C. C computes cv = thread_id + 10, which D returns.
;; The IPD schedule is given explicitly: A, C (t0), B (t1), C (t1), D. The greedy
;; schedule is A, B, C, D (C is not synchronizing while t1 waits at B, Def. 17).
;;
;; Derivation:
;;   ipd: C (1st) amask [1, 0]: cv = [10, -]. B: t1 -> C. C (2nd) amask [0, 1]:
;;     t1 cv = 11; t0 is passive (next = D): FR keeps 10, OBL writes ⊤.
;;     D: both from C: FR [10, 11], OBL [⊤, 11].
;;   greedy: C runs once with amask [1, 1]: cv = [10, 11] under both.
; run ipd-fr: --threads 2 --interp fr --schedule A,C,B,C,D
; run ipd-obl: --threads 2 --interp obl --schedule A,C,B,C,D
; run greedy-fr: --threads 2 --interp fr --schedule A,B,C,D
; run greedy-obl: --threads 2 --interp obl --schedule A,B,C,D
; expect outcome: returned
;; Greedy check: after A, t0 waits at C and t1 at B, and B reaches C without a back
;; edge, so C at step 2 of the IPD schedule is not synchronizing (Def. 17, witness
;; t1). The IPD stack policy (ipd-sched) makes that choice itself: after A the
;; lanes diverge, the entry waits at D = ipdom(A), and the entries for C (successor
;; 0, on top) and B are pushed; C runs for t0 and reaches D (popped); B runs for t1,
;; whose entry moves to C; C runs again and reaches D; D runs for both. That is
;; A, C, B, C, D with the results of ipd-fr.
; run ipd-sched: --threads 2 --interp fr --sched ipd
; expect ipd-fr first violation: C at step 2 (Def. 17, lane 1)
; expect greedy-fr first violation: none
; expect ipd-sched schedule: A,C,B,C,D
; expect ipd-sched first violation: C at step 2 (Def. 17, lane 1)
; expect ipd-sched result: [10, 11]
; expect ipd-fr result: [10, 11]
; expect ipd-obl result: [⊤, 11]
; expect greedy-fr result: [10, 11]
; expect greedy-obl result: [10, 11]
; expect ipd-fr trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 1
;   C  | A A | C B  | 1 0   | 1 1   | 1 0   | 0 ⊤
;   B  | C A | D B  | 0 1   | 1 1   | 0 1   | ⊤ 1
;   C  | C B | D C  | 0 1   | 1 1   | 0 1   | ⊤ 0
;   D  | C C | D D  | 1 1   | 1 1   | 1 1   | □ □
; expect greedy-fr trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 1
;   B  | A A | C B  | 0 1   | 1 1   | 0 1   | ⊤ 1
;   C  | A B | C C  | 1 1   | 1 1   | 1 1   | 0 0
;   D  | C C | D D  | 1 1   | 1 1   | 1 1   | □ □

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %a = icmp eq i32 %t, 0
  br i1 %a, label %C, label %B

B:
  %bc = icmp sgt i32 %t, 5
  br i1 %bc, label %D, label %C

C:
  %cv = add i32 %t, 10
  br label %D

D:
  %r = phi i32 [ %cv, %C ], [ -1, %B ]
  ret i32 %r
}
