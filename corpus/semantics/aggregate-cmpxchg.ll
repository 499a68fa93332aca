;; Aggregates as lane values and cmpxchg (docs/language.md, "Vectors, aggregates and
;; atomics"). A value of a struct or array type is one lane value with an element per
;; field; extractvalue / insertvalue read and replace one element at a constant index
;; path ([W-INST-LLVM], §4.9), and an element may be ⊤ on its own (insertvalue into
;; undef keeps the other fields ⊤). [W-INST-CMPXCHG] (pllvm's reading,
;; semantics/RULES.md): the active lanes act one after another in lane order; lane τ
;; reads the old value and, if it equals its expected value, writes its new one; its
;; result is { old, equal }. Four lanes (W = 4), all active.
;;
;; Derivation: every lane tries to claim @owner (initially 0) with t + 1:
;;   lane 0 reads 0 = 0: writes 1, pair { 0, true }
;;   lane 1 reads 1 ≠ 0: pair { 1, false }; lanes 2, 3 the same.
;;   won = [1, 0, 0, 0], seen = [0, 1, 1, 1]; @owner = [1].
;; Then a ticket: cmpxchg @ticket, expected t, new t + 1 (lane order makes it a
;; chain): lane 0 reads 0 = 0 → 1; lane 1 reads 1 = 1 → 2; lane 2 → 3; lane 3 → 4.
;;   @ticket = [4]; every lane's success bit is 1.
;; agg = { t, [2 x i32] { seen, ⊤ } } built by insertvalue from undef:
;;   %a1 = [<0, <⊤, ⊤>>, <1, <⊤, ⊤>>, <2, <⊤, ⊤>>, <3, <⊤, ⊤>>]
;;   %a2 = [<0, <0, ⊤>>, <1, <1, ⊤>>, <2, <1, ⊤>>, <3, <1, ⊤>>]
;; Stored to @rec[t] (a { i32, [2 x i32] } per lane): the ⊤ element leaves its
;; bytes uninitialized, which read back as ⊤; the memory expectation shows it.
;; r = a2.0 · 10 + a2.1.0 + won · 100 + ok2 · 1000 (ok2 the ticket's success):
;;   lane 0: 0 + 0 + 100 + 1000 = 1100; lane 1: 10 + 1 + 1000 = 1011;
;;   lane 2: 20 + 1 + 1000 = 1021; lane 3: 30 + 1 + 1000 = 1031.
; run fr: --threads 4 --interp fr
; run ref: --threads 4 --interp fr --exec reference
; run obl: --threads 4 --interp obl
; expect outcome: returned
; expect result: [1100, 1011, 1021, 1031]
; expect env: %pair = [<0, 1>, <1, 0>, <1, 0>, <1, 0>]
; expect env: %a2 = [<0, <0, ⊤>>, <1, <1, ⊤>>, <2, <1, ⊤>>, <3, <1, ⊤>>]
; expect memory: @owner = [1]
; expect memory: @ticket = [4]
; expect memory: @rec = [{0, [0, ⊤]}, {1, [1, ⊤]}, {2, [1, ⊤]}, {3, [1, ⊤]}]

@owner = global i32 0
@ticket = global i32 0
@rec = global [4 x { i32, [2 x i32] }] zeroinitializer

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %t1 = add i32 %t, 1
  %pair = cmpxchg ptr @owner, i32 0, i32 %t1 seq_cst seq_cst, align 4     ; expect: varying
  %seen = extractvalue { i32, i1 } %pair, 0                               ; expect: varying
  %won = extractvalue { i32, i1 } %pair, 1
  %tk = cmpxchg weak ptr @ticket, i32 %t, i32 %t1 acq_rel monotonic
  %ok2 = extractvalue { i32, i1 } %tk, 1
  %a1 = insertvalue { i32, [2 x i32] } undef, i32 %t, 0
  %a2 = insertvalue { i32, [2 x i32] } %a1, i32 %seen, 1, 0
  %k = insertvalue { i32, i1 } { i32 5, i1 true }, i32 6, 0                 ; expect: uniform
  %slot = getelementptr inbounds [4 x { i32, [2 x i32] }], ptr @rec, i32 0, i32 %t
  store { i32, [2 x i32] } %a2, ptr %slot, align 4
  %back = load { i32, [2 x i32] }, ptr %slot, align 4
  %f0 = extractvalue { i32, [2 x i32] } %back, 0
  %f10 = extractvalue { i32, [2 x i32] } %back, 1, 0
  %x10 = mul i32 %f0, 10
  %s1 = add i32 %x10, %f10
  %w = zext i1 %won to i32
  %w100 = mul i32 %w, 100
  %s2 = add i32 %s1, %w100
  %o = zext i1 %ok2 to i32
  %o1000 = mul i32 %o, 1000
  %r = add i32 %s2, %o1000
  ret i32 %r
}
