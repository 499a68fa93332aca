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
//!
//! One module per family:
//!
//! | module | what | spec |
//! | --- | --- | --- |
//! | [`builtin`] | [`Builtin`], the table of names θ knows, [`ThetaError`] | Def. 1, §4.9.2 |
//! | [`names`] | [`resolve`]: a callee name, with overload suffixes, to its builtin | LangRef "Intrinsic Functions" |
//! | [`pllvm`] | the builtins of Fig. 4.15 ([`apply_horizontal`]) | Fig. 4.15 |
//! | [`launch`] | a thread array's place in a launch, the OpenCL work-item functions | docs/launch.md, OpenCL C 2.0 §6.13.1 |
//! | [`wave`] | the targets' wave (warp) operations | LLVM AMDGPUUsage, PTX ISA |
//! | [`math`] | per-lane math: the C library and LLVM's math and bit intrinsics | §4.9.2, LangRef |
//! | [`signature`] | [`signature_ok`]: the call types each builtin accepts | Def. 11.2 |
//!
//! This module only declares them and re-exports their public items, so users
//! name everything as `theta::…`.

pub mod builtin;
pub mod launch;
pub mod math;
pub mod names;
pub mod pllvm;
pub mod signature;
pub mod warp;
pub mod wave;

pub use builtin::{
    Builtin, ShuffleMode, ThetaError, VoteMode, WorkItemFn, is_convergent, is_horizontal,
    touches_memory,
};
pub use launch::{LaunchDims, LaunchPosition, apply_launch, is_launch_id, theta_work_item};
pub use math::{MathFn, apply_math};
pub use names::{is_convergent_call, resolve};
pub use pllvm::apply_horizontal;
pub use signature::signature_ok;
pub use warp::{
    apply_warp, is_warp_op, member_lanes, theta_active_mask, theta_match_any, theta_shuffle,
    theta_vote,
};
pub use wave::{
    apply_wave, is_wave_op, theta_lane_id, theta_mbcnt, theta_readfirstlane, theta_readlane,
    theta_wave_ballot, theta_wave_size,
};
