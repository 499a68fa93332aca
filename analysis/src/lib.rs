//! # pllvm-analysis: CFG facts and divergence analyses (thesis Ch. 2, 6-7, 10)
//!
//! CFG facts of thesis §2.2-2.5 and POPL'21 §4.6, computed once per function body
//! and returned as tables keyed by [`Block`] (STYLE §2: analyses are free functions
//! returning tables, recomputed after every transform):
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
//! [`CfgFacts`] bundles the facts the divergence analyses need.
#![deny(missing_docs)]

pub mod block_index;
pub mod control_dep;
pub mod cycles;
pub mod disjoint;
pub mod head_rewired;
pub mod joins;
pub mod loops;
pub mod normalize;
pub mod opt_uniformity;
pub mod postdom;
pub mod reach;
pub mod reaching_defs;

pub mod llvm;
pub mod popl;
pub mod reconverging;
pub mod render;
pub mod shape;
pub mod stride;
pub mod thesis;
pub mod uniformity;

use pllvm_semantics::cfg::{BlockDomTree, Cfg};
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{Block, Body};

pub use block_index::{BlockIndex, block_index};
pub use control_dep::{cdep_on, control_dependence};
pub use loops::{Irreducible, LoopId, LoopInfo};
pub use postdom::PostDomTree;
pub use reach::ForwardReach;

/// A side table keyed by blocks (STYLE §2).
pub type BlockMap<T> = SecondaryMap<Block, T>;

/// A set of blocks of one body as a bit set over arena indices.
#[derive(Clone, Debug, PartialEq, Eq, Default, Hash)]
pub struct BlockSet {
    words: Vec<u64>,
}

impl BlockSet {
    /// The empty set, sized for `len` blocks (it grows on demand).
    pub fn with_capacity(len: usize) -> Self {
        BlockSet {
            words: vec![0; len.div_ceil(64)],
        }
    }

    /// Whether `block` is in the set.
    pub fn contains(&self, block: Block) -> bool {
        let (word, bit) = (block.as_u32() as usize / 64, block.as_u32() % 64);
        self.words.get(word).is_some_and(|w| w & (1 << bit) != 0)
    }

    /// Adds `block`; returns whether it was new.
    pub fn insert(&mut self, block: Block) -> bool {
        let (word, bit) = (block.as_u32() as usize / 64, block.as_u32() % 64);
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let new = self.words[word] & (1 << bit) == 0;
        self.words[word] |= 1 << bit;
        new
    }

    /// Adds every block of `other`; returns whether the set grew.
    pub fn union_with(&mut self, other: &BlockSet) -> bool {
        if other.words.len() > self.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        let mut grew = false;
        for (mine, theirs) in self.words.iter_mut().zip(&other.words) {
            let before = *mine;
            *mine |= theirs;
            grew |= *mine != before;
        }
        grew
    }

    /// The blocks of the set in ascending arena order.
    pub fn iter(&self) -> impl Iterator<Item = Block> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| {
            (0..64u32)
                .filter(move |bit| word & (1 << bit) != 0)
                .map(move |bit| Block::from_u32(w as u32 * 64 + bit))
        })
    }

    /// The number of blocks in the set.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}

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
        })
    }

    /// Like [`CfgFacts::compute`], naming the function in the error.
    pub fn for_function(name: &str, body: &Body) -> Result<Self, Irreducible> {
        CfgFacts::compute(body).map_err(|e| e.in_function(name))
    }
}

/// The text of a function `@skeleton(i1 %c, i32 %x)` whose CFG is `succs`: block
/// `i` is named `names[i]`, and its terminator is `ret void` without successors,
/// `br label` with one, `br i1 %c` with two and `switch i32 %x` with more (case
/// `k` to successor `k`). Used by tests and the exhaustive checks to turn a bare
/// graph into a program; blocks carry no instructions.
pub fn skeleton_text(names: &[String], succs: &[Vec<usize>]) -> String {
    let mut text = String::from("define void @skeleton(i1 %c, i32 %x) {\n");
    for (i, name) in names.iter().enumerate() {
        let targets: Vec<&str> = succs
            .get(i)
            .map(|s| {
                s.iter()
                    .filter_map(|&t| names.get(t))
                    .map(String::as_str)
                    .collect()
            })
            .unwrap_or_default();
        text.push_str(name);
        text.push_str(":\n  ");
        match targets.as_slice() {
            [] => text.push_str("ret void"),
            [only] => text.push_str(&format!("br label %{only}")),
            [yes, no] => text.push_str(&format!("br i1 %c, label %{yes}, label %{no}")),
            [default, cases @ ..] => {
                text.push_str(&format!("switch i32 %x, label %{default} ["));
                for (k, case) in cases.iter().enumerate() {
                    text.push_str(&format!(" i32 {}, label %{case}", k + 1));
                }
                text.push_str(" ]");
            }
        }
        text.push('\n');
    }
    text.push_str("}\n");
    text
}

/// Parses a module for unit tests and returns the body of its first definition.
#[cfg(test)]
pub(crate) fn test_body(src: &str) -> Body {
    let (module, _) = match pllvm_semantics::text::parse_module(src) {
        Ok(parsed) => parsed,
        Err(errors) => panic!("test program does not parse: {errors:?}"),
    };
    let func = module.first_definition().expect("a definition");
    module.functions[func].body.clone().expect("a body")
}

/// A body from a compact CFG description (tests): `"A: B C; B: D; C: D; D:"` lists
/// each block with its successors; the first block is the entry.
#[cfg(test)]
pub(crate) fn graph_body(spec: &str) -> Body {
    let entries: Vec<(String, Vec<String>)> = spec
        .split(';')
        .filter(|e| !e.trim().is_empty())
        .map(|entry| {
            let (name, targets) = entry.split_once(':').expect("`name: succs`");
            (
                name.trim().to_string(),
                targets.split_whitespace().map(str::to_string).collect(),
            )
        })
        .collect();
    let names: Vec<String> = entries.iter().map(|(n, _)| n.clone()).collect();
    let succs: Vec<Vec<usize>> = entries
        .iter()
        .map(|(_, targets)| {
            targets
                .iter()
                .map(|t| names.iter().position(|n| n == t).expect("known block"))
                .collect()
        })
        .collect();
    test_body(&skeleton_text(&names, &succs))
}

/// The block called `name` in `body` (tests).
#[cfg(test)]
pub(crate) fn blk(body: &Body, name: &str) -> Block {
    body.block_by_name(name)
        .unwrap_or_else(|| panic!("no block {name}"))
}

/// The names of `blocks` (tests).
#[cfg(test)]
pub(crate) fn names(body: &Body, blocks: impl IntoIterator<Item = Block>) -> Vec<String> {
    blocks
        .into_iter()
        .map(|b| body.blocks[b].name.clone())
        .collect()
}
