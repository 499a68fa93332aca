;; Convergence control tokens (LLVM's convergence and uniformity document,
;; "controlled convergence"): the `token` type and the "convergencectrl" operand
;; bundle are kept, printed back and exported as written. Lock step already runs
;; every lane that executes a block together, so θ's convergence intrinsics give
;; a token that carries nothing (⊤), and the calls naming it run as without it.
;;
;; x = [3, 5]: each iteration adds readfirstlane(x) = x of the first active lane,
;; lane 0's 3, to n: n = 3, 6, 9, 12; both lanes leave the loop together at 12.
; run fr: --threads 2 --interp fr --arg x=3,5
; run obl: --threads 2 --interp obl --arg x=3,5
; expect outcome: returned
; expect result: [12, 12]

define i32 @f(i32 %x) {
entry:
  %t = call token @llvm.experimental.convergence.anchor()
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %n, %loop ]
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %t) ]
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %l) ]
  %n = add i32 %i, %r
  %c = icmp slt i32 %n, 10
  br i1 %c, label %loop, label %exit

exit:
  ret i32 %n
}
