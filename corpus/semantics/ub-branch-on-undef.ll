;; Undefined behaviour: an ACTIVE lane branches on ⊤ (Fig. 4.9 gives evalterm no
;; case for a ⊤ condition under amask = 1; docs/design/overview.md makes it an outcome).
;; A PASSIVE lane with the same ⊤ condition is fine: evalterm returns ⊤ for
;; amask = 0 without looking at the condition.
;; c = y != 0 ? true : undef, so c is ⊤ on lanes with y = 0. B is predicated by
;; p = x != 0 and branches on c.
;;
;; active (x = [1, 1], y = [1, 0]): lane 1 executes B actively with c = ⊤:
;;   undefined. (Expected message substring: "branch".)
;; passive (x = [1, 0], y = [1, 0]): lane 1 has amask 0 in B: i = ⊤, next = ⊤
;;   ([PC-ND-BRANCH]); lane 0 goes to C. C: lane 0 next C, lane 1 next ⊤ with
;;   (B, 0, C) ∈ E: both run C and reach D from C: r = [2, 2].
; run active: --threads 2 --interp fr --schedule A,B,C,D --arg x=1,1 --arg y=1,0
; run passive: --threads 2 --interp fr --schedule A,B,C,D --arg x=1,0 --arg y=1,0
; run passive-obl: --threads 2 --interp obl --schedule A,B,C,D --arg x=1,0 --arg y=1,0
; expect active outcome: undefined: branch
; expect passive outcome: returned
; expect passive result: [2, 2]
; expect passive-obl outcome: returned
; expect passive-obl result: [2, 2]
; expect passive trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 0
;   B  | A A | B B  | 1 1   | 1 0   | 1 0   | 0 ⊤
;   C  | B B | C ⊤  | 1 1   | 1 1   | 1 1   | 0 0
;   D  | C C | D D  | 1 1   | 1 1   | 1 1   | □ □

define i32 @f(i32 %x, i32 %y) {
A:
  %p = icmp ne i32 %x, 0
  %yz = icmp ne i32 %y, 0
  %c = select i1 %yz, i1 true, i1 undef
  br label %B

B:
  predicate %p
  br i1 %c, label %C, label %D

C:
  br label %D

D:
  %r = phi i32 [ 1, %B ], [ 2, %C ]
  ret i32 %r
}
