;; POPL'21 Fig. 1c (§1): "A more complicated example with three loop splits. All
;; three branch variables c1, c2, c3 need to be uniform for x to be uniform."
;; The picture did not survive and the prose gives no more; rebuilt as a nest
;; with three splits that each let lanes leave at a different time: an outer loop
;; O → I, an inner loop I → K with exit test c1 (back to I or on to L), a break c3
;; from the inner loop out of both loops to X, and the outer exit test c2 in L
;; (back to O or out to X). x, the inner counter, is used in X without LCSSA.
;; The bounds are the parameters n1, n2 and the break point n3; here all three are
;; uniform, so x is uniform in X (see popl-fig1c-one-split-varying.ll).
;; Derivation: c1, c2, c3 uniform: no divergent branch; x's use in X leaves both
;; loops, whose exits X, L join no varying split: §6 (Def. 6.6) keeps %xx uniform.
;; Run, W = 2, n1 = 2, n2 = 2, n3 = 9: two outer iterations of two inner ones;
;; X sees x = 1 in both lanes (the break never fires).
; analyze: --uniform-args n1,n2,n3
; run: --threads 2 --arg n1=2 --arg n2=2 --arg n3=9
; expect outcome: returned
; expect result: [1, 1]

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
  %c1 = icmp ult i32 %x.next, %n1       ; expect: uniform
  br i1 %c1, label %I, label %L         ; expect: uniform

L:
  %j.next = add i32 %j, 1               ; expect: uniform
  %c2 = icmp ult i32 %j.next, %n2       ; expect: uniform
  br i1 %c2, label %O, label %X         ; expect: uniform

X:
  %xx = add i32 %x, 0                   ; expect: uniform
  ret i32 %xx
}
