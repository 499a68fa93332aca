//! The post-dominator tree with a virtual exit (thesis §2.3).
//!
//! `a` post-dominates `b` iff every complete path from `b` contains `a` (§2.3). A
//! function may have several blocks without successors (`ret`, `unreachable`), so
//! the tree is the dominator tree of the reversed CFG rooted at a virtual exit node
//! that every such block flows into, computed by [`DomTree`] of `semantics::cfg`.
//!
//! ## Infinite loops (the documented choice)
//! A block from which no `ret`/`unreachable` is reachable has no complete path, so
//! §2.3 would let every block post-dominate it vacuously (the thesis excludes such
//! CFGs: "all loops have exits", §2.4). To keep a tree, such regions are connected
//! to the virtual exit like LLVM does: while some block cannot reach the virtual
//! exit, the one among them that comes last in the reverse postorder of the
//! documented DFS (`semantics::cfg::dfs`) gets an extra edge to the virtual exit;
//! blocks the entry cannot reach come after all reachable ones, ordered by arena
//! index. [`PostDomTree::exit_preds`] lists every block joined to the exit.

use pllvm_semantics::cfg::{Cfg, DomTree, Graph};
use pllvm_semantics::ir::{Block, Body};

/// The post-dominator tree of a body (§2.3), with a virtual exit node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostDomTree {
    /// Dominator tree of the reversed CFG; node `len` is the virtual exit.
    tree: DomTree,
    /// The number of blocks (the virtual exit's node number).
    len: u32,
    /// The blocks with an edge to the virtual exit, ascending.
    exit_preds: Vec<Block>,
}

impl PostDomTree {
    /// The post-dominator tree of `body`.
    pub fn compute(body: &Body) -> Self {
        let cfg = Cfg::new(body);
        let len = cfg.len();
        let exit = len as u32;
        // Forward successor lists with the virtual exit appended as node `len`.
        let mut succs: Vec<Vec<u32>> = cfg.graph().succs.clone();
        succs.push(Vec::new());
        let mut exit_preds: Vec<u32> = (0..exit)
            .filter(|&b| succs[b as usize].is_empty())
            .collect();
        for &b in &exit_preds {
            succs[b as usize].push(exit);
        }
        // Rank for the infinite-loop choice: position in reverse postorder, then
        // unreachable blocks by arena index.
        let mut rank: Vec<usize> = vec![usize::MAX; len];
        let rpo = cfg.dfs().reverse_postorder();
        for (position, &node) in rpo.iter().enumerate() {
            rank[node as usize] = position;
        }
        let mut next_rank = rpo.len();
        for slot in rank.iter_mut() {
            if *slot == usize::MAX {
                *slot = next_rank;
                next_rank += 1;
            }
        }
        loop {
            let reversed = Graph::from_succs(succs.clone()).reversed();
            let reaches_exit = DomTree::compute(&reversed, exit);
            let stuck = (0..exit)
                .filter(|&b| !reaches_exit.is_reachable(b))
                .max_by_key(|&b| rank[b as usize]);
            match stuck {
                Some(b) => {
                    succs[b as usize].push(exit);
                    exit_preds.push(b);
                }
                None => {
                    exit_preds.sort_unstable();
                    return PostDomTree {
                        tree: reaches_exit,
                        len: exit,
                        exit_preds: exit_preds.into_iter().map(Block::from_u32).collect(),
                    };
                }
            }
        }
    }

    /// The immediate post-dominator of `block`; `None` means the virtual exit (also
    /// for blocks outside the body).
    pub fn ipdom(&self, block: Block) -> Option<Block> {
        self.tree
            .idom(block.as_u32())
            .filter(|&n| n != self.len)
            .map(Block::from_u32)
    }

    /// Whether `a` post-dominates `b` (§2.3; reflexive).
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        a.as_u32() < self.len
            && b.as_u32() < self.len
            && self.tree.dominates(a.as_u32(), b.as_u32())
    }

    /// Whether `a` post-dominates `b` and `a ≠ b`.
    pub fn strictly_post_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.post_dominates(a, b)
    }

    /// The blocks `block` immediately post-dominates, ascending.
    pub fn children(&self, block: Block) -> Vec<Block> {
        self.tree
            .children(block.as_u32())
            .iter()
            .map(|&n| Block::from_u32(n))
            .collect()
    }

    /// The blocks whose immediate post-dominator is the virtual exit, ascending.
    pub fn exit_children(&self) -> Vec<Block> {
        self.tree
            .children(self.len)
            .iter()
            .map(|&n| Block::from_u32(n))
            .collect()
    }

    /// The blocks with an edge to the virtual exit: those without successors, and
    /// one per exit-less region (see the module documentation).
    pub fn exit_preds(&self) -> &[Block] {
        &self.exit_preds
    }

    /// The nearest block post-dominating both `a` and `b`; `None` is the virtual exit.
    pub fn nearest_common_post_dominator(&self, a: Block, b: Block) -> Option<Block> {
        self.tree
            .nearest_common_dominator(a.as_u32(), b.as_u32())
            .filter(|&n| n != self.len)
            .map(Block::from_u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{blk, graph_body, names};

    /// Checks `ipdom` of every listed block (`None` = virtual exit) of `spec`.
    fn check(spec: &str, expect: &[(&str, Option<&str>)]) {
        let body = graph_body(spec);
        let tree = PostDomTree::compute(&body);
        for &(block, ipdom) in expect {
            let got = tree
                .ipdom(blk(&body, block))
                .map(|b| body.blocks[b].name.clone());
            assert_eq!(got.as_deref(), ipdom, "ipdom({block}) in {spec}");
        }
        // Brute force (§2.3): `a` post-dominates `b` iff removing `a` cuts `b` from
        // every block joined to the exit.
        let cfg = Cfg::new(&body);
        for a in body.layout.iter().copied() {
            for b in body.layout.iter().copied() {
                let mut seen = vec![false; cfg.len()];
                let mut work = vec![b];
                let mut escapes = false;
                while let Some(n) = work.pop() {
                    if n == a || seen[n.as_u32() as usize] {
                        continue;
                    }
                    seen[n.as_u32() as usize] = true;
                    escapes |= tree.exit_preds().contains(&n);
                    work.extend(cfg.succs(n).iter().copied());
                }
                assert_eq!(
                    tree.post_dominates(a, b),
                    !escapes,
                    "{a:?} pdom {b:?} in {spec}"
                );
            }
        }
    }

    #[test]
    fn diamond() {
        check(
            "A: B C; B: D; C: D; D:",
            &[
                ("A", Some("D")),
                ("B", Some("D")),
                ("C", Some("D")),
                ("D", None),
            ],
        );
    }

    #[test]
    fn two_returns() {
        check(
            "A: B C; B: D E; C: E; D:; E:",
            &[("A", None), ("B", None), ("C", Some("E")), ("D", None)],
        );
    }

    #[test]
    fn loop_with_two_exits() {
        check(
            "E: H; H: B X; B: H Y; X: Z; Y: Z; Z:",
            &[
                ("E", Some("H")),
                ("H", Some("Z")),
                ("B", Some("Z")),
                ("X", Some("Z")),
            ],
        );
    }

    #[test]
    fn infinite_loop_is_joined_to_the_exit() {
        // A → B ⇄ C with no exit from the loop; A also returns via R. RPO is A R B C
        // or A B C R; C is last among the stuck blocks B, C either way.
        let body = graph_body("A: B R; B: C; C: B; R:");
        let tree = PostDomTree::compute(&body);
        assert_eq!(names(&body, tree.exit_preds().iter().copied()), ["C", "R"]);
        assert_eq!(tree.ipdom(blk(&body, "B")), Some(blk(&body, "C")));
        assert_eq!(tree.ipdom(blk(&body, "A")), None);
        check("A: B R; B: C; C: B; R:", &[("C", None)]);
    }

    #[test]
    fn switch_with_shared_targets() {
        check("A: B B C; B: C; C:", &[("A", Some("C")), ("B", Some("C"))]);
    }
}
