;; Thesis Fig. 8.5: the branch in b is uniform (on %u) although b's predicate is
;; varying (b is control dependent on the divergent edge a -> b). Theorem 5 keeps
;; it: b dominates both its edges, and in b's dominance region G^b (Def. 22-23)
;; the branch is uniform.
;;
;; Block index a, b, d, c, e, f. Listing 8: a divergent, next = min{b, f} = b,
;; (b, f) deferred; b uniform with T = {f}: edge 0 next = min{f, c} = c, (c, f);
;; edge 1 next = min{f, d} = d, (d, f); d and c: next = e, (e, f); e: f.
;;
;; Lanes 0, 1 (tid < 2) reach b; u = 9 sends them to c (tid + 1), u = 0 to d
;; (tid + 2); lanes 2, 3 go a -> f with 0.
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

; transform pl: --pass pl --uniform-args u
; expect transform pl cfg:
;   a -> b
;   b [p] -> c, d
;   d [p] -> e
;   c [p] -> e
;   e [p] -> f
;   f -> ret
; run fr-u9: --threads 4 --interp fr --arg u=9 --arg tid=0,1,2,3
; run pl-u9: --transform pl --threads 4 --interp obl --arg u=9 --arg tid=0,1,2,3
; run fr-u0: --threads 4 --interp fr --arg u=0 --arg tid=0,1,2,3
; run pl-u0: --transform pl --threads 4 --interp obl --arg u=0 --arg tid=0,1,2,3
; expect fr-u9 result: [1, 2, 0, 0]
; expect pl-u9 result: [1, 2, 0, 0]
; expect fr-u0 result: [2, 3, 0, 0]
; expect pl-u0 result: [2, 3, 0, 0]
;; With u = 9 the kept branch skips d: a, b, c, e, f are scheduled.
; expect pl-u9 trace:
;   sc | in      | next    | cmask   | pmask   | amask   | i
;   a  | ⊥ ⊥ ⊥ ⊥ | a a a a | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 0 0
;   b  | a a a a | b b b b | 1 1 1 1 | 1 1 0 0 | 1 1 0 0 | 0 0 ⊤ ⊤
;   c  | b b b b | c c ⊤ ⊤ | 1 1 1 1 | 1 1 0 0 | 1 1 0 0 | 0 0 ⊤ ⊤
;   e  | c c c c | e e ⊤ ⊤ | 1 1 1 1 | 1 1 0 0 | 1 1 0 0 | 0 0 ⊤ ⊤
;   f  | e e e e | f f ⊤ ⊤ | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □
