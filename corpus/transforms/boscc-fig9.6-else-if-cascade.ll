;; Thesis Fig. 9.6, the else-if cascade of the hot loop of 644.nab_s (Fig. 9.4,
;; lines 10-13), one iteration of it: three BOSCC gadgets on the `else` edges let
;; the linearized code leave the cascade as soon as no lane goes further down.
;; The comparisons are on the thread id, so every branch is divergent.
;;
;; The default heuristic (boscc::Policy::Heuristic) places the gadgets: h2 and h3
;; end in divergent branches (cascade links), else3 stores to memory; then1,
;; then2 and then3 are one command each and get none.
;;
;; After the gadgets the dominator tree is h1 -> {h1.boscc, then1, join},
;; h1.boscc -> h2, h2 -> {h2.boscc, then2}, h2.boscc -> h3, h3 -> {h3.boscc,
;; then3}, h3.boscc -> else3, and the block index h1, h1.boscc, h2, h2.boscc,
;; h3, h3.boscc, else3, then3, then2, then1, join. Listing 8:
;;   h1 uniform (any):      h1 -> h1.boscc, then1
;;   h1.boscc divergent:    next = min{then1, h2} = h2, (h2, then1)
;;   h2 uniform, T = {then1}: edge 0 min{then1, h2.boscc} = h2.boscc, (h2.boscc,
;;                          then1); edge 1 min{then1, then2} = then2, (then2, then1)
;;   h2.boscc divergent:    next = h3, (h3, then1), (h3, then2)
;;   h3 uniform:            h3 -> h3.boscc, then3, carrying {then1, then2}
;;   h3.boscc divergent:    next = else3, defers then1, then2, then3
;;   else3:                 next = then3, defers then1, then2, join
;;   then3:                 next = then2;  then2: next = then1;  then1: join
;; The if-cases come out in reverse order (then3, then2, then1), as §9.2 says.
;;
;; t = 4 · tid = 0, 4, 8, 12. d = 6: lanes 0, 1 take then1 (t + 1 = 1, 5);
;; lanes 2, 3 fall through every test to else3 (-1, storing t to @w[tid]).
;; d = 100: every lane takes then1, any(h2) is false: h1 -> then1 -> join.
@w = global [4 x i32] zeroinitializer

define i32 @nab(i32 %tid, i32 %d) {
h1:
  %t = mul i32 %tid, 4
  %c1 = icmp sgt i32 %d, %t
  br i1 %c1, label %then1, label %h2
then1:
  %r1 = add i32 %t, 1
  br label %join
h2:
  %t2 = add i32 %t, 2
  %c2 = icmp sgt i32 %d, %t2
  br i1 %c2, label %then2, label %h3
then2:
  %r2 = add i32 %t, 2
  br label %join
h3:
  %t3 = add i32 %t, 3
  %c3 = icmp sgt i32 %d, %t3
  br i1 %c3, label %then3, label %else3
then3:
  %r3 = add i32 %t, 3
  br label %join
else3:
  %q = getelementptr [4 x i32], ptr @w, i32 0, i32 %tid
  store i32 %t, ptr %q
  br label %join
join:
  %r = phi i32 [ %r1, %then1 ], [ %r2, %then2 ], [ %r3, %then3 ], [ -1, %else3 ]
  ret i32 %r
}

; transform boscc: --pass boscc,pl --uniform-args d
; expect transform boscc cfg:
;   h1 -> h1.boscc, then1
;   h1.boscc -> h2
;   h2 [p] -> h2.boscc, then2
;   h2.boscc [p] -> h3
;   h3 [p] -> h3.boscc, then3
;   h3.boscc [p] -> else3
;   else3 [p] -> then3
;   then3 [p] -> then2
;   then2 [p] -> then1
;   then1 [p] -> join
;   join -> ret
; run fr-6: --threads 4 --interp fr --arg d=6 --arg tid=0,1,2,3
; run boscc-6: --transform boscc --threads 4 --interp obl --arg d=6 --arg tid=0,1,2,3
; run fr-100: --threads 4 --interp fr --arg d=100 --arg tid=0,1,2,3
; run boscc-100: --transform boscc --threads 4 --interp obl --arg d=100 --arg tid=0,1,2,3
; expect fr-6 result: [1, 5, -1, -1]
; expect boscc-6 result: [1, 5, -1, -1]
; expect fr-6 memory: @w = [0, 0, 8, 12]
; expect boscc-6 memory: @w = [0, 0, 8, 12]
; expect fr-100 result: [1, 5, 9, 13]
; expect boscc-100 result: [1, 5, 9, 13]
; expect boscc-100 trace:
;   sc    | in                  | next                | cmask   | pmask   | amask   | i
;   h1    | ⊥ ⊥ ⊥ ⊥             | h1 h1 h1 h1         | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 1 1 1 1
;   then1 | h1 h1 h1 h1         | then1 then1 then1 then1 | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 0 0
;   join  | then1 then1 then1 then1 | join join join join | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □
