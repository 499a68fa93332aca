;; LLVM's precision at the exit of a loop with a divergent exit, where it is
;; sound: a phi whose incoming values are one value (two uses of the constant 7,
;; or %u twice) is uniform (`PHINode::hasConstantOrUndefValue`: the lanes that
;; leave in different iterations still all get that value), and only values
;; defined inside the loop and used outside it are temporally divergent.
;; Derivation: H branches on %c = (%i == %t), varying (%t is the work-item id):
;; lane t leaves H in iteration t, the others leave through L when %i1 reaches
;; %u. So X is a join of H's branch (H→X and H→L→X are disjoint) and the loop
;; has a divergent exit.
;; - %i, %i1, %d: the same in every lane of an iteration (H is not a join of its
;;   own branch: the only way back is H→L→H): uniform.
;; - %r = readfirstlane(%i) and %b = ballot(true): always uniform (LLVM 22's
;;   `AlwaysUniform` table); %w = %u + 3: uniform.
;; - %p = phi [7, H], [7, L]: one value, uniform; %q = phi [7, H], [8, L]: lanes
;;   leaving through H see 7, through L see 8: varying; %s = phi [%u, H], [%u, L]:
;;   one value (a parameter, defined outside the loop): uniform.
;; - %ro, %wo, %bo, %io use values defined in the loop outside it, where lanes
;;   that left in different iterations meet: varying (temporal divergence), even
;;   %wo, whose operand %w is the same in every iteration (LLVM's rule looks at
;;   where a value is defined, not at what it depends on; opt-22 agrees).
;; Run: u = 2, four lanes: lane 0 leaves in iteration 0 through H (p = 7, q = 7),
;; lane 1 in iteration 1 through H, lanes 2 and 3 through L when i1 = 2 (q = 8).
;; The result is %p + %q: [14, 14, 15, 15].
; run: --threads 4 --arg u=2
; expect outcome: returned
; expect result: [14, 14, 15, 15]
target triple = "amdgcn--"

define i32 @f(i32 inreg %u) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()          ; expect[llvm]: varying
  br label %H

H:
  %i = phi i32 [ 0, %entry ], [ %i1, %L ]              ; expect[llvm]: uniform
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %i) ; expect[llvm]: uniform
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 true)       ; expect[llvm]: uniform
  %w = add i32 %u, 3                                   ; expect[llvm]: uniform
  %c = icmp eq i32 %i, %t                              ; expect[llvm]: varying
  br i1 %c, label %X, label %L                         ; expect[llvm]: varying

L:
  %i1 = add i32 %i, 1                                  ; expect[llvm]: uniform
  %d = icmp ult i32 %i1, %u                            ; expect[llvm]: uniform
  br i1 %d, label %H, label %X                         ; expect[llvm]: uniform

X:
  %p = phi i32 [ 7, %H ], [ 7, %L ]                    ; expect[llvm]: uniform
  %q = phi i32 [ 7, %H ], [ 8, %L ]                    ; expect[llvm]: varying
  %s = phi i32 [ %u, %H ], [ %u, %L ]                  ; expect[llvm]: uniform
  %ro = add i32 %r, 1                                  ; expect[llvm]: varying
  %wo = add i32 %w, 1                                  ; expect[llvm]: varying
  %bo = add i64 %b, 1                                  ; expect[llvm]: varying
  %io = add i32 %i, 1                                  ; expect[llvm]: varying
  %sum = add i32 %p, %q                                ; expect[llvm]: varying
  ret i32 %sum
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i64 @llvm.amdgcn.ballot.i64(i1)
