;; The controlled m-converged rule (LLVM's "Convergence and Uniformity",
;; "Controlled m-converged Static Instances", condition 1): a node inside the
;; convergence region of a token definition D is m-converged only if D is.
;; Derivation:
;; - The entry branches on the work-item id (varying) into the irreducible cycle
;;   {A, B} at both of its entries: a diverged path reaches an entry of the cycle
;;   from outside it ("Diverged Paths reaching a Cycle"), so A and B are not
;;   m-converged, and every output in them is divergent (%a2, %b2), the anchor's
;;   token %tok included (opt-22 agrees).
;; - The anchor %tok in A is used in X by %r: X is outside the cycle and m-converged
;;   by the uncontrolled rules, but it lies in %tok's region, whose definition
;;   is not m-converged: X is not m-converged either, and its outputs are
;;   divergent: %x (whose operand %u is uniform) and the readfirstlane %r's
;;   operand. %r itself stays uniform (always uniform, as LLVM 22 never marks it).
;; - Y, after B's exit and in no token's region, is m-converged: %y uniform.
;; opt-22 does not implement the rule: it calls %x uniform (class `controlled`
;; under --compare-llvm: with the tokens ignored pllvm agrees).
;; Run: k = 0, so lane 0 goes entry, A, X and the others entry, B, Y.
; run: --threads 4 --arg u=3 --arg k=0
; expect outcome: returned
; expect result: [4, 5, 5, 5]
target triple = "amdgcn--"

declare token @llvm.experimental.convergence.anchor()
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define i32 @g(i32 inreg %u, i1 inreg %k) convergent {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()                ; expect[llvm]: varying
  %c = icmp eq i32 %t, 0                                    ; expect[llvm]: varying
  br i1 %c, label %A, label %B                              ; expect[llvm]: varying

A:
  %tok = call token @llvm.experimental.convergence.anchor() ; expect[llvm]: varying
  %a2 = add i32 %u, 1                                       ; expect[llvm]: varying
  br i1 %k, label %B, label %X                              ; expect[llvm]: uniform

B:
  %b2 = add i32 %u, 2                                       ; expect[llvm]: varying
  br i1 %k, label %A, label %Y                              ; expect[llvm]: uniform

X:
  %x = add i32 %u, 1                                        ; expect[llvm]: varying
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ "convergencectrl"(token %tok) ] ; expect[llvm]: uniform
  br label %Z

Y:
  %y = add i32 %u, 2                                        ; expect[llvm]: uniform
  br label %Z

Z:
  %v = phi i32 [ %r, %X ], [ %y, %Y ]                       ; expect[llvm]: varying
  ret i32 %v
}
