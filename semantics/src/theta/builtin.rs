//! θ's table (thesis Def. 1, §4.9.2): [`Builtin`], every function θ knows, with
//! its canonical name (`NAMES`), the properties the rules ask of it (horizontal,
//! touching memory), and [`ThetaError`], why a builtin over the thread array
//! could not be applied. The families that apply the builtins import this module.

use super::math::MathFn;
use crate::types::TypeData;
use crate::value::Val;
use num_bigint::BigUint;
use std::fmt;

/// A function θ knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `thread_id` (Fig. 4.15): lane τ gets τ. Lane-dependent but not horizontal.
    /// In a launch of many thread arrays (docs/launch.md) lane τ gets its id within its
    /// work-group, [`LaunchPosition::first_local_id`](super::LaunchPosition::first_local_id) + τ.
    ThreadId,
    /// `group_id`: the id of the work-group the thread array belongs to (CUDA's
    /// `blockIdx.x`, OpenCL's `get_group_id(0)`), the same in every lane; 0 outside
    /// a launch ([`LaunchPosition`](super::LaunchPosition)).
    GroupId,
    /// `group_size`: threads per work-group (CUDA's `blockDim.x`), the same in
    /// every lane; W outside a launch ([`LaunchPosition`](super::LaunchPosition)).
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
    /// the lane's position in the wave, plus `add` ([`theta_mbcnt`](super::theta_mbcnt)).
    MbcntLo,
    /// `llvm.amdgcn.mbcnt.hi(mask, add)`: the same for lanes 32-63 ([`theta_mbcnt`](super::theta_mbcnt)).
    MbcntHi,
    /// `llvm.amdgcn.readfirstlane(v)`: the value of the first active lane,
    /// broadcast ([`theta_readfirstlane`](super::theta_readfirstlane)).
    ReadFirstLane,
    /// `llvm.amdgcn.readlane(v, l)`: the value of lane `l`, broadcast
    /// ([`theta_readlane`](super::theta_readlane)).
    ReadLane,
    /// `llvm.amdgcn.ballot(c)`: the mask of *active* lanes whose argument is true,
    /// as an `iN` ([`theta_wave_ballot`](super::theta_wave_ballot)); unlike Fig. 4.15's `ballot`, inactive
    /// lanes give 0.
    WaveBallot,
    /// `llvm.nvvm.read.ptx.sreg.laneid`: the lane's position in its warp, τ
    /// ([`theta_lane_id`](super::theta_lane_id)).
    LaneId,
    /// `llvm.nvvm.read.ptx.sreg.warpsize`: the lanes of the thread array, W
    /// ([`theta_wave_size`](super::theta_wave_size)).
    WaveSize,
    /// A work-group barrier (`llvm.amdgcn.s.barrier`, `llvm.nvvm.barrier0`,
    /// OpenCL's `barrier` and `work_group_barrier`, `pllvm.barrier`): no effect on
    /// values or memory; its block is a barrier of Def. 18, which the machine
    /// checks when it schedules the block (docs/language.md, "Barriers").
    Barrier,
    /// An OpenCL work-item function clang leaves as a call (`get_local_id`, ...):
    /// the launch's ids and sizes in dimension 0 ([`theta_work_item`](super::theta_work_item)).
    WorkItem(WorkItemFn),
    /// A target's id or size register of a fixed dimension that θ has no other
    /// name for (`llvm.nvvm.read.ptx.sreg.nctaid.x`, `tid.y`, ...,
    /// `llvm.amdgcn.workitem.id.y`, ...): the work-item function of that
    /// dimension ([`theta_work_item`](super::theta_work_item)).
    GridDim(WorkItemFn, u8),
    /// CUDA's `__shfl_sync` family (`llvm.nvvm.shfl.sync.{up,down,bfly,idx}`):
    /// a value read from another lane of the warp
    /// ([`theta_shuffle`](super::theta_shuffle)).
    Shuffle(ShuffleMode),
    /// CUDA's `__any_sync`, `__all_sync`, `__uni_sync`, `__ballot_sync`
    /// (`llvm.nvvm.vote.{any,all,uni,ballot}.sync`)
    /// ([`theta_vote`](super::theta_vote)).
    Vote(VoteMode),
    /// CUDA's `__activemask` (`llvm.nvvm.activemask`): the lanes executing
    /// together ([`theta_active_mask`](super::theta_active_mask)).
    ActiveMask,
    /// CUDA's `__match_any_sync` (`llvm.nvvm.match.any.sync`): the lanes holding
    /// the same value ([`theta_match_any`](super::theta_match_any)).
    MatchAny,
    /// `llvm.experimental.convergence.entry`, `.anchor`, `.loop`: a convergence
    /// control token (LLVM's convergence and uniformity document, "controlled
    /// convergence"). Lock step already runs every lane that executes a block
    /// together, so the token carries nothing: the result is ⊤, memory unchanged,
    /// and the calls naming it in a `"convergencectrl"` bundle run as written.
    ConvergenceControl,
}

/// How a shuffle finds its source lane (PTX `shfl.sync.mode`; [`Builtin::Shuffle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShuffleMode {
    /// `__shfl_up_sync`: the lane `delta` below.
    Up,
    /// `__shfl_down_sync`: the lane `delta` above.
    Down,
    /// `__shfl_xor_sync`: the lane whose number differs by the bits of `mask`.
    Bfly,
    /// `__shfl_sync`: the lane given.
    Idx,
}

/// What a vote computes (PTX `vote.sync.mode`; [`Builtin::Vote`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    /// `__any_sync`: some lane's predicate is true.
    Any,
    /// `__all_sync`: every lane's predicate is true.
    All,
    /// `__uni_sync`: every lane's predicate is the same.
    Uni,
    /// `__ballot_sync`: the lanes whose predicate is true, as a mask.
    Ballot,
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

/// Names θ resolves (each may carry LLVM overload suffixes), canonical name first.
pub(super) const NAMES: &[(&str, Builtin)] = {
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
        ("llvm.nvvm.shfl.sync.up", Shuffle(ShuffleMode::Up)),
        ("llvm.nvvm.shfl.sync.down", Shuffle(ShuffleMode::Down)),
        ("llvm.nvvm.shfl.sync.bfly", Shuffle(ShuffleMode::Bfly)),
        ("llvm.nvvm.shfl.sync.idx", Shuffle(ShuffleMode::Idx)),
        ("llvm.nvvm.vote.any.sync", Vote(VoteMode::Any)),
        ("llvm.nvvm.vote.all.sync", Vote(VoteMode::All)),
        ("llvm.nvvm.vote.uni.sync", Vote(VoteMode::Uni)),
        ("llvm.nvvm.vote.ballot.sync", Vote(VoteMode::Ballot)),
        ("llvm.nvvm.activemask", ActiveMask),
        ("llvm.nvvm.match.any.sync", MatchAny),
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
        ("llvm.nvvm.mul24.i", Math(M::Mul24(true))),
        ("llvm.nvvm.mul24.ui", Math(M::Mul24(false))),
        ("llvm.amdgcn.mul.i24", Math(M::Mul24(true))),
        ("llvm.amdgcn.mul.u24", Math(M::Mul24(false))),
        ("_Z5mul24ii", Math(M::Mul24(true))),
        ("_Z5mul24jj", Math(M::Mul24(false))),
        ("llvm.nvvm.mulhi.i", Math(M::MulHi(true))),
        ("llvm.nvvm.mulhi.ui", Math(M::MulHi(false))),
        ("llvm.nvvm.mulhi.ll", Math(M::MulHi(true))),
        ("llvm.nvvm.mulhi.ull", Math(M::MulHi(false))),
        ("llvm.nvvm.mulhi.s", Math(M::MulHi(true))),
        ("llvm.nvvm.mulhi.us", Math(M::MulHi(false))),
        ("_Z6mul_hiii", Math(M::MulHi(true))),
        ("_Z6mul_hijj", Math(M::MulHi(false))),
        ("_Z6mul_hill", Math(M::MulHi(true))),
        ("_Z6mul_himm", Math(M::MulHi(false))),
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
/// but its result differs per lane; [`apply_horizontal`](super::apply_horizontal) evaluates it too.
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

/// Whether a call to the builtin is a *convergent operation* (LLVM LangRef,
/// "convergent"; LLVM's convergent operations document): its result or effect
/// depends on which other threads execute it together. These are the builtins
/// that read other lanes or synchronize, which LLVM's intrinsic tables mark
/// `IntrConvergent` (the amdgcn lane reads and ballot, the nvvm `shfl.sync`,
/// `vote.sync`, `activemask` and `match` families, the barriers, the
/// convergence control intrinsics), and θ's own horizontal builtins (Fig. 4.15).
/// Per-lane builtins, ids included, are not: `mbcnt` reads only the lane's
/// position.
pub fn is_convergent(b: Builtin) -> bool {
    is_horizontal(b)
        || matches!(
            b,
            Builtin::ReadFirstLane
                | Builtin::ReadLane
                | Builtin::WaveBallot
                | Builtin::Barrier
                | Builtin::Shuffle(_)
                | Builtin::Vote(_)
                | Builtin::ActiveMask
                | Builtin::MatchAny
                | Builtin::ConvergenceControl
        )
}

/// Why a horizontal builtin could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThetaError {
    /// [`apply_horizontal`](super::apply_horizontal) was asked for a per-lane or memory builtin.
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
    /// A warp primitive's member mask breaks PTX's rule as lock step reads it
    /// ([`member_lanes`](super::member_lanes)): undefined behaviour.
    MemberMask {
        /// The builtin.
        builtin: Builtin,
        /// The active lane whose mask it is.
        lane: usize,
        /// What is wrong with the mask.
        why: String,
    },
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
            ThetaError::MemberMask { builtin, lane, why } => write!(
                f,
                "{builtin} in lane {lane}: {why}; every lane executing a warp primitive is in its member mask, and every lane of the mask executes it together (PTX ISA, .sync primitives; docs/language.md, \"Warp primitives\")"
            ),
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
pub(super) fn fits(ret: &TypeData, max: u64) -> Result<u32, u32> {
    match ret {
        TypeData::Int(bits) if BigUint::from(max).bits() <= u64::from(*bits) => Ok(*bits),
        TypeData::Int(bits) => Err(*bits),
        _ => Err(0),
    }
}

/// Checks the number of argument vectors of a builtin.
pub(super) fn expect_arity(
    b: Builtin,
    args: &[Vec<Val>],
    expected: usize,
) -> Result<(), ThetaError> {
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

/// `expected` argument vectors of one value per lane each (W = `width`), or
/// the error that says which is wrong: the arity and lane count checks of the
/// builtins over a whole thread array.
pub(super) fn expect_lanes(
    b: Builtin,
    args: &[Vec<Val>],
    expected: usize,
    width: usize,
) -> Result<(), ThetaError> {
    expect_arity(b, args, expected)?;
    match args.iter().find(|col| col.len() != width) {
        Some(col) => Err(ThetaError::LaneCount {
            builtin: b,
            width,
            got: col.len(),
        }),
        None => Ok(()),
    }
}
