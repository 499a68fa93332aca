;; Thesis Fig. 10.6 (§10.2): the partial order says (s, a) ⊑ (s, a') iff
;; max(a', 1) | a. With a' = 0 that holds for every a, so (1, 8) ⊑ (1, 0) and a
;; phi joining the lane id (1, 0) with 8·m + tid (1, 8) would be (1, 0), "exactly
;; the lane id". γ (Fig. 10.4) needs the other direction: (s, 0) is one vector and
;; lies below every (s, a); pllvm orders by a' | a, so the join is (1, gcd(0, 8)) =
;; (1, 8).
;; Derivation (m, c uniform): %tid (1, 0); the branch on c is uniform, %J is no join
;; ([DA-PHI-U]); %m8 (0, 8); %y = add tid m8: (1, 8); %p = (1, 8) ⊔ (1, 0) = (1, 8).
;; Thesis and popl: %p varying (its operands are).
;; Run: m = 1, c = 1, W = 4: p = [8, 9, 10, 11], not the lane id.
; analyze: --uniform-args m,c
; run: --threads 4 --arg m=1 --arg c=1
; expect outcome: returned
; expect result: [8, 9, 10, 11]

declare i32 @pllvm.thread_id()

define i32 @f(i32 %m, i1 %c) {
entry:
  %tid = call i32 @pllvm.thread_id()           ; expect[sa]: stride 1 align 0
  br i1 %c, label %A, label %B                 ; expect: uniform ; expect[sa]: uniform

A:
  %m8 = mul i32 %m, 8                          ; expect[sa]: uniform align 8
  %y = add i32 %tid, %m8                       ; expect[sa]: stride 1 align 8
  br label %J

B:
  br label %J

J:                                             ; expect: uniform ; expect[sa]: uniform
  %p = phi i32 [ %y, %A ], [ %tid, %B ]        ; expect: varying ; expect[sa]: stride 1 align 8
  ret i32 %p
}
