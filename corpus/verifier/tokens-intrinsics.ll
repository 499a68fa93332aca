;; Convergence control tokens, where each intrinsic may stand (LLVM's convergent
;; operations document, "Convergence Control Intrinsics"): `entry` only in a
;; convergent function, only in its entry block and before every other
;; convergent operation there; `entry` and `anchor` take no "convergencectrl"
;; bundle; `loop` takes one and comes before every other convergent operation
;; of its block. Tokens are not data: no phi or select of type token. A
;; function with a controlled convergent operation has no uncontrolled one.
;; Each refused line is refused by opt-22's verifier too.

declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define i32 @accepted(i32 %x, i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %e) ]
  br label %loop

loop:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %s = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %r) [ "convergencectrl"(token %l) ]
  br i1 %c, label %loop, label %exit

exit:
  ret i32 %s
}

define i32 @entry_not_convergent(i32 %x) {
entry:
  %e = call token @llvm.experimental.convergence.entry() ; error: not convergent: the entry intrinsic occurs only in a convergent function
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %e) ]
  ret i32 %r
}

define i32 @entry_late(i32 %x) convergent {
entry:
  br label %next

next:
  %e = call token @llvm.experimental.convergence.entry() ; error: occurs only in the entry block
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %e) ]
  ret i32 %r
}

define i32 @entry_after_convergent(i32 %x) convergent {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  %e = call token @llvm.experimental.convergence.entry() ; error: must precede every other convergent operation
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %a) ]
  ret i32 %r
}

define i32 @anchor_with_bundle(i32 %x) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call token @llvm.experimental.convergence.anchor() [ "convergencectrl"(token %a) ] ; error: takes no "convergencectrl" bundle
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %b) ]
  ret i32 %r
}

define i32 @loop_without_bundle(i32 %x, i1 %c) {
entry:
  br label %loop

loop:
  %l = call token @llvm.experimental.convergence.loop() ; error: needs a "convergencectrl" bundle
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %l) ]
  br i1 %c, label %loop, label %exit

exit:
  ret i32 %r
}

define i32 @loop_after_convergent(i32 %x, i1 %c) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  br label %loop

loop:
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %a) ] ; error: used inside a cycle
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %a) ] ; error: must precede every other convergent operation
  br i1 %c, label %loop, label %exit

exit:
  ret i32 %r
}

define i32 @mixed(i32 %x) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %a) ]
  %s = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %r) ; error: uncontrolled convergent call to @llvm.amdgcn.readfirstlane.i32 in a function with controlled
  ret i32 %s
}

define i32 @token_select(i32 %x, i1 %c) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call token @llvm.experimental.convergence.anchor()
  %t = select i1 %c, token %a, token %b ; error: a select cannot have type token
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %t) ] ; error: %t is not a convergence control token
  ret i32 %r
}
