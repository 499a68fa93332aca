;; Where the thesis and POPL'21 analyses differ: a value used outside its loop
;; without an LCSSA phi. The thesis requires LCSSA (§6.3); pllvm's thesis analysis
;; reads such a use as if LCSSA phis sat in the loop's exits and calls it varying
;; once any exit of the loop is temporally divergent. POPL'21 §6 (Def. 6.6) looks
;; only at the exits that reach the use without a back edge (lsplits).
;; (Not from a figure; built for docs/analyses.md.)
;; CFG: P → H; H → {X1, B} (uniform: leave at i ≥ 2); B → {X2, L} (varying: lane
;; t leaves when i = t); L → H; X1 → End; X2 → End.
;; Derivation: global_joins(B) = tdep {X2} (X2 holds X2 ≠ HeaderDef = L), and the
;; uniform exit X1 (reached only from the header) is no temporal join; End joins
;; X2 and X1: sdep {End}. POPL'21 finds the same joins on G⋆ (H → {X1, X2}).
;;   %xl, the LCSSA phi in X1: uniform for both (X1 ∉ tdep*, X1 ∉ splits).
;;   %xa = x + 0 in X1 (no LCSSA): thesis varying (an exit of the loop, X2, is in
;;   tdep*); popl uniform (the only exit that reaches X1 is X1, which joins no
;;   varying split). The run confirms popl: the lanes that reach X1 all left in
;;   the same iteration.
;;   %xb in X2: varying for both.
;; Run, W = 4: lanes 0, 1 leave through X2 in iterations 0, 1; lanes 2, 3 leave
;; through X1 together at i = 2 (x = 6): xa = [_, _, 6, 6].
; run: --threads 4
; expect outcome: returned
; expect result: [0, 3, 6, 6]

define i32 @f() {
P:
  %t = call i32 @pllvm.thread_id()      ; expect: varying
  br label %H

H:
  %i = phi i32 [ 0, %P ], [ %i1, %L ]   ; expect: uniform
  %x = mul i32 %i, 3                    ; expect: uniform
  %u = icmp uge i32 %i, 2               ; expect: uniform
  br i1 %u, label %X1, label %B         ; expect: uniform

B:
  %dv = icmp eq i32 %i, %t              ; expect: varying
  br i1 %dv, label %X2, label %L        ; expect: varying

L:
  %i1 = add i32 %i, 1                   ; expect: uniform
  br label %H

X1:
  %xl = phi i32 [ %x, %H ]              ; expect: uniform
  %xa = add i32 %x, 0                   ; expect[thesis]: varying ; expect[popl]: uniform
  br label %End

X2:
  %xb = add i32 %x, 0                   ; expect: varying
  br label %End

End:
  %r = phi i32 [ %xa, %X1 ], [ %xb, %X2 ] ; expect: varying
  ret i32 %r
}
