;; Thesis Fig. 9.5: a BOSCC gadget on the divergent edge a -> b. The gadget
;; (§9.2) leaves a's phis and commands in a, which ends in the uniform branch
;; `br %any.b, %a.boscc, %j` on `@pllvm.any(mask() ∧ %c)`; the new block a.boscc
;; holds a's divergent branch. Partial linearization keeps the any branch
;; (Theorem 5: a dominates both its edges) and linearizes a.boscc.
;;
;; Block index a, a.boscc, b, j. Listing 8: a uniform: a -> a.boscc, j;
;; a.boscc divergent: next = min{b, j} = b, (b, j) deferred; b: next = j.
;; b is predicated with %c (its edge predicate from a.boscc, whose activation is
;; uniform: it runs with every lane or none).
;;
;; x = 2: lanes 0, 1 (tid < 2) take b, y = 3 · tid stored to @buf[tid];
;; the others return 7. x = -5: no lane takes a -> b, any is false in every lane,
;; and the linearized run goes a -> j: b is not scheduled at all.
@buf = global [4 x i32] zeroinitializer

define i32 @f(i32 %tid, i32 %x) {
a:
  %c = icmp sgt i32 %x, %tid
  br i1 %c, label %b, label %j
b:
  %p = getelementptr [4 x i32], ptr @buf, i32 0, i32 %tid
  %y = mul i32 %tid, 3
  store i32 %y, ptr %p
  br label %j
j:
  %r = phi i32 [ %y, %b ], [ 7, %a ]
  ret i32 %r
}

; transform boscc: --pass boscc,pl --boscc all --uniform-args x
; expect transform boscc cfg:
;   a -> a.boscc, j
;   a.boscc -> b
;   b [p] -> j
;   j -> ret
; run fr-some: --threads 4 --interp fr --arg x=2 --arg tid=0,1,2,3
; run boscc-some: --transform boscc --threads 4 --interp obl --arg x=2 --arg tid=0,1,2,3
; run fr-none: --threads 4 --interp fr --arg x=-5 --arg tid=0,1,2,3
; run boscc-none: --transform boscc --threads 4 --interp obl --arg x=-5 --arg tid=0,1,2,3
; expect fr-some result: [0, 3, 7, 7]
; expect boscc-some result: [0, 3, 7, 7]
; expect fr-some memory: @buf = [0, 3, 0, 0]
; expect boscc-some memory: @buf = [0, 3, 0, 0]
; expect fr-none result: [7, 7, 7, 7]
; expect boscc-none result: [7, 7, 7, 7]
; expect boscc-none trace:
;   sc | in      | next    | cmask   | pmask   | amask   | i
;   a  | ⊥ ⊥ ⊥ ⊥ | a a a a | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 1 1 1 1
;   j  | a a a a | j j j j | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □
