;; POPL'21 Fig. 1a (§1, §2.2, §6): "x is uniform at D and E but it depends on c's
;; uniformity, if x is uniform at P." The traces of (1) are S, B, D, P and
;; S, C, E, P. The picture did not survive; rebuilt from the prose: S → {B, C} on
;; c; B → D (x := 1); C → E (x := 2); D, E → P. In SSA x at P is the phi %x; the
;; variable z of §6 ("we can prove z uniform at P because it is unchanged with
;; respect to program point S") is %z, defined in S and used in P.
;; Derivation (Def. 4.7): c varying: S ∈ splits(P) (disjoint G⋆ paths B→D→P,
;; C→E→P): H_P is false, so %x is varying at P. %z: its definition in S reaches P
;; definitely (Def. 6.4) and S lies in no loop, so lsplits(S) = {} and F#_Uni,2
;; (Def. 6.6) keeps it uniform: %zp = z + 0 in P is uniform. Without §6, F#_Uni
;; would call z varying at P, because H_P is false there. The thesis analysis
;; agrees with popl (SSA: z has one definition, whose shape is its shape).
;; Run, W = 2, c = [1, 0], n = 5: x = [1, 2], z = 6 in both lanes.
; analyze: --uniform-args n
; run: --threads 2 --arg c=1,0 --arg n=5
; expect outcome: returned
; expect env: %zp = [6, 6]
; expect result: [1, 2]

define i32 @f(i1 %c, i32 %n) {
S:
  %z = add i32 %n, 1                    ; expect: uniform
  br i1 %c, label %B, label %C          ; expect: varying

B:
  br label %D

C:
  br label %E

D:
  br label %P

E:
  br label %P

P:
  %x = phi i32 [ 1, %D ], [ 2, %E ]     ; expect: varying
  %zp = add i32 %z, 0                   ; expect: uniform
  ret i32 %x
}
