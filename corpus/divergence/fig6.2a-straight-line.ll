;; Thesis Fig. 6.2a (§6.1): straight-line code. "If a variable in the block, e.g. b,
;; is uniform its value is same value for all threads without exception."
;; The picture did not survive; rebuilt from the prose as one block computing a, b
;; from the uniform parameter %n and c, d from the thread id.
;; Derivation ([DA-ID], [DA-CONST], [DA-UARITH], [DA-DARITH], Fig. 6.5-6.6):
;;   %t = thread_id: varying (pllvm's transformer for the thread-id builtin).
;;   %a = n * 2, %b = a + 1: every operand uniform → uniform.
;;   %c = b + t: one operand varying → varying.
;;   %d = c - t: varying by [DA-DARITH], although d = b in every lane: the basic
;;   lattice has no algebra (POPL'21 Fig. 3c makes the same point).
;; Run: n = 5 in all three lanes: b = 11 everywhere.
; analyze: --uniform-args n
; run: --threads 3 --arg n=5
; expect outcome: returned
; expect result: [11, 11, 11]

define i32 @f(i32 %n) {
A:                                      ; expect: uniform
  %t = call i32 @pllvm.thread_id()      ; expect: varying
  %a = mul i32 %n, 2                    ; expect: uniform
  %b = add i32 %a, 1                    ; expect: uniform
  %c = add i32 %b, %t                   ; expect: varying
  %d = sub i32 %c, %t                   ; expect: varying
  ret i32 %d
}
