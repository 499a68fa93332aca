;; Reading (semantics/RULES.md, "Readings", 3): Def. 17 in loop-free code, where a
;; lane's ℓ_next = ⊤ ([PC-ND-BRANCH]) accepts several successors.
;; E -> A; A is predicated by p = (x != 0) and branches to B or C; B -> C; C's
;; phi tells whether B ran. With x = 0 both lanes execute A passively (cmask 1,
;; pmask 0) and leave it with in = A, next = ⊤: each accepts B and C (Def. 6).
;;
;; Def. 17: scheduling ℓ_sync is synchronizing if ∀t. ℓ ∈ fwdreaching(ℓ_sync) ⟹
;; ¬cmask(t, ℓ). Read as written, for every lane, including the lanes the step
;; carries along:
;;   B: lanes accept B and C; C ∉ fwdreaching(B) (C -> return): synchronizing.
;;      Progress (Def. 14): no lane has next = B, but both lanes' guide sets are
;;      empty (no lane with in = A has a block as next), clause 2. Legal.
;;   C: B ∈ fwdreaching(C) (the forward edge B -> C) and cmask(lane 0, B) = 1 (⊤
;;      and the edge A -> B, not a back edge): not synchronizing, witness lane 0.
;;   E, A: no lane's control mask is set (Def. 14).
;; So every greedy schedule is E, A, B, C and the result is [1, 1]: one outcome.
;; The reading in force before counted only lanes whose control mask for the
;; scheduled block is 0, accepted E, A, C as well (result [0, 0]) and made
;; `explore` report two outcomes ("schedule-independent: no").
;; Fig. 5.5 is unaffected (schedules/fig5.5-termination-legality.ll): there the ⊤
;; lane reaches its loop B again only by the back edge B -> B, which Def. 17's
;; "without taking a backedge" (§5.2) does not count.
;; Trace of E, A, B, C: A: pmask 0 0, i = ⊤ ⊤; B: next ⊤ ⊤, both active (B has no
;; predicate), i = 0 0; C: both from B, ranb = [1, 1].
; run after-ea: --threads 2 --interp fr --schedule E,A --arg x=0
; run skip: --threads 2 --interp fr --schedule E,A,C --arg x=0
; run greedy: --threads 2 --interp fr --schedule E,A,B,C --arg x=0
; run lowest: --threads 2 --interp fr --sched lowest --arg x=0
; run highest: --threads 2 --interp fr --sched highest --arg x=0
; run all: --threads 2 --interp fr --explore --arg x=0
; expect after-ea outcome: incomplete
; expect after-ea legal: B
; expect after-ea illegal: C (Def. 17, lane 0), E (Def. 14), A (Def. 14)
; expect skip first violation: C at step 3 (Def. 17, lane 0)
; expect skip result: [0, 0]
; expect greedy first violation: none
; expect greedy result: [1, 1]
; expect greedy trace:
;   sc | in  | next | cmask | pmask | amask | i
;   E  | ⊥ ⊥ | E E  | 1 1   | 1 1   | 1 1   | 0 0
;   A  | E E | A A  | 1 1   | 0 0   | 0 0   | ⊤ ⊤
;   B  | A A | ⊤ ⊤  | 1 1   | 1 1   | 1 1   | 0 0
;   C  | B B | C C  | 1 1   | 1 1   | 1 1   | □ □
; expect lowest schedule: E,A,B,C
; expect lowest result: [1, 1]
; expect highest schedule: E,A,B,C
; expect highest result: [1, 1]
; expect all outcomes: [1, 1]

define i32 @f(i32 %x) {
E:
  %p = icmp ne i32 %x, 0
  %c = icmp eq i32 %x, 5
  br label %A

A:
  predicate %p
  br i1 %c, label %B, label %C

B:
  br label %C

C:
  %ranb = phi i32 [ 1, %B ], [ 0, %A ]
  ret i32 %ranb
}
