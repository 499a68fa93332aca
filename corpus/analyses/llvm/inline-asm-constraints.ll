;; Inline assembly on AMDGPU, as LLVM 22's uniformity analysis takes it (AMDGPU's
;; `isSourceOfDivergence` for inline asm, which asks the register class each
;; output constraint names): an asm call whose outputs include a vector register
;; (`v`, `a`, `{vN}`, `{v[N:M]}`, `{aN}`) is a source of divergence; one whose
;; outputs are all scalar (`s`, `{sN}`, `{s[N:M]}`, `r`, `{vcc}`, `{scc}`, tied or
;; early-clobber forms of those) is uniform whatever its operands, a divergent
;; input in a `v` register included (%in.v): an SGPR holds one value for the
;; wave. Derived from opt-22's answers on each form (the table in
;; docs/analyses.md, "`llvm`"); pllvm cannot run inline assembly
;; ([W-CMD-ASM]), so no run witnesses these.
target triple = "amdgcn--"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @k(ptr addrspace(1) %o) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()                     ; expect[llvm]: varying
  %sgpr = call i32 asm "s_mov_b32 $0, 0", "=s"()                 ; expect[llvm]: uniform
  %s1 = call i32 asm "s_mov_b32 $0, 0", "={s1}"()                ; expect[llvm]: uniform
  %vgpr = call i32 asm "v_mov_b32 $0, 0", "=v"()                 ; expect[llvm]: varying
  %v1 = call i32 asm "v_mov_b32 $0, 0", "={v1}"()                ; expect[llvm]: varying
  %agpr = call i32 asm "v_accvgpr_write $0, 0", "=a"()           ; expect[llvm]: varying
  %in.s = call i32 asm "s_mov_b32 $0, $1", "=s,s"(i32 %t)        ; expect[llvm]: uniform
  %in.v = call i32 asm "v_readfirstlane_b32 $0, $1", "=s,v"(i32 %t) ; expect[llvm]: uniform
  %pair.s = call { i32, i32 } asm "", "=s,=s"()                  ; expect[llvm]: uniform
  %pair.sv = call { i32, i32 } asm "", "=s,=v"()                 ; expect[llvm]: varying
  %r = call i32 asm "", "=r"()                                   ; expect[llvm]: uniform
  %s23 = call i64 asm "", "={s[2:3]}"()                          ; expect[llvm]: uniform
  %v23 = call i64 asm "", "={v[2:3]}"()                          ; expect[llvm]: varying
  %clobber = call i32 asm sideeffect "s_mov_b32 $0, 0", "=s,~{memory}"() ; expect[llvm]: uniform
  %early = call i32 asm "", "=&s"()                              ; expect[llvm]: uniform
  %vcc = call i32 asm "", "={vcc}"()                             ; expect[llvm]: uniform
  %a1 = call i32 asm "", "={a1}"()                               ; expect[llvm]: varying
  %tied = call i32 asm "", "=s,0"(i32 %t)                        ; expect[llvm]: uniform
  %scc = call i1 asm "", "={scc}"()                              ; expect[llvm]: uniform
  %sum = add i32 %sgpr, %vgpr                                    ; expect[llvm]: varying
  store i32 %sum, ptr addrspace(1) %o
  ret void
}
