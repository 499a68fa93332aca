;; The targets' 24-bit and high-half multiplies in θ (docs/language.md, "The targets'
;; integer multiplies"; PTX ISA mul24.lo and mul.hi).
;; None is declared: pllvm declares those θ defines.
;;
;; a = [0x1000003, -1], b = [5, -1]:
;; m = mul24.ui(a, b): the low 24 bits of each operand multiplied, the low 32 bits kept:
;;     lane 0: 3 · 5 = 15; lane 1: 0xffffff · 0xffffff = 0xfffffe000001 -> 0xfe000001 = -33554431.
;; s = mul24.i(a, b): the same bits read as signed 24-bit numbers:
;;     lane 0: 3 · 5 = 15; lane 1: (-1) · (-1) = 1.
;; h = mulhi.ui(a, b): the high 32 bits of the 64-bit product:
;;     lane 0: 0x1000003 · 5 = 0x500000f -> 0; lane 1: 0xffffffff² = 0xfffffffe00000001 -> 0xfffffffe = -2.
;; g = mulhi.i(a, b): signed: lane 0: 0; lane 1: (-1)·(-1) = 1 -> 0.
;; r = m + 1000 s + 100000 h + 10000000 g:
;;     lane 0: 15 + 15000 = 15015; lane 1: -33554431 + 1000 - 200000 = -33753431.
; run fr: --threads 2 --interp fr --arg a=16777219,-1 --arg b=5,-1
; expect fr outcome: returned
; expect fr result: [15015, -33753431]

define i32 @f(i32 %a, i32 %b) {
A:
  %m = call i32 @llvm.nvvm.mul24.ui(i32 %a, i32 %b)
  %s = call i32 @llvm.nvvm.mul24.i(i32 %a, i32 %b)
  %h = call i32 @llvm.nvvm.mulhi.ui(i32 %a, i32 %b)
  %g = call i32 @llvm.nvvm.mulhi.i(i32 %a, i32 %b)
  %s1k = mul i32 %s, 1000
  %h100k = mul i32 %h, 100000
  %g10m = mul i32 %g, 10000000
  %r1 = add i32 %m, %s1k
  %r2 = add i32 %r1, %h100k
  %r = add i32 %r2, %g10m
  ret i32 %r
}
