; Poison-generating flags: nsw / nuw / exact give poison (⊤ in pllvm) exactly
; where LLVM says; natively those lanes hold some value, so only lanes pllvm
; computes as defined are compared. The operands are shaped so that poison
; arises only at the edge cases of the inputs (large magnitudes), and divisors
; are made non-zero with `or 1`.
define i64 @kernel(i64 %a, i64 %b) {
entry:
  %a32 = trunc i64 %a to i32
  %b32 = trunc i64 %b to i32
  %s = add nsw i32 %a32, %b32
  %small = and i32 %a32, 16777215
  %m = mul nuw i32 %small, 3
  %d0 = or i32 %b32, 1
  %q = sdiv i32 %a32, %d0
  %a4 = shl i32 %small, 2
  %u = udiv exact i32 %a4, 4
  %r = urem i32 %a32, %d0
  %t = sub nsw i32 %s, %r
  %sh = shl nuw i32 %small, 4
  %x1 = add i32 %q, %u
  %x2 = xor i32 %x1, %m
  %x3 = add i32 %x2, %t
  %x4 = xor i32 %x3, %sh
  %w = sext i32 %x4 to i64
  ret i64 %w
}
