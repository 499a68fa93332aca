;; Undefined behaviour: `unreachable` executed by an ACTIVE lane. Scheduling the
;; block while no lane is active in it is a passive no-op.
;; A sends lanes with x != 0 to B (return x) and the others to U (unreachable).
;;
;; reach (x = [1, 0], schedule A, B, U): lane 0 returns 1 in B; U runs with lane 1
;;   active (next = U): undefined. (Expected message substring: "unreachable".)
;; skip (x = [1, 2], schedule A, U, B): U has cmask 0 0 (both next = B): nothing
;;   happens ([PC-PASSIVE]); B: r = [1, 2].
; run reach: --threads 2 --interp fr --schedule A,B,U --arg x=1,0
; run skip: --threads 2 --interp fr --schedule A,U,B --arg x=1,2
; expect reach outcome: undefined: unreachable
; expect skip outcome: returned
; expect skip result: [1, 2]
; expect skip trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 0
;   U  | A A | B B  | 0 0   | 1 1   | 0 0   | ⊤ ⊤
;   B  | A A | B B  | 1 1   | 1 1   | 1 1   | □ □

define i32 @f(i32 %x) {
A:
  %c = icmp ne i32 %x, 0
  br i1 %c, label %B, label %U

B:
  ret i32 %x

U:
  unreachable
}
