;; LLVM "Convergence and Uniformity", figure convergence-both-diverged-nested: "two
;; nested irreducible cycles with headers R and S. The nodes Entry and Q have
;; divergent branches", and its table of three threads (Entry P1 Q1 S1 P3 Q3 R1
;; S2 Exit; Entry P2 Q2 R2 S3 Exit; Entry R3 S4 Exit). The CFG is the one of
;; llvm-nested-r-s-diverged-outside.ll (Entry -> {R, P}, R -> S, S -> {P, Exit},
;; P -> Q, Q -> {S, R}); here the lanes take exactly the document's paths: lane 2
;; enters at R (t == 2), the others at P; Q goes to S only on lane 0's first visit
;; (qp counts earlier visits of Q); S goes back to P only when it came from Q.
;; Results: %qs in the last S: lane 0 came from R after two visits of Q (qr = 2),
;; lane 1 from R after one (1), lane 2 from Entry (0).
;; Hierarchies: Entry's successors in the order R, P make the documented DFS
;; Entry, R, S, P, Q: outer cycle {R, S, P, Q} header R, child {S, P, Q} (C - R)
;; header S (Q -> S retreats to S). With P first, the DFS Entry, P, Q, ... gives one
;; cycle with header P and no child in {Q, R, S} (no cycle without P). No other
;; successor order gives another hierarchy.
;; Convergence with headers R, S (the document's columns): P1 ~ P2 and Q1 ~ Q2 (no
;; header before them); S1 is alone (no header before it; lanes 1 and 2 executed R
;; before their S); "P2 and P3 are not converged due to S1" (P3 follows S1);
;; R1 ~ R2 ~ R3 (no R before any); S2 ~ S3 ~ S4 (each follows its R, converged);
;; "S1 and S3 ... S4 are not converged due to R2, R3".
;; With header P: every instance in the cycle is keyed by the last P before it:
;; P1 ~ P2, Q1 ~ Q2, S1 ~ S3 (after P1 ~ P2); P3, Q3, R1, S2 follow P3, alone; lane
;; 1's R2 follows P2 but lane 0 has no R after P1; lane 2's R3, S4 follow no P.
;; m-converged in this run: Entry and Exit (no cycle), and P and Q, whose instances
;; are grouped {P1, P2}, {P3} and {Q1, Q2}, {Q3} by both hierarchies; R and S are
;; grouped differently. (The static analysis, which cannot know the run, calls no
;; node of the cycle m-converged: diverged paths from Entry reach two entries.)
; run: --threads 3
; expect outcome: returned
; expect result: [2, 1, 0]
; expect convergence: headers R, S
;   thread | 1     | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9
;   0      | Entry | P | Q | S | P | Q | R | S | Exit
;   1      | Entry | P | Q |   |   |   | R | S | Exit
;   2      | Entry |   |   |   |   |   | R | S | Exit
; expect convergence: headers P
;   0 | Entry | P | Q |   |   |   | S | P | Q | R | S | Exit
;   1 | Entry | P | Q | R |   |   | S |   |   |   |   | Exit
;   2 | Entry |   |   |   | R | S |   |   |   |   |   | Exit
; expect m-converged: Entry, P, Q, Exit

define i32 @f() {
Entry:
  %t = call i32 @pllvm.thread_id()
  %c = icmp eq i32 %t, 2
  %t0 = icmp eq i32 %t, 0
  br i1 %c, label %R, label %P

R:
  %qr = phi i32 [ 0, %Entry ], [ %q1, %Q ]
  br label %S

S:
  %qs = phi i32 [ %qr, %R ], [ %q1, %Q ]
  %fromQ = phi i1 [ false, %R ], [ true, %Q ]
  br i1 %fromQ, label %P, label %Exit

P:
  %qp = phi i32 [ 0, %Entry ], [ %qs, %S ]
  br label %Q

Q:
  %q1 = add i32 %qp, 1
  %firstQ = icmp eq i32 %qp, 0
  %toS = and i1 %firstQ, %t0
  br i1 %toS, label %S, label %R

Exit:
  ret i32 %qs
}
