;; The AMDGPU structurizer's order (lower-switch,
;; amdgpu-unify-divergent-exit-nodes, fix-irreducible, unify-loop-exits,
;; structurizecfg) on a switch on the thread id inside a divergent if with two
;; returns: lower-switch makes the switch compares, the exit nodes are unified,
;; and structurizecfg orders the regions with Flow blocks.
;; Run, W = 4, k = 1: lane 0 (t < 3, t = 0) takes case 0: 7; lane 1 (t = k)
;; takes case 1: 8 + t = 9; lane 2 the default: 100 - t = 98; lane 3 (t >= 3)
;; returns 3t = 9 from R.
; check-llvm-pass: --passes amdgpu-structurizer --threads 4 --arg k=1
; run: --threads 4 --arg k=1
; expect outcome: returned
; expect result: [7, 9, 98, 9]

define i32 @f(i32 %k) {
A:
  %t = call i32 @pllvm.thread_id()
  %c = icmp slt i32 %t, 3
  br i1 %c, label %S, label %R
S:
  %s = sub i32 %t, %k
  switch i32 %s, label %D [
    i32 -1, label %C0
    i32 0, label %C1
  ]
C0:
  br label %J
C1:
  %one = add i32 %t, 8
  br label %J
D:
  %d = sub i32 100, %t
  br label %J
J:
  %r = phi i32 [ 7, %C0 ], [ %one, %C1 ], [ %d, %D ]
  ret i32 %r
R:
  %m = mul i32 %t, 3
  ret i32 %m
}
