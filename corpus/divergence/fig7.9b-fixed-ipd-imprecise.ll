;; Thesis Fig. 7.9b (§7.5), case "p uniform, q varying": "When p is uniform and q
;; is varying, x will be flagged as varying at D [by the fixed IPD criterion],
;; despite the fact that q has no impact on the divergence of x, there is only one
;; path." Same CFG as fig7.9b-ipd-misses-join.ll (rebuilt from the prose):
;; A → {B, C} on p; B → D; C → {D, E} on q; D (x = phi) → F; E → F.
;; Derivation: only C's branch is divergent; C's successors D and E meet first at
;; F (C→D→F, C→E→F): sdep(C) = {F}; D is reached from C by one path only, so D is
;; not sync dependent and %x stays uniform by [DA-PHI-U]; %y in F is varying.
;; POPL'21: C ∈ splits(F) only. A's branch is uniform.
;; What earlier analyses answer here:
;;   Joins above the IPD (Chandrasekhar 2019): D lies between C and F = ipdom(C)
;;   and has two predecessors: %x flagged varying (imprecise).
;;   IPD-based (Coutinho 2011): reconvergence at F: %x uniform, %y varying (right).
;;   Absolute control dependence: D's predecessor C is not control dependent on a
;;   divergent branch, B neither: %x uniform (right).
;; Run, W = 2, p = 0, q = [1, 0]: both lanes take C; lane 0 goes to D (x = 1),
;; lane 1 to E: y = [1, 2].
; analyze: --uniform-args p
; run: --threads 2 --arg p=0 --arg q=1,0
; expect outcome: returned
; expect result: [1, 2]

define i32 @f(i1 %p, i1 %q) {
A:
  br i1 %p, label %B, label %C          ; expect: uniform

B:
  br label %D

C:
  br i1 %q, label %D, label %E          ; expect: varying

D:
  %x = phi i32 [ 0, %B ], [ 1, %C ]     ; expect: uniform
  br label %F

E:
  br label %F

F:
  %y = phi i32 [ %x, %D ], [ 2, %E ]    ; expect: varying
  ret i32 %y
}
