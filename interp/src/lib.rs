//! # pllvm-interp: the P-LLVM interpreter
//!
//! Drives the rules of `pllvm_semantics::rules` over runtime schedules (thesis
//! Def. 5): run inputs ([`config`]), the machine ([`machine`]), traces ([`trace`]),
//! the dynamic divergence observer ([`observe`]), the greedy-schedule constraints
//! of Ch. 5 ([`greedy`]), schedulers ([`sched`]), the scheduler loop and the
//! machine's run wrappers ([`run`]), stepping forward and back ([`stepper`], the
//! REPL's) and exhaustive exploration of
//! every greedy schedule ([`explore`]), dynamic convergence as LLVM's "Convergence
//! and Uniformity" defines it ([`convergence`]), and the stage-wise equivalence
//! checker of the transforms: OBL of a transformed program refines FR of the
//! original ([`equiv`]), and the soundness checker of the analyses: the claims a
//! run refutes ([`soundness`]).
#![deny(missing_docs)]

pub mod buffers;
pub mod config;
pub mod convergence;
pub mod equiv;
pub mod explore;
pub mod greedy;
pub mod launch;
pub mod machine;
pub mod observe;
pub mod run;
pub mod sched;
pub mod soundness;
pub mod stepper;
pub mod trace;
pub mod work;

pub use config::RunConfig;
pub use machine::{Machine, Outcome, RunError, SetupError, SetupInput};
pub mod directives;
