//! # pllvm-proofs: the theorems as executable checks
//!
//! The claims of the thesis, the POPL'21 paper, LLVM's "Convergence and
//! Uniformity" and the reconverging-CFG poster, each checked by exhaustive
//! enumeration of small scopes or by properties over generated programs
//! (`pllvm_fuzz::generate`). The checks are the files of `tests/`, one per claim
//! (`theorem_3_path_embedding.rs`, `soundness.rs`, `control_divergence.rs`, ...;
//! docs/design/style.md §6). This library holds what several of them share:
//! - [`small_cfgs`]: every small CFG, once per DFS-ordered labelling, for the
//!   exhaustive checks of Ch. 7 and POPL'21 Algorithm 1;
//! - [`linearization`]: the traced runs and the lane-by-lane comparison of
//!   FR(original) with OBL(transformed) behind Theorems 3-5 (Ch. 8).
#![deny(missing_docs)]

pub mod linearization;
pub mod small_cfgs;
