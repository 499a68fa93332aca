//! The block index (thesis §2.5, after Wimmer and Mössenböck 2005).
//!
//! `BlockIndex ∈ V → ℕ` numbers the blocks in a topological order of the CFG
//! without its back edges, compact (an interval) for every loop, so the header
//! has the smallest index of its loop, and compact for every dominance region
//! `{b | d ⪰D b}` that the order can make compact.
//!
//! ## Construction
//! The order is built level by level along the loop tree. At each level (the whole
//! function, or one loop) the child loops are collapsed into single nodes whose
//! successors are their exits; the back edges of the level's own loop and its exit
//! edges are dropped. This gives a DAG whose order is the preorder of its dominator
//! tree in which the children of every node are sorted topologically by the edges
//! between their subtrees (an edge entering a subtree from outside always targets
//! its root, so this is a DAG too), ties broken by the reverse postorder of the
//! documented DFS. Each collapsed loop is then replaced, in place, by the order of
//! its own level. Every loop is contiguous by construction, and so is the dominance
//! region of every block whose region does not cross a loop boundary.
//!
//! ## Not every dominance region can be compact
//! §2.5 asks for compactness for *all* dominance regions, which no order achieves
//! in general: in `H → {A, B}`, `A → {L, X}`, `B → {L, Y}`, `L → H` (latch `L`,
//! exits `X`, `Y`) the loop `{H, A, B, L}` must be an interval, and so must
//! `{A, X}` and `{B, Y}`, but `A` and `B` cannot both sit at the loop's end. Regions
//! that cross a loop (contain some of its blocks, not all, and not contained in it)
//! are therefore compact only where possible.
//!
//! ## Irreducible CFGs and unreachable blocks
//! Without natural loops, the order is the reverse postorder of the documented DFS
//! (`semantics::cfg::dfs`): topological with respect to the edges that are not
//! retreating edges of that DFS, and nothing more. Blocks the entry cannot reach
//! (which §2.2 excludes) come after all others, by arena index.

use crate::loops::{LoopId, LoopInfo};
use pllvm_semantics::cfg::{Cfg, DomTree, Graph};
use pllvm_semantics::ir::{Block, Body};

/// The block index of one body (§2.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockIndex {
    order: Vec<Block>,
    index: Vec<u32>,
}

impl BlockIndex {
    /// `BlockIndex(b)`; `u32::MAX` for a block outside the body.
    pub fn index(&self, block: Block) -> u32 {
        self.index
            .get(block.as_u32() as usize)
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// The blocks by increasing index.
    pub fn order(&self) -> &[Block] {
        &self.order
    }

    /// The smallest and largest index of `blocks` (`None` if empty).
    pub fn span(&self, blocks: &[Block]) -> Option<(u32, u32)> {
        let indices = blocks.iter().map(|&b| self.index(b));
        Some((indices.clone().min()?, indices.max()?))
    }
}

/// The block index of `body` (§2.5; see the module documentation).
pub fn block_index(body: &Body) -> BlockIndex {
    let cfg = Cfg::new(body);
    let len = cfg.len();
    let mut order: Vec<Block> = match LoopInfo::compute(body) {
        Ok(loops) => {
            let rpo = cfg.reverse_postorder();
            let mut rpo_number = vec![u32::MAX; len];
            for (position, &b) in rpo.iter().enumerate() {
                rpo_number[b.as_u32() as usize] = position as u32;
            }
            let mut order = Vec::with_capacity(len);
            if !rpo.is_empty() {
                Level {
                    cfg: &cfg,
                    loops: &loops,
                    rpo_number: &rpo_number,
                }
                .emit_all(&mut order);
            }
            order
        }
        Err(_) => cfg.reverse_postorder(),
    };
    let mut placed = vec![false; len];
    for &b in &order {
        placed[b.as_u32() as usize] = true;
    }
    order.extend(
        (0..len as u32)
            .map(Block::from_u32)
            .filter(|b| !placed[b.as_u32() as usize]),
    );
    let mut index = vec![u32::MAX; len];
    for (position, &b) in order.iter().enumerate() {
        index[b.as_u32() as usize] = position as u32;
    }
    BlockIndex { order, index }
}

/// The shared inputs of the level-by-level construction.
struct Level<'a> {
    cfg: &'a Cfg,
    loops: &'a LoopInfo,
    rpo_number: &'a [u32],
}

/// One level being ordered: its nodes, their DAG and its dominator tree, and
/// the nodes still to visit (a stack, next on top).
struct Frame {
    region: Option<LoopId>,
    nodes: Vec<Block>,
    graph: Graph,
    tree: DomTree,
    stack: Vec<u32>,
}

impl Level<'_> {
    /// Appends the order of the whole function: each level's dominator tree in
    /// preorder, a child loop's header replaced in place by its own level's
    /// order. The levels are frames of an explicit stack, not recursive calls,
    /// so a nest of any depth needs no call stack (10,000 nested loops
    /// overflowed it).
    fn emit_all(&self, order: &mut Vec<Block>) {
        let mut frames: Vec<Frame> = self.frame(None).into_iter().collect();
        while let Some(frame) = frames.last_mut() {
            let Some(node) = frame.stack.pop() else {
                frames.pop();
                continue;
            };
            let block = frame.nodes[node as usize];
            // Push the children sorted topologically, last first; a child
            // loop's level is finished before they are visited.
            let children = self.sorted_children(&frame.graph, &frame.tree, node, &frame.nodes);
            frame.stack.extend(children.into_iter().rev());
            match self.loops.loop_with_header(block) {
                Some(inner) if Some(inner) != frame.region => {
                    frames.extend(self.frame(Some(inner)));
                }
                _ => order.push(block),
            }
        }
    }

    /// The level `region` (`None`: the whole function) ready to visit, or
    /// `None` if its root is not among its nodes. What only building it needs
    /// (its members, their representatives) is dropped here, so the frames of
    /// a deep nest hold their levels' nodes only.
    fn frame(&self, region: Option<LoopId>) -> Option<Frame> {
        let in_region =
            |b: Block| self.cfg.reachable(b) && region.is_none_or(|l| self.loops.contains(l, b));
        let root = match region {
            Some(l) => self.loops.header(l),
            None => self.cfg.entry(),
        };
        // The nodes of the level: its own blocks (in no child loop) and the
        // headers of its child loops. A child loop stands for all its blocks;
        // its edges at this level are its exit edges. So a level costs its own
        // blocks and its children's exits, and a nest of depth d costs O(d),
        // not the d^2 of walking every loop's blocks at every level.
        let children: Vec<LoopId> = match region {
            Some(l) => self.loops.children(l).to_vec(),
            None => self
                .loops
                .loops()
                .filter(|&l| self.loops.parent(l).is_none())
                .collect(),
        };
        let own: Vec<Block> = match region {
            Some(l) => self
                .loops
                .own_blocks(l)
                .iter()
                .copied()
                .filter(|&b| in_region(b))
                .collect(),
            None => (0..self.cfg.len() as u32)
                .map(Block::from_u32)
                .filter(|&b| in_region(b) && self.loops.loop_of(b).is_none())
                .collect(),
        };
        // The representative of a block of the level: itself, or the header of
        // the child loop that contains it (in a reducible CFG an edge enters a
        // loop at its header, so the target of an edge from outside a child is
        // that child's header).
        let representative = |b: Block| -> Option<Block> {
            if self.loops.loop_of(b) == region {
                return Some(b);
            }
            let mut inner = self.loops.loop_of(b);
            while let Some(l) = inner {
                let up = self.loops.parent(l);
                if up == region {
                    return Some(self.loops.header(l));
                }
                inner = up;
            }
            None
        };
        // Level nodes in reverse postorder; local node numbers index `nodes`.
        let mut nodes: Vec<Block> = own.clone();
        nodes.extend(children.iter().map(|&c| self.loops.header(c)));
        nodes.sort_unstable_by_key(|b| self.rpo_number[b.as_u32() as usize]);
        let positions: std::collections::HashMap<Block, usize> =
            nodes.iter().enumerate().map(|(k, &b)| (b, k)).collect();
        let local = |b: Block| positions.get(&b).copied();
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
        let mut edge = |rx: Block, y: Block| {
            // Exit edges of the level and back edges to its header are dropped.
            if !in_region(y) || (region.is_some() && y == root) {
                return;
            }
            let Some(ry) = representative(y) else { return };
            if rx == ry {
                return;
            }
            if let (Some(a), Some(b)) = (local(rx), local(ry)) {
                succs[a].push(b as u32);
            }
        };
        for &x in &own {
            for &y in self.cfg.succs(x) {
                edge(x, y);
            }
        }
        for &c in &children {
            for &y in self.loops.exits(c) {
                edge(self.loops.header(c), y);
            }
        }
        let graph = Graph::from_succs(succs);
        let root_node = local(root)? as u32;
        let tree = DomTree::compute(&graph, root_node);
        Some(Frame {
            region,
            nodes,
            graph,
            tree,
            stack: vec![root_node],
        })
    }

    /// The dominator-tree children of `node`, sorted so that every edge from one
    /// child's subtree to another child goes forward; ties by reverse postorder.
    fn sorted_children(
        &self,
        graph: &Graph,
        tree: &DomTree,
        node: u32,
        nodes: &[Block],
    ) -> Vec<u32> {
        let children = tree.children(node).to_vec();
        let mut incoming = vec![0usize; children.len()];
        let mut edges: Vec<(usize, usize)> = Vec::new();
        for (to, &child) in children.iter().enumerate() {
            for &pred in graph.predecessors(child) {
                if pred == node || !tree.is_reachable(pred) {
                    continue;
                }
                // The child of `node` whose subtree holds `pred` (dominance is an
                // interval test, so this costs the children, not the tree depth).
                if let Some(from) = children.iter().position(|&c| tree.dominates(c, pred))
                    && from != to
                {
                    edges.push((from, to));
                    incoming[to] += 1;
                }
            }
        }
        let rank = |c: u32| self.rpo_number[nodes[c as usize].as_u32() as usize];
        let mut done = vec![false; children.len()];
        let mut sorted = Vec::with_capacity(children.len());
        while sorted.len() < children.len() {
            // The ready child earliest in reverse postorder; if none is ready (which
            // the DAG argument rules out), the earliest remaining one.
            let pick = (0..children.len())
                .filter(|&i| !done[i])
                .min_by_key(|&i| (incoming[i] != 0, rank(children[i])));
            let Some(i) = pick else { break };
            done[i] = true;
            sorted.push(children[i]);
            for &(from, to) in &edges {
                if from == i {
                    incoming[to] = incoming[to].saturating_sub(1);
                }
            }
        }
        sorted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{graph_body, names};

    /// Checks the order of `spec` and the §2.5 properties it must have.
    fn check(spec: &str, expect: &[&str]) {
        let body = graph_body(spec);
        let index = block_index(&body);
        assert_eq!(
            names(&body, index.order().iter().copied()),
            expect,
            "{spec}"
        );
        let loops = LoopInfo::compute(&body).expect("reducible");
        let cfg = Cfg::new(&body);
        for &x in &body.layout {
            for &y in cfg.succs(x) {
                if !loops.is_back_edge(x, y) {
                    assert!(
                        index.index(x) < index.index(y),
                        "{x:?} → {y:?} goes backwards"
                    );
                }
            }
        }
        for l in loops.loops() {
            let (lo, hi) = index.span(loops.blocks(l)).expect("non-empty");
            assert_eq!(
                (hi - lo + 1) as usize,
                loops.blocks(l).len(),
                "loop {l:?} compact"
            );
            assert_eq!(lo, index.index(loops.header(l)));
        }
    }

    #[test]
    fn diamond_and_chain() {
        // Ties go by reverse postorder: the DFS enters B first, so C precedes B.
        check("A: B C; B: D; C: D; D: E; E:", &["A", "C", "B", "D", "E"]);
    }

    #[test]
    fn loop_exit_comes_after_the_whole_loop() {
        // H → {A, X}; X is dominated by H but must follow the loop body A, B.
        check("E: H; H: X A; A: B; B: H; X:", &["E", "H", "A", "B", "X"]);
    }

    #[test]
    fn nested_loops_are_intervals() {
        check(
            "E: H; H: I Z; I: J; J: I K; K: H; Z:",
            &["E", "H", "I", "J", "K", "Z"],
        );
    }

    #[test]
    fn dominance_regions_stay_together() {
        // A → {B, C}; B → {D, J}; D → J; C → J: region of B is {B, D}.
        check("A: C B; B: D J; D: J; C: J; J:", &["A", "B", "D", "C", "J"]);
    }

    #[test]
    fn irreducible_falls_back_to_rpo() {
        let body = graph_body("A: B C; B: C; C: B D; D:");
        let index = block_index(&body);
        let rpo: Vec<Block> = Cfg::new(&body).reverse_postorder();
        assert_eq!(index.order(), rpo.as_slice());
    }
}
