;; Kernel: logstar, the iterated logarithm of thesis §3.6 (Fig. 3.20a), as a
;; divergent loop: how often log can be applied to n before the value drops to
;; 1.0 or below; n <= 1.0 gives 0. The C source is the thesis's
;;   int logstar(double n) {
;;     double x = n; int i = 0;
;;     do { i += 1; x = log(x); } while (x > 1.0);
;;     return n > 1.0 ? i : 0;
;;   }
;; written as clang-19 -O1 emits it (value names kept, as with
;; -fno-discard-value-names): one loop block do.body, the C library call @log, the
;; conditional return a select. The same program for two lanes is
;; semantics/fig3.20b-logstar-fr.ll; here four lanes leave the loop in three
;; different iterations.
;;
;; Inputs n = [88.38, 1.5, 0.5, 1.0e10] (one per lane). The chain of logs, with
;; ln 88.38 = 4.4816 (e^1.5 = 4.4817, so ln 4.4816 = 1.49999...),
;; ln 10^10 = 10 ln 10 = 23.0259, ln 23.0259 = 3.1366, ln 3.1366 = 1.1432:
;;   lane 0, n = 88.38:  4.4816 > 1, 1.49999 > 1, 0.4055 <= 1  -> 3 trips, i = 3
;;   lane 1, n = 1.5:    0.4055 <= 1                           -> 1 trip,  i = 1
;;   lane 2, n = 0.5:    -0.6931 <= 1                          -> 1 trip,  i = 1
;;   lane 3, n = 1.0e10: 23.0259, 3.1366, 1.1432 > 1, 0.1338   -> 4 trips, i = 4
;; The return is select(n > 1.0, i, 0): lane 2 has n <= 1, so 0. No intermediate
;; value is within 0.14 of 1.0, so rounding cannot move a decision.
;;
;; FREEZING: every lane computes what it computes alone: [3, 1, 0, 4] (the runs
;; lane0 .. lane3 with W = 1).
;; Lock-step schedule (greedy, lowest block index): entry, do.body x 4, do.end.
;; Lanes 1 and 2 leave after the first do.body, lane 0 after the third, lane 3
;; after the fourth; the exited lanes wait at do.end (cmask 0) while do.body runs.
;;
;; OBLIVIOUS (thesis Fig. 3.21, §4.6): a passive execution of do.body writes ⊤ to
;; its variables in the lanes that already left ([UPD-ENV]). do.end reads %inc,
;; so every lane that left before the last (4th) do.body reads ⊤: lanes 0 and 1
;; return ⊤. Lane 2 returns select(false, ⊤, 0) = 0 (an unselected ⊤ does not
;; propagate), lane 3 left in the last iteration and keeps 4. Result [⊤, ⊤, 0, 4]:
;; the naive SIMD reading of a divergent loop is not faithful, which is what the
;; divergent loop transform (thesis §9.1, Fig. 3.22c) repairs.
; run fr: --threads 4 --interp fr --arg n=88.38,1.5,0.5,1.0e10
; run obl: --threads 4 --interp obl --arg n=88.38,1.5,0.5,1.0e10
; run lane0: --threads 1 --interp fr --arg n=88.38
; run lane1: --threads 1 --interp fr --arg n=1.5
; run lane2: --threads 1 --interp fr --arg n=0.5
; run lane3: --threads 1 --interp fr --arg n=1.0e10
; expect outcome: returned
; expect fr result: [3, 1, 0, 4]
; expect fr env: %inc = [3, 1, 1, 4]
; expect obl result: [⊤, ⊤, 0, 4]
; expect obl env: %inc = [⊤, ⊤, ⊤, 4]
; expect lane0 result: [3]
; expect lane1 result: [1]
; expect lane2 result: [0]
; expect lane3 result: [4]
;; The trace of both W = 4 runs (the interpretations differ in values, not in
;; control): i = 0 stays in do.body, 1 leaves.
; expect fr trace:
;   sc      | in                              | next                            | cmask   | pmask   | amask   | i
;   entry   | ⊥ ⊥ ⊥ ⊥                         | entry entry entry entry         | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 0 0
;   do.body | entry entry entry entry         | do.body do.body do.body do.body | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 1 1 0
;   do.body | do.body do.body do.body do.body | do.body do.end do.end do.body   | 1 0 0 1 | 1 1 1 1 | 1 0 0 1 | 0 ⊤ ⊤ 0
;   do.body | do.body do.body do.body do.body | do.body do.end do.end do.body   | 1 0 0 1 | 1 1 1 1 | 1 0 0 1 | 1 ⊤ ⊤ 0
;   do.body | do.body do.body do.body do.body | do.end do.end do.end do.body    | 0 0 0 1 | 1 1 1 1 | 0 0 0 1 | ⊤ ⊤ ⊤ 1
;   do.end  | do.body do.body do.body do.body | do.end do.end do.end do.end     | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □
; expect obl trace:
;   sc      | in                              | next                            | cmask   | pmask   | amask   | i
;   entry   | ⊥ ⊥ ⊥ ⊥                         | entry entry entry entry         | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 0 0
;   do.body | entry entry entry entry         | do.body do.body do.body do.body | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 1 1 0
;   do.body | do.body do.body do.body do.body | do.body do.end do.end do.body   | 1 0 0 1 | 1 1 1 1 | 1 0 0 1 | 0 ⊤ ⊤ 0
;   do.body | do.body do.body do.body do.body | do.body do.end do.end do.body   | 1 0 0 1 | 1 1 1 1 | 1 0 0 1 | 1 ⊤ ⊤ 0
;   do.body | do.body do.body do.body do.body | do.end do.end do.end do.body    | 0 0 0 1 | 1 1 1 1 | 0 0 0 1 | ⊤ ⊤ ⊤ 1
;   do.end  | do.body do.body do.body do.body | do.end do.end do.end do.end     | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □

define dso_local i32 @logstar(double noundef %n) local_unnamed_addr #0 {
entry:
  br label %do.body

do.body:
  %x.0 = phi double [ %n, %entry ], [ %call, %do.body ]
  %i.0 = phi i32 [ 0, %entry ], [ %inc, %do.body ]
  %inc = add nuw nsw i32 %i.0, 1
  %call = tail call double @log(double noundef %x.0) #2
  %cmp = fcmp ogt double %call, 1.000000e+00
  br i1 %cmp, label %do.body, label %do.end

do.end:
  %cmp1 = fcmp ogt double %n, 1.000000e+00
  %cond = select i1 %cmp1, i32 %inc, i32 0
  ret i32 %cond
}

declare double @log(double noundef) local_unnamed_addr #1

attributes #0 = { nounwind uwtable }
attributes #1 = { nounwind }
attributes #2 = { nounwind }
