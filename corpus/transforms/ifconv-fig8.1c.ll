;; Thesis Fig. 8.1c: full if-conversion removes every branch, the uniform one in
;; A included, so B, C and D run (predicated) even when p is false. Compare
;; pl-fig8.1-uniform-branch-kept.ll, where partial linearization keeps A's branch.
;;
;; Block index A, B, D, C, E. Listing 8 with every branch treated as divergent
;; (no loop here to keep): A: next = min{B, E} = B, (B, E); B: T = {E}, S =
;; {C, D}: next = D, (D, C), (D, E); D: T = {C, E}: next = C, (C, E); C: E.
;; Without Theorem 4's elision every block but the entry and the exit is
;; predicated: B with %p, C with %p ∧ %c, D with %p ∧ ¬%c.
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

; transform ifconv: --pass ifconv --uniform-args p
; expect transform ifconv cfg:
;   A -> B
;   B [p] -> D
;   D [p] -> C
;   C [p] -> E
;   E -> ret
; run fr-p1: --threads 4 --interp fr --arg p=1 --arg tid=0,1,2,3
; run ifconv-p1: --transform ifconv --threads 4 --interp obl --arg p=1 --arg tid=0,1,2,3
; run fr-p0: --threads 4 --interp fr --arg p=0 --arg tid=0,1,2,3
; run ifconv-p0: --transform ifconv --threads 4 --interp obl --arg p=0 --arg tid=0,1,2,3
; expect fr-p1 result: [0, 101, 20, 103]
; expect ifconv-p1 result: [0, 101, 20, 103]
; expect fr-p1 memory: @B = [0, 101, 20, 103]
; expect ifconv-p1 memory: @B = [0, 101, 20, 103]
; expect fr-p0 result: [0, 0, 0, 0]
; expect ifconv-p0 result: [0, 0, 0, 0]
;; With p = false every block still runs, with no lane active in B, D and C.
; expect ifconv-p0 trace:
;   sc | in      | next    | cmask   | pmask   | amask   | i
;   A  | ⊥ ⊥ ⊥ ⊥ | A A A A | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 0 0
;   B  | A A A A | B B B B | 1 1 1 1 | 0 0 0 0 | 0 0 0 0 | ⊤ ⊤ ⊤ ⊤
;   D  | B B B B | ⊤ ⊤ ⊤ ⊤ | 1 1 1 1 | 0 0 0 0 | 0 0 0 0 | ⊤ ⊤ ⊤ ⊤
;   C  | D D D D | ⊤ ⊤ ⊤ ⊤ | 1 1 1 1 | 0 0 0 0 | 0 0 0 0 | ⊤ ⊤ ⊤ ⊤
;   E  | C C C C | ⊤ ⊤ ⊤ ⊤ | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □
