;; Undefined behaviour: an active lane loads outside the object (@tab has four
;; i32 elements; index 7 is past its end). The address is computed with a plain
;; getelementptr (no inbounds), so the pointer itself is defined and only the
;; access is out of bounds. A passive lane with the same bad address does not
;; access memory (read^W reads only where amask is set).
;;
;; active (x = [1, 1], k = [2, 7]): lane 1 reads tab[7]: undefined.
;; passive (x = [1, 0], k = [2, 7]): lane 1 masked off; lane 0 reads tab[2] = 30.
;;   C: r = p ? v : -1 = [30, -1].
; run active: --threads 2 --interp fr --schedule A,B,C --arg x=1,1 --arg k=2,7
; run passive: --threads 2 --interp fr --schedule A,B,C --arg x=1,0 --arg k=2,7
; expect active outcome: undefined: out of bounds
; expect passive outcome: returned
; expect passive result: [30, -1]

@tab = global [4 x i32] [i32 10, i32 20, i32 30, i32 40]

define i32 @f(i32 %x, i32 %k) {
A:
  %p = icmp ne i32 %x, 0
  %addr = getelementptr [4 x i32], ptr @tab, i32 0, i32 %k
  br label %B

B:
  predicate %p
  %v = load i32, ptr %addr
  br label %C

C:
  %r = select i1 %p, i32 %v, i32 -1
  ret i32 %r
}
