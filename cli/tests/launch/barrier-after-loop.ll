; Every thread counts to tid mod 5 in a loop, waits at a barrier that every
; thread of the work-group reaches, then writes its count. The block after the
; loop comes first in the file, as the blocks of an -O1 loop can: the unchecked
; layout order (--sched earliest) runs it for the lanes that left the loop
; while the others still loop, which is a barrier no group reaches whole; every
; greedy schedule (Def. 17) finishes the loop first.
define void @counts(ptr %out, i32 %tid) {
entry:
  %n = urem i32 %tid, 5
  br label %head

after:
  call void @llvm.nvvm.barrier0()
  %slot = getelementptr inbounds i32, ptr %out, i32 %tid
  store i32 %i, ptr %slot, align 4
  ret void

head:
  %i = phi i32 [ 0, %entry ], [ %i1, %head ]
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i, %n
  br i1 %more, label %head, label %after
}
