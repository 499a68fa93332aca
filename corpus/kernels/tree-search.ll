;; Kernel: data-parallel element search in a binary tree with an explicit stack,
;; thesis Fig. 13.2 (§13.1, benchmark "bt"), with its speculative traversal:
;;   int search(Node *nodes, float *Q, int i) {
;;     int stack[512]; stack[0] = 0; int top = 1;
;;     float elem = Q[i]; int result = -1;
;;     while (top > 0) {
;;       int next = stack[--top];
;;       float label = nodes[next].data;
;;       int right = nodes[next].right, left = nodes[next].left;
;;       if (label == elem) { result = next; break; }
;;       if (any(mask() & (elem < label)) && left > 0)  stack[top++] = left;
;;       if (any(mask() & (label < elem)) && right > 0) stack[top++] = right;
;;     }
;;     return result;
;;   }
;; Written as clang-19 -O1 would emit it (value names kept), with three changes:
;; the nodes are three global arrays @data, @left, @right (structure of arrays)
;; instead of an array of structs; the stack has 16 entries (a per-lane alloca,
;; [W-INST-ALLOCA]); and any and mask are the P-LLVM builtins @pllvm.any and
;; mask(). The operand of any is `select mask(), c, false` with `total`: any
;; reads the operand of every lane, passive ones included (Fig. 4.15), and a lane
;; that already left the loop must contribute false. Without `total` such a lane
;; would keep its operand from an earlier trip under FR (or never have assigned
;; it: ⊤) and could make any true for nobody, or ⊤ (branch on ⊤). This is the
;; "decoupled" activation query of §4.11.1.
;; Because any(...) is uniform, the stack holds the same nodes in every live lane:
;; every node some live lane needs is pushed, and each lane also visits nodes
;; other lanes need. Keys are distinct, so the node a lane finds is the same
;; whatever else it visits, and the W = 1 runs (where any(c) = c: the scalar
;; search) give the same result per lane.
;;
;; The tree (index: key, left, right; 0 = no child, the root 0 is never a child):
;;   0: 8 (1, 2)   1: 4 (3, 4)   2: 12 (5, 6)   3: 2   4: 6   5: 10   6: 14
;; Q = [6.0, 14.0, 8.0, 5.0], lane t searches Q[t] (i = t).
;; Derivation, W = 4 (stack bottom first; "push L/R" when the any is true and the
;; child exists):
;;   trip 1: pop 0 (8). Lane 2 finds 8 -> leaves, result 0. Live 0, 1, 3:
;;           6 < 8 and 5 < 8: push L 1; 14 > 8: push R 2. Stack [1, 2].
;;   trip 2: pop 2 (12). Nobody finds. 6 < 12: push L 5; 14 > 12: push R 6. [1, 5, 6]
;;   trip 3: pop 6 (14). Lane 1 finds 14 -> leaves, result 6. Live 0, 3: both
;;           < 14 but 6 has no left child; nothing > 14. [1, 5]
;;   trip 4: pop 5 (10). 6, 5 < 10, no left child; no push. [1]
;;   trip 5: pop 1 (4). 6 > 4 and 5 > 4: push R 4. [4]
;;   trip 6: pop 4 (6). Lane 0 finds 6 -> leaves, result 4. Lane 3: 5 < 6, no left
;;           child. Stack empty: lane 3 leaves through the latch, result -1.
;; FREEZING: [4, 6, 0, -1]. Alone, lane 0 visits 0, 1, 4 (finds), lane 1 visits
;; 0, 2, 6, lane 2 visits 0, lane 3 visits 0, 1, 4 and empties its stack: the same
;; results (runs lane0 .. lane3).
;; OBLIVIOUS: the result phi in while.end reads %next, which while.body defines.
;; Lane 2 left in trip 1 and lane 1 in trip 3; later passive trips of while.body
;; write ⊤ to their %next: ⊤. Lane 0 left in the last trip of while.body (its
;; passive blocks after that, if.end .. if.end21, do not define %next): 4. Lane 3
;; takes the constant -1. Result [4, ⊤, ⊤, -1].
; run fr: --threads 4 --interp fr --arg i=0,1,2,3 --mem @Q=6.0,14.0,8.0,5.0
; run obl: --threads 4 --interp obl --arg i=0,1,2,3 --mem @Q=6.0,14.0,8.0,5.0
; run lane0: --threads 1 --interp fr --arg i=0 --mem @Q=6.0,14.0,8.0,5.0
; run lane1: --threads 1 --interp fr --arg i=1 --mem @Q=6.0,14.0,8.0,5.0
; run lane2: --threads 1 --interp fr --arg i=2 --mem @Q=6.0,14.0,8.0,5.0
; run lane3: --threads 1 --interp fr --arg i=3 --mem @Q=6.0,14.0,8.0,5.0
; expect outcome: returned
; expect fr result: [4, 6, 0, -1]
; expect obl result: [4, ⊤, ⊤, -1]
;; The schedule (greedy, lowest block index; a block no lane waits for is not
;; scheduled): trips 1 and 2 push both children, trips 3, 4 and 6 push nothing,
;; trip 5 pushes a right child only.
; expect fr schedule: entry, while.body, if.end, if.then9, if.end12, if.then18, if.end21, while.body, if.end, if.then9, if.end12, if.then18, if.end21, while.body, if.end, if.end12, if.end21, while.body, if.end, if.end12, if.end21, while.body, if.end, if.end12, if.then18, if.end21, while.body, if.end, if.end12, if.end21, while.end
; expect obl schedule: entry, while.body, if.end, if.then9, if.end12, if.then18, if.end21, while.body, if.end, if.then9, if.end12, if.then18, if.end21, while.body, if.end, if.end12, if.end21, while.body, if.end, if.end12, if.end21, while.body, if.end, if.end12, if.then18, if.end21, while.body, if.end, if.end12, if.end21, while.end
; expect lane0 result: [4]
; expect lane1 result: [6]
; expect lane2 result: [0]
; expect lane3 result: [-1]

@data = dso_local local_unnamed_addr constant [7 x float] [float 8.000000e+00, float 4.000000e+00, float 1.200000e+01, float 2.000000e+00, float 6.000000e+00, float 1.000000e+01, float 1.400000e+01], align 16
@left = dso_local local_unnamed_addr constant [7 x i32] [i32 1, i32 3, i32 5, i32 0, i32 0, i32 0, i32 0], align 16
@right = dso_local local_unnamed_addr constant [7 x i32] [i32 2, i32 4, i32 6, i32 0, i32 0, i32 0, i32 0], align 16
@Q = external local_unnamed_addr global [4 x float], align 16

define dso_local i32 @search(i32 noundef %i) local_unnamed_addr #0 {
entry:
  %stack = alloca [16 x i32], align 16
  store i32 0, ptr %stack, align 16
  %idxprom = sext i32 %i to i64
  %arrayidx = getelementptr inbounds [4 x float], ptr @Q, i64 0, i64 %idxprom
  %elem = load float, ptr %arrayidx, align 4
  br label %while.body

while.body:
  %top = phi i32 [ 1, %entry ], [ %top.next, %if.end21 ]
  %dec = add nsw i32 %top, -1
  %idxprom1 = zext nneg i32 %dec to i64
  %arrayidx2 = getelementptr inbounds [16 x i32], ptr %stack, i64 0, i64 %idxprom1
  %next = load i32, ptr %arrayidx2, align 4
  %idxprom3 = sext i32 %next to i64
  %data.p = getelementptr inbounds [7 x float], ptr @data, i64 0, i64 %idxprom3
  %label = load float, ptr %data.p, align 4
  %right.p = getelementptr inbounds [7 x i32], ptr @right, i64 0, i64 %idxprom3
  %right = load i32, ptr %right.p, align 4
  %left.p = getelementptr inbounds [7 x i32], ptr @left, i64 0, i64 %idxprom3
  %left = load i32, ptr %left.p, align 4
  %cmp4 = fcmp oeq float %label, %elem
  br i1 %cmp4, label %while.end, label %if.end

if.end:
  %m = mask()
  %cmp5 = fcmp olt float %elem, %label
  %go.left = select i1 %m, i1 %cmp5, i1 false total
  %any.left = call i1 @pllvm.any(i1 %go.left)
  %cmp7 = icmp sgt i32 %left, 0
  %push.left = select i1 %any.left, i1 %cmp7, i1 false
  br i1 %push.left, label %if.then9, label %if.end12

if.then9:
  store i32 %left, ptr %arrayidx2, align 4
  br label %if.end12

if.end12:
  %top1 = phi i32 [ %top, %if.then9 ], [ %dec, %if.end ]
  %m13 = mask()
  %cmp14 = fcmp olt float %label, %elem
  %go.right = select i1 %m13, i1 %cmp14, i1 false total
  %any.right = call i1 @pllvm.any(i1 %go.right)
  %cmp16 = icmp sgt i32 %right, 0
  %push.right = select i1 %any.right, i1 %cmp16, i1 false
  br i1 %push.right, label %if.then18, label %if.end21

if.then18:
  %inc19 = add nsw i32 %top1, 1
  %idxprom20 = sext i32 %top1 to i64
  %arrayidx21 = getelementptr inbounds [16 x i32], ptr %stack, i64 0, i64 %idxprom20
  store i32 %right, ptr %arrayidx21, align 4
  br label %if.end21

if.end21:
  %top.next = phi i32 [ %inc19, %if.then18 ], [ %top1, %if.end12 ]
  %cmp = icmp sgt i32 %top.next, 0
  br i1 %cmp, label %while.body, label %while.end

while.end:
  %result = phi i32 [ %next, %while.body ], [ -1, %if.end21 ]
  ret i32 %result
}

attributes #0 = { nounwind uwtable }
