;; Kernel: Mandelbrot escape time, a divergent loop with float math and two exits
;; (the escape test in the header, the iteration bound in the latch). Each lane
;; iterates z <- z^2 + c from z = 0 for its own c = (cx, cy) and returns the number
;; of completed iterations before |z|^2 > 4, at most maxit (uniform):
;;   int mandel(float cx, float cy, int maxit) {
;;     float x = 0, y = 0; int i = 0;
;;     while (i < maxit && x*x + y*y <= 4.0f) {
;;       float xt = x*x - y*y + cx;
;;       y = 2*x*y + cy;  x = xt;  i++;
;;     }
;;     return i;
;;   }
;; as clang-19 -O1 -ffp-contract=off emits it (no fmuladd; value names kept):
;; the loop is rotated, the guard maxit > 0 in entry, the escape test at the top
;; of while.body, the bound test at the bottom of if.end. Not a thesis figure: the
;; classic SPMD example of a loop whose trip count is the lane's data.
;;
;; Inputs are small dyadic points, so every float operation below is exact and
;; the escape counts follow from rational arithmetic (maxit = 16):
;;   c = (0, 0):    z stays 0, |z|^2 = 0 forever                    -> 16 (bound)
;;   c = (1, 0):    z1 = 1, z2 = 1 + 1 = 2, z3 = 4 + 1 = 5; the tests see
;;                  |z0|^2 = 0, |z1|^2 = 1, |z2|^2 = 4 (not > 4), |z3|^2 = 25 -> 3
;;   c = (0.5, 0):  z = 0.5, 0.75, 1.0625, 1.62890625 (= 417/256),
;;                  3.15333557... (= 206657/65536); |z4|^2 = 2.6533 <= 4,
;;                  |z5|^2 = 9.94 > 4                                   -> 5
;;   c = (1, 1):    z1 = (0 - 0 + 1, 0 + 1) = (1, 1), |z1|^2 = 2;
;;                  z2 = (1 - 1 + 1, 2*1*1 + 1) = (1, 3), |z2|^2 = 10 > 4 -> 2
;;   c = (2, 0):    z1 = 2 (|z1|^2 = 4, not > 4), z2 = 6, 36 > 4          -> 2
;;   c = (-2, 0):   z = -2, 2, 2, 2, ...; |z|^2 = 4 never exceeds 4       -> 16
;;   c = (0, 1):    z = (0, 1), (-1, 1), (0, -1), (-1, 1), ... (period 2),
;;                  |z|^2 <= 2                                          -> 16
;;   c = (3, 0):    z1 = 3, |z1|^2 = 9 > 4                               -> 1
;;
;; FREEZING, W = 4, c = (0,0), (1,0), (0.5,0), (1,1): [16, 3, 5, 2], each lane's
;; own count (the W = 1 runs). W = 8 with the other four points added:
;; [16, 3, 5, 2, 2, 16, 16, 1].
;;
;; A lane that escapes leaves from while.body and returns %i; a lane that reaches
;; the bound leaves from if.end, where %inc = maxit, and the exit phi reads
;; %maxit itself (IndVarSimplify rewrites that exit value, as at -O1).
;;
;; OBLIVIOUS. While.body runs 16 times (lane 0 never escapes); every later
;; passive execution of while.body writes ⊤ to %i of the lanes that already left,
;; and while.end's phi reads %i only at the end. Lanes 1, 2, 3 escaped in
;; while.body at i = 3, 5, 2, long before the 16th execution: ⊤. Lane 0 leaves
;; from the last if.end and reads the argument %maxit, which no block writes: 16.
;; Result [16, ⊤, ⊤, ⊤]. With W = 8, the lanes that reach the bound (0, 5, 6)
;; leave together from the last if.end and return %maxit = 16; the five that
;; escape read ⊤: [16, ⊤, ⊤, ⊤, ⊤, 16, 16, ⊤].
;; When no lane leaves early, OBL is right: c = (2, 0) and (1, 1) both escape at
;; i = 2 in the same (third) while.body, so nothing runs passively after it:
;; [2, 2] (run obl-same-trip).
;; The analysis (and the transforms, in the work-efficiency benchmark) take %maxit as
;; uniform: every lane of the thread array gets the same value, as in the runs below.
; analyze: --uniform-args maxit
; run fr: --threads 4 --interp fr --arg cx=0.0,1.0,0.5,1.0 --arg cy=0.0,0.0,0.0,1.0 --arg maxit=16
; run obl: --threads 4 --interp obl --arg cx=0.0,1.0,0.5,1.0 --arg cy=0.0,0.0,0.0,1.0 --arg maxit=16
; run fr8: --threads 8 --interp fr --arg cx=0.0,1.0,0.5,1.0,2.0,-2.0,0.0,3.0 --arg cy=0.0,0.0,0.0,1.0,0.0,0.0,1.0,0.0 --arg maxit=16
; run obl8: --threads 8 --interp obl --arg cx=0.0,1.0,0.5,1.0,2.0,-2.0,0.0,3.0 --arg cy=0.0,0.0,0.0,1.0,0.0,0.0,1.0,0.0 --arg maxit=16
; run obl-same-trip: --threads 2 --interp obl --arg cx=2.0,1.0 --arg cy=0.0,1.0 --arg maxit=16
; run lane0: --threads 1 --interp fr --arg cx=0.0 --arg cy=0.0 --arg maxit=16
; run lane1: --threads 1 --interp fr --arg cx=1.0 --arg cy=0.0 --arg maxit=16
; run lane2: --threads 1 --interp fr --arg cx=0.5 --arg cy=0.0 --arg maxit=16
; run lane3: --threads 1 --interp fr --arg cx=1.0 --arg cy=1.0 --arg maxit=16
; expect outcome: returned
; expect fr result: [16, 3, 5, 2]
; expect obl result: [16, ⊤, ⊤, ⊤]
; expect fr8 result: [16, 3, 5, 2, 2, 16, 16, 1]
; expect obl8 result: [16, ⊤, ⊤, ⊤, ⊤, 16, 16, ⊤]
; expect obl-same-trip result: [2, 2]
; expect lane0 result: [16]
; expect lane1 result: [3]
; expect lane2 result: [5]
; expect lane3 result: [2]

define dso_local i32 @mandel(float noundef %cx, float noundef %cy, i32 noundef %maxit) local_unnamed_addr #0 {
entry:
  %cmp.guard = icmp sgt i32 %maxit, 0
  br i1 %cmp.guard, label %while.body, label %while.end

while.body:
  %i = phi i32 [ %inc, %if.end ], [ 0, %entry ]
  %x = phi float [ %add, %if.end ], [ 0.000000e+00, %entry ]
  %y = phi float [ %add7, %if.end ], [ 0.000000e+00, %entry ]
  %mul = fmul float %x, %x
  %mul1 = fmul float %y, %y
  %add2 = fadd float %mul, %mul1
  %cmp3 = fcmp ogt float %add2, 4.000000e+00
  br i1 %cmp3, label %while.end, label %if.end

if.end:
  %sub = fsub float %mul, %mul1
  %add = fadd float %sub, %cx
  %mul5 = fmul float %x, 2.000000e+00
  %mul6 = fmul float %mul5, %y
  %add7 = fadd float %mul6, %cy
  %inc = add nuw nsw i32 %i, 1
  %cmp = icmp slt i32 %inc, %maxit
  br i1 %cmp, label %while.body, label %while.end

while.end:
  %i.lcssa = phi i32 [ 0, %entry ], [ %i, %while.body ], [ %maxit, %if.end ]
  ret i32 %i.lcssa
}

attributes #0 = { nounwind uwtable }
