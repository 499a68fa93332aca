;; structurizecfg on a divergent if/else (docs/fuzzing.md, "LLVM's control-flow
;; transforms"): the diamond A -> {B, C} -> D becomes A -> C -> Flow -> B -> D
;; with an i1 phi in Flow that says whether B still has to run (LLVM inverts
;; the condition and puts the else side first). No value lives across a loop,
;; so the output under OBL computes what the input does under FR.
;; Run, W = 4, x = 2: lanes 0 and 1 take B (t < 2): t + 10 = 10, 11; lanes 2 and
;; 3 take C: 3t = 6, 9.
; check-llvm-pass: --passes structurizecfg --threads 4 --arg x=2
; run: --threads 4 --arg x=2
; expect outcome: returned
; expect result: [10, 11, 6, 9]

define i32 @f(i32 %x) {
A:
  %t = call i32 @pllvm.thread_id()
  %c = icmp slt i32 %t, %x
  br i1 %c, label %B, label %C
B:
  %b = add i32 %t, 10
  br label %D
C:
  %c2 = mul i32 %t, 3
  br label %D
D:
  %r = phi i32 [ %b, %B ], [ %c2, %C ]
  ret i32 %r
}
