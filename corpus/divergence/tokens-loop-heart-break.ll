;; LLVM's convergent operations document, the loop with a divergent break (its
;; "example()": the call in C is lexically inside the loop, but C is an exit of
;; the cycle {for, B, D}): with a `loop` heart in the header and C's call bound
;; to the heart's token, "the convergent call is performed convergently only by
;; those threads that convergently exited the loop in a given iteration".
;; Rebuilt with 4 lanes: lane t breaks to C in iteration t (i == t), and C reads
;; the first active lane's i.
;;
;; Controlled relation (derived by the document's rules, interp::controlled):
;; the heart %inner is executed for the n-th time by every lane still in the
;; loop, with one parent token (%tok, the entry's, all 4 lanes converged):
;; iteration 1 by {0, 1, 2, 3}, 2 by {1, 2, 3}, 3 by {2, 3}, 4 by {3}. Lane t
;; reaches C with the token of its (t+1)-th heart instance, so %r's classes are
;; {0} {1} {2} {3}: each lane alone, and readfirstlane gives each lane its own
;; i = t: [0, 1, 2, 3].
;;
;; What lock step ran: the checked default (`lowest`) synchronizes at C (Def. 17:
;; lanes still in the loop reach C), so C runs once, at step 13, with all four
;; lanes: the maximal converged-with relation of the uncontrolled program (the
;; thread table below, C in one column), and readfirstlane gives lane 0's i = 0
;; to everyone. The tokens forbid that step: a merged violation of %r. `highest`
;; runs C as soon as a lane breaks (steps 4, 9, 14, 19): it keeps every token
;; and computes [0, 1, 2, 3]. (pllvm's schedulers do not yet read tokens: the
;; relation is checked on the run, not used to choose its steps; docs/semantics.md,
;; reading 4.)
; run lowest: --threads 4
; run highest: --threads 4 --sched highest
; expect outcome: returned
; expect lowest result: [0, 0, 0, 0]
; expect highest result: [0, 1, 2, 3]
; expect lowest convergence:
;   thread | 1     | 2   | 3 | 4 | 5   | 6 | 7 | 8   | 9 | 10 | 11  | 12 | 13 | 14
;   0      | entry | for | B |   |     |   |   |     |   |    |     |    | C  | E
;   1      | entry | for | B | D | for | B |   |     |   |    |     |    | C  | E
;   2      | entry | for | B | D | for | B | D | for | B |    |     |    | C  | E
;   3      | entry | for | B | D | for | B | D | for | B | D  | for | B  | C  | E
; expect controlled: %inner = {0, 1, 2, 3} {1, 2, 3} {2, 3} {3}
; expect controlled: %r = {0} {1} {2} {3}
; expect lowest token-violations: merged %r
; expect highest token-violations: none

declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i32 @llvm.amdgcn.workitem.id.x()

define i32 @example() convergent {
entry:
  %tok = call token @llvm.experimental.convergence.entry()
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  br label %for

for:
  %i = phi i32 [ 0, %entry ], [ %i1, %D ]
  %inner = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %tok) ]
  %cond = icmp slt i32 %i, 8
  br i1 %cond, label %B, label %E

B:
  %brk = icmp eq i32 %i, %t
  br i1 %brk, label %C, label %D

C:
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %i) [ "convergencectrl"(token %inner) ]
  br label %E

D:
  %i1 = add i32 %i, 1
  br label %for

E:
  %v = phi i32 [ -1, %for ], [ %r, %C ]
  ret i32 %v
}
