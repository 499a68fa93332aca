;; POPL'21 Fig. 1b (§1, §2.2-2.3, Fig. 2): "x is uniform everywhere in the loop. x is
;; uniform at P only if n is uniform." The tagged CFG of Fig. 2a has A, B⟨i⟩,
;; C⟨i⟩, S⟨i⟩, P; the head-rewired CFG (Fig. 2b) replaces B → C by B → P. The
;; picture did not survive; rebuilt from the prose: A → B (header: x, the
;; iteration count); B → C; C → S; S → {B, P} on c = x' < n. P uses x without an
;; LCSSA phi (%xp) and through one (%xl).
;; Derivation: %x, %x.next uniform (the same in each iteration). n varying makes
;; c varying: S's branch is divergent. In G⋆ (B → P), from S's successors {B, P}:
;; B is labelled B and P is a source reached from B: S ∈ splits(P). So the LCSSA
;; phi %xl is varying (thesis: P ∈ tdep*), and the non-LCSSA use %xp is varying by
;; §6: the loop around x's definition has the exit P with S ∈ lsplits (Def. 6.6).
;; Run, W = 2, n = [1, 3]: lane 0 leaves after one iteration (x.next = 1), lane 1
;; after three: xl = [1, 3], xp = [0, 2].
; run: --threads 2 --arg n=1,3
; expect outcome: returned
; expect env: %xl = [1, 3]
; expect env: %xp = [0, 2]

define i32 @f(i32 %n) {
A:
  br label %B

B:
  %x = phi i32 [ 0, %A ], [ %x.next, %S ] ; expect: uniform
  br label %C

C:
  %x.next = add i32 %x, 1               ; expect: uniform
  br label %S

S:
  %c = icmp ult i32 %x.next, %n         ; expect: varying
  br i1 %c, label %B, label %P          ; expect: varying

P:                                      ; expect: uniform
  %xl = phi i32 [ %x.next, %S ]         ; expect: varying
  %xp = add i32 %x, 0                   ; expect: varying
  %r = add i32 %xl, %xp                 ; expect: varying
  ret i32 %r
}
