;; Types (LLVM LangRef, conversion operations): zext and sext widen integers, trunc
;; narrows them; fpext and fptrunc do the same for floats; bitcast keeps the size and
;; never turns pointers into integers; addrspacecast changes the address space.
define void @f(i32 %i, i64 %l, float %x, double %d, ptr %p) {
entry:
  %a = zext i32 %i to i8 ; error: zext from i32 to i8 is not a legal cast: the result must be wider
  %b = trunc i32 %i to i64 ; error: trunc from i32 to i64 is not a legal cast: the result must be narrower
  %c = fpext double %d to float ; error: fpext from double to float is not a legal cast: the result must be wider
  %e = bitcast i64 %l to float ; error: bitcast from i64 to float is not a legal cast: the sizes must be equal
  %g = bitcast ptr %p to i64 ; error: bitcast from ptr to i64 is not a legal cast: pointers convert only to pointers
  %h = addrspacecast ptr %p to ptr ; error: addrspacecast from ptr to ptr is not a legal cast: the address spaces must differ
  %k = sitofp float %x to double ; error: sitofp from float to double is not a legal cast: it converts integer to floating-point
  %ok1 = sext i32 %i to i64
  %ok2 = bitcast i32 %i to float
  %ok3 = ptrtoint ptr %p to i64
  %ok4 = addrspacecast ptr %p to ptr addrspace(3)
  ret void
}
