;; regression: a fixed `pllvm fuzz` finding; its expectation is that the oracle `exec` passes on it (`; fuzz-expect: pass`, checked by fuzz/tests/fuzz_regressions.rs; the corpus runner runs its `; run:` line)
; fuzz-expect: pass
;; pllvm fuzz finding
;; oracle: exec
;; failure: fast differs: trace
;; detail: Oblivious: trace row 5 differs:
;; seed: 5 (program 5 of base seed 0)
;; original size: 343 instructions + 40 terminators in 40 blocks, 8 lanes
;; shrunk size: 8 instructions + 6 terminators in 6 blocks, 2 lanes
;; shrinking: 339 candidates tried, 96 accepted
;; reproduce: pllvm fuzz --replay prom/findings/exec-de278f41f25240db.ll --oracle exec
;; run it: pllvm run prom/findings/exec-de278f41f25240db.ll --threads 2 --interp fr --arg n=0,0 --arg x=0,0 --arg y=0,0 --arg d=0.0,0.0 --arg w=25,-2 --mem @in0=103,52,-3212109687986994995,984122775999610040,1,2159297094383158574,-5560728796601695121,4,-2,93,-1,-1842575058336875147,200,-7,6,-6 --mem @in1=-1896015664,242,105,229,12,121016794,237,211 --mem @out2=1613775493,-1,164,192,-1458533156,-256782734,3,170,3,74,-265362167,-7,-936887044,281558708,108,-5,1,-6,-232918998,3,92,223,-1518740997,-849147797,-1339630930,1828566779,-8,4,45,-5,6,-7
;; original program: pllvm fuzz --oracle exec --seed 5 --count 1
; fuzz-oracle: exec
; fuzz-case: {"args":[{"kind":"uniform","name":"n","ty":"i32","values":["0","0"]},{"kind":"per-lane","name":"x","ty":"i32","values":["0","0"]},{"kind":"per-lane","name":"y","ty":"i64","values":["0","0"]},{"kind":"per-lane","name":"d","ty":"double","values":["0.0","0.0"]},{"kind":"per-lane","name":"w","ty":"i128","values":["25","-2"]}],"buffers":[{"elem_bits":64,"len":16,"name":"in0","slice":null},{"elem_bits":32,"len":8,"name":"in1","slice":null},{"elem_bits":32,"len":32,"name":"out2","slice":4}],"function":"kernel","globals":[{"name":"in0","values":[103,52,-3212109687986994995,984122775999610040,1,2159297094383158574,-5560728796601695121,4,-2,93,-1,-1842575058336875147,200,-7,6,-6]},{"name":"in1","values":[-1896015664,242,105,229,12,121016794,237,211]},{"name":"out2","values":[1613775493,-1,164,192,-1458533156,-256782734,3,170,3,74,-265362167,-7,-936887044,281558708,108,-5,1,-6,-232918998,3,92,223,-1518740997,-849147797,-1339630930,1828566779,-8,4,45,-5,6,-7]}],"max_threads":8,"seed":"5","width":2}
; run: --threads 2 --interp fr --arg n=0,0 --arg x=0,0 --arg y=0,0 --arg d=0.0,0.0 --arg w=25,-2 --mem @in0=103,52,-3212109687986994995,984122775999610040,1,2159297094383158574,-5560728796601695121,4,-2,93,-1,-1842575058336875147,200,-7,6,-6 --mem @in1=-1896015664,242,105,229,12,121016794,237,211 --mem @out2=1613775493,-1,164,192,-1458533156,-256782734,3,170,3,74,-265362167,-7,-936887044,281558708,108,-5,1,-6,-232918998,3,92,223,-1518740997,-849147797,-1339630930,1828566779,-8,4,45,-5,6,-7
@in0 = global [16 x i64] zeroinitializer
@in1 = global [8 x i32] zeroinitializer
@out2 = global [32 x i32] zeroinitializer

define i64 @kernel(i32 %n, i32 %x, i64 %y, double %d, i128 %w) {
entry:
  %v18 = mul i128 132652069947187132699556180843773483879, %w
  br label %else36

else36:
  %cv42 = trunc i128 %v18 to i14
  br label %case46

case46:
  %cv52 = sext i14 %cv42 to i64
  %idx53 = and i64 %cv52, 7
  %p54 = getelementptr inbounds i32, ptr @in1, i64 %idx53
  %ld55 = load i32, ptr %p54
  br label %case68

case68:
  %k74 = urem i32 %ld55, 5
  br label %exit84

exit84:
  %c172 = icmp ult i32 0, %k74
  br i1 %c172, label %exit84, label %bb278

bb278:
  br label %bb278
}

declare i32 @pllvm.thread_id()

declare i1 @pllvm.any(i1)

declare i32 @pllvm.popcount(i1)
