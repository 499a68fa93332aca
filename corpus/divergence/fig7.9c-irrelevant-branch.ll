;; Thesis Fig. 7.9c (§7.5): GSSA gives x = γ(a, γ(b, ⊥, γ(c, 0, 1)), 1), "however,
;; the value of b is irrelevant for selecting among the incoming values of the ϕ
;; node"; "absolute uniformity will not detect uniform x for uniform c in Figure
;; 7.9c when a is varying".
;; The picture did not survive. Rebuilt from the γ expression alone: A → {B, J} on
;; a (J gets 1 from A); B → {R, C} on b (R returns: b's true side never reaches
;; the phi, the ⊥); C → {P0, J} on c (J gets 1 from C); P0 → J (J gets 0).
;; On this rebuild a varying a does make J a join (A→J and A→B→C→J are disjoint),
;; so the prose's case "a varying, c uniform" gives a varying x here; the rebuild
;; cannot reproduce it. What it shows is the other half of the prose, that b is
;; irrelevant: a and c uniform, b varying.
;; Derivation: only B's branch is divergent; R returns, so no two paths from B's
;; successors meet: sdep(B) = {} and %x is uniform by [DA-PHI-U]. POPL'21: B is in
;; no splits set.
;; What earlier analyses answer here:
;;   GSSA (Ballance 1990): b occurs in x's γ: %x varying (imprecise; Thinned GSSA,
;;   Havlak 1993, removes it).
;;   Absolute control dependence: J's predecessor C depends on B (varying): %x
;;   varying (imprecise).
;;   Filtered control dependence (HSAIL, Lloyd 2019): J itself depends on B, which
;;   is subtracted: %x uniform on this rebuild.
;; Run, W = 2, a = 1, b = [1, 0], c = 1: lane 0 returns 7 from R; lane 1 takes
;; C → P0 → J: x = 0.
; analyze: --uniform-args a,c
; run: --threads 2 --arg a=1 --arg b=1,0 --arg c=1
; expect outcome: returned
; expect result: [7, 0]

define i32 @f(i1 %a, i1 %b, i1 %c) {
A:
  br i1 %a, label %B, label %J          ; expect: uniform

B:
  br i1 %b, label %R, label %C          ; expect: varying

R:
  ret i32 7

C:
  br i1 %c, label %P0, label %J         ; expect: uniform

P0:
  br label %J

J:
  %x = phi i32 [ 1, %A ], [ 1, %C ], [ 0, %P0 ] ; expect: uniform
  ret i32 %x
}
