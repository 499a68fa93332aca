;; Def. 1 and LLVM: the entry block (the first block) has no predecessors; a loop
;; back to it needs a new entry block in front.
define void @f(i1 %c) {
entry:
  br label %loop

loop:
  br i1 %c, label %entry, label %exit ; error: branch to the entry block %entry, which has no predecessors
exit:
  ret void
}
