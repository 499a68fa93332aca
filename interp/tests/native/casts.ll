; Casts between integers and floats: fptosi / fptoui of out-of-range values are
; poison (⊤, not compared); sitofp / uitofp round to nearest even; fptrunc / fpext.
define i64 @kernel(i64 %a, i64 %b) {
entry:
  %x = bitcast i64 %a to double
  %si = fptosi double %x to i32
  %ui = fptoui double %x to i16
  %e1 = sext i32 %si to i64
  %e2 = zext i16 %ui to i64
  %f1 = sitofp i64 %b to double
  %f2 = uitofp i64 %b to float
  %f3 = fpext float %f2 to double
  %f4 = fadd double %f1, %f3
  %h = fptrunc double %f4 to float
  %hb = bitcast float %h to i32
  %hz = zext i32 %hb to i64
  %g = bitcast double %f1 to i64
  %t1 = xor i64 %e1, %e2
  %t2 = add i64 %t1, %hz
  %t3 = xor i64 %t2, %g
  ret i64 %t3
}
