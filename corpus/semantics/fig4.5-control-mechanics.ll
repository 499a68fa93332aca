;; Thesis Fig. 4.5 (§4.3, "Example: Control Mechanics"): two threads, a divergent
;; branch in A, the control mask and the successor index of every scheduled block.
;; The CFG picture (Fig. 4.5a) did not survive; it is rebuilt from the trace table
;; (Fig. 4.5b), which is ground truth:
;;   A: successor 0 = B, successor 1 = C      (t0 takes 0, t1 takes 1)
;;   B: one successor E                        (t0: next becomes E)
;;   C: successor 1 = D                        (t1 takes index 1)
;;   D: successor 0 = E                        (t1 takes index 0)
;;   E: returns.
;; Not recoverable from the text: the branch conditions drawn on the edges, and
;; the successor 0 of C. Here C's successor 0 is E, the conditions come from the
;; per-lane argument %x = [0, 1], and E's phi is added so the result shows which
;; path each lane took (B gives 1, D gives 3).
;;
;; Derivation (Def. 6, Fig. 4.4, Fig. 4.9), state before each block:
;;   A: both lanes next = A, cmask 1 1. p = (x == 0) = [1, 0]: i = [0, 1].
;;      [PC-ACTIVE] for both: in = A A, next = B C.
;;   B: cmask = [B = B, C != B] = 1 0. t0 i = 0 -> E; t1 passive: evalterm gives ⊤
;;      but [PC-PASSIVE] keeps its control state (in A, next C).
;;   C: cmask 0 1. q = (x == 0) is 0 for t1: i = 1 -> D.
;;   D: cmask 0 1, i = 0 -> E.
;;   E: next = E E, cmask 1 1, both return ([PC-TERM]): t0 from B -> 1, t1 from D -> 3.
;; Nothing is passive in E, so FR and OBL agree.
; run fr: --threads 2 --interp fr --schedule A,B,C,D,E --arg x=0,1
; run obl: --threads 2 --interp obl --schedule A,B,C,D,E --arg x=0,1
; expect outcome: returned
; expect result: [1, 3]
; expect trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 1
;   B  | A A | B C  | 1 0   | 1 1   | 1 0   | 0 ⊤
;   C  | B A | E C  | 0 1   | 1 1   | 0 1   | ⊤ 1
;   D  | B C | E D  | 0 1   | 1 1   | 0 1   | ⊤ 0
;   E  | B D | E E  | 1 1   | 1 1   | 1 1   | □ □

define i32 @f(i32 %x) {
A:
  %p = icmp eq i32 %x, 0
  br i1 %p, label %B, label %C

B:
  br label %E

C:
  %q = icmp eq i32 %x, 0
  br i1 %q, label %E, label %D

D:
  br label %E

E:
  %r = phi i32 [ 1, %B ], [ 2, %C ], [ 3, %D ]
  ret i32 %r
}
