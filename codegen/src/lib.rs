//! # pllvm-codegen: the vectorizing transforms and the native backend
//!
//! Two halves (the modules and their imports: `ARCHITECTURE.md`, "codegen").
//!
//! **The transforms** (thesis Ch. 8-9, the reconverging-CFG poster;
//! `docs/transforms.md`). Each is a function from a verified P-LLVM program to a
//! new verified P-LLVM program (the input is never changed), named after what
//! the thesis calls it, and each output runs on the interpreter: the thesis's
//! claim that every stage of the vectorizer has a semantics (Ch. 3.6-3.7) made
//! executable. The program after a transform, run under OBLIVIOUS, computes what
//! the original computes under FREEZING.
//!
//! | pass | module | thesis |
//! | --- | --- | --- |
//! | `nonneg-div` | [`nonneg_div`] | `sdiv`/`srem` of a non-negative dividend by a power of two as shifts (the native route's first pass) |
//! | `dlt` | [`dlt`] | §9.1 divergent loop transform |
//! | `boscc` | [`boscc`] | §9.2 BOSCC gadget |
//! | `pl` | [`linearize`] | Ch. 8 partial linearization (Listing 8, §8.3-8.4) |
//! | `reconverge` | [`reconverge`] | reconverging-CFG poster (Definition 1, OpenTree) |
//! | `ifconv` | [`ifconv`] | full if-conversion, the baseline of Ch. 8 |
//!
//! Shared pieces: [`edit`] (the body editor), [`predicates`] (block and edge
//! predicates and phis as selects for a linearized CFG, §8.4-8.5), [`ssa`] (SSA
//! construction for values the new control flow no longer dominates),
//! [`prepare`] (input checks, one exit block), [`uniform`] (which analysis
//! decides uniformity), [`pipeline`] (pass lists and stages), [`shape`] (the CFG
//! of an output as text), [`error`] (why a transform refused its input).
//!
//! **The native backend** (`docs/native.md`): [`kernel`] (one function of a
//! batch, the unit both routes compile); [`widen`] (a batch as one LLVM IR
//! module with vector types, for `llc-19` to select AVX2, AVX-512 or NEON
//! instructions); [`scalar_c`] (the scalar-lane C emitter built by gcc, the
//! independent second oracle, sharing nothing with `widen`); [`native`] (the
//! targets, building, the runner and its protocol, run inputs from the
//! interpreter's, and the lane-by-lane comparison with the interpreter, all in
//! child processes).
#![deny(missing_docs)]

pub mod boscc;
pub mod dlt;
pub mod edit;
pub mod error;
pub mod ifconv;
pub mod kernel;
pub mod linearize;
pub mod native;
pub mod nonneg_div;
pub mod pass;
pub mod pipeline;
pub mod predicates;
pub mod prepare;
pub mod reconverge;
pub mod scalar_c;
pub mod shape;
pub mod ssa;
pub mod uniform;
pub mod widen;

pub use error::{Site, TransformError};
pub use kernel::Kernel;
pub use pass::{Options, Pass, PassContext};
pub use pipeline::{Stage, parse_passes, run_passes};
