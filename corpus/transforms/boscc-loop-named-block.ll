;; A BOSCC gadget inside a uniform loop, placed by name (`--boscc B`, §9.2):
;; B runs in the iteration where i + tid = 3, for at most one lane at a time.
;;
;; After the gadget: H branches on any(mask() ∧ %c) to H.boscc (which holds the
;; divergent branch to B or L) or straight to L. Normal form: the entry is H's
;; dedicated preheader already, and L its only latch. Block index entry, H,
;; H.boscc, B, L, X. Listing 8: H uniform: H -> H.boscc, L; H.boscc divergent:
;; next = min{B, L} = B, (B, L) deferred; B: next = L; L keeps its back edge
;; (§8.3) and exits to X. Only B is predicated: H, H.boscc and L have a uniform
;; activation (the loop runs with every lane, Theorem 4).
;;
;; n = 2, tid = 0..3: lane 3 adds 100 in iteration 0, lane 2 in iteration 1.
;; tid = 0 everywhere: i + tid never reaches 3, every any is false, and B is
;; never scheduled: entry, H, L, H, L, X.
define i32 @g(i32 %tid, i32 %n) {
entry:
  br label %H
H:
  %i = phi i32 [0, %entry], [%i1, %L]
  %s = phi i32 [0, %entry], [%s2, %L]
  %k = add i32 %i, %tid
  %c = icmp eq i32 %k, 3
  br i1 %c, label %B, label %L
B:
  %s1 = add i32 %s, 100
  br label %L
L:
  %s2 = phi i32 [%s1, %B], [%s, %H]
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %H, label %X
X:
  ret i32 %s2
}

; transform boscc: --pass boscc,pl --boscc B --uniform-args n
; expect transform boscc cfg:
;   entry -> H
;   H -> H.boscc, L
;   H.boscc -> B
;   B [p] -> L
;   L -> H, X
;   X -> ret
; run fr-mixed: --threads 4 --interp fr --arg n=2 --arg tid=0,1,2,3
; run boscc-mixed: --transform boscc --threads 4 --interp obl --arg n=2 --arg tid=0,1,2,3
; run fr-zero: --threads 4 --interp fr --arg n=2 --arg tid=0
; run boscc-zero: --transform boscc --threads 4 --interp obl --arg n=2 --arg tid=0
; expect fr-mixed result: [0, 0, 100, 100]
; expect boscc-mixed result: [0, 0, 100, 100]
; expect fr-zero result: [0, 0, 0, 0]
; expect boscc-zero result: [0, 0, 0, 0]
; expect boscc-zero trace:
;   sc    | in          | next            | cmask   | pmask   | amask   | i
;   entry | ⊥ ⊥ ⊥ ⊥     | entry entry entry entry | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 0 0
;   H     | entry entry entry entry | H H H H | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 1 1 1 1
;   L     | H H H H     | L L L L         | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 0 0
;   H     | L L L L     | H H H H         | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 1 1 1 1
;   L     | H H H H     | L L L L         | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 1 1 1 1
;   X     | L L L L     | X X X X         | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □
