;; POPL'21 Fig. 1c (§1), with one of the three splits varying: the inner loop's
;; exit test c1 compares with the varying bound n1 (same CFG as
;; popl-fig1c-three-splits.ll, rebuilt there). Lanes leave the inner loop after
;; different numbers of iterations, so x is varying where it is used outside.
;; Derivation: K's branch is divergent. thesis: local_joins({I, L}) in lp(I):
;; DomMap[I] = I reaches X (the break) and K; HeaderDef = I ≠ L = DomMap[L], so
;; L ∈ tdep* while X, reached with the header's I, is not (yet). The collapsed
;; inner loop (divergent L, uniform X) in lp(O): L pushes L to the header O and
;; to X, which also gets u: X is a sync block and, with DomMap[X] = X ≠ L =
;; DomMap[O], a divergent exit of lp(O). POPL'21: on G⋆ (I → {L, X},
;; O → {X}), K ∈ splits(L) and splits(X). So %xx (x used in X,
;; outside both loops) is varying, and so is the value x.next seen in L (%xl).
;; The outer counter j stays uniform inside the outer loop.
;; Run, W = 2, n1 = [1, 3], n2 = 1, n3 = 9: lane 0 leaves the inner loop after one
;; iteration (x = 0), lane 1 after three (x = 2): xx = [0, 2].
; analyze: --uniform-args n2,n3
; run: --threads 2 --arg n1=1,3 --arg n2=1 --arg n3=9
; expect outcome: returned
; expect result: [0, 2]

define i32 @f(i32 %n1, i32 %n2, i32 %n3) {
E:
  br label %O

O:
  %j = phi i32 [ 0, %E ], [ %j.next, %L ] ; expect: uniform
  br label %I

I:
  %x = phi i32 [ 0, %O ], [ %x.next, %K ] ; expect: uniform
  %c3 = icmp eq i32 %x, %n3             ; expect: uniform
  br i1 %c3, label %X, label %K         ; expect: uniform

K:
  %x.next = add i32 %x, 1               ; expect: uniform
  %c1 = icmp ult i32 %x.next, %n1       ; expect: varying
  br i1 %c1, label %I, label %L         ; expect: varying

L:
  %xl = add i32 %x.next, 0              ; expect: varying
  %j.next = add i32 %j, 1               ; expect: uniform
  %c2 = icmp ult i32 %j.next, %n2       ; expect: uniform
  br i1 %c2, label %O, label %X         ; expect: uniform

X:
  %xx = add i32 %x, 0                   ; expect: varying
  ret i32 %xx
}
