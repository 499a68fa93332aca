;; Undefined behaviour: division by zero in one ACTIVE lane. The same division in a
;; PASSIVE lane is not executed for that lane (amask = 0) and is not UB.
;; B is predicated by p = x != 0 and computes d = 100 / y.
;;
;; active (x = [1, 1], y = [5, 0]): lane 1 divides by 0 actively: undefined.
;; passive (x = [1, 0], y = [5, 0]): lane 1 is masked off in B; lane 0: d = 20.
;;   C: r = p ? d : -1 = [20, -1] (the select ignores lane 1's unselected d).
; run active: --threads 2 --interp fr --schedule A,B,C --arg x=1,1 --arg y=5,0
; run passive: --threads 2 --interp fr --schedule A,B,C --arg x=1,0 --arg y=5,0
; run passive-obl: --threads 2 --interp obl --schedule A,B,C --arg x=1,0 --arg y=5,0
; expect active outcome: undefined: division by zero
; expect passive outcome: returned
; expect passive result: [20, -1]
; expect passive-obl outcome: returned
; expect passive-obl result: [20, -1]

define i32 @f(i32 %x, i32 %y) {
A:
  %p = icmp ne i32 %x, 0
  br label %B

B:
  predicate %p
  %d = sdiv i32 100, %y
  br label %C

C:
  %r = select i1 %p, i32 %d, i32 -1
  ret i32 %r
}
