;; Thesis Fig. 8.5 under full if-conversion: the uniform branch in b, which
;; partial linearization keeps (pl-fig8.5-uniform-branch-under-varying-predicate.ll,
;; Theorem 5), is linearized like every branch that does not control a loop.
;;
;; Block index a, b, d, c, e, f. Listing 8 with every branch divergent: a: next =
;; min{b, f} = b, (b, f); b: T = {f}, S = {c, d}: next = d, (d, c), (d, f);
;; d: T = {c, f}, S = {e}: next = c, (c, e), (c, f); c: T = {e, f}: next = e,
;; (e, f); e: f.
;;
;; Results as for partial linearization: u = 9: [1, 2, 0, 0]; u = 0: [2, 3, 0, 0].
define i32 @fig85(i32 %u, i32 %tid) {
a:
  %va = icmp slt i32 %tid, 2
  br i1 %va, label %b, label %f
b:
  %ub = icmp sgt i32 %u, 5
  br i1 %ub, label %c, label %d
c:
  %xc = add i32 %tid, 1
  br label %e
d:
  %xd = add i32 %tid, 2
  br label %e
e:
  %xe = phi i32 [ %xc, %c ], [ %xd, %d ]
  br label %f
f:
  %r = phi i32 [ %xe, %e ], [ 0, %a ]
  ret i32 %r
}

; transform ifconv: --pass ifconv --uniform-args u
; expect transform ifconv cfg:
;   a -> b
;   b [p] -> d
;   d [p] -> c
;   c [p] -> e
;   e [p] -> f
;   f -> ret
; run fr-u9: --threads 4 --interp fr --arg u=9 --arg tid=0,1,2,3
; run ifconv-u9: --transform ifconv --threads 4 --interp obl --arg u=9 --arg tid=0,1,2,3
; run fr-u0: --threads 4 --interp fr --arg u=0 --arg tid=0,1,2,3
; run ifconv-u0: --transform ifconv --threads 4 --interp obl --arg u=0 --arg tid=0,1,2,3
; expect fr-u9 result: [1, 2, 0, 0]
; expect ifconv-u9 result: [1, 2, 0, 0]
; expect fr-u0 result: [2, 3, 0, 0]
; expect ifconv-u0 result: [2, 3, 0, 0]
