;; A histogram with atomics (docs/language.md, "Vectors, aggregates and atomics"):
;; several lanes increment the same bins in one step. [W-INST-ATOMICRMW] (pllvm's
;; reading, semantics/RULES.md): the active lanes perform the read-modify-write one
;; after another in lane order, lane 0 first, each on the memory the previous lane left;
;; lane τ's result is the value it read. So increments of one bin add up, where a plain
;; load/add/store scatter would lose all but one of them (and pllvm would report a
;; conflicting scatter). The fence ([W-INST-FENCE]) changes nothing: one memory, one
;; step at a time. Eight lanes (W = 8); @data = [1, 5, 2, 9, 7, 13, 4, 3];
;; bin = data & 3.
;;
;; Derivation. The lanes are all active in block A; bins in lane order:
;;   lane  : 0  1  2  3  4  5  6  7
;;   data  : 1  5  2  9  7 13  4  3
;;   bin   : 1  1  2  1  3  1  0  3
;; Lane 0 reads hist[1] = 0 and writes 1; lane 1 reads 1 (writes 2); lane 2 reads
;; hist[2] = 0; lane 3 reads hist[1] = 2; lane 4 reads hist[3] = 0; lane 5 reads
;; hist[1] = 3; lane 6 reads hist[0] = 0; lane 7 reads hist[3] = 1.
;;   old   : 0  1  0  2  0  3  0  1            (the result of each lane)
;;   @hist = [1 (lane 6), 4 (lanes 0,1,3,5), 1 (lane 2), 2 (lanes 4,7)]
;; A second atomic, `umax` on @top with the lane's data, leaves the maximum 13
;; and returns the running maximum before each lane: 0 1 5 5 9 9 13 13.
;; The result is old · 100 + prev_max.
;;   result: [0, 101, 5, 205, 9, 309, 13, 113]
;; In block B, entered by the lanes with bin = 1 only (0, 1, 3, 5), each adds
;; its lane id to @sum: 0 + 1 + 3 + 5 = 9 (passive lanes do nothing).
;; Shapes: atomics are varying (each lane sees the previous lane's write).
; run fr: --threads 8 --interp fr --mem @data=1,5,2,9,7,13,4,3
; run ref: --threads 8 --interp fr --exec reference --mem @data=1,5,2,9,7,13,4,3
; run obl: --threads 8 --interp obl --mem @data=1,5,2,9,7,13,4,3
; expect outcome: returned
; expect result: [0, 101, 5, 205, 9, 309, 13, 113]
; expect memory: @hist = [1, 4, 1, 2]
; expect memory: @top = [13]
; expect memory: @sum = [9]

@data = external global [8 x i32]
@hist = global [4 x i32] zeroinitializer
@top = global i32 0
@sum = global i32 0

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()                                   ; expect: varying
  %p = getelementptr inbounds [8 x i32], ptr @data, i32 0, i32 %t
  %x = load i32, ptr %p
  %bin = and i32 %x, 3
  %h = getelementptr inbounds [4 x i32], ptr @hist, i32 0, i32 %bin
  %old = atomicrmw add ptr %h, i32 1 syncscope("agent") monotonic, align 4   ; expect: varying
  fence syncscope("workgroup") acq_rel
  %prev = atomicrmw umax ptr @top, i32 %x seq_cst, align 4             ; expect: varying
  %one = atomicrmw or ptr @sum, i32 0 monotonic, align 4               ; expect: varying
  %hundred = mul i32 %old, 100
  %r = add i32 %hundred, %prev
  %in1 = icmp eq i32 %bin, 1
  br i1 %in1, label %B, label %C
B:
  %s = atomicrmw add ptr @sum, i32 %t monotonic, align 4
  br label %C
C:
  ret i32 %r
}
