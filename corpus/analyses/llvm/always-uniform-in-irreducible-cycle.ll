;; An always-uniform intrinsic in a cycle that is not m-converged: LLVM 22
;; never marks an always-uniform value divergent (`markDivergent` returns early
;; for `isAlwaysUniform`), and it is sound: `readfirstlane` gives every lane that
;; executes it together the first such lane's operand.
;; Derivation: the entry branches on the work-item id, varying, into the cycle
;; {A, B} at both of its entries: a diverged path reaches an entry of the cycle
;; from outside ("Diverged Paths reaching a Cycle"), so A and B are not
;; m-converged and every other output in them is divergent (%a, %bb, although
;; their operand %u is uniform). %ra = readfirstlane(%u) stays uniform. The
;; branches in A and B test the uniform %k: uniform.
;; Run: k = 0, so each lane leaves the cycle at once (lane 0 through A, the
;; others through B); the result is %u.
; run: --threads 4 --arg u=3 --arg k=0
; expect outcome: returned
; expect result: [3, 3, 3, 3]
target triple = "amdgcn--"

define i32 @g(i32 inreg %u, i1 inreg %k) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()           ; expect[llvm]: varying
  %c = icmp eq i32 %t, 0                               ; expect[llvm]: varying
  br i1 %c, label %A, label %B                         ; expect[llvm]: varying

A:
  %a = add i32 %u, 1                                   ; expect[llvm]: varying
  %ra = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %u) ; expect[llvm]: uniform
  br i1 %k, label %B, label %X                         ; expect[llvm]: uniform

B:
  %bb = add i32 %u, 2                                  ; expect[llvm]: varying
  br i1 %k, label %A, label %X                         ; expect[llvm]: uniform

X:
  ret i32 %u
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
