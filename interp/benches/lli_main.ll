; The driver lli-19 runs after mandelbrot.ll: every thread id in turn, then the checksum.
@.fmt = private constant [4 x i8] c"%d\0A\00"
declare i32 @printf(ptr, ...)
define i32 @main() {
entry:
  br label %l
l:
  %t = phi i32 [ 0, %entry ], [ %t1, %l ]
  %s = phi i32 [ 0, %entry ], [ %s1, %l ]
  %r = call i32 @mandel(i32 %t)
  %s1 = add i32 %s, %r
  %t1 = add i32 %t, 1
  %c = icmp ult i32 %t1, 16384
  br i1 %c, label %l, label %done
done:
  %x = call i32 (ptr, ...) @printf(ptr @.fmt, i32 %s1)
  ret i32 0
}
