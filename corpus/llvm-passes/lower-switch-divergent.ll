;; lower-switch on a switch on the thread id: the switch becomes a tree of
;; compares (NodeBlocks and LeafBlocks), each a divergent branch.
;; Run, W = 4: lane 0 takes case 0 (10), lane 1 case 1 (20), lanes 2 and 3 the
;; default (30 + t = 32, 33).
; check-llvm-pass: --passes lower-switch --threads 4
; run: --threads 4
; expect outcome: returned
; expect result: [10, 20, 32, 33]

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  switch i32 %t, label %D [
    i32 0, label %C0
    i32 1, label %C1
  ]
C0:
  br label %J
C1:
  br label %J
D:
  %d = add i32 %t, 30
  br label %J
J:
  %r = phi i32 [ 10, %C0 ], [ 20, %C1 ], [ %d, %D ]
  ret i32 %r
}
