;; Kernel: the binary search of XSBench (thesis §13.1, benchmark "xs": "Binary
;; search in sorted array for maximal element below a quarry. This is the
;; inner-most loop of the XSbench benchmark"; the application case study is
;; §13.3). XSBench's grid_search:
;;   long grid_search(long n, double quarry, double *A) {
;;     long lowerLimit = 0, upperLimit = n - 1;
;;     long length = upperLimit - lowerLimit;
;;     while (length > 1) {
;;       long examinationPoint = lowerLimit + length / 2;
;;       if (A[examinationPoint] > quarry) upperLimit = examinationPoint;
;;       else                              lowerLimit = examinationPoint;
;;       length = upperLimit - lowerLimit;
;;     }
;;     return lowerLimit;
;;   }
;; as clang-19 -O1 emits it: the loop is rotated (guard n - 1 > 1 in entry), the
;; if/else becomes two selects, so the loop is one block whose exit condition
;; depends on the lane's quarry: a divergent loop with a gather load per trip. The
;; table is the uniform argument %A pointing at the global @egrid (the energy
;; grid), filled by the run (--mem); the quarry is per lane.
;;
;; Table, n = 8: A = [0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]. Each trip
;; (lower, upper, length -> examination point e = lower + length/2, A[e]):
;;   quarry 5.0:  (0,7,7) e=3 A=4 <= 5 -> lower 3; (3,7,4) e=5 A=16 > 5 -> upper 5;
;;                (3,5,2) e=4 A=8 > 5 -> upper 4; length 1: 3 trips, return 3
;;                (A[3] = 4 <= 5 < 8 = A[4])
;;   quarry 0.5:  (0,7,7) e=3 A=4 > 0.5 -> upper 3; (0,3,3) e=1 A=1 > 0.5 ->
;;                upper 1; length 1: 2 trips, return 0
;;   quarry 63.0: (0,7,7) e=3 -> lower 3; (3,7,4) e=5 A=16 -> lower 5; (5,7,2) e=6
;;                A=32 <= 63 -> lower 6; length 1: 3 trips, return 6
;;   quarry 1.5:  (0,7,7) e=3 A=4 > 1.5 -> upper 3; (0,3,3) e=1 A=1 <= 1.5 ->
;;                lower 1; (1,3,2) e=2 A=2 > 1.5 -> upper 2: 3 trips, return 1
;; FREEZING, quarry = [5.0, 0.5, 63.0, 1.5]: [3, 0, 6, 1] (the W = 1 runs agree).
;; W = 8 adds quarry -1.0 (below the table: like 0.5, 2 trips, 0), 100.0 (above:
;; like 63, 3 trips, 6), 4.0 (e=3 A=4 <= 4 -> lower 3; e=5 A=16 > 4 -> upper 5;
;; e=4 A=8 > 4 -> upper 4: 3) and 16.0 (lower 3; e=5 A=16 <= 16 -> lower 5; e=6
;; A=32 > 16 -> upper 6: 5): [3, 0, 6, 1, 0, 6, 3, 5].
;;
;; Lock step: entry, while.body x 3, while.end. The lanes with 2 trips (quarry 0.5
;; and -1.0) leave after the second while.body and wait at while.end during the
;; third; their gather in the third trip does not happen (amask 0).
;; OBLIVIOUS: that third, passive while.body writes ⊤ to %lower.next of the
;; 2-trip lanes, and while.end's phi reads it afterwards: W = 4 gives
;; [3, ⊤, 6, 1], W = 8 gives [3, ⊤, 6, 1, ⊤, 6, 3, 5].
;; The analysis (and the transforms, in the work-efficiency benchmark) take %n, %A as
;; uniform: every lane of the thread array gets the same value, as in the runs below.
; analyze: --uniform-args n,A
; run fr: --threads 4 --interp fr --arg n=8 --arg quarry=5.0,0.5,63.0,1.5 --arg A=@egrid --mem @egrid=0.0,1.0,2.0,4.0,8.0,16.0,32.0,64.0
; run obl: --threads 4 --interp obl --arg n=8 --arg quarry=5.0,0.5,63.0,1.5 --arg A=@egrid --mem @egrid=0.0,1.0,2.0,4.0,8.0,16.0,32.0,64.0
; run fr8: --threads 8 --interp fr --arg n=8 --arg quarry=5.0,0.5,63.0,1.5,-1.0,100.0,4.0,16.0 --arg A=@egrid --mem @egrid=0.0,1.0,2.0,4.0,8.0,16.0,32.0,64.0
; run obl8: --threads 8 --interp obl --arg n=8 --arg quarry=5.0,0.5,63.0,1.5,-1.0,100.0,4.0,16.0 --arg A=@egrid --mem @egrid=0.0,1.0,2.0,4.0,8.0,16.0,32.0,64.0
; run lane0: --threads 1 --interp fr --arg n=8 --arg quarry=5.0 --arg A=@egrid --mem @egrid=0.0,1.0,2.0,4.0,8.0,16.0,32.0,64.0
; run lane1: --threads 1 --interp fr --arg n=8 --arg quarry=0.5 --arg A=@egrid --mem @egrid=0.0,1.0,2.0,4.0,8.0,16.0,32.0,64.0
; run lane2: --threads 1 --interp fr --arg n=8 --arg quarry=63.0 --arg A=@egrid --mem @egrid=0.0,1.0,2.0,4.0,8.0,16.0,32.0,64.0
; run lane3: --threads 1 --interp fr --arg n=8 --arg quarry=1.5 --arg A=@egrid --mem @egrid=0.0,1.0,2.0,4.0,8.0,16.0,32.0,64.0
; expect outcome: returned
; expect fr result: [3, 0, 6, 1]
; expect obl result: [3, ⊤, 6, 1]
; expect fr8 result: [3, 0, 6, 1, 0, 6, 3, 5]
; expect obl8 result: [3, ⊤, 6, 1, ⊤, 6, 3, 5]
; expect lane0 result: [3]
; expect lane1 result: [0]
; expect lane2 result: [6]
; expect lane3 result: [1]
; expect fr trace:
;   sc         | in                                          | next                                        | cmask   | pmask   | amask   | i
;   entry      | ⊥ ⊥ ⊥ ⊥                                     | entry entry entry entry                     | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 0 0
;   while.body | entry entry entry entry                     | while.body while.body while.body while.body | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 0 0
;   while.body | while.body while.body while.body while.body | while.body while.body while.body while.body | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 1 0 0
;   while.body | while.body while.body while.body while.body | while.body while.end while.body while.body  | 1 0 1 1 | 1 1 1 1 | 1 0 1 1 | 1 ⊤ 1 1
;   while.end  | while.body while.body while.body while.body | while.end while.end while.end while.end     | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □

@egrid = external global [8 x double]

define dso_local i64 @grid_search(i64 noundef %n, double noundef %quarry, ptr nocapture noundef readonly %A) local_unnamed_addr #0 {
entry:
  %sub = add nsw i64 %n, -1
  %cmp.guard = icmp sgt i64 %sub, 1
  br i1 %cmp.guard, label %while.body, label %while.end

while.body:
  %length = phi i64 [ %sub4, %while.body ], [ %sub, %entry ]
  %upperLimit = phi i64 [ %upperLimit.next, %while.body ], [ %sub, %entry ]
  %lowerLimit = phi i64 [ %lowerLimit.next, %while.body ], [ 0, %entry ]
  %div = sdiv i64 %length, 2
  %add = add nsw i64 %div, %lowerLimit
  %arrayidx = getelementptr inbounds double, ptr %A, i64 %add
  %a = load double, ptr %arrayidx, align 8
  %cmp1 = fcmp ogt double %a, %quarry
  %upperLimit.next = select i1 %cmp1, i64 %add, i64 %upperLimit
  %lowerLimit.next = select i1 %cmp1, i64 %lowerLimit, i64 %add
  %sub4 = sub nsw i64 %upperLimit.next, %lowerLimit.next
  %cmp = icmp sgt i64 %sub4, 1
  br i1 %cmp, label %while.body, label %while.end

while.end:
  %lowerLimit.lcssa = phi i64 [ 0, %entry ], [ %lowerLimit.next, %while.body ]
  ret i64 %lowerLimit.lcssa
}

attributes #0 = { nofree norecurse nosync nounwind memory(argmem: read) uwtable }
