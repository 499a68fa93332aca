;; SSA (thesis §2.2): a phi reads its incoming value on the edge, so the value must
;; be available at the end of the incoming block. %x is available at the end of %a,
;; not of %b. The loop header's phi may read %next, defined later, on the back edge.
define i32 @f(i1 %c, i32 %n) {
entry:
  br i1 %c, label %a, label %b

a:
  %x = add i32 %n, 1
  br label %j

b:
  br label %j

j:
  %p = phi i32 [ %x, %a ], [ 0, %b ]
  %q = phi i32 [ 0, %a ], [ %x, %b ] ; error: use of %x on the edge from %b is not dominated by its definition
  br label %loop

loop:
  %i = phi i32 [ %p, %j ], [ %next, %loop ]
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, 10
  br i1 %done, label %exit, label %loop

exit:
  ret i32 %q
}
