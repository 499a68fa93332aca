;; Types (LLVM LangRef): getelementptr steps into arrays with any integer index and
;; into structs only with an i32 constant below the field count; it cannot step into
;; a scalar. load and alloca need sized types.
define void @f(ptr %p, i64 %i, i32 %j) {
entry:
  %ok = getelementptr [4 x { i32, double }], ptr %p, i64 0, i64 %i, i32 1
  %var = getelementptr [4 x { i32, double }], ptr %p, i64 0, i64 %i, i32 %j ; error: getelementptr struct index into { i32, double } must be an i32 constant below 2
  %far = getelementptr [4 x { i32, double }], ptr %p, i64 0, i64 %i, i32 2 ; error: getelementptr struct index into { i32, double } must be an i32 constant below 2
  %wide = getelementptr { i32, double }, ptr %p, i64 0, i64 1 ; error: getelementptr struct index into { i32, double } must be an i32 constant below 2
  %deep = getelementptr { i32, double }, ptr %p, i64 0, i32 1, i32 0 ; error: getelementptr cannot index into double
  ret void
}
