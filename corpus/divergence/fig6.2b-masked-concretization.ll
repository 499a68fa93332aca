;; Thesis Fig. 6.2b (§6.2): a divergent branch on p with vec(p) = [1, 0, 1] (W = 3).
;; "The variable z is conceptually uniform because it does have the same value for
;; all threads that actively execute the add that defines it": uniform under the
;; masked concretization γ' (Fig. 6.3).
;; The picture did not survive; rebuilt from the prose: A branches on p to B, where
;; z = n + 1 is defined, and both paths meet in C.
;; Derivation:
;;   %p = (t & 1) == 0: varying ([DA-DARITH] over the thread id); the branch in A
;;   is divergent. B is control dependent on A (cdep_on(A) = {B}, Listing 3 line
;;   26): its activation is varying. C post-dominates A: activation uniform.
;;   %z = n + 1: uniform ([DA-UARITH]); the masked concretization only speaks of
;;   the lanes that executed it (lanes 0 and 2).
;;   %r = phi in C: C is sync dependent on A (paths A→B→C and A→C): [DA-PHI-D] → v.
;; Run: lanes 0, 2 take B (z = 5), lane 1 goes straight to C: r = [5, 0, 5].
; analyze: --uniform-args n
; run: --threads 3 --arg n=4
; expect outcome: returned
; expect result: [5, 0, 5]

define i32 @f(i32 %n) {
A:                                      ; expect: uniform
  %t = call i32 @pllvm.thread_id()      ; expect: varying
  %odd = and i32 %t, 1                  ; expect: varying
  %p = icmp eq i32 %odd, 0              ; expect: varying
  br i1 %p, label %B, label %C          ; expect: varying

B:                                      ; expect: varying
  %z = add i32 %n, 1                    ; expect: uniform
  br label %C

C:                                      ; expect: uniform
  %r = phi i32 [ %z, %B ], [ 0, %A ]    ; expect: varying
  ret i32 %r
}
