;; dlt (thesis §9.1, Fig. 9.3) on a loop with two exits: X from the header when
;; i = n, Y from the latch B when i + 1 reaches 5. Each exit edge is rebounded
;; through its own E block (H.e.X, H.e.Y); the exit tracker %X.track remembers
;; which lanes left by X, and H.disp sends those to X and the others to Y. The
;; live-out %i (returned in X) is tracked as %i.out / %i.track and read in X as
;; %i.final. The two `ret`s first become branches to one exit block (exit).
;;
;; Results, by hand: n = 2: i = 0, 1 go round, i = 2 = n leaves by X: 2.
;; n = 7: i = 0..3 go round, i = 4: i + 1 = 5 leaves by Y: -1. n = 0: i = 0 = n at
;; once: 0. Every greedy schedule of the output under OBL ends the same way.
; transform dlt: --pass dlt
; expect transform dlt cfg:
;   A -> H.newh
;   H.newh -> H.guard, H.disp
;   H.guard -> H, H.newlatch
;   H -> H.e.X, B
;   H.e.X -> H.newlatch
;   B -> H.newlatch, H.e.Y
;   H.e.Y -> H.newlatch
;   H.newlatch -> H.newh, H.disp
;   H.disp -> X, Y
;   X -> exit
;   Y -> exit
;   exit -> ret
; run fr: --threads 3 --interp fr --arg n=2,7,0
; run dlt-obl: --transform dlt --threads 3 --interp obl --arg n=2,7,0
; run dlt-all: --transform dlt --threads 3 --interp obl --explore --arg n=2,7,0
; expect outcome: returned
; expect fr result: [2, -1, 0]
; expect dlt-obl result: [2, -1, 0]
; expect dlt-all outcomes: [2, -1, 0]

define i32 @f(i32 %n) {
A:
  br label %H
H:
  %i = phi i32 [ 0, %A ], [ %i1, %B ]
  %c = icmp eq i32 %i, %n
  br i1 %c, label %X, label %B
B:
  %i1 = add i32 %i, 1
  %d = icmp slt i32 %i1, 5
  br i1 %d, label %H, label %Y
X:
  ret i32 %i
Y:
  ret i32 -1
}
