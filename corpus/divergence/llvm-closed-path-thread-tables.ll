;; LLVM "Convergence and Uniformity", "Diverged Entry Criterion", figure
;; convergence-closed-path: the closed path P -> Q -> R -> S with entries P and R,
;; Q a divergent branch and S its join. The CFG of llvm-closed-path-diverged-entry.ll
;; (Entry -> {P, R} on the uniform %u, P -> Q, Q -> {R, S}, R -> S, S -> {P, Exit}),
;; run so that the lanes take the paths of the document's two tables: lane 0
;; Entry P Q R S P Q R S Exit (thread 1 of the second table; the first shows its
;; beginning), lane 1 Entry P Q S P Q R S Exit (thread 2 of both). Q goes to R on
;; lane 0 and on any lane's second visit (qp = 1); S leaves on its second visit
;; (ss = 1). Results: %qs in the last S, which came from R after two visits of Q
;; (qr = q1 = 2) on both lanes.
;; Hierarchies: with %u's successors in the order P, R the documented DFS reaches P
;; first: one cycle {P, Q, R, S}, header P, no child. With R first the DFS goes
;; Entry, R, S, P, Q: header R, and C - R holds the child cycle {S, P, Q} with header
;; S (Q -> S retreats): the document's "child cycle C' ... containing both branch Q
;; and join S".
;; Headers R, S (first table): P1 ~ P2 and Q1 ~ Q2 (no header before them); lane 1's
;; S2 follows no header, lane 0's S1 follows R1: "S2 is not converged with S1 due to
;; R1"; R1 ~ R2 (no R before either); S1 ~ S4 (after R1 ~ R2); lane 1's P4, Q4 follow
;; S2 and lane 0's P3, Q3 follow S1: apart; lane 0's second R and S are alone.
;; Header P (second table): everything is keyed by the last P: P1 ~ P2, Q1 ~ Q2,
;; S1 ~ S2 (both after P1 ~ P2; "threads that diverge at Q reconverge at S in the
;; same iteration of C"), R1 alone, P3 ~ P4, Q3 ~ Q4, R3 ~ R2, S3 ~ S4.
;; m-converged in this run: Entry and Exit only (P, Q, R, S are grouped differently
;; by the two hierarchies), as the static analysis says for this CFG.
; run: --threads 2 --arg u=1
; expect outcome: returned
; expect result: [2, 2]
; expect convergence: headers R, S
;   thread | 1     | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13
;   0      | Entry | P | Q |   |   |   | R | S | P | Q  | R  | S  | Exit
;   1      | Entry | P | Q | S | P | Q | R | S |   |    |    |    | Exit
; expect convergence: headers P
;   0 | Entry | P | Q | R | S | P | Q | R | S | Exit
;   1 | Entry | P | Q |   | S | P | Q | R | S | Exit
; expect convergence:
;   0 | Entry | P | Q | R | S | P | Q | R | S | Exit
;   1 | Entry | P | Q |   | S | P | Q | R | S | Exit
; expect m-converged: Entry, Exit

define i32 @f(i1 %u) {
Entry:
  %t = call i32 @pllvm.thread_id()
  %t0 = icmp eq i32 %t, 0
  br i1 %u, label %P, label %R

P:
  %qp = phi i32 [ 0, %Entry ], [ %qs, %S ]
  %sp = phi i32 [ 0, %Entry ], [ %s1, %S ]
  br label %Q

Q:
  %q1 = add i32 %qp, 1
  %again = icmp eq i32 %qp, 1
  %goR = or i1 %t0, %again
  br i1 %goR, label %R, label %S

R:
  %qr = phi i32 [ 0, %Entry ], [ %q1, %Q ]
  %sr = phi i32 [ 0, %Entry ], [ %sp, %Q ]
  br label %S

S:
  %qs = phi i32 [ %q1, %Q ], [ %qr, %R ]
  %ss = phi i32 [ %sp, %Q ], [ %sr, %R ]
  %s1 = add i32 %ss, 1
  %more = icmp ne i32 %ss, 1
  br i1 %more, label %P, label %Exit

Exit:
  ret i32 %qs
}
