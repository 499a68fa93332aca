;; The nvptx warp registers in θ (docs/language.md, "Wave operations"): %laneid is the lane's
;; position in its warp, τ, and WARP_SZ is the warp's lanes, W (the thread array
;; is the warp, docs/launch.md). With W = 4: r = 100 W + τ = [400, 401, 402, 403].
; run: --threads 4 --interp fr
; expect outcome: returned
; expect result: [400, 401, 402, 403]

define i32 @f() {
entry:
  %l = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.warpsize()
  %m = mul i32 %w, 100
  %r = add i32 %m, %l
  ret i32 %r
}
