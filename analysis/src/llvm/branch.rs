//! The joins and diverged paths of one divergent branch (LLVM's "Convergence and
//! Uniformity", "Terminology" and "Divergent Cycle Exits"), computed in time
//! proportional to the region the branch's lanes can part in, not to the whole
//! CFG: what [`super::analyze`] calls once per divergent branch. The reference
//! definitions, [`super::joins`] (two units of vertex-disjoint flow) and
//! [`super::diverged_reach`], are the test oracle this module must agree with.
//!
//! # Joins as dominance
//! Let `G_B` be the CFG with every edge into the branch `B` redirected to a fresh
//! sink `B'` (a path that returns to `B` ends there). By Menger's theorem two paths
//! from `B` to `J` that share only their ends exist iff no node other than `B` and
//! `J` lies on every path from `B` to `J`, i.e. iff `B` immediately dominates `J`
//! in `G_B` — except when `J` is a successor of `B`: the edge `B → J` is one path
//! on its own, and a second one exists iff `J` has another predecessor that `B`
//! reaches without passing `J` (one that `J` does not dominate). `B` itself is a
//! join iff `B'` is one. So the joins are children of `B` in the dominator tree of
//! `G_B`.
//!
//! # The region
//! Once a path leaves a strongly connected component it never returns, so the
//! components (the outermost cycles and the nodes in no cycle) are handled one at
//! a time in a topological order of the component graph, starting with `B`'s,
//! each with the iterative algorithm of Cooper, Harvey and Kennedy seeded by the
//! final dominators of the components before it. The search stops as soon as
//! every edge out of the handled nodes enters one node `X`: every path onwards
//! passes `X`, so nothing beyond `X` is a child of `B`, and nothing beyond can
//! come back (it would be in `X`'s component, entered only at `X`). The cost per
//! branch is the size of `B`'s outermost cycle plus the part of the CFG before
//! the lanes are back on one path; a branch whose lanes never meet again
//! (`if (tid) return`) continues to the end of the function, and that
//! continuation is walked once per function, not once per branch.
//!
//! # Branches in nested cycles
//! Walking the outermost cycle per branch costs the size of the nest for every
//! latch of a nest of loops: quadratic in its depth. When every cycle is
//! reducible and the innermost cycle around the branch has a single exit node,
//! [`BranchSolver::in_cycle`] answers from a graph of that cycle alone, its
//! child cycles contracted to their headers and everything outside it to the
//! exit node (the proof is in its documentation), and the cycles around it that
//! a diverged path leaves come from a per-cycle memo
//! ([`BranchSolver::outer_exits`]). The other branches take the region walk
//! above; the tests compare both with the flow definition and with each other.

use crate::cycles::{CycleId, CycleInfo};
use crate::hops::Hops;
use pllvm_semantics::cfg::Graph;
use pllvm_semantics::ir::Block;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const NONE: u32 = u32::MAX;

/// What one divergent branch implies (the per-branch part of the analysis).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BranchFacts {
    /// The joins of the branch, ascending (as [`super::joins`]).
    pub joins: Vec<u32>,
    /// How many of the cycles containing the branch a diverged path leaves
    /// (divergent cycle exits): the first `exited` of
    /// [`CycleInfo::cycles_containing`] (innermost first; a path that leaves a
    /// cycle leaves every cycle inside it).
    pub exited: usize,
    /// The irreducible cycles the branch or a diverged path that is not at a join
    /// enters from outside ("Diverged Paths reaching a Cycle"), ascending. Cycles
    /// entered beyond the end of the region are reported once per
    /// [`BranchSolver`]: a later branch reaching the same continuation does not
    /// repeat them.
    pub entered: Vec<CycleId>,
}

/// The per-function state for [`BranchSolver::branch`]: the component graph, the
/// entries of irreducible cycles, and scratch arrays reused across branches.
pub struct BranchSolver<'a> {
    graph: &'a Graph,
    cycles: &'a CycleInfo,
    /// Component of each node; components are numbered in topological order.
    component: Vec<u32>,
    /// Whether each component is a cycle (several nodes, or a self-loop).
    cyclic: Vec<bool>,
    /// The irreducible cycles each node is an entry of, in one array: those of
    /// `v` are `entry_of[entry_start[v]..entry_start[v + 1]]` (both empty when
    /// no cycle is irreducible).
    entry_start: Vec<u32>,
    entry_of: Vec<CycleId>,
    /// Scratch, valid where `stamp == epoch`: handled nodes.
    epoch: u32,
    stamp: Vec<u32>,
    idom: Vec<u32>,
    rank: Vec<u32>,
    label: Vec<u32>,
    pending: Vec<u32>,
    join: Vec<u32>,
    seen: Vec<u32>,
    /// Nodes whose whole forward closure was walked for `entered`.
    closed: Vec<bool>,
    /// For a graph without cycles: a topological order, each node's position in
    /// it, and its hops (see [`BranchSolver::branch`]).
    acyclic: Option<(Vec<Block>, Vec<u32>, Hops)>,
    /// For a graph whose cycles are all reducible: what
    /// [`BranchSolver::in_cycle`] needs (see there).
    nested: Option<Nested>,
    /// Work done so far, in visited nodes and edges (for the tests' budgets).
    pub work: u64,
}

/// The per-cycle tables of [`BranchSolver::in_cycle`]: each cycle's own nodes
/// (those of no child cycle), its exits, the single exit node if it has one,
/// and the memo of [`BranchSolver::outer_exits`].
struct Nested {
    /// Own nodes of cycle `c`: `own[own_start[c]..own_start[c + 1]]`.
    own_start: Vec<u32>,
    own: Vec<u32>,
    /// Exit nodes of every cycle ([`cycle_exits`]).
    exits: Vec<Vec<u32>>,
    /// How many cycles around `c` the nodes reachable from its single exit
    /// without entering `c` leave ([`BranchSolver::outer_exits`]), `NONE` until
    /// computed.
    outer: Vec<u32>,
    /// A hierarchy without cycles, for the solver of the small graph of a
    /// branch.
    none: CycleInfo,
}

/// The exit nodes of every cycle of `cycles` (nodes outside it with a
/// predecessor inside), each list ascending: one pass over the edges, an edge
/// `u → s` counted at each cycle around `u` that does not contain `s` (the
/// cycles it leaves), so the work is the number of edges plus the number of
/// (edge, cycle left) pairs, not the sum of the cycles' sizes that calling
/// [`CycleInfo::exits`] on every cycle of a nest costs.
pub(super) fn cycle_exits(graph: &Graph, cycles: &CycleInfo) -> Vec<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); cycles.len()];
    for u in 0..graph.len() as u32 {
        let Some(inner) = cycles.innermost(u) else {
            continue;
        };
        for &s in graph.successors(u) {
            let mut c = Some(inner);
            while let Some(id) = c {
                let cy = cycles.cycle(id);
                if cy.contains(s) {
                    break;
                }
                out[id.0 as usize].push(s);
                c = cy.parent;
            }
        }
    }
    for list in &mut out {
        list.sort_unstable();
        list.dedup();
    }
    out
}

impl<'a> BranchSolver<'a> {
    /// The solver for `graph` with its cycle hierarchy `cycles` (any DFS).
    pub fn new(graph: &'a Graph, cycles: &'a CycleInfo) -> Self {
        let n = graph.len();
        let (component, count) = components(graph);
        let mut cyclic = vec![false; count];
        let mut size = vec![0u32; count];
        for v in 0..n {
            size[component[v] as usize] += 1;
            if graph.successors(v as u32).contains(&(v as u32)) {
                cyclic[component[v] as usize] = true;
            }
        }
        for c in 0..count {
            if size[c] > 1 {
                cyclic[c] = true;
            }
        }
        let mut pairs: Vec<(u32, CycleId)> = Vec::new();
        for c in cycles.ids() {
            let cy = cycles.cycle(c);
            if !cy.is_reducible() {
                pairs.extend(cy.entries.iter().map(|&e| (e, c)));
            }
        }
        pairs.sort_unstable();
        let mut entry_start = Vec::new();
        if !pairs.is_empty() {
            entry_start = vec![0u32; n + 1];
            for &(e, _) in &pairs {
                entry_start[e as usize + 1] += 1;
            }
            for v in 0..n {
                entry_start[v + 1] += entry_start[v];
            }
        }
        let entry_of: Vec<CycleId> = pairs.into_iter().map(|(_, c)| c).collect();
        // Without cycles the components are single nodes numbered in a
        // topological order.
        let acyclic = (cyclic.iter().all(|&c| !c) && cycles.is_empty()).then(|| {
            let mut order: Vec<u32> = (0..n as u32).collect();
            order.sort_unstable_by_key(|&v| component[v as usize]);
            let mut position = vec![0u32; n];
            for (p, &v) in order.iter().enumerate() {
                position[v as usize] = p as u32;
            }
            let hops = Hops::compute(graph, &order);
            (
                order.into_iter().map(Block::from_u32).collect(),
                position,
                hops,
            )
        });
        let nested = (!cycles.is_empty() && cycles.ids().all(|c| cycles.cycle(c).is_reducible()))
            .then(|| {
                let count = cycles.len();
                let mut own_start = vec![0u32; count + 1];
                for v in 0..n as u32 {
                    if let Some(c) = cycles.innermost(v) {
                        own_start[c.0 as usize + 1] += 1;
                    }
                }
                for c in 0..count {
                    own_start[c + 1] += own_start[c];
                }
                let mut fill = own_start.clone();
                let mut own = vec![0u32; own_start[count] as usize];
                for v in 0..n as u32 {
                    if let Some(c) = cycles.innermost(v) {
                        own[fill[c.0 as usize] as usize] = v;
                        fill[c.0 as usize] += 1;
                    }
                }
                Nested {
                    own_start,
                    own,
                    exits: cycle_exits(graph, cycles),
                    outer: vec![NONE; count],
                    none: CycleInfo::of_graph(&Graph::from_succs(vec![Vec::new()]), 0),
                }
            });
        let m = n + 1;
        BranchSolver {
            graph,
            cycles,
            component,
            cyclic,
            entry_start,
            entry_of,
            epoch: 0,
            stamp: vec![0; m],
            idom: vec![NONE; m],
            rank: vec![NONE; m],
            label: vec![NONE; m],
            pending: vec![0; m],
            join: vec![0; m],
            seen: vec![0; m],
            closed: vec![false; n],
            acyclic,
            nested,
            work: 0,
        }
    }

    /// The solver without [`BranchSolver::in_cycle`]: every branch in a
    /// cycle walks its outermost cycle (the straightforward region walk the
    /// small graphs replaced, kept for the tests).
    #[cfg(test)]
    pub(crate) fn walk_reference(graph: &'a Graph, cycles: &'a CycleInfo) -> Self {
        BranchSolver {
            nested: None,
            ..BranchSolver::new(graph, cycles)
        }
    }

    fn handled(&self, v: u32) -> bool {
        self.stamp[v as usize] == self.epoch
    }

    /// The nearest common dominator of two handled nodes with dominators.
    fn intersect(&self, mut a: u32, mut b: u32) -> u32 {
        while a != b {
            while self.rank[a as usize] > self.rank[b as usize] {
                a = self.idom[a as usize];
            }
            while self.rank[b as usize] > self.rank[a as usize] {
                b = self.idom[b as usize];
            }
        }
        a
    }

    /// The facts of a branch in `b`.
    ///
    /// In a graph without cycles the joins are found by the POPL'21 labelling
    /// pass instead ([`crate::disjoint::hopping_disjoint_joins`], with the
    /// successors of `b` as sources), which hops over single-entry intervals.
    /// The two definitions agree there: a path from `b` that leaves by
    /// successor `s` is `b` followed by a path from `s`, and in a DAG no path
    /// returns to `b`, so two paths from `b` to `J` sharing only their ends and
    /// leaving by different successors are two paths from two different
    /// successors sharing only `J` (the empty path when `J` is itself a
    /// successor), which is what the pass finds (Theorem 5.6, and its module's
    /// rule for a source reached from another). Without cycles there are no
    /// divergent cycle exits and no cycles to enter. The flow-based reference
    /// checks this path too (the tests below enumerate DAGs among all small
    /// graphs).
    pub fn branch(&mut self, b: u32) -> BranchFacts {
        let n = self.graph.len() as u32;
        if b >= n {
            return BranchFacts::default();
        }
        if let Some((order, position, hops)) = &self.acyclic {
            let mut sources: Vec<u32> = self.graph.successors(b).to_vec();
            sources.sort_unstable();
            sources.dedup();
            let joins = if sources.len() < 2 {
                Vec::new()
            } else {
                crate::disjoint::hopping_disjoint_joins(
                    self.graph, order, position, hops, &sources, &mut 0,
                )
            };
            return BranchFacts {
                joins,
                exited: 0,
                entered: Vec::new(),
            };
        }
        if let Some(facts) = self.in_cycle(b) {
            return facts;
        }
        self.epoch += 1;
        let sink = n; // B'
        let mut order: Vec<u32> = Vec::new();
        let mut heap: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
        let mut pending_count = 0usize;
        // B's component, with the edges into B redirected to B'.
        let cb = self.component[b as usize];
        self.handle_component(cb, &[b], Some(b), &mut order);
        self.push_frontier(&order, 0, &mut heap, &mut pending_count);
        let mut stop: Option<u32> = None;
        loop {
            if pending_count == 0 {
                break;
            }
            if pending_count == 1 {
                // The single node every path onwards passes.
                let x = loop {
                    match heap.pop() {
                        Some(Reverse((_, v))) if self.pending[v as usize] == self.epoch => {
                            break Some(v);
                        }
                        Some(_) => continue,
                        None => break None,
                    }
                };
                if let Some(x) = x {
                    let mut d = NONE;
                    for &p in self.graph.predecessors(x) {
                        if self.handled(p) && self.idom[p as usize] != NONE {
                            d = if d == NONE { p } else { self.intersect(p, d) };
                        }
                    }
                    self.stamp[x as usize] = self.epoch;
                    self.idom[x as usize] = d;
                    self.rank[x as usize] = order.len() as u32;
                    order.push(x);
                    stop = Some(x);
                }
                break;
            }
            let Some(Reverse((c, first))) = heap.pop() else {
                break;
            };
            if self.pending[first as usize] != self.epoch {
                continue;
            }
            let mut entries = vec![first];
            while let Some(Reverse((c2, v))) = heap.peek().copied() {
                if c2 != c {
                    break;
                }
                heap.pop();
                if self.pending[v as usize] == self.epoch && !entries.contains(&v) {
                    entries.push(v);
                }
            }
            for &e in &entries {
                self.pending[e as usize] = 0;
            }
            pending_count -= entries.len();
            let before = order.len();
            self.handle_component(c, &entries, None, &mut order);
            self.push_frontier(&order, before, &mut heap, &mut pending_count);
        }
        // Labels: the child of B above each handled node.
        for &v in &order {
            let d = self.idom[v as usize];
            self.label[v as usize] = if v == b {
                b
            } else if d == b {
                v
            } else {
                self.label[d as usize]
            };
        }
        let mut succs: Vec<u32> = self.graph.successors(b).to_vec();
        succs.sort_unstable();
        succs.dedup();
        let mut joins: Vec<u32> = Vec::new();
        for &j in &order {
            if j == b || self.idom[j as usize] != b {
                continue;
            }
            let target = if j == sink { b } else { j };
            let preds = self.graph.predecessors(target);
            let ok = if succs.binary_search(&target).is_ok() {
                // The edge B → J is one path; another must come through a
                // predecessor that J does not dominate.
                preds.iter().any(|&p| {
                    let p_node = p;
                    p_node != b
                        && self.handled(p_node)
                        && self.idom[p_node as usize] != NONE
                        && self.label[p_node as usize] != j
                        && (j != sink || self.component[p_node as usize] == cb)
                })
            } else {
                true
            };
            if ok {
                joins.push(target);
                self.join[target as usize] = self.epoch;
            }
        }
        joins.sort_unstable();
        let (exited, entered) = self.diverged(b, &joins, stop);
        BranchFacts {
            joins,
            exited,
            entered,
        }
    }

    /// The facts of a branch in `b` from a small graph instead of `b`'s whole
    /// outermost cycle, when every cycle of the graph is reducible and the
    /// innermost cycle `C` around `b` has a single exit node `x`; `None`
    /// otherwise (or when `b` is in no cycle).
    ///
    /// The small graph `R` has `C`'s own nodes (`b` among them), one node per
    /// child cycle `C'` of `C` (its header `h'`, with an edge to each exit of
    /// `C'`), and `x`, with an edge to `C`'s header `h` when `x` is in `h`'s
    /// strongly connected component. The joins of `b` in `G` are its joins in
    /// `R`, found by [`BranchSolver::branch`] on `R`:
    /// - *No other node is a join.* Every path from `b` into `C'` enters at `h'`
    ///   (reducible, and `b ∉ C'`), so `h'` lies on both of two paths to a node
    ///   inside `C'`; every path from `b` to a node outside `C` passes `x`. A
    ///   join needs two paths sharing only their ends.
    /// - *Paths to the nodes of `R` correspond.* A simple path visits `C'` at
    ///   most once (re-entering needs `h'` again), entering at `h'` and leaving
    ///   to an exit of `C'`: the edge `h' → exit` of `R`. Leaving `C` means
    ///   reaching `x`; coming back means entering at `h` (reducible), possible
    ///   iff `x` and `h` are strongly connected: the edge `x → h`. Conversely
    ///   each edge of `R` stands for a path inside `C'` (strongly connected) or
    ///   outside `C`, and two disjoint paths of `R` stand for disjoint paths
    ///   of `G`: the interiors of different children are disjoint, and only the
    ///   path through `x` uses nodes outside `C`. Edges into `b` become edges
    ///   into `B'` alike.
    ///
    /// The diverged paths are those of `R`, plus the interior of every `C'`
    /// whose header they pass (no join inside), plus, when they pass `x`, every
    /// node reachable from `x` without entering `C` (they come back into `C`
    /// only through `h`, which `R` has, and leave again through `x`). So `C`
    /// is left iff `x` is reached, and the cycles around `C` that are left are
    /// those not containing `x` when `x` is a join, else
    /// [`BranchSolver::outer_exits`] of `C`, which depends on `C` alone and is
    /// computed once per cycle. No cycle is irreducible: nothing is entered.
    ///
    /// The cost is the size of `R`: for the latch of loop `k` of a nest of `d`
    /// loops, four nodes, where the whole nest was walked before.
    fn in_cycle(&mut self, b: u32) -> Option<BranchFacts> {
        let cycles = self.cycles;
        let graph = self.graph;
        let c = cycles.innermost(b)?;
        let nested = self.nested.as_mut()?;
        let exits = &nested.exits[c.0 as usize];
        if exits.len() != 1 {
            return None;
        }
        let x = exits[0];
        let cy = cycles.cycle(c);
        let h = cy.header;
        // Number the nodes of R: own nodes, children's headers, x (in the
        // scratch `rank`, valid where `stamp` is this epoch).
        self.epoch += 1;
        let epoch = self.epoch;
        let own = &nested.own
            [nested.own_start[c.0 as usize] as usize..nested.own_start[c.0 as usize + 1] as usize];
        let mut global: Vec<u32> = Vec::with_capacity(own.len() + cy.children.len() + 1);
        global.extend_from_slice(own);
        global.extend(cy.children.iter().map(|&k| cycles.cycle(k).header));
        global.push(x);
        for (i, &v) in global.iter().enumerate() {
            self.rank[v as usize] = i as u32;
            self.stamp[v as usize] = epoch;
        }
        let (rank, stamp) = (&self.rank, &self.stamp);
        let local = |v: u32| {
            debug_assert_eq!(stamp[v as usize], epoch, "node {v} outside R");
            rank[v as usize]
        };
        let mut succs: Vec<Vec<u32>> = Vec::with_capacity(global.len());
        for &v in own {
            succs.push(graph.successors(v).iter().map(|&s| local(s)).collect());
        }
        for &k in &cy.children {
            succs.push(
                nested.exits[k.0 as usize]
                    .iter()
                    .map(|&s| local(s))
                    .collect(),
            );
        }
        succs.push(
            if self.component[x as usize] == self.component[h as usize] {
                vec![local(h)]
            } else {
                Vec::new()
            },
        );
        self.work += global.len() as u64 + succs.iter().map(Vec::len).sum::<usize>() as u64;
        let small = Graph::from_succs(succs);
        let lb = local(b);
        let lx = global.len() as u32 - 1;
        let mut solver = BranchSolver::new(&small, &nested.none);
        let facts = solver.branch(lb);
        self.work += solver.work;
        // The diverged paths in R: from b's successors through nodes that are
        // not joins.
        let mut seen = vec![false; global.len()];
        let mut stack: Vec<u32> = Vec::new();
        for &s in small.successors(lb) {
            if !seen[s as usize] {
                seen[s as usize] = true;
                stack.push(s);
            }
        }
        while let Some(v) = stack.pop() {
            self.work += 1;
            if facts.joins.binary_search(&v).is_ok() {
                continue;
            }
            for &s in small.successors(v) {
                if !seen[s as usize] {
                    seen[s as usize] = true;
                    stack.push(s);
                }
            }
        }
        let mut joins: Vec<u32> = facts.joins.iter().map(|&j| global[j as usize]).collect();
        joins.sort_unstable();
        let exited = if !seen[lx as usize] {
            0
        } else if facts.joins.binary_search(&lx).is_ok() {
            // Only x itself is reached outside C.
            let mut level = 1;
            let mut a = cy.parent;
            while let Some(id) = a {
                let ac = cycles.cycle(id);
                if ac.contains(x) {
                    break;
                }
                level += 1;
                a = ac.parent;
            }
            level
        } else {
            1 + self.outer_exits(c) as usize
        };
        Some(BranchFacts {
            joins,
            exited,
            entered: Vec::new(),
        })
    }

    /// How many cycles around the single-exit cycle `c` (its parent first) the
    /// nodes reachable from its exit `x` without entering `c` leave: a
    /// property of `c` alone, computed once per cycle.
    ///
    /// A walk from `x` that does not enter `c` counts the cycles around `c`
    /// not containing a visited node (a prefix of them, innermost first, as
    /// in [`BranchSolver::diverged`]). It stops when every one is left, or when
    /// it visits the single exit `y` of the outermost cycle `A` left so far
    /// (and `y` is in the next one): every path onwards out of `A` passes `y`,
    /// so the cycles beyond are the ones that nodes reachable from `y` without
    /// entering `A` leave, `outer_exits(A)`, and the answer is the count so far
    /// plus that. The chain of such hand-overs is followed without recursion,
    /// and each cycle is walked once per solver: on a nest the walk from the
    /// exit of loop `k` (the latch of loop `k - 1`) reaches the exit of loop
    /// `k - 1` in one step.
    fn outer_exits(&mut self, c: CycleId) -> u32 {
        let cycles = self.cycles;
        let graph = self.graph;
        let mut pending: Vec<(CycleId, u32)> = Vec::new();
        let mut cur = c;
        let Some(nested) = self.nested.as_mut() else {
            return 0;
        };
        let mut result = loop {
            let memo = nested.outer[cur.0 as usize];
            if memo != NONE {
                break memo;
            }
            let cy = cycles.cycle(cur);
            let exits = &nested.exits[cur.0 as usize];
            debug_assert_eq!(
                exits.len(),
                1,
                "outer_exits of a cycle without a single exit"
            );
            let x = exits[0];
            // Marks in the scratch `pending`, under an epoch of their own.
            self.epoch += 1;
            let mark = self.epoch;
            self.pending[x as usize] = mark;
            let mut stack = vec![x];
            let mut level = 0u32;
            let mut next = cy.parent;
            let mut last: Option<CycleId> = None;
            let mut hand_over: Option<CycleId> = None;
            while let Some(y) = stack.pop() {
                self.work += 1;
                while let Some(a) = next {
                    let ac = cycles.cycle(a);
                    if ac.contains(y) {
                        break;
                    }
                    level += 1;
                    last = Some(a);
                    next = ac.parent;
                }
                if next.is_none() {
                    break;
                }
                if let Some(a) = last
                    && nested.exits[a.0 as usize] == [y]
                {
                    hand_over = Some(a);
                    break;
                }
                for &s in graph.successors(y) {
                    if !cy.contains(s) && self.pending[s as usize] != mark {
                        self.pending[s as usize] = mark;
                        stack.push(s);
                    }
                }
            }
            match hand_over {
                Some(a) => {
                    pending.push((cur, level));
                    cur = a;
                }
                None => {
                    nested.outer[cur.0 as usize] = level;
                    break level;
                }
            }
        };
        while let Some((cyc, level)) = pending.pop() {
            result += level;
            nested.outer[cyc.0 as usize] = result;
        }
        result
    }

    /// Puts the successors of `order[from..]` that are not handled on the frontier.
    fn push_frontier(
        &mut self,
        order: &[u32],
        from: usize,
        heap: &mut BinaryHeap<Reverse<(u32, u32)>>,
        pending_count: &mut usize,
    ) {
        let graph = self.graph;
        let n = graph.len() as u32;
        for &v in &order[from..] {
            if v >= n {
                continue;
            }
            for &s in graph.successors(v) {
                if !self.handled(s) && self.pending[s as usize] != self.epoch {
                    self.pending[s as usize] = self.epoch;
                    *pending_count += 1;
                    heap.push(Reverse((self.component[s as usize], s)));
                }
            }
        }
    }

    /// Dominators of every node of component `c`, entered at `entries` (or, for
    /// B's own component, from `root` with the edges into it redirected to B').
    fn handle_component(
        &mut self,
        c: u32,
        entries: &[u32],
        root: Option<u32>,
        order: &mut Vec<u32>,
    ) {
        let graph = self.graph;
        let sink = graph.len() as u32;
        let base = order.len() as u32;
        if !self.cyclic[c as usize] {
            let v = entries[0];
            self.work += 1;
            let mut d = NONE;
            if root == Some(v) {
                d = v;
            } else {
                for &p in graph.predecessors(v) {
                    if self.handled(p) && self.idom[p as usize] != NONE {
                        d = if d == NONE { p } else { self.intersect(p, d) };
                    }
                }
            }
            self.stamp[v as usize] = self.epoch;
            self.idom[v as usize] = d;
            self.rank[v as usize] = base;
            order.push(v);
            return;
        }
        // A DFS of the component from its entries (a virtual root above them)
        // gives a reverse postorder in which every dominator comes first.
        let target = |s: u32| if root == Some(s) { sink } else { s };
        let mut post: Vec<u32> = Vec::new();
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for &e in entries {
            if self.handled(e) {
                continue;
            }
            self.stamp[e as usize] = self.epoch;
            stack.push((e, 0));
            while let Some(&mut (v, ref mut k)) = stack.last_mut() {
                let succ = if v == sink {
                    &[][..]
                } else {
                    graph.successors(v)
                };
                if *k < succ.len() {
                    let s = target(succ[*k]);
                    *k += 1;
                    let inside = s == sink || self.component[s as usize] == c;
                    if inside && !self.handled(s) {
                        self.stamp[s as usize] = self.epoch;
                        stack.push((s, 0));
                    }
                } else {
                    post.push(v);
                    stack.pop();
                }
            }
        }
        post.reverse();
        self.work += post.len() as u64;
        for (k, &v) in post.iter().enumerate() {
            self.rank[v as usize] = base + k as u32;
            self.idom[v as usize] = if root == Some(v) { v } else { NONE };
        }
        let mut changed = true;
        while changed {
            changed = false;
            self.work += post.len() as u64;
            for &v in &post {
                if root == Some(v) {
                    continue;
                }
                let preds = if v == sink {
                    graph.predecessors(root.unwrap_or(v))
                } else {
                    graph.predecessors(v)
                };
                let mut d = NONE;
                for &p in preds {
                    if v == sink && self.component[p as usize] != c {
                        // Edges into B from outside its component: B reaches none.
                        continue;
                    }
                    if self.handled(p) && self.idom[p as usize] != NONE {
                        d = if d == NONE { p } else { self.intersect(p, d) };
                    }
                }
                if d != NONE && d != self.idom[v as usize] {
                    self.idom[v as usize] = d;
                    changed = true;
                }
            }
        }
        order.extend_from_slice(&post);
    }

    /// Walks the diverged paths of `b` (through nodes that are not joins) and
    /// returns how many cycles around `b` they leave and the irreducible cycles
    /// entered.
    fn diverged(&mut self, b: u32, joins: &[u32], stop: Option<u32>) -> (usize, Vec<CycleId>) {
        let graph = self.graph;
        let epoch = self.epoch;
        let chain = self.cycles.cycles_containing(b);
        let mut entered: Vec<CycleId> = Vec::new();
        let mut level = 0usize;
        let is_join =
            |s: &Self, v: u32| s.join[v as usize] == epoch && joins.binary_search(&v).is_ok();
        self.enters(b, &mut entered);
        let mut work: Vec<u32> = Vec::new();
        for &s in graph.successors(b) {
            if self.seen[s as usize] != epoch {
                self.seen[s as usize] = epoch;
                work.push(s);
            }
        }
        while let Some(v) = work.pop() {
            self.work += 1;
            // The cycles of B's chain this node is outside of are a prefix of
            // the chain (innermost first): a cycle containing `v` has every
            // cycle around it containing `v` too.
            while level < chain.len() && !self.cycles.cycle(chain[level]).contains(v) {
                level += 1;
            }
            if is_join(self, v) {
                continue;
            }
            self.enters(v, &mut entered);
            if Some(v) == stop || !self.handled(v) {
                // Beyond the region: every node onwards is on a diverged path.
                self.close(v, &mut entered);
                continue;
            }
            for &s in graph.successors(v) {
                if self.seen[s as usize] != epoch {
                    self.seen[s as usize] = epoch;
                    work.push(s);
                }
            }
        }
        entered.sort_unstable();
        entered.dedup();
        (level, entered)
    }

    /// The irreducible cycles an edge out of `u` enters from outside.
    fn enters(&self, u: u32, out: &mut Vec<CycleId>) {
        if self.entry_of.is_empty() {
            return;
        }
        for &s in self.graph.successors(u) {
            let (from, to) = (
                self.entry_start[s as usize] as usize,
                self.entry_start[s as usize + 1] as usize,
            );
            for &c in &self.entry_of[from..to] {
                if !self.cycles.cycle(c).contains(u) {
                    out.push(c);
                }
            }
        }
    }

    /// Walks the whole forward closure of `v` once per solver.
    fn close(&mut self, v: u32, out: &mut Vec<CycleId>) {
        if self.closed[v as usize] {
            return;
        }
        self.closed[v as usize] = true;
        let mut work = vec![v];
        while let Some(u) = work.pop() {
            self.work += 1;
            self.enters(u, out);
            for &s in self.graph.successors(u) {
                if !self.closed[s as usize] {
                    self.closed[s as usize] = true;
                    work.push(s);
                }
            }
        }
    }
}

/// The strongly connected components of `graph`, numbered in a topological order
/// of the component graph (every edge between components goes to a larger
/// number), by Tarjan's algorithm without recursion; and their count.
fn components(graph: &Graph) -> (Vec<u32>, usize) {
    let n = graph.len();
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![NONE; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut call: Vec<(u32, usize)> = Vec::new();
    let mut next = 0u32;
    let mut found = 0u32;
    for root in 0..n as u32 {
        if index[root as usize] != NONE {
            continue;
        }
        call.push((root, 0));
        index[root as usize] = next;
        low[root as usize] = next;
        next += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut k)) = call.last_mut() {
            let succ = graph.successors(v);
            if *k < succ.len() {
                let w = succ[*k];
                *k += 1;
                if index[w as usize] == NONE {
                    index[w as usize] = next;
                    low[w as usize] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    call.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
            } else {
                call.pop();
                if let Some(&(parent, _)) = call.last() {
                    low[parent as usize] = low[parent as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    while let Some(w) = stack.pop() {
                        on_stack[w as usize] = false;
                        comp[w as usize] = found;
                        if w == v {
                            break;
                        }
                    }
                    found += 1;
                }
            }
        }
    }
    // Tarjan finds sink components first: reverse the numbering.
    let count = found as usize;
    for c in &mut comp {
        *c = found - 1 - *c;
    }
    (comp, count)
}

#[cfg(test)]
mod tests {
    use super::super::{diverged_reach, joins};
    use super::*;
    use crate::cycles::all_hierarchies;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// The facts of `b` as the reference definitions give them.
    fn reference(graph: &Graph, cycles: &CycleInfo, b: u32) -> BranchFacts {
        let j = joins(graph, b);
        let reach = diverged_reach(graph, b, &j);
        let chain = cycles.cycles_containing(b);
        let left: Vec<bool> = chain
            .iter()
            .map(|&c| reach.iter().any(|&v| !cycles.cycle(c).contains(v)))
            .collect();
        // The cycles left are a prefix of the chain.
        let exited = left.iter().take_while(|&&l| l).count();
        assert!(
            left[exited..].iter().all(|&l| !l),
            "cycles left are not a prefix"
        );
        let entered = cycles
            .ids()
            .filter(|&c| {
                let cy = cycles.cycle(c);
                !cy.is_reducible()
                    && std::iter::once(b).chain(reach.iter().copied()).any(|u| {
                        !cy.contains(u)
                            && (u == b || !j.contains(&u))
                            && graph.successors(u).iter().any(|s| cy.entries.contains(s))
                    })
            })
            .collect();
        BranchFacts {
            joins: j.into_iter().collect(),
            exited,
            entered,
        }
    }

    /// Every branch of `graph`, for every hierarchy (up to `limit` DFS orders),
    /// against the reference; a fresh solver per branch so that `entered` is
    /// complete.
    fn check(graph: &Graph, limit: usize) -> Result<(), String> {
        let (all, _) = all_hierarchies(graph, 0, limit);
        for (k, cycles) in all.iter().enumerate() {
            for b in 0..graph.len() as u32 {
                let fast = BranchSolver::new(graph, cycles).branch(b);
                let slow = reference(graph, cycles, b);
                if fast != slow {
                    return Err(format!(
                        "{:?}, branch {b}: fast {fast:?}, reference {slow:?}",
                        graph.succs
                    ));
                }
                // The region walk alone, on two hierarchies (enough to cover
                // its paths; the flow definition checks every one above).
                let walked = if k < 2 {
                    BranchSolver::walk_reference(graph, cycles).branch(b)
                } else {
                    slow.clone()
                };
                if walked != slow {
                    return Err(format!(
                        "{:?}, branch {b}: walk {walked:?}, reference {slow:?}",
                        graph.succs
                    ));
                }
            }
            // One solver for every branch: the union of `entered` is the same.
            let mut solver = BranchSolver::new(graph, cycles);
            let mut shared = BTreeSet::new();
            let mut fresh = BTreeSet::new();
            for b in 0..graph.len() as u32 {
                shared.extend(solver.branch(b).entered);
                fresh.extend(reference(graph, cycles, b).entered);
            }
            if shared != fresh {
                return Err(format!(
                    "{:?}: shared solver lost entered cycles",
                    graph.succs
                ));
            }
        }
        Ok(())
    }

    /// Every successor list of length at most `degree` over `n` nodes.
    fn lists(n: u32, degree: usize) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new()];
        let mut last = vec![Vec::new()];
        for _ in 0..degree {
            let mut next = Vec::new();
            for l in &last {
                for t in 0..n {
                    let mut m: Vec<u32> = l.clone();
                    m.push(t);
                    next.push(m);
                }
            }
            out.extend(next.iter().cloned());
            last = next;
        }
        out
    }

    /// Exhaustively: every graph of up to 3 nodes with out-degree up to 3, and of 4
    /// nodes with out-degree up to 2 (duplicate edges and self-loops included).
    #[test]
    fn agrees_with_the_flow_definition_on_every_small_graph() {
        let mut graphs = 0usize;
        for (n, degree) in [(1u32, 3usize), (2, 3), (3, 3), (4, 2)] {
            let choices = lists(n, degree);
            let mut pick = vec![0usize; n as usize];
            loop {
                let succs: Vec<Vec<u32>> = pick.iter().map(|&k| choices[k].clone()).collect();
                let graph = Graph::from_succs(succs);
                // Every hierarchy of the smaller graphs, two DFS orders of the others.
                if let Err(e) = check(&graph, if n < 4 { 24 } else { 2 }) {
                    panic!("{e}");
                }
                graphs += 1;
                let mut k = 0;
                loop {
                    if k == pick.len() {
                        break;
                    }
                    pick[k] += 1;
                    if pick[k] < choices.len() {
                        break;
                    }
                    pick[k] = 0;
                    k += 1;
                }
                if k == pick.len() {
                    break;
                }
            }
        }
        assert_eq!(graphs, 4 + 15 * 15 + 40 * 40 * 40 + 21 * 21 * 21 * 21);
    }

    fn arb_graph() -> impl Strategy<Value = Vec<Vec<u32>>> {
        (5usize..14).prop_flat_map(|n| {
            proptest::collection::vec(proptest::collection::vec(0..n as u32, 0..4), n)
        })
    }

    /// Random DAGs (edges only to later nodes, duplicates allowed): the
    /// acyclic path of [`BranchSolver::branch`], whose hops need nested
    /// single-entry regions, which the near edges make common.
    fn arb_dag() -> impl Strategy<Value = Vec<Vec<u32>>> {
        (3usize..24).prop_flat_map(|n| {
            proptest::collection::vec(
                proptest::collection::vec((0u32..64, proptest::bool::ANY), 0..3),
                n,
            )
            .prop_map(move |raw| {
                raw.into_iter()
                    .enumerate()
                    .map(|(i, targets)| {
                        let ahead = (n - i - 1) as u32;
                        targets
                            .into_iter()
                            .filter(|_| ahead > 0)
                            .map(|(t, near)| {
                                let span = if near { ahead.min(3) } else { ahead };
                                (i as u32) + 1 + t % span
                            })
                            .collect()
                    })
                    .collect()
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn agrees_with_the_flow_definition_on_random_dags(succs in arb_dag()) {
            let graph = Graph::from_succs(succs);
            if let Err(e) = check(&graph, 2) {
                return Err(TestCaseError::fail(e));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn agrees_with_the_flow_definition_on_random_graphs(succs in arb_graph()) {
            let graph = Graph::from_succs(succs);
            if let Err(e) = check(&graph, 50) {
                return Err(TestCaseError::fail(e));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Generated CFGs (structured code with loops and extra edges, and
        /// unstructured graphs with irreducible cycles): the solver, which takes
        /// the small graph of [`BranchSolver::in_cycle`] for branches in
        /// single-exit cycles of graphs without irreducible cycles, agrees with
        /// the flow definition on every branch.
        #[test]
        fn agrees_with_the_flow_definition_on_generated_cfgs(succs in crate::test_util::arb_cfg()) {
            let graph = Graph::from_succs(succs);
            if let Err(e) = check(&graph, 4) {
                return Err(TestCaseError::fail(e));
            }
        }
    }

    /// The facts of every latch of a nest of 2,000 loops (as `pllvm analyze`
    /// asks for them: one solver, every divergent branch) cost at most 30
    /// visited nodes and edges per block, where walking the outermost cycle
    /// per latch cost about 4,000 per block; the facts of a nest of 40 are the
    /// reference's.
    #[test]
    fn nested_loops_cost_linear_work() {
        for depth in [40u32, 2000] {
            let graph = Graph::nested_loops(depth);
            let cycles = CycleInfo::of_graph_in(&graph, 0, crate::cycles::DfsOrder::Llvm);
            let mut solver = BranchSolver::new(&graph, &cycles);
            for k in 0..depth {
                let latch = 2 * depth + 1 - k;
                let facts = solver.branch(latch);
                // The latch's header joins (through the latch around it and
                // that loop's header); every loop around it is left.
                let header: Vec<u32> = if k == 0 { vec![] } else { vec![1 + k] };
                assert_eq!(facts.joins, header, "latch of loop {k}");
                assert_eq!(facts.exited, k as usize + 1, "latch of loop {k}");
                if depth == 40 {
                    assert_eq!(facts, reference(&graph, &cycles, latch));
                }
            }
            let blocks = graph.len() as u64;
            assert!(
                solver.work <= 30 * blocks,
                "depth {depth}: {} units of work for {blocks} blocks",
                solver.work
            );
        }
    }
}
