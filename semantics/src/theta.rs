//! The function map θ (thesis Def. 1, §4.9.2, Fig. 4.14-4.15): which callee names
//! P-LLVM knows, and the mathematical function behind each.
//!
//! The call rule W-CMD-CALL (Fig. 4.14) evaluates `fnc(val̄)` by looking up
//! `f = θ(fnc)` and applying it to the argument vectors of all W lanes, the
//! activation and the memory. θ here holds three kinds of functions:
//! - the builtins of Fig. 4.15 (`pllvm.thread_id`, `pllvm.any`, `pllvm.all`,
//!   `pllvm.popcount`, `pllvm.ballot`) and their GPU spellings. Except `thread_id`,
//!   they are *horizontal*: one lane's result depends on every lane's argument
//!   ([`apply_horizontal`]);
//! - pure per-lane math (the "common mathematical functions" §4.9.2 expects in θ):
//!   C library names clang emits and LLVM's math and bit intrinsics
//!   ([`apply_math`], one lane at a time);
//! - intrinsics that touch memory or only inform the optimizer (`llvm.memcpy`,
//!   `llvm.lifetime.*`, `llvm.assume`, ...), which θ only *names* here: the
//!   interpreter owns the memory and executes them ([`touches_memory`]).
//!
//! Names are matched with LLVM's overload suffixes parsed generically
//! (`llvm.smax.i32`, `llvm.memcpy.p0.p0.i64`, `llvm.lround.i64.f64`), so any
//! width and address space resolves.
//!
//! Results of the math functions follow the rules of [`crate::ops`]: ⊤ arguments
//! give ⊤, NaN results are the positive preferred NaN, and "poison" in LangRef is
//! ⊤. The horizontal builtins are defined by Fig. 4.15 instead: a ⊤ lane leaves
//! the result defined when every choice for it gives the same result
//! ([`apply_horizontal`]; semantics/RULES.md, "Readings").

use crate::ops::cast::float_to_int;
use crate::ops::float::{PREFERRED_NAN_F32, PREFERRED_NAN_F64, f32_val, f64_val};
use crate::ops::int::{int_val, signed_big, wrap_signed_big};
use crate::ops::zero_of_data;
use crate::types::TypeData;
use crate::value::{Val, wrap_biguint};
use num_bigint::{BigInt, BigUint};
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;
use std::fmt;

/// A function θ knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `thread_id` (Fig. 4.15): lane τ gets τ. Lane-dependent but not horizontal.
    /// In a launch of many thread arrays (docs/launch.md) lane τ gets its id within its
    /// work-group, [`LaunchPosition::first_local_id`] + τ.
    ThreadId,
    /// `group_id`: the id of the work-group the thread array belongs to (CUDA's
    /// `blockIdx.x`, OpenCL's `get_group_id(0)`), the same in every lane; 0 outside
    /// a launch ([`LaunchPosition`]).
    GroupId,
    /// `group_size`: threads per work-group (CUDA's `blockDim.x`), the same in
    /// every lane; W outside a launch ([`LaunchPosition`]).
    GroupSize,
    /// `any` (Fig. 4.15): whether some lane's argument is true.
    Any,
    /// `all`: whether every lane's argument is true (the dual of `any`).
    All,
    /// `popcount` (Fig. 4.15): how many lanes' arguments are true.
    Popcount,
    /// `ballot` (Fig. 4.15): the arguments of all lanes as a bit vector, broadcast.
    Ballot,
    /// A pure per-lane math function.
    Math(MathFn),
    /// `llvm.assume(i1)`: a false argument is undefined behaviour (interpreter).
    Assume,
    /// `llvm.lifetime.start`: the object's contents become undefined (interpreter).
    LifetimeStart,
    /// `llvm.lifetime.end`: the object is dead until the next start (interpreter).
    LifetimeEnd,
    /// `llvm.memset` (interpreter).
    Memset,
    /// `llvm.memcpy` (interpreter).
    Memcpy,
    /// `llvm.memmove` (interpreter).
    Memmove,
    /// Intrinsics without an effect on the state (`llvm.experimental.noalias.scope.decl`,
    /// `llvm.donothing`, `llvm.sideeffect`, `llvm.dbg.*`).
    NoOp,
    /// `llvm.amdgcn.mbcnt.lo(mask, add)`: the set bits of `mask` (lanes 0-31) below
    /// the lane's position in the wave, plus `add` ([`theta_mbcnt`]).
    MbcntLo,
    /// `llvm.amdgcn.mbcnt.hi(mask, add)`: the same for lanes 32-63 ([`theta_mbcnt`]).
    MbcntHi,
    /// `llvm.amdgcn.readfirstlane(v)`: the value of the first active lane,
    /// broadcast ([`theta_readfirstlane`]).
    ReadFirstLane,
    /// `llvm.amdgcn.readlane(v, l)`: the value of lane `l`, broadcast
    /// ([`theta_readlane`]).
    ReadLane,
    /// `llvm.amdgcn.ballot(c)`: the mask of *active* lanes whose argument is true,
    /// as an `iN` ([`theta_wave_ballot`]); unlike Fig. 4.15's `ballot`, inactive
    /// lanes give 0.
    WaveBallot,
    /// `llvm.nvvm.read.ptx.sreg.laneid`: the lane's position in its warp, τ
    /// ([`theta_lane_id`]).
    LaneId,
    /// `llvm.nvvm.read.ptx.sreg.warpsize`: the lanes of the thread array, W
    /// ([`theta_wave_size`]).
    WaveSize,
    /// A work-group barrier (`llvm.amdgcn.s.barrier`, `llvm.nvvm.barrier0`,
    /// OpenCL's `barrier` and `work_group_barrier`, `pllvm.barrier`): no effect on
    /// values or memory; its block is a barrier of Def. 18, which the machine
    /// checks when it schedules the block (docs/language.md, "Barriers").
    Barrier,
    /// An OpenCL work-item function clang leaves as a call (`get_local_id`, ...):
    /// the launch's ids and sizes in dimension 0 ([`theta_work_item`]).
    WorkItem(WorkItemFn),
    /// A target's id or size register of a fixed dimension that θ has no other
    /// name for (`llvm.nvvm.read.ptx.sreg.nctaid.x`, `tid.y`, ...,
    /// `llvm.amdgcn.workitem.id.y`, ...): the work-item function of that
    /// dimension ([`theta_work_item`]).
    GridDim(WorkItemFn, u8),
    /// `llvm.experimental.convergence.entry`, `.anchor`, `.loop`: a convergence
    /// control token (LLVM's convergence and uniformity document, "controlled
    /// convergence"). Lock step already runs every lane that executes a block
    /// together, so the token carries nothing: the result is ⊤, memory unchanged,
    /// and the calls naming it in a `"convergencectrl"` bundle run as written.
    ConvergenceControl,
}

/// The OpenCL work-item functions (OpenCL C 2.0 §6.13.1) over pllvm's one-
/// dimensional launches (docs/launch.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkItemFn {
    /// `get_local_id(d)`: the thread's id in its work-group.
    LocalId,
    /// `get_global_id(d)`: the thread's id in the grid.
    GlobalId,
    /// `get_group_id(d)`: the work-group's id.
    GroupId,
    /// `get_local_size(d)`: threads per work-group.
    LocalSize,
    /// `get_num_groups(d)`: work-groups in the grid.
    NumGroups,
    /// `get_global_size(d)`: threads in the grid.
    GlobalSize,
}

/// Pure per-lane math functions: C library functions and LLVM intrinsics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    /// `sqrt`.
    Sqrt,
    /// `fabs` (clears the sign bit, NaN payload kept).
    Fabs,
    /// `floor`.
    Floor,
    /// `ceil`.
    Ceil,
    /// `trunc`.
    Trunc,
    /// `round`: to nearest, ties away from zero.
    Round,
    /// `roundeven`: to nearest, ties to even.
    RoundEven,
    /// `rint`: to nearest in the default rounding mode (ties to even).
    Rint,
    /// `nearbyint`: as `rint`.
    NearbyInt,
    /// `exp`.
    Exp,
    /// `exp2`.
    Exp2,
    /// `exp10`.
    Exp10,
    /// `expm1`.
    Expm1,
    /// `log`.
    Log,
    /// `log2`.
    Log2,
    /// `log10`.
    Log10,
    /// `log1p`.
    Log1p,
    /// `sin`.
    Sin,
    /// `cos`.
    Cos,
    /// `tan`.
    Tan,
    /// `asin`.
    Asin,
    /// `acos`.
    Acos,
    /// `atan`.
    Atan,
    /// `sinh`.
    Sinh,
    /// `cosh`.
    Cosh,
    /// `tanh`.
    Tanh,
    /// `cbrt`.
    Cbrt,
    /// `llvm.canonicalize`: NaN becomes the preferred NaN.
    Canonicalize,
    /// `pow`.
    Pow,
    /// `atan2`.
    Atan2,
    /// `hypot`.
    Hypot,
    /// C `fmod` (as `frem`).
    Fmod,
    /// `minnum` / C `fmin`: one NaN operand yields the other operand.
    MinNum,
    /// `maxnum` / C `fmax`.
    MaxNum,
    /// `minimum`: NaN propagates, -0 < +0.
    Minimum,
    /// `maximum`: NaN propagates, -0 < +0.
    Maximum,
    /// `minimumnum`: like `minnum`, -0 < +0.
    MinimumNum,
    /// `maximumnum`: like `maxnum`, -0 < +0.
    MaximumNum,
    /// `copysign` (bit operation).
    CopySign,
    /// `powi(x, i32 n)`.
    Powi,
    /// `ldexp(x, iN e)`: x · 2^e.
    Ldexp,
    /// `fma`: fused multiply-add, one rounding.
    Fma,
    /// `fmuladd`: LLVM allows fused or unfused; pllvm computes it unfused.
    FMulAdd,
    /// `lround` / `llround`: round half away from zero to an integer.
    LRound,
    /// `lrint` / `llrint`: round to nearest even to an integer.
    LRint,
    /// `smin`.
    SMin,
    /// `smax`.
    SMax,
    /// `umin`.
    UMin,
    /// `umax`.
    UMax,
    /// `abs(x, i1 int_min_poison)`.
    Abs,
    /// `ctpop`.
    Ctpop,
    /// `ctlz(x, i1 is_zero_poison)`.
    Ctlz,
    /// `cttz(x, i1 is_zero_poison)`.
    Cttz,
    /// `bswap` (widths a multiple of 16).
    Bswap,
    /// `bitreverse`.
    Bitreverse,
    /// `fshl(a, b, c)`: funnel shift left.
    FShl,
    /// `fshr(a, b, c)`: funnel shift right.
    FShr,
    /// `sadd.sat`.
    SAddSat,
    /// `uadd.sat`.
    UAddSat,
    /// `ssub.sat`.
    SSubSat,
    /// `usub.sat`.
    USubSat,
    /// `scmp`: signed three-way comparison (-1, 0, 1).
    SCmp,
    /// `ucmp`: unsigned three-way comparison (-1, 0, 1).
    UCmp,
}

/// The signature shape of a math function (checked by [`signature_ok`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// `(F) -> F`.
    FloatUnary,
    /// `(F, F) -> F`.
    FloatBinary,
    /// `(F, iN) -> F`.
    FloatInt,
    /// `(F, F, F) -> F`.
    FloatTernary,
    /// `(F) -> iN`.
    FloatToInt,
    /// `(iN) -> iN`.
    IntUnary,
    /// `(iN, i1) -> iN`.
    IntWithFlag,
    /// `(iN, iN) -> iN`.
    IntBinary,
    /// `(iN, iN, iN) -> iN`.
    IntTernary,
    /// `(iN, iN) -> iM`, M ≥ 2.
    IntCompare,
}

impl MathFn {
    /// The signature shape.
    fn shape(self) -> Shape {
        use MathFn::*;
        match self {
            Sqrt | Fabs | Floor | Ceil | Trunc | Round | RoundEven | Rint | NearbyInt | Exp
            | Exp2 | Exp10 | Expm1 | Log | Log2 | Log10 | Log1p | Sin | Cos | Tan | Asin | Acos
            | Atan | Sinh | Cosh | Tanh | Cbrt | Canonicalize => Shape::FloatUnary,
            Pow | Atan2 | Hypot | Fmod | MinNum | MaxNum | Minimum | Maximum | MinimumNum
            | MaximumNum | CopySign => Shape::FloatBinary,
            Powi | Ldexp => Shape::FloatInt,
            Fma | FMulAdd => Shape::FloatTernary,
            LRound | LRint => Shape::FloatToInt,
            Ctpop | Bswap | Bitreverse => Shape::IntUnary,
            Abs | Ctlz | Cttz => Shape::IntWithFlag,
            SMin | SMax | UMin | UMax | SAddSat | UAddSat | SSubSat | USubSat => Shape::IntBinary,
            FShl | FShr => Shape::IntTernary,
            SCmp | UCmp => Shape::IntCompare,
        }
    }
}

/// Names θ resolves (each may carry LLVM overload suffixes), canonical name first.
const NAMES: &[(&str, Builtin)] = {
    use Builtin::*;
    use MathFn as M;
    &[
        ("pllvm.thread_id", ThreadId),
        ("llvm.amdgcn.workitem.id.x", ThreadId),
        ("llvm.nvvm.read.ptx.sreg.tid.x", ThreadId),
        ("pllvm.group_id", GroupId),
        ("llvm.amdgcn.workgroup.id.x", GroupId),
        ("llvm.nvvm.read.ptx.sreg.ctaid.x", GroupId),
        ("pllvm.group_size", GroupSize),
        ("llvm.nvvm.read.ptx.sreg.ntid.x", GroupSize),
        ("pllvm.any", Any),
        ("pllvm.all", All),
        ("pllvm.popcount", Popcount),
        ("pllvm.ballot", Ballot),
        ("llvm.assume", Assume),
        ("llvm.lifetime.start", LifetimeStart),
        ("llvm.lifetime.end", LifetimeEnd),
        ("llvm.memset", Memset),
        ("llvm.memset.inline", Memset),
        ("llvm.memcpy", Memcpy),
        ("llvm.memcpy.inline", Memcpy),
        ("llvm.memmove", Memmove),
        ("llvm.experimental.noalias.scope.decl", NoOp),
        ("llvm.donothing", NoOp),
        ("llvm.sideeffect", NoOp),
        ("llvm.dbg.value", NoOp),
        ("llvm.dbg.declare", NoOp),
        ("llvm.dbg.assign", NoOp),
        ("llvm.dbg.label", NoOp),
        ("llvm.amdgcn.mbcnt.lo", MbcntLo),
        ("llvm.amdgcn.mbcnt.hi", MbcntHi),
        ("llvm.amdgcn.readfirstlane", ReadFirstLane),
        ("llvm.amdgcn.readlane", ReadLane),
        ("llvm.amdgcn.ballot", WaveBallot),
        ("llvm.nvvm.read.ptx.sreg.laneid", LaneId),
        ("llvm.nvvm.read.ptx.sreg.warpsize", WaveSize),
        ("pllvm.barrier", Barrier),
        ("llvm.amdgcn.s.barrier", Barrier),
        ("llvm.nvvm.barrier0", Barrier),
        ("_Z7barrierj", Barrier),
        ("_Z18work_group_barrierj", Barrier),
        ("_Z12get_local_idj", WorkItem(WorkItemFn::LocalId)),
        ("_Z13get_global_idj", WorkItem(WorkItemFn::GlobalId)),
        ("_Z12get_group_idj", WorkItem(WorkItemFn::GroupId)),
        ("_Z14get_local_sizej", WorkItem(WorkItemFn::LocalSize)),
        ("_Z14get_num_groupsj", WorkItem(WorkItemFn::NumGroups)),
        ("_Z15get_global_sizej", WorkItem(WorkItemFn::GlobalSize)),
        ("llvm.experimental.convergence.entry", ConvergenceControl),
        ("llvm.experimental.convergence.anchor", ConvergenceControl),
        ("llvm.experimental.convergence.loop", ConvergenceControl),
        (
            "llvm.nvvm.read.ptx.sreg.nctaid.x",
            GridDim(WorkItemFn::NumGroups, 0),
        ),
        (
            "llvm.nvvm.read.ptx.sreg.nctaid.y",
            GridDim(WorkItemFn::NumGroups, 1),
        ),
        (
            "llvm.nvvm.read.ptx.sreg.nctaid.z",
            GridDim(WorkItemFn::NumGroups, 2),
        ),
        (
            "llvm.nvvm.read.ptx.sreg.tid.y",
            GridDim(WorkItemFn::LocalId, 1),
        ),
        (
            "llvm.nvvm.read.ptx.sreg.tid.z",
            GridDim(WorkItemFn::LocalId, 2),
        ),
        (
            "llvm.nvvm.read.ptx.sreg.ctaid.y",
            GridDim(WorkItemFn::GroupId, 1),
        ),
        (
            "llvm.nvvm.read.ptx.sreg.ctaid.z",
            GridDim(WorkItemFn::GroupId, 2),
        ),
        (
            "llvm.nvvm.read.ptx.sreg.ntid.y",
            GridDim(WorkItemFn::LocalSize, 1),
        ),
        (
            "llvm.nvvm.read.ptx.sreg.ntid.z",
            GridDim(WorkItemFn::LocalSize, 2),
        ),
        ("llvm.amdgcn.workitem.id.y", GridDim(WorkItemFn::LocalId, 1)),
        ("llvm.amdgcn.workitem.id.z", GridDim(WorkItemFn::LocalId, 2)),
        (
            "llvm.amdgcn.workgroup.id.y",
            GridDim(WorkItemFn::GroupId, 1),
        ),
        (
            "llvm.amdgcn.workgroup.id.z",
            GridDim(WorkItemFn::GroupId, 2),
        ),
        ("llvm.sqrt", Math(M::Sqrt)),
        ("llvm.fabs", Math(M::Fabs)),
        ("llvm.floor", Math(M::Floor)),
        ("llvm.ceil", Math(M::Ceil)),
        ("llvm.trunc", Math(M::Trunc)),
        ("llvm.round", Math(M::Round)),
        ("llvm.roundeven", Math(M::RoundEven)),
        ("llvm.rint", Math(M::Rint)),
        ("llvm.nearbyint", Math(M::NearbyInt)),
        ("llvm.exp", Math(M::Exp)),
        ("llvm.exp2", Math(M::Exp2)),
        ("llvm.exp10", Math(M::Exp10)),
        ("llvm.log", Math(M::Log)),
        ("llvm.log2", Math(M::Log2)),
        ("llvm.log10", Math(M::Log10)),
        ("llvm.sin", Math(M::Sin)),
        ("llvm.cos", Math(M::Cos)),
        ("llvm.tan", Math(M::Tan)),
        ("llvm.asin", Math(M::Asin)),
        ("llvm.acos", Math(M::Acos)),
        ("llvm.atan", Math(M::Atan)),
        ("llvm.sinh", Math(M::Sinh)),
        ("llvm.cosh", Math(M::Cosh)),
        ("llvm.tanh", Math(M::Tanh)),
        ("llvm.canonicalize", Math(M::Canonicalize)),
        ("llvm.pow", Math(M::Pow)),
        ("llvm.atan2", Math(M::Atan2)),
        ("llvm.minnum", Math(M::MinNum)),
        ("llvm.maxnum", Math(M::MaxNum)),
        ("llvm.minimum", Math(M::Minimum)),
        ("llvm.maximum", Math(M::Maximum)),
        ("llvm.minimumnum", Math(M::MinimumNum)),
        ("llvm.maximumnum", Math(M::MaximumNum)),
        ("llvm.copysign", Math(M::CopySign)),
        ("llvm.powi", Math(M::Powi)),
        ("llvm.ldexp", Math(M::Ldexp)),
        ("llvm.fma", Math(M::Fma)),
        ("llvm.fmuladd", Math(M::FMulAdd)),
        ("llvm.lround", Math(M::LRound)),
        ("llvm.llround", Math(M::LRound)),
        ("llvm.lrint", Math(M::LRint)),
        ("llvm.llrint", Math(M::LRint)),
        ("llvm.smin", Math(M::SMin)),
        ("llvm.smax", Math(M::SMax)),
        ("llvm.umin", Math(M::UMin)),
        ("llvm.umax", Math(M::UMax)),
        ("llvm.abs", Math(M::Abs)),
        ("llvm.ctpop", Math(M::Ctpop)),
        ("llvm.ctlz", Math(M::Ctlz)),
        ("llvm.cttz", Math(M::Cttz)),
        ("llvm.bswap", Math(M::Bswap)),
        ("llvm.bitreverse", Math(M::Bitreverse)),
        ("llvm.fshl", Math(M::FShl)),
        ("llvm.fshr", Math(M::FShr)),
        ("llvm.sadd.sat", Math(M::SAddSat)),
        ("llvm.uadd.sat", Math(M::UAddSat)),
        ("llvm.ssub.sat", Math(M::SSubSat)),
        ("llvm.usub.sat", Math(M::USubSat)),
        ("llvm.scmp", Math(M::SCmp)),
        ("llvm.ucmp", Math(M::UCmp)),
    ]
};

/// C library functions clang emits for math calls (the `double` spelling; the
/// `float` one adds `f`: `sqrtf`). Their types come from the call, as for intrinsics.
const C_LIBRARY: &[(&str, MathFn)] = {
    use MathFn::*;
    &[
        ("sqrt", Sqrt),
        ("fabs", Fabs),
        ("floor", Floor),
        ("ceil", Ceil),
        ("trunc", Trunc),
        ("round", Round),
        ("roundeven", RoundEven),
        ("rint", Rint),
        ("nearbyint", NearbyInt),
        ("exp", Exp),
        ("exp2", Exp2),
        ("exp10", Exp10),
        ("expm1", Expm1),
        ("log", Log),
        ("log2", Log2),
        ("log10", Log10),
        ("log1p", Log1p),
        ("sin", Sin),
        ("cos", Cos),
        ("tan", Tan),
        ("asin", Asin),
        ("acos", Acos),
        ("atan", Atan),
        ("sinh", Sinh),
        ("cosh", Cosh),
        ("tanh", Tanh),
        ("cbrt", Cbrt),
        ("pow", Pow),
        ("atan2", Atan2),
        ("hypot", Hypot),
        ("fmod", Fmod),
        ("fmin", MinNum),
        ("fmax", MaxNum),
        ("fminimum", Minimum),
        ("fmaximum", Maximum),
        ("fminimum_num", MinimumNum),
        ("fmaximum_num", MaximumNum),
        ("copysign", CopySign),
        ("ldexp", Ldexp),
        ("fma", Fma),
        ("lround", LRound),
        ("llround", LRound),
        ("lrint", LRint),
        ("llrint", LRint),
    ]
};

/// Whether `s` is one LLVM overload suffix for a scalar type: `i32`, `f64`, `p0`
/// (an opaque pointer in address space 0), or the typed-pointer `p0i8` of old IR.
fn is_type_suffix(s: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    if let Some(width) = s.strip_prefix('i') {
        return digits(width);
    }
    if matches!(
        s,
        "f16" | "bf16" | "f32" | "f64" | "f80" | "f128" | "ppcf128"
    ) {
        return true;
    }
    if let Some(rest) = s.strip_prefix('p') {
        let split = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (space, pointee) = rest.split_at(split);
        return digits(space) && (pointee.is_empty() || is_type_suffix(pointee));
    }
    false
}

/// θ(fnc): the function behind a callee name (without `@`), or `None` when θ does
/// not define it (Def. 11.2 then makes the program ill-formed).
pub fn resolve(name: &str) -> Option<Builtin> {
    for &(base, builtin) in NAMES {
        let Some(rest) = name.strip_prefix(base) else {
            continue;
        };
        if rest.is_empty() {
            return Some(builtin);
        }
        if let Some(suffixes) = rest.strip_prefix('.')
            && suffixes.split('.').all(is_type_suffix)
        {
            return Some(builtin);
        }
    }
    // CUDA libdevice (`__nv_sqrtf`) and AMD OCML (`__ocml_sqrt_f32`) spellings.
    let c_name = if let Some(rest) = name.strip_prefix("__nv_") {
        rest
    } else if let Some(rest) = name.strip_prefix("__ocml_") {
        rest.strip_suffix("_f32")
            .or_else(|| rest.strip_suffix("_f64"))?
    } else {
        name
    };
    let double_name = C_LIBRARY.iter().find(|(n, _)| *n == c_name);
    let float_name = || {
        let base = c_name.strip_suffix('f')?;
        C_LIBRARY.iter().find(|(n, _)| *n == base)
    };
    double_name
        .or_else(float_name)
        .map(|&(_, f)| Builtin::Math(f))
}

impl Builtin {
    /// The canonical name (`pllvm.any`, `llvm.sqrt`), without overload suffixes.
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, b)| *b == self)
            .map_or("unknown", |(n, _)| n)
    }
}

impl fmt::Display for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether one lane's result depends on other lanes' arguments (`any`, `all`,
/// `popcount`, `ballot`). `thread_id` is not horizontal (it reads no argument)
/// but its result differs per lane; [`apply_horizontal`] evaluates it too.
pub fn is_horizontal(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::Any | Builtin::All | Builtin::Popcount | Builtin::Ballot
    )
}

/// Whether the interpreter must execute the builtin against memory (`memset`,
/// `memcpy`, `memmove`, `lifetime.*`); θ only names these.
pub fn touches_memory(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::Memset
            | Builtin::Memcpy
            | Builtin::Memmove
            | Builtin::LifetimeStart
            | Builtin::LifetimeEnd
    )
}

/// Why a horizontal builtin could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThetaError {
    /// [`apply_horizontal`] was asked for a per-lane or memory builtin.
    NotHorizontal(Builtin),
    /// Wrong number of arguments.
    Arity {
        /// The builtin.
        builtin: Builtin,
        /// Arguments it takes.
        expected: usize,
        /// Arguments given.
        got: usize,
    },
    /// An argument vector does not hold one value per lane.
    LaneCount {
        /// The builtin.
        builtin: Builtin,
        /// W.
        width: usize,
        /// Values given.
        got: usize,
    },
    /// A lane's argument is not an `i1`.
    NotABit(Builtin),
    /// The result type cannot hold the result for this W.
    ResultTooNarrow {
        /// The builtin.
        builtin: Builtin,
        /// W.
        width: usize,
        /// Bits of the result type (0 when it is not an integer).
        bits: u32,
    },
}

impl fmt::Display for ThetaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThetaError::NotHorizontal(b) => {
                write!(f, "{b} is not a horizontal builtin (Fig. 4.15)")
            }
            ThetaError::Arity {
                builtin,
                expected,
                got,
            } => write!(f, "{builtin} takes {expected} argument(s), got {got}"),
            ThetaError::LaneCount {
                builtin,
                width,
                got,
            } => write!(f, "{builtin} needs one value per lane ({width}), got {got}"),
            ThetaError::NotABit(b) => write!(f, "{b} needs an i1 argument in every lane"),
            ThetaError::ResultTooNarrow {
                builtin,
                width,
                bits,
            } => write!(
                f,
                "the result type of {builtin} (i{bits}) cannot hold its result for {width} lanes"
            ),
        }
    }
}

impl std::error::Error for ThetaError {}

/// Whether every number 0..=`max` fits the integer type `ret` (`Some(bits)`).
fn fits(ret: &TypeData, max: u64) -> Result<u32, u32> {
    match ret {
        TypeData::Int(bits) if BigUint::from(max).bits() <= u64::from(*bits) => Ok(*bits),
        TypeData::Int(bits) => Err(*bits),
        _ => Err(0),
    }
}

/// The builtins of Fig. 4.15 over the whole thread array: `args[k][lane]` is lane
/// `lane`'s k-th argument. Returns one value per lane (the broadcast of Fig. 4.15).
///
/// As Fig. 4.15 says ("we omit the activation amsk^W ... understanding that ... the
/// activation ignored"), `any`/`all`/`popcount`/`ballot` read the argument of
/// *every* lane, active or not.
///
/// ⊤ lanes (semantics/RULES.md, "Readings"): ⊤ stands for a value nobody chose, so
/// the result is defined exactly when every choice of the ⊤ lanes gives the same
/// result, and is that result; otherwise it is ⊤. For `any` (∃, Fig. 4.15) a lane
/// holding 1 is a witness whatever the ⊤ lanes hold (`any([0, 1, ⊤, ⊤]) = 1`),
/// and dually a lane holding 0 decides `all` (`all([0, ⊤]) = 0`). `popcount` (Σ)
/// and `ballot` (the vector itself) depend on every lane, so one ⊤ lane makes
/// them ⊤ (an integer with one unknown bit has no representation but ⊤).
/// `popcount` and `thread_id` need a result type that holds W, and `ballot` one
/// of at least W bits (bit τ is lane τ's argument); otherwise the call is an
/// error, never a wrapped value.
pub fn apply_horizontal(
    b: Builtin,
    args: &[Vec<Val>],
    ret: &TypeData,
    width: usize,
) -> Result<Vec<Val>, ThetaError> {
    let too_narrow = |bits| ThetaError::ResultTooNarrow {
        builtin: b,
        width,
        bits,
    };
    if is_launch_id(b) {
        expect_arity(b, args, 0)?;
        return apply_launch(b, ret, width, &LaunchPosition::default());
    }
    if !is_horizontal(b) {
        return Err(ThetaError::NotHorizontal(b));
    }
    expect_arity(b, args, 1)?;
    let lanes = &args[0];
    if lanes.len() != width {
        return Err(ThetaError::LaneCount {
            builtin: b,
            width,
            got: lanes.len(),
        });
    }
    // m^W with ⊤ lanes as `None`.
    let mut bits = Vec::with_capacity(width);
    for lane_value in lanes {
        match lane_value {
            Val::Undef => bits.push(None),
            Val::Int(v) if *v <= 1 => bits.push(Some(*v == 1)),
            _ => return Err(ThetaError::NotABit(b)),
        }
    }
    let result = match b {
        Builtin::Any => theta_any(&bits),
        Builtin::All => theta_all(&bits),
        Builtin::Popcount => {
            let result_bits = fits(ret, width as u64).map_err(too_narrow)?;
            theta_popcount(&bits, result_bits)
        }
        _ => {
            let result_bits = match ret {
                TypeData::Int(w) if *w as usize >= width => *w,
                TypeData::Int(w) => return Err(too_narrow(*w)),
                _ => return Err(too_narrow(0)),
            };
            theta_ballot(&bits, result_bits)
        }
    };
    Ok(vec![result; width])
}

/// Whether the builtin reads the thread array's place in a launch (`thread_id`,
/// `group_id`, `group_size`): [`apply_launch`] evaluates it.
pub fn is_launch_id(b: Builtin) -> bool {
    matches!(b, Builtin::ThreadId | Builtin::GroupId | Builtin::GroupSize)
}

/// Where a thread array sits in a launch of many (docs/launch.md): a
/// grid of N threads runs as thread arrays of W lanes, grouped into work-groups
/// of G threads (G a multiple of W). One thread array alone, as the thesis runs
/// it, is a group of W threads whose lane τ has id τ (the default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LaunchPosition {
    /// The id within its work-group of lane 0: lane τ's `thread_id` is this + τ.
    pub first_local_id: u64,
    /// The work-group's id (`group_id`).
    pub group: u64,
    /// Threads per work-group (`group_size`); `None`: W, the thread array alone.
    pub group_size: Option<u64>,
    /// Threads of the whole grid (OpenCL's `get_global_size`); `None`: one group.
    pub grid_size: Option<u64>,
}

/// `thread_id`, `group_id` and `group_size` for every lane of a thread array of
/// `width` lanes at `position` in a launch: lane τ's thread id is
/// `first_local_id + τ` (Fig. 4.15's τ when the array is alone), the group's id
/// and size are the same in every lane. A result type that cannot hold the value
/// is an error, never a wrapped value.
pub fn apply_launch(
    b: Builtin,
    ret: &TypeData,
    width: usize,
    position: &LaunchPosition,
) -> Result<Vec<Val>, ThetaError> {
    let too_narrow = |bits| ThetaError::ResultTooNarrow {
        builtin: b,
        width,
        bits,
    };
    let first = position.first_local_id;
    match b {
        Builtin::ThreadId => {
            let last = first.saturating_add(width.saturating_sub(1) as u64);
            let bits = fits(ret, last).map_err(too_narrow)?;
            Ok((0..width as u64)
                .map(|lane| int_val(bits, BigUint::from(first + lane)))
                .collect())
        }
        Builtin::GroupId | Builtin::GroupSize => {
            let value = match b {
                Builtin::GroupId => position.group,
                _ => position.group_size.unwrap_or(width as u64),
            };
            let bits = fits(ret, value).map_err(too_narrow)?;
            Ok(vec![int_val(bits, BigUint::from(value)); width])
        }
        other => Err(ThetaError::NotHorizontal(other)),
    }
}

/// θ(`get_local_id(d)`, ... ) for one lane (OpenCL C 2.0 §6.13.1) in a launch
/// of one dimension (docs/launch.md): in dimension 0 the values of `thread_id`,
/// `group_id` and `group_size` at `position` (the lane's local id is
/// `first_local_id + lane`, its global id `group · group_size + local id`), the
/// grid's threads N and ⌈N / group_size⌉ groups; in dimensions 1 and 2, and for
/// any `d` ≥ 3, what OpenCL gives there: ids 0, sizes and counts 1. A thread
/// array alone is one group of W threads. ⊤ when `d` is ⊤, and when the value
/// does not fit the result type (an error would be wrong here: `d` is per lane).
pub fn theta_work_item(
    f: WorkItemFn,
    d: &Val,
    lane: usize,
    width: usize,
    bits: u32,
    position: &LaunchPosition,
) -> Val {
    let Some(d) = d.as_u128() else {
        return Val::Undef;
    };
    let group_size = position.group_size.unwrap_or(width as u64);
    let grid = position.grid_size.unwrap_or(group_size);
    let local = position.first_local_id + lane as u64;
    let value = match (f, d) {
        (WorkItemFn::LocalId, 0) => local,
        (WorkItemFn::GlobalId, 0) => position.group * group_size + local,
        (WorkItemFn::GroupId, 0) => position.group,
        (WorkItemFn::LocalSize, 0) => group_size,
        (WorkItemFn::NumGroups, 0) => grid.div_ceil(group_size.max(1)),
        (WorkItemFn::GlobalSize, 0) => grid,
        (WorkItemFn::LocalId | WorkItemFn::GlobalId | WorkItemFn::GroupId, _) => 0,
        (WorkItemFn::LocalSize | WorkItemFn::NumGroups | WorkItemFn::GlobalSize, _) => 1,
    };
    if BigUint::from(value).bits() > u64::from(bits) {
        return Val::Undef;
    }
    int_val(bits, BigUint::from(value))
}

/// Whether the builtin is one of the targets' wave (warp) operations that read
/// the lane's position or the activation ([`apply_wave`]).
pub fn is_wave_op(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::MbcntLo
            | Builtin::MbcntHi
            | Builtin::ReadFirstLane
            | Builtin::ReadLane
            | Builtin::WaveBallot
            | Builtin::LaneId
            | Builtin::WaveSize
    )
}

/// The targets' wave operations over a thread array (docs/language.md, "Calls and declarations"): the
/// array is the wave (amdgcn) or warp (nvptx), lane τ its τ-th lane. As θ's
/// functions of Fig. 4.14 they see every argument vector and the activation
/// amsk^W (`active`); `args[k][τ]` is lane τ's k-th argument. Returns one value
/// per lane; passive lanes of the per-lane ones (`mbcnt`) get ⊤, as a passive
/// lane of any per-lane function computes nothing.
pub fn apply_wave(
    b: Builtin,
    args: &[Vec<Val>],
    ret: &TypeData,
    active: &[bool],
) -> Result<Vec<Val>, ThetaError> {
    let width = active.len();
    let arity = match b {
        Builtin::LaneId | Builtin::WaveSize => 0,
        Builtin::ReadFirstLane | Builtin::WaveBallot => 1,
        Builtin::MbcntLo | Builtin::MbcntHi | Builtin::ReadLane => 2,
        other => return Err(ThetaError::NotHorizontal(other)),
    };
    expect_arity(b, args, arity)?;
    if let Some(col) = args.iter().find(|col| col.len() != width) {
        return Err(ThetaError::LaneCount {
            builtin: b,
            width,
            got: col.len(),
        });
    }
    let too_narrow = |bits| ThetaError::ResultTooNarrow {
        builtin: b,
        width,
        bits,
    };
    match b {
        Builtin::MbcntLo | Builtin::MbcntHi => Ok((0..width)
            .map(|lane| {
                if active[lane] {
                    theta_mbcnt(b == Builtin::MbcntHi, lane, &args[0][lane], &args[1][lane])
                } else {
                    Val::Undef
                }
            })
            .collect()),
        Builtin::ReadFirstLane => Ok(vec![theta_readfirstlane(&args[0], active); width]),
        Builtin::ReadLane => Ok(vec![theta_readlane(&args[0], &args[1], active); width]),
        Builtin::WaveBallot => {
            let bits = match ret {
                TypeData::Int(w) if *w as usize >= width => *w,
                TypeData::Int(w) => return Err(too_narrow(*w)),
                _ => return Err(too_narrow(0)),
            };
            Ok(vec![theta_wave_ballot(&args[0], active, bits); width])
        }
        Builtin::LaneId => {
            let bits = fits(ret, width.saturating_sub(1) as u64).map_err(too_narrow)?;
            Ok(theta_lane_id(width, bits))
        }
        _ => {
            let bits = fits(ret, width as u64).map_err(too_narrow)?;
            Ok(vec![theta_wave_size(width, bits); width])
        }
    }
}

/// θ(`llvm.amdgcn.mbcnt.lo` / `.hi`) for lane τ: "masked bit count", the number of
/// set bits of `mask` at the positions of the lanes below τ, plus `add`
/// (LLVM AMDGPUUsage and the ISA's `v_mbcnt_lo_u32_b32` / `v_mbcnt_hi_u32_b32`:
/// `popcount(mask & ThreadMask) + add`, ThreadMask = the lanes below the lane's
/// position, whether active or not). `lo`'s mask covers lanes 0-31 and `hi`'s
/// lanes 32-63, so `mbcnt.hi(-1, mbcnt.lo(-1, 0))` is τ for τ < 64 (a lane past
/// 63, in a thread array wider than a wave, sees all 64 bits below it). Modulo
/// 2^32, as the instruction adds; ⊤ in either operand gives ⊤.
pub fn theta_mbcnt(high: bool, lane: usize, mask: &Val, add: &Val) -> Val {
    let (Some(mask), Some(add)) = (mask.as_u128(), add.as_u128()) else {
        return Val::Undef;
    };
    let position = if high { lane.saturating_sub(32) } else { lane };
    let below = position.min(32) as u32;
    let ones = if below == 32 {
        u32::MAX
    } else {
        (1u32 << below) - 1
    };
    let count = (mask as u32 & ones).count_ones();
    Val::Int(u128::from((add as u32).wrapping_add(count)))
}

/// θ(`llvm.amdgcn.readfirstlane`): "the value in the lowest active lane of the
/// input operand" (LLVM AMDGPUUsage, `v_readfirstlane_b32`), the same in every
/// lane. With no active lane there is no first one, and the result is ⊤.
pub fn theta_readfirstlane(v: &[Val], active: &[bool]) -> Val {
    active
        .iter()
        .position(|&a| a)
        .map_or(Val::Undef, |first| v[first].clone())
}

/// θ(`llvm.amdgcn.readlane(v, l)`): "the value in the specified lane of the first
/// input operand" (LLVM AMDGPUUsage, `v_readlane_b32`), the same in every lane;
/// the lane `l` "has to be uniform" over the active lanes, and the result is
/// undefined (⊤) when it is not, when it is ⊤, when no lane is active, or when it
/// names no lane of the array. The lane read need not be active (the instruction
/// reads its register whatever the exec mask).
pub fn theta_readlane(v: &[Val], l: &[Val], active: &[bool]) -> Val {
    let mut chosen: Option<u128> = None;
    for (lane, &on) in active.iter().enumerate() {
        if !on {
            continue;
        }
        match (l[lane].as_u128(), chosen) {
            (None, _) => return Val::Undef,
            (Some(x), Some(c)) if x != c => return Val::Undef,
            (Some(x), _) => chosen = Some(x),
        }
    }
    chosen
        .and_then(|c| usize::try_from(c).ok())
        .and_then(|c| v.get(c).cloned())
        .unwrap_or(Val::Undef)
}

/// θ(`llvm.amdgcn.ballot`): "a bitfield ... containing the result of its i1
/// argument in all active lanes, and zero in all inactive lanes" (LLVM
/// AMDGPUUsage) as an `i{bits}`: bit τ is lane τ's argument if lane τ is active,
/// else 0. An active lane holding ⊤ leaves its bit unknown, so the result is ⊤
/// (as for θ(ballot), an integer with an unknown bit has no representation).
pub fn theta_wave_ballot(c: &[Val], active: &[bool], bits: u32) -> Val {
    let mut mask = BigUint::zero();
    for (lane, &on) in active.iter().enumerate() {
        if !on {
            continue;
        }
        match c[lane] {
            Val::Int(v) if v <= 1 => mask.set_bit(lane as u64, v == 1),
            _ => return Val::Undef,
        }
    }
    int_val(bits, mask)
}

/// θ(`llvm.nvvm.read.ptx.sreg.laneid`): lane τ's position in its warp, τ (PTX
/// `%laneid`; the thread array is the warp, docs/launch.md). In a launch it is
/// not the thread's id in its group (`tid.x`), which counts from the group's
/// first thread.
pub fn theta_lane_id(width: usize, bits: u32) -> Vec<Val> {
    (0..width)
        .map(|lane| int_val(bits, BigUint::from(lane)))
        .collect()
}

/// θ(`llvm.nvvm.read.ptx.sreg.warpsize`): the lanes of a warp, which in pllvm is
/// the thread array's W (PTX `WARP_SZ`), the same in every lane.
pub fn theta_wave_size(width: usize, bits: u32) -> Val {
    int_val(bits, BigUint::from(width))
}

/// θ(any) = λm^W. ∃t ∈ 𝒯. m^W(t) (Fig. 4.15), `None` lanes ⊤: a lane holding 1 is
/// a witness whatever the ⊤ lanes hold; without one, a ⊤ lane could be the
/// witness or not, so the result is ⊤; with neither, 0.
fn theta_any(m: &[Option<bool>]) -> Val {
    if m.contains(&Some(true)) {
        Val::bool(true)
    } else if m.contains(&None) {
        Val::Undef
    } else {
        Val::bool(false)
    }
}

/// `all` = λm^W. ∀t ∈ 𝒯. m^W(t), the dual of θ(any) (not in Fig. 4.15; pllvm's):
/// a lane holding 0 is a counterexample whatever the ⊤ lanes hold; without one,
/// ⊤ if some lane is ⊤, else 1.
fn theta_all(m: &[Option<bool>]) -> Val {
    if m.contains(&Some(false)) {
        Val::bool(false)
    } else if m.contains(&None) {
        Val::Undef
    } else {
        Val::bool(true)
    }
}

/// θ(popcount) = λm^W. Σ_{t ∈ 𝒯} m^W(t) (Fig. 4.15) as an `i{bits}`: every lane
/// counts, so a ⊤ lane makes the sum ⊤ (its two choices give two sums).
fn theta_popcount(m: &[Option<bool>], bits: u32) -> Val {
    let mut count = 0usize;
    for lane in m {
        match lane {
            Some(true) => count += 1,
            Some(false) => {}
            None => return Val::Undef,
        }
    }
    int_val(bits, BigUint::from(count))
}

/// θ(ballot) = λm^W. [m^W, …, m^W] (Fig. 4.15): m^W as an `i{bits}` whose bit τ
/// is lane τ's argument. A ⊤ lane leaves its bit unknown, and an integer with an
/// unknown bit is ⊤ ([`Val`] has no partly defined integers).
fn theta_ballot(m: &[Option<bool>], bits: u32) -> Val {
    let mut mask = BigUint::zero();
    for (lane, &bit) in m.iter().enumerate() {
        match bit {
            Some(b) => mask.set_bit(lane as u64, b),
            None => return Val::Undef,
        }
    }
    int_val(bits, mask)
}

/// Checks the number of argument vectors of a builtin.
fn expect_arity(b: Builtin, args: &[Vec<Val>], expected: usize) -> Result<(), ThetaError> {
    if args.len() == expected {
        Ok(())
    } else {
        Err(ThetaError::Arity {
            builtin: b,
            expected,
            got: args.len(),
        })
    }
}

/// A type as the text spells it, for signature messages.
fn type_name(ty: &TypeData) -> String {
    match ty {
        TypeData::Void => "void".into(),
        TypeData::Int(w) => format!("i{w}"),
        TypeData::F32 => "float".into(),
        TypeData::F64 => "double".into(),
        TypeData::F16 => "half".into(),
        TypeData::BF16 => "bfloat".into(),
        TypeData::Ptr(0) => "ptr".into(),
        TypeData::Ptr(n) => format!("ptr addrspace({n})"),
        TypeData::Label => "label".into(),
        TypeData::Token => "token".into(),
        TypeData::Array(..) | TypeData::Struct { .. } => "aggregate".into(),
        TypeData::Vector(..) => "vector".into(),
    }
}

/// Whether the call types fit the builtin's signature (for the verifier, Def. 11.2).
/// `Err` names the expected signature and the one found.
pub fn signature_ok(b: Builtin, arg_tys: &[&TypeData], ret: &TypeData) -> Result<(), String> {
    use TypeData::{F32, F64, Int, Ptr, Void};
    let is_float = |t: &TypeData| matches!(t, F32 | F64);
    let is_int = |t: &TypeData| matches!(t, Int(_));
    let is_first_class = |t: &TypeData| matches!(t, Int(_) | F32 | F64 | Ptr(_));
    let (ok, expected): (bool, &str) = match b {
        Builtin::ThreadId | Builtin::GroupId | Builtin::GroupSize => {
            (arg_tys.is_empty() && is_int(ret), "() -> iN")
        }
        Builtin::Any | Builtin::All => {
            (matches!(arg_tys, [Int(1)]) && *ret == Int(1), "(i1) -> i1")
        }
        Builtin::Popcount | Builtin::Ballot => {
            (matches!(arg_tys, [Int(1)]) && is_int(ret), "(i1) -> iN")
        }
        Builtin::Assume => (matches!(arg_tys, [Int(1)]) && *ret == Void, "(i1) -> void"),
        Builtin::LifetimeStart | Builtin::LifetimeEnd => (
            matches!(arg_tys, [Int(64), Ptr(_)] | [Ptr(_)]) && *ret == Void,
            "(i64, ptr) -> void or (ptr) -> void",
        ),
        Builtin::Memset => (
            matches!(arg_tys, [Ptr(_), Int(8), Int(_), Int(1)]) && *ret == Void,
            "(ptr, i8, iN, i1) -> void",
        ),
        Builtin::Memcpy | Builtin::Memmove => (
            matches!(arg_tys, [Ptr(_), Ptr(_), Int(_), Int(1)]) && *ret == Void,
            "(ptr, ptr, iN, i1) -> void",
        ),
        Builtin::NoOp => (*ret == Void, "(...) -> void"),
        Builtin::MbcntLo | Builtin::MbcntHi => (
            matches!(arg_tys, [Int(32), Int(32)]) && *ret == Int(32),
            "(i32, i32) -> i32",
        ),
        Builtin::ReadFirstLane => (
            matches!(arg_tys, [x] if *x == ret) && is_first_class(ret),
            "(T) -> T",
        ),
        Builtin::ReadLane => (
            matches!(arg_tys, [x, Int(32)] if *x == ret) && is_first_class(ret),
            "(T, i32) -> T",
        ),
        Builtin::WaveBallot => (matches!(arg_tys, [Int(1)]) && is_int(ret), "(i1) -> iN"),
        Builtin::LaneId | Builtin::WaveSize => (arg_tys.is_empty() && is_int(ret), "() -> iN"),
        Builtin::Barrier => (
            matches!(arg_tys, [] | [Int(32)]) && *ret == Void,
            "() -> void or (i32) -> void",
        ),
        Builtin::WorkItem(_) => (matches!(arg_tys, [Int(32)]) && is_int(ret), "(i32) -> iN"),
        Builtin::GridDim(..) => (arg_tys.is_empty() && is_int(ret), "() -> iN"),
        Builtin::ConvergenceControl => {
            (arg_tys.is_empty() && *ret == TypeData::Token, "() -> token")
        }
        Builtin::Math(f) => {
            let same = |t: &&TypeData| *t == ret;
            match f.shape() {
                Shape::FloatUnary => (
                    is_float(ret) && arg_tys.len() == 1 && arg_tys.iter().all(same),
                    "(F) -> F",
                ),
                Shape::FloatBinary => (
                    is_float(ret) && arg_tys.len() == 2 && arg_tys.iter().all(same),
                    "(F, F) -> F",
                ),
                Shape::FloatTernary => (
                    is_float(ret) && arg_tys.len() == 3 && arg_tys.iter().all(same),
                    "(F, F, F) -> F",
                ),
                Shape::FloatInt => (
                    is_float(ret) && matches!(arg_tys, [x, Int(_)] if *x == ret),
                    "(F, iN) -> F",
                ),
                Shape::FloatToInt => (
                    is_int(ret) && matches!(arg_tys, [x] if is_float(x)),
                    "(F) -> iN",
                ),
                Shape::IntUnary => {
                    let byte_pairs =
                        !matches!(f, MathFn::Bswap) || matches!(ret, Int(w) if w % 16 == 0);
                    (
                        is_int(ret) && byte_pairs && matches!(arg_tys, [x] if *x == ret),
                        "(iN) -> iN (N a multiple of 16 for bswap)",
                    )
                }
                Shape::IntWithFlag => (
                    is_int(ret) && matches!(arg_tys, [x, Int(1)] if *x == ret),
                    "(iN, i1) -> iN",
                ),
                Shape::IntBinary => (
                    is_int(ret) && arg_tys.len() == 2 && arg_tys.iter().all(same),
                    "(iN, iN) -> iN",
                ),
                Shape::IntTernary => (
                    is_int(ret) && arg_tys.len() == 3 && arg_tys.iter().all(same),
                    "(iN, iN, iN) -> iN",
                ),
                Shape::IntCompare => (
                    matches!(ret, Int(w) if *w >= 2)
                        && matches!(arg_tys, [x, y] if is_int(x) && x == y),
                    "(iN, iN) -> iM with M >= 2",
                ),
            }
        }
    };
    if ok {
        return Ok(());
    }
    let found: Vec<String> = arg_tys.iter().map(|t| type_name(t)).collect();
    Err(format!(
        "{b} expects {expected}, found ({}) -> {}",
        found.join(", "),
        type_name(ret)
    ))
}

/// One lane of a pure math function: `args` are this lane's arguments, of types
/// `arg_tys`, and `ret` is the result type. ⊤ in any argument gives ⊤. Ill-typed
/// calls (ruled out by [`signature_ok`]) give ⊤.
///
/// `float` functions are computed in binary64 and rounded once to binary32. For the
/// correctly rounded functions (sqrt, the rounding functions, min/max, ldexp) this
/// is exactly the binary32 result, since binary64 has more than 2·24 + 2 bits; the
/// transcendental ones have no exact result in LangRef and are computed with Rust's
/// `f64` functions. `fma` is fused in the operand type; `fmuladd` is unfused (LLVM
/// allows either).
pub fn apply_math(f: MathFn, args: &[Val], arg_tys: &[&TypeData], ret: &TypeData) -> Val {
    if args.iter().any(Val::is_undef) {
        return Val::Undef;
    }
    match f.shape() {
        Shape::FloatUnary | Shape::FloatBinary | Shape::FloatInt | Shape::FloatTernary => {
            float_math(f, args, arg_tys, ret)
        }
        Shape::FloatToInt => float_to_int_math(f, args, ret),
        _ => match arg_tys.first() {
            Some(TypeData::Int(width)) => int_math(f, args, *width, ret).unwrap_or(Val::Undef),
            _ => Val::Undef,
        },
    }
}

/// Binary64 bit pattern of the sign.
const SIGN_F64: u64 = 1 << 63;
/// Binary32 bit pattern of the sign.
const SIGN_F32: u32 = 1 << 31;

/// `minnum`-style selection: a NaN operand yields the other one; equal operands
/// order -0 < +0 (LangRef allows either zero for `minnum`; pllvm fixes one).
fn min_max_num(x: f64, y: f64, want_max: bool) -> f64 {
    if x.is_nan() {
        return y;
    }
    if y.is_nan() {
        return x;
    }
    min_max_ordered(x, y, want_max)
}

/// The smaller (larger) of two non-NaN floats, with -0 < +0.
fn min_max_ordered(x: f64, y: f64, want_max: bool) -> f64 {
    let order = x
        .partial_cmp(&y)
        .unwrap_or(Ordering::Equal)
        .then_with(|| y.is_sign_negative().cmp(&x.is_sign_negative()));
    let x_first = if want_max {
        order.is_ge()
    } else {
        order.is_le()
    };
    if x_first { x } else { y }
}

/// x · 2^e with one rounding (binary64 `ldexp`).
fn ldexp(x: f64, e: i64) -> f64 {
    let mut x = x;
    let mut e = e.clamp(-2300, 2300);
    let two_to = |k: i64| f64::from_bits(((k + 1023) as u64) << 52);
    while e > 1023 {
        x *= two_to(1023);
        e -= 1023;
    }
    // Steps of 2^-969 keep a normal x normal until the last multiplication.
    while e < -1022 {
        x *= two_to(-969);
        e += 969;
    }
    x * two_to(e)
}

/// The float math functions; the operand type is `ret` (Fig. 4.2 `fpN`).
fn float_math(f: MathFn, args: &[Val], arg_tys: &[&TypeData], ret: &TypeData) -> Val {
    // Bit operations keep NaN payloads (LangRef: fabs/copysign touch only the sign).
    match (f, args) {
        (MathFn::Fabs, [Val::F32(x)]) => return Val::F32(x & !SIGN_F32),
        (MathFn::Fabs, [Val::F64(x)]) => return Val::F64(x & !SIGN_F64),
        (MathFn::CopySign, [Val::F32(x), Val::F32(y)]) => {
            return Val::F32((x & !SIGN_F32) | (y & SIGN_F32));
        }
        (MathFn::CopySign, [Val::F64(x), Val::F64(y)]) => {
            return Val::F64((x & !SIGN_F64) | (y & SIGN_F64));
        }
        (MathFn::Fma, [Val::F32(x), Val::F32(y), Val::F32(z)]) => {
            let [x, y, z] = [x, y, z].map(|b| f32::from_bits(*b));
            return f32_val(x.mul_add(y, z));
        }
        (MathFn::FMulAdd, [Val::F32(x), Val::F32(y), Val::F32(z)]) => {
            let [x, y, z] = [x, y, z].map(|b| f32::from_bits(*b));
            return f32_val(x * y + z);
        }
        _ => {}
    }
    let float_args = args
        .iter()
        .zip(arg_tys)
        .filter(|(_, t)| matches!(t, TypeData::F32 | TypeData::F64))
        .map(|(v, _)| v.as_f64())
        .collect::<Option<Vec<f64>>>();
    let Some(xs) = float_args else {
        return Val::Undef;
    };
    let x = xs.first().copied().unwrap_or(f64::NAN);
    let y = xs.get(1).copied().unwrap_or(f64::NAN);
    let z = xs.get(2).copied().unwrap_or(f64::NAN);
    // The integer argument of powi / ldexp, as a signed number.
    let n = match (args.get(1), arg_tys.get(1)) {
        (Some(v), Some(TypeData::Int(w))) => v
            .as_biguint()
            .map(|bits| signed_big(*w, &bits))
            .and_then(|s| {
                s.clamp(BigInt::from(-100_000), BigInt::from(100_000))
                    .to_i64()
            })
            .unwrap_or(0),
        _ => 0,
    };
    let r = match f {
        MathFn::Sqrt => x.sqrt(),
        MathFn::Floor => x.floor(),
        MathFn::Ceil => x.ceil(),
        MathFn::Trunc => x.trunc(),
        MathFn::Round => x.round(),
        MathFn::RoundEven | MathFn::Rint | MathFn::NearbyInt => x.round_ties_even(),
        MathFn::Exp => x.exp(),
        MathFn::Exp2 => x.exp2(),
        MathFn::Exp10 => 10f64.powf(x),
        MathFn::Expm1 => x.exp_m1(),
        MathFn::Log => x.ln(),
        MathFn::Log2 => x.log2(),
        MathFn::Log10 => x.log10(),
        MathFn::Log1p => x.ln_1p(),
        MathFn::Sin => x.sin(),
        MathFn::Cos => x.cos(),
        MathFn::Tan => x.tan(),
        MathFn::Asin => x.asin(),
        MathFn::Acos => x.acos(),
        MathFn::Atan => x.atan(),
        MathFn::Sinh => x.sinh(),
        MathFn::Cosh => x.cosh(),
        MathFn::Tanh => x.tanh(),
        MathFn::Cbrt => x.cbrt(),
        MathFn::Canonicalize => x,
        MathFn::Pow => x.powf(y),
        MathFn::Atan2 => x.atan2(y),
        MathFn::Hypot => x.hypot(y),
        MathFn::Fmod => x % y,
        MathFn::MinNum | MathFn::MinimumNum => min_max_num(x, y, false),
        MathFn::MaxNum | MathFn::MaximumNum => min_max_num(x, y, true),
        MathFn::Minimum | MathFn::Maximum if x.is_nan() || y.is_nan() => f64::NAN,
        MathFn::Minimum => min_max_ordered(x, y, false),
        MathFn::Maximum => min_max_ordered(x, y, true),
        MathFn::Powi => x.powi(n as i32),
        MathFn::Ldexp => ldexp(x, n),
        MathFn::Fma => x.mul_add(y, z),
        MathFn::FMulAdd => x * y + z,
        _ => return Val::Undef,
    };
    match ret {
        TypeData::F32 if r.is_nan() => Val::F32(PREFERRED_NAN_F32),
        TypeData::F32 => f32_val(r as f32),
        TypeData::F64 if r.is_nan() => Val::F64(PREFERRED_NAN_F64),
        TypeData::F64 => f64_val(r),
        _ => Val::Undef,
    }
}

/// `lround` / `lrint`: round, then convert like `fptosi`. An out-of-range result is
/// "a non-deterministic value" (LangRef, i.e. `freeze poison`), and pllvm picks
/// zero, as it does for `freeze`.
fn float_to_int_math(f: MathFn, args: &[Val], ret: &TypeData) -> Val {
    let (Some(x), TypeData::Int(width)) = (args.first().and_then(Val::as_f64), ret) else {
        return Val::Undef;
    };
    let rounded = if f == MathFn::LRound {
        x.round()
    } else {
        x.round_ties_even()
    };
    float_to_int(true, *width, &Val::F64(rounded.to_bits())).unwrap_or_else(|| zero_of_data(ret))
}

/// The integer intrinsics at any `width`, as LangRef defines them on ℤ; `None` is
/// ⊤ (a poison result, or operands that are not integers).
fn int_math(f: MathFn, args: &[Val], width: u32, ret: &TypeData) -> Option<Val> {
    let operands = args
        .iter()
        .map(Val::as_biguint)
        .collect::<Option<Vec<BigUint>>>()?;
    let a = operands.first()?;
    let b = operands.get(1);
    let flag = || b.is_some_and(|v| !v.is_zero());
    let signed = |v: &BigUint| signed_big(width, v);
    let half = BigInt::one() << (width - 1);
    let from_signed = |v: &BigInt| int_val(width, wrap_signed_big(width, v));
    let from_unsigned = |v: BigUint| int_val(width, wrap_biguint(width, &v));
    let result = match f {
        MathFn::SMin => from_signed(&signed(a).min(signed(b?))),
        MathFn::SMax => from_signed(&signed(a).max(signed(b?))),
        MathFn::UMin => from_unsigned(a.min(b?).clone()),
        MathFn::UMax => from_unsigned(a.max(b?).clone()),
        MathFn::Abs => {
            let value = signed(a);
            // |INT_MIN| wraps to INT_MIN, or is poison with `int_min_poison`.
            if value == -&half && flag() {
                return None;
            }
            from_signed(&value.abs())
        }
        MathFn::Ctpop => from_unsigned(BigUint::from(a.count_ones())),
        MathFn::Ctlz | MathFn::Cttz if a.is_zero() => {
            if flag() {
                return None;
            }
            from_unsigned(BigUint::from(width))
        }
        MathFn::Ctlz => from_unsigned(BigUint::from(u64::from(width) - a.bits())),
        MathFn::Cttz => from_unsigned(BigUint::from(a.trailing_zeros().unwrap_or(0))),
        MathFn::Bswap => {
            if !width.is_multiple_of(16) {
                return None;
            }
            let mut bytes = a.to_bytes_le();
            bytes.resize((width / 8) as usize, 0);
            bytes.reverse();
            from_unsigned(BigUint::from_bytes_le(&bytes))
        }
        MathFn::Bitreverse => {
            let mut reversed = BigUint::zero();
            for bit in 0..u64::from(width) {
                if a.bit(bit) {
                    reversed.set_bit(u64::from(width) - 1 - bit, true);
                }
            }
            from_unsigned(reversed)
        }
        MathFn::FShl | MathFn::FShr => {
            let (b, c) = (b?, operands.get(2)?);
            // The shift amount is taken modulo the width, so it fits a `u32`.
            let shift = (c % width).to_u32().unwrap_or(0);
            if shift == 0 {
                return Some(from_unsigned(if f == MathFn::FShl { a } else { b }.clone()));
            }
            let combined = if f == MathFn::FShl {
                (a << shift) | (b >> (width - shift))
            } else {
                (b >> shift) | (a << (width - shift))
            };
            from_unsigned(combined)
        }
        MathFn::UAddSat => {
            let max = (BigUint::one() << width) - 1u8;
            from_unsigned((a + b?).min(max))
        }
        MathFn::USubSat => {
            let b = b?;
            from_unsigned(if a > b { a - b } else { BigUint::zero() })
        }
        MathFn::SAddSat | MathFn::SSubSat => {
            let exact = if f == MathFn::SAddSat {
                signed(a) + signed(b?)
            } else {
                signed(a) - signed(b?)
            };
            from_signed(&exact.clamp(-&half, &half - 1))
        }
        MathFn::SCmp | MathFn::UCmp => {
            let b = b?;
            let order = if f == MathFn::SCmp {
                signed(a).cmp(&signed(b))
            } else {
                a.cmp(b)
            };
            let TypeData::Int(ret_width) = ret else {
                return None;
            };
            let value = BigInt::from(order as i8);
            int_val(*ret_width, wrap_signed_big(*ret_width, &value))
        }
        _ => return None,
    };
    Some(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_the_required_names() {
        let table = [
            ("pllvm.thread_id", Builtin::ThreadId),
            ("llvm.amdgcn.workitem.id.x", Builtin::ThreadId),
            ("llvm.nvvm.read.ptx.sreg.tid.x", Builtin::ThreadId),
            ("pllvm.any", Builtin::Any),
            ("pllvm.all", Builtin::All),
            ("pllvm.popcount", Builtin::Popcount),
            ("pllvm.ballot", Builtin::Ballot),
            ("pllvm.ballot.i64", Builtin::Ballot),
            ("sqrtf", Builtin::Math(MathFn::Sqrt)),
            ("sqrt", Builtin::Math(MathFn::Sqrt)),
            ("fabsf", Builtin::Math(MathFn::Fabs)),
            ("fabs", Builtin::Math(MathFn::Fabs)),
            ("floorf", Builtin::Math(MathFn::Floor)),
            ("expf", Builtin::Math(MathFn::Exp)),
            ("exp", Builtin::Math(MathFn::Exp)),
            ("logf", Builtin::Math(MathFn::Log)),
            ("sinf", Builtin::Math(MathFn::Sin)),
            ("cosf", Builtin::Math(MathFn::Cos)),
            ("powf", Builtin::Math(MathFn::Pow)),
            ("fmaf", Builtin::Math(MathFn::Fma)),
            ("fminf", Builtin::Math(MathFn::MinNum)),
            ("fmaxf", Builtin::Math(MathFn::MaxNum)),
            ("fmodf", Builtin::Math(MathFn::Fmod)),
            ("__nv_sqrtf", Builtin::Math(MathFn::Sqrt)),
            ("__ocml_exp_f64", Builtin::Math(MathFn::Exp)),
            ("llvm.sqrt.f32", Builtin::Math(MathFn::Sqrt)),
            ("llvm.fabs.f64", Builtin::Math(MathFn::Fabs)),
            ("llvm.fmuladd.f32", Builtin::Math(MathFn::FMulAdd)),
            ("llvm.smax.i32", Builtin::Math(MathFn::SMax)),
            ("llvm.umin.i64", Builtin::Math(MathFn::UMin)),
            ("llvm.abs.i32", Builtin::Math(MathFn::Abs)),
            ("llvm.ctpop.i8", Builtin::Math(MathFn::Ctpop)),
            ("llvm.ctlz.i32", Builtin::Math(MathFn::Ctlz)),
            ("llvm.minnum.f32", Builtin::Math(MathFn::MinNum)),
            ("llvm.maximum.f64", Builtin::Math(MathFn::Maximum)),
            ("llvm.copysign.f32", Builtin::Math(MathFn::CopySign)),
            ("llvm.fshl.i32", Builtin::Math(MathFn::FShl)),
            ("llvm.sadd.sat.i4096", Builtin::Math(MathFn::SAddSat)),
            ("llvm.lround.i64.f64", Builtin::Math(MathFn::LRound)),
            ("llvm.powi.f32.i32", Builtin::Math(MathFn::Powi)),
            ("llvm.assume", Builtin::Assume),
            ("llvm.lifetime.start.p0", Builtin::LifetimeStart),
            ("llvm.lifetime.end.p0", Builtin::LifetimeEnd),
            ("llvm.lifetime.start.p0i8", Builtin::LifetimeStart),
            ("llvm.memset.p0.i64", Builtin::Memset),
            ("llvm.memset.inline.p0.i64", Builtin::Memset),
            ("llvm.memcpy.p0.p0.i64", Builtin::Memcpy),
            ("llvm.memcpy.p1.p3.i32", Builtin::Memcpy),
            ("llvm.memmove.p0.p0.i64", Builtin::Memmove),
            ("llvm.experimental.noalias.scope.decl", Builtin::NoOp),
        ];
        for (name, expect) in table {
            assert_eq!(resolve(name), Some(expect), "{name}");
        }
        for unknown in [
            "llvm.sqrtx.f32",
            "llvm.sqrt.v4f32",
            "llvm.smax.ix",
            "foo",
            "sqrtff",
            "llvm.memcpy.p0.p0.i64.extra",
            "pllvm.anyx",
        ] {
            assert_eq!(resolve(unknown), None, "{unknown}");
        }
        assert_eq!(Builtin::Math(MathFn::SAddSat).to_string(), "llvm.sadd.sat");
        assert!(touches_memory(Builtin::Memcpy) && !touches_memory(Builtin::Assume));
        assert!(is_horizontal(Builtin::Ballot) && !is_horizontal(Builtin::ThreadId));
    }

    fn bits(v: &[u8]) -> Vec<Val> {
        v.iter().map(|&b| Val::bool(b == 1)).collect()
    }

    /// Applies a horizontal builtin on W = `lanes.len()` and compares with `expect`.
    fn check(b: Builtin, lanes: Vec<Val>, ret: TypeData, expect: Result<Val, ThetaError>) {
        let width = lanes.len();
        let got = apply_horizontal(b, &[lanes], &ret, width);
        assert_eq!(got, expect.map(|v| vec![v; width]), "{b}");
    }

    #[test]
    fn horizontal_builtins_of_fig_4_15() {
        check(
            Builtin::Any,
            bits(&[0, 0, 1, 0]),
            TypeData::Int(1),
            Ok(Val::bool(true)),
        );
        check(
            Builtin::Any,
            bits(&[0, 0, 0, 0]),
            TypeData::Int(1),
            Ok(Val::bool(false)),
        );
        check(
            Builtin::All,
            bits(&[1, 1, 1, 1]),
            TypeData::Int(1),
            Ok(Val::bool(true)),
        );
        check(
            Builtin::All,
            bits(&[1, 0, 1, 1]),
            TypeData::Int(1),
            Ok(Val::bool(false)),
        );
        check(
            Builtin::Popcount,
            bits(&[1, 0, 1, 1]),
            TypeData::Int(32),
            Ok(Val::Int(3)),
        );
        check(
            Builtin::Ballot,
            bits(&[1, 0, 1, 1]),
            TypeData::Int(8),
            Ok(Val::Int(0b1101)),
        );
        let mut with_undef = bits(&[1, 0, 1, 1]);
        with_undef[1] = Val::Undef;
        check(
            Builtin::Ballot,
            with_undef.clone(),
            TypeData::Int(8),
            Ok(Val::Undef),
        );
        check(
            Builtin::Popcount,
            with_undef,
            TypeData::Int(8),
            Ok(Val::Undef),
        );
        let narrow = ThetaError::ResultTooNarrow {
            builtin: Builtin::Ballot,
            width: 4,
            bits: 2,
        };
        check(
            Builtin::Ballot,
            bits(&[1, 0, 1, 1]),
            TypeData::Int(2),
            Err(narrow.clone()),
        );
        assert_eq!(
            narrow.to_string(),
            "the result type of pllvm.ballot (i2) cannot hold its result for 4 lanes"
        );
        check(
            Builtin::Popcount,
            bits(&[1, 1, 1, 1]),
            TypeData::Int(2),
            Err(ThetaError::ResultTooNarrow {
                builtin: Builtin::Popcount,
                width: 4,
                bits: 2,
            }),
        );
        let wide = apply_horizontal(
            Builtin::Ballot,
            &[bits(&[1; 200])],
            &TypeData::Int(256),
            200,
        );
        let all_ones = int_val(256, (BigUint::one() << 200u32) - 1u8);
        assert_eq!(wide, Ok(vec![all_ones; 200]));
        let ids = apply_horizontal(Builtin::ThreadId, &[], &TypeData::Int(32), 3);
        assert_eq!(ids, Ok(vec![Val::Int(0), Val::Int(1), Val::Int(2)]));
        assert!(apply_horizontal(Builtin::ThreadId, &[], &TypeData::Int(2), 5).is_err());
        assert_eq!(
            apply_horizontal(Builtin::Math(MathFn::Sqrt), &[], &TypeData::F32, 2),
            Err(ThetaError::NotHorizontal(Builtin::Math(MathFn::Sqrt)))
        );
        assert!(
            apply_horizontal(Builtin::Any, &[vec![Val::Int(3)]], &TypeData::Int(1), 1).is_err()
        );
        assert!(apply_horizontal(Builtin::Any, &[bits(&[1])], &TypeData::Int(1), 2).is_err());
    }

    /// `any`/`all` over ⊤ lanes (RULES.md, "Readings"): defined exactly when
    /// every choice of the ⊤ lanes gives the same result. Checked against that
    /// definition by enumerating the choices, for every W ≤ 5 and every vector
    /// over {0, 1, ⊤}; plus the worked examples of that reading.
    #[test]
    fn any_and_all_over_undef_lanes_follow_every_choice() {
        let u = Val::Undef;
        let (zero, one) = (Val::bool(false), Val::bool(true));
        let any = |v: Vec<Val>| apply_horizontal(Builtin::Any, &[v], &TypeData::Int(1), 4);
        let all = |v: Vec<Val>, w| apply_horizontal(Builtin::All, &[v], &TypeData::Int(1), w);
        let lanes = vec![zero.clone(), one.clone(), u.clone(), u.clone()];
        assert_eq!(any(lanes), Ok(vec![one.clone(); 4]));
        let lanes = vec![zero.clone(), zero.clone(), u.clone(), u.clone()];
        assert_eq!(any(lanes), Ok(vec![u.clone(); 4]));
        assert_eq!(all(vec![zero.clone(), u.clone()], 2), Ok(vec![zero; 2]));
        assert_eq!(all(vec![one, u.clone()], 2), Ok(vec![u; 2]));
        for width in 1..=5usize {
            for code in 0..3u32.pow(width as u32) {
                // Lane t holds digit t of `code` in base 3: 0, 1 or ⊤.
                let digits: Vec<u32> = (0..width).map(|t| code / 3u32.pow(t as u32) % 3).collect();
                let lanes: Vec<Val> = digits
                    .iter()
                    .map(|&d| {
                        if d == 2 {
                            Val::Undef
                        } else {
                            Val::bool(d == 1)
                        }
                    })
                    .collect();
                let undef_lanes: Vec<usize> = (0..width).filter(|&t| digits[t] == 2).collect();
                for (b, f) in [(Builtin::Any, 0), (Builtin::All, 1)] {
                    let mut results = Vec::new();
                    for choice in 0..1u32 << undef_lanes.len() {
                        let mut m: Vec<bool> = digits.iter().map(|&d| d == 1).collect();
                        for (k, &t) in undef_lanes.iter().enumerate() {
                            m[t] = choice >> k & 1 == 1;
                        }
                        let r = if f == 0 {
                            m.iter().any(|&x| x)
                        } else {
                            m.iter().all(|&x| x)
                        };
                        if !results.contains(&r) {
                            results.push(r);
                        }
                    }
                    let expect = match results.as_slice() {
                        [r] => Val::bool(*r),
                        _ => Val::Undef,
                    };
                    let got =
                        apply_horizontal(b, std::slice::from_ref(&lanes), &TypeData::Int(1), width);
                    assert_eq!(got, Ok(vec![expect; width]), "{b} of {digits:?}");
                }
            }
        }
    }

    /// The targets' wave operations on one thread array (docs/language.md, "Calls and declarations").
    #[test]
    fn wave_operations() {
        let ints = |v: &[i64]| -> Vec<Val> { v.iter().map(|&x| int(32, x)).collect() };
        let all = [true; 4];
        let some = [false, true, false, true];
        // mbcnt.lo(-1, 0) is the lane's position; mbcnt.hi(-1, lo) adds lanes 32..63.
        let lo = apply_wave(
            Builtin::MbcntLo,
            &[ints(&[-1; 4]), ints(&[0; 4])],
            &TypeData::Int(32),
            &all,
        );
        assert_eq!(lo, Ok(ints(&[0, 1, 2, 3])));
        // Only the set bits below the lane count: mask 0b1010, addend 100.
        let masked = apply_wave(
            Builtin::MbcntLo,
            &[ints(&[0b1010; 4]), ints(&[100; 4])],
            &TypeData::Int(32),
            &some,
        );
        assert_eq!(
            masked,
            Ok(vec![Val::Undef, int(32, 100), Val::Undef, int(32, 101)])
        );
        assert_eq!(
            theta_mbcnt(false, 40, &int(32, -1), &int(32, 0)),
            int(32, 32)
        );
        assert_eq!(
            theta_mbcnt(true, 40, &int(32, -1), &int(32, 32)),
            int(32, 40)
        );
        assert_eq!(theta_mbcnt(true, 5, &int(32, -1), &int(32, 5)), int(32, 5));
        assert_eq!(theta_mbcnt(false, 3, &Val::Undef, &int(32, 0)), Val::Undef);
        // readfirstlane: the first active lane's value, broadcast.
        let first = apply_wave(
            Builtin::ReadFirstLane,
            &[ints(&[7, 8, 9, 10])],
            &TypeData::Int(32),
            &some,
        );
        assert_eq!(first, Ok(ints(&[8; 4])));
        assert_eq!(
            theta_readfirstlane(&ints(&[1, 2]), &[false, false]),
            Val::Undef
        );
        // readlane: a uniform lane index over the active lanes; any lane is read.
        let read = apply_wave(
            Builtin::ReadLane,
            &[ints(&[7, 8, 9, 10]), ints(&[5, 2, 6, 2])],
            &TypeData::Int(32),
            &some,
        );
        assert_eq!(read, Ok(ints(&[9; 4])));
        assert_eq!(
            theta_readlane(&ints(&[7, 8]), &ints(&[0, 1]), &[true, true]),
            Val::Undef
        );
        assert_eq!(
            theta_readlane(&ints(&[7, 8]), &ints(&[2, 2]), &[true, true]),
            Val::Undef
        );
        // ballot: active lanes whose argument is true; inactive lanes give 0.
        let ballot = apply_wave(
            Builtin::WaveBallot,
            &[bits(&[1, 1, 0, 1])],
            &TypeData::Int(32),
            &some,
        );
        assert_eq!(ballot, Ok(vec![int(32, 0b1010); 4]));
        let mut undef_passive = bits(&[1, 1, 0, 1]);
        undef_passive[0] = Val::Undef;
        assert_eq!(
            theta_wave_ballot(&undef_passive, &some, 32),
            int(32, 0b1010),
            "a passive ⊤ lane does not count"
        );
        assert_eq!(theta_wave_ballot(&undef_passive, &all, 32), Val::Undef);
        assert!(
            apply_wave(
                Builtin::WaveBallot,
                &[bits(&[1; 4])],
                &TypeData::Int(2),
                &all
            )
            .is_err()
        );
        // laneid and warpsize.
        assert_eq!(
            apply_wave(Builtin::LaneId, &[], &TypeData::Int(32), &some),
            Ok(ints(&[0, 1, 2, 3]))
        );
        assert_eq!(
            apply_wave(Builtin::WaveSize, &[], &TypeData::Int(32), &some),
            Ok(ints(&[4; 4]))
        );
        for (name, b) in [
            ("llvm.amdgcn.mbcnt.lo", Builtin::MbcntLo),
            ("llvm.amdgcn.mbcnt.hi", Builtin::MbcntHi),
            ("llvm.amdgcn.readfirstlane", Builtin::ReadFirstLane),
            ("llvm.amdgcn.readfirstlane.i32", Builtin::ReadFirstLane),
            ("llvm.amdgcn.readlane.f32", Builtin::ReadLane),
            ("llvm.amdgcn.ballot.i64", Builtin::WaveBallot),
            ("llvm.nvvm.read.ptx.sreg.laneid", Builtin::LaneId),
            ("llvm.nvvm.read.ptx.sreg.warpsize", Builtin::WaveSize),
        ] {
            assert_eq!(resolve(name), Some(b), "{name}");
            assert!(is_wave_op(b));
        }
        use TypeData::{F32, Int};
        assert!(signature_ok(Builtin::ReadLane, &[&F32, &Int(32)], &F32).is_ok());
        assert!(signature_ok(Builtin::ReadLane, &[&F32, &Int(64)], &F32).is_err());
        assert!(signature_ok(Builtin::MbcntHi, &[&Int(32), &Int(32)], &Int(32)).is_ok());
        assert!(signature_ok(Builtin::WaveBallot, &[&Int(1)], &Int(64)).is_ok());
    }

    /// OpenCL's work-item functions in dimension 0 and beyond, alone and in a
    /// launch (lane 2 of an array whose first thread is local id 4 of group 1,
    /// groups of 8, a grid of 20).
    #[test]
    fn work_item_functions() {
        use WorkItemFn::*;
        let at = LaunchPosition {
            first_local_id: 4,
            group: 1,
            group_size: Some(8),
            grid_size: Some(20),
        };
        let zero = Val::Int(0);
        let one = Val::Int(1);
        let f = |w, d: &Val| theta_work_item(w, d, 2, 4, 64, &at);
        assert_eq!(f(LocalId, &zero), Val::Int(6));
        assert_eq!(f(GlobalId, &zero), Val::Int(14));
        assert_eq!(f(GroupId, &zero), Val::Int(1));
        assert_eq!(f(LocalSize, &zero), Val::Int(8));
        assert_eq!(f(NumGroups, &zero), Val::Int(3));
        assert_eq!(f(GlobalSize, &zero), Val::Int(20));
        assert_eq!(f(LocalId, &one), Val::Int(0));
        assert_eq!(f(LocalSize, &one), Val::Int(1));
        assert_eq!(f(NumGroups, &Val::Int(7)), Val::Int(1));
        assert_eq!(f(LocalId, &Val::Undef), Val::Undef);
        let alone = LaunchPosition::default();
        assert_eq!(
            theta_work_item(GlobalId, &zero, 3, 4, 32, &alone),
            Val::Int(3)
        );
        assert_eq!(
            theta_work_item(GlobalSize, &zero, 3, 4, 32, &alone),
            Val::Int(4)
        );
        assert_eq!(
            theta_work_item(NumGroups, &zero, 3, 4, 32, &alone),
            Val::Int(1)
        );
        assert_eq!(
            resolve("_Z12get_local_idj"),
            Some(Builtin::WorkItem(LocalId))
        );
        assert_eq!(resolve("_Z7barrierj"), Some(Builtin::Barrier));
        assert_eq!(resolve("llvm.nvvm.barrier0"), Some(Builtin::Barrier));
        assert_eq!(
            resolve("llvm.nvvm.read.ptx.sreg.nctaid.x"),
            Some(Builtin::GridDim(NumGroups, 0))
        );
        assert_eq!(
            resolve("llvm.amdgcn.workitem.id.y"),
            Some(Builtin::GridDim(LocalId, 1))
        );
    }

    fn f32v(x: f32) -> Val {
        Val::F32(x.to_bits())
    }
    fn f64v(x: f64) -> Val {
        Val::F64(x.to_bits())
    }

    /// One lane of a math function on `double`s.
    fn math64(f: MathFn, args: &[f64]) -> Val {
        let vals: Vec<Val> = args.iter().map(|&x| f64v(x)).collect();
        let tys = vec![&TypeData::F64; args.len()];
        apply_math(f, &vals, &tys, &TypeData::F64)
    }

    #[test]
    fn float_math() {
        assert_eq!(math64(MathFn::Sqrt, &[9.0]), f64v(3.0));
        assert_eq!(math64(MathFn::Sqrt, &[-1.0]), Val::F64(PREFERRED_NAN_F64));
        assert_eq!(math64(MathFn::Round, &[-2.5]), f64v(-3.0));
        assert_eq!(math64(MathFn::RoundEven, &[-2.5]), f64v(-2.0));
        assert_eq!(math64(MathFn::Rint, &[3.5]), f64v(4.0));
        assert_eq!(math64(MathFn::Floor, &[-0.5]), f64v(-1.0));
        assert_eq!(math64(MathFn::Fabs, &[-0.0]), f64v(0.0));
        assert_eq!(math64(MathFn::MinNum, &[f64::NAN, 2.0]), f64v(2.0));
        assert_eq!(math64(MathFn::MaxNum, &[1.0, f64::NAN]), f64v(1.0));
        assert_eq!(
            math64(MathFn::Minimum, &[f64::NAN, 2.0]),
            Val::F64(PREFERRED_NAN_F64)
        );
        assert_eq!(math64(MathFn::Minimum, &[0.0, -0.0]), f64v(-0.0));
        assert_eq!(math64(MathFn::Maximum, &[-0.0, 0.0]), f64v(0.0));
        assert_eq!(math64(MathFn::MinNum, &[0.0, -0.0]), f64v(-0.0));
        assert_eq!(math64(MathFn::CopySign, &[2.0, -0.0]), f64v(-2.0));
        assert_eq!(math64(MathFn::Fmod, &[-7.0, 2.0]), f64v(-1.0));
        // fma rounds once: (1 + 2^-52)(1 - 2^-52) - 1 = -2^-104 exactly.
        let e = f64::EPSILON;
        assert_eq!(
            math64(MathFn::Fma, &[1.0 + e, 1.0 - e, -1.0]),
            f64v(-(e * e))
        );
        assert_eq!(
            math64(MathFn::FMulAdd, &[1.0 + e, 1.0 - e, -1.0]),
            f64v(0.0)
        );
        let single = apply_math(
            MathFn::Sqrt,
            &[f32v(2.0)],
            &[&TypeData::F32],
            &TypeData::F32,
        );
        assert_eq!(single, f32v(2f32.sqrt()));
        let fma32 = apply_math(
            MathFn::Fma,
            &[
                f32v(1.0 + f32::EPSILON),
                f32v(1.0 - f32::EPSILON),
                f32v(-1.0),
            ],
            &[&TypeData::F32; 3],
            &TypeData::F32,
        );
        assert_eq!(fma32, f32v(-(f32::EPSILON * f32::EPSILON)));
        let powi = apply_math(
            MathFn::Powi,
            &[f64v(2.0), Val::Int(0xffff_fffe)],
            &[&TypeData::F64, &TypeData::Int(32)],
            &TypeData::F64,
        );
        assert_eq!(powi, f64v(0.25));
        let ldexp = apply_math(
            MathFn::Ldexp,
            &[f64v(1.0), Val::Int(0xffff_fbce)],
            &[&TypeData::F64, &TypeData::Int(32)],
            &TypeData::F64,
        );
        assert_eq!(ldexp, Val::F64(1), "2^-1074 is the least subnormal");
        let lround = apply_math(
            MathFn::LRound,
            &[f64v(-2.5)],
            &[&TypeData::F64],
            &TypeData::Int(64),
        );
        assert_eq!(lround, Val::Int((-3i64) as u64 as u128));
        let lrint = apply_math(
            MathFn::LRint,
            &[f64v(1e300)],
            &[&TypeData::F64],
            &TypeData::Int(64),
        );
        assert_eq!(lrint, Val::Int(0));
        assert_eq!(math64(MathFn::Exp, &[0.0]), f64v(1.0));
        assert_eq!(
            apply_math(
                MathFn::Exp,
                &[Val::Undef],
                &[&TypeData::F64],
                &TypeData::F64
            ),
            Val::Undef
        );
    }

    /// One lane of an integer intrinsic at `width`; operands are signed numbers.
    fn int_fn(f: MathFn, width: u32, args: &[i64]) -> Val {
        let ty = TypeData::Int(width);
        let vals: Vec<Val> = args
            .iter()
            .map(|&a| int_val(width, wrap_signed_big(width, &BigInt::from(a))))
            .collect();
        let tys = vec![&ty; args.len()];
        apply_math(f, &vals, &tys, &ty)
    }

    fn int(width: u32, v: i64) -> Val {
        int_val(width, wrap_signed_big(width, &BigInt::from(v)))
    }

    #[test]
    fn integer_intrinsics_at_many_widths() {
        for w in [8u32, 32, 64, 128, 129, 4096] {
            assert_eq!(int_fn(MathFn::SMax, w, &[-1, 1]), int(w, 1));
            assert_eq!(int_fn(MathFn::UMax, w, &[-1, 1]), int(w, -1));
            assert_eq!(int_fn(MathFn::SMin, w, &[-1, 1]), int(w, -1));
            assert_eq!(int_fn(MathFn::UMin, w, &[-1, 1]), int(w, 1));
            assert_eq!(int_fn(MathFn::Ctpop, w, &[-1]), int(w, i64::from(w)));
            assert_eq!(int_fn(MathFn::Ctlz, w, &[1, 0]), int(w, i64::from(w) - 1));
            assert_eq!(int_fn(MathFn::Ctlz, w, &[0, 0]), int(w, i64::from(w)));
            assert_eq!(int_fn(MathFn::Ctlz, w, &[0, 1]), Val::Undef);
            assert_eq!(int_fn(MathFn::Cttz, w, &[8, 1]), int(w, 3));
            assert_eq!(int_fn(MathFn::Cttz, w, &[0, 1]), Val::Undef);
            assert_eq!(int_fn(MathFn::Abs, w, &[-5, 1]), int(w, 5));
            assert_eq!(int_fn(MathFn::UAddSat, w, &[-2, 5]), int(w, -1));
            assert_eq!(int_fn(MathFn::USubSat, w, &[2, 5]), int(w, 0));
            assert_eq!(int_fn(MathFn::SSubSat, w, &[-2, 5]), int(w, -7));
            assert_eq!(
                int_fn(MathFn::Bitreverse, w, &[1]),
                int_val(w, BigUint::one() << (w - 1))
            );
            assert_eq!(
                int_fn(MathFn::FShl, w, &[1, -1, i64::from(w) + 1]),
                int(w, 3)
            );
            assert_eq!(
                int_fn(MathFn::FShr, w, &[1, 2, 1]),
                int_val(w, (BigUint::one() << (w - 1)) + 1u8)
            );
            assert_eq!(int_fn(MathFn::FShr, w, &[1, 2, 0]), int(w, 2));
        }
        let min8 = int(8, -128);
        assert_eq!(int_fn(MathFn::Abs, 8, &[-128, 0]), min8);
        assert_eq!(int_fn(MathFn::Abs, 8, &[-128, 1]), Val::Undef);
        assert_eq!(int_fn(MathFn::SAddSat, 8, &[100, 100]), int(8, 127));
        assert_eq!(int_fn(MathFn::SAddSat, 8, &[-100, -100]), int(8, -128));
        assert_eq!(
            int_fn(MathFn::Bswap, 32, &[0x1122_3344]),
            int(32, 0x4433_2211)
        );
        assert_eq!(
            int_fn(MathFn::Bswap, 48, &[0x1122_3344]),
            int(48, 0x4433_2211_0000)
        );
        assert_eq!(int_fn(MathFn::Bswap, 8, &[1]), Val::Undef);
        assert_eq!(int_fn(MathFn::FShl, 8, &[0x12, 0x34, 4]), int(8, 0x23));
        assert_eq!(int_fn(MathFn::FShr, 8, &[0x12, 0x34, 4]), int(8, 0x23));
        let scmp = apply_math(
            MathFn::SCmp,
            &[int(32, -1), int(32, 1)],
            &[&TypeData::Int(32), &TypeData::Int(32)],
            &TypeData::Int(8),
        );
        assert_eq!(scmp, int(8, -1));
        let ucmp = apply_math(
            MathFn::UCmp,
            &[int(32, -1), int(32, 1)],
            &[&TypeData::Int(32), &TypeData::Int(32)],
            &TypeData::Int(2),
        );
        assert_eq!(ucmp, int(2, 1));
    }

    #[test]
    fn signatures() {
        use TypeData::{F32, F64, Int, Ptr, Void};
        let ok = |b, args: &[&TypeData], ret: &TypeData| signature_ok(b, args, ret).is_ok();
        assert!(ok(Builtin::Any, &[&Int(1)], &Int(1)));
        assert!(!ok(Builtin::Any, &[&Int(32)], &Int(1)));
        assert!(ok(Builtin::ThreadId, &[], &Int(32)));
        assert!(ok(Builtin::Math(MathFn::Sqrt), &[&F32], &F32));
        assert!(!ok(Builtin::Math(MathFn::Sqrt), &[&F64], &F32));
        assert!(ok(Builtin::Math(MathFn::Powi), &[&F32, &Int(32)], &F32));
        assert!(ok(
            Builtin::Math(MathFn::Ctlz),
            &[&Int(64), &Int(1)],
            &Int(64)
        ));
        assert!(!ok(Builtin::Math(MathFn::Bswap), &[&Int(8)], &Int(8)));
        assert!(ok(
            Builtin::Memcpy,
            &[&Ptr(0), &Ptr(0), &Int(64), &Int(1)],
            &Void
        ));
        assert!(ok(Builtin::LifetimeStart, &[&Int(64), &Ptr(0)], &Void));
        assert!(ok(Builtin::LifetimeStart, &[&Ptr(5)], &Void));
        assert_eq!(
            signature_ok(Builtin::Math(MathFn::SMax), &[&Int(32), &Int(64)], &Int(32)),
            Err("llvm.smax expects (iN, iN) -> iN, found (i32, i64) -> i32".into())
        );
    }
}
