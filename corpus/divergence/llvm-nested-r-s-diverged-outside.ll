;; LLVM "Convergence and Uniformity", figure convergence-both-diverged-nested: "two
;; nested irreducible cycles with headers R and S. The nodes Entry and Q have
;; divergent branches." Rebuilt from the thread table (Entry P Q S P Q R S Exit;
;; Entry P Q R S Exit; Entry R S Exit): Entry -> {P, R}, P -> Q, Q -> {S, R},
;; R -> S, S -> {P, Exit}. Both branches are on the thread id here; S leaves on a
;; uniform counter.
;; Derivation (llvm): with Entry's successors in the order R, P the documented DFS
;; is Entry, R, S, P, Q: the outer cycle {R, S, P, Q} has header R and entries R, P;
;; C - R holds the child cycle {S, P, Q} with header S and entries S, P (the
;; document's hierarchy; `cycles` unit tests check it). Entry is divergent and
;; outside both cycles; its successors R and P are both entries of the outer
;; cycle, so diverged paths reach the cycle from outside ("Diverged Paths reaching
;; a Cycle"): no node of the cycles is m-converged and every output there is
;; divergent. Exit is top-level: %m (from Entry) is uniform, the value %e brought
;; out of the cycle is divergent.
;; Run, W = 3, counts per the document's three threads are not reproduced
;; (a counter bounds the loop); the run checks the uniform claims only. The
;; document's table is reproduced by llvm-nested-r-s-thread-table.ll.
; analyze: --uniform-args n
; run: --threads 3 --arg n=4
; expect outcome: returned

define i32 @f(i32 %n) {
Entry:
  %t = call i32 @pllvm.thread_id()      ; expect[llvm]: varying
  %c = icmp eq i32 %t, 0                ; expect[llvm]: varying
  %d = icmp eq i32 %t, 1                ; expect[llvm]: varying
  %m = add i32 %n, 1                    ; expect[llvm]: uniform
  br i1 %c, label %R, label %P          ; expect[llvm]: varying

R:
  %r = phi i32 [ 0, %Entry ], [ %q, %Q ] ; expect[llvm]: varying
  br label %S

S:
  %s = phi i32 [ %r, %R ], [ %q, %Q ]   ; expect[llvm]: varying
  %s1 = add i32 %s, 1                   ; expect[llvm]: varying
  %more = icmp ult i32 %s1, 3           ; expect[llvm]: varying
  br i1 %more, label %P, label %Exit    ; expect[llvm]: varying

P:
  %p = phi i32 [ 0, %Entry ], [ %s1, %S ] ; expect[llvm]: varying
  br label %Q

Q:
  %q = add i32 %p, 1                    ; expect[llvm]: varying
  br i1 %d, label %S, label %R          ; expect[llvm]: varying

Exit:
  %e = add i32 %s1, %m                  ; expect[llvm]: varying
  ret i32 %e
}
