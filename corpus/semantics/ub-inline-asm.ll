;; Inline assembly ([W-CMD-ASM], docs/language.md, "Inline assembly"): θ maps
;; functions, not assembly, so a call of inline assembly that an ACTIVE lane
;; executes is undefined behaviour; in a block no lane executes actively it is
;; a passive no-op, as any command.
;; A sends lanes with x != 0 to B (the asm call) and the others to C.
;;
;; run (x = [0, 5]): lane 1 is active in B, so the call is undefined for it.
;;   (Expected message substring: "inline assembly".)
;; skip (x = [0, 0]): B is never reached; r = x = [0, 0].
; run run: --threads 2 --interp fr --arg x=0,5
; run skip: --threads 2 --interp fr --arg x=0,0
; run skipobl: --threads 2 --interp obl --arg x=0,0
; expect run outcome: undefined: inline assembly
; expect skip outcome: returned
; expect skip result: [0, 0]
; expect skipobl outcome: returned
; expect skipobl result: [0, 0]

define i32 @f(i32 %x) {
A:
  %c = icmp ne i32 %x, 0
  br i1 %c, label %B, label %C

B:
  %y = call i32 asm sideeffect "v_mov_b32 $0, $1", "=v,v"(i32 %x)
  br label %C

C:
  %r = phi i32 [ %y, %B ], [ %x, %A ]
  ret i32 %r
}
