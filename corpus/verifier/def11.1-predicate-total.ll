;; Def. 11.1 (dominating predicate): a block predicate defined in its own block is
;; computed before the activation is known, so every command up to and including
;; its definition must be total (`:=`, or the `total` suffix). A predicate defined
;; by a phi of the block is fine: phis resolve before the activation (BLS-W-STEP).
define void @f(i32 %n, i1 %c) {
entry:
  br label %good

good:
  predicate %m
  %s := add i32 %n, 1
  %m := icmp eq i32 %s, 0
  %after = add i32 %n, 2
  br label %bad

bad:
  predicate %k
  %t = add i32 %n, 1 ; error: add runs before the block predicate %k is defined, so it must be total
  %k = icmp eq i32 %t, 0 ; error: block predicate %k is defined in its own block, so its definition must be total
  br label %by_phi

by_phi:
  predicate %f
  %f = phi i1 [ %c, %bad ]
  ret void
}
