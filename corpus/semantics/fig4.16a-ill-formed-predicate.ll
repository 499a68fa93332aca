;; Thesis Fig. 4.16a (§4.10): "The variable x is defined under the block predicate
;; p in block A. It is then used in block B under the negated predicate notp.
;; Since x is not defined when it is used in block B, this is a violation under
;; the assumption that the function f semantically depends on x."
;; Predicated def-before-use (Def. 11.3) with definition masks (Def. 10.1: x,
;; assigned by a non-total instruction, has definition mask = amask of A = p).
;; The picture did not survive. Rebuilt: an entry block computes p and notp (a
;; block predicate defined elsewhere must dominate, Def. 11.1); A (predicate p)
;; defines x; B (predicate notp) computes y = f(x) with f = multiplication by 2,
;; which depends on x; C returns p ? x : 0 (a select with a false condition does
;; not depend on its unselected operand, so C itself is well-formed).
;;
;; Derivation, p = (thread_id == 0) = [1, 0]:
;;   A: amask [1, 0]: x = [1, -]; def mask of x = [1, 0]. t1: i = ⊤, next = ⊤.
;;   B: cmask [1, 1] (t1 via next = ⊤), amask = notp = [0, 1]. t1 executes
;;      y = x * 2 actively while x's definition mask is 0 for t1: strict mode
;;      reports undefined behaviour (Def. 11), under FR and under OBL.
;;   Without --strict the run returns: y is never read; C: r = [x = 1, 0].
; run strict: --threads 2 --interp obl --strict --schedule entry,A,B,C
; run strict-fr: --threads 2 --interp fr --strict --schedule entry,A,B,C
; run fr: --threads 2 --interp fr --schedule entry,A,B,C
; run obl: --threads 2 --interp obl --schedule entry,A,B,C
; expect strict outcome: undefined: Def. 11
; expect strict-fr outcome: undefined: Def. 11
; expect fr outcome: returned
; expect fr result: [1, 0]
; expect obl outcome: returned
; expect obl result: [1, 0]
; expect fr trace:
;   sc    | in          | next        | cmask | pmask | amask | i
;   entry | ⊥ ⊥         | entry entry | 1 1   | 1 1   | 1 1   | 0 0
;   A     | entry entry | A A         | 1 1   | 1 0   | 1 0   | 0 ⊤
;   B     | A A         | B ⊤         | 1 1   | 0 1   | 0 1   | ⊤ 0
;   C     | B B         | ⊤ C         | 1 1   | 1 1   | 1 1   | □ □

define i32 @f() {
entry:
  %t = call i32 @pllvm.thread_id()
  %p = icmp eq i32 %t, 0
  %notp = xor i1 %p, true
  br label %A

A:
  predicate %p
  %x = add i32 %t, 1
  br label %B

B:
  predicate %notp
  %y = mul i32 %x, 2
  br label %C

C:
  %r = select i1 %p, i32 %x, i32 0
  ret i32 %r
}
