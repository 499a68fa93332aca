//! Forward-reaching paths and `fwdreaching` (thesis Def. 15-16, §5).
//!
//! A path is forward reaching if it takes no back edge (Def. 15), and
//! `fwdreaching(z) = {a | ∃ π ∈ a →⁺ z forward reaching}` (Def. 16). The greedy
//! schedules of Ch. 5 use it to decide whether scheduling a block synchronizes
//! (Def. 17).
//!
//! Back edges are the retreating edges of the documented DFS
//! (`semantics::cfg::dfs`): for a reducible CFG these are exactly its back edges
//! (§2.4); for an irreducible one they depend on the DFS, and this module uses
//! that DFS's retreating edges as the back edges. Without them the CFG is acyclic
//! on the reachable blocks, so no block forward-reaches itself there. Edges among
//! blocks the entry cannot reach are all kept (no DFS classifies them), so those
//! blocks may form cycles.
//!
//! # Cost
//! The relation is not stored (a table of every pair is quadratic: 20 GB for a
//! straight line of 100k blocks). [`ForwardReach::compute`] keeps the forward
//! edges and two labels per block, linear in the CFG, and [`ForwardReach::reaches`]
//! answers a query with them: on the acyclic forward graph of the reachable
//! blocks, a depth-first search from the entry numbers each block by the order in
//! which it finishes (`post`) and records the least number among the blocks it
//! reaches (`low`); `a` reaching `z` implies `low(a) ≤ low(z)` and `post(z) <
//! post(a)` (a cut that answers most "no"s at once), and `z` below `a` in the
//! search tree implies that `a` reaches `z` (most "yes"es). Only the remaining
//! queries search, from `a`, the blocks whose labels still allow them to reach
//! `z` (the interval labels of GRAIL, Yildirim et al., VLDB 2010).

use crate::tables::BlockSet;
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::{Block, Body};

/// `fwdreaching(z)` for every block `z` (Def. 16), answered by query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForwardReach {
    /// The forward edges (every edge but the back edges), by source.
    forward: Vec<Vec<Block>>,
    /// The forward edges by target.
    backward: Vec<Vec<Block>>,
    /// Per block: its labels in the search of the reachable blocks, `None` for a
    /// block the entry does not reach.
    labels: Vec<Option<Labels>>,
    back_edges: Vec<(Block, Block)>,
}

/// The labels of a block the entry reaches (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Labels {
    /// When the search of the forward graph first visited the block.
    pre: u32,
    /// When the search finished the block.
    post: u32,
    /// The least `post` among the block and every block it forward-reaches.
    low: u32,
}

impl Labels {
    /// Whether the labels allow a forward path from the block labelled `self` to
    /// the block labelled `z` (necessary, not sufficient).
    fn may_reach(self, z: Labels) -> bool {
        self.low <= z.low && z.post < self.post
    }

    /// Whether the block labelled `z` lies below the block labelled `self` in the
    /// search tree (sufficient for a forward path, not necessary).
    fn tree_ancestor_of(self, z: Labels) -> bool {
        self.pre < z.pre && z.post < self.post
    }
}

impl ForwardReach {
    /// Forward reachability of `body`: the forward edges and the labels, in time
    /// and space linear in the CFG.
    pub fn compute(body: &Body) -> Self {
        let cfg = Cfg::new(body);
        let len = cfg.len();
        let back_edges = cfg.retreating_edges();
        let is_back = |x: Block, y: Block| back_edges.binary_search(&(x, y)).is_ok();
        let mut forward: Vec<Vec<Block>> = vec![Vec::new(); len];
        let mut backward: Vec<Vec<Block>> = vec![Vec::new(); len];
        for (from, out) in forward.iter_mut().enumerate() {
            let from = Block::from_u32(from as u32);
            for &to in cfg.succs(from) {
                if !is_back(from, to) && !out.contains(&to) {
                    out.push(to);
                    backward[to.as_u32() as usize].push(from);
                }
            }
        }
        let labels = label(&cfg, &forward);
        ForwardReach {
            forward,
            backward,
            labels,
            back_edges,
        }
    }

    /// `fwdreaching(z)`, ascending by arena index (empty for blocks outside the
    /// body): a backward search over the forward edges, linear in the CFG.
    pub fn fwd_reaching(&self, z: Block) -> Vec<Block> {
        self.fwd_reaching_set(z)
            .map_or_else(Vec::new, |s| s.iter().collect())
    }

    /// `fwdreaching(z)` as a set.
    pub fn fwd_reaching_set(&self, z: Block) -> Option<BlockSet> {
        let preds = self.backward.get(z.as_u32() as usize)?;
        let mut set = BlockSet::with_capacity(self.backward.len());
        let mut stack: Vec<Block> = preds.clone();
        while let Some(a) = stack.pop() {
            if set.insert(a) {
                stack.extend(self.backward[a.as_u32() as usize].iter().copied());
            }
        }
        Some(set)
    }

    /// Whether `a ∈ fwdreaching(z)`: some non-empty path from `a` to `z` takes no
    /// back edge. Answered by the labels where they decide, otherwise by a search
    /// from `a` that skips every block whose labels exclude `z` (module doc).
    pub fn reaches(&self, a: Block, z: Block) -> bool {
        let (Some(from), Some(to)) = (
            self.labels.get(a.as_u32() as usize),
            self.labels.get(z.as_u32() as usize),
        ) else {
            return false;
        };
        match (*from, *to) {
            (Some(la), Some(lz)) => {
                if !la.may_reach(lz) {
                    return false;
                }
                if la.tree_ancestor_of(lz) {
                    return true;
                }
                self.search(a, |b| {
                    // Every block the entry reaches has labels; `b` is one.
                    let lb = self.labels[b.as_u32() as usize].unwrap_or(lz);
                    if b == z || lb.tree_ancestor_of(lz) {
                        Some(true)
                    } else if lb.may_reach(lz) {
                        None
                    } else {
                        Some(false)
                    }
                })
            }
            // The entry reaches `a`, so every block `a` reaches has labels.
            (Some(_), None) => false,
            // Unreachable blocks: a plain search (they may form cycles).
            (None, _) => self.search(a, |b| (b == z).then_some(true)),
        }
    }

    /// A search over the forward edges from the successors of `a`: `judge` says
    /// of each block met whether it answers the query (`Some(true)`), is a dead end
    /// (`Some(false)`), or is to be searched through (`None`).
    fn search(&self, a: Block, judge: impl Fn(Block) -> Option<bool>) -> bool {
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<Block> = self.forward[a.as_u32() as usize].clone();
        while let Some(b) = stack.pop() {
            match judge(b) {
                Some(true) => return true,
                Some(false) => {}
                None => {
                    if seen.insert(b) {
                        stack.extend(self.forward[b.as_u32() as usize].iter().copied());
                    }
                }
            }
        }
        false
    }

    /// The back edges this relation ignores (retreating edges of the documented
    /// DFS), each pair once, sorted.
    pub fn back_edges(&self) -> &[(Block, Block)] {
        &self.back_edges
    }

    /// The sources of the forward edges into `z`, each once.
    pub fn forward_preds(&self, z: Block) -> &[Block] {
        self.backward
            .get(z.as_u32() as usize)
            .map_or(&[], Vec::as_slice)
    }

    /// The forward edges (Def. 15: every edge but the back edges) out of `a`, each
    /// target once, in successor-index order.
    pub fn forward_succs(&self, a: Block) -> &[Block] {
        self.forward
            .get(a.as_u32() as usize)
            .map_or(&[], Vec::as_slice)
    }
}

/// The labels of the blocks the entry reaches: an iterative depth-first search
/// of the forward graph (acyclic on those blocks) from the entry.
fn label(cfg: &Cfg, forward: &[Vec<Block>]) -> Vec<Option<Labels>> {
    let len = cfg.len();
    let mut labels: Vec<Option<Labels>> = vec![None; len];
    if len == 0 {
        return labels;
    }
    let (mut pre, mut post) = (0u32, 0u32);
    let entry = cfg.entry();
    let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
    labels[entry.as_u32() as usize] = Some(Labels {
        pre,
        post: u32::MAX,
        low: u32::MAX,
    });
    pre += 1;
    while let Some(top) = stack.last_mut() {
        let (b, next) = *top;
        match forward[b.as_u32() as usize].get(next) {
            Some(&s) => {
                top.1 += 1;
                if labels[s.as_u32() as usize].is_none() {
                    labels[s.as_u32() as usize] = Some(Labels {
                        pre,
                        post: u32::MAX,
                        low: u32::MAX,
                    });
                    pre += 1;
                    stack.push((s, 0));
                }
            }
            None => {
                stack.pop();
                // Acyclic: every forward successor finished before `b`.
                let low = forward[b.as_u32() as usize]
                    .iter()
                    .filter_map(|s| labels[s.as_u32() as usize].map(|l| l.low))
                    .fold(post, u32::min);
                if let Some(l) = labels[b.as_u32() as usize].as_mut() {
                    l.post = post;
                    l.low = low;
                }
                post += 1;
            }
        }
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{blk, graph_body, names};

    /// The relation as the old all-pairs table computed it (Def. 16 as a
    /// fixpoint over predecessors): `table[z]` is `fwdreaching(z)`.
    fn all_pairs(body: &Body) -> Vec<BlockSet> {
        let cfg = Cfg::new(body);
        let len = cfg.len();
        let back_edges = cfg.retreating_edges();
        let mut sets = vec![BlockSet::with_capacity(len); len];
        let mut changed = true;
        while changed {
            changed = false;
            for z in (0..len as u32).map(Block::from_u32) {
                for &p in cfg.preds(z) {
                    if back_edges.binary_search(&(p, z)).is_ok() {
                        continue;
                    }
                    let mut incoming = sets[p.as_u32() as usize].clone();
                    incoming.insert(p);
                    changed |= sets[z.as_u32() as usize].union_with(&incoming);
                }
            }
        }
        sets
    }

    /// Every query and every `fwdreaching` list agrees with [`all_pairs`].
    fn same_as_all_pairs(body: &Body) {
        let reach = ForwardReach::compute(body);
        let table = all_pairs(body);
        let len = table.len() as u32;
        for z in (0..len).map(Block::from_u32) {
            let want: Vec<Block> = table[z.as_u32() as usize].iter().collect();
            assert_eq!(reach.fwd_reaching(z), want, "fwdreaching({z:?})");
            for a in (0..len).map(Block::from_u32) {
                assert_eq!(
                    reach.reaches(a, z),
                    table[z.as_u32() as usize].contains(a),
                    "reaches({a:?}, {z:?})"
                );
            }
        }
    }

    fn check(spec: &str, expect: &[(&str, &[&str])]) {
        let body = graph_body(spec);
        same_as_all_pairs(&body);
        let reach = ForwardReach::compute(&body);
        for &(z, want) in expect {
            let got = names(&body, reach.fwd_reaching(blk(&body, z)).iter().copied());
            let mut got_sorted = got.clone();
            got_sorted.sort();
            assert_eq!(got_sorted, want, "fwdreaching({z}) in {spec}");
            for a in want {
                assert!(reach.reaches(blk(&body, a), blk(&body, z)));
            }
        }
    }

    #[test]
    fn diamond() {
        check(
            "A: B C; B: D; C: D; D:",
            &[("A", &[]), ("B", &["A"]), ("D", &["A", "B", "C"])],
        );
    }

    #[test]
    fn loops_do_not_reach_back() {
        // E → H → B → {H, X}: the latch B does not forward-reach H, H not itself.
        check(
            "E: H; H: B; B: H X; X:",
            &[("H", &["E"]), ("B", &["E", "H"]), ("X", &["B", "E", "H"])],
        );
        check("E: H; H: H X; X:", &[("H", &["E"]), ("X", &["E", "H"])]);
    }

    #[test]
    fn irreducible_uses_the_documented_dfs() {
        // A → {B, C}, B ⇄ C: the DFS visits B first, so C → B is retreating.
        check(
            "A: B C; B: C; C: B D; D:",
            &[("B", &["A"]), ("C", &["A", "B"])],
        );
    }

    #[test]
    fn labels_agree_with_the_all_pairs_table() {
        for spec in [
            "A: B C; B: D; C: D; D:",
            "A: B C; B: D E; C: E F; D: G; E: G; F: G; G:",
            "A: B; B: C D; C: B; D: E F; E: D; F:",
            "A: B C; B: C; C: B D; D:",
            // Unreachable blocks with a cycle and an edge into the reachable part.
            "A: B; B:; U: V; V: U B",
            "A: A B; B: C; C: B D; D: A",
            "A: B C D; B: E; C: E; D: F; E: F G; F: G; G: H; H: C",
        ] {
            same_as_all_pairs(&graph_body(spec));
        }
    }

    #[test]
    fn a_long_chain_is_stored_in_linear_space() {
        // 3000 blocks in a line: the old table held 4.5 million pairs.
        let n = 3000;
        let names: Vec<String> = (0..n).map(|k| format!("b{k}")).collect();
        let succs: Vec<Vec<usize>> = (0..n)
            .map(|k| if k + 1 < n { vec![k + 1] } else { vec![] })
            .collect();
        let body = crate::test_util::test_body(&crate::skeleton::skeleton_text(&names, &succs));
        let reach = ForwardReach::compute(&body);
        let stored: usize = reach
            .forward
            .iter()
            .chain(&reach.backward)
            .map(Vec::len)
            .sum();
        assert_eq!(stored, 2 * (n - 1));
        assert!(reach.reaches(Block::from_u32(0), Block::from_u32(n as u32 - 1)));
        assert!(!reach.reaches(Block::from_u32(n as u32 - 1), Block::from_u32(0)));
        assert_eq!(
            reach.fwd_reaching(Block::from_u32(n as u32 - 1)).len(),
            n - 1
        );
    }
}
