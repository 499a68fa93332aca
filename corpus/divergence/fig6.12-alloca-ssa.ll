;; Thesis Fig. 6.12 (§6.6): Alloca SSA. The listing (v1, v2 varying; u1, u2
;; uniform), with f32[1024] shrunk to [8 x float] and the loaded element of Y
;; taken as Y[5] ("yp = elemptr 5" has lost its base; Y by the prose):
;;   A: X = alloca (#x0 = Def), Y = alloca (#x1 = Def); if (v1) {
;;   B:   store X[0] v2 (#x2 = Write {#x0}) }
;;   C: #x3 = Join {#x0, #x2}; Z = φ [X, A] [Y, B]; q = elemptr Z 4; if (u1) {
;;   D:   store q u2 (#x4 = Write {#x1, #x3}) }
;;   E: #x5 = Join; s = load Y[5]; ret s
;; Derivation: v1 varying → C ∈ sdep* (paths A→B→C, A→C). The Join #x3 of X sits
;; in C: [DA-JOIN-D] makes X varying. The store in B has varying data v2 and runs
;; under a varying activation (B ∈ cdep_on(A)): [DA-STORE-D] makes X varying too.
;; Z is a phi in C ∈ sdep*: [DA-PHI-D] → varying, so q = Z + 4 is varying, and
;; the store in D, through a varying pointer that may alias X and Y, is
;; [DA-STORE-D]: VarAllocas = {X, Y}. So Y is varying as well, and s = load Y[5]
;; is varying by [DA-LOAD-D].
;; The thesis' prose says instead that "Y can remain uniform whereas X is
;; varying"; that overlooks Z being varying. The run refutes the prose: with
;; v1 = [1, 0], lane 0 comes from B with Z = Y0, lane 1 from A with Z = X1; the
;; store in D writes Y0[4] in lane 0 but X1[4] in lane 1, so the copies Y0 and Y1
;; differ (the observer records it). s reads the unwritten Y[5]: [⊤, ⊤].
; analyze: --uniform-args u1,u2
; run: --threads 2 --arg v1=1,0 --arg v2=1.5,2.5 --arg u1=1 --arg u2=4.0
; expect outcome: returned

define float @f(i1 %v1, float %v2, i1 %u1, float %u2) {
A:                                      ; expect: uniform
  %X = alloca [8 x float]               ; expect: varying
  %Y = alloca [8 x float]               ; expect: varying
  br i1 %v1, label %B, label %C         ; expect: varying

B:                                      ; expect: varying
  %xp = getelementptr [8 x float], ptr %X, i64 0, i64 0 ; expect: varying
  store float %v2, ptr %xp
  br label %C

C:                                      ; expect: uniform
  %Z = phi ptr [ %X, %A ], [ %Y, %B ]   ; expect: varying
  %q = getelementptr [8 x float], ptr %Z, i64 0, i64 4 ; expect: varying
  br i1 %u1, label %D, label %E         ; expect: uniform

D:                                      ; expect: uniform
  store float %u2, ptr %q
  br label %E

E:                                      ; expect: uniform
  %yp = getelementptr [8 x float], ptr %Y, i64 0, i64 5 ; expect: varying
  %s = load float, ptr %yp              ; expect: varying
  ret float %s
}
