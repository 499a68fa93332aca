;; A GPU barrier means the thesis's barrier (Def. 18): the block that calls it
;; must be synchronizing (Def. 17) whenever it is scheduled, that is, no lane
;; waits at a block that reaches it without a back edge. The call itself changes
;; no value and no memory. Greedy schedules make every block a barrier already;
;; a runtime schedule given by hand may break it, and then the barrier's call is
;; undefined behaviour (as a barrier that lanes reach apart is on a GPU).
;;
;; x = [0, 1]: lane 0 goes A -> B -> C, lane 1 goes A -> C.
;; apart (A, C, B, C): when C is first scheduled, lane 0 waits at B, and B
;;   reaches C without a back edge: C is not synchronizing: undefined.
;; together (A, B, C): B runs lane 0 alone, then C both lanes: r = x + 10.
;; greedy (no schedule): the default greedy scheduler runs A, B, C.
; run apart: --threads 2 --interp fr --schedule A,C,B,C --arg x=0,1
; run together: --threads 2 --interp fr --schedule A,B,C --arg x=0,1
; run greedy: --threads 2 --interp obl --arg x=0,1
; expect apart outcome: undefined: barrier scheduled while not synchronizing (Def. 17, Def. 18): lane 0 waits at B
; expect together outcome: returned
; expect together result: [10, 11]
; expect greedy outcome: returned
; expect greedy result: [10, 11]

define i32 @f(i32 %x) {
A:
  %c = icmp eq i32 %x, 0
  br i1 %c, label %B, label %C

B:
  br label %C

C:
  call void @llvm.amdgcn.s.barrier()
  call void @llvm.nvvm.barrier0()
  %r = add i32 %x, 10
  ret i32 %r
}
