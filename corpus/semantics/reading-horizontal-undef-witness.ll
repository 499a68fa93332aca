;; Reading (semantics/RULES.md, "Readings", 1): horizontal builtins over ⊤ lanes.
;; Fig. 4.15 defines θ(any) = λm^W. ∃t ∈ 𝒯. m^W(t) and θ(popcount) = Σ, θ(ballot)
;; = the vector m^W itself; §4.9.2: the activation is ignored, so every lane's
;; argument is read, and a lane that has not assigned the argument holds ⊤. ⊤ is
;; a value nobody chose: the result is defined when every choice of the ⊤ lanes
;; gives the same result. So a lane holding 1 is a witness for any whatever the
;; ⊤ lanes hold, and a lane holding 0 decides all; popcount and ballot depend on
;; every lane and stay ⊤.
;;
;; Four threads, lanes 0 and 1 go to B, lanes 2 and 3 to C. B's values are never
;; assigned in lanes 2, 3 (⊤ under FR: never assigned; under OBL: passive), so
;; in B, with m^W written lane 0 first:
;;   %one = (t == 1) = [0, 1, ⊤, ⊤]   any = 1 (witness: lane 1)   popcount, ballot = ⊤
;;   %no  = (t == 5) = [0, 0, ⊤, ⊤]   any = ⊤ (lanes 2, 3 may be witnesses)
;;                                    all = 0 (counterexample: lane 0)
;;   %yes = (t != 5) = [1, 1, ⊤, ⊤]   all = ⊤
;; The calls are not total, so only lanes 0, 1 assign their results; the total
;; any broadcasts its 1 to all four lanes (Fig. 4.15: "each thread sees the same
;; result value"). The reading in force before (any ⊤ lane makes every result ⊤)
;; would give %any1z = [⊤, ⊤, ⊤, ⊤], %all0z = [⊤, ⊤, ⊤, ⊤] and result
;; [⊤, ⊤, 99, 99].
;;
;; Derivation, schedule A, B, C:
;;   A: all active; lo = [1, 1, 0, 0]: i = [0, 0, 1, 1].
;;   B: next = [B, B, C, C]: cmask = amask = [1, 1, 0, 0].
;;   C: lanes 0, 1 from B, lanes 2, 3 from A.
;;      r = [any1z, any1z, 9, 9] = [1, 1, 9, 9]; s = [all0z, all0z, 9, 9] = [0, 0, 9, 9];
;;      result = 10 r + s = [10, 10, 99, 99].
; run fr: --threads 4 --interp fr --schedule A,B,C
; run obl: --threads 4 --interp obl --schedule A,B,C
; expect outcome: returned
; expect result: [10, 10, 99, 99]
; expect env: %any1z = [1, 1, ⊤, ⊤]
; expect env: %any1tz = [1, 1, 1, 1]
; expect env: %any0z = [⊤, ⊤, ⊤, ⊤]
; expect env: %all0z = [0, 0, ⊤, ⊤]
; expect env: %all1z = [⊤, ⊤, ⊤, ⊤]
; expect env: %pop = [⊤, ⊤, ⊤, ⊤]
; expect env: %bal = [⊤, ⊤, ⊤, ⊤]
; expect trace:
;   sc | in      | next    | cmask   | pmask   | amask   | i
;   A  | ⊥ ⊥ ⊥ ⊥ | A A A A | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | 0 0 1 1
;   B  | A A A A | B B C C | 1 1 0 0 | 1 1 1 1 | 1 1 0 0 | 0 0 ⊤ ⊤
;   C  | B B A A | C C C C | 1 1 1 1 | 1 1 1 1 | 1 1 1 1 | □ □ □ □

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %lo = icmp ult i32 %t, 2
  br i1 %lo, label %B, label %C

B:
  %one = icmp eq i32 %t, 1
  %any1 = call i1 @pllvm.any(i1 %one)
  %any1z = zext i1 %any1 to i32
  %any1t = call i1 @pllvm.any(i1 %one) total
  %any1tz = zext i1 %any1t to i32 total
  %no = icmp eq i32 %t, 5
  %any0 = call i1 @pllvm.any(i1 %no)
  %any0z = zext i1 %any0 to i32
  %all0 = call i1 @pllvm.all(i1 %no)
  %all0z = zext i1 %all0 to i32
  %yes = icmp ne i32 %t, 5
  %all1 = call i1 @pllvm.all(i1 %yes)
  %all1z = zext i1 %all1 to i32
  %pop = call i32 @pllvm.popcount(i1 %one)
  %bal = call i32 @pllvm.ballot(i1 %one)
  br label %C

C:
  %r = phi i32 [ %any1z, %B ], [ 9, %A ]
  %s = phi i32 [ %all0z, %B ], [ 9, %A ]
  %r10 = mul i32 %r, 10
  %res = add i32 %r10, %s
  ret i32 %res
}
