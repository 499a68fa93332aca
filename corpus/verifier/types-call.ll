;; Types (LLVM LangRef: call): a call passes as many arguments as the callee
;; declares, of the declared types, and expects the declared return type.
declare float @sqrtf(float)

define void @f(float %x, double %d) {
entry:
  %ok = call float @sqrtf(float %x)
  %few = call float @sqrtf() ; error: call to @sqrtf passes 0 arguments, but it takes 1
  %arg = call float @sqrtf(double %d) ; error: %d has type double, but call expects float
  %ret = call double @sqrtf(float %x) ; error: call to @sqrtf returns float, not double
  ret void
}
