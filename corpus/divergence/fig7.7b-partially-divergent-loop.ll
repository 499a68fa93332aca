;; Thesis Fig. 7.7b (§7.4.1): a partially divergent loop, and why local_joins has
;; the symbol u. The picture did not survive; rebuilt from the prose: "The
;; divergent loop consists of the blocks in the range 1 to 4. The loop has one
;; divergent loop exit, its divergent successor 8 and two uniform exits, its
;; uniform successors 5 and 6. The parent loop of the partially divergent loop
;; includes all blocks except for 8, its only loop exit." "[5 and 6] are also the
;; only successors of the loop reaching 7. Hence {5, 6} ∉ Cnb and 7 is not sync
;; divergent." So: entry → b0 (outer header) → b1 (inner header); b1 → {b5, b2}
;; (uniform); b2 → {b8, b3} (divergent: lane t leaves when the outer counter
;; j ≥ t); b3 → {b6, b4} (uniform); b4 → b1 (inner latch); b5 → b7; b6 → b7;
;; b7 → b0 (outer latch); b8 returns.
;; Derivation: global_joins(b2): local_joins({b3, b8}) in the inner loop: b3 pushes
;; b3 to b4, the exit b6 and (b4) the header b1; local_exits: HeaderDef = b3 =
;; DomMap[b6] ≠ DomMap[b8] = b8: only b8 is a divergent exit. The collapsed inner
;; loop has divergent successor b8 and uniform successors b5, b6: in the outer
;; loop, PushDef(b7, u) twice: b7 is no join; b8 is a divergent exit of the outer
;; loop too. So sdep = {}, tdep = {b8}: the LCSSA phis of b5, b6 and the phi of b7
;; are uniform, the one of b8 is varying. POPL'21: in G⋆, b1 → {b5, b6, b8} and
;; b0 → {b8}; labelDisj from {b3, b8} labels b1, b5, b6, b7, b0 with b3: only
;; the source b8 (reached from b0 and b1) is a join. Same result.
;; Run, W = 2: each outer iteration runs the inner loop twice (i = 0, 1) and
;; leaves it through b6; lane t leaves through b8 in outer iteration j = t:
;; j8 = [0, 1].
; run: --threads 2
; expect outcome: returned
; expect result: [0, 1]

define i32 @f() {
entry:
  %t = call i32 @pllvm.thread_id()      ; expect: varying
  br label %b0

b0:
  %j = phi i32 [ 0, %entry ], [ %j.next, %b7 ] ; expect: uniform
  br label %b1

b1:
  %i = phi i32 [ 0, %b0 ], [ %i.next, %b4 ] ; expect: uniform
  %u1 = icmp eq i32 %i, 2               ; expect: uniform
  br i1 %u1, label %b5, label %b2       ; expect: uniform

b2:
  %v = icmp uge i32 %j, %t              ; expect: varying
  br i1 %v, label %b8, label %b3        ; expect: varying

b3:
  %u3 = icmp eq i32 %i, 1               ; expect: uniform
  br i1 %u3, label %b6, label %b4       ; expect: uniform

b4:
  %i.next = add i32 %i, 1               ; expect: uniform
  br label %b1

b5:
  %p5 = phi i32 [ %i, %b1 ]             ; expect: uniform
  br label %b7

b6:
  %p6 = phi i32 [ %i, %b3 ]             ; expect: uniform
  br label %b7

b7:
  %p7 = phi i32 [ %p5, %b5 ], [ %p6, %b6 ] ; expect: uniform
  %j.next = add i32 %j, %p7             ; expect: uniform
  br label %b0

b8:
  %j8 = phi i32 [ %j, %b2 ]             ; expect: varying
  ret i32 %j8
}
