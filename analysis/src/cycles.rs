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

use pllvm_semantics::cfg::{Cfg, Dfs, Graph, dfs};
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
    /// Every node of the cycle (nested cycles included): a range of the
    /// hierarchy's shared node order ([`Cycle::nodes`]).
    nodes: NodeSpan,
    /// The enclosing cycle, `None` for an outermost cycle.
    pub parent: Option<CycleId>,
    /// The child cycles, in the order they were found.
    pub children: Vec<CycleId>,
    /// 1 for an outermost cycle, the parent's depth plus one otherwise.
    pub depth: u32,
}

/// The nodes of every cycle laid out once, so that each cycle's nodes are one
/// range: a cycle's own nodes (those of no child), then each child's range. A
/// nest of `d` cycles stores `O(n)` entries instead of the `d²/2` of one list
/// per cycle.
#[derive(PartialEq, Eq)]
struct NodeOrder {
    /// The nodes, cycle by cycle as above; nodes in no cycle are absent.
    order: Vec<u32>,
    /// Each node's index in `order` (`u32::MAX` for a node in no cycle).
    position: Vec<u32>,
}

/// One cycle's range of a shared [`NodeOrder`].
#[derive(Clone, PartialEq, Eq)]
struct NodeSpan {
    order: std::sync::Arc<NodeOrder>,
    start: u32,
    end: u32,
}

impl std::fmt::Debug for NodeSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(&self.order.order[self.start as usize..self.end as usize])
            .finish()
    }
}

impl Cycle {
    /// Whether the cycle has a single entry.
    pub fn is_reducible(&self) -> bool {
        self.entries.len() == 1
    }

    /// Every node of the cycle, nested cycles included: the header and the
    /// cycle's other own nodes first, then each child cycle's nodes together
    /// (not ascending; sort a copy where an order matters).
    pub fn nodes(&self) -> &[u32] {
        &self.nodes.order.order[self.nodes.start as usize..self.nodes.end as usize]
    }

    /// Whether `node` is in the cycle (constant time: its position in the
    /// shared order is inside the cycle's range).
    pub fn contains(&self, node: u32) -> bool {
        let p = self
            .nodes
            .order
            .position
            .get(node as usize)
            .copied()
            .unwrap_or(u32::MAX);
        p >= self.nodes.start && p < self.nodes.end
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

/// The DFS tree's subtrees as preorder intervals: `pre[v]` is v's preorder
/// number (`u32::MAX` when the search did not reach v) and v's subtree holds
/// the `size[v]` nodes numbered from it, so "w lies below h" is one interval
/// test.
struct Subtrees {
    pre: Vec<u32>,
    size: Vec<u32>,
}

impl Subtrees {
    fn of(search: &Dfs, n: usize) -> Subtrees {
        let mut pre = vec![u32::MAX; n];
        for (i, &v) in search.preorder.iter().enumerate() {
            pre[v as usize] = i as u32;
        }
        let mut size = vec![1u32; n];
        for &v in &search.postorder {
            if let Some(p) = search.parent[v as usize] {
                size[p as usize] += size[v as usize];
            }
        }
        Subtrees { pre, size }
    }

    /// Whether the search reached `v` and `v` lies in `h`'s subtree.
    fn contains(&self, h: u32, v: u32) -> bool {
        let (ph, pv) = (self.pre[h as usize], self.pre[v as usize]);
        pv != u32::MAX && pv >= ph && pv < ph + self.size[h as usize]
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
    ///
    /// The search of the module documentation, in time about linear in the
    /// graph: the backward walk from the latches of `H` steps over an inner cycle
    /// it meets by continuing from the predecessors of that cycle's *entries*
    /// only (the only nodes of the inner cycle with predecessors outside it, so
    /// the walk collects the same nodes as walking from every node of it), finds
    /// the outermost cycle around a node with a union-find over the parent links
    /// (path compression), and takes the entries of `H`'s cycle among its own
    /// nodes and its children's entries (an entry of a cycle has a predecessor
    /// outside it, so it is an entry of the child it lies in). The nodes are
    /// stored once for the whole hierarchy ([`Cycle::nodes`]). The hierarchy is
    /// the one of `of_graph_reference` in the tests (the walk that gathers every
    /// node of every child, kept as the oracle and compared on generated graphs), but for
    /// the order of the nodes and children lists.
    pub fn of_graph(graph: &Graph, root: u32) -> Self {
        let n = graph.len();
        let search = dfs(graph, root);
        let subtrees = Subtrees::of(&search, n);
        let pre = &subtrees.pre;
        let in_subtree = |h: u32, v: u32| subtrees.contains(h, v);
        let mut innermost: Vec<Option<CycleId>> = vec![None; n];
        // Per cycle under construction: header, entries, own nodes, parent, children.
        let mut headers: Vec<u32> = Vec::new();
        let mut entries_of: Vec<Vec<u32>> = Vec::new();
        let mut own: Vec<Vec<u32>> = Vec::new();
        let mut parent: Vec<Option<CycleId>> = Vec::new();
        let mut children_of: Vec<Vec<CycleId>> = Vec::new();
        // Union-find links to the outermost cycle found so far.
        let mut link: Vec<u32> = Vec::new();
        let find = |link: &mut Vec<u32>, c: u32| -> u32 {
            let mut top = c;
            while link[top as usize] != top {
                top = link[top as usize];
            }
            let mut x = c;
            while link[x as usize] != top {
                let next = link[x as usize];
                link[x as usize] = top;
                x = next;
            }
            top
        };
        // The cycle whose own node each node is during the walk of that cycle.
        let mut own_mark = vec![u32::MAX; n];
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
            let id = headers.len() as u32;
            headers.push(h);
            parent.push(None);
            link.push(id);
            let mut mine = vec![h];
            own_mark[h as usize] = id;
            let mut children = Vec::new();
            let mut work: VecDeque<u32> = latches.into_iter().collect();
            while let Some(v) = work.pop_front() {
                if own_mark[v as usize] == id {
                    continue;
                }
                if let Some(inner) = innermost[v as usize] {
                    let top = find(&mut link, inner.0);
                    if top == id {
                        continue;
                    }
                    parent[top as usize] = Some(CycleId(id));
                    link[top as usize] = id;
                    children.push(CycleId(top));
                    for &e in &entries_of[top as usize] {
                        work.extend(
                            graph
                                .predecessors(e)
                                .iter()
                                .copied()
                                .filter(|&p| in_subtree(h, p)),
                        );
                    }
                    continue;
                }
                own_mark[v as usize] = id;
                mine.push(v);
                work.extend(
                    graph
                        .predecessors(v)
                        .iter()
                        .copied()
                        .filter(|&p| in_subtree(h, p)),
                );
            }
            let member = |link: &mut Vec<u32>, p: u32| {
                own_mark[p as usize] == id
                    || innermost[p as usize].is_some_and(|c| find(link, c.0) == id)
            };
            let mut entries: Vec<u32> = Vec::new();
            let candidates: Vec<u32> = mine[1..]
                .iter()
                .copied()
                .chain(
                    children
                        .iter()
                        .flat_map(|c: &CycleId| entries_of[c.0 as usize].iter().copied()),
                )
                .collect();
            for v in candidates {
                let entered = graph
                    .predecessors(v)
                    .iter()
                    .any(|&p| pre[p as usize] != u32::MAX && !member(&mut link, p));
                if entered {
                    entries.push(v);
                }
            }
            entries.sort_by_key(|&v| pre[v as usize]);
            entries.dedup();
            entries.insert(0, h);
            for &m in &mine {
                innermost[m as usize] = Some(CycleId(id));
            }
            entries_of.push(entries);
            own.push(mine);
            children_of.push(children);
        }
        // Lay the nodes out cycle by cycle (own nodes, then each child's range),
        // outermost cycles first; a parent always has a larger id than its children.
        let count = headers.len();
        let mut order: Vec<u32> = Vec::with_capacity(own.iter().map(Vec::len).sum());
        let mut span = vec![(0u32, 0u32); count];
        let mut depth = vec![0u32; count];
        for top in (0..count).rev() {
            if parent[top].is_some() {
                continue;
            }
            depth[top] = 1;
            // (cycle, next child to lay out)
            let mut stack: Vec<(usize, usize)> = vec![(top, 0)];
            span[top].0 = order.len() as u32;
            order.extend_from_slice(&own[top]);
            while let Some(&mut (c, ref mut k)) = stack.last_mut() {
                if let Some(&child) = children_of[c].get(*k) {
                    *k += 1;
                    let child = child.0 as usize;
                    depth[child] = depth[c] + 1;
                    span[child].0 = order.len() as u32;
                    order.extend_from_slice(&own[child]);
                    stack.push((child, 0));
                } else {
                    span[c].1 = order.len() as u32;
                    stack.pop();
                }
            }
        }
        let mut position = vec![u32::MAX; n];
        for (i, &v) in order.iter().enumerate() {
            position[v as usize] = i as u32;
        }
        let shared = std::sync::Arc::new(NodeOrder { order, position });
        let cycles = (0..count)
            .map(|c| Cycle {
                header: headers[c],
                entries: std::mem::take(&mut entries_of[c]),
                nodes: NodeSpan {
                    order: shared.clone(),
                    start: span[c].0,
                    end: span[c].1,
                },
                parent: parent[c],
                children: std::mem::take(&mut children_of[c]),
                depth: depth[c],
            })
            .collect();
        CycleInfo { cycles, innermost }
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
        for &v in c.nodes() {
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
                nodes: {
                    let mut n = c.nodes().to_vec();
                    n.sort_unstable();
                    n
                },
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
                let mut sorted = cy.nodes().to_vec();
                sorted.sort_unstable();
                let nodes: Vec<String> = sorted.iter().map(|&n| name(body, n)).collect();
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
            if !strongly_connected(graph, cy.nodes()) {
                return Err(format!("cycle {:?} is not strongly connected", cy.nodes()));
            }
            // An edge inside (a one-node cycle needs its self-loop).
            if cy.nodes().len() == 1 && !graph.successors(cy.header).contains(&cy.header) {
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
                    if cy.nodes().iter().any(|v| !pc.contains(*v)) || cy.contains(pc.header) {
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
                            .nodes()
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

    /// One cycle as [`of_graph_reference`] builds it: every node listed,
    /// ascending.
    #[derive(Debug, PartialEq, Eq)]
    struct ReferenceCycle {
        header: u32,
        entries: Vec<u32>,
        nodes: Vec<u32>,
        parent: Option<CycleId>,
        children: BTreeSet<CycleId>,
        depth: u32,
    }

    /// The straightforward construction [`CycleInfo::of_graph`] replaced: the
    /// backward walk from the latches of each header gathers every node of every
    /// inner cycle it meets (and walks their predecessors), finds the outermost
    /// cycle around a node by following parent links, and keeps each cycle's
    /// nodes in a set of its own (quadratic in the depth of a nest). Returns the
    /// cycles and the innermost cycle of each node.
    fn of_graph_reference(graph: &Graph, root: u32) -> (Vec<ReferenceCycle>, Vec<Option<CycleId>>) {
        let n = graph.len();
        let search = dfs(graph, root);
        let subtrees = Subtrees::of(&search, n);
        let pre = &subtrees.pre;
        let in_subtree = |h: u32, v: u32| subtrees.contains(h, v);
        let mut cycles: Vec<ReferenceCycle> = Vec::new();
        let mut innermost: Vec<Option<CycleId>> = vec![None; n];
        let outermost_from = |cycles: &[ReferenceCycle], mut c: CycleId| {
            while let Some(p) = cycles[c.0 as usize].parent {
                c = p;
            }
            c
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
            let id = CycleId(cycles.len() as u32);
            let mut members: BTreeSet<u32> = BTreeSet::from([h]);
            let mut children = BTreeSet::new();
            let mut work: VecDeque<u32> = latches.into_iter().collect();
            while let Some(v) = work.pop_front() {
                if members.contains(&v) {
                    continue;
                }
                if let Some(inner) = innermost[v as usize] {
                    let top = outermost_from(&cycles, inner);
                    if top == id {
                        continue;
                    }
                    cycles[top.0 as usize].parent = Some(id);
                    children.insert(top);
                    for &m in &cycles[top.0 as usize].nodes {
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
                if innermost[m as usize].is_none() {
                    innermost[m as usize] = Some(id);
                }
            }
            cycles.push(ReferenceCycle {
                header: h,
                entries,
                nodes: members.into_iter().collect(),
                parent: None,
                children,
                depth: 0,
            });
        }
        for i in (0..cycles.len()).rev() {
            cycles[i].depth = cycles[i]
                .parent
                .map_or(1, |p| cycles[p.0 as usize].depth + 1);
        }
        (cycles, innermost)
    }

    /// Uniform random graphs and generated CFGs (mostly forward edges, loops,
    /// irreducible regions), each half the time.
    fn arb_any_graph() -> impl Strategy<Value = Vec<Vec<u32>>> {
        let uniform = (1usize..14).prop_flat_map(|n| {
            proptest::collection::vec(proptest::collection::vec(0..n as u32, 0..4), n)
        });
        prop_oneof![uniform, crate::test_util::arb_cfg()]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The linear construction builds the reference's hierarchy: the same
        /// cycles with the same ids, headers, entries (in order), node sets,
        /// parents, children, depths and innermost cycles, for both DFS orders.
        #[test]
        fn of_graph_equals_the_reference_construction(succs in arb_any_graph()) {
            let graph = Graph::from_succs(succs);
            let reversed = Graph::from_succs(
                (0..graph.len() as u32)
                    .map(|v| graph.successors(v).iter().rev().copied().collect())
                    .collect(),
            );
            for g in [&graph, &reversed] {
                let info = CycleInfo::of_graph(g, 0);
                let (cycles, innermost) = of_graph_reference(g, 0);
                let fast: Vec<ReferenceCycle> = info
                    .ids()
                    .map(|c| {
                        let cy = info.cycle(c);
                        let mut nodes = cy.nodes().to_vec();
                        nodes.sort_unstable();
                        ReferenceCycle {
                            header: cy.header,
                            entries: cy.entries.clone(),
                            nodes,
                            parent: cy.parent,
                            children: cy.children.iter().copied().collect(),
                            depth: cy.depth,
                        }
                    })
                    .collect();
                prop_assert_eq!(&fast, &cycles, "{:?}", g.succs);
                prop_assert_eq!(&info.innermost, &innermost);
                for c in info.ids() {
                    let cy = info.cycle(c);
                    for v in 0..g.len() as u32 {
                        prop_assert_eq!(cy.contains(v), cycles[c.0 as usize].nodes.contains(&v));
                    }
                }
            }
        }
    }

    /// A nest of 2,000 loops (`scripts/nested-cfg.py loops 2000`'s CFG) stores
    /// each node once, not once per loop around it.
    #[test]
    fn a_deep_nest_stores_each_node_once() {
        let depth = 2000u32;
        // entry 0, headers 1..=d, body d+1, latches d+2..=2d+1 (latch of loop k
        // is 2d+1-k), exit 2d+2.
        let header = |k: u32| 1 + k;
        let graph = Graph::nested_loops(depth);
        let latch = |k: u32| 2 * depth + 1 - k;
        let info = CycleInfo::of_graph(&graph, 0);
        assert_eq!(info.len(), depth as usize);
        let stored = info.cycle(CycleId(0)).nodes.order.order.len();
        assert_eq!(stored, 2 * depth as usize + 1);
        let outer = info.innermost(header(0)).unwrap();
        assert_eq!(info.cycle(outer).nodes().len(), 2 * depth as usize + 1);
        assert!(info.cycle(outer).contains(latch(depth - 1)));
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
                info.top_level().into_iter().map(|c| {
                    let mut nodes = info.cycle(c).nodes().to_vec();
                    nodes.sort_unstable();
                    nodes
                }).collect()
            };
            for info in &all {
                prop_assert_eq!(tops(info), tops(&all[0]));
            }
        }
    }
}
