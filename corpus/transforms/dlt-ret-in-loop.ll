;; dlt (thesis §9.1) on a loop whose only exit is a `ret` inside it: the smallest
;; i >= 0 with i * i >= n. prepare::unify_exits first turns both `ret`s into
;; branches to one exit block, so Ret is an ordinary loop exit, rebounded through
;; H.e.Ret; the normalization gives the loop a preheader (A also branches to Out).
;;
;; Results, by hand: n = -1 never enters the loop: -1. n = 5: 0, 1, 4 < 5, 9 >= 5:
;; 3. n = 10: 9 < 10, 16 >= 10: 4.
; transform dlt: --pass dlt
; expect transform dlt cfg:
;   A -> Out, H.preheader
;   H.preheader -> H.newh
;   H.newh -> H.guard, H.disp
;   H.guard -> H, H.newlatch
;   H -> H.e.Ret, B
;   H.e.Ret -> H.newlatch
;   Ret -> exit
;   B -> H.newlatch
;   H.newlatch -> H.newh, H.disp
;   H.disp -> Ret
;   Out -> exit
;   exit -> ret
; run fr: --threads 3 --interp fr --arg n=-1,5,10
; run dlt-obl: --transform dlt --threads 3 --interp obl --arg n=-1,5,10
; run dlt-all: --transform dlt --threads 3 --interp obl --explore --arg n=-1,5,10
; expect outcome: returned
; expect fr result: [-1, 3, 4]
; expect dlt-obl result: [-1, 3, 4]
; expect dlt-all outcomes: [-1, 3, 4]

define i32 @r(i32 %n) {
A:
  %neg = icmp slt i32 %n, 0
  br i1 %neg, label %Out, label %H
H:
  %i = phi i32 [ 0, %A ], [ %i.next, %B ]
  %sq = mul i32 %i, %i
  %hit = icmp sge i32 %sq, %n
  br i1 %hit, label %Ret, label %B
Ret:
  ret i32 %i
B:
  %i.next = add i32 %i, 1
  br label %H
Out:
  ret i32 -1
}
