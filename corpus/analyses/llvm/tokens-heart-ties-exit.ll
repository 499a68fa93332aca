;; Temporal divergence at a cycle exit under a token (LLVM's "Convergence and
;; Uniformity", "Controlled Convergence" > "Temporal Divergence at Cycle Exit"),
;; on the document's loop with a divergent break (as in
;; corpus/divergence/tokens-loop-heart-break.ll): the heart %h ties the
;; iterations of the cycle {for, B, D}, and its token is used in the exit C (by
;; %r), so the heart's convergence region runs from %h through C up to %r. A use
;; of a loop value inside that region sees the value of one iteration among the
;; threads converged there (those that broke in the same iteration): temporal
;; divergence applies only outside the region.
;; Derivation:
;; - %brk compares the uniform %i with the work-item id: varying, so the cycle
;;   has a divergent exit (C), and E, reached from `for` and C, is a join of B's
;;   branch: %v varying.
;; - %s = %i + 7 in C, before %r: in the region of %h, which is defined in the
;;   cycle and used outside it: no temporal divergence; %i is uniform, so %s is
;;   uniform (pllvm's `llvm` analysis; opt-22 does not implement the rule and
;;   calls %s divergent: class `controlled` under --compare-llvm).
;; - %r = readfirstlane(%s): always uniform.
;; - %z = %i + 1 after %r: outside the region (no use of %h follows), so the
;;   cycle's temporal divergence applies: varying, and so %sum.
;; Runs (4 lanes): lane t breaks in iteration t + 1 with %i = t, holding a token
;; of its own heart instance: %r's classes are {0} {1} {2} {3}, and each lane is
;; converged with no other at C. `highest` runs C as each lane breaks, keeps
;; every token, and each lane reads its own t + 7: %v = 2t + 8. The checked
;; default (`lowest`) runs C once for all four lanes (Def. 17 makes them meet
;; there): a merged token violation at %r, and readfirstlane gives lane 0's 7 to
;; all: %v = t + 8. The soundness check compares %s within one class of %h's
;; token only (so the merged step is no counterexample to "uniform"), and %z
;; across all lanes, where both runs see it divergent.
; run lowest: --threads 4
; run highest: --threads 4 --sched highest
; expect outcome: returned
; expect lowest result: [8, 9, 10, 11]
; expect highest result: [8, 10, 12, 14]
; expect controlled: %r = {0} {1} {2} {3}
; expect lowest token-violations: merged %r
; expect highest token-violations: none
target triple = "amdgcn--"

declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define i32 @heart() convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()    ; expect[llvm]: uniform
  %t = call i32 @llvm.amdgcn.workitem.id.x()                ; expect[llvm]: varying
  br label %for

for:
  %i = phi i32 [ 0, %entry ], [ %i1, %D ]                   ; expect[llvm]: uniform
  %h = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ] ; expect[llvm]: uniform
  %more = icmp slt i32 %i, 8                                ; expect[llvm]: uniform
  br i1 %more, label %B, label %E                           ; expect[llvm]: uniform

B:
  %brk = icmp eq i32 %i, %t                                 ; expect[llvm]: varying
  br i1 %brk, label %C, label %D                            ; expect[llvm]: varying

C:
  %s = add i32 %i, 7                                        ; expect[llvm]: uniform
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %s) [ "convergencectrl"(token %h) ] ; expect[llvm]: uniform
  %z = add i32 %i, 1                                        ; expect[llvm]: varying
  %sum = add i32 %r, %z                                     ; expect[llvm]: varying
  br label %E

D:
  %i1 = add i32 %i, 1                                       ; expect[llvm]: uniform
  br label %for

E:
  %v = phi i32 [ -1, %for ], [ %sum, %C ]                   ; expect[llvm]: varying
  ret i32 %v
}
