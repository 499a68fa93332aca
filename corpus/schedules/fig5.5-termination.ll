;; Thesis Fig. 5.5 (§5.3): progress alone does not preserve termination. After
;; if-conversion the loop B is predicated by p; with p = 0 for both threads every
;; execution of B is passive, its branch gives i = ⊤ to both lanes, and by
;; [PC-ND-BRANCH] both accept any successor of B next. Scheduling B again is
;; consistent with progress, forever; the schedule A, B, C, D terminates.
;; The pictures did not survive. Rebuilt: A -> B; B (predicate p) -> {B, C};
;; C -> D; D returns 7. The loop body is empty: it never runs actively here.
;;
;; terminating (A, B, C, D): B: cmask 1 1, amask 0 0, next := ⊤ ⊤. C: next ⊤ and
;;   (B, 1, C) ∈ E: cmask 1 1, both go to D and return 7. A complete schedule
;;   (Def. 5).
;; spinning (A, B, B, B, B): after each B the lanes stay at in = B, next = ⊤; the
;;   schedule ends with no lane terminated: outcome incomplete, result [-, -].
; run terminating: --threads 2 --interp fr --schedule A,B,C,D --arg x=0,0
; run spinning: --threads 2 --interp fr --schedule A,B,B,B,B --arg x=0,0
; expect terminating outcome: returned
;; Greedy check: every step of both schedules is legal on its own (after A, B both
;; lanes accept B and C, and after B the state repeats, from which C, D still
;; terminates: see fig5.5-termination-legality.ll). §5.3 rules out only the
;; infinite continuation of the spinning schedule, which no finite list shows.
; expect terminating first violation: none
; expect spinning first violation: none
; expect terminating result: [7, 7]
; expect spinning outcome: incomplete
; expect spinning result: [-, -]
; expect terminating trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 0
;   B  | A A | B B  | 1 1   | 0 0   | 0 0   | ⊤ ⊤
;   C  | B B | ⊤ ⊤  | 1 1   | 1 1   | 1 1   | 0 0
;   D  | C C | D D  | 1 1   | 1 1   | 1 1   | □ □
; expect spinning trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 0
;   B  | A A | B B  | 1 1   | 0 0   | 0 0   | ⊤ ⊤
;   B  | B B | ⊤ ⊤  | 1 1   | 0 0   | 0 0   | ⊤ ⊤
;   B  | B B | ⊤ ⊤  | 1 1   | 0 0   | 0 0   | ⊤ ⊤
;   B  | B B | ⊤ ⊤  | 1 1   | 0 0   | 0 0   | ⊤ ⊤

define i32 @f(i32 %x) {
A:
  %p = icmp ne i32 %x, 0
  %again = icmp ult i32 %x, 10
  br label %B

B:
  predicate %p
  br i1 %again, label %B, label %C

C:
  br label %D

D:
  ret i32 7
}
