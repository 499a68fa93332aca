;; Def. 11.2 (defined functions): every called function is in the function map θ
;; (builtins such as @pllvm.thread_id, LLVM intrinsics, libm). P-LLVM has no calls
;; to P-LLVM functions (thesis §4.9.2), so a function with a body cannot be called.
declare i32 @pllvm.thread_id()
declare float @llvm.sqrt.f32(float)
declare void @mystery()

define float @g(float %x) {
entry:
  ret float %x
}

define void @f(float %x) {
entry:
  %t = call i32 @pllvm.thread_id()
  %r = call float @llvm.sqrt.f32(float %x)
  call void @mystery() ; error: call to @mystery, which is not in the function map θ
  %y = call float @g(float %x) ; error: call to @g: P-LLVM has no calls to P-LLVM functions
  ret void
}
