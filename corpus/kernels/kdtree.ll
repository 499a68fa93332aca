;; Kernel: nearest-neighbour (1-NN) search in a 2-D kd-tree with a per-lane
;; traversal stack, after the kd benchmark of thesis §13.1 ("Nearest Neighbor
;; search (1-NN) with a kd tree"; "we replaced their recursive implementation by
;; an explicit stack"). Unlike tree-search.ll (Fig. 13.2) there is no speculative
;; any(): each lane walks its own path with its own stack, so the branches and the
;; loop exit diverge, and each stack entry carries a bound (the squared distance
;; to the splitting plane) that prunes it when popped, so the trip counts differ.
;;   static const int px[7], py[7], axis[7], left[7], right[7];
;;   int nn(int qx, int qy) {
;;     int snode[8], sbound[8];
;;     int top = 1; snode[0] = 0; sbound[0] = 0;
;;     int best = -1, bestd = INT_MAX;
;;     do {
;;       --top;
;;       int n = snode[top], b = sbound[top];
;;       if (b >= bestd) continue;                      // prune
;;       int dx = qx - px[n], dy = qy - py[n];
;;       int d = dx*dx + dy*dy;
;;       if (d < bestd) { bestd = d; best = n; }
;;       int diff = axis[n] == 0 ? dx : dy;             // signed distance to the plane
;;       int near = diff < 0 ? left[n] : right[n];
;;       int far  = diff < 0 ? right[n] : left[n];
;;       if (far >= 0)  { snode[top] = far;  sbound[top] = diff*diff; top++; }
;;       if (near >= 0) { snode[top] = near; sbound[top] = 0;         top++; }
;;     } while (top > 0);
;;     return best;
;;   }
;; as clang-19 -O1 emits it (value names kept): the two small ifs on the minimum
;; and the ternaries become selects; the stacks are two allocas ([W-INST-ALLOCA]:
;; one object per lane).
;;
;; The tree (node: point, split axis, left, right; -1 = none):
;;   0: (5,5) x  1  2      1: (2,3) y  3  4      2: (8,6) y  5  6
;;   3: (1,1)  4: (3,7)  5: (7,2)  6: (9,9)  (leaves)
;; Derivation, one lane per query; each trip pops (node, bound), "skip" when
;; bound >= bestd, else visits: d, best/bestd after it, diff, and pushes
;; (far, diff^2) then (near, 0):
;;   q = (0,0):  1: 0 d=50 best 0/50, dx=-5: push (2,25),(1,0) | 2: 1 d=4+9=13
;;               best 1/13, dy=-3: push (4,9),(3,0) | 3: 3 d=1+1=2 best 3/2, leaf |
;;               4: (4,9) skip | 5: (2,25) skip.          5 trips, best 3
;;   q = (9,8):  1: 0 d=16+9=25 best 0/25, dx=4: push (1,16),(2,0) | 2: 2 d=1+4=5
;;               best 2/5, dy=2: push (5,4),(6,0) | 3: 6 d=0+1=1 best 6/1 |
;;               4: (5,4) skip | 5: (1,16) skip.          5 trips, best 6
;;   q = (5,5):  1: 0 d=0 best 0/0, dx=0 (not < 0: near = right): push (1,0),
;;               (2,0) | 2: (2,0) skip (0 >= 0) | 3: (1,0) skip. 3 trips, best 0
;;   q = (6,3):  1: 0 d=1+4=5 best 0/5, dx=1: push (1,1),(2,0) | 2: 2 d=4+9=13,
;;               dy=-3: push (6,9),(5,0) | 3: 5 d=1+1=2 best 5/2 | 4: (6,9) skip |
;;               5: (1,1) visit (1 < 2): d=16+0=16, dy=0: push (3,0),(4,0) |
;;               6: 4 d=9+16=25 | 7: 3 d=25+4=29.          7 trips, best 5
;;   q = (3,6):  1: 0 d=4+1=5 best 0/5, dx=-2: push (2,4),(1,0) | 2: 1 d=1+9=10,
;;               dy=3: push (3,9),(4,0) | 3: 4 d=0+1=1 best 4/1 | 4: (3,9) skip |
;;               5: (2,4) skip.                            5 trips, best 4
;;   q = (4,1):  1: 0 d=1+16=17 best 0/17, dx=-1: push (2,1),(1,0) | 2: 1 d=4+4=8
;;               best 1/8, dy=-2: push (4,4),(3,0) | 3: 3 d=9 | 4: 4 d=1+36=37 |
;;               5: 2 d=9+25=41 (1 < 8), dy=-5: push (6,25),(5,0) | 6: 5 d=9+1=10 |
;;               7: (6,25) skip.                           7 trips, best 1
;; Each is the true nearest point (all seven distances: (0,0): 3 at 2, 1 at 13;
;; (9,8): 6 at 1; (6,3): 5 at 2, 0 at 5; (3,6): 4 at 1; (4,1): 1 at 8, 3 at 9).
;; FREEZING, W = 4, q = (0,0), (9,8), (5,5), (6,3): [3, 6, 0, 5]; W = 6 adds (3,6)
;; and (4,1): [3, 6, 0, 5, 4, 1]. The W = 1 runs agree.
;; The W = 4 schedule: every trip runs do.body and do.cond; if.end and if.end2 when
;; some lane visits, if.then / if.then3 when a visited node has a far / near child:
;; trips 1, 2 and 5 visit inner nodes, 3, 6, 7 leaves, 4 only skips. Lane 2 leaves
;; after trip 3, lanes 0 and 1 after trip 5, lane 3 after trip 7.
;; OBLIVIOUS: do.end reads %best.next of do.cond, which runs again, passively, for
;; every lane that left before the last trip: W = 4 gives [⊤, ⊤, ⊤, 5]; W = 6,
;; where lanes 3 and 5 both take 7 trips, gives [⊤, ⊤, ⊤, 5, ⊤, 1].
; run fr: --threads 4 --interp fr --arg qx=0,9,5,6 --arg qy=0,8,5,3
; run obl: --threads 4 --interp obl --arg qx=0,9,5,6 --arg qy=0,8,5,3
; run fr6: --threads 6 --interp fr --arg qx=0,9,5,6,3,4 --arg qy=0,8,5,3,6,1
; run obl6: --threads 6 --interp obl --arg qx=0,9,5,6,3,4 --arg qy=0,8,5,3,6,1
; run lane0: --threads 1 --interp fr --arg qx=0 --arg qy=0
; run lane1: --threads 1 --interp fr --arg qx=9 --arg qy=8
; run lane2: --threads 1 --interp fr --arg qx=5 --arg qy=5
; run lane3: --threads 1 --interp fr --arg qx=6 --arg qy=3
; expect outcome: returned
; expect fr result: [3, 6, 0, 5]
; expect obl result: [⊤, ⊤, ⊤, 5]
; expect fr6 result: [3, 6, 0, 5, 4, 1]
; expect obl6 result: [⊤, ⊤, ⊤, 5, ⊤, 1]
; expect lane0 result: [3]
; expect lane1 result: [6]
; expect lane2 result: [0]
; expect lane3 result: [5]
; expect fr schedule: entry, do.body, if.end, if.then, if.end2, if.then3, do.cond, do.body, if.end, if.then, if.end2, if.then3, do.cond, do.body, if.end, if.end2, do.cond, do.body, do.cond, do.body, if.end, if.then, if.end2, if.then3, do.cond, do.body, if.end, if.end2, do.cond, do.body, if.end, if.end2, do.cond, do.end
; expect obl schedule: entry, do.body, if.end, if.then, if.end2, if.then3, do.cond, do.body, if.end, if.then, if.end2, if.then3, do.cond, do.body, if.end, if.end2, do.cond, do.body, do.cond, do.body, if.end, if.then, if.end2, if.then3, do.cond, do.body, if.end, if.end2, do.cond, do.body, if.end, if.end2, do.cond, do.end

@px = internal unnamed_addr constant [7 x i32] [i32 5, i32 2, i32 8, i32 1, i32 3, i32 7, i32 9], align 16
@py = internal unnamed_addr constant [7 x i32] [i32 5, i32 3, i32 6, i32 1, i32 7, i32 2, i32 9], align 16
@axis = internal unnamed_addr constant [7 x i32] [i32 0, i32 1, i32 1, i32 0, i32 0, i32 0, i32 0], align 16
@left = internal unnamed_addr constant [7 x i32] [i32 1, i32 3, i32 5, i32 -1, i32 -1, i32 -1, i32 -1], align 16
@right = internal unnamed_addr constant [7 x i32] [i32 2, i32 4, i32 6, i32 -1, i32 -1, i32 -1, i32 -1], align 16

define dso_local i32 @nn(i32 noundef %qx, i32 noundef %qy) local_unnamed_addr #0 {
entry:
  %snode = alloca [8 x i32], align 16
  %sbound = alloca [8 x i32], align 16
  store i32 0, ptr %snode, align 16
  store i32 0, ptr %sbound, align 16
  br label %do.body

do.body:
  %top = phi i32 [ 1, %entry ], [ %top.next, %do.cond ]
  %best = phi i32 [ -1, %entry ], [ %best.next, %do.cond ]
  %bestd = phi i32 [ 2147483647, %entry ], [ %bestd.next, %do.cond ]
  %dec = add nsw i32 %top, -1
  %idxprom = zext nneg i32 %dec to i64
  %arrayidx = getelementptr inbounds [8 x i32], ptr %snode, i64 0, i64 %idxprom
  %n = load i32, ptr %arrayidx, align 4
  %arrayidx1 = getelementptr inbounds [8 x i32], ptr %sbound, i64 0, i64 %idxprom
  %b = load i32, ptr %arrayidx1, align 4
  %cmp = icmp slt i32 %b, %bestd
  br i1 %cmp, label %if.end, label %do.cond

if.end:
  %idxprom2 = sext i32 %n to i64
  %arrayidx3 = getelementptr inbounds [7 x i32], ptr @px, i64 0, i64 %idxprom2
  %pxn = load i32, ptr %arrayidx3, align 4
  %dx = sub nsw i32 %qx, %pxn
  %arrayidx4 = getelementptr inbounds [7 x i32], ptr @py, i64 0, i64 %idxprom2
  %pyn = load i32, ptr %arrayidx4, align 4
  %dy = sub nsw i32 %qy, %pyn
  %mul = mul nsw i32 %dx, %dx
  %mul5 = mul nsw i32 %dy, %dy
  %d = add nuw nsw i32 %mul5, %mul
  %cmp6 = icmp slt i32 %d, %bestd
  %bestd1 = select i1 %cmp6, i32 %d, i32 %bestd
  %best1 = select i1 %cmp6, i32 %n, i32 %best
  %arrayidx7 = getelementptr inbounds [7 x i32], ptr @axis, i64 0, i64 %idxprom2
  %ax = load i32, ptr %arrayidx7, align 4
  %cmp8 = icmp eq i32 %ax, 0
  %diff = select i1 %cmp8, i32 %dx, i32 %dy
  %cmp9 = icmp slt i32 %diff, 0
  %arrayidx10 = getelementptr inbounds [7 x i32], ptr @left, i64 0, i64 %idxprom2
  %l = load i32, ptr %arrayidx10, align 4
  %arrayidx11 = getelementptr inbounds [7 x i32], ptr @right, i64 0, i64 %idxprom2
  %r = load i32, ptr %arrayidx11, align 4
  %near = select i1 %cmp9, i32 %l, i32 %r
  %far = select i1 %cmp9, i32 %r, i32 %l
  %cmp12 = icmp sgt i32 %far, -1
  br i1 %cmp12, label %if.then, label %if.end2

if.then:
  store i32 %far, ptr %arrayidx, align 4
  %mul13 = mul nsw i32 %diff, %diff
  store i32 %mul13, ptr %arrayidx1, align 4
  br label %if.end2

if.end2:
  %top2 = phi i32 [ %top, %if.then ], [ %dec, %if.end ]
  %cmp14 = icmp sgt i32 %near, -1
  br i1 %cmp14, label %if.then3, label %do.cond

if.then3:
  %idxprom15 = sext i32 %top2 to i64
  %arrayidx16 = getelementptr inbounds [8 x i32], ptr %snode, i64 0, i64 %idxprom15
  store i32 %near, ptr %arrayidx16, align 4
  %arrayidx17 = getelementptr inbounds [8 x i32], ptr %sbound, i64 0, i64 %idxprom15
  store i32 0, ptr %arrayidx17, align 4
  %inc = add nsw i32 %top2, 1
  br label %do.cond

do.cond:
  %top.next = phi i32 [ %dec, %do.body ], [ %top2, %if.end2 ], [ %inc, %if.then3 ]
  %best.next = phi i32 [ %best, %do.body ], [ %best1, %if.end2 ], [ %best1, %if.then3 ]
  %bestd.next = phi i32 [ %bestd, %do.body ], [ %bestd1, %if.end2 ], [ %bestd1, %if.then3 ]
  %cmp18 = icmp sgt i32 %top.next, 0
  br i1 %cmp18, label %do.body, label %do.end

do.end:
  %best.next.lcssa = phi i32 [ %best.next, %do.cond ]
  ret i32 %best.next.lcssa
}

attributes #0 = { nofree norecurse nosync nounwind memory(none) uwtable }
