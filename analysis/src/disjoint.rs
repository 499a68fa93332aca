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
//!
//! [`splits_joins`] runs the same pass only over the part of the topological order
//! where a join can still appear ([`bounded_disjoint_joins`]): from the first source
//! to the point where every edge still leaving the labelled nodes carries one label.
//! Past that point each node reached gets that label (Algorithm 1's rule with one
//! label among the predecessors), so no node is a join. A diamond costs its own
//! blocks, not the whole CFG, and the analysis of a long chain of splits stays
//! linear. Both are checked against each other on random DAGs.

use crate::head_rewired::HeadRewired;
use pllvm_semantics::cfg::Graph;
use pllvm_semantics::ir::{Block, Body};
use std::collections::HashMap;

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
    let mut sources: Vec<u32> = body.successors(split).iter().map(|b| b.as_u32()).collect();
    sources.sort_unstable();
    sources.dedup();
    if sources.len() < 2 {
        return Vec::new();
    }
    bounded_disjoint_joins(star.graph(), star.topological(), star.positions(), &sources)
        .into_iter()
        .map(Block::from_u32)
        .collect()
}

/// [`disjoint_joins`] visiting only the stretch of `topological` where a join can
/// appear (see the module documentation); `position[n]` is node `n`'s index in
/// `topological`. Labels live in maps, so the cost is that of the stretch.
pub fn bounded_disjoint_joins(
    graph: &Graph,
    topological: &[Block],
    position: &[u32],
    sources: &[u32],
) -> Vec<u32> {
    let at = |n: u32| position.get(n as usize).copied();
    let Some(first) = sources.iter().filter_map(|&s| at(s)).min() else {
        return Vec::new();
    };
    let last_source = sources.iter().filter_map(|&s| at(s)).max().unwrap_or(first);
    let mut labels: HashMap<u32, u32> = HashMap::new();
    // Edges from labelled nodes to nodes not yet visited, counted per label, and
    // how many labels have such an edge.
    let mut pending: HashMap<u32, usize> = HashMap::new();
    let mut open_labels = 0usize;
    let mut joins = Vec::new();
    for (index, node) in topological.iter().enumerate().skip(first as usize) {
        let p = node.as_u32();
        let mut reached = false;
        let mut plabel: Option<Option<u32>> = None; // None: no labelled pred yet
        for &q in graph.predecessors(p) {
            let Some(&l) = labels.get(&q) else { continue };
            reached = true;
            let count = pending.entry(l).or_insert(0);
            *count -= 1;
            if *count == 0 {
                open_labels -= 1;
            }
            plabel = match plabel {
                None => Some(Some(l)),
                Some(Some(k)) if k == l => Some(Some(k)),
                _ => Some(None),
            };
        }
        let label = if sources.contains(&p) {
            if reached {
                joins.push(p);
            }
            Some(p)
        } else {
            match plabel {
                None => None,
                Some(Some(l)) => Some(l),
                Some(None) => {
                    joins.push(p);
                    Some(p)
                }
            }
        };
        if let Some(l) = label {
            labels.insert(p, l);
            let out = graph.successors(p).len();
            if out > 0 {
                let count = pending.entry(l).or_insert(0);
                if *count == 0 {
                    open_labels += 1;
                }
                *count += out;
            }
        }
        if index as u32 >= last_source && open_labels <= 1 {
            break;
        }
    }
    joins.sort_unstable();
    joins
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

    /// The bounded pass finds exactly the joins of the whole pass, on every DAG
    /// of up to 6 nodes with edges only forward (every subset of forward edges
    /// from a fixed pattern family) and every pair of sources.
    #[test]
    fn bounded_pass_agrees_with_algorithm_1() {
        let n = 6u32;
        let pairs: Vec<(u32, u32)> = (0..n)
            .flat_map(|a| ((a + 1)..n).map(move |b| (a, b)))
            .collect();
        // 15 forward edges: enumerate subsets by a stride to keep the test fast.
        let mut checked = 0;
        for mask in (0u32..(1 << pairs.len())).step_by(7) {
            let succs: Vec<Vec<u32>> = (0..n)
                .map(|a| {
                    pairs
                        .iter()
                        .enumerate()
                        .filter(|&(i, &(x, _))| x == a && mask & (1 << i) != 0)
                        .map(|(_, &(_, y))| y)
                        .collect()
                })
                .collect();
            let graph = Graph::from_succs(succs);
            let topological: Vec<u32> = (0..n).collect();
            let blocks: Vec<Block> = topological.iter().map(|&b| Block::from_u32(b)).collect();
            for &(s0, s1) in &pairs {
                let sources = [s0, s1];
                assert_eq!(
                    bounded_disjoint_joins(&graph, &blocks, &topological, &sources),
                    disjoint_joins(&graph, &topological, &sources),
                    "mask {mask:#x}, sources {sources:?}"
                );
                checked += 1;
            }
        }
        assert!(checked > 60_000, "{checked}");
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
