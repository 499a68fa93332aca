;; Thesis Fig. 10.12 (§10.4.4) read against execution: two cases where the
;; transformer as printed calls a comparison uniform and the lanes disagree.
;; (1) Second case, "u if A(x) = (s, a) ∧ A(y) = (s', a') ∧ max(s, s')(W - 1) <
;; min(s, s')(W - 1) + gcd(a, a')", with x = 8·m : (0, 8), y = 8·m + tid : (1, 8),
;; W = 4: 1·3 < 0·3 + 8 holds, yet x >= y is true in lane 0 (equal bases: the lines
;; of Fig. 10.13 meet there) and false in lanes 1-3. The condition keeps the lines
;; from crossing but not from touching, which only a non-strict comparison on the
;; side of the larger stride survives: y >= x and x <= y are uniform, x >= y and
;; y > x are not.
;; (2) First case, "u if A(x) = (s, a) ∧ A(y) = (s, a)": with machine integers
;; (§10.1) a large stride wraps past the signed boundary. x = 2^30·(tid + p) and
;; y = 2^30·(tid + q) are both (2^30, 2^30); with p = 0, q = 1 lane 0 has
;; 0 < 2^30, lane 1 has 2^30 < 2^31 = -2^31 as i32, false.
;; pllvm's rule (docs/analyses.md): strided operands whose lanes stay inside one
;; block of g = pow2(gcd(a, a')) values (0 ≤ s·(W-1) < g), then equal strides, or
;; the non-strict predicate on the larger stride's side.
;; Derivation (sa, W ≤ 4): %tid (1, 0); %m8 (0, 8); %y = add m8 tid: (1, 8).
;;   %ge = sge m8 y: g = 8, offsets ≤ 3: in a block; strides 0 < 1 and sge is not
;;   non-strict on y's side: varying. %le = sle m8 y: uniform. %gt = sgt y m8:
;;   strides 1 > 0, sgt is strict: varying. %ge2 = sge y m8: uniform.
;;   %tp = add tid p: (1, 1); %wx = mul tp 2^30: (2^30, 2^30); %wy likewise.
;;   %lt = slt wx wy: equal strides, but g = 2^30 and 2^30·3 is not below it:
;;   varying. Thesis and popl: everything from the thread id is varying.
;; Run (W = 4, m = 3, p = 0, q = 1): ge = [1, 0, 0, 0], lt: lane 0 0 < 2^30,
;; lane 1 2^30 < -2^31 no, lane 2 -2^31 < -2^30, lane 3 -2^30 < 0: [1, 0, 1, 1];
;; r = ge + 2·lt = [3, 0, 2, 2]; le and ge2 are 1 everywhere: r + le·4 + ge2·8.
; analyze: --uniform-args m,p,q --width 4
; run: --threads 4 --arg m=3 --arg p=0 --arg q=1
; expect outcome: returned
; expect result: [15, 12, 14, 14]

declare i32 @pllvm.thread_id()

define i32 @f(i32 %m, i32 %p, i32 %q) {
entry:
  %tid = call i32 @pllvm.thread_id()           ; expect[sa]: stride 1 align 0
  %m8 = mul i32 %m, 8                          ; expect[sa]: uniform align 8
  %y = add i32 %m8, %tid                       ; expect[sa]: stride 1 align 8
  %ge = icmp sge i32 %m8, %y                   ; expect: varying ; expect[sa]: varying
  %le = icmp sle i32 %m8, %y                   ; expect: varying ; expect[sa]: uniform
  %gt = icmp sgt i32 %y, %m8                   ; expect: varying ; expect[sa]: varying
  %ge2 = icmp sge i32 %y, %m8                  ; expect: varying ; expect[sa]: uniform
  %tp = add i32 %tid, %p                       ; expect[sa]: stride 1 align 1
  %wx = mul i32 %tp, 1073741824                ; expect[sa]: stride 1073741824 align 1073741824
  %tq = add i32 %tid, %q                       ; expect[sa]: stride 1 align 1
  %wy = mul i32 %tq, 1073741824                ; expect[sa]: stride 1073741824 align 1073741824
  %lt = icmp slt i32 %wx, %wy                  ; expect: varying ; expect[sa]: varying
  %a = zext i1 %ge to i32
  %b = zext i1 %lt to i32
  %b2 = shl i32 %b, 1
  %c = zext i1 %le to i32
  %c4 = shl i32 %c, 2
  %d = zext i1 %ge2 to i32
  %d8 = shl i32 %d, 3
  %r1 = add i32 %a, %b2
  %r2 = add i32 %r1, %c4
  %r = add i32 %r2, %d8
  ret i32 %r
}
