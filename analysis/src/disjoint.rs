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
use crate::hops::Hops;
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
    let walk = Walk {
        graph: star.graph(),
        topological: star.topological(),
        position: star.positions(),
        hops: Some(star.hops()),
    };
    walk.joins(&sources, &mut 0)
        .into_iter()
        .map(Block::from_u32)
        .collect()
}

/// [`splits_joins`] and the number of positions of the topological order its
/// pass visited (tests bound it).
pub fn splits_joins_counted(body: &Body, star: &HeadRewired, split: Block) -> (Vec<Block>, usize) {
    let mut sources: Vec<u32> = body.successors(split).iter().map(|b| b.as_u32()).collect();
    sources.sort_unstable();
    sources.dedup();
    if sources.len() < 2 {
        return (Vec::new(), 0);
    }
    let walk = Walk {
        graph: star.graph(),
        topological: star.topological(),
        position: star.positions(),
        hops: Some(star.hops()),
    };
    let mut work = 0;
    let joins = walk.joins(&sources, &mut work);
    (joins.into_iter().map(Block::from_u32).collect(), work)
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
    let walk = Walk {
        graph,
        topological,
        position,
        hops: None,
    };
    walk.joins(sources, &mut 0)
}

/// [`bounded_disjoint_joins`] that also hops over the single-entry intervals
/// `hops` of `topological` ([`crate::hops`]).
///
/// Over such an interval `I = [s, e)` entered at a node with label `l`, with no
/// source inside it, Algorithm 1 gives every interior node the label `l` (all
/// its predecessors are in `I` and carry `l`, by induction in topological
/// order), so no interior node is a join; the only edges leaving `I` enter
/// `x = topological[e]`. The pass therefore skips the interior, counts the edges
/// of `I` into `x` as edges of `l` still to be taken, and, when it reaches `x`,
/// reads the label `l` for `x`'s predecessors inside `I`. Every label outside
/// the interior, every count of edges still to be taken once the pass is past
/// `I`, and so every join and the point where the pass stops, is as without the
/// hop. Equal to [`disjoint_joins`] on generated CFGs (tests below).
pub fn hopping_disjoint_joins(
    graph: &Graph,
    topological: &[Block],
    position: &[u32],
    hops: &Hops,
    sources: &[u32],
    work: &mut usize,
) -> Vec<u32> {
    let walk = Walk {
        graph,
        topological,
        position,
        hops: Some(hops),
    };
    walk.joins(sources, work)
}

/// The bounded pass of Algorithm 1, with or without hops.
struct Walk<'a> {
    graph: &'a Graph,
    topological: &'a [Block],
    position: &'a [u32],
    hops: Option<&'a Hops>,
}

impl Walk<'_> {
    fn joins(&self, sources: &[u32], work: &mut usize) -> Vec<u32> {
        let (graph, topological) = (self.graph, self.topological);
        let at = |n: u32| self.position.get(n as usize).copied();
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
        // Per exit of an interval hopped over: the interval's start and label.
        let mut hopped: HashMap<u32, (u32, u32)> = HashMap::new();
        let mut index = first as usize;
        while let Some(node) = topological.get(index) {
            *work += 1;
            let p = node.as_u32();
            let inside = hopped.remove(&p);
            let mut reached = false;
            let mut plabel: Option<Option<u32>> = None; // None: no labelled pred yet
            for &q in graph.predecessors(p) {
                let label = labels.get(&q).copied().or_else(|| {
                    let (start, l) = inside?;
                    let at_q = at(q)?;
                    (start < at_q && (at_q as usize) < index).then_some(l)
                });
                let Some(l) = label else { continue };
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
            let mut next = index + 1;
            if let Some(l) = label {
                labels.insert(p, l);
                let hop = self.hops.and_then(|h| h.from(index as u32)).filter(|h| {
                    !sources
                        .iter()
                        .filter_map(|&s| at(s))
                        .any(|s| index < s as usize && (s as usize) < h.end as usize)
                });
                let out = match hop {
                    Some(h) => {
                        next = h.end as usize;
                        match topological.get(next) {
                            Some(x) if h.to_exit => {
                                hopped.insert(x.as_u32(), (index as u32, l));
                                graph
                                    .predecessors(x.as_u32())
                                    .iter()
                                    .filter_map(|&q| at(q))
                                    .filter(|&at_q| {
                                        index <= at_q as usize && (at_q as usize) < next
                                    })
                                    .count()
                            }
                            _ => 0,
                        }
                    }
                    None => graph.successors(p).len(),
                };
                if out > 0 {
                    let count = pending.entry(l).or_insert(0);
                    if *count == 0 {
                        open_labels += 1;
                    }
                    *count += out;
                }
            }
            if next > last_source as usize && open_labels <= 1 {
                break;
            }
            index = next;
        }
        joins.sort_unstable();
        joins
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::LoopInfo;
    use crate::test_util::{arb_cfg, blk, graph_body, names, nested_spec, spec_of};
    use proptest::prelude::*;

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

    /// The hopping pass over `G⋆` of 2,000 nested ifs and of 2,000 nested loops
    /// visits a bounded number of positions per block for all its splits (the
    /// bounded pass alone visits d^2 / 2 on the ifs), and finds Algorithm 1's
    /// joins.
    #[test]
    fn nested_ifs_and_loops_cost_linear_work() {
        for kind in ["ifs", "loops"] {
            let body = graph_body(&nested_spec(kind, 2000));
            let loops = LoopInfo::compute(&body).expect("reducible");
            let star = HeadRewired::compute(&body, &loops);
            let topological: Vec<u32> = star.topological().iter().map(|b| b.as_u32()).collect();
            let mut total = 0;
            for &b in &body.layout {
                let (joins, work) = splits_joins_counted(&body, &star, b);
                total += work;
                let mut sources: Vec<u32> = body.successors(b).iter().map(|s| s.as_u32()).collect();
                sources.sort_unstable();
                sources.dedup();
                if sources.len() >= 2 {
                    let expect = disjoint_joins(star.graph(), &topological, &sources);
                    let got: Vec<u32> = joins.iter().map(|j| j.as_u32()).collect();
                    assert_eq!(got, expect, "{kind}");
                }
            }
            let blocks = body.layout.len();
            assert!(
                total <= 4 * blocks,
                "{kind}: {total} positions for {blocks} blocks"
            );
        }
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The hopping pass finds exactly the joins of Algorithm 1 on `G⋆` of
        /// random reducible CFGs (nested loops, loops with several exits), for every
        /// split.
        #[test]
        fn splits_joins_equal_algorithm_1_on_generated_cfgs(succs in arb_cfg()) {
            let body = graph_body(&spec_of(&succs));
            let Ok(loops) = LoopInfo::compute(&body) else {
                return Ok(());
            };
            let star = HeadRewired::compute(&body, &loops);
            let topological: Vec<u32> = star.topological().iter().map(|b| b.as_u32()).collect();
            for &b in &body.layout {
                let mut sources: Vec<u32> =
                    body.successors(b).iter().map(|s| s.as_u32()).collect();
                sources.sort_unstable();
                sources.dedup();
                if sources.len() < 2 {
                    continue;
                }
                let fast: Vec<u32> =
                    splits_joins(&body, &star, b).iter().map(|j| j.as_u32()).collect();
                prop_assert_eq!(
                    fast,
                    disjoint_joins(star.graph(), &topological, &sources),
                    "{} split {:?}", spec_of(&succs), b
                );
            }
        }
    }
}
