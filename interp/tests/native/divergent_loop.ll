; A divergent loop with two exits (bounded Collatz steps) and a switch: lanes leave
; at different iterations and take different switch successors; FR lock step must
; give each lane what it computes alone.
define i64 @kernel(i64 %a, i64 %b) {
entry:
  %n0 = and i64 %a, 1023
  %start = or i64 %n0, 1
  br label %loop

loop:
  %n = phi i64 [ %start, %entry ], [ %next, %latch ]
  %steps = phi i64 [ 0, %entry ], [ %steps1, %latch ]
  %done = icmp eq i64 %n, 1
  br i1 %done, label %exit, label %body

body:
  %odd = and i64 %n, 1
  %isodd = icmp ne i64 %odd, 0
  %t = mul i64 %n, 3
  %t1 = add i64 %t, 1
  %h = lshr i64 %n, 1
  %next = select i1 %isodd, i64 %t1, i64 %h
  %steps1 = add i64 %steps, 1
  br label %latch

latch:
  %cap = icmp ult i64 %steps1, 200
  br i1 %cap, label %loop, label %exit

exit:
  %s = phi i64 [ %steps, %loop ], [ %steps1, %latch ]
  %sel = and i64 %b, 3
  switch i64 %sel, label %d [ i64 0, label %k0
                              i64 1, label %k1 ]

k0:
  %r0 = mul i64 %s, 7
  br label %out

k1:
  %r1 = add i64 %s, 1000
  br label %out

d:
  br label %out

out:
  %r = phi i64 [ %r0, %k0 ], [ %r1, %k1 ], [ %s, %d ]
  ret i64 %r
}
