//! # pllvm-interp: the P-LLVM interpreter
//!
//! Drives the rules of `pllvm_semantics::rules` over runtime schedules (thesis
//! Def. 5) for a thread array of W lanes, and for grids of thread arrays. The
//! modules and their imports: `ARCHITECTURE.md`, "interp".
//!
//! Inputs and the machine:
//! - [`config`]: run inputs ([`RunConfig`]: W, the interpretation, `Exec`,
//!   arguments, memory, buffers, limits, a schedule), from flags or JSON;
//! - [`buffers`]: memory objects a run creates for pointer parameters;
//! - [`machine`]: the [`Machine`], one `[LSS-W-STEP]` per step, its outcomes
//!   ([`Outcome`]) and setup errors;
//! - [`trace`]: one row per scheduled block, as a table or JSON;
//! - [`observe`]: the dynamic divergence observer (values, branches,
//!   activations, stack objects).
//!
//! Schedules (thesis Ch. 5):
//! - [`greedy`]: the greedy-schedule constraints, one function per definition
//!   (Def. 12-18), and legality with the reason a block is not legal;
//! - [`sched`]: the `Scheduler` trait and the built-in policies (lowest,
//!   highest, random, replay, interactive, ipd);
//! - [`run`]: the scheduler loop and the machine's run wrappers;
//! - [`explore`]: exhaustive exploration of every greedy schedule (the model
//!   checker), with the explored state graph on request;
//! - [`stepper`]: stepping forward and back, what the REPL drives.
//!
//! Built on runs:
//! - [`launch`]: a grid of N threads as thread arrays in parallel on the host's
//!   cores, with work-groups and the merge of their writes (`docs/launch.md`);
//! - [`convergence`]: dynamic convergence as LLVM's "Convergence and Uniformity"
//!   defines it, from a run's trace;
//! - [`token_classes`] and [`controlled`]: which instances convergence control
//!   tokens converge, followed step by step and as the controlled relation of a
//!   run, with where lock step split or merged them;
//! - [`equiv`]: the stage-wise equivalence checker of the transforms: OBL of a
//!   transformed program refines FR of the original;
//! - [`soundness`]: the soundness checker of the analyses: what the lanes of a
//!   run did, and the uniformity and stride claims it refutes;
//! - [`work`]: the work a run costs a SIMD machine (scheduled blocks, issued
//!   instructions, active lanes);
//! - [`directives`]: the `; run:` and `; expect` lines of golden corpus files,
//!   read by the corpus runner and the CLI's embedded default program alike.
#![deny(missing_docs)]

pub mod buffers;
pub mod config;
pub mod controlled;
pub mod convergence;
pub mod equiv;
pub mod explore;
pub mod greedy;
pub mod launch;
pub mod lowest_path;
pub mod machine;
pub mod observe;
pub mod run;
pub mod sched;
pub mod soundness;
pub mod stepper;
pub mod token_classes;
pub mod trace;
pub mod work;
pub mod workgroup;

pub use config::RunConfig;
pub use machine::{Machine, Outcome, RunError, SetupError, SetupInput};
pub mod directives;
