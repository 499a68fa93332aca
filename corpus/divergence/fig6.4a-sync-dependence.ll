;; Thesis Fig. 6.4a (§6.3): sync dependence. "After threads diverge at a terminator
;; they may reach a ϕ node from different incoming blocks at the same time. In
;; this case, the ϕ node may produce a varying value, even though its value
;; operands are uniform." "In all cases assumed divergence in v makes x varying."
;; The picture did not survive; rebuilt from the prose as a diamond on the varying
;; %v joined in D (x = phi of two constants), followed by a second diamond on the
;; uniform %u joined in G, whose phi stays uniform.
;; Derivation: A's branch is varying → prop_control_div(A): global_joins({B, C})
;; gives sdep* = {D} (Axiom 1, disjoint paths A→B→D, A→C→D) → %x varying by
;; [DA-PHI-D]. D's branch on %u is uniform: G is not sync dependent on anything
;; divergent, so %y = phi [10, E], [20, F] is uniform by [DA-PHI-U]. B and C are
;; control dependent on A (activation varying); D, E, F, G are not.
; analyze: --uniform-args u
; run: --threads 2 --arg v=1,0 --arg u=1
; expect outcome: returned
; expect result: [11, 12]

define i32 @f(i1 %v, i1 %u) {
A:
  br i1 %v, label %B, label %C          ; expect: varying

B:                                      ; expect: varying
  br label %D

C:                                      ; expect: varying
  br label %D

D:                                      ; expect: uniform
  %x = phi i32 [ 1, %B ], [ 2, %C ]     ; expect: varying
  br i1 %u, label %E, label %F          ; expect: uniform

E:                                      ; expect: uniform
  br label %G

F:                                      ; expect: uniform
  br label %G

G:                                      ; expect: uniform
  %y = phi i32 [ 10, %E ], [ 20, %F ]   ; expect: uniform
  %r = add i32 %x, %y                   ; expect: varying
  ret i32 %r
}
