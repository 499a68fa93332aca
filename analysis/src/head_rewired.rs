//! The head-rewired CFG `G⋆` (POPL'21 §2.3 and Def. 4.14).
//!
//! `→⋆ = →_G ∖ {h → v | h is a header} ∪ {h → e | e is an exit of loop h}`: every
//! loop header loses its outgoing edges and gains an "early-exit" edge to each exit
//! of its loop. Back edges into headers stay. By Lemma 4.17 the result is a DAG
//! for a reducible CFG, and two disjoint paths in it from the successors of a split
//! characterise exactly the joins that split can make inhomogeneous (Def. 4.18,
//! Theorems 4.20 and 4.22); [`crate::disjoint::label_disj`] finds them.
//!
//! Node `i` is `Block(i)`. Blocks the entry cannot reach keep no outgoing edges
//! (§2.2 excludes them, and their cycles would not be cut).

use crate::hops::Hops;
use crate::loops::LoopInfo;
use pllvm_semantics::cfg::{Cfg, Graph};
use pllvm_semantics::ir::{Block, Body};
use std::collections::BTreeSet;

/// The head-rewired CFG of a reducible body, with a topological order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadRewired {
    graph: Graph,
    topological: Vec<Block>,
    /// `position[i]`: where `Block(i)` stands in `topological`.
    position: Vec<u32>,
    /// The single-entry intervals of `topological` ([`crate::hops`]).
    hops: Hops,
}

impl HeadRewired {
    /// `G⋆` of `body`, whose loops are `loops` (Def. 4.14).
    pub fn compute(body: &Body, loops: &LoopInfo) -> Self {
        let cfg = Cfg::new(body);
        let succs: Vec<Vec<u32>> = (0..cfg.len() as u32)
            .map(Block::from_u32)
            .map(|b| {
                if !cfg.reachable(b) {
                    return Vec::new();
                }
                match loops.loop_with_header(b) {
                    Some(l) => loops.exits(l).iter().map(|e| e.as_u32()).collect(),
                    None => cfg.succs(b).iter().map(|s| s.as_u32()).collect(),
                }
            })
            .collect();
        let graph = Graph::from_succs(succs);
        let topological: Vec<Block> = topological_order(&graph)
            .into_iter()
            .map(Block::from_u32)
            .collect();
        let mut position = vec![0; graph.len()];
        for (at, b) in topological.iter().enumerate() {
            position[b.as_u32() as usize] = at as u32;
        }
        let numbered: Vec<u32> = topological.iter().map(|b| b.as_u32()).collect();
        let hops = Hops::compute(&graph, &numbered);
        HeadRewired {
            graph,
            topological,
            position,
            hops,
        }
    }

    /// The graph (node `i` is `Block(i)`).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The successors of `block` in `G⋆`.
    pub fn succs(&self, block: Block) -> Vec<Block> {
        self.graph
            .successors(block.as_u32())
            .iter()
            .map(|&n| Block::from_u32(n))
            .collect()
    }

    /// Every block, each before all its `G⋆` successors (Kahn's algorithm, ready
    /// blocks taken by ascending arena index). For a graph with a cycle (never a
    /// reducible CFG's `G⋆`) the blocks on or after the cycle follow by arena index.
    pub fn topological(&self) -> &[Block] {
        &self.topological
    }

    /// Where each block stands in [`HeadRewired::topological`] (node `i` is
    /// `Block(i)`).
    pub fn positions(&self) -> &[u32] {
        &self.position
    }

    /// The hops of `G⋆` numbered by [`HeadRewired::topological`].
    pub fn hops(&self) -> &Hops {
        &self.hops
    }
}

/// A topological order of `graph` (see [`HeadRewired::topological`]).
pub fn topological_order(graph: &Graph) -> Vec<u32> {
    let len = graph.len();
    let mut incoming: Vec<usize> = (0..len as u32)
        .map(|n| graph.predecessors(n).len())
        .collect();
    let mut ready: BTreeSet<u32> = (0..len as u32)
        .filter(|&n| incoming[n as usize] == 0)
        .collect();
    let mut order = Vec::with_capacity(len);
    let mut placed = vec![false; len];
    while let Some(node) = ready.pop_first() {
        order.push(node);
        placed[node as usize] = true;
        for &s in graph.successors(node) {
            incoming[s as usize] -= 1;
            if incoming[s as usize] == 0 {
                ready.insert(s);
            }
        }
    }
    order.extend((0..len as u32).filter(|&n| !placed[n as usize]));
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{blk, graph_body, names};

    #[test]
    fn popl_figure_1b_shape() {
        // POPL'21 Fig. 2b: S → {P, B}, B → C → S (the loop B, C, S with header B is
        // entered from S's predecessor R); G⋆ replaces B → C by B → P.
        let body = graph_body("R: B; B: C; C: S; S: P B; P:");
        let loops = LoopInfo::compute(&body).expect("reducible");
        let star = HeadRewired::compute(&body, &loops);
        assert_eq!(names(&body, star.succs(blk(&body, "B"))), ["P"]);
        assert_eq!(names(&body, star.succs(blk(&body, "S"))), ["P", "B"]);
        assert_eq!(
            names(&body, star.topological().iter().copied()),
            ["R", "C", "S", "B", "P"]
        );
    }

    #[test]
    fn nested_loops_form_a_dag() {
        let body = graph_body("E: H; H: I Z; I: J; J: I K; K: H Z; Z:");
        let loops = LoopInfo::compute(&body).expect("reducible");
        let star = HeadRewired::compute(&body, &loops);
        assert_eq!(names(&body, star.succs(blk(&body, "H"))), ["Z"]);
        assert_eq!(names(&body, star.succs(blk(&body, "I"))), ["K"]);
        let order = star.topological();
        let position = |b: Block| order.iter().position(|&x| x == b);
        for &x in order {
            for y in star.succs(x) {
                assert!(position(x) < position(y), "{x:?} → {y:?}");
            }
        }
    }
}
