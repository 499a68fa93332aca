;; Calls to a function defined in the module are inlined when the module is read
;; (docs/language.md, "Calls to defined functions"): the thread array runs one
;; body in lock step, the callee's blocks copied into it, each `ret` a branch to
;; the block after the call and the result a phi there. @clamp branches on a
;; varying value, so each inlined copy diverges and reconverges at its return
;; block. @llvm.smax.i32 is called without a `declare`: LLVM declares the
;; intrinsics it knows implicitly, and so does pllvm for those θ defines.
;;
;; x = [0, 1, 2, 3], t = thread_id = [0, 1, 2, 3]
;; a = clamp(x, 1, 2)  = [1, 1, 2, 2]
;; b = clamp(t, 0, a)  = [0, 1, 2, 2]
;; s = smax(a, b)      = [1, 1, 2, 2]
;; r = 10 s + b        = [10, 11, 22, 22]
;; Every lane is active wherever it uses a value (the phis of the return blocks
;; read the value of the lane's own incoming block), so FR and OBL agree.
; run fr: --threads 4 --interp fr --arg x=0,1,2,3
; run obl: --threads 4 --interp obl --arg x=0,1,2,3
; expect outcome: returned
; expect result: [10, 11, 22, 22]

define i32 @f(i32 %x) {
entry:
  %t = call i32 @pllvm.thread_id()
  %a = call i32 @clamp(i32 %x, i32 1, i32 2)
  %b = call i32 @clamp(i32 %t, i32 0, i32 %a)
  %s = call i32 @llvm.smax.i32(i32 %a, i32 %b)
  %m = mul i32 %s, 10
  %r = add i32 %m, %b
  ret i32 %r
}

define i32 @clamp(i32 %v, i32 %lo, i32 %hi) {
entry:
  %below = icmp slt i32 %v, %lo
  br i1 %below, label %low, label %check

low:
  ret i32 %lo

check:
  %above = icmp sgt i32 %v, %hi
  br i1 %above, label %high, label %mid

high:
  ret i32 %hi

mid:
  ret i32 %v
}
