;; Scatter of several lanes to one address (§4.9.1): the same value is fine (a
;; uniform store), different values are "not further specified"; pllvm reports
;; them as undefined behaviour (docs/design/overview.md, "The semantics
;; executable": conflicting scatter).
;;
;; same (v = [5, 5]): both lanes store 5 to @cell[0]: @cell = [5], r = [5, 5].
;; conflict (v = [5, 6]): lanes store 5 and 6 to one address: undefined.
; run same: --threads 2 --interp fr --schedule A --arg v=5,5
; run conflict: --threads 2 --interp fr --schedule A --arg v=5,6
; expect same outcome: returned
; expect same result: [5, 5]
; expect same memory: @cell = [5]
; expect conflict outcome: undefined: scatter

@cell = global [1 x i32] zeroinitializer

define i32 @f(i32 %v) {
A:
  store i32 %v, ptr @cell
  ret i32 %v
}
