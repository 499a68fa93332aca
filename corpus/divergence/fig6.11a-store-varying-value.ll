;; Thesis Fig. 6.11a (§6.5.2): "the varying tid is stored to A, which is a stack
;; allocation. Hence, by [DA-STORE-D], the stack-allocated object A is varying as
;; each thread sees a different value stored to it."
;;   1 A = alloca i64 : v   2 store A tid   3 z = load A : v
;; Written with LLVM's operand order (store value, pointer).
;; Derivation: the store's data %tid is varying → [DA-STORE-D] returns
;; aliased_allocas(%A) = {A}; compute_da sets A to v (Listing 1, lines 15-17); the
;; load's pointer is A: [DA-LOAD-D] → %z varying.
;; Run: each lane reads its own tid back: z = [0, 1, 2].
; run: --threads 3
; expect outcome: returned
; expect result: [0, 1, 2]

define i64 @f() {
entry:
  %t = call i32 @pllvm.thread_id()      ; expect: varying
  %tid = zext i32 %t to i64             ; expect: varying
  %A = alloca i64                       ; expect: varying
  store i64 %tid, ptr %A
  %z = load i64, ptr %A                 ; expect: varying
  ret i64 %z
}
