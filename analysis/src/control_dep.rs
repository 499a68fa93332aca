//! Control dependence, `cdepB` and `cdep_on` (thesis §2.3, after Ferrante et al.
//! 1987 and Cytron et al. 1991).
//!
//! `k` is control dependent on the edge `a → b` iff `k ⪰PD b` and `k ⋡PD a`. The
//! thesis uses the reflexive post-dominance in the second premise, so a block is
//! never control dependent on an edge out of itself (a loop header is not control
//! dependent on its own exit branch; Ferrante's strict variant would say it is).
//! The set of such `k` for one edge is the post-dominator-tree path from `b` up to,
//! not including, the immediate post-dominator of `a`, without `a` itself.
//!
//! [`control_dependence`] stores the relation explicitly, which costs d^2 pairs
//! for a nest of d loops (every block of the nest depends on every latch around
//! it). The analyses only need its transitive closure from the blocks they find
//! divergent (`cdep*`, Listing 3, line 26); [`PathMarks`] walks those tree paths
//! with the blocks already in the closure skipped, so that the closure costs
//! time near-linear in the blocks and edges, however many pairs the relation has.

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

/// A rooted tree given by parent pointers whose nodes get *marked* one by one
/// (the blocks already in a closed set), answering "the unmarked nodes on the path
/// from `from` up to, not including, its ancestor `stop`" in time proportional to
/// their number, plus the two ends.
///
/// Marked nodes are skipped with a union-find: `next[x]` is `x` while `x` is
/// unmarked, and once `x` is marked a node further up its path, at most as high
/// as the nearest unmarked ancestor of `x` (path halving keeps the chains short).
/// Proof sketch: marking `x` sets `next[x] = parent(x)`, so following `next` from
/// any node climbs only through marked nodes and stops at the first unmarked one;
/// halving replaces `next[y]` by `next[next[y]]`, which is still on the path and
/// not above that node. `climb` stops at the first unmarked node whose depth is not
/// below `stop`'s, which is right when `stop` is an ancestor of `from`: the nodes it
/// skips are all marked. Each node is marked once, so a sequence of climbs costs
/// O((n + climbs) α(n)) finds in all (Tarjan's union-find with path compression
/// over the tree's paths).
#[derive(Clone, Debug)]
pub struct PathMarks {
    /// Parent of each node; a root is its own parent.
    parent: Vec<u32>,
    /// Depth of each node (a root, or a node without parent, has depth 0).
    depth: Vec<u32>,
    /// The union-find link: `next[x] == x` iff `x` is unmarked.
    next: Vec<u32>,
    /// Finds followed (each a step of the union-find), for work bounds in tests.
    steps: u64,
}

impl PathMarks {
    /// The tree with `parent[x]` the parent of node `x` (`None`: a root), nothing
    /// marked.
    pub fn new(parent: &[Option<u32>]) -> PathMarks {
        let n = parent.len();
        let parent: Vec<u32> = parent
            .iter()
            .enumerate()
            .map(|(x, p)| p.unwrap_or(x as u32))
            .collect();
        // Depths without recursion: climb to a node of known depth, then assign
        // on the way back down.
        const UNKNOWN: u32 = u32::MAX;
        let mut depth = vec![UNKNOWN; n];
        let mut path = Vec::new();
        for x in 0..n {
            let mut y = x;
            while depth[y] == UNKNOWN {
                let p = parent[y] as usize;
                if p == y {
                    depth[y] = 0;
                    break;
                }
                path.push(y);
                y = p;
            }
            let mut d = depth[y];
            while let Some(z) = path.pop() {
                d += 1;
                depth[z] = d;
            }
        }
        PathMarks {
            next: (0..n as u32).collect(),
            parent,
            depth,
            steps: 0,
        }
    }

    /// Whether `x` is marked.
    pub fn is_marked(&self, x: u32) -> bool {
        self.next[x as usize] != x
    }

    /// Marks `x` (a root stays unmarked: there is nothing above it to skip to).
    pub fn mark(&mut self, x: u32) {
        self.next[x as usize] = self.parent[x as usize];
    }

    /// The nearest unmarked node on the path from `x` upward (`x` itself if it is
    /// unmarked).
    fn find(&mut self, mut x: u32) -> u32 {
        loop {
            self.steps += 1;
            let up = self.next[x as usize];
            if up == x {
                return x;
            }
            let upper = self.next[up as usize];
            self.next[x as usize] = upper;
            x = upper;
        }
    }

    /// Calls `visit` on each unmarked node of the path from `from` up to, not
    /// including, `stop` (`None`: up to and not including a root), bottom up,
    /// except `skip`, stopping early when `visit` returns `false`. `stop` must be
    /// an ancestor of `from`, or `None`. `visit` may mark the node it is given (so
    /// later climbs skip it) and only that one.
    pub fn climb(
        &mut self,
        from: u32,
        stop: Option<u32>,
        skip: u32,
        mut visit: impl FnMut(&mut PathMarks, u32) -> bool,
    ) {
        let floor = stop.map_or(0, |s| self.depth[s as usize] + 1);
        let mut x = self.find(from);
        while self.depth[x as usize] >= floor && self.parent[x as usize] != x {
            if x != skip && !visit(self, x) {
                return;
            }
            x = self.parent[x as usize];
            x = self.find(x);
        }
    }

    /// Union-find steps taken so far (tests bound them).
    pub fn steps(&self) -> u64 {
        self.steps
    }
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
