;; Reconverging-CFG poster, Fig. 2a and Fig. 4: the branch in A diverges and
;; neither successor post-dominates A (Definition 1 fails: "every non-uniform
;; condition node has exactly two successors, one of which post-dominates it").
;; The picture did not survive; rebuilt as the smallest CFG the captions fit:
;; A -> {B, C}, B -> D, C -> D, with the branch on the thread id.
;;
;; The walk (codegen/src/reconverge/open_tree.rs). The block index (thesis §2.5)
;; orders A, C, B, D (B and C are both children of A in the dominator tree with
;; no edge between them; the tie goes by the reverse postorder of the DFS that
;; takes A's successor 0, B, first, which puts C before B): Fig. 4's order.
;;   A: attached to the root; open edges A -> B, A -> C.
;;   C: attached below A; A -> C closes, A is divergent, so A is armed (Fig. 4b).
;;   B: A is an armed predecessor; its subtree {A, C} has open edges A -> B and
;;      C -> D, and D is not B: both are rerouted through flow0 (Fig. 4c). A's
;;      branch keeps C and sends its B edge to flow0; C now ends in flow0.
;;      flow0 gets %to.B = phi [true, A], [false, C]. flow0 is visited at once
;;      (A and C leave the tree, no open edges), then B below flow0 (Fig. 4d),
;;      which arms flow0 with first successor B.
;;   D: flow0 is an armed predecessor; the open edges of {flow0, B} all go to D:
;;      nothing to reroute. Everything closes: the tree is just the root.
;; flow0 ends in `br %to.B, B, D`; D's phi reads %b from B and, through a new
;; phi in flow0, %cv from C (Fig. 3: phis at flow blocks keep the original
;; control flow). Definition 1: A -> {flow0, C}, flow0 post-dominates A;
;; flow0 -> {B, D}, D post-dominates flow0. Layout: flow0 after its last
;; predecessor C.
;;
;; Runs, x = 1, W = 3: t = [0, 1, 2], c = t < 1 = [1, 0, 0].
;;   FR input: lane 0 takes B: 0 + 100 = 100; lanes 1, 2 take C: 10, 20.
;;   OBL output, lowest-index greedy schedule (output block index A, C, flow0,
;;   B, D): A (all lanes; lane 0 heads to flow0, lanes 1, 2 to C); C (lanes 1,
;;   2; flow0 waits, C reaches it, Def. 17); flow0 (all three: %to.B = [1, 0, 0]);
;;   B (lane 0; D waits for it); D (all): %r = [100 from B, 10, 20 via flow0].
;;   No block runs twice, so no value OBLIVIOUS overwrites is read.
; transform rc: --pass reconverge --uniform-args x
; expect transform rc cfg:
;   A -> flow0, C
;   B -> D
;   C -> flow0
;   flow0 -> B, D
;   D -> ret
; run fr: --threads 3 --interp fr --arg x=1
; run rc-obl: --transform rc --threads 3 --interp obl --arg x=1
; expect outcome: returned
; expect result: [100, 10, 20]
; expect rc-obl trace:
;   sc    | in                | next              | cmask | pmask | amask | i
;   A     | ⊥ ⊥ ⊥             | A A A             | 1 1 1 | 1 1 1 | 1 1 1 | 0 1 1
;   C     | A A A             | flow0 C C         | 0 1 1 | 1 1 1 | 0 1 1 | ⊤ 0 0
;   flow0 | A C C             | flow0 flow0 flow0 | 1 1 1 | 1 1 1 | 1 1 1 | 0 1 1
;   B     | flow0 flow0 flow0 | B D D             | 1 0 0 | 1 1 1 | 1 0 0 | 0 ⊤ ⊤
;   D     | B flow0 flow0     | D D D             | 1 1 1 | 1 1 1 | 1 1 1 | □ □ □
define i32 @fig2a(i32 %x) {
A:
  %t = call i32 @pllvm.thread_id()
  %c = icmp slt i32 %t, %x
  br i1 %c, label %B, label %C
B:
  %b = add i32 %t, 100
  br label %D
C:
  %cv = mul i32 %t, 10
  br label %D
D:
  %r = phi i32 [ %b, %B ], [ %cv, %C ]
  ret i32 %r
}
