;; Termination preservation (thesis §5.3) as a local verdict: a step after which
;; no schedule ever terminates is illegal when another step still can.
;; Program: A -> B; B, predicated by p = (x != 0), branches to L or C; L is an
;; endless loop (br label %L); C -> D; D returns 7. With x = 0 both lanes execute B
;; passively and leave it with next = ⊤ ([PC-ND-BRANCH]): each accepts L and C.
;;
;; State after A, B: both lanes in = B, next = ⊤.
;;   L and C both make progress (clause 2 of Def. 14: guide sets empty) and
;;   synchronize (Def. 17: both lanes have cmask 1 for either). After L, both lanes
;;   run L actively (no predicate) and get next = L again: the state repeats and
;;   no other block is ever schedulable, so no schedule from there terminates.
;;   After C, D terminates both lanes. So L is illegal by §5.3 and C is legal.
;;   A, B, D: no lane's control mask is set (Def. 14).
;; lowest: legal sets {A}, {B}, {C}, {D} (one block each, whatever the block
;;   index): A, B, C, D, result [7, 7].
;; ipd: A, B; after B no lane branched actively (both next = ⊤), so the stack
;;   follows successor 0, L, which breaks §5.3 at step 3; the run then spins in L
;;   until the step limit (10): outcome out of fuel.
;; explore: the spin's state L cannot reach an end while the initial state can, so
;;   the transition into it is ruled out; one outcome [7, 7]; Cnb {C, L} (in the
;;   state after B both lanes accept L and C, both making progress).
; run after-ab: --threads 2 --interp fr --schedule A,B --arg x=0
; run lowest: --threads 2 --interp fr --sched lowest --arg x=0
; run ipd: --threads 2 --interp fr --sched ipd --max-steps 10 --arg x=0
; run all: --threads 2 --interp fr --explore --arg x=0
; expect after-ab legal: C
; expect after-ab illegal: L (§5.3), A (Def. 14), B (Def. 14), D (Def. 14)
; expect lowest schedule: A,B,C,D
; expect lowest first violation: none
; expect lowest result: [7, 7]
; expect ipd outcome: out of fuel
; expect ipd first violation: L at step 3 (§5.3)
; expect all outcomes: [7, 7]
; expect all cnb: {C, L}

define i32 @f(i32 %x) {
A:
  %p = icmp ne i32 %x, 0
  br label %B

B:
  predicate %p
  br i1 %p, label %L, label %C

L:
  br label %L

C:
  br label %D

D:
  ret i32 7
}
