;; Reconverging CFGs: a divergent three-way switch. Definition 1 asks a
;; non-uniform condition node for exactly two successors, so the route first
;; turns the switch into a chain of two-way branches (a uniform switch would
;; stay): entry: br (k == 0), A, entry.sw1; entry.sw1: br (k == 1), B, D. Then
;; neither successor of entry or of entry.sw1 post-dominates it.
;;
;; The walk. Block index (thesis §2.5) of the chained CFG: entry, entry.sw1, D,
;; B, A, J (entry's dominator-tree children are A, entry.sw1 and J, with J last;
;; A and entry.sw1 tie and go by reverse postorder, where the DFS took A first,
;; so entry.sw1 comes first; within entry.sw1, D before B the same way).
;;   entry, entry.sw1: entry.sw1 closes entry -> entry.sw1, entry is armed.
;;   D: entry.sw1 -> D closes, entry.sw1 is armed.
;;   B: armed predecessor entry.sw1; its subtree {entry.sw1, D} has the open
;;      edges entry.sw1 -> B and D -> J: rerouted through flow0 (to B when coming
;;      from entry.sw1, to J from D). B is attached below flow0 (first successor).
;;   A: armed predecessor entry; its subtree now {entry, flow0, B} has the open
;;      edges entry -> A, flow0 -> J and B -> J: rerouted through flow1 (to A
;;      from entry, to J from flow0 and B). flow0 keeps B and sends the rest to
;;      flow1: br %to.B, B, flow1.
;;   J: the open edges of {flow1, A} all go to J.
;; Result, a cascade: entry -> {flow1, entry.sw1}, entry.sw1 -> {flow0, D},
;; flow0 -> {B, flow1}, flow1 -> {A, J}; each primary successor (flow1, flow0,
;; flow1, J) post-dominates its branch. Flow blocks go after their last
;; predecessor in the layout.
;;
;; Runs, x = 4, W = 3: t = [0, 1, 2], k = t mod 3 = [0, 1, 2]: lane 0 takes A
;; (14), lane 1 B (24), lane 2 D (34).
;; OBL output, lowest-index greedy schedule (output block index entry,
;; entry.sw1, D, flow0, B, flow1, A, J): entry (lane 0 to flow1, lanes 1, 2 to
;; entry.sw1); entry.sw1 (lane 1 to flow0, lane 2 to D; flow1 waits, Def. 17);
;; D (lane 2); flow0 (lanes 1, 2: %to.B = [-, 1, 0]); B (lane 1); flow1 (all:
;; %to.A = [1, 0, 0]); A (lane 0); J (all): [14, 24 via flow1 from B, 34 via
;; flow1 from flow0 from D].
; transform rc: --pass reconverge --uniform-args x
; expect transform rc cfg:
;   entry -> flow1, entry.sw1
;   entry.sw1 -> flow0, D
;   A -> J
;   B -> flow1
;   D -> flow0
;   flow0 -> B, flow1
;   flow1 -> A, J
;   J -> ret
; run fr: --threads 3 --interp fr --arg x=4
; run rc-obl: --transform rc --threads 3 --interp obl --arg x=4
; expect outcome: returned
; expect result: [14, 24, 34]
; expect rc-obl trace:
;   sc        | in                        | next                      | cmask | pmask | amask | i
;   entry     | ⊥ ⊥ ⊥                     | entry entry entry         | 1 1 1 | 1 1 1 | 1 1 1 | 0 1 1
;   entry.sw1 | entry entry entry         | flow1 entry.sw1 entry.sw1 | 0 1 1 | 1 1 1 | 0 1 1 | ⊤ 0 1
;   D         | entry entry.sw1 entry.sw1 | flow1 flow0 D             | 0 0 1 | 1 1 1 | 0 0 1 | ⊤ ⊤ 0
;   flow0     | entry entry.sw1 D         | flow1 flow0 flow0         | 0 1 1 | 1 1 1 | 0 1 1 | ⊤ 0 1
;   B         | entry flow0 flow0         | flow1 B flow1             | 0 1 0 | 1 1 1 | 0 1 0 | ⊤ 0 ⊤
;   flow1     | entry B flow0             | flow1 flow1 flow1         | 1 1 1 | 1 1 1 | 1 1 1 | 0 1 1
;   A         | flow1 flow1 flow1         | A J J                     | 1 0 0 | 1 1 1 | 1 0 0 | 0 ⊤ ⊤
;   J         | A flow1 flow1             | J J J                     | 1 1 1 | 1 1 1 | 1 1 1 | □ □ □
define i32 @sw(i32 %x) {
entry:
  %t = call i32 @pllvm.thread_id()
  %k = urem i32 %t, 3
  switch i32 %k, label %D [ i32 0, label %A
                            i32 1, label %B ]
A:
  %a = add i32 %x, 10
  br label %J
B:
  %b = add i32 %x, 20
  br label %J
D:
  %d = add i32 %x, 30
  br label %J
J:
  %r = phi i32 [ %a, %A ], [ %b, %B ], [ %d, %D ]
  ret i32 %r
}
