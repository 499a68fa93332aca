//! # pllvm-codegen: the vectorizing transforms (thesis Ch. 8-9, the reconverging-CFG poster)
//!
//! Each transform is a function from a verified P-LLVM program to a verified
//! P-LLVM program, named after what the thesis calls it, and each output runs on
//! the interpreter: the thesis's claim that every stage of the vectorizer has a
//! semantics (Ch. 3.6-3.7) made executable. The program after a transform, run
//! under OBLIVIOUS, computes what the original computes under FREEZING.
//!
//! | pass | module | thesis |
//! | --- | --- | --- |
//! | `dlt` | [`dlt`] | §9.1 divergent loop transform |
//! | `boscc` | [`boscc`] | §9.2 BOSCC gadget |
//! | `pl` | [`linearize`] | Ch. 8 partial linearization (Listing 8, §8.3-8.4) |
//! | `reconverge` | [`reconverge`] | reconverging-CFG poster (Definition 1, OpenTree) |
//! | `ifconv` | [`ifconv`] | full if-conversion, the baseline of Ch. 8 |
//!
//! Shared pieces: [`edit`] (the body editor), [`predicates`] (block and edge
//! predicates and phis as selects for a linearized CFG, §8.4-8.5), [`ssa`] (SSA construction for
//! values the new control flow no longer dominates), [`prepare`] (input checks,
//! one exit block), [`uniform`] (which analysis decides uniformity), [`pipeline`]
//! (pass lists and stages), [`shape`] (the CFG of an output as text), [`error`].
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
pub use pipeline::{Options, Pass, PassContext, Stage, parse_passes, run_passes};
