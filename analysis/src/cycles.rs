//! The cycle hierarchy of any CFG, as LLVM's "Convergence and Uniformity" uses it
//! (its "cycle terminology": cycles, entries, headers, child cycles, reducible
//! cycles), built from one depth-first search the way LLVM's `GenericCycleInfo`
//! does, and the enumeration of every hierarchy a DFS can produce for small CFGs.
//!
//! # Definitions
//! - An outermost *cycle* is a maximal strongly connected set of nodes with at least
//!   one edge inside it. Its *entries* are its nodes with a predecessor outside it
//!   (the function entry counts as entered from outside); its *header* is one entry,
//!   chosen by the DFS: the first entry the search reaches.
//! - The *child cycles* of a cycle `C` with header `H` are the cycles of the
//!   subgraph `C - H`, found recursively the same way.
//! - A cycle is *reducible* when it has a single entry (its header).
//!
//! # The search (pllvm's construction)
//! Nodes are taken in reverse DFS preorder. A node `H` with a retreating edge
//! `P → H` (`P` a DFS descendant of `H`, `H` itself included) heads a cycle: walking
//! predecessors backwards from each such `P` without leaving the DFS subtree of `H`
//! collects the cycle; a node that already belongs to a cycle brings its outermost
//! cycle along as a child. Since later headers in preorder are handled first, every
//! inner cycle exists before its parent. Which DFS is used decides the headers of
//! irreducible cycles. Two orders have names ([`DfsOrder`]): LLVM's
//! (`GenericCycleInfoCompute::dfs` appends a block's successors to its stack and
//! takes the last one first, so it visits them in *reverse* successor order:
//! [`CycleInfo::of_graph_in`] with [`DfsOrder::Llvm`], the default of the `llvm`
//! analysis), and the documented DFS of [`pllvm_semantics::cfg::dfs`] (successors
//! in successor-index order: [`CycleInfo::compute`], [`CycleInfo::of_graph`], the
//! convergence tables of the corpus). [`all_hierarchies`] varies the successor
//! order of every node.

use pllvm_semantics::cfg::{Cfg, Graph, dfs};
use pllvm_semantics::ir::{Block, Body};
use std::collections::{BTreeSet, VecDeque};

/// The id of one cycle of a [`CycleInfo`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CycleId(pub u32);

/// One cycle of the hierarchy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// The header: the first entry the DFS reached.
    pub header: u32,
    /// The entries, header first, then in DFS preorder.
    pub entries: Vec<u32>,
    /// Every node of the cycle (nested cycles included), ascending.
    pub nodes: Vec<u32>,
    /// The enclosing cycle, `None` for an outermost cycle.
    pub parent: Option<CycleId>,
    /// The child cycles, in the order they were found.
    pub children: Vec<CycleId>,
    /// 1 for an outermost cycle, the parent's depth plus one otherwise.
    pub depth: u32,
}

impl Cycle {
    /// Whether the cycle has a single entry.
    pub fn is_reducible(&self) -> bool {
        self.entries.len() == 1
    }

    /// Whether `node` is in the cycle.
    pub fn contains(&self, node: u32) -> bool {
        self.nodes.binary_search(&node).is_ok()
    }
}

/// Which depth-first search picks the headers of irreducible cycles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DfsOrder {
    /// LLVM's `CycleInfo`: successors in reverse successor order (the last
    /// successor is pushed last and taken first).
    #[default]
    Llvm,
    /// The documented DFS: successors in successor-index order.
    Index,
}

impl DfsOrder {
    /// The name `--cycle-order` takes.
    pub fn name(self) -> &'static str {
        match self {
            DfsOrder::Llvm => "llvm",
            DfsOrder::Index => "index",
        }
    }

    /// The order named `name` (`llvm` or `index`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "llvm" => Some(DfsOrder::Llvm),
            "index" => Some(DfsOrder::Index),
            _ => None,
        }
    }
}

/// The cycle hierarchy of a graph for one DFS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleInfo {
    cycles: Vec<Cycle>,
    innermost: Vec<Option<CycleId>>,
}

impl CycleInfo {
    /// The hierarchy of `body`'s CFG for the documented DFS from the entry.
    pub fn compute(body: &Body) -> Self {
        let cfg = Cfg::new(body);
        CycleInfo::of_graph(cfg.graph(), cfg.entry().as_u32())
    }

    /// The hierarchy of the nodes `root` reaches in `graph` for the DFS `order`.
    pub fn of_graph_in(graph: &Graph, root: u32, order: DfsOrder) -> Self {
        match order {
            DfsOrder::Index => CycleInfo::of_graph(graph, root),
            DfsOrder::Llvm => {
                let reversed: Vec<Vec<u32>> = (0..graph.len() as u32)
                    .map(|v| graph.successors(v).iter().rev().copied().collect())
                    .collect();
                CycleInfo::of_graph(&Graph::from_succs(reversed), root)
            }
        }
    }

    /// The hierarchy of the nodes `root` reaches in `graph`, for the DFS that
    /// visits successors in list order.
    pub fn of_graph(graph: &Graph, root: u32) -> Self {
        let n = graph.len();
        let search = dfs(graph, root);
        let mut pre = vec![u32::MAX; n];
        for (i, &v) in search.preorder.iter().enumerate() {
            pre[v as usize] = i as u32;
        }
        // size[v]: nodes in v's DFS subtree; the subtree is the preorder interval.
        let mut size = vec![1u32; n];
        for &v in &search.postorder {
            if let Some(p) = search.parent[v as usize] {
                size[p as usize] += size[v as usize];
            }
        }
        let in_subtree = |h: u32, v: u32| {
            let (ph, pv) = (pre[h as usize], pre[v as usize]);
            pv != u32::MAX && pv >= ph && pv < ph + size[h as usize]
        };
        let mut info = CycleInfo {
            cycles: Vec::new(),
            innermost: vec![None; n],
        };
        for &h in search.preorder.iter().rev() {
            let latches: Vec<u32> = graph
                .predecessors(h)
                .iter()
                .copied()
                .filter(|&p| in_subtree(h, p))
                .collect();
            if latches.is_empty() {
                continue;
            }
            let id = CycleId(info.cycles.len() as u32);
            let mut members: BTreeSet<u32> = BTreeSet::from([h]);
            let mut children = Vec::new();
            let mut work: VecDeque<u32> = latches.into_iter().collect();
            while let Some(v) = work.pop_front() {
                if members.contains(&v) {
                    continue;
                }
                if let Some(inner) = info.innermost[v as usize] {
                    let top = info.outermost_from(inner);
                    if top == id {
                        continue;
                    }
                    info.cycles[top.0 as usize].parent = Some(id);
                    children.push(top);
                    for &m in &info.cycles[top.0 as usize].nodes {
                        members.insert(m);
                        work.extend(
                            graph
                                .predecessors(m)
                                .iter()
                                .copied()
                                .filter(|&p| in_subtree(h, p)),
                        );
                    }
                    continue;
                }
                members.insert(v);
                work.extend(
                    graph
                        .predecessors(v)
                        .iter()
                        .copied()
                        .filter(|&p| in_subtree(h, p)),
                );
            }
            let mut entries: Vec<u32> = members
                .iter()
                .copied()
                .filter(|&v| {
                    v != h
                        && graph
                            .predecessors(v)
                            .iter()
                            .any(|&p| pre[p as usize] != u32::MAX && !members.contains(&p))
                })
                .collect();
            entries.sort_by_key(|&v| pre[v as usize]);
            entries.insert(0, h);
            for &m in &members {
                if info.innermost[m as usize].is_none() {
                    info.innermost[m as usize] = Some(id);
                }
            }
            info.cycles.push(Cycle {
                header: h,
                entries,
                nodes: members.into_iter().collect(),
                parent: None,
                children,
                depth: 0,
            });
        }
        // Depths, outermost first: a parent always has a larger id than its children.
        for i in (0..info.cycles.len()).rev() {
            let depth = info.cycles[i]
                .parent
                .map_or(1, |p| info.cycles[p.0 as usize].depth + 1);
            info.cycles[i].depth = depth;
        }
        info
    }

    fn outermost_from(&self, mut c: CycleId) -> CycleId {
        while let Some(p) = self.cycles[c.0 as usize].parent {
            c = p;
        }
        c
    }

    /// Every cycle id.
    pub fn ids(&self) -> impl Iterator<Item = CycleId> + '_ {
        (0..self.cycles.len() as u32).map(CycleId)
    }

    /// The cycle `id`.
    pub fn cycle(&self, id: CycleId) -> &Cycle {
        &self.cycles[id.0 as usize]
    }

    /// The number of cycles.
    pub fn len(&self) -> usize {
        self.cycles.len()
    }

    /// Whether the graph has no cycle.
    pub fn is_empty(&self) -> bool {
        self.cycles.is_empty()
    }

    /// The innermost cycle containing `node`, if any.
    pub fn innermost(&self, node: u32) -> Option<CycleId> {
        self.innermost.get(node as usize).copied().flatten()
    }

    /// The cycles containing `node`, innermost first.
    pub fn cycles_containing(&self, node: u32) -> Vec<CycleId> {
        let mut out = Vec::new();
        let mut c = self.innermost(node);
        while let Some(id) = c {
            out.push(id);
            c = self.cycle(id).parent;
        }
        out
    }

    /// Whether `node` is a top-level node (in no cycle).
    pub fn is_top_level(&self, node: u32) -> bool {
        self.innermost(node).is_none()
    }

    /// The outermost cycles.
    pub fn top_level(&self) -> Vec<CycleId> {
        self.ids()
            .filter(|&c| self.cycle(c).parent.is_none())
            .collect()
    }

    /// The exits of `id`: nodes outside it with a predecessor inside, ascending.
    pub fn exits(&self, graph: &Graph, id: CycleId) -> Vec<u32> {
        let c = self.cycle(id);
        let mut out: BTreeSet<u32> = BTreeSet::new();
        for &v in &c.nodes {
            for &s in graph.successors(v) {
                if !c.contains(s) {
                    out.insert(s);
                }
            }
        }
        out.into_iter().collect()
    }

    /// A canonical description independent of cycle ids: each cycle as (header,
    /// entries, nodes, parent's header), sorted. Two hierarchies are the same iff
    /// their shapes are equal.
    pub fn shape(&self) -> Vec<HierarchyCycle> {
        let mut out: Vec<HierarchyCycle> = self
            .cycles
            .iter()
            .map(|c| HierarchyCycle {
                header: c.header,
                entries: {
                    let mut e = c.entries.clone();
                    e.sort_unstable();
                    e
                },
                nodes: c.nodes.clone(),
                parent_header: c.parent.map(|p| self.cycle(p).header),
            })
            .collect();
        out.sort();
        out
    }

    /// [`CycleInfo::innermost`] for a block.
    pub fn innermost_block(&self, block: Block) -> Option<CycleId> {
        self.innermost(block.as_u32())
    }
}

/// One cycle of [`CycleInfo::shape`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HierarchyCycle {
    /// Header.
    pub header: u32,
    /// Entries, ascending.
    pub entries: Vec<u32>,
    /// Nodes, ascending.
    pub nodes: Vec<u32>,
    /// The parent's header.
    pub parent_header: Option<u32>,
}

/// Every distinct hierarchy a DFS from `root` can produce: the successor list of
/// every node is permuted in every way (at most `limit` orders are tried, so the
/// enumeration is complete only for small CFGs; the second result says whether it
/// was). The hierarchies come back in the order found, the documented DFS's first.
pub fn all_hierarchies(graph: &Graph, root: u32, limit: usize) -> (Vec<CycleInfo>, bool) {
    let base: Vec<Vec<u32>> = (0..graph.len() as u32)
        .map(|v| {
            let mut s: Vec<u32> = graph.successors(v).to_vec();
            let mut seen = BTreeSet::new();
            s.retain(|x| seen.insert(*x));
            s
        })
        .collect();
    let perms: Vec<Vec<Vec<u32>>> = base.iter().map(|s| permutations(s)).collect();
    let total: usize = perms
        .iter()
        .try_fold(1usize, |acc, p| acc.checked_mul(p.len().max(1)))
        .unwrap_or(usize::MAX);
    let complete = total <= limit;
    let mut seen: BTreeSet<Vec<HierarchyCycle>> = BTreeSet::new();
    let mut out = Vec::new();
    let documented = CycleInfo::of_graph(graph, root);
    seen.insert(documented.shape());
    out.push(documented);
    let mut choice = vec![0usize; base.len()];
    for _ in 0..total.min(limit) {
        let succs: Vec<Vec<u32>> = choice
            .iter()
            .enumerate()
            .map(|(v, &k)| perms[v].get(k).cloned().unwrap_or_default())
            .collect();
        let info = CycleInfo::of_graph(&Graph::from_succs(succs), root);
        if seen.insert(info.shape()) {
            out.push(info);
        }
        // Next choice (mixed-radix counter).
        for (v, k) in choice.iter_mut().enumerate() {
            *k += 1;
            if *k < perms[v].len() {
                break;
            }
            *k = 0;
        }
    }
    (out, complete)
}

fn permutations(items: &[u32]) -> Vec<Vec<u32>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{blk, graph_body};
    use proptest::prelude::*;

    fn info_of(spec: &str) -> (Body, CycleInfo) {
        let body = graph_body(spec);
        let info = CycleInfo::compute(&body);
        (body, info)
    }

    /// `opt-22 -passes='print<cycles>'` on `entry: br %c, a, b; a: br b; b: br %d,
    /// a, x` prints `depth=1: entries(b a)`: LLVM's DFS takes `entry`'s last
    /// successor first, so `b` heads the irreducible cycle; the documented DFS
    /// reaches `a` first.
    #[test]
    fn llvm_order_picks_the_header_opt_prints() {
        let body = graph_body("entry: a b; a: b; b: a x; x:");
        let cfg = Cfg::new(&body);
        let root = cfg.entry().as_u32();
        let header = |order| {
            let info = CycleInfo::of_graph_in(cfg.graph(), root, order);
            let c = &info.cycles[0];
            (
                name(&body, c.header),
                c.entries
                    .iter()
                    .map(|&e| name(&body, e))
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            header(DfsOrder::Llvm),
            ("b".to_string(), vec!["b".to_string(), "a".to_string()])
        );
        assert_eq!(
            header(DfsOrder::Index),
            ("a".to_string(), vec!["a".to_string(), "b".to_string()])
        );
    }

    fn name(body: &Body, n: u32) -> String {
        body.blocks[Block::from_u32(n)].name.clone()
    }

    fn describe(body: &Body, info: &CycleInfo) -> Vec<String> {
        let mut out: Vec<String> = info
            .ids()
            .map(|c| {
                let cy = info.cycle(c);
                let nodes: Vec<String> = cy.nodes.iter().map(|&n| name(body, n)).collect();
                let entries: Vec<String> = cy.entries.iter().map(|&n| name(body, n)).collect();
                format!(
                    "{} d{} entries[{}] nodes[{}]",
                    name(body, cy.header),
                    cy.depth,
                    entries.join(" "),
                    nodes.join(" ")
                )
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn natural_loop_is_one_reducible_cycle() {
        let (body, info) = info_of("E: H; H: B X; B: H; X:");
        assert_eq!(describe(&body, &info), ["H d1 entries[H] nodes[H B]"]);
        assert!(info.cycle(CycleId(0)).is_reducible());
        assert!(info.is_top_level(blk(&body, "E").as_u32()));
    }

    // The document's figure of the closed path P -> Q -> R -> S: Entry branches to
    // P and R; Q branches to R and S; S goes back to P. The documented DFS goes
    // Entry, P, Q, R, S, so P is the header; S -> P closes the outer cycle and
    // there is no child (R, S do not form a cycle without P).
    #[test]
    fn closed_path_with_two_entries_gets_the_first_reached_as_header() {
        let (body, info) = info_of("Entry: P R; P: Q; Q: R S; R: S; S: P X; X:");
        assert_eq!(describe(&body, &info), ["P d1 entries[P R] nodes[P Q R S]"]);
        assert!(!info.cycle(CycleId(0)).is_reducible());
        // With Entry's successors swapped R is reached first and heads the cycle,
        // and C - R holds the child cycle P -> Q -> S with header S (the document's
        // "child cycle C' ... containing both branch Q and join S").
        let (body2, info2) = info_of("Entry: R P; R: S; P: Q; Q: R S; S: P X; X:");
        assert_eq!(
            describe(&body2, &info2),
            [
                "R d1 entries[R P] nodes[R P Q S]",
                "S d2 entries[S P] nodes[P Q S]",
            ]
        );
    }

    // The document's nested irreducible cycles with headers R and S: Entry
    // branches into R and into the inner cycle at P; R -> S; S -> P; P -> Q;
    // Q -> S or R (Q divergent); S -> Exit. The outer cycle has header R (first
    // entry the DFS reaches), the inner cycle in {P, Q, S} has header S.
    #[test]
    fn nested_irreducible_cycles_with_headers_r_and_s() {
        let (body, info) = info_of("Entry: R P; R: S; S: P Exit; P: Q; Q: S R; Exit:");
        assert_eq!(
            describe(&body, &info),
            [
                "R d1 entries[R P] nodes[R S P Q]",
                "S d2 entries[S P] nodes[S P Q]",
            ]
        );
        let all = all_hierarchies(&Graph::from_succs(succs_of(&body)), 0, 10_000);
        assert!(all.1);
        // The DFS may also enter at P first: then P heads the outer cycle.
        let headers: BTreeSet<u32> = all
            .0
            .iter()
            .flat_map(|h| h.top_level().into_iter().map(|c| h.cycle(c).header))
            .collect();
        assert_eq!(
            headers,
            BTreeSet::from([blk(&body, "R").as_u32(), blk(&body, "P").as_u32()])
        );
    }

    fn succs_of(body: &Body) -> Vec<Vec<u32>> {
        let cfg = Cfg::new(body);
        cfg.graph().succs.clone()
    }

    /// Whether `nodes` is strongly connected in `graph` restricted to `nodes`.
    fn strongly_connected(graph: &Graph, nodes: &[u32]) -> bool {
        let set: BTreeSet<u32> = nodes.iter().copied().collect();
        let reach = |fwd: bool| {
            let mut seen = BTreeSet::from([nodes[0]]);
            let mut work = vec![nodes[0]];
            while let Some(v) = work.pop() {
                let next = if fwd {
                    graph.successors(v)
                } else {
                    graph.predecessors(v)
                };
                for &w in next {
                    if set.contains(&w) && seen.insert(w) {
                        work.push(w);
                    }
                }
            }
            seen.len() == set.len()
        };
        reach(true) && reach(false)
    }

    fn check_hierarchy(graph: &Graph, info: &CycleInfo) -> Result<(), String> {
        for c in info.ids() {
            let cy = info.cycle(c);
            if !strongly_connected(graph, &cy.nodes) {
                return Err(format!("cycle {:?} is not strongly connected", cy.nodes));
            }
            // An edge inside (a one-node cycle needs its self-loop).
            if cy.nodes.len() == 1 && !graph.successors(cy.header).contains(&cy.header) {
                return Err("a one-node cycle without a self-loop".into());
            }
            if cy.entries.first() != Some(&cy.header) {
                return Err("the header is not the first entry".into());
            }
            for &e in &cy.entries {
                let outside = graph.predecessors(e).iter().any(|p| !cy.contains(*p));
                if !outside && e != 0 {
                    return Err(format!("entry {e} has no predecessor outside"));
                }
            }
            match cy.parent {
                Some(p) => {
                    let pc = info.cycle(p);
                    if cy.nodes.iter().any(|v| !pc.contains(*v)) || cy.contains(pc.header) {
                        return Err(
                            "a child is not inside its parent minus the parent's header".into()
                        );
                    }
                    if pc.depth + 1 != cy.depth || !pc.children.contains(&c) {
                        return Err("parent and child disagree".into());
                    }
                }
                None => {
                    if cy.depth != 1 {
                        return Err("outermost cycle of depth other than 1".into());
                    }
                }
            }
            // Siblings are disjoint.
            for &a in &cy.children {
                for &b in &cy.children {
                    if a < b
                        && info
                            .cycle(a)
                            .nodes
                            .iter()
                            .any(|v| info.cycle(b).contains(*v))
                    {
                        return Err("sibling cycles overlap".into());
                    }
                }
            }
        }
        Ok(())
    }

    fn arb_graph() -> impl Strategy<Value = Vec<Vec<u32>>> {
        (1usize..7).prop_flat_map(|n| {
            proptest::collection::vec(proptest::collection::vec(0..n as u32, 0..3), n)
        })
    }

    proptest! {
        #[test]
        fn every_hierarchy_is_a_tree_of_strongly_connected_cycles(succs in arb_graph()) {
            let graph = Graph::from_succs(succs);
            let (all, _) = all_hierarchies(&graph, 0, 2_000);
            for info in &all {
                if let Err(why) = check_hierarchy(&graph, info) {
                    return Err(TestCaseError::fail(format!("{why}: {:?} {:?}", graph.succs, info)));
                }
            }
            // Outermost cycles are the nontrivial SCCs reachable from the root, in
            // every hierarchy; only headers may differ.
            let tops = |info: &CycleInfo| -> BTreeSet<Vec<u32>> {
                info.top_level().into_iter().map(|c| info.cycle(c).nodes.clone()).collect()
            };
            for info in &all {
                prop_assert_eq!(tops(info), tops(&all[0]));
            }
        }
    }
}
