;; A declared function the function map θ does not define (an external function,
;; §4.9.2): the verifier accepts the call, and [W-CMD-CALL] has no f = θ(fnc) for
;; it, so a lane that executes the call actively is undefined behaviour. A block
;; scheduled with no active lane executes nothing (as a passive lane of any call
;; computes nothing), so the same call is harmless there.
;;
;; active (x = [0, 1]): lane 0 takes A -> B and calls @abort actively: undefined.
;; passive (x = [1, 2]): both lanes go A -> C; B is scheduled with cmask = 0 in
;;   both lanes (Def. 6), so amask = 0 and @abort is not executed; C returns x.
; run active: --threads 2 --interp fr --schedule A,B,C --arg x=0,1
; run passive: --threads 2 --interp fr --schedule A,B,C --arg x=1,2
; run passive-obl: --threads 2 --interp obl --schedule A,B,C --arg x=1,2
; expect active outcome: undefined: call to external function @abort, which has no definition
; expect passive outcome: returned
; expect passive result: [1, 2]
; expect passive-obl outcome: returned
; expect passive-obl result: [1, 2]

declare void @abort()

define i32 @f(i32 %x) {
A:
  %bad = icmp eq i32 %x, 0
  br i1 %bad, label %B, label %C

B:
  call void @abort()
  br label %C

C:
  ret i32 %x
}
