;; Every thread writes its thread id to cell[tid / 4]: within a thread array
;; the lanes that share a cell scatter different values (conflicting scatter,
;; reported by [W-INST-STORE]) unless the array is narrow; with W = 1 threads
;; 0-3 are four thread arrays writing one cell: a race between arrays.
define void @race(ptr %cell, i32 %tid) {
entry:
  %q = udiv i32 %tid, 4
  %idx = zext i32 %q to i64
  %p = getelementptr inbounds i32, ptr %cell, i64 %idx
  store i32 %tid, ptr %p, align 4
  ret void
}
