;; [W-CMD-TOTAL] (Fig. 4.12, Fig. 4.13b): a total instruction executes with every
;; lane enabled (amask replaced by 1^W), even in a block where some lanes are
;; passive, and its result is then used by those lanes. Compare the non-total twin
;; v, which passive lanes do not compute. Three lanes (W = 3).
;; Also Def. 10.2: a total definition has definition mask 1, so the strict run
;; finds no violation when lanes 0 and 2 read u in C.
;;
;; Derivation, p = (thread_id == 1) = [0, 1, 0]:
;;   B: cmask 1 1 1, pmask 0 1 0, amask 0 1 0.
;;      u = t * 10 total = [0, 10, 20] for every lane.
;;      v = t * 10 = [-, 10, -]: OBL writes ⊤ on lanes 0 and 2 (FR: unassigned).
;;      Lanes 0, 2: amask 0 -> i = ⊤ -> [PC-ND-BRANCH], next = ⊤.
;;   C: lanes 0, 2 next = ⊤ with (B, 0, C) ∈ E, lane 1 next = C: cmask 1 1 1.
;;      r = u + 1 = [1, 11, 21].
; run fr: --threads 3 --interp fr --schedule A,B,C
; run obl: --threads 3 --interp obl --schedule A,B,C
; run strict: --threads 3 --interp obl --strict --schedule A,B,C
; expect outcome: returned
; expect result: [1, 11, 21]
; expect env: %u = [0, 10, 20]
; expect obl env: %v = [⊤, 10, ⊤]
; expect trace:
;   sc | in    | next  | cmask | pmask | amask | i
;   A  | ⊥ ⊥ ⊥ | A A A | 1 1 1 | 1 1 1 | 1 1 1 | 0 0 0
;   B  | A A A | B B B | 1 1 1 | 0 1 0 | 0 1 0 | ⊤ 0 ⊤
;   C  | B B B | ⊤ C ⊤ | 1 1 1 | 1 1 1 | 1 1 1 | □ □ □

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %p = icmp eq i32 %t, 1
  br label %B

B:
  predicate %p
  %u = mul i32 %t, 10 total
  %v = mul i32 %t, 10
  br label %C

C:
  %r = add i32 %u, 1
  ret i32 %r
}
