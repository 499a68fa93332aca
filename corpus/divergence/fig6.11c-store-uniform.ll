;; Thesis Fig. 6.11c (§6.5.2): "a uniform value is written at a uniform offset into
;; B. Hence, the object B itself remains uniform and values loaded from the
;; identical offset, here z, are uniform as well."
;;   Init: i : u   3 C = alloca i64[64] : u   4 cp = elemptr C i   5 j = mul 2 i
;;   6 store cp 42 j   8 cpp = elemptr C 7 : u   9 z = load cpp : u
;; Line 6 reads "store cp 42 j" in the extracted text; taken as storing j (the
;; uniform value computed on line 5) at cp.
;; Derivation: %i uniform (InitShapes); %cp, %j uniform ([DA-UARITH]); the store
;; has uniform data, pointer and activation: [DA-STORE-U] returns no alloca, so C
;; stays uniform; %cpp = gep C, 7 uniform; %z = load cpp: [DA-LOAD-U] → uniform.
;; Run, W = 3, i = 7: every lane stores 14 at C[7] and reads it back.
; analyze: --uniform-args i
; run: --threads 3 --arg i=7
; expect outcome: returned
; expect result: [14, 14, 14]

define i64 @f(i64 %i) {
entry:
  %C = alloca [64 x i64]                ; expect: uniform
  %cp = getelementptr [64 x i64], ptr %C, i64 0, i64 %i ; expect: uniform
  %j = mul i64 2, %i                    ; expect: uniform
  store i64 %j, ptr %cp
  %cpp = getelementptr [64 x i64], ptr %C, i64 0, i64 7 ; expect: uniform
  %z = load i64, ptr %cpp               ; expect: uniform
  ret i64 %z
}
