;; [W-INST-ALLOCA], [W-INST-LOAD], [W-INST-STORE] (§4.9.1): alloca gives every
;; active lane its own private object (newptr^W); passive lanes get ⊤ and no
;; object. Four lanes (W = 4).
;;   A: every lane allocates p and stores 10 * t into it; the objects are
;;      distinct, so each lane later reads its own value back.
;;   B: only lanes 0, 1 are active: they allocate q and store t. Lanes 2, 3 are
;;      passive: their q is ⊤ (OBL) or unassigned (FR), and the store through it
;;      is masked off ([W-INST-STORE] writes only where amask is set): no UB.
;;   D: r = *p + (lanes 0, 1: *q = t; lanes 2, 3: 100)
;;      = [0 + 0, 10 + 1, 20 + 100, 30 + 100].
; run fr: --threads 4 --interp fr --schedule A,B,C,D
; run obl: --threads 4 --interp obl --schedule A,B,C,D
; expect outcome: returned
; expect result: [0, 11, 120, 130]
; expect env: %v = [0, 10, 20, 30]
; expect env: %extra = [0, 1, 100, 100]

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %p = alloca i32
  %t10 = mul i32 %t, 10
  store i32 %t10, ptr %p
  %low = icmp ult i32 %t, 2
  br i1 %low, label %B, label %C

B:
  %q = alloca i32
  store i32 %t, ptr %q
  %vq = load i32, ptr %q
  br label %D

C:
  br label %D

D:
  %extra = phi i32 [ %vq, %B ], [ 100, %C ]
  %v = load i32, ptr %p
  %r = add i32 %v, %extra
  ret i32 %r
}
