;; dlt (thesis §9.1) on nested loops whose inner exit Found leaves both loops at
;; once: a search over j, k in 0..2 for j + k = n. Innermost first: the inner loop
;; I becomes uniform with the dispatch I.disp (to OL, or out of both loops through
;; the outer loop's rebound O.e.Found); the outer loop O is then divergent through
;; I.disp's varying branch and is transformed in turn, tracking the inner trackers
;; (%k.final, %t.final) as its own live-outs. The exit blocks' phis read the
;; outer trackers.
;;
;; Results, by hand: n = 1: j = 0, k = 1: t = 1 -> 10 * 1 + 1 = 11. n = 4: j = 0
;; (t = 0, 1, 2), j = 1 (1, 2, 3), j = 2: k = 2: t = 4 -> 40 + 2 = 42. n = 9:
;; never found -> -1.
; transform dlt: --pass dlt
; expect transform dlt cfg:
;   A -> O.newh
;   O.newh -> O.guard, O.disp
;   O.guard -> O, O.newlatch
;   O -> I.newh
;   I.newh -> I.guard, I.disp
;   I.guard -> I, I.newlatch
;   I -> I.e.Found, IL
;   I.e.Found -> I.newlatch
;   IL -> I.newlatch, I.e.OL
;   I.e.OL -> I.newlatch
;   I.newlatch -> I.newh, I.disp
;   I.disp -> OL, O.e.Found
;   O.e.Found -> O.newlatch
;   OL -> O.newlatch, O.e.NotFound
;   O.e.NotFound -> O.newlatch
;   O.newlatch -> O.newh, O.disp
;   O.disp -> Found, NotFound
;   Found -> exit
;   NotFound -> exit
;   exit -> ret
; run fr: --threads 3 --interp fr --arg n=1,4,9
; run naive-all: --threads 3 --interp fr --explore --arg n=1,4,9
; run dlt-obl: --transform dlt --threads 3 --interp obl --arg n=1,4,9
; run dlt-all: --transform dlt --threads 3 --interp obl --explore --arg n=1,4,9
; expect outcome: returned
; expect fr result: [11, 42, -1]
; expect naive-all outcomes: [11, 42, -1]
; expect dlt-obl result: [11, 42, -1]
; expect dlt-all outcomes: [11, 42, -1]

define i32 @h(i32 %n) {
A:
  br label %O
O:
  %j = phi i32 [ 0, %A ], [ %j.next, %OL ]
  br label %I
I:
  %k = phi i32 [ 0, %O ], [ %k.next, %IL ]
  %t = add i32 %j, %k
  %found = icmp eq i32 %t, %n
  br i1 %found, label %Found, label %IL
IL:
  %k.next = add i32 %k, 1
  %ci = icmp slt i32 %k.next, 3
  br i1 %ci, label %I, label %OL
OL:
  %j.next = add i32 %j, 1
  %co = icmp slt i32 %j.next, 3
  br i1 %co, label %O, label %NotFound
Found:
  %r = mul i32 %t, 10
  %r1 = add i32 %r, %k
  ret i32 %r1
NotFound:
  ret i32 -1
}
