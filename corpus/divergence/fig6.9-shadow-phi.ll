;; Thesis Fig. 6.9 (§6.5.1): shadow phis. "(a) All passive threads in D see the
;; shadow input 2. Variable y is varying despite only uniform sync dependences.
;; (b) z is uniform and holds either 0 or 1 for all active threads." "All active
;; threads in D reach from either C or B. Since there are no predicates, all
;; threads that are passive in D took the branch from A to E."
;; The picture did not survive; rebuilt from the caption: A branches on the varying
;; %v to X or E; X branches on the uniform %u to B or C; B and C meet in D, which
;; holds y = phi [0, B], [1, C] shadow(2) and z = phi [0, B], [1, C]; D goes to E.
;; Derivation: A's branch is divergent → cdep_on(A) = {X, D} (the post-dominator
;; path from X up to, not including, ipdom(A) = E) enter cdep*; B and C are
;; control dependent on X and join cdep* by transitivity (see
;; fig6.4c-activation-divergent-branch.ll). D is not sync dependent on a divergent
;; branch: its two incoming paths split at X, whose branch is uniform.
;;   z: [DA-PHI-U] → 0 ⊔ 1 = uniform (only the active lanes define it).
;;   y: [DA-SPHI-D], D ∈ cdep* → varying: the passive lanes take the shadow 2.
;;   %yt = y + 0 total reads every lane ([W-CMD-TOTAL]) → varying; %zt = z + 0
;;   total reads z in the passive lanes too, where z was never assigned → varying
;;   (z is uniform only among the lanes that define it, γ' of Fig. 6.3).
;;   E joins the paths A→E and A→X→B→D→E: sync dependent on A → %w varying.
;; Run, W = 3, v = [1, 1, 0], u = 1: lanes 0, 1 go X→B→D, lane 2 goes to E. In D
;; y = [0, 0, 2] (lane 2 passive, shadow), yt = [0, 0, 2]; w = [0, 0, 9].
; analyze: --uniform-args u
; run: --threads 3 --arg v=1,1,0 --arg u=1
; expect outcome: returned
; expect env: %yt = [0, 0, 2]
; expect result: [0, 0, 9]

define i32 @f(i1 %v, i1 %u) {
A:                                      ; expect: uniform
  br i1 %v, label %X, label %E          ; expect: varying

X:                                      ; expect: varying
  br i1 %u, label %B, label %C          ; expect: uniform

B:                                      ; expect: varying
  br label %D

C:                                      ; expect: varying
  br label %D

D:                                      ; expect: varying
  %y = phi i32 [ 0, %B ], [ 1, %C ] shadow(2) ; expect: varying
  %z = phi i32 [ 0, %B ], [ 1, %C ]     ; expect: uniform
  %yt = add i32 %y, 0 total             ; expect: varying
  %zt = add i32 %z, 0 total             ; expect: varying
  br label %E

E:                                      ; expect: uniform
  %w = phi i32 [ %z, %D ], [ 9, %A ]    ; expect: varying
  ret i32 %w
}
