;; [W-CMD-MASK] (Fig. 4.12): `mask()` returns the activation amask of the block,
;; and assigns it to every lane, passive ones included (0 there, not ⊤, under both
;; FR and OBL). Four lanes (W = 4), a divergent branch (even lanes -> B, odd ->
;; C), and B is also predicated by t != 2, so mask() is amask = cmask ∧ pmask
;; (Def. 8), not the control mask.
;;
;; Derivation:
;;   A: i = [0, 1, 0, 1] (even -> B is successor 0).
;;   B: cmask 1 0 1 0, pmask (t != 2) 1 1 0 1, amask 1 0 0 0. m = [1, 0, 0, 0];
;;      mz = zext m = [1, 0, 0, 0] (total); bal = ballot(m) total = 1 (bit 0).
;;      Lane 0: i = 0 -> D. Lane 2: cmask 1, amask 0 -> i = ⊤, next = ⊤.
;;   C: lane 0 next D; lane 2 next ⊤ but C is not a successor of B: cmask 0;
;;      lanes 1, 3 next C: cmask 0 1 0 1 = amask. m2 = [0, 1, 0, 1], bal2 = 2 + 8.
;;   D: cmask 1 1 1 1 (lane 2 via ⊤ and (B, 0, D) ∈ E). Lanes 0, 2 come from B,
;;      lanes 1, 3 from C: r = [1, 10, 1, 10].
; run fr: --threads 4 --interp fr --schedule A,B,C,D
; run obl: --threads 4 --interp obl --schedule A,B,C,D
; expect outcome: returned
; expect result: [1, 10, 1, 10]
; expect env: %mz = [1, 0, 0, 0]
; expect env: %mz2 = [0, 1, 0, 1]
; expect trace:
;   sc | in      | next    | cmask   | pmask   | amask   | i
;   A  | ⊥ ⊥ ⊥ ⊥ | A A A A | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 1 0 1
;   B  | A A A A | B C B C | 1 0 1 0 | 1 1 0 1 | 1 0 0 0 | 0 ⊤ ⊤ ⊤
;   C  | B A B A | D C ⊤ C | 0 1 0 1 | 1 1 1 1 | 0 1 0 1 | ⊤ 0 ⊤ 0
;   D  | B C B C | D D ⊤ D | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %odd = and i32 %t, 1
  %even = icmp eq i32 %odd, 0
  %not2 = icmp ne i32 %t, 2
  br i1 %even, label %B, label %C

B:
  predicate %not2
  %m = mask()
  %mz = zext i1 %m to i32 total
  %bal = call i32 @pllvm.ballot(i1 %m) total
  br label %D

C:
  %m2 = mask()
  %mz2 = zext i1 %m2 to i32 total
  %bal2 = call i32 @pllvm.ballot(i1 %m2) total
  br label %D

D:
  %r = phi i32 [ %bal, %B ], [ %bal2, %C ]
  ret i32 %r
}
