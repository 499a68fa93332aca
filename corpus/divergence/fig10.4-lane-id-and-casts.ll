;; Thesis §10.4.3 (function calls: A(thread_id()) = (1, 0), "the lane id function
;; precisely") and §10.1 ("Machine Integer Interpretation") for casts and flags.
;; Derivation (base uniform, W ≤ 4; thesis and popl: varying from the ids on):
;;   %t = thread_id, %g = llvm.amdgcn.workitem.id.x (the same builtin): (1, 0).
;;   %d = sub g t: (0, gcd(0, 0)) = (0, 0): exactly 0 in every lane.
;;   %z = zext t to i64: the base 0 and offsets ≤ 3 stay below 2^32: (1, 0).
;;   %neg = sub 0 t: (−1, 0). %s = sext neg, %zn = zext neg: a negative stride
;;   leaves the block below the base (lane 1 is 2^32 − 1 as an unsigned i32), so
;;   only each lane's alignment 1 survives: varying.
;;   %tr = trunc z to i8: (1, 0) modulo 2^8.
;;   %w = add nsw t 7: nsw may make some lanes ⊤ (signed overflow), and a strided
;;   shape needs all lanes or none ⊤: varying. %w2 = add t 7: (1, gcd(0, 7)) = (1, 7).
;;   %sum = add z base: (1, 1).
;; Run: base = 100, W = 4: r = 100 + t + zn = [100, 4294967396, 4294967396, 4294967396].
; analyze: --uniform-args base --width 4
; run: --threads 4 --arg base=100
; expect outcome: returned
; expect result: [100, 4294967396, 4294967396, 4294967396]

declare i32 @pllvm.thread_id()
declare i32 @llvm.amdgcn.workitem.id.x()

define i64 @f(i64 %base) {
entry:
  %t = call i32 @pllvm.thread_id()             ; expect: varying ; expect[sa]: stride 1 align 0
  %g = call i32 @llvm.amdgcn.workitem.id.x()   ; expect: varying ; expect[sa]: stride 1 align 0
  %d = sub i32 %g, %t                          ; expect: varying ; expect[sa]: uniform align 0
  %z = zext i32 %t to i64                      ; expect: varying ; expect[sa]: stride 1 align 0
  %neg = sub i32 0, %t                         ; expect: varying ; expect[sa]: stride -1 align 0
  %s = sext i32 %neg to i64                    ; expect: varying ; expect[sa]: varying
  %zn = zext i32 %neg to i64                   ; expect: varying ; expect[sa]: varying
  %tr = trunc i64 %z to i8                     ; expect: varying ; expect[sa]: stride 1 align 0
  %w = add nsw i32 %t, 7                       ; expect: varying ; expect[sa]: varying
  %w2 = add i32 %t, 7                          ; expect: varying ; expect[sa]: stride 1 align 7
  %sum = add i64 %z, %base                     ; expect: varying ; expect[sa]: stride 1 align 1
  %r = add i64 %sum, %zn
  ret i64 %r
}
