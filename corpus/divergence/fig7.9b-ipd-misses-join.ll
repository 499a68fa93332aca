;; Thesis Fig. 7.9b (§7.5), case "p varying": "When p is varying, the divergence in
;; x at D goes undetected because reconvergence is only anticipated at F, the
;; immediate post dominator of A." The picture did not survive; rebuilt from the
;; prose (with fig7.9b-fixed-ipd-imprecise.ll for "p uniform, q varying"):
;; A → {B, C} on p; B → D; C → {D, E} on q; D (x = phi) → F; E → F.
;; Derivation: A's branch is varying; the paths A→B→D and A→C→D are disjoint:
;; sdep(A) ∋ D (and F) → %x varying by [DA-PHI-D]; POPL'21: A ∈ splits(D).
;; What earlier analyses answer here:
;;   IPD-based (Coutinho 2011, fully structured analyses): reconvergence only at
;;   F = ipdom(A), so %x is called uniform: wrong, the run shows x = [0, 1].
;;   Joins above the IPD (Chandrasekhar 2019, Collange 2011): D lies between A and
;;   F and has two predecessors: %x varying (right here).
;;   Absolute control dependence: D's predecessors B, C depend on A: varying.
;; Run, W = 2, p = [1, 0], q = 1: lane 0 takes B, lane 1 takes C → D: x = [0, 1].
; analyze: --uniform-args q
; run: --threads 2 --arg p=1,0 --arg q=1
; expect outcome: returned
; expect env: %x = [0, 1]
; expect result: [0, 1]

define i32 @f(i1 %p, i1 %q) {
A:
  br i1 %p, label %B, label %C          ; expect: varying

B:
  br label %D

C:
  br i1 %q, label %D, label %E          ; expect: uniform

D:
  %x = phi i32 [ 0, %B ], [ 1, %C ]     ; expect: varying
  br label %F

E:
  br label %F

F:
  %y = phi i32 [ %x, %D ], [ 2, %E ]    ; expect: varying
  ret i32 %y
}
