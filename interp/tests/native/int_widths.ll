; Integer arithmetic at odd widths: every value is truncated to iN, combined with
; wrapping add/sub/mul and bitwise ops, and widened back by zext or sext.
define i64 @kernel(i64 %a, i64 %b) {
entry:
  %a7 = trunc i64 %a to i7
  %b7 = trunc i64 %b to i7
  %s7 = add i7 %a7, %b7
  %m7 = mul i7 %s7, %b7
  %w7 = sext i7 %m7 to i64
  %a13 = trunc i64 %a to i13
  %b13 = trunc i64 %b to i13
  %d13 = sub i13 %a13, %b13
  %x13 = xor i13 %d13, 4095
  %w13 = zext i13 %x13 to i64
  %a33 = trunc i64 %a to i33
  %b33 = trunc i64 %b to i33
  %m33 = mul i33 %a33, %b33
  %o33 = or i33 %m33, 1
  %w33 = sext i33 %o33 to i64
  %a65 = sext i64 %a to i65
  %b65 = zext i64 %b to i65
  %p65 = mul i65 %a65, %b65
  %h65 = lshr i65 %p65, 7
  %w65 = trunc i65 %h65 to i64
  %a128 = sext i64 %a to i128
  %b128 = sext i64 %b to i128
  %p128 = mul i128 %a128, %b128
  %q128 = ashr i128 %p128, 64
  %w128 = trunc i128 %q128 to i64
  %r1 = add i64 %w7, %w13
  %r2 = xor i64 %r1, %w33
  %r3 = sub i64 %r2, %w65
  %r4 = add i64 %r3, %w128
  %i1 = icmp slt i7 %a7, %b7
  %z1 = zext i1 %i1 to i64
  %r5 = shl i64 %r4, 1
  %r6 = or i64 %r5, %z1
  ret i64 %r6
}
