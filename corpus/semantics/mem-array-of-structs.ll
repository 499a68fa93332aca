;; `--mem` on an array of structs (docs/cli.md, `--mem`): the values fill the
;; global's scalars in memory order, each struct field counting as one, so
;; `@pts = [3 x { i32, float }]` takes x0, y0, x1, y1, x2, y2. Lane t reads
;; pts[t].x and pts[t].y (two gathers, §4.9.1 read^W) and returns x + fptosi(y).
;;
;; Derivation, --mem @pts=1,2.5,3,4.5,5,6.5: pts = [{1, 2.5}, {3, 4.5}, {5, 6.5}];
;; fptosi truncates toward zero: 2, 4, 6; results [1 + 2, 3 + 4, 5 + 6] =
;; [3, 7, 11]. The struct's layout puts y at offset 4 and the stride is 8, so a
;; reading that took the values as a flat array of i32 would not see 2.5 as a float.
; run: --threads 3 --mem @pts=1,2.5,3,4.5,5,6.5
; expect outcome: returned
; expect result: [3, 7, 11]

@pts = external global [3 x { i32, float }]

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %px = getelementptr inbounds [3 x { i32, float }], ptr @pts, i32 0, i32 %t, i32 0
  %py = getelementptr inbounds [3 x { i32, float }], ptr @pts, i32 0, i32 %t, i32 1
  %x = load i32, ptr %px
  %y = load float, ptr %py
  %yi = fptosi float %y to i32
  %r = add i32 %x, %yi
  ret i32 %r
}
