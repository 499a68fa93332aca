;; LLVM's uniformity analysis ignores `undef` arms of a phi at a join
;; (`PHINode::hasConstantOrUndefValue`, applied by `taintAndPushPhiNodes`): a phi
;; whose other incoming values are one value stays uniform although lanes reach it
;; from different sides of a divergent branch. A lane that took the `undef` arm
;; holds ⊤, which may be any value, the other lanes' included: the observer that
;; checks every `uniform` claim against the runs (`interp/src/observe.rs`) does
;; not count a ⊤ lane of a phi with an `undef`/`poison` arm, so the claim holds.
;; Derivation: A branches on the varying %v, B and C join in D (a join of A,
;; disjoint paths A→B→D, A→C→D).
;; - %x = phi [%u, B], [undef, C]: one defined value, %u (uniform): the `llvm`
;;   analysis calls it uniform. The thesis's [DA-PHI-D] and POPL'21 make a phi at
;;   a sync join varying whatever its operands: varying there.
;; - %y = phi [%u, B], [%w, C]: two different values at a join: varying in all.
;; - %z = phi [undef, B], [poison, C]: no defined value: uniform for `llvm`.
;; Runs: v = 1, 0 with u = 7, w = 9: lane 0 goes through B (x = 7, y = 7), lane 1
;; through C (x = ⊤, y = 9). %x's defined lanes agree (only lane 0 defines it);
;; the result x + y is ⊤ in lane 1: [14, ⊤].
; analyze: --uniform-args u,w
; run: --threads 2 --arg v=1,0 --arg u=7 --arg w=9
; expect outcome: returned
; expect result: [14, ⊤]

define i32 @f(i1 %v, i32 %u, i32 %w) {
A:
  br i1 %v, label %B, label %C              ; expect: varying

B:
  br label %D

C:
  br label %D

D:
  %x = phi i32 [ %u, %B ], [ undef, %C ]    ; expect[llvm]: uniform ; expect[thesis]: varying ; expect[popl]: varying
  %y = phi i32 [ %u, %B ], [ %w, %C ]       ; expect: varying
  %z = phi i32 [ undef, %B ], [ poison, %C ] ; expect[llvm]: uniform
  %r = add i32 %x, %y                       ; expect: varying
  ret i32 %r
}
