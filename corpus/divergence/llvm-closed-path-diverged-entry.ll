;; LLVM "Convergence and Uniformity", "Diverged Entry Criterion", figure
;; convergence-closed-path: the closed path P -> Q -> R -> S, where P and R are
;; entries, Q is a divergent branch and S its join (diverged paths Q -> R -> S and
;; Q -> S). The picture did not survive; rebuilt from the prose: Entry -> {P, R}
;; (uniform %u), P -> Q, Q -> {R, S} on the lane's thread id, R -> S, S -> {P, Exit}
;; on a uniform trip count.
;; Derivation (llvm): the documented DFS visits Entry, P, Q, R, S, so the only cycle
;; is {P, Q, R, S} with header P and entries P, R (irreducible). Q's joins: S
;; (Q -> S and Q -> R -> S share only their ends). Simplified criterion for B = Q,
;; J = S in C: Q does not strictly dominate S (Entry -> R -> S avoids Q), the
;; header P does not either (same path), and C has no child cycle. So C is not
;; m-converged: every output of P, Q, R, S is divergent, the uniform counter %i
;; included, and so is S's branch on it. %m in Exit is top-level and its operand
;; comes from Entry: uniform. %e uses %i.next from the cycle: divergent.
;; Run, W = 2, u = 1: both lanes enter at P; lane 0 goes Q -> R -> S, lane 1
;; Q -> S; S runs with both lanes in the same iteration (layout order puts R before
;; S), so the lanes agree at run time: the analysis is conservative here, as the
;; document says it must be for this CFG. Values: i = 0, s = 0, i.next = 1 (more);
;; i = 1, s = 1, i.next = 2 (exit); e = 2 + (5 + 1) = 8 in both lanes.
;; Dynamic convergence of that run (interp/src/convergence.rs): lane 0 runs Entry P
;; Q R S P Q R S Exit, lane 1 Entry P Q S P Q S Exit. With header P (documented DFS)
;; every instance is keyed by the last P before it: the lanes are converged in P, Q
;; and S of each iteration, and only lane 0 runs R. With headers R, S (Entry's
;; successors swapped; child {S, P, Q} with header S), P1 ~ P2 and Q1 ~ Q2 (no
;; header before them), but lane 0's S follows R while lane 1's first S follows no
;; header, and everything after follows S instances that are not converged: apart.
;; So P, Q and S are grouped differently by the two hierarchies; Entry and Exit (no
;; cycle) and R (one lane, each instance alone in both) behaved m-converged.
; expect convergence:
;   0 | Entry | P | Q | R | S | P | Q | R | S | Exit
;   1 | Entry | P | Q |   | S | P | Q |   | S | Exit
; expect convergence: headers R, S
;   0 | Entry | P | Q | R | S | P | Q |   | R | S |   |   |   | Exit
;   1 | Entry | P | Q |   |   |   |   | S |   |   | P | Q | S | Exit
; expect m-converged: Entry, R, Exit
; analyze: --uniform-args u,n
; run: --threads 2 --arg u=1,1 --arg n=5
; expect outcome: returned
; expect result: [8, 8]

define i32 @f(i1 %u, i32 %n) {
Entry:
  %t = call i32 @pllvm.thread_id()      ; expect[llvm]: varying
  %c = icmp eq i32 %t, 0                ; expect[llvm]: varying
  %n1 = add i32 %n, 1                   ; expect[llvm]: uniform
  br i1 %u, label %P, label %R          ; expect[llvm]: uniform

P:
  %i = phi i32 [ 0, %Entry ], [ %i.next, %S ] ; expect[llvm]: varying
  br label %Q

Q:
  br i1 %c, label %R, label %S          ; expect[llvm]: varying

R:
  %r = phi i32 [ 0, %Entry ], [ %i, %Q ] ; expect[llvm]: varying
  br label %S

S:
  %s = phi i32 [ %i, %Q ], [ %r, %R ]   ; expect[llvm]: varying
  %i.next = add i32 %s, 1               ; expect[llvm]: varying
  %more = icmp ult i32 %i.next, 2       ; expect[llvm]: varying
  br i1 %more, label %P, label %Exit    ; expect[llvm]: varying

Exit:
  %m = add i32 %n1, 0                   ; expect[llvm]: uniform
  %e = add i32 %i.next, %m              ; expect[llvm]: varying
  ret i32 %e
}
