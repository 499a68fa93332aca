; Mandelbrot escape time of 128 x 128 pixels, one pixel per thread, written to
; out[tid]: the kernel of the grid-launch benchmark (benches/grid_launch.rs).
define void @mandel_rows(ptr %out, i32 %tid) {
entry:
  %px = and i32 %tid, 127
  %py = lshr i32 %tid, 7
  %fx = sitofp i32 %px to double
  %fy = sitofp i32 %py to double
  %cx0 = fmul double %fx, 0x3F94000000000000
  %cx = fadd double %cx0, -2.0
  %cy0 = fmul double %fy, 0x3F94000000000000
  %cy = fadd double %cy0, -1.25
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %zr = phi double [ 0.0, %entry ], [ %zr1, %body ]
  %zi = phi double [ 0.0, %entry ], [ %zi1, %body ]
  %zr2 = fmul double %zr, %zr
  %zi2 = fmul double %zi, %zi
  %mag = fadd double %zr2, %zi2
  %in = fcmp olt double %mag, 4.0
  %more = icmp ult i32 %i, 255
  %go = and i1 %in, %more
  br i1 %go, label %body, label %exit

body:
  %t = fsub double %zr2, %zi2
  %zr1 = fadd double %t, %cx
  %p = fmul double %zr, %zi
  %p2 = fmul double %p, 2.0
  %zi1 = fadd double %p2, %cy
  %i1 = add i32 %i, 1
  br label %loop

exit:
  %slot = getelementptr inbounds i32, ptr %out, i32 %tid
  store i32 %i, ptr %slot, align 4
  ret void
}
