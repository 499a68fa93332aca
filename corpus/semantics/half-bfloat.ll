;; half and bfloat (docs/language.md): 16-bit floats as lane values. Arithmetic is
;; computed in binary32 and rounded once to the 16-bit type, which is the
;; exactly rounded IEEE result for + - * / (binary32 has ≥ 2p + 2 significand
;; bits for both; docs/language.md). Constants are written in LLVM's hex forms
;; 0xH (half) and 0xR (bfloat). Two lanes, x = [1, 3].
;;
;; Derivation, half (1 sign, 5 exponent, 10 fraction bits):
;;   h     = sitofp x to half              = 1.0 | 3.0
;;   third = h / 3.0 (0xH4200)             : 1/3 = 1.0101010101|0101…b · 2^-2, the
;;           bits after the 10th are below half an ulp → round down:
;;           0 01101 0101010101 = 0x3555 = 1365/4096 = 0.333251953125 | 1.0 = 0x3C00
;;   hbits = zext (bitcast third to i16)   = 13653 | 15360   (the result)
;;   lt    = third < 0.5 (0xH3800)         = 1 | 0
;;   @hs[t] := third                       → @hs = [0.333251953125, 1.0]
;; bfloat (8 exponent, 7 fraction bits):
;;   ff = float(256·x + 1)                 = 257.0 | 769.0
;;   bf = fptrunc ff to bfloat             : 257 = 1.0000000|1b · 2^8 is a tie →
;;        even: 256 | 769 = 1.1000000|01b · 2^9 rounds down: 768
;;   bi = fptosi (fpext bf to float)       = 256 | 768
;;   nb = fneg bf, back to i32             = -256 | -768
; run fr: --threads 2 --interp fr --arg x=1,3
; run ref: --threads 2 --interp fr --exec reference --arg x=1,3
; run obl: --threads 2 --interp obl --arg x=1,3
; expect outcome: returned
; expect result: [13653, 15360]
; expect env: %third = [0.333251953125, 1.0]
; expect env: %lti = [1, 0]
; expect env: %bi = [256, 768]
; expect env: %ni = [-256, -768]
; expect memory: @hs = [0.333251953125, 1.0]

@hs = global [2 x half] zeroinitializer

define i32 @f(i32 %x) {
A:
  %t = call i32 @pllvm.thread_id()
  %h = sitofp i32 %x to half
  %third = fdiv half %h, 0xH4200
  %hb = bitcast half %third to i16
  %hbits = zext i16 %hb to i32
  %lt = fcmp olt half %third, 0xH3800
  %lti = zext i1 %lt to i32
  %slot = getelementptr inbounds [2 x half], ptr @hs, i32 0, i32 %t
  store half %third, ptr %slot, align 2
  %x256 = mul i32 %x, 256
  %x257 = add i32 %x256, 1
  %ff = sitofp i32 %x257 to float
  %bf = fptrunc float %ff to bfloat
  %bfe = fpext bfloat %bf to float
  %bi = fptosi float %bfe to i32
  %nb = fneg bfloat %bf
  %nbe = fpext bfloat %nb to double
  %ni = fptosi double %nbe to i32
  ret i32 %hbits
}
