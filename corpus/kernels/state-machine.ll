;; Kernel: an IRREDUCIBLE state machine. Two states, A (v = 3v + 1) and B
;; (v = v >> 1), hand control to each other, and the entry block enters the cycle
;; {A, B} at either state, by the parity of the lane's input: the cycle has two
;; entry blocks, so neither dominates the other and there is no natural loop
;; (thesis §2.4; "RV ... vectorizing any LLVM IR program with reducible control
;; flow", §13.5, so RV itself would reject it, while P-LLVM's semantics runs it).
;; Each state stops the lane when v leaves a range or after 8 steps:
;;   int machine(int x) {
;;     int v = x, s = 0;
;;     if (x & 1) goto A; else goto B;
;;   A: v = 3 * v + 1; s++;
;;      if (v > 100 || s == 8) goto done;
;;      goto B;
;;   B: v = v >> 1; s++;
;;      if (v < 2 || s == 8) goto done;
;;      goto A;
;;   done: return s * 1000 + v;
;;   }
;; as clang-19 -O1 emits it (value names kept; the gotos stay a two-entry cycle).
;; The result s * 1000 + v reads as "steps, final value".
;;
;; Derivation, x = [2, 33, 40, 3] (each state's v and s after it runs):
;;   lane 0, x = 2 (even, enters B):  B 1,1 -> 1 < 2: done.              1001
;;   lane 1, x = 33 (odd, enters A):  A 100,1 (100 is not > 100) | B 50,2 |
;;                                    A 151,3 > 100: done.               3151
;;   lane 2, x = 40 (even, enters B): B 20,1 | A 61,2 | B 30,3 | A 91,4 | B 45,5 |
;;                                    A 136,6 > 100: done.               6136
;;   lane 3, x = 3 (odd, enters A):   A 10,1 | B 5,2 | A 16,3 | B 8,4 | A 25,5 |
;;                                    B 12,6 | A 37,7 | B 18,8: s = 8, done. 8018
;; FREEZING: [1001, 3151, 6136, 8018], the results of the lanes alone (W = 1 runs).
;;
;; Lock step. pllvm check reports the function irreducible. With no natural loop,
;; the block index is the reverse postorder of the documented DFS (successor 0
;; first): entry -> A -> done, then B (whose edge B -> A closes the cycle and is
;; the DFS's retreating edge): entry, A, B, done. The greedy lowest-index
;; schedule: entry; A (lanes 1, 3; lanes 0, 2 wait at B, and reach A only over
;; the back edge B -> A, so A is synchronizing, Def. 17; B is not: lanes 1 and 3
;; reach it over the edge A -> B, which is no back edge); B (all four lanes: lane
;; 0 leaves); A (lanes 1, 2, 3: lane 1 leaves); B, A, B, A (lanes 2, 3: lane 2
;; leaves in the 4th A); B (lane 3 leaves); done:
;;   entry, A, B, A, B, A, B, A, B, done.
;; At every step exactly one block is synchronizing, so this is the only greedy
;; schedule: exploring all of them (runs all, all-obl) finds this one outcome.
;; The lanes entered the cycle at different blocks, yet from the first B on they
;; run it together, each in its own phase (lanes 0 and 2 are one step behind).
;; OBLIVIOUS: done reads %va.next or %vb.next, %sa.next or %sb.next (by the block
;; the lane left from). Lane 0 left from the 1st B and lane 1 from the 2nd A; the
;; later, passive B's and A's write ⊤ to those: ⊤. Lane 2 left from the last A
;; and lane 3 from the last B: 6136 and 8018. Result [⊤, ⊤, 6136, 8018]: a
;; divergent irreducible cycle has the live-out problem of a divergent loop.
;; (The first A also runs passively for lanes 0 and 2, which wait at B: it writes
;; ⊤ to their A values, but their first B reads x over the edge from entry.)
; run fr: --threads 4 --interp fr --arg x=2,33,40,3
; run obl: --threads 4 --interp obl --arg x=2,33,40,3
; run all: --threads 4 --interp fr --arg x=2,33,40,3 --explore
; run all-obl: --threads 4 --interp obl --arg x=2,33,40,3 --explore
; run lane0: --threads 1 --interp fr --arg x=2
; run lane1: --threads 1 --interp fr --arg x=33
; run lane2: --threads 1 --interp fr --arg x=40
; run lane3: --threads 1 --interp fr --arg x=3
; expect outcome: returned
; expect fr result: [1001, 3151, 6136, 8018]
; expect obl result: [⊤, ⊤, 6136, 8018]
; expect all outcomes: [1001, 3151, 6136, 8018]
; expect all-obl outcomes: [⊤, ⊤, 6136, 8018]
; expect lane0 result: [1001]
; expect lane1 result: [3151]
; expect lane2 result: [6136]
; expect lane3 result: [8018]
; expect fr schedule: entry, A, B, A, B, A, B, A, B, done
; expect obl schedule: entry, A, B, A, B, A, B, A, B, done
; expect lane0 schedule: entry, B, done
; expect lane1 schedule: entry, A, B, A, done
; expect fr trace:
;   sc    | in      | next    | cmask   | pmask   | amask   | i
;   entry | ⊥ ⊥ ⊥ ⊥ | entry entry entry entry | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 1 0 1 0
;   A     | entry entry entry entry | B A B A | 0 1 0 1 | 1 1 1 1 | 0 1 0 1 | ⊤ 1 ⊤ 1
;   B     | entry A entry A | B B B B | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 1 1 1
;   A     | B B B B | done A A A | 0 1 1 1 | 1 1 1 1 | 0 1 1 1 | ⊤ 0 1 1
;   B     | B A A A | done done B B | 0 0 1 1 | 1 1 1 1 | 0 0 1 1 | ⊤ ⊤ 1 1
;   A     | B A B B | done done A A | 0 0 1 1 | 1 1 1 1 | 0 0 1 1 | ⊤ ⊤ 1 1
;   B     | B A A A | done done B B | 0 0 1 1 | 1 1 1 1 | 0 0 1 1 | ⊤ ⊤ 1 1
;   A     | B A B B | done done A A | 0 0 1 1 | 1 1 1 1 | 0 0 1 1 | ⊤ ⊤ 0 1
;   B     | B A A A | done done done B | 0 0 0 1 | 1 1 1 1 | 0 0 0 1 | ⊤ ⊤ ⊤ 0
;   done  | B A A B | done done done done | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □

define dso_local i32 @machine(i32 noundef %x) local_unnamed_addr #0 {
entry:
  %and = and i32 %x, 1
  %tobool = icmp ne i32 %and, 0
  br i1 %tobool, label %A, label %B

A:
  %va = phi i32 [ %x, %entry ], [ %vb.next, %B ]
  %sa = phi i32 [ 0, %entry ], [ %sb.next, %B ]
  %mul = mul nsw i32 %va, 3
  %va.next = add nsw i32 %mul, 1
  %sa.next = add nsw i32 %sa, 1
  %cmp = icmp sgt i32 %va.next, 100
  %cmp1 = icmp eq i32 %sa.next, 8
  %or.cond = or i1 %cmp, %cmp1
  br i1 %or.cond, label %done, label %B

B:
  %vb = phi i32 [ %x, %entry ], [ %va.next, %A ]
  %sb = phi i32 [ 0, %entry ], [ %sa.next, %A ]
  %vb.next = ashr i32 %vb, 1
  %sb.next = add nsw i32 %sb, 1
  %cmp2 = icmp slt i32 %vb.next, 2
  %cmp3 = icmp eq i32 %sb.next, 8
  %or.cond4 = or i1 %cmp2, %cmp3
  br i1 %or.cond4, label %done, label %A

done:
  %v = phi i32 [ %va.next, %A ], [ %vb.next, %B ]
  %s = phi i32 [ %sa.next, %A ], [ %sb.next, %B ]
  %mul5 = mul nsw i32 %s, 1000
  %add = add nsw i32 %mul5, %v
  ret i32 %add
}

attributes #0 = { nofree norecurse nosync nounwind memory(none) uwtable }
