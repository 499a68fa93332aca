;; Thesis Fig. 10.5 (§10.1): "the combination of stride and alignment allows the
;; sa-lattice to prove strided-ness across obscured offset computations. The type
;; of A is f64* and the pointer is aligned to 8 byte." i : (1, 8), the index of a
;; loop vectorized for W = 8; here i = 8·k + thread id, 64-bit indices as (b) and (c)
;; use them, A a uniform `ptr align 8`. Both lowerings of r = A[2i], s = A[2i + 1]
;; in one function: (b) with mul / add, (c) with shl / or as InstCombine leaves them.
;; Derivation (§10.4.1-10.4.6; thesis and popl: every value from the thread id is
;; varying, [DA-DARITH]):
;;   %t = thread_id: (1, 0) (§10.4.3).
;;   %k8 = mul k 8: constval 8, A(k) = (0, 1) → (0·8, 8·1) = (0, 8) (Fig. 10.9).
;;   %i = add k8 t: (0 + 1, gcd(8, 0)) = (1, 8).
;;   (b) %x = mul 2 i: (2, 16); %j = add x 1: (2, gcd(16, 1)) = (2, 1).
;;   %p0 = elemptr A x: A + 8·x (§10.4.6): mul 8 (2, 16) = (16, 128), add (0, 8):
;;   (16, gcd(8, 128)) = (16, 8). %p1 = A + 8·(2, 1) = (16, 8) + (0, 8) = (16, 8).
;;   (c) %xc = shl i 1 = mul i 2^1: (2, 16) (Fig. 10.14). %jc = or xc 1: c = 1 has
;;   n_c = 1 and 2^1 divides gcd(2, 16) = 2, so or is add xc 1 (§10.4.5): (2, 1).
;;   %p0c, %p1c: (16, 8) as in (b). The loads: a strided address is not uniform,
;;   the loaded doubles are basic-lattice values: varying.
;; Run: k = 1, W = 4: i = 8..11, so lanes read A[16..22] (b) and A[17..23] (c).
; analyze: --uniform-args k,A
; run: --threads 4 --arg k=1 --arg A=@buf
; expect outcome: returned
; expect result: [0.0, 0.0, 0.0, 0.0]

@buf = global [64 x double] zeroinitializer, align 8

declare i64 @pllvm.thread_id()

define double @f(i64 %k, ptr align 8 %A) {
entry:
  %t = call i64 @pllvm.thread_id()             ; expect: varying ; expect[sa]: stride 1 align 0
  %k8 = mul i64 %k, 8                          ; expect: uniform ; expect[sa]: uniform align 8
  %i = add i64 %k8, %t                         ; expect: varying ; expect[sa]: stride 1 align 8
  %x = mul i64 2, %i                           ; expect: varying ; expect[sa]: stride 2 align 16
  %j = add i64 %x, 1                           ; expect: varying ; expect[sa]: stride 2 align 1
  %p0 = getelementptr double, ptr %A, i64 %x   ; expect: varying ; expect[sa]: stride 16 align 8
  %p1 = getelementptr double, ptr %A, i64 %j   ; expect: varying ; expect[sa]: stride 16 align 8
  %xc = shl i64 %i, 1                          ; expect: varying ; expect[sa]: stride 2 align 16
  %jc = or i64 %xc, 1                          ; expect: varying ; expect[sa]: stride 2 align 1
  %p0c = getelementptr double, ptr %A, i64 %xc ; expect: varying ; expect[sa]: stride 16 align 8
  %p1c = getelementptr double, ptr %A, i64 %jc ; expect: varying ; expect[sa]: stride 16 align 8
  %r = load double, ptr %p0                    ; expect[sa]: varying
  %s = load double, ptr %p1c                   ; expect[sa]: varying
  %sum = fadd double %r, %s                    ; expect[sa]: varying
  ret double %sum
}
