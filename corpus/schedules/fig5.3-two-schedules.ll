;; Thesis Fig. 5.3a (§5.2): a horizontal operation makes the schedule visible in
;; the result. With schedule A B C D E F G, vec(x) = [0, 0]; with A B D C D E F G,
;; vec(x) = [1, 0]: the second schedule lets the first thread execute the any in D
;; alone (v is 0 for it, so any is 0 and it branches to F); D runs again after C
;; for the second thread alone (v = 1, any = 1, it branches to E); G joins them,
;; the first from F, the second from E.
;; The picture did not survive. Rebuilt from the prose: A diverges (t0 -> B,
;; t1 -> C), B and C lead to D, D branches on any to E (true) or F (false), E and F
;; lead to G, and G's phi is x = [0 from E, 1 from F].
;; The any of Fig. 4.15 ignores the activation (it looks at every lane's operand),
;; so to get the prose's "the first thread executes the any call in D alone" the
;; program asks any about v ∧ mask() ([W-CMD-MASK]); the and is total so the
;; passive lane contributes 0 rather than ⊤.
;;
;; Derivation, v = (thread_id == 1) = [0, 1]:
;;   greedy (A B C D E F G): D runs with amask [1, 1]: v ∧ m = [0, 1], any = 1, both
;;     go to E; E -> G; F is scheduled with nobody's next = F (cmask 0 0, a no-op);
;;     G: both from E, x = [0, 0].
;;   stall (A B D C D E F G): D (1st) runs with amask [1, 0]: v ∧ m = [0, 0],
;;     any = 0, t0 -> F. C: t1 -> D. D (2nd) amask [0, 1]: v ∧ m = [0, 1], any = 1,
;;     t1 -> E. E: t1 -> G. F: t0 -> G. G: t0 from F (1), t1 from E (0).
; run greedy: --threads 2 --interp fr --schedule A,B,C,D,E,F,G
; run stall: --threads 2 --interp fr --schedule A,B,D,C,D,E,F,G
; run stall-obl: --threads 2 --interp obl --schedule A,B,D,C,D,E,F,G
; expect outcome: returned
;; Greedy check (Def. 12-18). greedy: A, B, C, D, E are legal (after A, t0 waits
;; at B and t1 at C, neither reaches the other; after B, C both wait at D; D sends
;; both to E). F at step 6: both lanes have next = G, nobody's control mask is set
;; for F: it stalls (Def. 14), so the thesis' schedule A B C D E F G is not greedy
;; (without F it is). stall: D at step 3 while t1 waits at C, and C reaches D
;; without a back edge: not synchronizing (Def. 17), witness t1.
;; Every greedy schedule (all): A, then B and C in either order, then D runs once
;; for both lanes (v ∧ m = [0, 1], any = 1), E, G: the single outcome [0, 0] (§5.2:
;; the constraints make the result schedule-independent). Cnb: {B, C} after A,
;; {C, D} after A B, {B, D} after A C.
; run all: --threads 2 --interp fr --explore
; expect greedy first violation: F at step 6 (Def. 14)
; expect stall first violation: D at step 3 (Def. 17, lane 1)
; expect all outcomes: [0, 0]
; expect all cnb: {B, C}, {C, D}, {B, D}
; expect greedy result: [0, 0]
; expect stall result: [1, 0]
; expect stall-obl result: [1, 0]
; expect greedy trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 1 0
;   B  | A A | B C  | 1 0   | 1 1   | 1 0   | 0 ⊤
;   C  | B A | D C  | 0 1   | 1 1   | 0 1   | ⊤ 0
;   D  | B C | D D  | 1 1   | 1 1   | 1 1   | 0 0
;   E  | D D | E E  | 1 1   | 1 1   | 1 1   | 0 0
;   F  | E E | G G  | 0 0   | 1 1   | 0 0   | ⊤ ⊤
;   G  | E E | G G  | 1 1   | 1 1   | 1 1   | □ □
; expect stall trace:
;   sc | in  | next | cmask | pmask | amask | i
;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 1 0
;   B  | A A | B C  | 1 0   | 1 1   | 1 0   | 0 ⊤
;   D  | B A | D C  | 1 0   | 1 1   | 1 0   | 1 ⊤
;   C  | D A | F C  | 0 1   | 1 1   | 0 1   | ⊤ 0
;   D  | D C | F D  | 0 1   | 1 1   | 0 1   | ⊤ 0
;   E  | D D | F E  | 0 1   | 1 1   | 0 1   | ⊤ 0
;   F  | D E | F G  | 1 0   | 1 1   | 1 0   | 0 ⊤
;   G  | F E | G G  | 1 1   | 1 1   | 1 1   | □ □

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %v = icmp eq i32 %t, 1
  br i1 %v, label %C, label %B

B:
  br label %D

C:
  br label %D

D:
  %m = mask()
  %vm = and i1 %v, %m total
  %a = call i1 @pllvm.any(i1 %vm)
  br i1 %a, label %E, label %F

E:
  br label %G

F:
  br label %G

G:
  %x = phi i32 [ 0, %E ], [ 1, %F ]
  ret i32 %x
}
