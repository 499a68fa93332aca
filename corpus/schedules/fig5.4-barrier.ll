;; Thesis Fig. 5.4 (§5.2), Def. 15-18: "D is not a barrier. When the block D is
;; scheduled for the first time, the first thread executes it actively. At the same
;; time, the second thread is still pending with its next block at C. As
;; C ∈ fwdreaching(D) this first execution of D is hence not synchronizing."
;; The picture did not survive. Rebuilt: A branches on p = (thread_id == 0) to B
;; (true) or C; B, C -> D; D returns popcount(mask()), so a D that runs for one lane
;; at a time shows in the result. No back edges: fwdreaching(D) = {A, B, C}.
;;
;; Derivations.
;;   barrier-broken (A, B, D, C, D): A: t0 -> B, t1 -> C. B: t0 -> D. D (1st):
;;     cmask 1 0 (t1 next = C), amask 1 0: popcount = 1, t0 returns 1. Def. 17 at
;;     step 3: t1 has cmask 0 for D and waits at C, C ∈ fwdreaching(D): witness
;;     lane 1. C: t1 -> D. D (2nd): cmask 0 1: popcount = 1, t1 returns 1.
;;     Result [1, 1].
;;   State after A, B: t0 in B next D; t1 in A next C.
;;     C: t1 has next = C (progress); t0 waits at D, D is not in fwdreaching(C) =
;;       {A}: legal.
;;     D: t0 has next = D (progress), but t1 waits at C, C reaches D without a
;;       back edge: not synchronizing (Def. 17), witness lane 1.
;;     A, B: no lane's control mask is set (Def. 14).
;;   greedy (A, B, C, D): D runs once with cmask 1 1, popcount = 2: [2, 2].
;;   Every greedy schedule runs D once for both lanes (D is a barrier, Def. 18):
;;     explore finds the single outcome [2, 2]. Cnb: after A {B, C}; after A, B
;;     {C, D}; after A, C {B, D} (each block is some lane's next, clause 1).
; run barrier-broken: --threads 2 --interp fr --schedule A,B,D,C,D
; run after-ab: --threads 2 --interp fr --schedule A,B
; run greedy: --threads 2 --interp fr --schedule A,B,C,D
; run random: --threads 2 --interp fr --sched random:3
; run all: --threads 2 --interp fr --explore
; expect barrier-broken result: [1, 1]
; expect barrier-broken first violation: D at step 3 (Def. 17, lane 1)
; expect after-ab legal: C
; expect after-ab illegal: D (Def. 17, lane 1), A (Def. 14), B (Def. 14)
; expect greedy result: [2, 2]
; expect greedy first violation: none
; expect random result: [2, 2]
; expect random first violation: none
; expect all outcomes: [2, 2]
; expect all cnb: {B, C}, {C, D}, {B, D}

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %p = icmp eq i32 %t, 0
  br i1 %p, label %B, label %C

B:
  br label %D

C:
  br label %D

D:
  %m = mask()
  %n = call i32 @pllvm.popcount(i1 %m)
  ret i32 %n
}
