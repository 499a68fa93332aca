//! Inline example programs of the text format, shared by the round-trip, robustness
//! and export tests: every instruction, flag, type, the P-LLVM additions (thesis
//! Fig. 4.2: predicate, total, shadow, mask), switch and globals.

/// `(name, source, uses P-LLVM additions, valid input for opt-22)`.
pub(super) const EXAMPLES: &[(&str, &str, bool, bool)] = &[
    ("all_instructions", ALL_INSTRUCTIONS, false, true),
    ("pllvm_additions", PLLVM_ADDITIONS, true, true),
    ("clang_numbered", CLANG_NUMBERED, false, true),
    ("uniformity_style", UNIFORMITY_STYLE, false, true),
    ("names_and_order", NAMES_AND_ORDER, true, true),
    ("sugar", SUGAR, true, true),
    ("export_form", EXPORT_FORM, true, true),
    ("predicate_defined_here", PREDICATE_DEFINED_HERE, true, true),
    (
        "vectors_aggregates_atomics",
        VECTORS_AGGREGATES_ATOMICS,
        true,
        true,
    ),
];

/// Every instruction of `InstKind`, every flag, most types and global initializers.
pub(super) const ALL_INSTRUCTIONS: &str = r#"; ModuleID = 'all.ll'
source_filename = "all.ll"
target datalayout = "e-m:e-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.S = type { i32, float, [2 x i8] }

@g = internal global [4 x i32] [i32 1, i32 -2, i32 3, i32 4], align 16
@str = private unnamed_addr constant [6 x i8] c"hello\00", align 1
@s = dso_local global %struct.S { i32 7, float 1.5, [2 x i8] zeroinitializer }, align 4
@packed = global <{ i8, i32 }> <{ i8 1, i32 2 }>
@lds = internal addrspace(3) global i32 undef, align 4
@ext = external global i64
@fp = global ptr @f1
@nan = global double 0x7FF8000000000000
@flag = global i1 true
@wide = global i128 -170141183460469231731687303715884105728

declare i32 @llvm.amdgcn.workitem.id.x() #0
declare float @sqrtf(float noundef) local_unnamed_addr #1
declare i32 @printf(ptr nocapture noundef readonly, ...)
declare void @take(ptr byval(%struct.S) align 4, ptr dereferenceable(8), i32 signext)

; Function Attrs: nounwind
define dso_local i32 @f1(i32 noundef %a, i32 %b, i64 %c, float %x, double %y, ptr nocapture readonly align 4 %p, i1 zeroext %cond) local_unnamed_addr #2 {
entry:
  %add = add nuw nsw i32 %a, %b
  %sub = sub nsw i32 %a, 1
  %mul = mul nuw i32 %add, %sub
  %ud = udiv exact i32 %mul, 3
  %sd = sdiv i32 %mul, -7
  %ur = urem i32 %ud, 5
  %sr = srem i32 %sd, 5
  %sh = shl nuw nsw i32 %ur, 2
  %ls = lshr exact i32 %sh, 1
  %as = ashr i32 %sr, 1
  %an = and i32 %ls, %as
  %or = or disjoint i32 %an, 256
  %xo = xor i32 %or, -1
  %fa = fadd fast float %x, 1.000000e+00
  %fs = fsub float %fa, 0x3FF0000000000000
  %fm = fmul nnan ninf float %fs, 2.5e-1
  %fd = fdiv float %fm, 3.0
  %fr = frem double %y, 1.5
  %fn = fneg float %fd
  %ic = icmp samesign ult i32 %xo, 10
  %fc = fcmp olt float %fn, 0.0
  %fc2 = fcmp uno double %fr, %fr
  %ze = zext nneg i32 %xo to i64
  %se = sext i32 %xo to i64
  %tr = trunc nuw nsw i64 %c to i16
  %f2s = fptosi float %x to i32
  %f2u = fptoui double %y to i64
  %s2f = sitofp i32 %a to double
  %u2f = uitofp nneg i32 %a to float
  %fx = fpext float %x to double
  %ft = fptrunc double %y to float
  %bc = bitcast float %x to i32
  %pi = ptrtoint ptr %p to i64
  %ip = inttoptr i64 %pi to ptr
  %asc = addrspacecast ptr %ip to ptr addrspace(1)
  %sel = select i1 %ic, i32 %xo, i32 0
  %fz = freeze i32 %sel
  %arr = alloca [8 x float], align 16
  %cnt = alloca i32, i32 4, align 4
  %priv = alloca i32, align 4, addrspace(5)
  %ld = load i32, ptr %p, align 4, !tbaa !5
  %vl = load volatile i64, ptr %cnt
  store i32 %fz, ptr %cnt, align 4, !tbaa !5
  store volatile float %fd, ptr %arr
  %gep = getelementptr inbounds [8 x float], ptr %arr, i64 0, i64 %se
  %gep2 = getelementptr %struct.S, ptr @s, i32 0, i32 1
  %gep3 = getelementptr nusw i8, ptr @str, i64 2
  %lds.v = load i32, ptr addrspace(3) @lds, align 4
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %sq = tail call float @sqrtf(float noundef %x) #3
  %pr = call i32 (ptr, ...) @printf(ptr noundef @str, i32 %tid, double %y)
  call void @take(ptr byval(%struct.S) align 4 @s, ptr @g, i32 signext -1)
  %big = add i128 -1, 170141183460469231731687303715884105727
  %huge = mul i300 1, -2
  %h = fadd double 0x7FF0000000000000, -0.0
  %pz = icmp eq ptr %p, null
  %u = add i32 undef, poison
  %zz = or i64 zeroinitializer, 0
  br i1 %cond, label %then, label %else, !prof !7

then:                                             ; preds = %entry
  %t1 = add i32 %ld, %lds.v
  br label %join

else:
  %e1 = sub i32 %ld, %tid
  switch i32 %e1, label %join [
    i32 0, label %then
    i32 -5, label %join
  ]

join:
  %r = phi i32 [ %t1, %then ], [ %e1, %else ], [ %e1, %else ]
  %rf = phi fast float [ %sq, %then ], [ 0.0, %else ], [ 0.0, %else ]
  ret i32 %r
}

define void @f2() {
  unreachable
}

attributes #0 = { nounwind readnone speculatable }
attributes #1 = { "no-trapping-math"="true" memory(argmem: readwrite) }
attributes #2 = { nounwind }
attributes #3 = { nounwind }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"wchar_size", i32 4}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !8, i64 0}
!7 = !{!"branch_weights", i32 1, i32 2}
!8 = distinct !{!8}
"#;

/// The P-LLVM additions in canonical spelling.
pub(super) const PLLVM_ADDITIONS: &str = r#"define amdgpu_kernel void @kernel(ptr addrspace(1) inreg %out, i32 %n) {
entry:
  %tid = call i32 @pllvm.thread_id()
  %c = icmp slt i32 %tid, %n
  %notc = xor i1 %c, true total
  br label %loop

loop:
  predicate %c
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ] shadow(%n)
  %f = phi float [ 1.5, %entry ], [ %f, %loop ] shadow(0.0)
  %m = mask()
  %any = call i1 @pllvm.any(i1 %m)
  %i.next = add i32 %i, 1 total
  %pc = call i32 @pllvm.popcount(i1 %c)
  %bal = call i64 @pllvm.ballot(i1 %c)
  %all = call i1 @pllvm.all(i1 %any)
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  predicate true
  switch i32 %tid, label %d [
    i32 0, label %a
    i32 -1, label %b
  ]

a:
  store i32 %i.next, ptr addrspace(1) %out, align 4 total
  br label %d

b:
  predicate %notc
  %mb = mask() total
  br label %d

d:
  ret void
}
"#;

/// What clang-19 `-O1` emits: numbered values, an unlabeled entry block, metadata.
pub(super) const CLANG_NUMBERED: &str = r#"; ModuleID = 'a.c'
source_filename = "a.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @saxpy(i32 noundef %0, i32 noundef %1, float noundef %2, ptr nocapture noundef readonly %3, ptr nocapture noundef %4) local_unnamed_addr #0 {
  %6 = icmp slt i32 %0, %1
  br i1 %6, label %7, label %10

7:                                                ; preds = %5
  %8 = sext i32 %0 to i64
  %9 = sext i32 %1 to i64
  br label %11

10:                                               ; preds = %11, %5
  ret void

11:                                               ; preds = %7, %11
  %12 = phi i64 [ %8, %7 ], [ %18, %11 ]
  %13 = getelementptr inbounds float, ptr %3, i64 %12
  %14 = load float, ptr %13, align 4, !tbaa !5
  %15 = getelementptr inbounds float, ptr %4, i64 %12
  %16 = load float, ptr %15, align 4, !tbaa !5
  %17 = tail call float @llvm.fmuladd.f32(float %2, float %14, float %16)
  store float %17, ptr %15, align 4, !tbaa !5
  %18 = add nsw i64 %12, 64
  %19 = icmp slt i64 %18, %9
  br i1 %19, label %11, label %10, !llvm.loop !9
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.fmuladd.f32(float, float, float) #2

define dso_local i32 @bits(i32 noundef %0, i32 noundef %1) local_unnamed_addr #3 {
  switch i32 %1, label %10 [
    i32 0, label %3
    i32 1, label %5
    i32 7, label %8
  ]

3:                                                ; preds = %2
  %4 = tail call range(i32 0, 33) i32 @llvm.ctpop.i32(i32 %0)
  br label %10

5:                                                ; preds = %2
  %6 = add i32 %0, -1
  %7 = and i32 %6, %0
  br label %10

8:                                                ; preds = %2
  %9 = lshr i32 %0, 3
  br label %10

10:                                               ; preds = %2, %8, %5, %3
  %11 = phi i32 [ %9, %8 ], [ %7, %5 ], [ %4, %3 ], [ -1, %2 ]
  ret i32 %11
}

declare i32 @llvm.ctpop.i32(i32) #2

attributes #0 = { nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { mustprogress nofree norecurse nosync nounwind willreturn memory(none) uwtable }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"float", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = distinct !{!9, !10, !11}
!10 = !{!"llvm.loop.mustprogress"}
!11 = !{!"llvm.loop.unroll.disable"}
"#;

/// In the style of LLVM's `test/Analysis/UniformityAnalysis` files.
pub(super) const UNIFORMITY_STYLE: &str = r#"; RUN: opt %s -mtriple amdgcn-- -passes='print<uniformity>' -disable-output 2>&1 | FileCheck %s

define amdgpu_kernel void @basic(i32 %a, i32 %b, i32 %c) {
; CHECK-LABEL: UniformityInfo for function 'basic':
entry:
 %cond.uni = icmp slt i32 %a, 0
 %tid = call i32 @llvm.amdgcn.workitem.id.x()
 %cond.div = icmp slt i32 %tid, 0
 br i1 %cond.div, label %T, label %P

P:
; CHECK:   DIVERGENT:   %pp.phi =
  %pp.phi  = phi i32 [ %a, %entry], [ %b, %T ]
  %pp = add i32 %b, 1
  br label %Q

Q:
  %qq = add i32 %b, 1
  %qq.div = add i32 %pp.phi, 1
  br i1 %cond.uni, label %T, label %exit

T:
  %t.phi = phi i32 [ %qq, %Q ], [ %a, %entry ]
  %tt = add i32 %b, 1
  br label %P

exit:
  %ee = add i32 %b, 1
  store volatile i32 %ee, ptr addrspace(1) undef
  ret void
}

define ptx_kernel void @nv(ptr %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store i32 %t, ptr %out, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x() #0
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { nounwind readnone }
"#;

/// Quoted names, invented names, forward references, a global after a function,
/// implicit `@pllvm.*` declarations, a predicate read before its definition.
pub(super) const NAMES_AND_ORDER: &str = r#"define i32 @"odd name"(i32 %"a b", i32 %_7) {
"entry block":
  %"x\22y" = add i32 %"a b", %_7
  %r = call i32 @helper(i32 %"x\22y")
  %l = load i32, ptr @late
  %sum = add i32 %r, %l
  br label %_b1

_b1:
  predicate %q
  %q = icmp eq i32 %sum, 0
  %t = call i32 @pllvm.thread_id()
  ret i32 %sum
}

define i32 @helper(i32 %v) {
  %1 = add i32 %v, 1
  br label %next

next:
  %s = phi i32 [ %1, %0 ] shadow(%1)
  ret i32 %s
}

@late = global i32 42
"#;

/// The thesis sugar `%a := ...` (Fig. 4.13b).
pub(super) const SUGAR: &str = r#"define i32 @f(i32 %b, i32 %c, ptr %p) {
entry:
  %a := add i32 %b, %c
  %d := load i32, ptr %p, align 4
  %e = mul i32 %a, %d total
  ret i32 %e
}
"#;

/// The export lowering as input: the parser lifts it back.
pub(super) const EXPORT_FORM: &str = r#"define i32 @f(i1 %p, i32 %a) {
entry:
  br label %h

h:
  %x.phi = phi i32 [ %a, %entry ], [ %x, %h ]
  %y = phi i32 [ 0, %entry ], [ %x, %h ]
  %x = call i32 @pllvm.shadow.i32(i32 %x.phi, i32 7)
  call void @pllvm.predicate(i1 %p)
  %m = call i1 @pllvm.mask()
  %n = add i32 %x, 1, !pllvm.total !0
  br i1 %m, label %h, label %e

e:
  ret i32 %y
}

declare void @pllvm.predicate(i1)
declare i1 @pllvm.mask()
declare i32 @pllvm.shadow.i32(i32, i32)

!0 = !{}
"#;

/// A block predicate computed inside its own block (by a total command).
pub(super) const PREDICATE_DEFINED_HERE: &str = r#"define void @f(i32 %a, ptr %out) {
entry:
  predicate %q
  %q = icmp sgt i32 %a, 0 total
  store i32 %a, ptr %out, align 4
  ret void
}
"#;

/// Vector and aggregate values, their constants and instructions, and the atomics
/// (docs/language.md), with a shadow phi of vector type and a predicate.
pub(super) const VECTORS_AGGREGATES_ATOMICS: &str = r#"define <2 x i32> @f(<4 x float> %v, { i32, [2 x i8] } %s, ptr %p, i1 %c) {
entry:
  %a = fadd <4 x float> %v, splat (float 1.0e0)
  %n = fneg <4 x float> %a
  %m = fcmp olt <4 x float> %n, <float 0.0e0, float 1.0e0, float 2.0e0, float 3.0e0>
  %sel = select <4 x i1> %m, <4 x float> %a, <4 x float> zeroinitializer
  %e = extractelement <4 x float> %sel, i32 1
  %i = insertelement <4 x float> undef, float %e, i64 3
  %sh = shufflevector <4 x float> %i, <4 x float> poison, <2 x i32> <i32 3, i32 poison>
  %b = bitcast <2 x float> %sh to <2 x i32>
  %z = zext <2 x i32> %b to <2 x i64>
  %k = icmp eq <2 x i64> %z, <i64 1, i64 2>
  %x = extractvalue { i32, [2 x i8] } %s, 1, 0
  %t = insertvalue { i32, [2 x i8] } { i32 1, [2 x i8] [i8 2, i8 3] }, i8 %x, 1, 1
  store { i32, [2 x i8] } %t, ptr %p, align 4
  %l = load <2 x i32>, ptr %p, align 8
  %o = atomicrmw volatile udec_wrap ptr %p, i32 7 syncscope("agent") seq_cst, align 4
  %f = atomicrmw fmax ptr %p, float 1.0e0 monotonic, align 4
  %q = cmpxchg weak volatile ptr %p, i32 %o, i32 0 syncscope("workgroup") acq_rel acquire, align 4
  fence release
  %ok = extractvalue { i32, i1 } %q, 1
  %hh = fadd half 0xH3C00, 0xH7E00
  %bb = fptrunc float %e to bfloat
  %hv = fpext <2 x half> <half 0xH3C00, half 0xH0001> to <2 x float>
  store bfloat %bb, ptr %p, align 2
  br i1 %c, label %then, label %join
then:
  predicate %ok
  %r = atomicrmw xchg ptr %p, i32 3 monotonic total
  br label %join
join:
  %phi = phi <2 x i32> [ %l, %entry ], [ %b, %then ] shadow(<i32 9, i32 9>)
  ret <2 x i32> %phi
}
"#;
