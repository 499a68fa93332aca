;; Thesis Fig. 7.9a (§7.5): per-exit temporal divergence. The picture did not
;; survive; rebuilt from the prose: the "H to Q loop" (header H, latch Q) with
;; exits D and E, where "temporal divergent for D only depends on h and that of E
;; only on c and b", and GSSA's loop predicate γ(h, 1, γ(b, γ(c, 1, ), 0)). So:
;; P → H; H → {D, B} on h; B → {C, Q} on b; C → {E, Q} on c; Q → H; D, E → X.
;; Here h and b are uniform and c is varying (lane t leaves through E in iteration
;; t; a lane that never does leaves through D at i = 3).
;; Derivation: global_joins(C): local_joins({E, Q}) in lp(H): E holds E, Q pushes
;; Q into the header; D is reached only from H, before C in rpo: not reached.
;; local_exits: DomMap[E] = E ≠ Q = HeaderDef: tdep {E}; D stays uniform. The
;; collapsed loop (divergent E, uniform D) joins at X: sdep {X}. POPL'21: in G⋆
;; H → {D, E}; from {E, Q}: H and D get Q, the source E is reached from H: a join;
;; X joins D and E. So %id (D) is uniform, %ie (E) and %r (X) varying.
;; What earlier analyses answer here:
;;   GSSA with one exit predicate per loop (Ballance 1990, Tu and Padua 1995) makes
;;   both exits depend on h, b and c: %id varying.
;;   Absolute (transitive) control dependence (Lee 2013, Liang 2016): D depends on
;;   H, which depends on C (H post-dominates Q but not C): %id varying.
;;   IPD-based reconvergence (Coutinho 2011) places the reconvergence of C's
;;   divergence at ipdom(C) = X and treats the live-outs of a loop with a
;;   divergent exit as varying: %id varying.
;; Run, W = 4: lanes 0, 1, 2 leave through E in iterations 0, 1, 2; lane 3 through
;; D at i = 3: ie = [0, 1, 2] when E runs, r = [0, 1, 2, 3].
; analyze: --uniform-args b
; run: --threads 4 --arg b=1
; expect outcome: returned
; expect result: [0, 1, 2, 3]

define i32 @f(i1 %b) {
P:
  %t = call i32 @pllvm.thread_id()      ; expect: varying
  br label %H

H:
  %i = phi i32 [ 0, %P ], [ %i.next, %Q ] ; expect: uniform
  %h = icmp uge i32 %i, 3               ; expect: uniform
  br i1 %h, label %D, label %B          ; expect: uniform

B:
  br i1 %b, label %C, label %Q          ; expect: uniform

C:
  %c = icmp eq i32 %i, %t               ; expect: varying
  br i1 %c, label %E, label %Q          ; expect: varying

Q:
  %i.next = add i32 %i, 1               ; expect: uniform
  br label %H

D:
  %id = phi i32 [ %i, %H ]              ; expect: uniform
  br label %X

E:
  %ie = phi i32 [ %i, %C ]              ; expect: varying
  br label %X

X:                                      ; expect: uniform
  %r = phi i32 [ %id, %D ], [ %ie, %E ] ; expect: varying
  ret i32 %r
}
