;; unify-loop-exits on a loop with two exits, one divergent (on the thread id)
;; and one uniform (the trip count): both exits go to one guard block
;; loop.exit.guard, whose i1 phi dispatches to the original exit blocks. The
;; values after the loop are phis of constants and of the loop-invariant %t.
;; Run, W = 4: lane 0 leaves by E1 in the first iteration (i = 0 = t): 1000;
;; lane 1 in the second (i = 1): 1001; lanes 2 and 3 never meet i = t before
;; the counter reaches 2 and leave by E2: 2t = 4, 6.
; check-llvm-pass: --passes unify-loop-exits --threads 4
; run: --threads 4
; expect outcome: returned
; expect result: [1000, 1001, 4, 6]

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  br label %H
H:
  %i = phi i32 [ 0, %A ], [ %i1, %L ]
  %hit = icmp eq i32 %i, %t
  br i1 %hit, label %E1, label %L
L:
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, 2
  br i1 %more, label %H, label %E2
E1:
  %a = add i32 %t, 1000
  br label %J
E2:
  %b = mul i32 %t, 2
  br label %J
J:
  %r = phi i32 [ %a, %E1 ], [ %b, %E2 ]
  ret i32 %r
}
