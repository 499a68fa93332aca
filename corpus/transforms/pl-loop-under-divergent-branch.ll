;; A uniform loop (its trip count %n is uniform) entered under a divergent
;; branch (thesis §8.3): the loop stays a loop, its header keeps the edges from
;; its preheader and its latch, and its predicate is a phi of theirs.
;;
;; Normal form (§2.4): the header L gets the dedicated preheader L.preheader
;; (entry branches to L and X). Block index entry, X, L.preheader, L, E.
;; Listing 8 on the DAG without the back edge L -> L: entry divergent, next =
;; min{L.preheader, X} = X, (X, L.preheader) deferred; X: T = {L.preheader}, S =
;; {E}: next = L.preheader, (L.preheader, E); L.preheader: next = L, (L, E); L
;; (uniform): edge 1 next = min{E} = E; the back edge goes back in (§8.3).
;;
;; Lanes with tid < 2 run the loop: s = tid + 0 + 1 + 2 = tid + 3; the others
;; return 100 · tid. With tid = 2, 3, 4, 5 no lane enters the loop: the
;; linearized program still runs L with every predicate false, and the latch
;; branch is then ⊤ in every lane ([PC-ND-BRANCH]); the greedy scheduler's
;; termination preservation (§5.3) leaves the loop.
define i32 @f(i32 %tid, i32 %n) {
entry:
  %c = icmp slt i32 %tid, 2
  br i1 %c, label %L, label %X
L:
  %i = phi i32 [0, %entry], [%i1, %L]
  %s = phi i32 [%tid, %entry], [%s1, %L]
  %s1 = add i32 %s, %i
  %i1 = add i32 %i, 1
  %t = icmp slt i32 %i1, %n
  br i1 %t, label %L, label %E
X:
  %x = mul i32 %tid, 100
  br label %E
E:
  %r = phi i32 [%s1, %L], [%x, %X]
  ret i32 %r
}

; transform pl: --pass pl --uniform-args n
; expect transform pl cfg:
;   entry -> X
;   X [p] -> L.preheader
;   L.preheader [p] -> L
;   L [p] -> L, E
;   E -> ret
; run fr-mixed: --threads 4 --interp fr --arg n=3 --arg tid=0,1,2,3
; run pl-mixed: --transform pl --threads 4 --interp obl --arg n=3 --arg tid=0,1,2,3
; run fr-none: --threads 4 --interp fr --arg n=3 --arg tid=2,3,4,5
; run pl-none: --transform pl --threads 4 --interp obl --arg n=3 --arg tid=2,3,4,5
; expect fr-mixed result: [3, 4, 200, 300]
; expect pl-mixed result: [3, 4, 200, 300]
; expect fr-none result: [200, 300, 400, 500]
; expect pl-none result: [200, 300, 400, 500]
