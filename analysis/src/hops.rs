//! Single-entry intervals of a numbered CFG that a label walk may hop over: the
//! region summaries that keep the per-branch walks of `joins` (thesis Listings
//! 4-7) and `disjoint` (POPL'21 Algorithm 1) from re-walking every nested region.
//!
//! Given a numbering of the reachable nodes (`order[p]` is the node at position
//! `p`) in which every node but the first has a predecessor before it (a
//! topological order of the forward edges such as the block index, §2.5, or of
//! a DAG, or any reverse postorder), the *hop* from position `s` is an interval
//! `I = [s, e)` of positions with
//!
//! 1. every predecessor of an interior node (positions `s < p < e`) in `I`, and
//!    every interior node with at least one predecessor;
//! 2. every successor of a node of `I` in `I ∪ {order[e]}`, and none before `s`
//!    (an edge back to `order[s]` itself is allowed).
//!
//! `e` is the smallest position with (2) for the successors, found by closing
//! `[s, s + 1)` under "the largest successor position" with range-maximum
//! queries; (1) is then checked with range queries too. A hop exists when
//! `e ≥ s + 2` (an interior at all) and (1) holds.
//!
//! ## What a hop means for a label walk
//! Consider a walk that visits positions in increasing order and, at a node `b`
//! carrying label `d`, pushes `d` to its successors, where a node reached by two
//! different labels becomes a join. Suppose `b = order[s]` is visited with `d`
//! and no interior node of `I` holds a label yet. Then:
//!
//! - *Every interior node is reached only with `d`*: by (1) every push into the
//!   interior comes from a node of `I`, and by induction on the position the
//!   nodes of `I` carry `d` or nothing (a push from a later node of `I` back to
//!   an earlier one carries `d` too). No interior node is a join.
//! - *Every interior node is reached before its visit*: it has a predecessor
//!   before it, which by (1) is in `I` and, by induction, carries `d` when the
//!   walk visits it (the first interior node's predecessor is `b`).
//! - *Nothing else changes*: by (2) the edges leaving `I` go to `x = order[e]`
//!   (each pushes `d`; pushing the same label twice is pushing it once) or back
//!   to `b`, which holds `d` since its visit or has become a join since, and
//!   either way a further `d` leaves it as it is.
//!
//! So the walk may push `d` to `x` (when some edge of `I` enters it,
//! [`Hop::to_exit`]) and continue at position `e`: every label outside the
//! interior, every join and every push to a node outside `I` is the same. The
//! intervals of nested ifs are their then-parts: a walk from a branch hops over
//! the branches inside it, so a nest of depth d costs O(d), not O(d^2).

use pllvm_semantics::cfg::Graph;

/// An interval `[s, end)` a walk may hop over (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// The position after the interval: `order[end]` is its only exit.
    pub end: u32,
    /// Whether some edge of the interval enters `order[end]`.
    pub to_exit: bool,
}

/// The hop, if any, from every position of a numbering (see the module
/// documentation). Computed once per CFG in O(n log n).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hops {
    hops: Vec<Option<Hop>>,
}

/// How many times the closure of an interval may grow before the hop is given up
/// (a hop is an optimisation: without one the walk takes every edge).
const MAX_GROWTH: usize = 64;

impl Hops {
    /// The hops of `graph` numbered by `order` (each node at most once; nodes
    /// outside `order` make any interval next to them ineligible).
    pub fn compute(graph: &Graph, order: &[u32]) -> Self {
        let n = order.len();
        let mut position = vec![u32::MAX; graph.len()];
        for (p, &v) in order.iter().enumerate() {
            if let Some(slot) = position.get_mut(v as usize) {
                *slot = p as u32;
            }
        }
        let at = |v: u32| position.get(v as usize).copied().unwrap_or(u32::MAX);
        let mut out_lo = Vec::with_capacity(n);
        let mut out_hi = Vec::with_capacity(n);
        let mut in_lo = Vec::with_capacity(n);
        let mut in_hi = Vec::with_capacity(n);
        for &v in order {
            let succs = graph.successors(v).iter().map(|&s| at(s));
            out_lo.push(succs.clone().min().unwrap_or(u32::MAX));
            out_hi.push(succs.max().unwrap_or(0));
            let preds = graph.predecessors(v).iter().map(|&q| at(q));
            // A node without predecessors spoils every interval it is inside.
            in_lo.push(preds.clone().min().unwrap_or(0));
            in_hi.push(preds.max().unwrap_or(u32::MAX));
        }
        let out_lo = Sparse::new(out_lo, u32::min);
        let out_hi = Sparse::new(out_hi, u32::max);
        let in_lo = Sparse::new(in_lo, u32::min);
        let in_hi = Sparse::new(in_hi, u32::max);
        let hops = (0..n as u32)
            .map(|s| {
                let mut end = s + 1;
                let mut grown = 0;
                let reach = loop {
                    let reach = out_hi.query(s, end);
                    if reach <= end {
                        break reach;
                    }
                    grown += 1;
                    if grown > MAX_GROWTH || reach as usize >= n {
                        return None;
                    }
                    end = reach;
                };
                let interior_ok = end >= s + 2
                    && out_lo.query(s, end) >= s
                    && in_lo.query(s + 1, end) >= s
                    && in_hi.query(s + 1, end) < end;
                interior_ok.then_some(Hop {
                    end,
                    to_exit: reach == end && (end as usize) < n,
                })
            })
            .collect();
        Hops { hops }
    }

    /// The hop from position `s`, if any.
    pub fn from(&self, s: u32) -> Option<Hop> {
        self.hops.get(s as usize).copied().flatten()
    }
}

/// A sparse table: `op` over any range in O(1).
struct Sparse {
    levels: Vec<Vec<u32>>,
    op: fn(u32, u32) -> u32,
}

impl Sparse {
    fn new(base: Vec<u32>, op: fn(u32, u32) -> u32) -> Self {
        let mut levels = vec![base];
        let mut width = 1usize;
        // Level k holds `op` over the windows of 2^k positions starting at each.
        while width * 2 <= levels[0].len() {
            let prev = &levels[levels.len() - 1];
            let next: Vec<u32> = (0..prev.len() - width)
                .map(|i| op(prev[i], prev[i + width]))
                .collect();
            levels.push(next);
            width *= 2;
        }
        Sparse { levels, op }
    }

    /// `op` over positions `lo..hi` (`hi > lo`, within the table).
    fn query(&self, lo: u32, hi: u32) -> u32 {
        let (lo, hi) = (lo as usize, hi as usize);
        let k = (usize::BITS - 1 - (hi - lo).leading_zeros()) as usize;
        let level = &self.levels[k];
        (self.op)(level[lo], level[hi - (1 << k)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn nested_ifs_hop_over_their_then_parts() {
        // 0 → {1, 5}, 1 → {2, 4}, 2 → 3, 3 → 4, 4 → 5, 5: (i0, i1, i2, j1, j0, x).
        let graph = Graph::from_succs(vec![
            vec![1, 5],
            vec![2, 4],
            vec![3],
            vec![4],
            vec![5],
            vec![],
        ]);
        let hops = Hops::compute(&graph, &[0, 1, 2, 3, 4, 5]);
        assert_eq!(
            hops.from(1),
            Some(Hop {
                end: 4,
                to_exit: true
            })
        );
        assert_eq!(
            hops.from(0),
            Some(Hop {
                end: 5,
                to_exit: true
            })
        );
        // A single block is no interval worth hopping over.
        assert_eq!(hops.from(2), None);
        assert_eq!(hops.from(5), None);
    }

    #[test]
    fn a_side_entry_or_a_back_edge_out_spoils_the_interval() {
        // 0 → {1, 2}, 1 → 2, 2 → 3: from 1, node 2 has predecessor 0 outside.
        let graph = Graph::from_succs(vec![vec![1, 2], vec![2], vec![3], vec![]]);
        let hops = Hops::compute(&graph, &[0, 1, 2, 3]);
        assert_eq!(hops.from(1), None);
        // 0 → 1, 1 → 2, 2 → {0, 3}: from 1, node 2 leaves back to 0.
        let graph = Graph::from_succs(vec![vec![1], vec![2], vec![0, 3], vec![]]);
        let hops = Hops::compute(&graph, &[0, 1, 2, 3]);
        assert_eq!(hops.from(1), None);
        // The smallest closed interval from 0 is 0 alone (its successor follows).
        assert_eq!(hops.from(0), None);
    }

    /// What [`walk`] finds: the joins, the labels, the interiors hopped over.
    type Walked = (Vec<u32>, Vec<Option<u32>>, Vec<bool>);

    /// A walk as in the module documentation from the successors of `split`,
    /// with or without hops.
    fn walk(graph: &Graph, order: &[u32], hops: Option<&Hops>, split: u32) -> Walked {
        let n = graph.len();
        let mut position = vec![u32::MAX; n];
        for (p, &v) in order.iter().enumerate() {
            position[v as usize] = p as u32;
        }
        let mut label: Vec<Option<u32>> = vec![None; n];
        let mut joins = Vec::new();
        let mut skipped = vec![false; n];
        let mut push = |label: &mut Vec<Option<u32>>, v: u32, d: u32| match label[v as usize] {
            Some(old) if old != d => {
                if !joins.contains(&v) {
                    joins.push(v);
                }
                label[v as usize] = Some(v);
            }
            _ => label[v as usize] = Some(d),
        };
        for &s in graph.successors(split) {
            push(&mut label, s, s);
        }
        let mut p = position[split as usize] as usize + 1;
        while let Some(&v) = order.get(p) {
            let mut next = p + 1;
            if let Some(d) = label[v as usize] {
                match hops.and_then(|h| h.from(p as u32)) {
                    Some(h) => {
                        next = h.end as usize;
                        for &w in &order[p + 1..next] {
                            skipped[w as usize] = true;
                        }
                        if h.to_exit {
                            push(&mut label, order[next], d);
                        }
                    }
                    None => {
                        for &s in graph.successors(v) {
                            push(&mut label, s, d);
                        }
                    }
                }
            }
            p = next;
        }
        joins.sort_unstable();
        (joins, label, skipped)
    }

    /// Uniform random graphs, and graphs with mostly forward edges (more
    /// single-entry intervals), each half the time.
    fn arb_graph() -> impl Strategy<Value = Vec<Vec<u32>>> {
        let uniform = (2usize..14).prop_flat_map(|n| {
            proptest::collection::vec(proptest::collection::vec(0..n as u32, 0..4), n)
        });
        prop_oneof![uniform, crate::test_util::arb_cfg()]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// On random graphs (irreducible ones included), numbered in reverse
        /// postorder from node 0, a walk from every split that hops finds the
        /// joins of the walk that does not, and the same label everywhere but in
        /// the interiors it hopped over.
        #[test]
        fn hopping_walk_equals_the_full_walk(succs in arb_graph()) {
            let graph = Graph::from_succs(succs);
            let order = pllvm_semantics::cfg::dfs(&graph, 0).reverse_postorder();
            let hops = Hops::compute(&graph, &order);
            for &split in &order {
                let (joins, labels, _) = walk(&graph, &order, None, split);
                let (fast, fast_labels, skipped) = walk(&graph, &order, Some(&hops), split);
                prop_assert_eq!(&fast, &joins, "{:?} split {}", graph, split);
                for v in 0..graph.len() {
                    if !skipped[v] {
                        prop_assert_eq!(fast_labels[v], labels[v], "{:?} split {} node {}", graph, split, v);
                    }
                }
            }
        }
    }
}
