;; Kernel: the if-cascade of the hot loop of SPEC2017 644.nab_s, thesis Fig. 9.4
;; (§9.2, BOSCC; the loops of §13.2): a loop over a pair list whose body has two
;; early `continue`s (Fig. 9.4 lines 5 and 7) and a five-way else-if chain (lines
;; 9-13), each case accumulating into the lane's sum. The conditions keep the
;; shape of the figure (rgbmax = 10, the line-5 cutoff 20); the data are integers
;; so every value is exact, and each case adds a different power of ten, so the
;; result reads as a histogram: digit 0 counts line 9, digit 1 line 10, digit 2
;; line 11, digit 3 line 12, digit 4 line 13.
;;   static const int pearlist[6], x[6], fs[6];
;;   int egb(int xi, int ri, int n) {
;;     int sumi = 0;
;;     for (int k = 0; k < n; k++) {
;;       int j = pearlist[k];
;;       int dij = abs(xi - x[j]);
;;       if (dij > 20) continue;                          // line 5
;;       int sj = fs[j];
;;       if (dij > 10 + sj) continue;                     // line 7
;;       if (dij > 10 - sj)            sumi += 1;         // line 9
;;       else if (dij > 4 * sj)        sumi += 10;        // line 10
;;       else if (dij > ri + sj)       sumi += 100;       // line 11
;;       else if (dij > abs(ri - sj))  sumi += 1000;      // line 12
;;       else if (ri < sj)             sumi += 10000;     // line 13
;;     }
;;     return sumi;
;;   }
;; As clang-19 -O1 emits it (value names kept), except that clang would fold
;; these one-add case bodies into selects; nab's bodies are long (logs, derivative
;; updates) and stay branches, so the branches are kept here: they are what the
;; kernel is about. The loop bound n is uniform, xi and ri are per lane: the loop
;; is uniform, the cascade inside it divergent (the branches of Fig. 9.6a).
;;
;; Tables: pearlist = [2, 0, 5, 1, 4, 3], x = [0, 5, 12, 30, 8, 2],
;; fs = [1, 3, 2, 4, 6, 1]. Per trip k: j = pearlist[k], x[j], sj = fs[j] and the
;; thresholds 10 + sj (line 7), 10 - sj (line 9), 4 sj (line 10):
;;   k=0: j=2 x=12 sj=2: 12, 8, 8      k=3: j=1 x=5  sj=3: 13, 7, 12
;;   k=1: j=0 x=0  sj=1: 11, 9, 4      k=4: j=4 x=8  sj=6: 16, 4, 24
;;   k=2: j=5 x=2  sj=1: 11, 9, 4      k=5: j=3 x=30 sj=4: 14, 6, 16
;; Lanes (xi, ri) = (0, 1), (4, 2), (10, 0), (24, 1); dij and the case taken:
;;   lane 0 (0,1):  k0 d=12 > 8: L9 | k1 d=0, not > 2, not > 0, 1 < 1 no: none |
;;                  k2 d=2, not > 2, > |1-1| = 0: L12 | k3 d=5 <= 12, > 4: L11 |
;;                  k4 d=8 > 4: L9 | k5 d=30 > 20: continue.  1+1000+100+1 = 1102
;;   lane 1 (4,2):  k0 d=8, not > 8, > 4: L11 | k1 d=4 <= 4, > 3: L11 |
;;                  k2 d=2, not > 3, > 1: L12 | k3 d=1, not > 5, not > 1, 2 < 3:
;;                  L13 | k4 d=4, not > 4, not > 24, not > 8, not > 4, 2 < 6: L13 |
;;                  k5 d=26 > 20: continue.     100+100+1000+10000+10000 = 21200
;;   lane 2 (10,0): k0 d=2, not > 2, not > 2, 0 < 2: L13 | k1 d=10 > 9: L9 |
;;                  k2 d=8 <= 9, > 4: L10 | k3 d=5, not > 7, not > 12, > 3: L11 |
;;                  k4 d=2, not > 6, not > 6, 0 < 6: L13 | k5 d=20 > 14: continue
;;                  (line 7).                  10000+1+10+100+10000 = 20111
;;   lane 3 (24,1): k0 d=12 > 8: L9 | k1 d=24, k2 d=22 > 20: continue |
;;                  k3 d=19 > 13: continue (line 7) | k4 d=16 > 4: L9 |
;;                  k5 d=6, not > 6, not > 16, > 5: L11.        1+1+100 = 102
;; n = 6: [1102, 21200, 20111, 102]. n = 3 (trips k0-k2 only): lane 0: 1+1000 =
;; 1001, lane 1: 100+100+1000 = 1200, lane 2: 10000+1+10 = 10011, lane 3: 1.
;; Every trip splits the lanes over several cases (k0: L9, L11, L13, L9).
;;
;; OBLIVIOUS gives the same sums: the loop is uniform, so no lane is ever passive
;; in the loop header or in for.inc, where %sumi.next is defined; a case block
;; that runs passively for a lane writes ⊤ only to its own %addN, which the phi in
;; for.inc reads only on the edge that lane did not take, and %dij and %sj, read
;; further down the cascade, come from for.body and if.end, which do not run again
;; before for.inc.
;; The analysis (and the transforms, in the work-efficiency benchmark) take %n as
;; uniform: every lane of the thread array gets the same value, as in the runs below.
; analyze: --uniform-args n
; run fr: --threads 4 --interp fr --arg xi=0,4,10,24 --arg ri=1,2,0,1 --arg n=6
; run obl: --threads 4 --interp obl --arg xi=0,4,10,24 --arg ri=1,2,0,1 --arg n=6
; run fr3: --threads 4 --interp fr --arg xi=0,4,10,24 --arg ri=1,2,0,1 --arg n=3
; run obl3: --threads 4 --interp obl --arg xi=0,4,10,24 --arg ri=1,2,0,1 --arg n=3
; run lane0: --threads 1 --interp fr --arg xi=0 --arg ri=1 --arg n=6
; run lane1: --threads 1 --interp fr --arg xi=4 --arg ri=2 --arg n=6
; run lane2: --threads 1 --interp fr --arg xi=10 --arg ri=0 --arg n=6
; run lane3: --threads 1 --interp fr --arg xi=24 --arg ri=1 --arg n=6
; expect outcome: returned
; expect fr result: [1102, 21200, 20111, 102]
; expect obl result: [1102, 21200, 20111, 102]
; expect fr3 result: [1001, 1200, 10011, 1]
; expect obl3 result: [1001, 1200, 10011, 1]
; expect lane0 result: [1102]
; expect lane1 result: [21200]
; expect lane2 result: [20111]
; expect lane3 result: [102]

@pearlist = internal unnamed_addr constant [6 x i32] [i32 2, i32 0, i32 5, i32 1, i32 4, i32 3], align 16
@x = internal unnamed_addr constant [6 x i32] [i32 0, i32 5, i32 12, i32 30, i32 8, i32 2], align 16
@fs = internal unnamed_addr constant [6 x i32] [i32 1, i32 3, i32 2, i32 4, i32 6, i32 1], align 16

define dso_local i32 @egb(i32 noundef %xi, i32 noundef %ri, i32 noundef %n) local_unnamed_addr #0 {
entry:
  %cmp.guard = icmp sgt i32 %n, 0
  br i1 %cmp.guard, label %for.body, label %for.end

for.body:
  %k = phi i32 [ %inc, %for.inc ], [ 0, %entry ]
  %sumi = phi i32 [ %sumi.next, %for.inc ], [ 0, %entry ]
  %idxprom = zext nneg i32 %k to i64
  %arrayidx = getelementptr inbounds [6 x i32], ptr @pearlist, i64 0, i64 %idxprom
  %j = load i32, ptr %arrayidx, align 4
  %idxprom1 = sext i32 %j to i64
  %arrayidx2 = getelementptr inbounds [6 x i32], ptr @x, i64 0, i64 %idxprom1
  %xj = load i32, ptr %arrayidx2, align 4
  %sub = sub nsw i32 %xi, %xj
  %dij = tail call i32 @llvm.abs.i32(i32 %sub, i1 true)
  %cmp3 = icmp sgt i32 %dij, 20
  br i1 %cmp3, label %for.inc, label %if.end

if.end:
  %arrayidx5 = getelementptr inbounds [6 x i32], ptr @fs, i64 0, i64 %idxprom1
  %sj = load i32, ptr %arrayidx5, align 4
  %add = add nsw i32 %sj, 10
  %cmp6 = icmp sgt i32 %dij, %add
  br i1 %cmp6, label %for.inc, label %if.end8

if.end8:
  %sub9 = sub nsw i32 10, %sj
  %cmp10 = icmp sgt i32 %dij, %sub9
  br i1 %cmp10, label %if.then11, label %if.else

if.then11:
  %add12 = add nsw i32 %sumi, 1
  br label %for.inc

if.else:
  %mul = shl nsw i32 %sj, 2
  %cmp13 = icmp sgt i32 %dij, %mul
  br i1 %cmp13, label %if.then14, label %if.else16

if.then14:
  %add15 = add nsw i32 %sumi, 10
  br label %for.inc

if.else16:
  %add17 = add nsw i32 %sj, %ri
  %cmp18 = icmp sgt i32 %dij, %add17
  br i1 %cmp18, label %if.then19, label %if.else21

if.then19:
  %add20 = add nsw i32 %sumi, 100
  br label %for.inc

if.else21:
  %sub22 = sub nsw i32 %ri, %sj
  %abs = tail call i32 @llvm.abs.i32(i32 %sub22, i1 true)
  %cmp23 = icmp sgt i32 %dij, %abs
  br i1 %cmp23, label %if.then24, label %if.else26

if.then24:
  %add25 = add nsw i32 %sumi, 1000
  br label %for.inc

if.else26:
  %cmp27 = icmp slt i32 %ri, %sj
  br i1 %cmp27, label %if.then28, label %for.inc

if.then28:
  %add29 = add nsw i32 %sumi, 10000
  br label %for.inc

for.inc:
  %sumi.next = phi i32 [ %sumi, %for.body ], [ %sumi, %if.end ], [ %add12, %if.then11 ], [ %add15, %if.then14 ], [ %add20, %if.then19 ], [ %add25, %if.then24 ], [ %add29, %if.then28 ], [ %sumi, %if.else26 ]
  %inc = add nuw nsw i32 %k, 1
  %exitcond = icmp eq i32 %inc, %n
  br i1 %exitcond, label %for.end, label %for.body

for.end:
  %sumi.lcssa = phi i32 [ 0, %entry ], [ %sumi.next, %for.inc ]
  ret i32 %sumi.lcssa
}

declare i32 @llvm.abs.i32(i32, i1 immarg) #1

attributes #0 = { nofree norecurse nosync nounwind memory(none) uwtable }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
