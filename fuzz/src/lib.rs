//! # pllvm-fuzz: the fuzzing library
//!
//! Everything `pllvm fuzz` (docs/fuzzing.md) and the property tests of
//! `pllvm-proofs` draw programs from or check them with; no file IO (campaign
//! state, findings and reports live in the binary):
//! - [`generator`]: the seeded random P-LLVM program generator ([`generate`],
//!   [`GenConfig`]): well-formed kernels of every construct the semantics takes;
//! - [`big_cfg`]: generated CFGs of 10k-1M blocks for the analysis benchmarks;
//! - [`oracles`]: each property of the theorems as a named check of one
//!   [`oracles::Case`] (a program, its inputs and its width);
//! - [`shrink`]: delta debugging of a failing case, keeping the oracle's failure;
//! - [`native`]: generated programs through the native backend in batches, each
//!   compared with the interpreter lane by lane.
#![deny(missing_docs)]

pub mod big_cfg;
#[path = "gen/mod.rs"]
pub mod generator;

pub use generator::{
    ArgKind, ArgSpec, ArgTy, BufferSpec, GenConfig, Generated, InputScalar, Stats, generate,
};

pub mod native;
pub mod oracles;
pub mod shrink;
