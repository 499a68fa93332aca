;; [W-CMD-MASK] (thesis §4.9): mask() returns the activation, "so cannot use the
;; total modifier". Fig. 4.2 gives `total` to commands only, so a phi cannot carry it.
define void @f(i1 %c) {
entry:
  %m = mask()
  %bad = mask() total ; error: mask() cannot use the total modifier
  br label %next

next:
  %x := phi i1 [ %c, %entry ] ; error: a phi cannot be total
  ret void
}
