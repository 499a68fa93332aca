;; Thesis Fig. 3.20 (§3.6): the logstar function, how often log can be applied to n
;; before the value drops to 1.0 or below, run in lock step by two threads with
;; n = [88.38, 1.5]. Fig. 3.20a is the source; its CFG form is Fig. 3.22a (A sets
;; x = n, i = 0; the loop B does i += 1, x = log(x) while x > 1.0; C returns
;; select(n > 1.0, i, 0)). log is LLVM's @llvm.log.f64 (the thesis assumes log
;; silently returns nan for x <= 0; LLVM's log does).
;;
;; Fig. 3.20b, ground truth (x and i after each block):
;;   Block  x(t0)  x(t1)  i(t0) i(t1)
;;   A      88.38  1.5    0     0
;;   B      4.48   0.41   1     1
;;   B      1.15          2          (t1 has left the loop, executes passively)
;;   B      0.41          3
;;   C      0.41   0.41   3     1
;; "1.15" in the thesis is a typo: log(4.4816) = 1.49999; log(1.49999) = 0.40546.
;;
;; Derivation. Schedule A, B, B, B, C.
;;   B (1st): both active. x.log = [4.4816, 0.4055]: t0 stays (i = 0), t1 exits
;;            (i = 1, next C). i.inc = [1, 1].
;;   B (2nd, 3rd): t1 has next = C, so cmask 0 ([PC-PASSIVE]). t0: i.inc = 2, 3;
;;            x.log = 1.49999 (stay), then 0.40546 (exit).
;;   C: both next = C. r = select(n > 1, i.inc, 0).
;; FR (updenv keeps passive lanes' values): i.inc = [3, 1], result [3, 1], the
;;   answer of running each lane alone (runs lane0 / lane1 with W = 1).
;; OBL (updenv writes ⊤ on passive lanes): B's second execution sets t1's i, x,
;;   i.inc, x.log to ⊤, so t1 returns ⊤. The thesis (§4.6): "This is why the OBL
;;   interpretation of Figure 3.20a is not a faithful interpretation of the scalar
;;   code."
; run fr: --threads 2 --interp fr --schedule A,B,B,B,C --arg n=88.38,1.5
; run obl: --threads 2 --interp obl --schedule A,B,B,B,C --arg n=88.38,1.5
; run lane0: --threads 1 --interp fr --schedule A,B,B,B,C --arg n=88.38
; run lane1: --threads 1 --interp fr --schedule A,B,C --arg n=1.5
; expect outcome: returned
; expect fr result: [3, 1]
; expect fr env: %i.inc = [3, 1]
; expect obl result: [3, ⊤]
; expect obl env: %i.inc = [3, ⊤]
; expect lane0 result: [3]
; expect lane1 result: [1]
; expect fr trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 0
;   B  | A A | B B  | 1 1   | 1 1   | 1 1   | 0 1
;   B  | B B | B C  | 1 0   | 1 1   | 1 0   | 0 ⊤
;   B  | B B | B C  | 1 0   | 1 1   | 1 0   | 1 ⊤
;   C  | B B | C C  | 1 1   | 1 1   | 1 1   | □ □
; expect obl trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 0
;   B  | A A | B B  | 1 1   | 1 1   | 1 1   | 0 1
;   B  | B B | B C  | 1 0   | 1 1   | 1 0   | 0 ⊤
;   B  | B B | B C  | 1 0   | 1 1   | 1 0   | 1 ⊤
;   C  | B B | C C  | 1 1   | 1 1   | 1 1   | □ □

define i32 @logstar(double %n) {
A:
  br label %B

B:
  %x = phi double [ %n, %A ], [ %x.log, %B ]
  %i = phi i32 [ 0, %A ], [ %i.inc, %B ]
  %i.inc = add i32 %i, 1
  %x.log = call double @llvm.log.f64(double %x)
  %x.gt.one = fcmp ogt double %x.log, 1.0
  br i1 %x.gt.one, label %B, label %C

C:
  %n.gt.one = fcmp ogt double %n, 1.0
  %r = select i1 %n.gt.one, i32 %i.inc, i32 0
  ret i32 %r
}

declare double @llvm.log.f64(double)
