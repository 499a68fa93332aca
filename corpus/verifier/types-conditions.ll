;; Types (LLVM LangRef): select and br decide on an i1; switch dispatches on an
;; integer, and each case value appears once.
define i32 @f(i32 %n, float %x) {
entry:
  %s = select i32 %n, i32 1, i32 2 ; error: %n has type i32, but select expects i1
  br i32 %n, label %a, label %b ; error: %n has type i32, but br expects i1

a:
  switch i32 %n, label %b [ ; error: switch lists case 1 twice
    i32 1, label %b
    i32 1, label %c
  ]

b:
  switch float %x, label %c [] ; error: switch needs an integer type, found float

c:
  ret i32 %s
}
