;; Kernel: safelog, thesis Fig. 4.1 (Ch. 4 opening). The data-parallel source
;; (Fig. 4.1a):
;;   double safelog(double v) {
;;   A: double r = v;
;;      bool p = v > 0.0;
;;      if (any(p)) {
;;   B:   if (p) {
;;   C:     r = log(v);
;;   D:   }
;;   E: }
;;      return r;
;;   }
;; Fig. 4.1c is its P-LLVM form: plain LLVM IR in which any is the horizontal
;; builtin @pllvm.any (Fig. 4.15), the only P-LLVM addition. The outer branch on
;; any(p) is uniform (every lane sees the same value), the inner branch on p is
;; divergent; log is only called by lanes with v > 0 (the lanes with p = 0 skip C,
;; so no lane computes log of a non-positive value). The picture of Fig. 4.1c did
;; not survive; the blocks are named after the labels A-E of Fig. 4.1a, and r is
;; the phi %r.d in D (r after the inner if) and %r in E.
;;
;; Derivation, v = [1.0, -2.0, 4.0, 0.0] (W = 4):
;;   A: p = [1, 0, 1, 0]; any(p) = 1 in every lane -> B (all lanes).
;;   B: lanes 0, 2 -> C; lanes 1, 3 -> D (they wait while C runs).
;;   C: lanes 0, 2: log 1.0 = 0.0; log 4.0 = 2 ln 2 = 2 x 0.6931471805599453
;;      = 1.3862943611198906 (doubling is exact, so the correctly rounded 2 ln 2
;;      is twice the double ln 2).
;;   D: r.d = [0.0 (from C), -2.0 (from B), 1.3862943611198906 (from C), 0.0 (from B)].
;;   E: r = r.d. Result [0.0, -2.0, 1.3862943611198906, 0.0].
;; OBLIVIOUS gives the same: C writes ⊤ to %l of lanes 1 and 3 (passive), but D's
;; phi reads %l only on the edge from C, which those lanes did not take. Acyclic
;; divergence needs no repair under OBL (the SIMD code of Fig. 4.1b).
;;
;; Every lane non-positive, v = [-1.0, 0.0, -0.5, -3.0]: any(p) = 0, A -> E
;; directly, r = v, and B, C, D never run.
;;
;; Each lane alone (W = 1): v = 1.0 and v = 4.0 take A, B, C, D, E; v = -2.0 alone
;; has any(p) = 0 and takes A, E. The path differs from the W = 4 run (where lane 1
;; goes A, B, D, E), the result does not: safelog returns the same per lane
;; whatever the other lanes hold.
; run fr: --threads 4 --interp fr --arg v=1.0,-2.0,4.0,0.0
; run obl: --threads 4 --interp obl --arg v=1.0,-2.0,4.0,0.0
; run none: --threads 4 --interp fr --arg v=-1.0,0.0,-0.5,-3.0
; run none-obl: --threads 4 --interp obl --arg v=-1.0,0.0,-0.5,-3.0
; run lane0: --threads 1 --interp fr --arg v=1.0
; run lane1: --threads 1 --interp fr --arg v=-2.0
; run lane2: --threads 1 --interp fr --arg v=4.0
; expect outcome: returned
; expect fr result: [0.0, -2.0, 1.3862943611198906, 0.0]
; expect obl result: [0.0, -2.0, 1.3862943611198906, 0.0]
; expect none result: [-1.0, 0.0, -0.5, -3.0]
; expect none-obl result: [-1.0, 0.0, -0.5, -3.0]
; expect lane0 result: [0.0]
; expect lane1 result: [-2.0]
; expect lane2 result: [1.3862943611198906]
; expect fr trace:
;   sc | in      | next    | cmask   | pmask   | amask   | i
;   A  | ⊥ ⊥ ⊥ ⊥ | A A A A | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 0 0
;   B  | A A A A | B B B B | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 1 0 1
;   C  | B B B B | C D C D | 1 0 1 0 | 1 1 1 1 | 1 0 1 0 | 0 ⊤ 0 ⊤
;   D  | C B C B | D D D D | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 0 0
;   E  | D D D D | E E E E | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □
; expect lane1 trace:
;   sc | in | next | cmask | pmask | amask | i
;   A  | ⊥  | A    | 1     | 1     | 1     | 1
;   E  | A  | E    | 1     | 1     | 1     | □

define dso_local double @safelog(double noundef %v) local_unnamed_addr #0 {
A:
  %p = fcmp ogt double %v, 0.000000e+00
  %q = call i1 @pllvm.any(i1 %p)
  br i1 %q, label %B, label %E

B:
  br i1 %p, label %C, label %D

C:
  %l = tail call double @log(double noundef %v) #2
  br label %D

D:
  %r.d = phi double [ %l, %C ], [ %v, %B ]
  br label %E

E:
  %r = phi double [ %r.d, %D ], [ %v, %A ]
  ret double %r
}

declare double @log(double noundef) local_unnamed_addr #1

attributes #0 = { nounwind uwtable }
attributes #1 = { nounwind }
attributes #2 = { nounwind }
