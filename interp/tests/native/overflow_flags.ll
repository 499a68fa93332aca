; Poison-generating flags: nsw / nuw / exact give poison (⊤ in pllvm) exactly
; where LLVM says; natively those lanes hold some value, so only lanes pllvm
; computes as defined are compared. Divisors are made non-zero with `or 1`.
define i64 @kernel(i64 %a, i64 %b) {
entry:
  %a32 = trunc i64 %a to i32
  %b32 = trunc i64 %b to i32
  %s = add nsw i32 %a32, %b32
  %m = mul nuw i32 %a32, 3
  %d0 = or i32 %b32, 1
  %q = sdiv i32 %a32, %d0
  %u = udiv exact i32 %a32, 4
  %r = urem i32 %a32, %d0
  %t = sub nuw nsw i32 %s, %r
  %x1 = add i32 %q, %u
  %x2 = xor i32 %x1, %m
  %x3 = add i32 %x2, %t
  %w = sext i32 %x3 to i64
  ret i64 %w
}
