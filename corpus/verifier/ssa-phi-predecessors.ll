;; SSA (thesis §2.2) with LLVM's rule for phis: one entry per predecessor *edge*, and
;; entries for the same predecessor agree. %entry reaches %j by two switch edges
;; (default and case 1), so %j's phis list %entry twice, with one value.
define i32 @f(i32 %s) {
entry:
  switch i32 %s, label %j [
    i32 1, label %j
    i32 2, label %k
  ]

k:
  br label %j

j:
  %ok = phi i32 [ 1, %entry ], [ 1, %entry ], [ 2, %k ]
  %once = phi i32 [ 1, %entry ], [ 2, %k ] ; error: phi has 1 entries for %entry, which has 2 edges to %j
  %differ = phi i32 [ 1, %entry ], [ 3, %entry ], [ 2, %k ] ; error: phi has different values for the same predecessor %entry
  %missing = phi i32 [ 1, %entry ], [ 1, %entry ] ; error: phi has no entry for predecessor %k
  %stranger = phi i32 [ 1, %entry ], [ 1, %entry ], [ 2, %k ], [ 4, %j ] ; error: phi lists %j, which is not a predecessor of %j
  ret i32 %ok
}
