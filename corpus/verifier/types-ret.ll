;; Types (LLVM LangRef: ret): a function returns a value of its return type, and a
;; void function returns none.
define i32 @wrong_type(i64 %x) {
entry:
  ret i64 %x ; error: %x has type i64, but ret expects i32
}

define i32 @no_value() {
entry:
  ret void ; error: ret without a value in function returning i32
}

define void @a_value() {
entry:
  ret i32 1 ; error: ret with a value in function returning void
}
