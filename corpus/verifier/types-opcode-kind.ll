;; Types (LLVM LangRef): integer operators take integers, floating-point operators
;; floats; icmp compares integers or pointers, fcmp floats.
define void @f(i32 %i, float %x, ptr %p) {
entry:
  %a = add float %x, %x ; error: add needs an integer type, found float
  %b = fadd i32 %i, %i ; error: fadd needs a floating-point type, found i32
  %c = fneg i32 %i ; error: fneg needs a floating-point type, found i32
  %d = icmp eq float %x, %x ; error: icmp needs an integer or pointer type, found float
  %e = fcmp olt i32 %i, %i ; error: fcmp needs a floating-point type, found i32
  %ok1 = icmp eq ptr %p, null
  %ok2 = fcmp olt float %x, 1.0
  ret void
}
