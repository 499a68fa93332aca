;; fix-irreducible on a two-entry cycle {P, Q} entered at P or Q by the thread
;; id (divergent entry) and left from Q once a sum reaches n·10: the pass adds a
;; guard block irr.guard that dispatches to P or Q on an i1 phi, so that the
;; cycle has one header. A semantics reading, not an LLVM bug (docs/fuzzing.md,
;; "LLVM's control-flow transforms"): in the input both groups of lanes leave Q
;; in the same dynamic instance (lanes entering at Q run one block behind), in
;; the output lanes 2 and 3 leave one pass of the guard earlier, and the passive
;; Q of lanes 0 and 1 then overwrites their %q1 under OBLIVIOUS. FR of the
;; output refines the input; the AMDGPU backend keeps %q1 live through the loop,
;; so exec-masked writes leave lanes 2 and 3 their value.
;; Run, W = 4, n = 3: P adds 1, Q adds 10 and leaves once the sum is at least
;; n·10 = 30. Lanes 0 and 1 (t < 2) enter at P with 0: P 1 -> Q 11 -> P 12 ->
;; Q 22 -> P 23 -> Q 33, leave: 33. Lanes 2 and 3 enter at Q with 5: Q 15 ->
;; P 16 -> Q 26 -> P 27 -> Q 37, leave: 37.
; check-llvm-pass: --passes fix-irreducible --threads 4 --arg n=3
; check-llvm-pass expect: under FR the output refines the program, which refines itself under OBL: the pass lost a passive lane's value
; run: --threads 4 --arg n=3
; expect outcome: returned
; expect result: [33, 33, 37, 37]

define i32 @f(i32 %n) {
A:
  %t = call i32 @pllvm.thread_id()
  %c = icmp slt i32 %t, 2
  %lim = mul i32 %n, 10
  br i1 %c, label %P, label %Q
P:
  %p = phi i32 [ 0, %A ], [ %q1, %Q ]
  %p1 = add i32 %p, 1
  br label %Q
Q:
  %q = phi i32 [ 5, %A ], [ %p1, %P ]
  %q1 = add i32 %q, 10
  %done = icmp sge i32 %q1, %lim
  br i1 %done, label %X, label %P
X:
  ret i32 %q1
}
