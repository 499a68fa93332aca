;; A block predicate read outside a divergent loop (found by `pllvm fuzz
;; --oracle analyses`, seed 1000468, shrunk to these 8 instructions; see
;; docs/fuzzing.md). %acc is a header phi that every lane computes alike in each
;; iteration (mask() of the unpredicated entry, then false), so its own shape is
;; uniform; but lanes leave the loop in different iterations (%k differs), so
;; at %out a lane that left after one iteration reads %acc = mask() = true while
;; one that left later reads false: temporal divergence (Fig. 7.1d), [DA-ID]
;; read as if an LCSSA phi sat at the exit. The activation of %out, whose
;; predicate is %acc, is varying (Listing 2, lines 5-12, through that reading).
;; %acc is uniform for `thesis` and `popl` (the `llvm` analysis calls every
;; `mask()` result divergent). Run: x = 1, 3: lane 0 leaves after one iteration (acc = true),
;; lane 1 after three (acc = false): lane 0 runs %out's store of 7, lane 1 not;
;; @r = [7, 0].
; run: --threads 2 --arg x=1,3
; expect outcome: returned
; expect memory: @r = [7, 0]

@r = global [2 x i32] zeroinitializer

define void @f(i32 %x) {
entry:
  %m = mask()
  %t = call i32 @pllvm.thread_id()
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %inc, %loop ]
  %acc = phi i1 [ %m, %entry ], [ false, %loop ]      ; expect[thesis]: uniform ; expect[popl]: uniform
  %inc = add i32 %i, 1
  %c = icmp ult i32 %inc, %x                          ; expect: varying
  br i1 %c, label %loop, label %out                   ; expect: varying

out:                                                  ; expect: varying
  predicate %acc
  %p = getelementptr inbounds [2 x i32], ptr @r, i32 0, i32 %t
  store i32 7, ptr %p
  br label %end

end:
  ret void
}
