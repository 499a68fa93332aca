; Shifts at several widths, with in-range amounts (masked) and amounts that may
; reach the width (poison in LLVM, ⊤ in pllvm; such lanes are not compared).
define i64 @kernel(i64 %a, i64 %b) {
entry:
  %amt = and i64 %b, 63
  %l = shl i64 %a, %amt
  %r = lshr i64 %a, %amt
  %s = ashr i64 %a, %amt
  %a16 = trunc i64 %a to i16
  %b16 = trunc i64 %b to i16
  %k16 = and i16 %b16, 15
  %s16 = ashr i16 %a16, %k16
  %e16 = sext i16 %s16 to i64
  %a8 = trunc i64 %a to i8
  %b8 = trunc i64 %b to i8
  %big = lshr i8 %a8, %b8
  %e8 = zext i8 %big to i64
  %x = xor i64 %l, %r
  %y = add i64 %x, %s
  %z = xor i64 %y, %e16
  %w = add i64 %z, %e8
  ret i64 %w
}
