;; Thesis §10.4.5 and Fig. 10.14: bit arithmetic on strided shapes (W ≤ 4).
;; Derivation (n, m uniform; thesis and popl: varying from the thread id on):
;;   %tid (1, 0); %n16 = shl n 4 = mul n 16: (0, 16); %x = add n16 tid: (1, 16).
;;   %x4 = shl x 2 = mul x 4: (4, 64).
;;   %y = or x4 3: 3 has n_c = 2, 2^2 divides gcd(4, 64) = 4, so or is add (§10.4.5):
;;   (4, gcd(64, 3)) = (4, 1).
;;   %z = xor x4 2: n_c = 2 again, the low two bits of every lane are 0, xor is add:
;;   (4, gcd(64, 2)) = (4, 2).
;;   %lane = and x 3: a low mask 2^2 − 1 of a value whose base is a multiple of 4
;;   and whose lanes add at most 1·3 < 4: exactly t·1, (1, 0).
;;   %row = lshr x 2: the base is a multiple of 16, the offsets stay below 2^2, so
;;   each lane shifts to base / 4: uniform, (0, 16 / 4) = (0, 4).
;;   %hi = and x -16: not a low mask; the result is a multiple of the larger power
;;   of two of x (threadalign 1) and −16 (16): varying 16.
;;   %m4 = shl m 2: (0, 4). %s = shl n16 m4: Fig. 10.14's second case gives
;;   (0, 16·2^4) = (0, 256), but m4 may be 0 and then s = n16: pllvm keeps x's
;;   alignment, (0, 16). The run has m = 0: s = 16, not a multiple of 256.
;; Run: n = 1, m = 0, W = 4: r = s + lane = 16 + t.
; analyze: --uniform-args n,m --width 4
; run: --threads 4 --arg n=1 --arg m=0
; expect outcome: returned
; expect result: [16, 17, 18, 19]

declare i32 @pllvm.thread_id()

define i32 @f(i32 %n, i32 %m) {
entry:
  %tid = call i32 @pllvm.thread_id()           ; expect[sa]: stride 1 align 0
  %n16 = shl i32 %n, 4                         ; expect: uniform ; expect[sa]: uniform align 16
  %x = add i32 %n16, %tid                      ; expect: varying ; expect[sa]: stride 1 align 16
  %x4 = shl i32 %x, 2                          ; expect: varying ; expect[sa]: stride 4 align 64
  %y = or i32 %x4, 3                           ; expect: varying ; expect[sa]: stride 4 align 1
  %z = xor i32 %x4, 2                          ; expect: varying ; expect[sa]: stride 4 align 2
  %lane = and i32 %x, 3                        ; expect: varying ; expect[sa]: stride 1 align 0
  %row = lshr i32 %x, 2                        ; expect: varying ; expect[sa]: uniform align 4
  %hi = and i32 %x, -16                        ; expect: varying ; expect[sa]: varying align 16
  %m4 = shl i32 %m, 2                          ; expect: uniform ; expect[sa]: uniform align 4
  %s = shl i32 %n16, %m4                       ; expect: uniform ; expect[sa]: uniform align 16
  %r = add i32 %s, %lane
  ret i32 %r
}
