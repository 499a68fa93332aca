;; Found by the differential test (proofs/tests/llvm_differential.rs) on
;; corpus/divergence/fig7.3-global-joins-walkthrough.ll and minimized by hand:
;; opt-22 and opt-19 (`-mtriple=amdgcn-- -passes='print<uniformity>'`) call the
;; LCSSA phi %ie uniform, yet lanes leave the loop in different iterations and
;; meet in E with different values of %i.
;; CFG: P -> A; A -> {B, D} on (tid + i) even (divergent); B -> {E, D} on the
;; uniform test i >= 1; D -> A (latch); E returns.
;; Derivation (LLVM "Convergence and Uniformity", "Divergent Cycle Exits"): the
;; cycle {A, B, D} (reducible, header A) contains the divergent branch A; its
;; joins are D (A -> D and A -> B -> D) and A itself (A -> D -> A and
;; A -> B -> D -> A share D, so not A); the diverged path A -> B -> E leaves the
;; cycle before any join: a divergent cycle exit. E lies outside the cycle, so it
;; is top-level and its dynamic instances are converged, and its use of %i, defined
;; in the cycle, sees values of different iterations (temporal divergence): %ie is
;; divergent. The branch in B is on the uniform %b, so nothing but temporal
;; divergence makes %ie divergent, which is what opt misses. LLVM threads on
;; missed cycle-exit divergence (not checked whether they cover this case):
;; llvm/llvm-project#216100, #216296.
;; Run, W = 2: i = 0: lane 0 (t + i = 0, even) goes B (b false) -> D, lane 1 D.
;; i = 1: lane 0 goes D, lane 1 goes B (b true) -> E and waits (A comes first in
;; layout order). i = 2: lane 0 goes B -> E. E runs with both lanes: ie = [2, 1].
; analyze:
; run: --threads 2
; expect outcome: returned
; expect result: [2, 1]

define i32 @f() {
P:
  %t = call i32 @pllvm.thread_id()      ; expect[llvm]: varying
  br label %A

A:
  %i = phi i32 [ 0, %P ], [ %i.next, %D ] ; expect[llvm]: uniform
  %ti = add i32 %t, %i                  ; expect[llvm]: varying
  %odd = and i32 %ti, 1                 ; expect[llvm]: varying
  %c = icmp eq i32 %odd, 0              ; expect[llvm]: varying
  br i1 %c, label %B, label %D          ; expect[llvm]: varying

B:
  %b = icmp uge i32 %i, 1               ; expect[llvm]: uniform
  br i1 %b, label %E, label %D          ; expect[llvm]: uniform

D:
  %i.next = add i32 %i, 1               ; expect[llvm]: uniform
  br label %A

E:
  %ie = phi i32 [ %i, %B ]              ; expect[llvm]: varying
  ret i32 %ie
}
