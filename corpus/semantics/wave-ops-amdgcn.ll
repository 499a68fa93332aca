;; The amdgcn wave operations in θ (docs/language.md, "Wave operations"; LLVM AMDGPUUsage), the
;; thread array being the wave. None is declared: LLVM declares intrinsics
;; implicitly, and pllvm those θ defines.
;;
;; x = [10, 20, 30, 40], W = 4, all lanes active in A.
;; A: lo = mbcnt.lo(-1, 0) = set bits of -1 below each lane = [0, 1, 2, 3];
;;    id = mbcnt.hi(-1, lo) = lo + (bits of lanes 32.. below the lane: none) = [0, 1, 2, 3].
;;    odd lanes (1, 3) branch to B, even lanes (0, 2) to C.
;; B (amask = [0 1 0 1]):
;;    first = readfirstlane(x) = x of lane 1 = 20 (the first ACTIVE lane, not lane 0);
;;    bal = ballot.i64(true) = active lanes only = 0b1010 = 10 (not 0b1111);
;;    rl = readlane(x, 2) = x of lane 2 = 30 (a passive lane's register is read);
;;    s = first + rl + bal = 60.
;; C: r = phi [s, B], [id, A] = [0, 60, 2, 60].
; run fr: --threads 4 --interp fr --arg x=10,20,30,40
; run obl: --threads 4 --interp obl --arg x=10,20,30,40
; expect outcome: returned
; expect result: [0, 60, 2, 60]

define i32 @f(i32 %x) {
A:
  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %id = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lo)
  %bit = and i32 %id, 1
  %odd = icmp ne i32 %bit, 0
  br i1 %odd, label %B, label %C

B:
  %first = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x)
  %bal = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  %rl = call i32 @llvm.amdgcn.readlane.i32(i32 %x, i32 2)
  %bal32 = trunc i64 %bal to i32
  %s1 = add i32 %first, %rl
  %s = add i32 %s1, %bal32
  br label %C

C:
  %r = phi i32 [ %s, %B ], [ %id, %A ]
  ret i32 %r
}
