//! pllvm-proofs: the theorems of the thesis as executable checks (see
//! docs/design/overview.md),
//! and the seeded random program generator ([`generator`]) their property tests
//! draw from.

pub mod big_cfg;
#[path = "gen/mod.rs"]
pub mod generator;

pub use generator::{
    ArgKind, ArgSpec, ArgTy, BufferSpec, GenConfig, Generated, InputScalar, Stats, generate,
};

pub mod linearization;
pub mod native;
pub mod oracles;
pub mod shrink;
pub mod small_cfgs;
