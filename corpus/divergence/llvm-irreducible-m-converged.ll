;; LLVM "Convergence and Uniformity", simplified diverged entry criterion: "B
;; strictly dominates J". An irreducible cycle with entries P and R whose only
;; divergent branch Q has a join J that Q strictly dominates: the nodes of the
;; cycle are m-converged, so the uniformity rules apply inside it as in a
;; reducible loop.
;; CFG: Entry -> {P, R} (uniform %u); P -> Q; Q -> {X, Y} on the thread id;
;; X, Y -> J; J -> R; R -> {P, Exit} on a uniform counter.
;; Derivation (llvm): one cycle {P, Q, X, Y, J, R}, header P (first reached), entries
;; P and R. Q's joins: J only (Q -> X -> J and Q -> Y -> J). Q strictly dominates J
;; (J's predecessors X and Y have Q as their only predecessor), so the criterion
;; holds for C. Diverged paths of Q are Q -> X -> J and Q -> Y -> J: none leaves
;; the cycle (no divergent exit) and none reaches an entry from outside; Entry's
;; branch is uniform. Hence every node is m-converged: the phi %x in J is divergent
;; (J is a join and its incoming values differ), while the counters %i, %k, %k1,
;; the exit test and the LCSSA-like %e in Exit are uniform.
;; Run, W = 2, u = 1: lanes part at Q (lane 0 to X, lane 1 to Y) and meet at J.
;; i = 0, i1 = 1, k = 1, k1 = 2 (more); i = 2, i1 = 3, k = 3, k1 = 4 (exit): e = 4.
; analyze: --uniform-args u
; run: --threads 2 --arg u=1,1
; expect outcome: returned
; expect result: [4, 4]

define i32 @f(i1 %u) {
Entry:
  %t = call i32 @pllvm.thread_id()      ; expect[llvm]: varying
  %c = icmp eq i32 %t, 0                ; expect[llvm]: varying
  br i1 %u, label %P, label %R          ; expect[llvm]: uniform

P:
  %i = phi i32 [ 0, %Entry ], [ %k1, %R ] ; expect[llvm]: uniform
  br label %Q

Q:
  br i1 %c, label %X, label %Y          ; expect[llvm]: varying

X:
  br label %J

Y:
  br label %J

J:
  %x = phi i32 [ 1, %X ], [ 2, %Y ]     ; expect[llvm]: varying
  %i1 = add i32 %i, 1                   ; expect[llvm]: uniform
  br label %R

R:
  %k = phi i32 [ 0, %Entry ], [ %i1, %J ] ; expect[llvm]: uniform
  %k1 = add i32 %k, 1                   ; expect[llvm]: uniform
  %more = icmp ult i32 %k1, 3           ; expect[llvm]: uniform
  br i1 %more, label %P, label %Exit    ; expect[llvm]: uniform

Exit:
  %e = phi i32 [ %k1, %R ]              ; expect[llvm]: uniform
  ret i32 %e
}
