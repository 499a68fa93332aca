;; Thesis §10.3, Fig. 10.7: the comparison of the basic lattice with the sa-lattice
;; "assuming W divides 4 and A and B are aligned to at least 32 byte". The listing
;; and the SIMD code (Fig. 10.7a-d) did not survive; rebuilt from the prose: an
;; outer loop is vectorized, a division defines d, which is varying in the basic
;; lattice and uniform in the sa-lattice; the pointer Aptr is varying in the basic
;; lattice (a scatter) and uniform in the sa-lattice; "in fact all inferred
;; sa-lattice shapes are uniform" (every value the division feeds). The rebuilt
;; body: lane t runs outer iteration i = 4·k + t (k counts vector iterations, so
;; lane 0's i is a multiple of 4), d = i / 4, a branch on d < n, a load from B[d] and
;; a store to A[d] under it, and the value after the join.
;; Derivation, basic lattice (thesis, popl): %t varying, so %i, %d, %c are varying
;; ([DA-DARITH]); the branch in entry is divergent, %body is control dependent on
;; it (activation varying), %exit is a sync join, so %r is varying ([DA-PHI-D]);
;; %Bptr, %v, %Aptr depend on %d: varying.
;; Derivation, sa-lattice with W ≤ 4 (`--width 4`):
;;   %t : (1, 0); %k4 = shl k 2 = mul k 4: (0, 4); %i = add k4 t: (1, 4).
;;   %d = udiv i 4: the base is a multiple of 4 and the lane offsets 1·t ≤ 3 < 4,
;;   so every lane rounds down to base / 4: uniform, (0, 4 / 4) = (0, 1).
;;   %c = icmp ult d n: both stride 0: uniform; the branch is uniform, so there is
;;   no control divergence: %body's activation is uniform, %exit no join, %r
;;   uniform (join of two uniform operands).
;;   %Bptr = B + 4·d (§10.4.6): (0, 32) + (0, 4) = (0, 4); %Aptr likewise; %v a load
;;   through a uniform address: uniform ([DA-LOAD-U]).
;; Runs: k = 1, n = 2: d = 1 < 2, every lane loads B[1] (zero) and stores it to A[1].
;; k = 3: d = 3, not below 2: every lane returns 0.
; analyze: --uniform-args k,n,A,B --width 4
; run: --threads 4 --arg k=1 --arg n=2 --arg A=@a --arg B=@b
; run high: --threads 4 --arg k=3 --arg n=2 --arg A=@a --arg B=@b
; expect outcome: returned
; expect result: [0.0, 0.0, 0.0, 0.0]

@a = global [16 x float] zeroinitializer, align 32
@b = global [16 x float] zeroinitializer, align 32

declare i64 @pllvm.thread_id()

define float @f(i64 %k, i64 %n, ptr align 32 %A, ptr align 32 %B) {
entry:                                         ; expect: uniform ; expect[sa]: uniform
  %t = call i64 @pllvm.thread_id()             ; expect: varying ; expect[sa]: stride 1 align 0
  %k4 = shl i64 %k, 2                          ; expect: uniform ; expect[sa]: uniform align 4
  %i = add i64 %k4, %t                         ; expect: varying ; expect[sa]: stride 1 align 4
  %d = udiv i64 %i, 4                          ; expect: varying ; expect[sa]: uniform
  %c = icmp ult i64 %d, %n                     ; expect: varying ; expect[sa]: uniform
  br i1 %c, label %body, label %exit           ; expect: varying ; expect[sa]: uniform

body:                                          ; expect: varying ; expect[sa]: uniform
  %Bptr = getelementptr float, ptr %B, i64 %d  ; expect: varying ; expect[sa]: uniform align 4
  %v = load float, ptr %Bptr                   ; expect: varying ; expect[sa]: uniform
  %Aptr = getelementptr float, ptr %A, i64 %d  ; expect: varying ; expect[sa]: uniform align 4
  store float %v, ptr %Aptr
  br label %exit

exit:                                          ; expect: uniform ; expect[sa]: uniform
  %r = phi float [ %v, %body ], [ 0.0, %entry ] ; expect: varying ; expect[sa]: uniform
  ret float %r
}
