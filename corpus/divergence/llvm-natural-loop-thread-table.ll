;; LLVM "Convergence and Uniformity", "Threads and Dynamic Instances" and "Maximal
;; Convergence": the natural loop figure (convergence-natural-loop, a picture that
;; did not survive) and its thread table. Rebuilt from the table: Entry -> H;
;; H -> {B, L}; B -> L; L -> {H, Exit}. Thread 1 runs Entry H B L H L Exit, thread 2
;; Entry H L H B L H B L Exit. Lane 0 plays thread 1, lane 1 thread 2: H goes to B
;; when (i == 0) xor (t == 1), L leaves after 2 + t iterations.
;; Paths: lane 0: i = 0, B (true xor false), i1 = 1 < 2; i = 1, no B, i1 = 2: Exit,
;; result 2. Lane 1: i = 0, no B (true xor true), i1 = 1 < 3; i = 1, B; i = 2, B,
;; i1 = 3: Exit, result 3.
;; Convergence (derived by the definition, one cycle {H, B, L} with header H, the
;; only hierarchy since the CFG is reducible): Entry and Exit are in no cycle, so
;; their instances are converged. Instances of H, B, L are converged iff the last
;; instances of H before them are (the header is the point of convergence):
;; H1 ~ H2 (no header before either); H3 ~ H4 (after H1 ~ H2); H5 is alone (lane 0
;; has no third H); B1 (after H1) and B2 (after H4) are not converged "due to H4
;; which is not convergence-before B1"; L1 ~ L2, L3 ~ L4, L5 alone. The columns
;; below are the document's. Every block behaved m-converged (one hierarchy).
; run: --threads 2
; expect outcome: returned
; expect result: [2, 3]
; expect convergence:
;   thread | 1     | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11
;   0      | Entry | H | B | L | H |   | L |   |   |    | Exit
;   1      | Entry | H |   | L | H | B | L | H | B | L  | Exit
; expect m-converged: Entry, H, B, L, Exit

define i32 @f() {
Entry:
  %t = call i32 @pllvm.thread_id()
  %t1 = icmp eq i32 %t, 1
  %lim = add i32 %t, 2
  br label %H

H:
  %i = phi i32 [ 0, %Entry ], [ %i1, %L ]
  %first = icmp eq i32 %i, 0
  %goB = xor i1 %first, %t1
  br i1 %goB, label %B, label %L

B:
  br label %L

L:
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %lim
  br i1 %more, label %H, label %Exit

Exit:
  ret i32 %i1
}
