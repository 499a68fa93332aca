;; Calls to functions defined in the module are inlined when the module is read
;; (docs/language.md, "Calls to defined functions"), so recursion, direct or
;; mutual, cannot be: it is refused at the call that closes the cycle, naming it.
;; (Each `; error:` below is the error expected on its line.)
define i32 @even(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %yes, label %rec
yes:
  ret i32 1
rec:
  %m = sub i32 %n, 1
  %r = call i32 @odd(i32 %m)
  ret i32 %r
}

define i32 @odd(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %no, label %rec
no:
  ret i32 0
rec:
  %m = sub i32 %n, 1
  %r = call i32 @even(i32 %m) ; error: unsupported construct: recursive call (@even → @odd → @even)
  ret i32 %r
}

define i32 @fact(i32 %n) {
entry:
  %r = call i32 @fact(i32 %n) ; error: unsupported construct: recursive call (@fact → @fact)
  ret i32 %r
}
