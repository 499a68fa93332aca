;; Thesis Fig. 6.4c (§6.3), the other half: "If v makes the branch in E divergent,
;; the activation of B becomes varying" (see fig6.4c-activation-predicate.ll).
;; Rebuilt as: E branches on the varying %v to B (no predicate), which computes
;; m = mask() and branches uniformly on %u to C or D; both go on to X.
;; Derivation: E's branch is varying → prop_control_div(E): cdep_on(E) = {B} enter
;; cdep* and adep* (Listing 3, lines 26-33). C and D are control dependent on B,
;; a block of cdep*, through B's uniform branch: they are reached only by the
;; lanes that reached B, so pllvm closes cdep* transitively (thesis §6.7:
;; "(transitively) control-dependent") and C, D are varying too. m, m3 = mask()
;; are varying by [DA-DMASK]. X is sync dependent on E → %r varying.
;; Run, W = 2, v = [1, 0]: only lane 0 reaches B and C: m = [1, 0], m3 = [1, 0].
; analyze: --uniform-args u
; run: --threads 2 --arg v=1,0 --arg u=1
; expect outcome: returned
; expect env: %mz = [1, 0]
; expect env: %m3z = [1, 0]
; expect result: [1, 0]

define i32 @f(i1 %v, i1 %u) {
E:                                      ; expect: uniform
  br i1 %v, label %B, label %X          ; expect: varying

B:                                      ; expect: varying
  %m = mask()                           ; expect: varying
  %mz = zext i1 %m to i32 total         ; expect: varying
  br i1 %u, label %C, label %D          ; expect: uniform

C:                                      ; expect: varying
  %m3 = mask()                          ; expect: varying
  %m3z = zext i1 %m3 to i32 total       ; expect: varying
  br label %X

D:                                      ; expect: varying
  br label %X

X:                                      ; expect: uniform
  %r = phi i32 [ 1, %C ], [ 2, %D ], [ 0, %E ] ; expect: varying
  ret i32 %r
}
