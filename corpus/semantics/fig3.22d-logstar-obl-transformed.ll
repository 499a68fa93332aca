;; Thesis Fig. 3.22c/d (§3.6): logstar after the divergent loop transform. The
;; variable exit_loop is true exactly when a lane is about to leave the loop; then
;; i_upd takes the current i_cnt, otherwise it keeps i_out, the value it had in
;; the previous iteration. C uses i_upd instead of i. The result is correct under
;; OBLIVIOUS (and FREEZING): the transform turns FR-correct code into OBL-correct
;; code.
;; The picture of Fig. 3.22c did not survive. Rebuilt from the prose, the names it
;; gives (live, exit_loop, i_cnt, i_upd, i_out) and the trace of Fig. 3.22d; the
;; loop shape is that of fig3.21b-logstar-obl-naive.ll. live has shadow(false) as
;; in §9.1 (irrelevant here: B's cmask is always 1). The selects are total so that
;; i_upd is written on masked-off lanes too, keeping i_out there.
;;
;; Fig. 3.22d, ground truth (⊥ in the thesis table = undefined, ⊤ here):
;;   Block  live    x              i_upd
;;   A      1 1     88.38  1.5     ⊥ ⊥
;;   B      1 1     4.48   0.41    ⊥ 1
;;   B      1 0     1.15   ⊥       ⊥ 1     ("1.15" is a typo for 1.49999)
;;   B      1 0     0.41   ⊥       3 1
;;   C      1 1     0.41   ⊥       3 1
;;
;; Derivation under OBL, n = [88.38, 1.5], schedule A, B, B, B, C:
;;   B1: live [1, 1]; i.cnt [1, 1]; stay [1, 0]; exit = live xor stay = [0, 1];
;;       i.upd = exit ? i.cnt : i.out = [⊤ (i.out from A is undef), 1].
;;   B2: live [1, 0]. t0: i.cnt 2, stay 1, exit 0, i.upd ⊤. t1 (amask 0): i.cnt,
;;       x.log, x.gt.one := ⊤; stay 0; exit 0; i.upd = i.out = 1.
;;   B3: t0: i.cnt 3, x.log 0.4055, stay 0, exit 1, i.upd = 3. t1: i.upd = 1.
;;       any(stay) = 0 -> C.
;;   C:  r = select(n > 1, i.upd, 0) = [3, 1].
;; Under FR the same values result (passive lanes keep instead of ⊤, never read).
; run obl: --threads 2 --interp obl --schedule A,B,B,B,C --arg n=88.38,1.5
; run fr: --threads 2 --interp fr --schedule A,B,B,B,C --arg n=88.38,1.5
; expect outcome: returned
; expect result: [3, 1]
; expect env: %i.upd = [3, 1]
; expect obl env: %i.cnt = [3, ⊤]
; expect trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 0
;   B  | A A | B B  | 1 1   | 1 1   | 1 1   | 0 0
;   B  | B B | B B  | 1 1   | 1 0   | 1 0   | 0 ⊤
;   B  | B B | B ⊤  | 1 1   | 1 0   | 1 0   | 1 ⊤
;   C  | B B | C ⊤  | 1 1   | 1 1   | 1 1   | □ □

define i32 @logstar(double %n) {
A:
  br label %B

B:
  predicate %live
  %live = phi i1 [ true, %A ], [ %stay, %B ] shadow(false)
  %x = phi double [ %n, %A ], [ %x.log, %B ]
  %i = phi i32 [ 0, %A ], [ %i.cnt, %B ]
  %i.out = phi i32 [ undef, %A ], [ %i.upd, %B ]
  %i.cnt = add i32 %i, 1
  %x.log = call double @llvm.log.f64(double %x)
  %x.gt.one = fcmp ogt double %x.log, 1.0
  %stay = select i1 %live, i1 %x.gt.one, i1 false total
  %exit.loop = xor i1 %live, %stay total
  %i.upd = select i1 %exit.loop, i32 %i.cnt, i32 %i.out total
  %any = call i1 @pllvm.any(i1 %stay) total
  br i1 %any, label %B, label %C

C:
  %n.gt.one = fcmp ogt double %n, 1.0
  %r = select i1 %n.gt.one, i32 %i.upd, i32 0
  ret i32 %r
}

declare double @llvm.log.f64(double)
