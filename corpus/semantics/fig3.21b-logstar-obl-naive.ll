;; Thesis Fig. 3.22b with §3.6.1: logstar with a loop predicate `live` but without
;; live-out tracking, run under FREEZING and OBLIVIOUS. §3.6.1: "we expect the code
;; in Figure 3.22b to result in the same correct outcome as observed in Figure
;; 3.20b" (FR), yet under OBL "the values for i and x are set to ⊤ in the first
;; iteration after a thread has left (line three for t1)", as in the widened code
;; of Fig. 3.21.
;; The pictures of Fig. 3.22a/b did not survive. Rebuilt from the prose and from
;; the trace of Fig. 3.22d (its live column: [1 1], [1 1], [1 0], [1 0], and its
;; schedule A, B, B, B, C): the loop B is made uniform (it repeats while any lane
;; stays, like Fig. 3.21a) and is predicated by live, a phi of B that is true on
;; entry and then "this lane stays". stay and the any are total so that they are
;; defined on masked-off lanes. How the thesis computed live is not recoverable.
;;
;; Derivation, n = [88.38, 1.5], schedule A, B, B, B, C:
;;   B1: live [1, 1]. x.log = [4.4816, 0.4055], stay = [1, 0], any = 1: i = [0, 0].
;;   B2: both lanes next = B, cmask 1 1; live = [1, 0] so amask 1 0. t0: i.inc 2,
;;       x.log 1.49999, stay 1. t1: phis take i = 1, x = 0.4055 (cmask 1); the
;;       commands are passive: FR keeps i.inc = 1, OBL sets i.inc, x.log and
;;       x.gt.one to ⊤. stay = select(live = 0, ..) = 0. any = 1: t0 i = 0; t1's
;;       amask is 0 so evalterm gives ⊤ and [PC-ND-BRANCH] sets next = ⊤.
;;   B3: t1 next = ⊤ and (B, 0, B) ∈ E: cmask 1 1, amask 1 0. t0: i.inc 3, x.log
;;       0.4055, stay 0. t1's phis now read i.inc / x.log: FR 1 / 0.4055, OBL ⊤.
;;       any = 0: t0 i = 1 (C), t1 i = ⊤ (next stays ⊤).
;;   C:  t0 next = C; t1 next = ⊤ with (B, 1, C) ∈ E: cmask 1 1.
;;       r = select(n > 1, i.inc, 0): FR [3, 1]; OBL [3, ⊤].
; run fr: --threads 2 --interp fr --schedule A,B,B,B,C --arg n=88.38,1.5
; run obl: --threads 2 --interp obl --schedule A,B,B,B,C --arg n=88.38,1.5
; expect outcome: returned
; expect fr result: [3, 1]
; expect fr env: %i.inc = [3, 1]
; expect obl result: [3, ⊤]
; expect obl env: %i.inc = [3, ⊤]
; expect obl env: %i = [2, ⊤]
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
  %live = phi i1 [ true, %A ], [ %stay, %B ]
  %x = phi double [ %n, %A ], [ %x.log, %B ]
  %i = phi i32 [ 0, %A ], [ %i.inc, %B ]
  %i.inc = add i32 %i, 1
  %x.log = call double @llvm.log.f64(double %x)
  %x.gt.one = fcmp ogt double %x.log, 1.0
  %stay = select i1 %live, i1 %x.gt.one, i1 false total
  %any = call i1 @pllvm.any(i1 %stay) total
  br i1 %any, label %B, label %C

C:
  %n.gt.one = fcmp ogt double %n, 1.0
  %r = select i1 %n.gt.one, i32 %i.inc, i32 0
  ret i32 %r
}

declare double @llvm.log.f64(double)
