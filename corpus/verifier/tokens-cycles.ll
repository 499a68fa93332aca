;; Convergence control tokens and cycles (LLVM's convergent operations document,
;; "Static Rules": closed paths and convergence regions). A use of a token on a
;; closed path that avoids the token's definition must be a `loop` intrinsic,
;; the cycle's heart (rule 1); the heart dominates every block of such a closed
;; path, so it sits in the header of a natural loop (rule 4); convergence regions
;; nest. @nested is the document's inferred form for two nested loops: an entry
;; token, a heart per loop header taking its parent's token, and a use of the
;; inner heart's token outside the inner loop (the document's "example()",
;; whose exit block C keeps the iteration's token). Each refused function is
;; refused by opt-22's verifier too.

declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define i32 @nested(i32 %x, i1 %c, i1 %d, i1 %e) convergent {
entry:
  %tok = call token @llvm.experimental.convergence.entry()
  br label %outer

outer:
  %o = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %tok) ]
  br label %inner

inner:
  %i = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %o) ]
  br i1 %c, label %break, label %latch

break:
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %i) ]
  br label %outer.latch

latch:
  br i1 %d, label %inner, label %outer.latch

outer.latch:
  %v = phi i32 [ %r, %break ], [ 0, %latch ]
  br i1 %e, label %outer, label %exit

exit:
  ret i32 %v
}

;; The document's first incorrect example ("Rationales for Static rules about
;; cycles"): an anchor's token used in every iteration of a loop without a heart.
define i32 @anchor_in_loop(i32 %x, i1 %c) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  br label %loop

loop:
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %a) ] ; error: used inside a cycle that does not contain its definition
  br i1 %c, label %loop, label %exit

exit:
  ret i32 %r
}

;; A heart below the header: the closed path header → body → header avoids the
;; anchor, and the heart's block does not dominate the header.
define i32 @heart_below_header(i32 %x, i1 %c) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  br label %header

header:
  br label %body

body:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %a) ] ; error: does not dominate %header
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %l) ]
  br i1 %c, label %header, label %exit

exit:
  ret i32 %r
}

;; An irreducible cycle has no heart: neither entry of {%left, %right}
;; dominates the other.
define i32 @irreducible_heart(i32 %x, i1 %c, i1 %d) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  br i1 %c, label %left, label %right

left:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %a) ] ; error: does not dominate %right
  br label %right

right:
  br i1 %d, label %left, label %exit

exit:
  ret i32 %x
}

;; Regions that cross: %b's region starts inside %a's, but a use of %a comes
;; before the last use of %b, so %b is no longer live there.
define i32 @crossing_regions(i32 %x) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call token @llvm.experimental.convergence.anchor()
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %a) ]
  %s = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %r) [ "convergencectrl"(token %b) ] ; error: outside its convergence region's nesting
  ret i32 %s
}
