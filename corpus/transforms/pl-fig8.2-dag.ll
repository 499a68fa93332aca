;; A DAG after thesis Fig. 8.2a (Karrenberg's example). The figure is a picture
;; that did not survive; this DAG is rebuilt from the walkthrough of §8.1: `a`
;; ends in a uniform branch, `b` in a divergent one to `d` and `e`, and the
;; deferrals travel over several blocks before the deferred block is reached.
;; The divergent conditions compare the thread id; %u is uniform.
;;
;; Block index (§2.5; dominance-compact, ties by the reverse postorder of the
;; DFS): a, c, g, f, j, b, e, i, d, h, k.
;; Listing 8, with T the deferred targets of the block visited:
;;   a  uniform, T = ∅:              a -> b, c
;;   c  divergent, S = {f, g}:       next = g, defers (g, f)
;;   g  T = {f}, S = {j}:            next = f, defers (f, j)
;;   f  T = {j}, S = {j}:            next = j
;;   j  S = {k}:                     next = k
;;   b  divergent, S = {d, e}:       next = e, defers (e, d)
;;   e  divergent, T = {d}, S = {h, i}: next = i, defers (i, d), (i, h)
;;   i  T = {d, h}, S = {k}:         next = d, defers (d, h), (d, k)
;;   d  T = {h, k}, S = {h}:         next = h, defers (h, k)
;;   h  T = {k}, S = {k}:            next = k
;; Predicates: the blocks under the divergent branches (g, f, e, i, d, h) are
;; predicated; a, c, j, b and k have a uniform activation (Theorem 4).
;;
;; u = 1 (a -> b): lanes 0, 1 go d (tid + 10: 10, 11) -> h -> k; lane 2 goes
;; e (22), not 3, -> i (2 · 22 = 44); lane 3 goes e (23) -> h -> k: 23.
;; u = 0 (a -> c): lane 1 goes f (31) -> j; the others g (tid + 40: 40, 42, 43).
define i32 @dag(i32 %u, i32 %tid) {
a:
  %ua = icmp sgt i32 %u, 0
  br i1 %ua, label %b, label %c
b:
  %vb = icmp slt i32 %tid, 2
  br i1 %vb, label %d, label %e
c:
  %vc = icmp eq i32 %tid, 1
  br i1 %vc, label %f, label %g
d:
  %xd = add i32 %tid, 10
  br label %h
e:
  %xe = add i32 %tid, 20
  %ve = icmp eq i32 %tid, 3
  br i1 %ve, label %h, label %i
f:
  %xf = add i32 %tid, 30
  br label %j
g:
  %xg = add i32 %tid, 40
  br label %j
h:
  %xh = phi i32 [ %xd, %d ], [ %xe, %e ]
  br label %k
i:
  %xi = mul i32 %xe, 2
  br label %k
j:
  %xj = phi i32 [ %xf, %f ], [ %xg, %g ]
  br label %k
k:
  %r = phi i32 [ %xh, %h ], [ %xi, %i ], [ %xj, %j ]
  ret i32 %r
}

; transform pl: --pass pl --uniform-args u
; expect transform pl cfg:
;   a -> b, c
;   c -> g
;   g [p] -> f
;   f [p] -> j
;   j -> k
;   b -> e
;   e [p] -> i
;   i [p] -> d
;   d [p] -> h
;   h [p] -> k
;   k -> ret
; run fr-u1: --threads 4 --interp fr --arg u=1 --arg tid=0,1,2,3
; run pl-u1: --transform pl --threads 4 --interp obl --arg u=1 --arg tid=0,1,2,3
; run fr-u0: --threads 4 --interp fr --arg u=0 --arg tid=0,1,2,3
; run pl-u0: --transform pl --threads 4 --interp obl --arg u=0 --arg tid=0,1,2,3
; expect fr-u1 result: [10, 11, 44, 23]
; expect pl-u1 result: [10, 11, 44, 23]
; expect fr-u0 result: [40, 31, 42, 43]
; expect pl-u0 result: [40, 31, 42, 43]
;; Every greedy schedule: the original has one outcome under FR for each u, and
;; the linearized program has exactly that outcome under OBL (the stage-wise
;; correctness claim of docs/transforms.md, "How correctness is checked").
; run fr-u1-all: --threads 4 --interp fr --explore --arg u=1 --arg tid=0,1,2,3
; run pl-u1-all: --transform pl --threads 4 --interp obl --explore --arg u=1 --arg tid=0,1,2,3
; run fr-u0-all: --threads 4 --interp fr --explore --arg u=0 --arg tid=0,1,2,3
; run pl-u0-all: --transform pl --threads 4 --interp obl --explore --arg u=0 --arg tid=0,1,2,3
; expect fr-u1-all outcomes: [10, 11, 44, 23]
; expect pl-u1-all outcomes: [10, 11, 44, 23]
; expect fr-u0-all outcomes: [40, 31, 42, 43]
; expect pl-u0-all outcomes: [40, 31, 42, 43]
