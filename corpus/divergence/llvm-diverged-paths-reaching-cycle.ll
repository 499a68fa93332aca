;; LLVM "Convergence and Uniformity", "Diverged Paths reaching a Cycle", figure
;; convergence-divergent-outside: "two cycle hierarchies with a divergent branch in
;; Entry instead of Q. For two threads that enter the closed path P -> Q -> R -> S
;; at P and R respectively, the convergence of dynamic instances generated along
;; the path depends on whether P or R is the header." The picture did not survive;
;; the CFG is the closed path's (Entry -> {P, R}, P -> Q, Q -> {R, S}, R -> S,
;; S -> {P, Exit}) with Entry branching on the thread id. Both of the document's
;; tables list the same two executions: thread 1 Entry P Q R S P Q S Exit, thread 2
;; Entry R S P Q S P Q R S Exit (the document writes thread 2's second S as S2 again
;; in the first table; it is a fourth instance). Lane 0 plays thread 1 and enters at
;; P, lane 1 enters at R. Q goes to R when the number of earlier visits of Q equals
;; the thread id; S leaves after 1 + t earlier visits of S. Results: %qs in the last
;; S: lane 0 came from Q on its second visit (q1 = 2), lane 1 from R after two
;; visits of Q (2).
;; Header P (the documented DFS: %c's successors are P, R): lane 1's R2, S2 come
;; before any P, so they are alone; P1 ~ P2 (no P before either), Q1 ~ Q2, lane 0's
;; R1 alone (lane 1 skips R in that iteration), S1 ~ lane 1's second S, P3 ~ P4,
;; Q3 ~ Q4, lane 1's last R alone, S3 ~ S4.
;; Headers R, S (R first; child {S, P, Q} with header S): lane 0's P1, Q1 come before
;; any header: alone; R1 ~ R2 (no R before either), S1 ~ S2 (after R1 ~ R2), then
;; P3 ~ P2, Q3 ~ Q2 and S3 ~ lane 1's second S (each after converged S instances);
;; lane 1's last P, Q, R, S are alone.
;; m-converged in this run: Entry and Exit only. "Thus, when diverged paths reach
;; different entries of an irreducible cycle from outside the cycle, the static
;; analysis conservatively reports every node in the cycle as not m-converged."
; run: --threads 2
; expect outcome: returned
; expect result: [2, 2]
; expect convergence: headers P
;   thread | 1     | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12
;   0      | Entry |   |   | P | Q | R | S | P | Q |    | S  | Exit
;   1      | Entry | R | S | P | Q |   | S | P | Q | R  | S  | Exit
; expect convergence: headers R, S
;   0 | Entry | P | Q | R | S | P | Q | S |   |   |   |   | Exit
;   1 | Entry |   |   | R | S | P | Q | S | P | Q | R | S | Exit
; expect m-converged: Entry, Exit

define i32 @f() {
Entry:
  %t = call i32 @pllvm.thread_id()
  %c = icmp eq i32 %t, 0
  %lim = add i32 %t, 1
  br i1 %c, label %P, label %R

P:
  %qp = phi i32 [ 0, %Entry ], [ %qs, %S ]
  %sp = phi i32 [ 0, %Entry ], [ %s1, %S ]
  br label %Q

Q:
  %q1 = add i32 %qp, 1
  %goR = icmp eq i32 %qp, %t
  br i1 %goR, label %R, label %S

R:
  %qr = phi i32 [ 0, %Entry ], [ %q1, %Q ]
  %sr = phi i32 [ 0, %Entry ], [ %sp, %Q ]
  br label %S

S:
  %qs = phi i32 [ %q1, %Q ], [ %qr, %R ]
  %ss = phi i32 [ %sp, %Q ], [ %sr, %R ]
  %s1 = add i32 %ss, 1
  %done = icmp eq i32 %ss, %lim
  br i1 %done, label %Exit, label %P

Exit:
  ret i32 %qs
}
