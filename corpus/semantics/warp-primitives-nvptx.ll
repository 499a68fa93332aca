;; CUDA's warp primitives in θ (docs/language.md, "Warp primitives"; the PTX ISA's
;; shfl.sync, vote.sync, activemask, match.sync), the thread array being the warp.
;; None is declared: pllvm declares those θ defines.
;;
;; W = 8, m = 0xff (the eight lanes), t = laneid = [0..7], v = t + 1 = [1..8].
;; A: a tree reduction with shfl.sync.down in segments of 8 lanes (c = (32 - 8) << 8
;;    | 31 = 6175: seg = 24, max = (l & 24) | 7 = 7), so lane l reads l + k when
;;    l + k <= 7 and its own value otherwise:
;;    k = 4: d = [5, 6, 7, 8, 5, 6, 7, 8],          s1 = v + d  = [6, 8, 10, 12, 10, 12, 14, 16]
;;    k = 2: d = [10, 12, 10, 12, 14, 16, 14, 16],  s2 = s1 + d = [16, 20, 20, 24, 24, 28, 28, 32]
;;    k = 1: d = [20, 20, 24, 24, 28, 28, 32, 32],  s3 = s2 + d = [36, 40, 44, 48, 52, 56, 60, 64]
;;    (lane 0 holds 36 = 1 + ... + 8).
;;    x = shfl.sync.bfly(m, t, 1, 31) = [1, 0, 3, 2, 5, 4, 7, 6];
;;    i = shfl.sync.idx(m, v, 5, 31) = v of lane 5 = 6 in every lane;
;;    e = s3 + 100 x + 10000 i. Odd lanes branch to B, even lanes to C.
;; B (lanes 1, 3, 5, 7 active):
;;    am = activemask = 0b10101010 = 170;
;;    mb = am | extra (extra = 0: the active lanes; extra = 1 names lane 0, passive here);
;;    bal = vote.ballot.sync(mb, t >= 4) = lanes 5, 7 = 0b10100000 = 160;
;;    any(t == 3) = 1, all(t > 0) = 1, uni(t >= 4) = 0;
;;    mt = match.any.sync(am, t / 4): lanes 1, 3 hold 0 (mask 0b1010 = 10), lanes 5, 7
;;    hold 1 (mask 0b10100000 = 160);
;;    rb = am + bal + mt + 1000 any + 2000 all + 4000 uni = [3340, 3340, 3490, 3490].
;; C: r = phi [rb, B], [e, A]:
;;    lane 0: 36 + 100 + 60000 = 60136, lane 2: 44 + 300 + 60000 = 60344,
;;    lane 4: 52 + 500 + 60000 = 60552, lane 6: 60 + 700 + 60000 = 60760.
;; With extra = 1 the ballot's member mask names lane 0, which does not arrive at
;; B: undefined behaviour of [W-CMD-CALL] (PTX: every lane of the mask executes
;; the primitive together).
; run fr: --threads 8 --interp fr --arg m=255 --arg extra=0
; run obl: --threads 8 --interp obl --arg m=255 --arg extra=0
; run absent: --threads 8 --interp fr --arg m=255 --arg extra=1
; expect fr outcome: returned
; expect fr result: [60136, 3340, 60344, 3340, 60552, 3490, 60760, 3490]
; expect obl outcome: returned
; expect obl result: [60136, 3340, 60344, 3340, 60552, 3490, 60760, 3490]
; expect absent outcome: undefined: names lane 0, which is not active here

define i32 @f(i32 %m, i32 %extra) {
A:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %v = add i32 %t, 1
  %d4 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 %m, i32 %v, i32 4, i32 6175)
  %s1 = add i32 %v, %d4
  %d2 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 %m, i32 %s1, i32 2, i32 6175)
  %s2 = add i32 %s1, %d2
  %d1 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 %m, i32 %s2, i32 1, i32 6175)
  %s3 = add i32 %s2, %d1
  %x = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 %m, i32 %t, i32 1, i32 31)
  %i = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 %m, i32 %v, i32 5, i32 31)
  %x100 = mul i32 %x, 100
  %i10k = mul i32 %i, 10000
  %e1 = add i32 %s3, %x100
  %e = add i32 %e1, %i10k
  %bit = and i32 %t, 1
  %odd = icmp ne i32 %bit, 0
  br i1 %odd, label %B, label %C

B:
  %am = call i32 @llvm.nvvm.activemask()
  %mb = or i32 %am, %extra
  %big = icmp uge i32 %t, 4
  %bal = call i32 @llvm.nvvm.vote.ballot.sync(i32 %mb, i1 %big)
  %is3 = icmp eq i32 %t, 3
  %any = call i1 @llvm.nvvm.vote.any.sync(i32 %am, i1 %is3)
  %pos = icmp ugt i32 %t, 0
  %all = call i1 @llvm.nvvm.vote.all.sync(i32 %am, i1 %pos)
  %uni = call i1 @llvm.nvvm.vote.uni.sync(i32 %am, i1 %big)
  %half = udiv i32 %t, 4
  %mt = call i32 @llvm.nvvm.match.any.sync.i32(i32 %am, i32 %half)
  %any32 = zext i1 %any to i32
  %all32 = zext i1 %all to i32
  %uni32 = zext i1 %uni to i32
  %r1 = add i32 %am, %bal
  %r2 = add i32 %r1, %mt
  %a1k = mul i32 %any32, 1000
  %a2k = mul i32 %all32, 2000
  %u4k = mul i32 %uni32, 4000
  %r3 = add i32 %r2, %a1k
  %r4 = add i32 %r3, %a2k
  %rb = add i32 %r4, %u4k
  br label %C

C:
  %r = phi i32 [ %rb, %B ], [ %e, %A ]
  ret i32 %r
}
