;; Convergence control tokens, the bundle rules (LLVM's convergent operations
;; document, "Dynamic Instances and Convergence Tokens" and "Convergence Control
;; Intrinsics"): a convergent call takes at most one "convergencectrl" bundle,
;; whose one operand is a token produced by a call to entry, anchor or loop.
;; `token none` is a token but no convergence token. @accepted uses every form
;; the rules allow: a token of an anchor at a θ builtin LLVM defines as
;; convergent, at an external function declared `convergent` (through an
;; attribute group), and at a function that is not convergent, which LLVM 22
;; allows (without effect; LLVM 19 refused it).

declare token @llvm.experimental.convergence.anchor()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i32 @plain(i32)
declare i32 @shared_op(i32) #0

define i32 @accepted(i32 %x) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %a) ]
  %s = call i32 @shared_op(i32 %r) [ "convergencectrl"(token %a) ]
  %t = call i32 @plain(i32 %s) [ "convergencectrl"(token %a) ]
  ret i32 %t
}

define i32 @two_bundles(i32 %x) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %a), "convergencectrl"(token %a) ] ; error: at most one "convergencectrl" bundle
  ret i32 %r
}

define i32 @two_operands(i32 %x) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call token @llvm.experimental.convergence.anchor()
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %a, token %b) ] ; error: exactly one operand of type token
  ret i32 %r
}

define i32 @none_token(i32 %x) {
entry:
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token none) ] ; error: none is not a convergence control token
  ret i32 %r
}

define i32 @parameter_token(i32 %x, token %t) { ; error: takes a parameter of type token
entry:
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %t) ] ; error: %t is not a convergence control token
  ret i32 %r
}

attributes #0 = { convergent nounwind }
