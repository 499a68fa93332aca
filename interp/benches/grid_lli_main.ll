; The driver lli-19 runs after mandel_rows.ll: every thread id in turn (one
; thread at a time, where pllvm runs 32 in lock step), then the checksum.
@.fmt = private constant [4 x i8] c"%d\0A\00"
@out = global [16384 x i32] zeroinitializer
declare i32 @printf(ptr, ...)
define i32 @main() {
entry:
  br label %l
l:
  %t = phi i32 [ 0, %entry ], [ %t1, %l ]
  call void @mandel_rows(ptr @out, i32 %t)
  %t1 = add i32 %t, 1
  %c = icmp ult i32 %t1, 16384
  br i1 %c, label %l, label %sum
sum:
  %k = phi i32 [ 0, %l ], [ %k1, %sum ]
  %s = phi i32 [ 0, %l ], [ %s1, %sum ]
  %p = getelementptr inbounds i32, ptr @out, i32 %k
  %v = load i32, ptr %p, align 4
  %s1 = add i32 %s, %v
  %k1 = add i32 %k, 1
  %d = icmp ult i32 %k1, 16384
  br i1 %d, label %sum, label %done
done:
  %x = call i32 (ptr, ...) @printf(ptr @.fmt, i32 %s1)
  ret i32 0
}
