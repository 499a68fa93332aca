;; Thesis Fig. 7.3 (§7.1): the high-level walkthrough of global_joins for a
;; divergent branch in the loop header A. The picture did not survive; rebuilt
;; from the prose: "its successors B and D are possible concurrent next blocks";
;; "scheduling B, then C and finally D will make the two threads join in D";
;; "the loop exits of inner-most loop that contains A. These are the blocks E and
;; F"; "There are no two almost node-disjoint paths from A to E and F"; E and F
;; join at X. So: P → A; A → {B, D}; B → {E, C}; C → {F, D}; D → A (the latch);
;; E → X; F → X (both exits leave after B, so every path from A to E or F passes
;; B). The exit tests in B and C are uniform counter tests; A's test is varying
;; and changes with the iteration, so lanes take B in different iterations.
;; Derivation (Listings 4-7): local_joins({B, D}) in lp(A): PushDef gives B to C
;; and the exits E, F; D holds D, so PushDef(D, B) from C makes D a sync block;
;; the latch pushes D into DomMap[A]. local_exits: HeaderDef = D ≠ B = DomMap[E]
;; = DomMap[F]: E, F are divergent loop exits (tdep). Collapsing lp(A) into a node
;; with divergent successors E, F, local_joins finds X. So sdep {D, X}, tdep
;; {E, F}, exactly the prose's result. POPL'21: in G⋆ A's edges go to E and F;
;; labelDisj from {B, D} labels C with B and A with D, so E (from B and A), F
;; (from C and A), D (a source reached from C) and X are joins: the same blocks.
;; %x in D, the LCSSA phis %ie, %if and %r in X are varying; the counter %i is
;; uniform; B's and C's branches are uniform.
;; Run, W = 2: i = 0: lane 0 (t + i even) goes B → C → D, lane 1 goes D; x = [1, 2].
;; i = 1: lane 1 goes B → E (it leaves with i = 1), lane 0 goes D. i = 2: lane 0
;; goes B → E with i = 2. E runs once with both lanes: ie = [2, 1]: temporal
;; divergence at E, as the prose's schedule (Fig. 7.3c) shows. The last value of
;; x is 2 in both lanes (lane 0 passed D last at i = 1 coming from A).
;; Activation: B post-dominates A, yet in each iteration the lanes that take
;; A → D skip B (and the lane that left skips every later iteration): B and C run
;; with some lanes only (see the note on activation in analysis/src/thesis.rs).
; run: --threads 2
; expect outcome: returned
; expect result: [2, 1]
; expect env: %x = [2, 2]

define i32 @f() {
P:
  %t = call i32 @pllvm.thread_id()      ; expect: varying
  br label %A

A:                                      ; expect: varying
  %i = phi i32 [ 0, %P ], [ %i.next, %D ] ; expect: uniform
  %ti = add i32 %t, %i                  ; expect: varying
  %odd = and i32 %ti, 1                 ; expect: varying
  %c = icmp eq i32 %odd, 0              ; expect: varying
  br i1 %c, label %B, label %D          ; expect: varying

B:
  %b = icmp uge i32 %i, 1               ; expect: uniform
  br i1 %b, label %E, label %C          ; expect: uniform

C:
  %cc = icmp uge i32 %i, 2              ; expect: uniform
  br i1 %cc, label %F, label %D         ; expect: uniform

D:
  %x = phi i32 [ 1, %C ], [ 2, %A ]     ; expect: varying
  %i.next = add i32 %i, 1               ; expect: uniform
  br label %A

E:
  %ie = phi i32 [ %i, %B ]              ; expect: varying
  br label %X

F:
  %if = phi i32 [ %i, %C ]              ; expect: varying
  br label %X

X:                                      ; expect: uniform
  %r = phi i32 [ %ie, %E ], [ %if, %F ] ; expect: varying
  ret i32 %r
}
