;; Thesis Fig. 6.4c (§6.3): activation dependence. "Since mask() simply returns the
;; activation bit, the shape of m depends on v and on p. If v makes the branch in
;; E divergent, the activation of B becomes varying. Further, irrespective of
;; whether v is uniform, if the block predicate p is varying, m is varying as
;; well." This file takes v uniform; fig6.4c-activation-divergent-branch.ll takes
;; v varying.
;; The picture did not survive; rebuilt from the prose: E branches on %v to B,
;; whose predicate is the varying %p = t < n and which computes m = mask(); a
;; second block C with the uniform predicate %q computes m2 = mask().
;; Derivation: %p is varying → update_shape (Listing 2, lines 5-12) puts B, the
;; block with predicate p, into adep* → m = mask() varying by [DA-DMASK]. C's
;; predicate q is uniform and C is control dependent on no divergent branch →
;; [DA-UMASK]: m2 uniform. The branch in E is uniform (v uniform), so X's phi is
;; uniform by [DA-PHI-U]. mask() writes every lane ([W-CMD-MASK]): the run shows
;; m = [1, 0] (lane 1 has t = 1 ≥ n) and m2 = [1, 1].
; analyze: --uniform-args v,q,n
; run: --threads 2 --arg v=1 --arg q=1 --arg n=1
; expect outcome: returned
; expect env: %mz = [1, 0]
; expect env: %m2z = [1, 1]

define i32 @f(i1 %v, i1 %q, i32 %n) {
E:                                      ; expect: uniform
  %t = call i32 @pllvm.thread_id()      ; expect: varying
  %p = icmp ult i32 %t, %n              ; expect: varying
  br i1 %v, label %B, label %X          ; expect: uniform

B:                                      ; expect: varying
  predicate %p
  %m = mask()                           ; expect: varying
  %mz = zext i1 %m to i32 total         ; expect: varying
  br label %C

C:                                      ; expect: uniform
  predicate %q
  %m2 = mask()                          ; expect: uniform
  %m2z = zext i1 %m2 to i32 total       ; expect: uniform
  br label %X

X:                                      ; expect: uniform
  %r = phi i32 [ 7, %C ], [ 0, %E ]     ; expect: uniform
  ret i32 %r
}
