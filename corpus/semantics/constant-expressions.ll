;; Constant expressions as operands (docs/language.md, "Constant expressions"),
;; as clang-19 writes a CUDA `__shared__` array: @s lives in addrspace(3) and is
;; reached through `addrspacecast (ptr addrspace(3) @s to ptr)`, alone and as the
;; base of instruction and constant `getelementptr`s; a global initializer, a
;; phi incoming and a comparison use constant expressions too. W = 4.
;;
;; Derivation (the same in every lane t, except where t appears):
;;   e = &s[t]; s[t] := 10 t                          -> @s = [0, 10, 20, 30].
;;   @p's initializer is &s[2] (inbounds, offset 8 of 16 bytes), so a = s[2] = 20.
;;   b = s[3] = 30 (a constant gep with base addrspacecast @s, offset 12).
;;   @tbl[1] = trunc (ptrtoint (gep i8 null, 300) to i64) to i32 = 300; c = 300.
;;   is = (&s[2] == s + 8 bytes) = true, so every lane branches to B.
;;   m = trunc (ptrtoint (gep i8 null, 5)) = 5 (the phi's incoming from B).
;;   r = a + b + c + zext(is) + m + t = 20 + 30 + 300 + 1 + 5 + t = 356 + t.
; run fr: --threads 4 --interp fr
; run obl: --threads 4 --interp obl
; run ref: --threads 4 --interp fr --exec reference
; expect outcome: returned
; expect result: [356, 357, 358, 359]
; expect memory: @s = [0, 10, 20, 30]

@s = internal addrspace(3) global [4 x i32] zeroinitializer, align 4
@p = global ptr getelementptr inbounds ([4 x i32], ptr addrspacecast (ptr addrspace(3) @s to ptr), i64 0, i64 2)
@tbl = global [2 x i32] [i32 7, i32 trunc (i64 ptrtoint (ptr getelementptr (i8, ptr null, i64 300) to i64) to i32)]

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %t64 = zext i32 %t to i64
  %e = getelementptr inbounds [4 x i32], ptr addrspacecast (ptr addrspace(3) @s to ptr), i64 0, i64 %t64
  %v = mul i32 %t, 10
  store i32 %v, ptr %e, align 4
  %q = load ptr, ptr @p
  %a = load i32, ptr %q, align 4
  %b = load i32, ptr getelementptr inbounds ([4 x i32], ptr addrspacecast (ptr addrspace(3) @s to ptr), i64 0, i64 3), align 4
  %c = load i32, ptr getelementptr inbounds ([2 x i32], ptr @tbl, i64 0, i64 1), align 4
  %is = icmp eq ptr %q, getelementptr (i8, ptr addrspacecast (ptr addrspace(3) @s to ptr), i64 8)
  br i1 %is, label %B, label %C

B:
  br label %C

C:
  %m = phi i32 [ trunc (i64 ptrtoint (ptr getelementptr (i8, ptr null, i64 5) to i64) to i32), %B ], [ 0, %A ]
  %ab = add i32 %a, %b
  %abc = add i32 %ab, %c
  %z = zext i1 %is to i32
  %r1 = add i32 %abc, %z
  %r2 = add i32 %r1, %m
  %r = add i32 %r2, %t
  ret i32 %r
}

declare i32 @pllvm.thread_id()
