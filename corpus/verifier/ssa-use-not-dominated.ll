;; SSA (thesis §2.2, §4.10): every definition dominates its uses. %x is defined in
;; %a only, so %j may not read it; within a block, a use must follow the definition.
;; Code the entry cannot reach is exempt, as in LLVM: %dead breaks both rules freely.
define i32 @f(i1 %c, i32 %n) {
entry:
  br i1 %c, label %a, label %j

a:
  %x = add i32 %n, 1
  br label %j

j:
  %y = add i32 %x, 1 ; error: use of %x is not dominated by its definition
  %u = mul i32 %v, 2 ; error: use of %v is not dominated by its definition
  %v = add i32 %n, 3
  ret i32 %x ; error: use of %x is not dominated by its definition

dead:
  %z = add i32 %w, 1
  %w = add i32 %x, 1
  ret i32 %z
}
