//! Control dependence, `cdepB` and `cdep_on` (thesis §2.3, after Ferrante et al.
//! 1987 and Cytron et al. 1991).
//!
//! `k` is control dependent on the edge `a → b` iff `k ⪰PD b` and `k ⋡PD a`. The
//! thesis uses the reflexive post-dominance in the second premise, so a block is
//! never control dependent on an edge out of itself (a loop header is not control
//! dependent on its own exit branch; Ferrante's strict variant would say it is).
//! The set of such `k` for one edge is the post-dominator-tree path from `b` up to,
//! not including, the immediate post-dominator of `a`, without `a` itself.

use crate::postdom::PostDomTree;
use crate::tables::BlockMap;
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::{Block, Body};

/// `cdepB(k)` for every block `k` (§2.3): the blocks `a` with an edge `a → b` that
/// `k` is control dependent on, ascending and without duplicates.
pub fn control_dependence(body: &Body, pdt: &PostDomTree) -> BlockMap<Vec<Block>> {
    let cfg = Cfg::new(body);
    let mut cdep: BlockMap<Vec<Block>> = BlockMap::filled(cfg.len(), Vec::new());
    for a in (0..cfg.len() as u32).map(Block::from_u32) {
        let stop = pdt.ipdom(a);
        for &b in cfg.succs(a) {
            // Walk b, ipdom(b), ... up to (excluding) ipdom(a); None is the exit.
            let mut runner = Some(b);
            while let Some(k) = runner {
                if Some(k) == stop {
                    break;
                }
                if k != a {
                    cdep[k].push(a);
                }
                runner = pdt.ipdom(k);
            }
        }
    }
    for k in (0..cfg.len() as u32).map(Block::from_u32) {
        cdep[k].sort_unstable();
        cdep[k].dedup();
    }
    cdep
}

/// `cdep_on(b)` for every block `b` (§2.3): the blocks control dependent on `b`,
/// the inverse of [`control_dependence`], ascending.
pub fn cdep_on(cdep: &BlockMap<Vec<Block>>) -> BlockMap<Vec<Block>> {
    let mut inverse: BlockMap<Vec<Block>> = BlockMap::default();
    for (k, sources) in cdep.iter() {
        for &a in sources {
            inverse[a].push(k);
        }
    }
    inverse
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{blk, graph_body, names};

    /// Checks `cdepB` of every block of `spec` against `expect` (block, cdepB) and
    /// against §2.3 evaluated by brute force over all edges.
    fn check(spec: &str, expect: &[(&str, &[&str])]) {
        let body = graph_body(spec);
        let pdt = PostDomTree::compute(&body);
        let cdep = control_dependence(&body, &pdt);
        for &(block, want) in expect {
            assert_eq!(
                names(&body, cdep[blk(&body, block)].clone()),
                want,
                "cdepB({block})"
            );
        }
        let cfg = Cfg::new(&body);
        for &k in &body.layout {
            let mut brute: Vec<Block> = Vec::new();
            for &a in &body.layout {
                for &b in cfg.succs(a) {
                    if pdt.post_dominates(k, b) && !pdt.post_dominates(k, a) {
                        brute.push(a);
                    }
                }
            }
            brute.sort_unstable();
            brute.dedup();
            assert_eq!(cdep[k], brute, "cdepB({k:?}) by definition");
        }
        let on = cdep_on(&cdep);
        for &k in &body.layout {
            for &a in &cdep[k] {
                assert!(on[a].contains(&k));
            }
        }
    }

    #[test]
    fn diamond() {
        check(
            "A: B C; B: D; C: D; D:",
            &[("A", &[]), ("B", &["A"]), ("C", &["A"]), ("D", &[])],
        );
    }

    #[test]
    fn while_loop_header_is_not_self_dependent() {
        // E → H, H → {B, X}, B → H: B depends on H; H on nothing (reflexive ⋡PD).
        check(
            "E: H; H: B X; B: H; X:",
            &[("H", &[]), ("B", &["H"]), ("X", &[])],
        );
    }

    #[test]
    fn do_while_loop() {
        // H → L, L → {H, X}: H and L depend on the latch's branch.
        check(
            "E: H; H: L; L: H X; X:",
            &[("H", &["L"]), ("L", &[]), ("X", &[])],
        );
    }

    #[test]
    fn nested_and_switch() {
        check(
            "A: B C D; B: E; C: E; D: F; E: F G; F:; G: F",
            &[("B", &["A"]), ("E", &["A"]), ("G", &["E"]), ("F", &[])],
        );
    }
}
