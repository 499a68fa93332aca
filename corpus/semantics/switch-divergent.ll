;; A `switch` whose lanes all take different successors: [PC-ACTIVE] with
;; successor indices above 1. Successor order follows LLVM: the default is
;; successor 0, case k is successor k + 1. Four lanes (W = 4).
;;
;; Derivation: switch on thread_id: lane 0 -> B (case 0, i = 1), lane 1 -> C
;; (i = 2), lane 2 -> E (i = 3), lane 3 -> D (default, i = 0). Each of B, C, E,
;; D then runs with exactly one active lane, which goes to J; J joins all four
;; from different incoming blocks: r = [10, 11, 12, 99].
; run fr: --threads 4 --interp fr --schedule A,B,C,E,D,J
; run obl: --threads 4 --interp obl --schedule A,B,C,E,D,J
; expect outcome: returned
; expect result: [10, 11, 12, 99]
; expect trace:
;   sc | in      | next    | cmask   | pmask   | amask   | i
;   A  | ⊥ ⊥ ⊥ ⊥ | A A A A | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 1 2 3 0
;   B  | A A A A | B C E D | 1 0 0 0 | 1 1 1 1 | 1 0 0 0 | 0 ⊤ ⊤ ⊤
;   C  | B A A A | J C E D | 0 1 0 0 | 1 1 1 1 | 0 1 0 0 | ⊤ 0 ⊤ ⊤
;   E  | B C A A | J J E D | 0 0 1 0 | 1 1 1 1 | 0 0 1 0 | ⊤ ⊤ 0 ⊤
;   D  | B C E A | J J J D | 0 0 0 1 | 1 1 1 1 | 0 0 0 1 | ⊤ ⊤ ⊤ 0
;   J  | B C E D | J J J J | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  switch i32 %t, label %D [ i32 0, label %B  i32 1, label %C  i32 2, label %E ]

B:
  br label %J

C:
  br label %J

E:
  br label %J

D:
  br label %J

J:
  %r = phi i32 [ 10, %B ], [ 11, %C ], [ 12, %E ], [ 99, %D ]
  ret i32 %r
}
