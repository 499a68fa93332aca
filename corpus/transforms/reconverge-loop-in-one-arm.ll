;; A uniform loop in one arm of a divergent branch, tested at its header, so
;; that its latch Lt only branches back. Lane 0 runs the loop, lane 1 takes Y;
;; both meet at J and return from K.
;;
;; The input under OBLIVIOUS is not right on every greedy schedule, and the
;; reason is not a divergent loop: Def. 17 lets a block run while a lane waits
;; only at blocks that do not reach it along forward edges (Def. 15-16), and Lt's
;; only edge is the back edge, so Lt forward-reaches nothing after the loop.
;; With lane 0 waiting at Lt (after its first H), J may run for lane 1 alone:
;; %w = [⊤, 101] (lane 0 passive). If Lt runs next, lane 0 waits at H, which
;; reaches K, so K holds lane 1 back while lane 0 runs H, X and J again, alone:
;; J's commands write ⊤ into lane 1 (passive there), and K returns ⊤ for lane 1.
;; That is the IPD schedule of thesis Fig. 5.6 (a block run twice) come back.
;; FREEZING keeps lane 1's %w on that schedule too.
;;
;; The route (codegen/src/reconverge.rs). Step 1: reducible, nothing. Step 2:
;; the divergent loop transform finds the loop uniform (%n is uniform: every lane
;; in it leaves in the same iteration) and keeps it, after its normalization
;; (thesis §2.4): H's outside predecessor, entry, also branches to Y, so H gets
;; the preheader H.preheader (placed before H); the exit X has one predecessor
;; edge already. Step 3's normal form: the latch Lt reaches the loop's exit X
;; only through the back edge, so it gets a never-taken edge: `br i1 true, H, X`
;; (codegen/src/reconverge/normal_form.rs). Now Lt forward-reaches J, and no
;; block after the loop runs while a lane is in it.
;; The walk, block index entry, Y, H.preheader, H, Lt, X, J (entry's children
;; in the dominator tree: H.preheader, Y and J, J last; H.preheader and Y tie
;; and go by reverse postorder, where the DFS took H.preheader first, so Y comes
;; first; X after the loop {H, Lt}). Only entry is divergent.
;;   Y closes entry -> Y and arms entry. At H.preheader, entry's subtree {entry,
;;   Y} has the open edge Y -> J: flow0 takes entry -> H.preheader and Y -> J
;;   (placed after its last predecessor, Y) and H.preheader attaches below it.
;;   H, Lt and X are uniform; at J the open edges of flow0's subtree (flow0 -> J,
;;   X -> J) all go to J. K is uniform.
;; Definition 1: entry -> {flow0, Y}, flow0 post-dominates entry; flow0 ->
;; {H.preheader, J}, J post-dominates flow0.
;;
;; Runs, n = 2, W = 2: lane 0 (t = 0) runs H with i = 0 (i1 = 1 < 2, to Lt), H
;; with i = 1 (i1 = 2, to X): %v = 2, %w = 2, %z = 3. Lane 1: %v = 100,
;; %w = 101, %z = 102.
;;   FR input, every greedy schedule: [3, 102].
;;   OBL input: [3, 102], or [3, ⊤] on entry, H, Y, J, Lt, H, X, J, K (and the
;;     schedules that differ only in the order of H and Y).
;;   OBL output: entry; Y (flow0 waits, Y reaches it); flow0 (lane 0 to
;;     H.preheader, lane 1 to J); H.preheader, H, Lt, H, X for lane 0, J held
;;     back all along (Lt now reaches it); J and K for both: [3, 102] only.
; transform rc: --pass reconverge --uniform-args n
; expect transform rc cfg:
;   entry -> flow0, Y
;   H.preheader -> H
;   H -> Lt, X
;   Lt -> H, X
;   X -> J
;   Y -> flow0
;   flow0 -> H.preheader, J
;   J -> K
;   K -> ret
;; The same repair on the divergent loop transform's route: dlt keeps the uniform
;; loop but gives its latch Lt the never-taken edge to the exit X, so the join J
;; waits for the loop's lanes there too (every greedy schedule: one outcome).
; transform dlt: --pass dlt --uniform-args n
; run fr: --threads 2 --interp fr --arg n=2 --explore
; run naive-obl: --threads 2 --interp obl --arg n=2 --explore
; run rc-obl: --transform rc --threads 2 --interp obl --arg n=2 --explore
; expect fr outcomes: [3, 102]
; expect naive-obl outcomes: [3, 102] | [3, ⊤]
; expect rc-obl outcomes: [3, 102]
; run dlt-obl: --transform dlt --threads 2 --interp obl --arg n=2 --explore
; expect dlt-obl outcomes: [3, 102]
define i32 @f(i32 %n) {
entry:
  %t = call i32 @pllvm.thread_id()
  %c = icmp eq i32 %t, 0
  br i1 %c, label %H, label %Y
H:
  %i = phi i32 [ 0, %entry ], [ %i1, %Lt ]
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %Lt, label %X
Lt:
  br label %H
X:
  br label %J
Y:
  br label %J
J:
  %v = phi i32 [ %i1, %X ], [ 100, %Y ]
  %w = add i32 %v, %t
  br label %K
K:
  %z = add i32 %w, 1
  ret i32 %z
}
