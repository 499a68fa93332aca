;; structurizecfg on a loop with two exits, found by the llvm-transforms
;; campaign (seed 5000004, shrunk from 162 instructions to these 8) and
;; simplified by hand: a semantics reading, not an LLVM bug (docs/fuzzing.md,
;; "LLVM's control-flow transforms"). The loop leaves from H when the loaded
;; value is 0 (to E with 5) and from L when the lane's counter reaches %w (to E
;; with -1). The input's E reads only constants, chosen by each lane's incoming
;; block. structurizecfg routes both exits through Flow blocks inside the loop,
;; and the value E returns becomes a phi of a Flow block there: a lane that
;; leaves in an earlier iteration has it overwritten by the passive iterations
;; of the others under OBLIVIOUS, and returns ⊤. Under FREEZING the output
;; refines the input; AMDGPU keeps such values for exited lanes (exec-masked
;; registers, SILowerI1Copies' merge of i1 lane masks with exec).
;; Run, W = 2, @g = 7 (never 0), w = [1, 3]: lane 0 leaves by L after one
;; iteration (i + 1 = 1, not below 1), lane 1 after three; both return -1.
; check-llvm-pass: --passes structurizecfg --threads 2 --arg w=1,3
; check-llvm-pass expect: under FR the output refines the program, which refines itself under OBL: the pass lost a passive lane's value
; run: --threads 2 --arg w=1,3
; expect outcome: returned
; expect result: [-1, -1]

@g = global i32 7

define i64 @f(i32 %w) {
entry:
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i1, %L ]
  %v = load i32, ptr @g
  %z = icmp eq i32 %v, 0
  br i1 %z, label %E, label %L
L:
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %w
  br i1 %more, label %H, label %E
E:
  %r = phi i8 [ 5, %H ], [ -1, %L ]
  %r64 = sext i8 %r to i64
  ret i64 %r64
}
