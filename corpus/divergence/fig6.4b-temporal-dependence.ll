;; Thesis Fig. 6.4b (§6.3): temporal dependence. "k is uniform inside the loop and
;; holds a different value in each iteration. The live-out vector of values of k
;; reaching the LCSSA ϕ in Z may be a blend of k from different iterations."
;; The picture did not survive; rebuilt from the prose: a loop H → L → H counting
;; k, leaving to Z when k.next reaches the varying bound %v, with the LCSSA phi
;; k.lc in Z.
;; Derivation: %k = phi [0, P], [k.next, L] and %k.next = k + 1 are uniform
;; ([DA-PHI-U], [DA-UARITH]; H is not sync dependent on anything). %c compares
;; with %v: varying; L's branch is divergent → global_joins({H, Z}) puts the exit
;; Z in tdep* (Axiom 2) → %k.lc varying by [DA-PHI-D]. Activation: H is control
;; dependent on L (H post-dominates the back edge target, not L), and L
;; post-dominates its successor H (it runs again with the lanes that stayed):
;; both varying; Z post-dominates everything: uniform.
;; Run, W = 2, v = [1, 2]: lane 0 leaves after one iteration (k.next = 1), lane 1
;; after two (k.next = 2): k.lc = [1, 2].
; run: --threads 2 --arg v=1,2
; expect outcome: returned
; expect result: [1, 2]

define i32 @f(i32 %v) {
P:
  br label %H

H:                                      ; expect: varying
  %k = phi i32 [ 0, %P ], [ %k.next, %L ] ; expect: uniform
  br label %L

L:                                      ; expect: varying
  %k.next = add i32 %k, 1               ; expect: uniform
  %c = icmp ult i32 %k.next, %v         ; expect: varying
  br i1 %c, label %H, label %Z          ; expect: varying

Z:                                      ; expect: uniform
  %k.lc = phi i32 [ %k.next, %L ]       ; expect: varying
  ret i32 %k.lc
}
