;; Thesis Fig. 6.11b (§6.5.2): "only the constant 42 is written to the stack object
;; B. Yet, since each thread stores the value to a different offset B[tid] the
;; state of the stack objects still diverges."
;;   1 B = alloca i64[64] : v   3 bp = elemptr B tid   4 store bp 42
;;   6 bpp = elemptr B 3   7 z = load bpp : v
;; Derivation: %bp = gep B, tid is varying ([DA-DARITH]) → [DA-STORE-D] with a
;; varying pointer → B varying → %bpp = gep B, 3 varying (its base is) → %z
;; varying by [DA-LOAD-D].
;; Run, W = 2: lane 0 writes B0[0], lane 1 writes B1[1]: the copies differ
;; (the observer sees it); B[3] was never written, so z = [⊤, ⊤].
; run: --threads 2
; expect outcome: returned

define i64 @f() {
entry:
  %t = call i32 @pllvm.thread_id()      ; expect: varying
  %tid = zext i32 %t to i64             ; expect: varying
  %B = alloca [64 x i64]                ; expect: varying
  %bp = getelementptr [64 x i64], ptr %B, i64 0, i64 %tid ; expect: varying
  store i64 42, ptr %bp
  %bpp = getelementptr [64 x i64], ptr %B, i64 0, i64 3 ; expect: varying
  %z = load i64, ptr %bpp               ; expect: varying
  ret i64 %z
}
