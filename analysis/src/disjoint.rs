//! Ends of disjoint paths in a DAG: `labelDisj` (POPL'21 §5, Algorithm 1).
//!
//! For a set `S` of source nodes, `labels[p]` is `p*`, the earliest node on every
//! path from `S` to `p` (Lemma 5.5), or `None` if `S` does not reach `p` (Lemma
//! 5.4). Two nodes with different labels are ends of two node-disjoint paths from
//! two different sources (Theorem 5.6). One pass in topological order, O(V + E).
//!
//! A source `p ∈ S` keeps the label `p`: the empty path `p →* p` belongs to `P_p`,
//! so `D_p = {p}` and `p* = p`. Algorithm 1 as printed overwrites the label of a
//! source that another source reaches with its predecessors' label, which breaks
//! Lemma 5.5 for it and loses joins such as `s → {a, b}, a → b`.
//!
//! [`disjoint_joins`] turns labels into joins: the nodes `p` where two disjoint
//! paths from different sources meet, i.e. two predecessors reachable from `S`
//! carry different labels, or `p ∈ S` and some predecessor is reachable from `S`.
//! With the successors of a split `s` as sources on the head-rewired CFG this is
//! `{p | s ∈ splits p}` (Def. 4.18).

use crate::head_rewired::HeadRewired;
use pllvm_semantics::cfg::{Cfg, Graph};
use pllvm_semantics::ir::{Block, Body};

/// Algorithm 1: the label `p*` of every node reachable from `sources`, visiting the
/// nodes in the topological order `topological` of the DAG `graph`.
pub fn label_disj(graph: &Graph, topological: &[u32], sources: &[u32]) -> Vec<Option<u32>> {
    let mut labels: Vec<Option<u32>> = vec![None; graph.len()];
    let mut is_source = vec![false; graph.len()];
    for &s in sources {
        if let Some(slot) = labels.get_mut(s as usize) {
            *slot = Some(s);
            is_source[s as usize] = true;
        }
    }
    for &p in topological {
        if is_source.get(p as usize).copied().unwrap_or(true) {
            continue;
        }
        // Labels of the predecessors reachable from the sources.
        let mut plabs = graph
            .predecessors(p)
            .iter()
            .filter_map(|&q| labels[q as usize]);
        let Some(first) = plabs.next() else { continue };
        labels[p as usize] = Some(if plabs.all(|l| l == first) { first } else { p });
    }
    labels
}

/// The join nodes of `sources` in the DAG `graph`: where two paths from different
/// sources, disjoint but for their end, meet (see the module documentation).
pub fn disjoint_joins(graph: &Graph, topological: &[u32], sources: &[u32]) -> Vec<u32> {
    let labels = label_disj(graph, topological, sources);
    let mut joins: Vec<u32> = (0..graph.len() as u32)
        .filter(|&p| {
            let reached_preds = || {
                graph
                    .predecessors(p)
                    .iter()
                    .filter(|&&q| labels[q as usize].is_some())
            };
            if sources.contains(&p) {
                reached_preds().next().is_some()
            } else {
                labels[p as usize] == Some(p)
            }
        })
        .collect();
    joins.sort_unstable();
    joins
}

/// The blocks `p` with `split ∈ splits p` (POPL'21 Def. 4.18): ends of two disjoint
/// `G⋆` paths from two different CFG successors of `split`, ascending.
pub fn splits_joins(body: &Body, star: &HeadRewired, split: Block) -> Vec<Block> {
    let cfg = Cfg::new(body);
    let mut sources: Vec<u32> = cfg.succs(split).iter().map(|b| b.as_u32()).collect();
    sources.sort_unstable();
    sources.dedup();
    if sources.len() < 2 {
        return Vec::new();
    }
    let topological: Vec<u32> = star.topological().iter().map(|b| b.as_u32()).collect();
    disjoint_joins(star.graph(), &topological, &sources)
        .into_iter()
        .map(Block::from_u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::LoopInfo;
    use crate::test_util::{blk, graph_body, names};

    fn joins_of(spec: &str, split: &str) -> Vec<String> {
        let body = graph_body(spec);
        let loops = LoopInfo::compute(&body).expect("reducible");
        let star = HeadRewired::compute(&body, &loops);
        names(&body, splits_joins(&body, &star, blk(&body, split)))
    }

    #[test]
    fn labels_on_a_dag() {
        // 0 → {1, 2}; 1 → 3; 2 → 3; 3 → 4; sources {1, 2}.
        let graph = Graph::from_succs(vec![vec![1, 2], vec![3], vec![3], vec![4], vec![]]);
        let labels = label_disj(&graph, &[0, 1, 2, 3, 4], &[1, 2]);
        assert_eq!(labels, vec![None, Some(1), Some(2), Some(3), Some(3)]);
        assert_eq!(disjoint_joins(&graph, &[0, 1, 2, 3, 4], &[1, 2]), vec![3]);
    }

    #[test]
    fn a_source_reached_by_another_is_a_join() {
        assert_eq!(joins_of("S: A B; A: B; B:", "S"), ["B"]);
    }

    #[test]
    fn diamond_and_uniform_path() {
        assert_eq!(joins_of("A: B C; B: D; C: D; D:", "A"), ["D"]);
        assert_eq!(
            joins_of("A: B C; B: D; C: D; D:", "B"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn popl_figure_1b_loop_exit_join() {
        // The split S in the loop: one path leaves to P, the other goes around via
        // B, whose early exit also reaches P: P is a join (temporal divergence).
        assert_eq!(joins_of("R: B; B: C; C: S; S: P B; P:", "S"), ["P"]);
    }
}
