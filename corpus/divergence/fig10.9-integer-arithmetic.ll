;; Thesis Fig. 10.9 (§10.4.2): the integer arithmetic transformers, with the
;; constants of §10.4.1 (⟦c⟧# = (0, |c|)) and the lane id of §10.4.3.
;; Derivation (n uniform: (0, 1); thesis and popl: varying from the thread id on):
;;   %tid : (1, 0).
;;   %a = mul tid -3: constval -3, (−3·1, 3·0) = (−3, 0).
;;   %b = mul n 6: (0, 6).
;;   %c = add a b: (−3 + 0, gcd(0, 6)) = (−3, 6).
;;   %d = sub c tid = add c (−tid): (−3 − 1, gcd(6, 0)) = (−4, 6).
;;   %e = sub b c: (0 + 3, gcd(6, 6)) = (3, 6).
;;   %f = add c e: (−3 + 3, 6) = (0, 6): uniform, which the basic lattice cannot
;;   see ([DA-DARITH] over two varying operands).
;;   %g = mul tid tid: no constant, not both uniform: threadalign 1 · 1: varying 1.
;;   %h = mul b n: both uniform: (0, 6·1) = (0, 6).
;;   %q = mul c n: threadalign(c) = gcd(3, 6) = 3 times 1: varying 3.
;;   %u = udiv b 2: by 2^1; b's base is a multiple of pow2(6) = 2 (modulo 2^32 only
;;   the power of two in 6 is a constraint): uniform, (0, 2 / 2) = (0, 1).
;; Run: n = 5, W = 3: f = b = 30 in every lane.
; analyze: --uniform-args n
; run: --threads 3 --arg n=5
; expect outcome: returned
; expect result: [30, 30, 30]

declare i32 @pllvm.thread_id()

define i32 @f(i32 %n) {
entry:
  %tid = call i32 @pllvm.thread_id()           ; expect: varying ; expect[sa]: stride 1 align 0
  %a = mul i32 %tid, -3                        ; expect: varying ; expect[sa]: stride -3 align 0
  %b = mul i32 %n, 6                           ; expect: uniform ; expect[sa]: uniform align 6
  %c = add i32 %a, %b                          ; expect: varying ; expect[sa]: stride -3 align 6
  %d = sub i32 %c, %tid                        ; expect: varying ; expect[sa]: stride -4 align 6
  %e = sub i32 %b, %c                          ; expect: varying ; expect[sa]: stride 3 align 6
  %f = add i32 %c, %e                          ; expect: varying ; expect[sa]: uniform align 6
  %g = mul i32 %tid, %tid                      ; expect: varying ; expect[sa]: varying
  %h = mul i32 %b, %n                          ; expect: uniform ; expect[sa]: uniform align 6
  %q = mul i32 %c, %n                          ; expect: varying ; expect[sa]: varying align 3
  %u = udiv i32 %b, 2                          ; expect: uniform ; expect[sa]: uniform
  ret i32 %f
}
