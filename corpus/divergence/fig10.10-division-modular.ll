;; Thesis Fig. 10.10 (§10.4.2) with machine integers (§10.1: γ "in the native bit
;; width"): div_T(x, c) = (s/c, a/|c|) when c | s and c | a. Modulo 2^32 a multiple
;; of 36 is any multiple of 4 (9 is invertible): with k = 715827883, 36·k = 12
;; (mod 2^32), and 12 sdiv 9 = 1, not a multiple of 36/9 = 4. pllvm divides only by
;; powers of two (an exact shift) and otherwise keeps the basic rule.
;; Derivation (k uniform: (0, 1)):
;;   %x = mul k 36: (0, 36).
;;   %d = sdiv x 9: 9 is no power of two: the basic rule, uniform (0, 1).
;;   %e = sdiv x 4: by 2^2; x's base is a multiple of pow2(36) = 4: exact,
;;   (0, 4 / 4) = (0, 1).
;;   %h = mul k 64: (0, 64); %g = udiv h 8: (0, 64 / 8) = (0, 8).
;; Run: k = 715827883, W = 2: x = 12, d = 1 (the thesis' (0, 4) is refuted), e = 3,
;; g = 8·k mod 2^32 = 1431655768; r = d + e = 4.
; analyze: --uniform-args k
; run: --threads 2 --arg k=715827883
; expect outcome: returned
; expect result: [4, 4]

define i32 @f(i32 %k) {
entry:
  %x = mul i32 %k, 36                          ; expect: uniform ; expect[sa]: uniform align 36
  %d = sdiv i32 %x, 9                          ; expect: uniform ; expect[sa]: uniform
  %e = sdiv i32 %x, 4                          ; expect: uniform ; expect[sa]: uniform
  %h = mul i32 %k, 64                          ; expect: uniform ; expect[sa]: uniform align 64
  %g = udiv i32 %h, 8                          ; expect: uniform ; expect[sa]: uniform align 8
  %r = add i32 %d, %e
  ret i32 %r
}
