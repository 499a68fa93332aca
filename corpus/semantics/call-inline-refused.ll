;; A call to a defined function is inlined (docs/language.md), except where the
;; inlined body would not mean the call: in a block with a predicate (the callee's
;; blocks would need the predicate too) and as a total call ([W-CMD-TOTAL] has no
;; meaning for a whole body). Both are refused, at the call.
;; (Each `; error:` below is the error expected on its line.)
define i32 @inc(i32 %x) {
entry:
  %y = add i32 %x, 1
  ret i32 %y
}

define i32 @f(i32 %a, i1 %p) {
entry:
  br label %B
B:
  predicate %p
  %r = call i32 @inc(i32 %a) ; error: unsupported construct: call of the defined function @inc in a block with a predicate
  br label %C
C:
  %s := call i32 @inc(i32 %a) ; error: unsupported construct: total call of the defined function @inc
  ret i32 %s
}
