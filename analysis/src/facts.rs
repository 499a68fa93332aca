//! [`CfgFacts`]: the CFG facts of one function body that the divergence analyses
//! need (thesis §2.2-2.5), computed once.

use crate::block_index::{BlockIndex, block_index};
use crate::hops::Hops;
use crate::loops::{Irreducible, LoopInfo};
use crate::postdom::PostDomTree;
use crate::reach::ForwardReach;
use pllvm_semantics::cfg::{BlockDomTree, Cfg};
use pllvm_semantics::ir::Body;

/// The CFG facts of one function body, computed once (thesis §2.2-2.5).
///
/// Only reducible bodies have them all: natural loops, and with them the block
/// index and the head-rewired CFG, assume reducibility (§2.4), so
/// [`CfgFacts::compute`] returns [`Irreducible`] otherwise.
#[derive(Clone, Debug)]
pub struct CfgFacts {
    /// The CFG (`G = (V, E, entry)`, §2.2).
    pub cfg: Cfg,
    /// The dominator tree from the entry (§2.3).
    pub dom: BlockDomTree,
    /// The post-dominator tree with its virtual exit (§2.3).
    pub postdom: PostDomTree,
    /// Natural loops and the loop tree (§2.4).
    pub loops: LoopInfo,
    /// The block index (§2.5).
    pub index: BlockIndex,
    /// Forward reachability (Def. 15-16).
    pub reach: ForwardReach,
    /// The single-entry intervals of the block index a join walk may hop over,
    /// computed on first use ([`CfgFacts::hops`]).
    hops: std::sync::OnceLock<Hops>,
}

impl CfgFacts {
    /// Every fact of `body`, or [`Irreducible`] when its CFG is not reducible.
    pub fn compute(body: &Body) -> Result<Self, Irreducible> {
        let cfg = Cfg::new(body);
        let dom = cfg.dominators();
        let loops = LoopInfo::compute(body)?;
        let index = block_index(body);
        Ok(CfgFacts {
            postdom: PostDomTree::compute(body),
            reach: ForwardReach::compute(body),
            cfg,
            dom,
            loops,
            index,
            hops: std::sync::OnceLock::new(),
        })
    }

    /// The hops of the CFG numbered by the block index ([`crate::hops`]).
    pub fn hops(&self) -> &Hops {
        self.hops.get_or_init(|| {
            // The reachable blocks, which come first in the index: an unreachable
            // block is in no interval (it would never carry a label).
            let order: Vec<u32> = self
                .index
                .order()
                .iter()
                .take_while(|&&b| self.cfg.reachable(b))
                .map(|b| b.as_u32())
                .collect();
            Hops::compute(self.cfg.graph(), &order)
        })
    }

    /// Like [`CfgFacts::compute`], naming the function in the error.
    pub fn for_function(name: &str, body: &Body) -> Result<Self, Irreducible> {
        CfgFacts::compute(body).map_err(|e| e.in_function(name))
    }
}
