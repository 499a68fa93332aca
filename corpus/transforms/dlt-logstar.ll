;; The divergent loop transform (thesis §9.1) on logstar (Fig. 3.20a, §3.6): lane
;; t1 (n = 1.5) leaves the loop after one iteration, t0 (n = 88.38) after three.
;; The input under OBLIVIOUS overwrites t1's %i.inc with ⊤ while t0 keeps
;; iterating (Fig. 3.21b); after dlt the loop is uniform, t1 runs only B.newh,
;; B.guard and B.newlatch actively, whose phis keep %i = 1 (the header phi %i
;; holds the live-out %i.inc: %i.next takes %i.inc on the exit edge and %i from
;; B.guard), and OBL gives what FR gives on the input.
;;
;; Shape (codegen/src/dlt.rs): B.newh holds %live and the uniform test on
;; any(select(mask(), live, false)); B.guard runs B for live lanes; the latch edge
;; B -> B and the exit edge B -> C go to B.newlatch, the exit through B.e.C; the
;; new latch tests again (bottom test) and both tests leave to B.disp, which has
;; one exit to go to.
;;
;; Results, by hand (log as in Fig. 3.20b): n = 88.38: log -> 4.4816 (> 1, stay),
;; 1.49999 (stay), 0.4055 (leave): i.inc = 3; n > 1: 3. n = 1.5: log -> 0.4055
;; (leave): i.inc = 1; n > 1: 1. n = 3000: log -> 8.006, 2.080, 0.7324: 3. So
;; [3, 1] and [3, 1, 3]; the naive OBL run of the input gives [3, ⊤].
; transform dlt: --pass dlt
; expect transform dlt cfg:
;   A -> B.newh
;   B.newh -> B.guard, B.disp
;   B.guard -> B, B.newlatch
;   B -> B.newlatch, B.e.C
;   B.e.C -> B.newlatch
;   B.newlatch -> B.newh, B.disp
;   B.disp -> C
;   C -> ret
; run fr: --threads 2 --interp fr --arg n=88.38,1.5
; run naive-obl: --threads 2 --interp obl --arg n=88.38,1.5
; run dlt-obl: --transform dlt --threads 2 --interp obl --arg n=88.38,1.5
; run dlt-fr: --transform dlt --threads 2 --interp fr --arg n=88.38,1.5
; run dlt-all: --transform dlt --threads 3 --interp obl --explore --arg n=88.38,1.5,3000
; expect outcome: returned
; expect fr result: [3, 1]
; expect naive-obl result: [3, ⊤]
; expect dlt-obl result: [3, 1]
; expect dlt-fr result: [3, 1]
; expect dlt-all outcomes: [3, 1, 3]

define i32 @logstar(double %n) {
A:
  br label %B

B:
  %x = phi double [ %n, %A ], [ %x.log, %B ]
  %i = phi i32 [ 0, %A ], [ %i.inc, %B ]
  %i.inc = add i32 %i, 1
  %x.log = call double @llvm.log.f64(double %x)
  %x.gt.one = fcmp ogt double %x.log, 1.0
  br i1 %x.gt.one, label %B, label %C

C:
  %n.gt.one = fcmp ogt double %n, 1.0
  %r = select i1 %n.gt.one, i32 %i.inc, i32 0
  ret i32 %r
}

declare double @llvm.log.f64(double)
