;; structurizecfg<skip-uniform-regions> on a uniform if/else (on the inreg
;; parameter %u) inside a divergent if: the inner region is left as written
;; (its branch is uniform for AMDGPU's uniformity analysis), the outer one is
;; structurized. The inner branch is taken the same way by every lane that
;; reaches it, so the output under OBL computes what the input does under FR.
;; Run, W = 4, u = 1: lanes 0 and 1 (t < 2) go to B, where u = 1 picks C:
;; t + 100 = 100, 101; lanes 2 and 3 skip to E with 7t = 14, 21.
; check-llvm-pass: --passes structurizecfg-skip-uniform --uniform-args u --threads 4 --arg u=1
; run: --threads 4 --arg u=1
; expect outcome: returned
; expect result: [100, 101, 14, 21]

define i32 @f(i32 %u) {
A:
  %t = call i32 @pllvm.thread_id()
  %c = icmp slt i32 %t, 2
  br i1 %c, label %B, label %E
B:
  %cu = icmp eq i32 %u, 1
  br i1 %cu, label %C, label %D
C:
  %x = add i32 %t, 100
  br label %J
D:
  %y = add i32 %t, 200
  br label %J
J:
  %z = phi i32 [ %x, %C ], [ %y, %D ]
  br label %F
E:
  %w = mul i32 %t, 7
  br label %F
F:
  %r = phi i32 [ %z, %J ], [ %w, %E ]
  ret i32 %r
}
