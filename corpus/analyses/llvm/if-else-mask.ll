;; The result pair of `llvm.amdgcn.if` and `llvm.amdgcn.else` (the structurizer's
;; control-flow intrinsics): both are sources of divergence in LLVM 22's
;; `SourcesOfDivergence`, but `GCNTTIImpl::isAlwaysUniform` makes element 1 (the
;; saved exec mask, a scalar register) of the pair uniform when read by
;; `extractvalue`; element 0 (whether this lane enters the block) stays divergent.
;; `llvm.amdgcn.loop` returns the i1 "leave the loop" flag: divergent;
;; `llvm.amdgcn.if.break` returns a mask: always uniform. θ does not define these
;; intrinsics, so the file has no run: the expectations are LLVM 22's rules
;; (`opt-22 -mtriple=amdgcn--` prints the same).
target triple = "amdgcn--"

define void @k(i1 inreg %u, i64 inreg %m) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()                      ; expect[llvm]: varying
  %c = icmp eq i32 %t, 0                                          ; expect[llvm]: varying
  %if = call { i1, i64 } @llvm.amdgcn.if.i64(i1 %c)               ; expect[llvm]: varying
  %enter = extractvalue { i1, i64 } %if, 0                        ; expect[llvm]: varying
  %saved = extractvalue { i1, i64 } %if, 1                        ; expect[llvm]: uniform
  %else = call { i1, i64 } @llvm.amdgcn.else.i64.i64(i64 %saved)  ; expect[llvm]: varying
  %flag = extractvalue { i1, i64 } %else, 0                       ; expect[llvm]: varying
  %mask = extractvalue { i1, i64 } %else, 1                       ; expect[llvm]: uniform
  %brk = call i64 @llvm.amdgcn.if.break.i64(i1 %c, i64 %mask)     ; expect[llvm]: uniform
  %done = call i1 @llvm.amdgcn.loop.i64(i64 %brk)                 ; expect[llvm]: varying
  %w = call i32 @llvm.amdgcn.writelane.i32(i32 1, i32 0, i32 2)   ; expect[llvm]: varying
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare { i1, i64 } @llvm.amdgcn.if.i64(i1)
declare { i1, i64 } @llvm.amdgcn.else.i64.i64(i64)
declare i64 @llvm.amdgcn.if.break.i64(i1, i64)
declare i1 @llvm.amdgcn.loop.i64(i64)
declare i32 @llvm.amdgcn.writelane.i32(i32, i32, i32)
