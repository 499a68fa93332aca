;; Kernel: all control uniform, data per lane. Every branch depends only on the
;; uniform arguments n (the trip count) and mode (which update the loop applies);
;; each lane reads its own input in[t] (t = thread id) and writes out[t]:
;;   static const int coef[4] = {1, -2, 3, 5};
;;   int in[4], out[4];
;;   int poly(int n, int mode) {
;;     int t = thread_id();
;;     int x = in[t], acc = 0;
;;     for (int k = 0; k < n; k++) {
;;       if (mode == 0) acc = acc * x + coef[k];   // Horner: the polynomial coef
;;       else           acc = acc + x * k;         // x * (0 + 1 + ... + n-1)
;;     }
;;     out[t] = acc;
;;     return acc;
;;   }
;; as clang-19 -O1 emits it (value names kept; LICM hoists mode == 0 into the
;; preheader; clang would fold the two updates into a select, kept as a branch
;; here to have a uniform branch inside the loop). Not a thesis figure: the
;; baseline kernel whose lanes never diverge, so every block runs with the full
;; mask, FREEZING and OBLIVIOUS agree, and no transform has anything to repair
;; (the control-uniform programs of Ch. 4, goal 3, that widen instruction by
;; instruction). The annotations state the uniformity every divergence analysis
;; should find (n, mode uniform; the thread id, in[t] and everything computed from
;; them varying), and the runner checks each `uniform` claim against the runs.
;;
;; Derivation, in = [0, 1, 2, -3]:
;;   mode 0, n = 3: acc = 1, then x - 2, then (x - 2) x + 3 = x^2 - 2x + 3:
;;     x = 0: 3; x = 1: 1 - 2 + 3 = 2; x = 2: 4 - 4 + 3 = 3; x = -3: 9 + 6 + 3 = 18.
;;     [3, 2, 3, 18], and @out = [3, 2, 3, 18].
;;   mode 0, n = 4: one more step, (x^2 - 2x + 3) x + 5: 5, 2 + 5 = 7, 3*2 + 5 = 11,
;;     18*(-3) + 5 = -49.                                       [5, 7, 11, -49]
;;   mode 1, n = 3: acc = 0x + 1x + 2x = 3x:                      [0, 3, 6, -9]
;;   n = 0: the guard skips the loop: acc = 0 everywhere.          [0, 0, 0, 0]
;; Schedule (mode 0, n = 3): entry, for.body.preheader, then for.body, if.then,
;; for.inc three times, for.end; if.else never runs (no lane waits for it). The
;; W = 1 run gives lane 3's input to thread 0: in = [-3, 0, 0, 0], out[0] = 18.
; analyze: --uniform-args n,mode
; run fr: --threads 4 --interp fr --arg n=3 --arg mode=0 --mem @in=0,1,2,-3
; run obl: --threads 4 --interp obl --arg n=3 --arg mode=0 --mem @in=0,1,2,-3
; run fr4: --threads 4 --interp fr --arg n=4 --arg mode=0 --mem @in=0,1,2,-3
; run obl4: --threads 4 --interp obl --arg n=4 --arg mode=0 --mem @in=0,1,2,-3
; run mode1: --threads 4 --interp fr --arg n=3 --arg mode=1 --mem @in=0,1,2,-3
; run mode1-obl: --threads 4 --interp obl --arg n=3 --arg mode=1 --mem @in=0,1,2,-3
; run n0: --threads 4 --interp obl --arg n=0 --arg mode=0 --mem @in=0,1,2,-3
; run lane3: --threads 1 --interp fr --arg n=3 --arg mode=0 --mem @in=-3,0,0,0
; expect outcome: returned
; expect fr result: [3, 2, 3, 18]
; expect fr memory: @out = [3, 2, 3, 18]
; expect obl result: [3, 2, 3, 18]
; expect obl memory: @out = [3, 2, 3, 18]
; expect fr4 result: [5, 7, 11, -49]
; expect fr4 memory: @out = [5, 7, 11, -49]
; expect obl4 result: [5, 7, 11, -49]
; expect obl4 memory: @out = [5, 7, 11, -49]
; expect mode1 result: [0, 3, 6, -9]
; expect mode1 memory: @out = [0, 3, 6, -9]
; expect mode1-obl result: [0, 3, 6, -9]
; expect mode1-obl memory: @out = [0, 3, 6, -9]
; expect n0 result: [0, 0, 0, 0]
; expect n0 memory: @out = [0, 0, 0, 0]
; expect n0 schedule: entry, for.end
; expect lane3 result: [18]
; expect lane3 memory: @out = [18, 0, 0, 0]
; expect fr schedule: entry, for.body.preheader, for.body, if.then, for.inc, for.body, if.then, for.inc, for.body, if.then, for.inc, for.end
; expect obl schedule: entry, for.body.preheader, for.body, if.then, for.inc, for.body, if.then, for.inc, for.body, if.then, for.inc, for.end
; expect mode1 schedule: entry, for.body.preheader, for.body, if.else, for.inc, for.body, if.else, for.inc, for.body, if.else, for.inc, for.end

@coef = internal unnamed_addr constant [4 x i32] [i32 1, i32 -2, i32 3, i32 5], align 16
@in = external local_unnamed_addr global [4 x i32], align 16
@out = dso_local local_unnamed_addr global [4 x i32] zeroinitializer, align 16

define dso_local i32 @poly(i32 noundef %n, i32 noundef %mode) local_unnamed_addr #0 {
entry:                                                        ; expect: uniform
  %t = tail call i32 @pllvm.thread_id()                       ; expect: varying
  %idxprom = zext i32 %t to i64                               ; expect: varying
  %arrayidx = getelementptr inbounds [4 x i32], ptr @in, i64 0, i64 %idxprom
  %x = load i32, ptr %arrayidx, align 4                       ; expect: varying
  %cmp.guard = icmp sgt i32 %n, 0                             ; expect: uniform
  br i1 %cmp.guard, label %for.body.preheader, label %for.end ; expect: uniform

for.body.preheader:                                           ; expect: uniform
  %cmp1 = icmp eq i32 %mode, 0                                ; expect: uniform
  br label %for.body

for.body:                                                     ; expect: uniform
  %k = phi i32 [ %inc, %for.inc ], [ 0, %for.body.preheader ] ; expect: uniform
  %acc = phi i32 [ %acc.next, %for.inc ], [ 0, %for.body.preheader ] ; expect: varying
  br i1 %cmp1, label %if.then, label %if.else                 ; expect: uniform

if.then:                                                      ; expect: uniform
  %mul = mul nsw i32 %acc, %x                                 ; expect: varying
  %idxprom2 = zext nneg i32 %k to i64                         ; expect: uniform
  %arrayidx4 = getelementptr inbounds [4 x i32], ptr @coef, i64 0, i64 %idxprom2
  %c = load i32, ptr %arrayidx4, align 4                      ; expect: uniform
  %add = add nsw i32 %mul, %c                                 ; expect: varying
  br label %for.inc

if.else:                                                      ; expect: uniform
  %mul5 = mul nsw i32 %k, %x                                  ; expect: varying
  %add6 = add nsw i32 %mul5, %acc                             ; expect: varying
  br label %for.inc

for.inc:                                                      ; expect: uniform
  %acc.next = phi i32 [ %add, %if.then ], [ %add6, %if.else ] ; expect: varying
  %inc = add nuw nsw i32 %k, 1                                ; expect: uniform
  %exitcond = icmp eq i32 %inc, %n                            ; expect: uniform
  br i1 %exitcond, label %for.end, label %for.body            ; expect: uniform

for.end:                                                      ; expect: uniform
  %acc.lcssa = phi i32 [ 0, %entry ], [ %acc.next, %for.inc ] ; expect: varying
  %arrayidx7 = getelementptr inbounds [4 x i32], ptr @out, i64 0, i64 %idxprom ; expect: varying
  store i32 %acc.lcssa, ptr %arrayidx7, align 4
  ret i32 %acc.lcssa
}

attributes #0 = { nounwind uwtable }
