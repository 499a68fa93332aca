;; Horizontal builtins (Fig. 4.15, [W-CMD-CALL]) under a divergent activation, with
;; eight lanes (W = 8). The builtins look at every lane's operand and ignore the
;; activation; a program that wants "over the active lanes" combines them with
;; mask() (the thesis, §4.11.1: P-LLVM "decouples the activation query (mask())
;; from the horizontal operation (any)"). The masked operands are total, so
;; passive lanes contribute a defined 0 / 1, never ⊤.
;; popcount(m) counts active lanes, ballot(m) gives their bit set (bit t = lane
;; t), any(c ∧ m) asks whether some active lane has c, all(c ∨ ¬m) whether every
;; active lane has c. The calls themselves are not total, so only active lanes
;; receive the result; D joins the two halves with phis.
;;
;; Derivation: B gets lanes 0-2 (t < 3), C lanes 3-7.
;;   B: m = 1 1 1 0 0 0 0 0. popcount 3; ballot 1 + 2 + 4 = 7;
;;      any(t == 4 ∧ m) = 0; all(t != 7 ∨ ¬m) = 1.
;;   C: m = 0 0 0 1 1 1 1 1. popcount 5; ballot 8 + 16 + 32 + 64 + 128 = 248;
;;      any(t == 4 ∧ m) = 1 (lane 4); all(t != 7 ∨ ¬m) = 0 (lane 7).
; run fr: --threads 8 --interp fr --schedule A,B,C,D
; run obl: --threads 8 --interp obl --schedule A,B,C,D
; expect outcome: returned
; expect result: [7, 7, 7, 248, 248, 248, 248, 248]
; expect env: %cnt = [3, 3, 3, 5, 5, 5, 5, 5]
; expect env: %bal = [7, 7, 7, 248, 248, 248, 248, 248]
; expect env: %anyz = [0, 0, 0, 1, 1, 1, 1, 1]
; expect env: %allz = [1, 1, 1, 0, 0, 0, 0, 0]
; expect trace:
;   sc | in              | next            | cmask           | pmask           | amask           | i
;   A  | ⊥ ⊥ ⊥ ⊥ ⊥ ⊥ ⊥ ⊥ | A A A A A A A A | 1 1 1 1 1 1 1 1 | 1 1 1 1 1 1 1 1 | 1 1 1 1 1 1 1 1 | 0 0 0 1 1 1 1 1
;   B  | A A A A A A A A | B B B C C C C C | 1 1 1 0 0 0 0 0 | 1 1 1 1 1 1 1 1 | 1 1 1 0 0 0 0 0 | 0 0 0 ⊤ ⊤ ⊤ ⊤ ⊤
;   C  | B B B A A A A A | D D D C C C C C | 0 0 0 1 1 1 1 1 | 1 1 1 1 1 1 1 1 | 0 0 0 1 1 1 1 1 | ⊤ ⊤ ⊤ 0 0 0 0 0
;   D  | B B B C C C C C | D D D D D D D D | 1 1 1 1 1 1 1 1 | 1 1 1 1 1 1 1 1 | 1 1 1 1 1 1 1 1 | □ □ □ □ □ □ □ □

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %lt3 = icmp ult i32 %t, 3
  %is4 = icmp eq i32 %t, 4
  %not7 = icmp ne i32 %t, 7
  br i1 %lt3, label %B, label %C

B:
  %mB = mask()
  %notmB = xor i1 %mB, true total
  %cntB = call i32 @pllvm.popcount(i1 %mB)
  %balB = call i32 @pllvm.ballot(i1 %mB)
  %is4mB = and i1 %is4, %mB total
  %anyB = call i1 @pllvm.any(i1 %is4mB)
  %not7mB = or i1 %not7, %notmB total
  %allB = call i1 @pllvm.all(i1 %not7mB)
  %anyzB = zext i1 %anyB to i32
  %allzB = zext i1 %allB to i32
  br label %D

C:
  %mC = mask()
  %notmC = xor i1 %mC, true total
  %cntC = call i32 @pllvm.popcount(i1 %mC)
  %balC = call i32 @pllvm.ballot(i1 %mC)
  %is4mC = and i1 %is4, %mC total
  %anyC = call i1 @pllvm.any(i1 %is4mC)
  %not7mC = or i1 %not7, %notmC total
  %allC = call i1 @pllvm.all(i1 %not7mC)
  %anyzC = zext i1 %anyC to i32
  %allzC = zext i1 %allC to i32
  br label %D

D:
  %cnt = phi i32 [ %cntB, %B ], [ %cntC, %C ]
  %bal = phi i32 [ %balB, %B ], [ %balC, %C ]
  %anyz = phi i32 [ %anyzB, %B ], [ %anyzC, %C ]
  %allz = phi i32 [ %allzB, %B ], [ %allzC, %C ]
  ret i32 %bal
}
