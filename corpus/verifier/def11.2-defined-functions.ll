;; Def. 11.2 (defined functions): every called function is in the function map θ
;; (builtins such as @pllvm.thread_id, LLVM intrinsics, libm). P-LLVM has no calls
;; to P-LLVM functions (thesis §4.9.2): pllvm inlines a call to a function defined
;; in the module when the module is read (docs/language.md), so the verifier sees
;; one only when it does not match the definition. θ is open to declared external
;; functions (a call to one is undefined behaviour only if a lane executes it), but
;; the reserved pllvm.* names must be θ's own.
;; The mismatched call to @g is reported twice (its arguments, and that it is a
;; call to a defined function), both messages naming @g.
declare i32 @pllvm.thread_id()
declare float @llvm.sqrt.f32(float)
declare void @mystery()
declare void @pllvm.mystery()

define float @g(float %x) {
entry:
  ret float %x
}

define void @f(float %x) {
entry:
  %t = call i32 @pllvm.thread_id()
  %r = call float @llvm.sqrt.f32(float %x)
  call void @mystery()
  call void @pllvm.mystery() ; error: call to @pllvm.mystery, which is not in the function map θ
  %y = call float @g(float %x, float %x) ; error: call to @g
  ret void
}
