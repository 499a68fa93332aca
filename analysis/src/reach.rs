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
//! blocks the entry cannot reach are all kept (no DFS classifies them); the
//! fixpoint below handles the cycles they may form.

use crate::BlockSet;
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::{Block, Body};

/// `fwdreaching(z)` for every block `z` (Def. 16).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForwardReach {
    sets: Vec<BlockSet>,
    lists: Vec<Vec<Block>>,
    back_edges: Vec<(Block, Block)>,
}

impl ForwardReach {
    /// Forward reachability of `body`.
    pub fn compute(body: &Body) -> Self {
        let cfg = Cfg::new(body);
        let len = cfg.len();
        let back_edges = cfg.retreating_edges();
        let is_back = |x: Block, y: Block| back_edges.binary_search(&(x, y)).is_ok();
        let mut sets = vec![BlockSet::with_capacity(len); len];
        // Reverse postorder makes one sweep enough on the reachable part; the loop
        // repeats only for cycles among unreachable blocks.
        let mut order = cfg.reverse_postorder();
        let mut seen = vec![false; len];
        for &b in &order {
            seen[b.0 as usize] = true;
        }
        order.extend((0..len as u32).map(Block).filter(|b| !seen[b.0 as usize]));
        let mut changed = true;
        while changed {
            changed = false;
            for &z in &order {
                for &p in cfg.preds(z) {
                    if is_back(p, z) {
                        continue;
                    }
                    let mut incoming = sets[p.0 as usize].clone();
                    incoming.insert(p);
                    changed |= sets[z.0 as usize].union_with(&incoming);
                }
            }
        }
        let lists = sets.iter().map(|s| s.iter().collect()).collect();
        ForwardReach {
            sets,
            lists,
            back_edges,
        }
    }

    /// `fwdreaching(z)`, ascending by arena index (empty for blocks outside the body).
    pub fn fwd_reaching(&self, z: Block) -> &[Block] {
        self.lists.get(z.0 as usize).map_or(&[], Vec::as_slice)
    }

    /// `fwdreaching(z)` as a set.
    pub fn fwd_reaching_set(&self, z: Block) -> Option<&BlockSet> {
        self.sets.get(z.0 as usize)
    }

    /// Whether `a ∈ fwdreaching(z)`: some non-empty path from `a` to `z` takes no
    /// back edge.
    pub fn reaches(&self, a: Block, z: Block) -> bool {
        self.sets.get(z.0 as usize).is_some_and(|s| s.contains(a))
    }

    /// The back edges this relation ignores (retreating edges of the documented
    /// DFS), each pair once, sorted.
    pub fn back_edges(&self) -> &[(Block, Block)] {
        &self.back_edges
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{blk, graph_body, names};

    fn check(spec: &str, expect: &[(&str, &[&str])]) {
        let body = graph_body(spec);
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
}
