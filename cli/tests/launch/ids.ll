;; Each thread returns its ids packed as group * 1000 + local id (amdgcn), and
;; writes its global id (a parameter bound with --lane-id) to out[gid]; the
;; popcount of its thread array is the array's number of lanes (Fig. 4.15 over
;; one array, as a GPU's warp-wide builtins).
define i32 @ids(ptr addrspace(1) %out, ptr addrspace(1) %lanes, i32 %gid) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %grp = call i32 @llvm.amdgcn.workgroup.id.x()
  %g1000 = mul i32 %grp, 1000
  %packed = add i32 %g1000, %tid
  %idx = sext i32 %gid to i64
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %idx
  store i32 %gid, ptr addrspace(1) %p, align 4
  %n = call i32 @pllvm.popcount(i1 true)
  %q = getelementptr inbounds i32, ptr addrspace(1) %lanes, i64 %idx
  store i32 %n, ptr addrspace(1) %q, align 4
  ret i32 %packed
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @pllvm.popcount(i1)
