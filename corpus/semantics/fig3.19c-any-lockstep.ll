;; Thesis Fig. 3.19 (§3.5): the any intrinsic in scalar code, given meaning by
;; lock-step execution. "Assume that function parameter d has values such that
;; scaleUp evaluates to 0 for both threads and that scaleDown evaluates to 0 for
;; thread t0 and to 1 for thread t1." any(scaleUp | scaleDown) = 1 for both, both
;; go to B, skip C, reach D; t1 goes to E while t0 waits passively for F; both
;; execute F. Schedule A, B, D, E, F (Fig. 3.19c).
;; The float rescaling code of Fig. 3.19a is left out: only the control structure
;; (A -> {B, F}, B -> {C, D}, C -> D, D -> {E, F}, E -> F) and the two conditions
;; matter for the protocol; they are passed as integer arguments up and down. F's
;; phi records where each lane came from (D: 1, E: 2).
;;
;; Fig. 3.19c, ground truth (block label = active, blank = passive):
;;   A: t0 t1;  B: t0 t1;  D: t0 t1;  E: t1 only;  F: t0 t1.
; run fr: --threads 2 --interp fr --schedule A,B,D,E,F --arg up=0,0 --arg down=0,1
; run obl: --threads 2 --interp obl --schedule A,B,D,E,F --arg up=0,0 --arg down=0,1
; expect outcome: returned
; expect result: [1, 2]
; expect trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 0
;   B  | A A | B B  | 1 1   | 1 1   | 1 1   | 1 1
;   D  | B B | D D  | 1 1   | 1 1   | 1 1   | 1 0
;   E  | D D | F E  | 0 1   | 1 1   | 0 1   | ⊤ 0
;   F  | D E | F F  | 1 1   | 1 1   | 1 1   | □ □

define i32 @f(i32 %up, i32 %down) {
A:
  %scale.up = icmp ne i32 %up, 0
  %scale.down = icmp ne i32 %down, 0
  %either = or i1 %scale.up, %scale.down
  %any = call i1 @pllvm.any(i1 %either)
  br i1 %any, label %B, label %F

B:
  br i1 %scale.up, label %C, label %D

C:
  br label %D

D:
  br i1 %scale.down, label %E, label %F

E:
  br label %F

F:
  %r = phi i32 [ 0, %A ], [ 1, %D ], [ 2, %E ]
  ret i32 %r
}
