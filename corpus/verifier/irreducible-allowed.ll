;; Reducibility (thesis §2.4) is not a well-formedness condition: this cycle {x, y}
;; has two entries, so the CFG is irreducible, and the verifier only notes it
;; ("function @f is irreducible (allowed)"). No errors.
define void @f(i1 %c) {
entry:
  br i1 %c, label %x, label %y

x:
  br i1 %c, label %y, label %exit

y:
  br label %x

exit:
  ret void
}
