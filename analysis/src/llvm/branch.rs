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
    /// The cycles containing the branch that a diverged path leaves (divergent
    /// cycle exits), innermost first.
    pub divergent_exits: Vec<CycleId>,
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
    /// For each node, the irreducible cycles it is an entry of.
    entry_of: Vec<Vec<CycleId>>,
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
        let mut entry_of = vec![Vec::new(); n];
        for c in cycles.ids() {
            let cy = cycles.cycle(c);
            if !cy.is_reducible() {
                for &e in &cy.entries {
                    entry_of[e as usize].push(c);
                }
            }
        }
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
        let m = n + 1;
        BranchSolver {
            graph,
            cycles,
            component,
            cyclic,
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
                divergent_exits: Vec::new(),
                entered: Vec::new(),
            };
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
        let (divergent_exits, entered) = self.diverged(b, &joins, stop);
        BranchFacts {
            joins,
            divergent_exits,
            entered,
        }
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
        for (k, &v) in post.iter().enumerate() {
            self.rank[v as usize] = base + k as u32;
            self.idom[v as usize] = if root == Some(v) { v } else { NONE };
        }
        let mut changed = true;
        while changed {
            changed = false;
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
    /// returns the divergent exits and the irreducible cycles entered.
    fn diverged(
        &mut self,
        b: u32,
        joins: &[u32],
        stop: Option<u32>,
    ) -> (Vec<CycleId>, Vec<CycleId>) {
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
            // The deepest cycle of B's chain this node is outside of.
            level = level.max(self.level(&chain, v));
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
        (chain[..level].to_vec(), entered)
    }

    /// How many cycles of `chain` (innermost first) `v` is outside of.
    fn level(&self, chain: &[CycleId], v: u32) -> usize {
        let mut c = self.cycles.innermost(v);
        while let Some(id) = c {
            if let Some(k) = chain.iter().position(|&x| x == id) {
                return k;
            }
            c = self.cycles.cycle(id).parent;
        }
        chain.len()
    }

    /// The irreducible cycles an edge out of `u` enters from outside.
    fn enters(&self, u: u32, out: &mut Vec<CycleId>) {
        for &s in self.graph.successors(u) {
            for &c in &self.entry_of[s as usize] {
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
        let divergent_exits = cycles
            .cycles_containing(b)
            .into_iter()
            .filter(|&c| reach.iter().any(|&v| !cycles.cycle(c).contains(v)))
            .collect();
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
            divergent_exits,
            entered,
        }
    }

    /// Every branch of `graph`, for every hierarchy (up to `limit` DFS orders),
    /// against the reference; a fresh solver per branch so that `entered` is
    /// complete.
    fn check(graph: &Graph, limit: usize) -> Result<(), String> {
        let (all, _) = all_hierarchies(graph, 0, limit);
        for cycles in &all {
            for b in 0..graph.len() as u32 {
                let fast = BranchSolver::new(graph, cycles).branch(b);
                let slow = reference(graph, cycles, b);
                if fast != slow {
                    return Err(format!(
                        "{:?}, branch {b}: fast {fast:?}, reference {slow:?}",
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
}
