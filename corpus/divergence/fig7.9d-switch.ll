;; Thesis Fig. 7.9d (§7.5): "Published GSSA algorithms only consider unconditional
;; and binary branches whereas our algorithm also supports partially divergent
;; nodes and switches, such as in Figure 7.9d"; filtered control dependence
;; "fail[s] on Figure 7.9c as well as Figure 7.9d".
;; The picture did not survive and the prose does not describe it; rebuilt as a
;; switch: A switches on the varying %s to B (default and case 3), C (case 1) and
;; D (case 2); B, C → J (x = phi); J → K; D → K (y = phi); then a switch on the
;; uniform %u to M1, M2 joined in N (z = phi).
;; Derivation: A's switch is divergent; global_joins({B, C, D}): B and C meet in
;; J, and J and D in K: sdep {J, K} → %x, %y varying. K's switch on %u is uniform:
;; N is no join, %z uniform. POPL'21: A ∈ splits(J), splits(K).
;; What earlier analyses answer here:
;;   GSSA: has no γ for a four-way switch.
;;   Filtered control dependence: J's predecessors B, C depend on A, and so does J
;;   (J does not post-dominate A: A → D → K skips it); subtracting J's own
;;   dependences leaves nothing: %x called uniform (wrong: in the run J executes
;;   with lanes 0, 1, 3 active and x = 1, 2, 1).
;; Run, W = 4, s = [0, 1, 2, 3], u = 1: lanes 0, 3 take B, lane 1 C, lane 2 D:
;; y = [1, 2, 3, 1], z = 20 everywhere: r = [21, 22, 23, 21].
; analyze: --uniform-args u
; run: --threads 4 --arg s=0,1,2,3 --arg u=1
; expect outcome: returned
; expect result: [21, 22, 23, 21]

define i32 @f(i32 %s, i32 %u) {
A:
  switch i32 %s, label %B [             ; expect: varying
    i32 1, label %C
    i32 2, label %D
    i32 3, label %B
  ]

B:
  br label %J

C:
  br label %J

D:
  br label %K

J:
  %x = phi i32 [ 1, %B ], [ 2, %C ]     ; expect: varying
  br label %K

K:
  %y = phi i32 [ %x, %J ], [ 3, %D ]    ; expect: varying
  switch i32 %u, label %M1 [            ; expect: uniform
    i32 1, label %M2
  ]

M1:
  br label %N

M2:
  br label %N

N:
  %z = phi i32 [ 10, %M1 ], [ 20, %M2 ] ; expect: uniform
  %r = add i32 %y, %z                   ; expect: varying
  ret i32 %r
}
