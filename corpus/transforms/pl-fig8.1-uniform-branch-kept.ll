;; Thesis Fig. 8.1: partial linearization keeps the uniform branch in A (on the
;; uniform argument %p) and linearizes the divergent branch in B (on @A[tid]).
;; The calls to slow functions of Fig. 8.1a are arithmetic here: P-LLVM calls
;; only the functions of θ (Def. 11.2).
;;
;; Block index (§2.5): A, B, D, C, E (D before C: the tie between the two
;; successors of B goes by the reverse postorder of the DFS that visits C first).
;; Listing 8: A is uniform, T = ∅: A -> B, E. B is divergent: next = min{C, D} =
;; D, (D, C) deferred. D: T = {C}, S = {E}: next = C, (C, E) deferred. C: T =
;; {E}: next = E. Predicates (§8.4-8.5): C gets %c, D gets ¬%c; A, B and E have
;; a uniform activation (Theorem 4) and no predicate. The phi in E becomes
;; selects on the edge predicates (Fig. 8.4).
;;
;; p = true: @A = [1, 0, 1, 0], so lanes 0 and 2 take C (v = 10·tid: 0, 20),
;; lanes 1 and 3 take D (v = tid + 100: 101, 103); @B[tid] = v.
;; p = false: every lane goes A -> E with v = 0.
@A = global [4 x i32] [i32 1, i32 0, i32 1, i32 0]
@B = global [4 x i32] zeroinitializer

define i32 @foo(i1 %p, i32 %tid) {
A:
  br i1 %p, label %B, label %E
B:
  %a.ptr = getelementptr [4 x i32], ptr @A, i32 0, i32 %tid
  %a = load i32, ptr %a.ptr
  %c = icmp ne i32 %a, 0
  br i1 %c, label %C, label %D
C:
  %vc = mul i32 %tid, 10
  br label %E
D:
  %vd = add i32 %tid, 100
  br label %E
E:
  %v = phi i32 [0, %A], [%vc, %C], [%vd, %D]
  %b.ptr = getelementptr [4 x i32], ptr @B, i32 0, i32 %tid
  store i32 %v, ptr %b.ptr
  ret i32 %v
}

; transform pl: --pass pl --uniform-args p
; expect transform pl cfg:
;   A -> B, E
;   B -> D
;   D [p] -> C
;   C [p] -> E
;   E -> ret
; run fr-p1: --threads 4 --interp fr --arg p=1 --arg tid=0,1,2,3
; run pl-p1: --transform pl --threads 4 --interp obl --arg p=1 --arg tid=0,1,2,3
; run fr-p0: --threads 4 --interp fr --arg p=0 --arg tid=0,1,2,3
; run pl-p0: --transform pl --threads 4 --interp obl --arg p=0 --arg tid=0,1,2,3
; expect fr-p1 result: [0, 101, 20, 103]
; expect pl-p1 result: [0, 101, 20, 103]
; expect fr-p1 memory: @B = [0, 101, 20, 103]
; expect pl-p1 memory: @B = [0, 101, 20, 103]
; expect fr-p0 result: [0, 0, 0, 0]
; expect pl-p0 result: [0, 0, 0, 0]
;; In the linearized run with p = true, D runs for lanes 1 and 3 and C for lanes
;; 0 and 2; a lane with a false predicate leaves with next = ⊤ ([PC-ND-BRANCH]).
; expect pl-p1 trace:
;   sc | in      | next    | cmask   | pmask   | amask   | i
;   A  | ⊥ ⊥ ⊥ ⊥ | A A A A | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 0 0
;   B  | A A A A | B B B B | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 0 0
;   D  | B B B B | D D D D | 1 1 1 1 | 0 1 0 1 | 0 1 0 1 | ⊤ 0 ⊤ 0
;   C  | D D D D | ⊤ C ⊤ C | 1 1 1 1 | 1 0 1 0 | 1 0 1 0 | 0 ⊤ 0 ⊤
;   E  | C C C C | E ⊤ E ⊤ | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □
;; With p = false the uniform branch skips B, C and D.
; expect pl-p0 trace:
;   sc | in      | next    | cmask   | pmask   | amask   | i
;   A  | ⊥ ⊥ ⊥ ⊥ | A A A A | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 1 1 1 1
;   E  | A A A A | E E E E | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □
