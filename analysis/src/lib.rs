//! # pllvm-analysis: CFG facts and divergence analyses (thesis Ch. 2, 6-7, 10)
//!
//! CFG facts of thesis §2.2-2.5 and POPL'21 §4.6, computed once per function body
//! and returned as tables keyed by [`Block`](pllvm_semantics::ir::Block) (docs/design/style.md §2:
//! analyses are free functions returning tables, recomputed after every transform):
//! - [`postdom`]: post-dominator tree with a virtual exit (§2.3);
//! - [`control_dep`]: control dependence, `cdepB` and `cdep_on` (§2.3);
//! - [`loops`]: natural loops and the loop tree (§2.4);
//! - [`mod@block_index`]: the block index of §2.5;
//! - [`reach`]: forward-reaching paths and `fwdreaching` (Def. 15-16);
//! - [`head_rewired`]: the head-rewired CFG `G⋆` (POPL'21 Def. 4.14);
//! - [`normalize`]: the loop normalizations of §2.4 (unique latch, preheader,
//!   dedicated exits, LCSSA) as behaviour-preserving transforms;
//! - [`joins`]: control divergence of thesis Ch. 7 (Listings 4-7);
//! - [`disjoint`]: ends of disjoint paths in a DAG (POPL'21 Algorithm 1);
//! - [`cycles`]: LLVM's cycle hierarchy of any CFG ("Convergence and Uniformity");
//! - [`opt_uniformity`]: running LLVM's `print<uniformity>` and parsing its report.
//!
//! [`CfgFacts`] ([`facts`]) bundles the facts the divergence analyses need.
//!
//! The divergence analyses (thesis Ch. 6-7, 10; POPL'21; LLVM), each with one entry
//! point `analyze` in its own module ([`thesis`], [`popl`], [`llvm`], [`stride`]),
//! chosen by the dispatcher [`uniformity::analyze`]; all return a
//! [`result::Uniformity`]. The thesis and sa analyses share the worklist engine of
//! Listings 1-3 (`engine`) and the [DA-*] transformers (`transfer`), which read
//! the analysis state through `state`; stack objects go through `points_to` and
//! `alloca_ssa`, calls through `calls`. The lattices: [`shape`] (§6.1) and
//! [`sa_shape`] (Fig. 10.4).
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
