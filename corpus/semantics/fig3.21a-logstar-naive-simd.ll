;; Thesis Fig. 3.21 (§3.6): the naive SIMD translation of logstar (Fig. 3.21a),
;; which keeps iterating while any(x > 1.0) with every lane active and no
;; predicate. Written as P-LLVM: the loop branch is on @pllvm.any, so it is
;; uniform and both lanes execute every iteration actively.
;;
;; Fig. 3.21b, ground truth (same inputs as Fig. 3.20b, n = [88.38, 1.5]):
;;   Block  x(t0)  x(t1)  i(t0) i(t1)
;;   A      88.38  1.5    0     0
;;   B      4.48   0.41   1     1
;;   B      1.15   nan    2     2
;;   B      0.41   nan    3     3
;;   C      0.41   nan    3     3
;; ("1.15" is the same typo as in Fig. 3.20b; the value is 1.49999.)
;; t1 keeps running: log(0.4055) = -0.9027, log(-0.9027) = nan, nan > 1 is false.
;; any = [1, 1], [1, 1], then [0, 0] after t0's third log: schedule A, B, B, B, C.
;; Result [3, 3]: "the second thread increments the variable i too often". No
;; lane is ever passive, so FR and OBL agree (and both are wrong for t1).
; run fr: --threads 2 --interp fr --schedule A,B,B,B,C --arg n=88.38,1.5
; run obl: --threads 2 --interp obl --schedule A,B,B,B,C --arg n=88.38,1.5
; expect outcome: returned
; expect result: [3, 3]
; expect env: %i.inc = [3, 3]
; expect trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 0
;   B  | A A | B B  | 1 1   | 1 1   | 1 1   | 0 0
;   B  | B B | B B  | 1 1   | 1 1   | 1 1   | 0 0
;   B  | B B | B B  | 1 1   | 1 1   | 1 1   | 1 1
;   C  | B B | C C  | 1 1   | 1 1   | 1 1   | □ □

define i32 @logstar_v2(double %n) {
A:
  br label %B

B:
  %x = phi double [ %n, %A ], [ %x.log, %B ]
  %i = phi i32 [ 0, %A ], [ %i.inc, %B ]
  %i.inc = add i32 %i, 1
  %x.log = call double @llvm.log.f64(double %x)
  %x.gt.one = fcmp ogt double %x.log, 1.0
  %any = call i1 @pllvm.any(i1 %x.gt.one)
  br i1 %any, label %B, label %C

C:
  %n.gt.one = fcmp ogt double %n, 1.0
  %r = select i1 %n.gt.one, i32 %i.inc, i32 0
  ret i32 %r
}

declare double @llvm.log.f64(double)
