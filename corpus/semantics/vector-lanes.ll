;; Vector values as lane values (docs/language.md, "Vectors,
;; aggregates and atomics"): each of the W lanes holds a whole <4 x float>, and the
;; element-wise instructions apply the scalar operation to each element of each
;; active lane ([W-INST-LLVM], "regular LLVM semantics", thesis §4.9). Element
;; indices out of range and poison mask elements give ⊤ for that element alone
;; (LLVM's per-element poison); freeze turns each ⊤ element into 0.
;; Two lanes (W = 2); @in = [1, 2, 3, 4, 5, 6, 7, 8].
;;
;; Derivation, lane t (t = 0, 1), base = 4t:
;;   v    = load <4 x float> @in[4t..4t+3]     = <1,2,3,4> | <5,6,7,8>
;;   s    = v * splat 2                         = <2,4,6,8> | <10,12,14,16>
;;   ins  = s with element 0 := float(t)        = <0,4,6,8> | <1,12,14,16>
;;   sh   = (ins ++ v)[3, 2, 4, poison]         = <8,6,1,⊤> | <16,14,5,⊤>
;;          (index 4 is v's element 0: 1 | 5)
;;   c    = sh < 7 element-wise                 = <0,1,1,⊤> | <0,0,1,⊤>
;;   sel  = c ? sh : 0 element-wise             = <0,6,1,⊤> | <0,0,5,⊤>
;;   fr   = freeze sel                          = <0,6,1,0> | <0,0,5,0>
;;   store fr to @out[4t..4t+3]: @out = [0, 6, 1, 0, 0, 0, 5, 0]
;;   e    = fr[t + 1]                           = 6 | 5
;;   oob  = fr[4] (out of range)                = ⊤ | ⊤
;;   iv   = <10, 20> with element 1 := t        = <10,0> | <10,1>
;;   iw   = iv * <3, 5>                         = <30,0> | <30,5>
;;   b    = bitcast iw to i64 (element 0 low)   = 30 | 30 + 5·2^32 = 21474836510
;;   isum = iw[0] + iw[1]                       = 30 | 35
;;   r    = fptosi(e) + isum                    = 36 | 40
;; Shapes: %t is varying and every value computed from it is; the constant
;; vectors and the splat product of a varying load are varying only through %v.
; run fr: --threads 2 --interp fr --mem @in=1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0
; run ref: --threads 2 --interp fr --exec reference --mem @in=1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0
; run obl: --threads 2 --interp obl --mem @in=1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0
; expect outcome: returned
; expect result: [36, 40]
; expect env: %sh = [<8.0, 6.0, 1.0, ⊤>, <16.0, 14.0, 5.0, ⊤>]
; expect env: %fr = [<0.0, 6.0, 1.0, 0.0>, <0.0, 0.0, 5.0, 0.0>]
; expect env: %oob = [⊤, ⊤]
; expect env: %b = [30, 21474836510]
; expect memory: @out = [0.0, 6.0, 1.0, 0.0, 0.0, 0.0, 5.0, 0.0]

@in = external global [8 x float]
@out = global [8 x float] zeroinitializer

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()                                ; expect: varying
  %base = mul i32 %t, 4                                           ; expect: varying
  %p = getelementptr inbounds [8 x float], ptr @in, i32 0, i32 %base
  %v = load <4 x float>, ptr %p, align 16                         ; expect: varying
  %s = fmul <4 x float> %v, splat (float 2.0)                     ; expect: varying
  %tf = sitofp i32 %t to float
  %ins = insertelement <4 x float> %s, float %tf, i32 0           ; expect: varying
  %sh = shufflevector <4 x float> %ins, <4 x float> %v, <4 x i32> <i32 3, i32 2, i32 4, i32 poison>  ; expect: varying
  %c = fcmp olt <4 x float> %sh, <float 7.0, float 7.0, float 7.0, float 7.0>
  %sel = select <4 x i1> %c, <4 x float> %sh, <4 x float> zeroinitializer
  %fr = freeze <4 x float> %sel
  %q = getelementptr inbounds [8 x float], ptr @out, i32 0, i32 %base
  store <4 x float> %fr, ptr %q, align 16
  %t1 = add i32 %t, 1
  %e = extractelement <4 x float> %fr, i32 %t1
  %oob = extractelement <4 x float> %fr, i64 4
  %ei = fptosi float %e to i32
  %k = insertelement <2 x i32> <i32 10, i32 20>, i32 7, i32 1     ; expect: uniform
  %iv = insertelement <2 x i32> %k, i32 %t, i32 1                 ; expect: varying
  %iw = mul <2 x i32> %iv, <i32 3, i32 5>
  %b = bitcast <2 x i32> %iw to i64
  %i0 = extractelement <2 x i32> %iw, i32 0
  %i1 = extractelement <2 x i32> %iw, i32 1
  %isum = add i32 %i0, %i1
  %r = add i32 %ei, %isum
  ret i32 %r
}
