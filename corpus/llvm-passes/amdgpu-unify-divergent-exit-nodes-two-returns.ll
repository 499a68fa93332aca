;; amdgpu-unify-divergent-exit-nodes on a divergent branch to two returns: the
;; returns become branches to one new block UnifiedReturnBlock, whose phi
;; takes each lane's return value.
;; Run, W = 4: lanes 0 and 2 (t even) return t + 1 = 1, 3; lanes 1 and 3
;; return -t = -1, -3.
; check-llvm-pass: --passes amdgpu-unify-divergent-exit-nodes --threads 4
; run: --threads 4
; expect outcome: returned
; expect result: [1, -1, 3, -3]

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %odd = and i32 %t, 1
  %c = icmp eq i32 %odd, 0
  br i1 %c, label %E, label %O
E:
  %e = add i32 %t, 1
  ret i32 %e
O:
  %o = sub i32 0, %t
  ret i32 %o
}
