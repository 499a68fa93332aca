//! # pllvm-analysis: CFG facts and divergence analyses (thesis Ch. 2, 6-7, 10)
//!
//! What the compiler knows statically about a P-LLVM function: its CFG facts,
//! where control diverges, and which values, branches and blocks are uniform,
//! by four analyses (the thesis's, POPL'21's, LLVM's and the stride-alignment
//! lattice of Ch. 10). Facts are computed once per function body and returned as
//! tables keyed by [`Block`](pllvm_semantics::ir::Block) (docs/design/style.md
//! §2: analyses are free functions returning tables, recomputed after every
//! transform). The layers and every module's imports: `ARCHITECTURE.md`,
//! "analysis"; what each analysis computes and what checks it: `docs/analyses.md`.
//!
//! CFG facts (thesis §2.2-2.5, POPL'21 §4.6):
//! - [`postdom`]: the post-dominator tree with a virtual exit (§2.3);
//! - [`control_dep`]: control dependence, `cdepB` and `cdep_on` (§2.3);
//! - [`loops`]: natural loops and the loop tree (§2.4);
//! - [`mod@block_index`]: the block index of §2.5;
//! - [`reach`]: forward-reaching paths and `fwdreaching` (Def. 15-16), by query;
//! - [`facts`]: [`CfgFacts`], the bundle of the facts the analyses need;
//! - [`tables`]: the side tables [`BlockMap`] and [`BlockSet`];
//! - [`normalize`]: the loop normalizations of §2.4 (unique latch, preheader,
//!   dedicated exits, LCSSA) as behaviour-preserving transforms.
//!
//! Control divergence:
//! - [`joins`]: sync and temporal joins of thesis Ch. 7 (Listings 4-7);
//! - [`head_rewired`]: the head-rewired CFG `G⋆` (POPL'21 Def. 4.14);
//! - [`disjoint`]: ends of disjoint paths in a DAG (POPL'21 Algorithm 1);
//! - [`reaching_defs`]: definite reaching definitions (POPL'21 §6);
//! - [`cycles`]: LLVM's cycle hierarchy of any CFG, irreducible ones included
//!   ("Convergence and Uniformity").
//!
//! The divergence analyses, each with one entry point `analyze` in its own module:
//! [`thesis`] (Ch. 6-7), [`popl`] (POPL'21), [`stride`] (`sa`, Ch. 10) and
//! [`llvm`] (LLVM's), chosen by the dispatcher [`uniformity::analyze`]; all return
//! a [`result::Uniformity`]. The lattices are [`shape`] (§6.1) and [`sa_shape`]
//! (Fig. 10.4). The thesis and sa analyses share the worklist engine of Listings
//! 1-3 (`engine`) and the [DA-*] transformers (`transfer`), which read the
//! analysis state through `state`; stack objects go through `points_to` and
//! `alloca_ssa` (§6.5.2, §6.6), calls through `calls` (θ, §4.9.2), and
//! [`target`] holds the GPU targets' uniformity rules (kernel arguments, sources
//! of divergence, always-uniform intrinsics).
//!
//! What reads a [`result::Uniformity`]: [`render`] (the annotated program, JSON
//! and Graphviz of `pllvm analyze`) and [`reconverging`] (the reconverging-CFG
//! property of the poster). [`opt_uniformity`] runs LLVM's own
//! `print<uniformity>` (`opt-22`, `opt-19`) and parses its report, the peer of
//! [`llvm`]. [`skeleton`] turns a bare successor list into a program for tests.
//!
//! This file only declares modules and re-exports: no module imports the crate root,
//! so the module graph has no cycles (`analysis/tests/module_graph.rs`).
#![deny(missing_docs)]

pub mod block_index;
pub mod control_dep;
pub mod cycles;
pub mod disjoint;
pub mod facts;
pub mod head_rewired;
pub mod hops;
pub mod joins;
pub mod loops;
pub mod normalize;
pub mod opt_uniformity;
pub mod postdom;
pub mod reach;
pub mod reaching_defs;
pub mod skeleton;
pub mod tables;
pub mod target;

mod alloca_ssa;
mod calls;
mod engine;
pub mod llvm;
mod points_to;
pub mod popl;
pub mod reconverging;
pub mod render;
pub mod result;
pub mod sa_shape;
pub mod shape;
mod state;
pub mod stride;
pub mod thesis;
mod transfer;
pub mod uniformity;

#[cfg(test)]
mod lattice_laws;
#[cfg(test)]
pub(crate) mod test_util;

pub use block_index::{BlockIndex, block_index};
pub use control_dep::{cdep_on, control_dependence};
pub use facts::CfgFacts;
pub use loops::{Irreducible, LoopId, LoopInfo};
pub use postdom::PostDomTree;
pub use reach::ForwardReach;
pub use skeleton::skeleton_text;
pub use tables::{BlockMap, BlockSet};
