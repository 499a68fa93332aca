//! The reconverging-CFG property of the reconverging-CFG poster (Definition 1):
//! "A control flow graph is reconverging if every non-uniform condition node
//! (terminator T) has exactly two successors, one of which post-dominates it
//! (primary successor)."
//!
//! Which condition nodes are non-uniform comes from a divergence analysis
//! ([`Uniformity::terminators`]); post-dominance from the post-dominator tree with
//! its virtual exit (thesis §2.3). A reconverging CFG lets the lanes that leave a
//! wave at a divergent branch rejoin it at the primary successor, which is what
//! the poster's lowering to wave-level code relies on.

use crate::postdom::PostDomTree;
use crate::result::Uniformity;
use pllvm_semantics::ir::{Block, Body};
use serde::Serialize;

/// Why a divergent condition node breaks Definition 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Violation {
    /// It has `n ≠ 2` distinct successors.
    NotTwoSuccessors {
        /// The block of the terminator.
        block: Block,
        /// How many distinct successors it has.
        successors: usize,
    },
    /// Neither of its two successors post-dominates it.
    NoPrimarySuccessor {
        /// The block of the terminator.
        block: Block,
    },
}

impl Violation {
    /// The offending block.
    pub fn block(&self) -> Block {
        match self {
            Violation::NotTwoSuccessors { block, .. } | Violation::NoPrimarySuccessor { block } => {
                *block
            }
        }
    }

    /// A message naming the block and Definition 1.
    pub fn message(&self, body: &Body) -> String {
        let name = &body.blocks[self.block()].name;
        match self {
            Violation::NotTwoSuccessors { successors, .. } => format!(
                "divergent terminator of %{name} has {successors} successors, not two (reconverging CFG, Definition 1)"
            ),
            Violation::NoPrimarySuccessor { .. } => format!(
                "no successor of %{name} post-dominates its divergent terminator (reconverging CFG, Definition 1)"
            ),
        }
    }
}

/// The primary successor of `block` (Definition 1): a successor that
/// post-dominates it, if any.
pub fn primary_successor(body: &Body, postdom: &PostDomTree, block: Block) -> Option<Block> {
    body.successors(block)
        .into_iter()
        .find(|&s| postdom.post_dominates(s, block))
}

/// Every divergent condition node of `body` that breaks Definition 1, in layout
/// order; empty iff the CFG is reconverging.
pub fn check_reconverging(
    body: &Body,
    postdom: &PostDomTree,
    uniformity: &Uniformity,
) -> Vec<Violation> {
    let mut out = Vec::new();
    for &block in &body.layout {
        if !uniformity.terminators[block].is_varying() {
            continue;
        }
        let mut succs = body.successors(block);
        succs.sort_unstable();
        succs.dedup();
        if succs.len() != 2 {
            out.push(Violation::NotTwoSuccessors {
                block,
                successors: succs.len(),
            });
        } else if primary_successor(body, postdom, block).is_none() {
            out.push(Violation::NoPrimarySuccessor { block });
        }
    }
    out
}

/// Whether `body` is reconverging (Definition 1) under `uniformity`.
pub fn is_reconverging(body: &Body, postdom: &PostDomTree, uniformity: &Uniformity) -> bool {
    check_reconverging(body, postdom, uniformity).is_empty()
}
