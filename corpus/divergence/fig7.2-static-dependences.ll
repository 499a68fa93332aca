;; Thesis Fig. 7.2 (Ch. 7): "Static sync and temporal dependences in the CFG ...
;; Assuming that G is a divergent terminator in the CFG, the resulting sync
;; dependent join points are shown in Figure 7.2b. Figure 7.2c shows the static
;; temporal dependent join points in, assuming control divergence in H."
;; The figure's graph did not survive and the prose does not describe it: this
;; file is NOT that graph. It is an illustration built for the caption, with a
;; divergent G whose paths join twice (D, F) and a loop with header H whose
;; divergent exit branch makes one exit temporally divergent and leaves the
;; other uniform.
;;   entry → G; G → {B, C} (varying %v); B → D; C → {D, E} (uniform %u); D → F;
;;   E → F; F → H; H → {X1, I} (varying: lane t leaves when i = t); I → {H, X2}
;;   (uniform counter test); X1 → Z; X2 → Z.
;; Derivation: global_joins(G) = sdep {D, F} (disjoint paths G→B→D and G→C→D;
;; G→B→D→F and G→C→E→F). global_joins(H) in lp(H): PushDef gives X1 itself and I
;; to H (latch) and X2: HeaderDef = I = DomMap[X2] ≠ DomMap[X1] = X1, so tdep
;; {X1} and X2 is a uniform exit (the lanes that reach X2 all come through I in
;; the same iteration); the collapsed loop (divergent X1, uniform X2) joins at Z:
;; sdep {Z}. POPL'21 finds the same joins on G⋆. So %d, %f, %e1, %z are varying;
;; %i, %i1 and the LCSSA phi %e2 of the uniform exit are uniform.
;; Run, W = 3, v = [1, 0, 1], u = 0: lanes 0, 2 take B, lane 1 takes C → E; in H
;; lane t leaves to X1 when i = t: e1 = [0, 1, 2].
; analyze: --uniform-args u
; run: --threads 3 --arg v=1,0,1 --arg u=0
; expect outcome: returned
; expect env: %f = [1, 3, 1]
; expect result: [0, 1, 2]

define i32 @f(i1 %v, i1 %u) {
entry:
  %t = call i32 @pllvm.thread_id()      ; expect: varying
  br label %G

G:
  br i1 %v, label %B, label %C          ; expect: varying

B:
  br label %D

C:
  br i1 %u, label %D, label %E          ; expect: uniform

D:
  %d = phi i32 [ 1, %B ], [ 2, %C ]     ; expect: varying
  br label %F

E:
  br label %F

F:                                      ; expect: uniform
  %f = phi i32 [ %d, %D ], [ 3, %E ]    ; expect: varying
  br label %H

H:
  %i = phi i32 [ 0, %F ], [ %i1, %I ]   ; expect: uniform
  %w = icmp eq i32 %i, %t               ; expect: varying
  br i1 %w, label %X1, label %I         ; expect: varying

I:
  %i1 = add i32 %i, 1                   ; expect: uniform
  %again = icmp ult i32 %i1, 4          ; expect: uniform
  br i1 %again, label %H, label %X2     ; expect: uniform

X1:
  %e1 = phi i32 [ %i, %H ]              ; expect: varying
  br label %Z

X2:
  %e2 = phi i32 [ %i1, %I ]             ; expect: uniform
  br label %Z

Z:                                      ; expect: uniform
  %z = phi i32 [ %e1, %X1 ], [ %e2, %X2 ] ; expect: varying
  ret i32 %z
}
