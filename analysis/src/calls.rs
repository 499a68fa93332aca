//! Call classification for the abstract transformers: what a call does to values
//! and memory, read off θ (thesis §4.9.2). The thesis leaves calls to the user
//! (§6.5: "We leave it to the user to supplement abstract transformers"); every
//! analysis of this crate classifies them here.

use crate::target::{self, IntrinsicRule};
use pllvm_semantics::ir::{FuncId, Module};
use pllvm_semantics::theta::{self, Builtin, WorkItemFn};

/// What a call does, for its transformer (the thesis leaves calls to the user,
/// §6.5: "We leave it to the user to supplement abstract transformers").
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CallKind {
    /// `thread_id` and its GPU spellings: varying.
    ThreadId,
    /// `any`, `all`, `popcount`, `ballot`: one value broadcast to every lane.
    Horizontal,
    /// Pure per-lane functions: [DA-UARITH] / [DA-DARITH].
    Pure,
    /// Writes memory through argument `dst`, with the contents depending on `data`
    /// (`memset`, `memcpy`, `memmove`, `lifetime.*`).
    Write {
        /// The written pointer's argument index.
        dst: usize,
        /// Arguments the written contents depend on.
        data: Vec<usize>,
    },
    /// No effect on values or memory (`assume`, debug intrinsics).
    NoEffect,
    /// A target's source of divergence (`llvm.amdgcn.mbcnt.lo`,
    /// `llvm.nvvm.read.ptx.sreg.laneid`, ...), or a declared external function
    /// θ does not define: varying whatever its operands ([`crate::target`]).
    Source,
    /// A target's always-uniform intrinsic (`llvm.amdgcn.readfirstlane`,
    /// ...): uniform whatever its operands ([`crate::target`]).
    AlwaysUniform,
}

/// Classifies a call to `callee` by θ (§4.9.2).
pub(crate) fn call_kind(module: &Module, callee: FuncId, n_args: usize) -> CallKind {
    if let Some(asm) = module.inline_asm(callee) {
        return match target::inline_asm_rule(target::GpuTarget::of(module), asm) {
            IntrinsicRule::Source => CallKind::Source,
            IntrinsicRule::AlwaysUniform => CallKind::AlwaysUniform,
        };
    }
    let name = &module.functions[callee].name;
    match theta::resolve(name) {
        Some(Builtin::ThreadId) => CallKind::ThreadId,
        Some(
            Builtin::Any
            | Builtin::All
            | Builtin::Popcount
            | Builtin::Ballot
            | Builtin::GroupId
            | Builtin::GroupSize,
        ) => CallKind::Horizontal,
        Some(Builtin::Math(_)) => CallKind::Pure,
        Some(Builtin::Memset | Builtin::Memcpy | Builtin::Memmove) => CallKind::Write {
            dst: 0,
            data: (1..n_args).collect(),
        },
        Some(Builtin::LifetimeStart | Builtin::LifetimeEnd) => CallKind::Write {
            dst: n_args.saturating_sub(1),
            data: Vec::new(),
        },
        Some(Builtin::Assume | Builtin::NoOp) => CallKind::NoEffect,
        // The targets' wave operations, as the targets' tables take them.
        Some(Builtin::MbcntLo | Builtin::MbcntHi | Builtin::LaneId) => CallKind::Source,
        Some(Builtin::ReadFirstLane | Builtin::ReadLane | Builtin::WaveBallot) => {
            CallKind::AlwaysUniform
        }
        Some(Builtin::WaveSize) => CallKind::Horizontal,
        // CUDA's warp primitives: among the lanes that execute one together
        // (its member mask, which must name exactly lanes that arrive), the
        // result is the same in each when the operands are (a shuffle of a
        // uniform value reads that value, a vote of uniform predicates is
        // uniform), as LLVM's NVPTX rules take them: not a source.
        Some(Builtin::Shuffle(_) | Builtin::Vote(_) | Builtin::ActiveMask | Builtin::MatchAny) => {
            CallKind::Pure
        }
        Some(Builtin::Barrier | Builtin::ConvergenceControl) => CallKind::NoEffect,
        Some(
            Builtin::WorkItem(WorkItemFn::LocalId | WorkItemFn::GlobalId)
            | Builtin::GridDim(WorkItemFn::LocalId | WorkItemFn::GlobalId, _),
        ) => CallKind::Source,
        Some(Builtin::GridDim(..)) => CallKind::Horizontal,
        // The ids and sizes of groups and grids are the same in every lane.
        Some(Builtin::WorkItem(_)) => CallKind::Horizontal,
        None => match target::intrinsic_rule(name) {
            Some(IntrinsicRule::Source) => CallKind::Source,
            Some(IntrinsicRule::AlwaysUniform) => CallKind::AlwaysUniform,
            // An intrinsic outside the tables: not a source of divergence (LLVM).
            None if name.starts_with("llvm.") => CallKind::Pure,
            // A declared external function: nothing is known of it, so its result
            // is varying whatever its operands (as LLVM's AMDGPU rules take every
            // call of a non-intrinsic), and its pointer arguments escape.
            None => CallKind::Source,
        },
    }
}
