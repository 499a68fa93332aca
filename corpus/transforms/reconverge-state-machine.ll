;; Reconverging CFGs on irreducible control flow: a two-state machine. The entry
;; branches into the cycle S0 <-> S1 at either state, so the cycle has two
;; entries (LLVM's "Convergence and Uniformity": an irreducible cycle). Inside
;; S1 a divergent if-else on the thread id's parity needs a flow block. The
;; entry choice is the uniform argument %m, so that the loop the route builds is
;; uniform; entered per lane, the loop is divergent and the route runs the
;; divergent loop transform (thesis §9.1) on it first
;; (differential/tests/reconverge.rs, state_machine_entered_per_lane).
;;
;; Step 1 (codegen/src/reconverge/irreducible.rs, LLVM's FixIrreducible): the
;; cycle {S0, S1, S1odd, S1even, S1j} has entries S0 (its DFS header) and S1.
;; Every edge into them (entry -> S0, entry -> S1, S1j -> S0, S0 -> S1) now goes
;; to the new block irr.dispatch, placed before S0: entry computes
;; %irr.entry.from = select %c, 0, 1 and branches there, S0 gives index 1, S1j
;; index 0; irr.dispatch has %irr.entry = phi [%irr.entry.from, entry], [1, S0],
;; [0, S1j], takes over the phis of S0 and S1 (their arms per edge, undef where
;; the edge went to the other entry) and branches `br (%irr.entry == 0), S0, S1`.
;; It heads a natural loop with latches S0 and S1j.
;; Step 2, the divergent loop transform (codegen/src/dlt.rs) finds the loop
;; uniform (%irr.entry, the counters and the exit tests depend on %m and %n
;; only; S1's divergent branch joins at S1j before the latches) and keeps it,
;; after its normalization (thesis §2.4): the two latches are funnelled into
;; irr.dispatch.latch, placed after the latch that comes last in reverse
;; postorder (the DFS goes entry, irr.dispatch, S0 (successor 0), done before it
;; returns to S1, so S1 and its blocks come before S0 in reverse postorder and S0
;; is the last latch), and the exit edges S0 -> done and S1j -> done get blocks
;; of their own, S0.done.exit and S1j.done.exit, after their exiting blocks.
;; Step 3, normal form: one exit already, one latch. The latch only branches
;; back, so it forward-reaches nothing after the loop (Def. 16): lanes waiting
;; there would not hold back the blocks after it (Def. 17). It gets the
;; never-taken edge `br i1 true, irr.dispatch, irr.dispatch.exits`, a new block
;; after the latch that `switch`es on the constant 0 to the loop's exits in
;; reverse postorder (default S1j.done.exit, case 1 S0.done.exit: the DFS reached
;; S1j's exit before it came back to S0).
;; The walk, block index entry, irr.dispatch, S1, S1even, S1odd, S1j, S0,
;; irr.dispatch.latch, then the blocks after the loop (S1 before S0 and S1even
;; before S1odd by reverse postorder; the latch is the loop's last block). Only
;; S1 is divergent:
;;   S1even closes S1 -> S1even and arms S1; visiting S1odd finds the open edges
;;   S1 -> S1odd and S1even -> S1j in S1's subtree: rerouted through flow0 (to
;;   S1odd from S1, to S1j from S1even), placed after S1even. S1j closes flow0's
;;   last edge; the rest are uniform branches, kept as they are.
;; Definition 1: S1 -> {flow0, S1even}, flow0 post-dominates S1; flow0 ->
;; {S1odd, S1j}, S1j post-dominates flow0.
;;
;; Runs, W = 3, t = [0, 1, 2] (lane 1 odd). Each lane alternates states for %n
;; steps: S0 adds 3; S1 doubles on an odd lane and adds 1 on an even one.
;;   m = 1, n = 3 (start in S1): t=0: 0+1=1, 1+3=4, 4+1=5; t=1: 2, 5, 10;
;;     t=2: 3, 6, 7. Result [5, 10, 7].
;;   m = 0, n = 4 (start in S0): t=0: 3, 4, 7, 8; t=1: 4, 8, 11, 22;
;;     t=2: 5, 6, 9, 10. Result [8, 22, 10].
;; Under OBLIVIOUS every lane runs the same number of dispatch iterations (the
;; loop is uniform) and flow0 joins S1's two arms before the latch, so each
;; block runs once per iteration with every lane that needs it.
; transform rc: --pass reconverge --uniform-args n,m
; expect transform rc cfg:
;   entry -> irr.dispatch
;   irr.dispatch -> S0, S1
;   S0 -> irr.dispatch.latch, S0.done.exit
;   S0.done.exit -> done
;   irr.dispatch.latch -> irr.dispatch, irr.dispatch.exits
;   irr.dispatch.exits -> S1j.done.exit, S0.done.exit
;   S1 -> flow0, S1even
;   S1odd -> S1j
;   S1even -> flow0
;   flow0 -> S1odd, S1j
;   S1j -> irr.dispatch.latch, S1j.done.exit
;   S1j.done.exit -> done
;   done -> ret
; run fr1: --threads 3 --interp fr --arg n=3 --arg m=1
; run rc1: --transform rc --threads 3 --interp obl --arg n=3 --arg m=1
; run fr0: --threads 3 --interp fr --arg n=4 --arg m=0
; run rc0: --transform rc --threads 3 --interp obl --arg n=4 --arg m=0
; expect outcome: returned
; expect fr1 result: [5, 10, 7]
; expect rc1 result: [5, 10, 7]
; expect fr0 result: [8, 22, 10]
; expect rc0 result: [8, 22, 10]
define i32 @sm(i32 %n, i32 %m) {
entry:
  %t = call i32 @pllvm.thread_id()
  %sel = and i32 %m, 1
  %c = icmp eq i32 %sel, 0
  br i1 %c, label %S0, label %S1
S0:
  %x0 = phi i32 [ %t, %entry ], [ %x1n, %S1j ]
  %k0 = phi i32 [ 0, %entry ], [ %k1n, %S1j ]
  %x0n = add i32 %x0, 3
  %k0n = add i32 %k0, 1
  %d0 = icmp slt i32 %k0n, %n
  br i1 %d0, label %S1, label %done
S1:
  %x1 = phi i32 [ %t, %entry ], [ %x0n, %S0 ]
  %k1 = phi i32 [ 0, %entry ], [ %k0n, %S0 ]
  %bit = and i32 %t, 1
  %odd = icmp eq i32 %bit, 1
  br i1 %odd, label %S1odd, label %S1even
S1odd:
  %xo = mul i32 %x1, 2
  br label %S1j
S1even:
  %xe = add i32 %x1, 1
  br label %S1j
S1j:
  %x1n = phi i32 [ %xo, %S1odd ], [ %xe, %S1even ]
  %k1n = add i32 %k1, 1
  %d1 = icmp slt i32 %k1n, %n
  br i1 %d1, label %S0, label %done
done:
  %r = phi i32 [ %x0n, %S0 ], [ %x1n, %S1j ]
  ret i32 %r
}
