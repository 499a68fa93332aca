;; A uniform loop (uniform trip count %n) whose body has a uniform if (on %u) and
;; a divergent if (on the parity of tid + i). Partial linearization keeps the
;; uniform one; full if-conversion linearizes both and keeps only the branch that
;; controls the loop (the latch L, §8.3), so the loop stays a loop.
;;
;; The entry is H's dedicated preheader and L its only latch. Block index entry,
;; H, V, U, M, T, L, X (V before U: the reverse postorder of the DFS that visits
;; U first).
;; pl: H uniform: H -> U, V; V, U: next = M; M divergent: next = min{T, L} = T,
;; (T, L); T: L; L: back edge and X. Only T is predicated (Theorem 4).
;; ifconv: H: next = min{U, V} = V, (V, U); V: T = {U}, S = {M}: next = U,
;; (U, M); U: M; M: T, (T, L); T: L; L keeps its branch. Every block but the entry
;; and the exit is predicated (the header's predicate is a phi of the preheader's
;; and the back edge's).
;;
;; n = 3. u = 1: s = s + 1, then doubled when tid + i is even: even lanes
;; 1 -> 2, 3, 4 -> 8; odd lanes 1, 2 -> 4, 5: [8, 5, 8, 5]. u = 0 (s + 2): even
;; lanes 2 -> 4, 6, 8 -> 16; odd lanes 2, 4 -> 8, 10: [16, 10, 16, 10].
define i32 @f(i32 %tid, i32 %n, i1 %u) {
entry:
  br label %H
H:
  %i = phi i32 [0, %entry], [%i1, %L]
  %s = phi i32 [0, %entry], [%s3, %L]
  br i1 %u, label %U, label %V
U:
  %s1 = add i32 %s, 1
  br label %M
V:
  %s2 = add i32 %s, 2
  br label %M
M:
  %sm = phi i32 [%s1, %U], [%s2, %V]
  %k = add i32 %tid, %i
  %b = and i32 %k, 1
  %c = icmp eq i32 %b, 0
  br i1 %c, label %T, label %L
T:
  %st = mul i32 %sm, 2
  br label %L
L:
  %s3 = phi i32 [%st, %T], [%sm, %M]
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %H, label %X
X:
  ret i32 %s3
}

; transform pl: --pass pl --uniform-args n,u
; expect transform pl cfg:
;   entry -> H
;   H -> U, V
;   V -> M
;   U -> M
;   M -> T
;   T [p] -> L
;   L -> H, X
;   X -> ret
; transform ifconv: --pass ifconv --uniform-args n,u
; expect transform ifconv cfg:
;   entry -> H
;   H [p] -> V
;   V [p] -> U
;   U [p] -> M
;   M [p] -> T
;   T [p] -> L
;   L [p] -> H, X
;   X -> ret
; run fr-u1: --threads 4 --interp fr --arg n=3 --arg u=1 --arg tid=0,1,2,3
; run pl-u1: --transform pl --threads 4 --interp obl --arg n=3 --arg u=1 --arg tid=0,1,2,3
; run ifconv-u1: --transform ifconv --threads 4 --interp obl --arg n=3 --arg u=1 --arg tid=0,1,2,3
; run fr-u0: --threads 4 --interp fr --arg n=3 --arg u=0 --arg tid=0,1,2,3
; run pl-u0: --transform pl --threads 4 --interp obl --arg n=3 --arg u=0 --arg tid=0,1,2,3
; run ifconv-u0: --transform ifconv --threads 4 --interp obl --arg n=3 --arg u=0 --arg tid=0,1,2,3
; expect fr-u1 result: [8, 5, 8, 5]
; expect pl-u1 result: [8, 5, 8, 5]
; expect ifconv-u1 result: [8, 5, 8, 5]
; expect fr-u0 result: [16, 10, 16, 10]
; expect pl-u0 result: [16, 10, 16, 10]
; expect ifconv-u0 result: [16, 10, 16, 10]
