;; Thesis Fig. 7.7a (§7.4.1): local_joins for the divergent block 2, revisiting
;; Fig. 7.6a (a loop with two uniform exits W, X and two divergent exits Y, Z).
;; The picture did not survive; rebuilt from the prose: "3 and 5, its immediate
;; successors are in DivSuccSet. The ParentLoop ... comprises the block index range
;; 0 to 5"; "When PushDef(5, 4) is called ... 5 [is added] to the set of
;; SyncBlocks"; "ReachedExits = {8, 9}"; "The loop exit 7 is not forward-reachable
;; from 2". So: header b0 → {b1, b6}; b1 → {b2, b7}; b2 → {b3, b5}; b3 → {b4, b8};
;; b4 → {b5, b9}; b5 → b0 (latch). b6, b7 are the uniform exits W, X (the figure's
;; block 6 is not described; taken as W, leaving from the header), b8, b9 the
;; divergent exits Y, Z; all four meet in b10. An entry block comes first (a
;; header cannot be the entry).
;; Derivation (Listings 4-7): PushDef(b3, b3), PushDef(b5, b5); rpo: b3 pushes b3
;; to b4 and the exit b8; b4 pushes b3 to b5 (holding b5: sync block) and to the
;; exit b9; the latch pushes b5 to the header. local_exits: HeaderDef = b5, b8 and
;; b9 hold b3: divergent exits (tdep {b8, b9}); b6, b7 are never reached: uniform.
;; The collapsed loop (divergent b8, b9; uniform b6, b7) joins at b10: sdep {b5,
;; b10}. POPL'21 on G⋆ (b0 → b6, b7, b8, b9) finds the same joins.
;; Uniform exit tests: b0 leaves at i ≥ 3, b1 at i ≥ 5 (never first), b3 at i ≥ 1,
;; b4 at i ≥ 2; b2's test (t + i even) is varying.
;; Run, W = 2: i = 0: lane 0 takes b3 → b4 → b5, lane 1 b5 (x = [1, 2]); i = 1:
;; lane 1 takes b3 → b8 (i = 1), lane 0 b5; i = 2: lane 0 takes b3 → b8 (i = 2):
;; i8 = [2, 1].
; run: --threads 2
; expect outcome: returned
; expect result: [2, 1]

define i32 @f() {
entry:
  %t = call i32 @pllvm.thread_id()      ; expect: varying
  br label %b0

b0:
  %i = phi i32 [ 0, %entry ], [ %i.next, %b5 ] ; expect: uniform
  %u0 = icmp uge i32 %i, 3              ; expect: uniform
  br i1 %u0, label %b6, label %b1       ; expect: uniform

b1:
  %u1 = icmp uge i32 %i, 5              ; expect: uniform
  br i1 %u1, label %b7, label %b2       ; expect: uniform

b2:
  %ti = add i32 %t, %i                  ; expect: varying
  %odd = and i32 %ti, 1                 ; expect: varying
  %v = icmp eq i32 %odd, 0              ; expect: varying
  br i1 %v, label %b3, label %b5        ; expect: varying

b3:
  %u3 = icmp uge i32 %i, 1              ; expect: uniform
  br i1 %u3, label %b8, label %b4       ; expect: uniform

b4:
  %u4 = icmp uge i32 %i, 2              ; expect: uniform
  br i1 %u4, label %b9, label %b5       ; expect: uniform

b5:
  %x = phi i32 [ 1, %b4 ], [ 2, %b2 ]   ; expect: varying
  %i.next = add i32 %i, 1               ; expect: uniform
  br label %b0

b6:
  %i6 = phi i32 [ %i, %b0 ]             ; expect: uniform
  br label %b10

b7:
  %i7 = phi i32 [ %i, %b1 ]             ; expect: uniform
  br label %b10

b8:
  %i8 = phi i32 [ %i, %b3 ]             ; expect: varying
  br label %b10

b9:
  %i9 = phi i32 [ %i, %b4 ]             ; expect: varying
  br label %b10

b10:
  %r = phi i32 [ %i6, %b6 ], [ %i7, %b7 ], [ %i8, %b8 ], [ %i9, %b9 ] ; expect: varying
  ret i32 %r
}
