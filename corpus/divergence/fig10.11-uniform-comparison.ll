;; Thesis Fig. 10.11 (§10.4.4) and Fig. 10.2 (§10.1): comparisons of a strided value
;; with a uniform one that the sa-lattice proves uniform. Fig. 10.11 (W = 4):
;; b = 4·l + tid >= 36·k. Fig. 10.2: tid >= k with k a multiple of 8 (here 8·m).
;; Derivation (thesis, popl: everything from the thread id is varying, the branch
;; is divergent and %r in the sync join %E varying):
;;   %tid : (1, 0); %l4 = mul 4 l: (0, 4); %x = add l4 tid: (1, 4) ("the vector
;;   shape of 4*l + tid is (1, 4)"); %k36 = mul 36 k: (0, 36).
;;   %b = icmp sge x k36: the strides are 1 > 0; both bases are multiples of
;;   g = gcd(4, 36) = 4 (a power of two); the lanes' offsets 1·t ≤ 3 stay below 4,
;;   and sge is non-strict on the side of the larger stride: uniform (Fig. 10.12,
;;   as pllvm reads it, see docs/analyses.md).
;;   %m8 = mul m 8: (0, 8); %b2 = icmp sge tid m8: strides 1 > 0, g = 8, offsets
;;   ≤ 3 < 8: uniform. %both = and b b2: uniform, so the branch is uniform, %T's
;;   activation uniform, %E no join: %r uniform.
;; Runs (W = 4): l = 0, k = 0, m = 0: t >= 0 and t >= 0 in every lane: r = 1.
;; l = 2, k = -1, m = 1: 8 + t >= -36 but t >= 8 fails in every lane: r = 0.
; analyze: --uniform-args l,k,m --width 4
; run: --threads 4 --arg l=0 --arg k=0 --arg m=0
; run second: --threads 4 --arg l=2 --arg k=-1 --arg m=1
; expect outcome: returned
; expect default result: [1, 1, 1, 1]
; expect second result: [0, 0, 0, 0]

declare i32 @pllvm.thread_id()

define i32 @f(i32 %l, i32 %k, i32 %m) {
entry:
  %tid = call i32 @pllvm.thread_id()           ; expect: varying ; expect[sa]: stride 1 align 0
  %l4 = mul i32 4, %l                          ; expect: uniform ; expect[sa]: uniform align 4
  %x = add i32 %l4, %tid                       ; expect: varying ; expect[sa]: stride 1 align 4
  %k36 = mul i32 36, %k                        ; expect: uniform ; expect[sa]: uniform align 36
  %b = icmp sge i32 %x, %k36                   ; expect: varying ; expect[sa]: uniform
  %m8 = mul i32 %m, 8                          ; expect: uniform ; expect[sa]: uniform align 8
  %b2 = icmp sge i32 %tid, %m8                 ; expect: varying ; expect[sa]: uniform
  %both = and i1 %b, %b2                       ; expect: varying ; expect[sa]: uniform
  br i1 %both, label %T, label %E              ; expect: varying ; expect[sa]: uniform

T:                                             ; expect: varying ; expect[sa]: uniform
  br label %E

E:
  %r = phi i32 [ 1, %T ], [ 0, %entry ]        ; expect: varying ; expect[sa]: uniform
  ret i32 %r
}
