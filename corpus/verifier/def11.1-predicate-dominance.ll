;; Def. 11.1 (dominating predicate): a block predicate defined in another block must
;; be defined in a dominator of the predicated block. %notp (defined in %entry)
;; dominates %b; %q, defined in %a, does not dominate %j, which %b also reaches.
define void @f(i1 %p) {
entry:
  %notp = xor i1 %p, true
  br i1 %p, label %a, label %b

a:
  %q = xor i1 %p, %p
  br label %j

b:
  predicate %notp
  br label %j

j:
  predicate %q ; error: predicate %q of %j is defined in %a, which does not dominate %j
  ret void
}
