;; fix-irreducible on a two-entry cycle {P, Q} entered at P or Q by the thread
;; id (divergent entry), each lane counting its own trips: the pass adds a guard
;; block irr.guard that dispatches to P or Q on an i1 phi, so that the cycle has
;; one header. The value after the cycle is computed in X from values defined
;; before it, so no passive execution of the cycle can touch it.
;; Run, W = 4, n = 3: lanes 0 and 1 (t < 2) enter at P and leave from Q once
;; the sum (P adds 1, Q adds 10, starting at 0) reaches 30; lanes 2 and 3 enter
;; at Q with 5. Each returns t + n·10 = 30, 31, 32, 33.
; check-llvm-pass: --passes fix-irreducible --threads 4 --arg n=3
; run: --threads 4 --arg n=3
; expect outcome: returned
; expect result: [30, 31, 32, 33]

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
  %r = add i32 %t, %lim
  ret i32 %r
}
