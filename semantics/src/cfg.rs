//! Control-flow graphs, depth-first search, dominator trees, dominance frontiers and
//! reducibility (thesis §2.2-2.4).
//!
//! The algorithms work on a small index graph, [`Graph`], so that the analysis crate
//! can reuse them on graphs that are not a function body: the reversed CFG with a
//! virtual exit (post-dominators, §2.3) or a head-rewired CFG (POPL'21 §4). [`Cfg`]
//! is the CFG of a [`Body`] (thesis §4.1: "the block labels make up the nodes, the
//! successor labels of a terminator define the edges"), with thin [`Block`]-typed
//! wrappers over the index algorithms. Dominance lives in `semantics` because SSA
//! well-formedness ("defining instructions must dominate their uses", §4.10) is part
//! of the language definition.
//!
//! ## Conventions
//! - Nodes are `u32` indices `0..len`. For a [`Cfg`], node `i` is `Block(i)`: the arena
//!   index, not the layout position, and blocks unreachable from the entry are nodes too.
//! - Edges are kept with multiplicity, in successor-index order: a `switch` with two
//!   cases to the same block has two edges, and that block has two predecessor entries
//!   (one per edge, as LLVM's `predecessors()` has).
//! - Dominance follows §2.3 literally: `a` dominates `b` iff every path from the root
//!   to `b` contains `a`. A node the root cannot reach is therefore dominated by every
//!   node (vacuously), which is also LLVM's convention; an unreachable node dominates
//!   only itself and the unreachable nodes.

use crate::ir::{Block, Body};

/// A directed graph over nodes `0..len`, with edges stored both ways.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Graph {
    /// `succs[n]`: the successors of `n` in successor-index order, duplicates kept.
    pub succs: Vec<Vec<u32>>,
    /// `preds[n]`: one entry per edge into `n`, ordered by (source node, successor index).
    pub preds: Vec<Vec<u32>>,
}

impl Graph {
    /// The CFG of `scripts/nested-cfg.py loops d` (d ≥ 1): entry 0, headers
    /// `1..=d`, the body `d + 1`, the latch of loop k at `2d + 1 − k` (back to
    /// its header and out to the latch around it), the exit `2d + 2`: the
    /// nest on which the counted-work tests of the dominator, cycle and
    /// divergence algorithms bound their steps per block.
    pub fn nested_loops(depth: u32) -> Graph {
        let header = |k: u32| 1 + k;
        let latch = |k: u32| 2 * depth + 1 - k;
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); (2 * depth + 3) as usize];
        succs[0] = vec![header(0)];
        for k in 0..depth {
            succs[header(k) as usize] = vec![if k + 1 < depth {
                header(k + 1)
            } else {
                depth + 1
            }];
            let out = if k == 0 { 2 * depth + 2 } else { latch(k - 1) };
            succs[latch(k) as usize] = vec![header(k), out];
        }
        succs[(depth + 1) as usize] = vec![latch(depth - 1)];
        Graph::from_succs(succs)
    }

    /// The graph with `succs.len()` nodes and the given successor lists.
    ///
    /// Edges to nodes outside `0..succs.len()` are dropped: the graph algorithms never
    /// index out of bounds, and the verifier reports such targets itself.
    pub fn from_succs(mut succs: Vec<Vec<u32>>) -> Self {
        let len = succs.len();
        let mut in_degree = vec![0usize; len];
        for targets in &mut succs {
            targets.retain(|&t| (t as usize) < len);
            for &t in targets.iter() {
                in_degree[t as usize] += 1;
            }
        }
        let mut preds: Vec<Vec<u32>> = in_degree.into_iter().map(Vec::with_capacity).collect();
        for (source, targets) in succs.iter().enumerate() {
            for &target in targets {
                preds[target as usize].push(source as u32);
            }
        }
        Graph { succs, preds }
    }

    /// The graph with every edge turned around (for post-dominance, §2.3).
    ///
    /// The successors of `n` in the result are the predecessors of `n` here, in the
    /// same order.
    pub fn reversed(&self) -> Self {
        Graph::from_succs(self.preds.clone())
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.succs.len()
    }

    /// Whether the graph has no nodes.
    pub fn is_empty(&self) -> bool {
        self.succs.is_empty()
    }

    /// The successors of `node` (empty for a node outside the graph).
    pub fn successors(&self, node: u32) -> &[u32] {
        self.succs.get(node as usize).map_or(&[], Vec::as_slice)
    }

    /// The predecessors of `node`, one per edge (empty for a node outside the graph).
    pub fn predecessors(&self, node: u32) -> &[u32] {
        self.preds.get(node as usize).map_or(&[], Vec::as_slice)
    }
}

/// The result of the documented depth-first search ([`dfs`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dfs {
    /// Reached nodes in the order the search first visits them.
    pub preorder: Vec<u32>,
    /// Reached nodes in the order the search finishes them.
    pub postorder: Vec<u32>,
    /// Per node: its position in reverse postorder, `None` if the root cannot reach it.
    pub rpo_number: Vec<Option<u32>>,
    /// Per node: its parent in the DFS tree (`None` for the root and unreached nodes).
    pub parent: Vec<Option<u32>>,
    /// The retreating edges `x → y` (thesis §2.4: `y` is an ancestor of `x` in the DFS
    /// tree, `x` itself included, so self-loops are retreating), each distinct pair
    /// once, sorted.
    pub retreating_edges: Vec<(u32, u32)>,
}

impl Dfs {
    /// The reached nodes in reverse postorder (the root first).
    pub fn reverse_postorder(&self) -> Vec<u32> {
        self.postorder.iter().rev().copied().collect()
    }

    /// Whether the search reached `node`.
    pub fn is_reachable(&self, node: u32) -> bool {
        self.rpo_number
            .get(node as usize)
            .is_some_and(|n| n.is_some())
    }
}

/// The documented depth-first search of `graph` from `root` (thesis §2.4).
///
/// The search visits the successors of each node in successor-index order: on
/// entering `n` it descends into `succs[n][0]` (if not yet visited) and finishes that
/// whole subtree before it looks at `succs[n][1]`, and so on. This order fixes the DFS
/// tree, and with it the set of retreating edges, which for an irreducible graph
/// depends on the search (§2.4: only reducible graphs have the same retreating edges
/// for every DFS). Later analyses of irreducible CFGs refer to "the documented DFS":
/// it is this one, from the entry. The search is iterative, so deep graphs cannot
/// overflow the stack. A `root` outside the graph reaches nothing.
pub fn dfs(graph: &Graph, root: u32) -> Dfs {
    let len = graph.len();
    let mut visited = vec![false; len];
    let mut on_stack = vec![false; len];
    let mut parent = vec![None; len];
    let mut preorder = Vec::new();
    let mut postorder = Vec::new();
    let mut retreating_edges = Vec::new();
    // Each stack entry is a node and the index of the next successor to examine.
    let mut stack: Vec<(u32, usize)> = Vec::new();
    if (root as usize) < len {
        visited[root as usize] = true;
        on_stack[root as usize] = true;
        preorder.push(root);
        stack.push((root, 0));
    }
    while let Some(top) = stack.last_mut() {
        let (node, next) = *top;
        match graph.successors(node).get(next) {
            Some(&succ) => {
                top.1 += 1;
                if !visited[succ as usize] {
                    visited[succ as usize] = true;
                    on_stack[succ as usize] = true;
                    parent[succ as usize] = Some(node);
                    preorder.push(succ);
                    stack.push((succ, 0));
                } else if on_stack[succ as usize] {
                    // `succ` is on the current search path: an ancestor of `node`.
                    retreating_edges.push((node, succ));
                }
            }
            None => {
                stack.pop();
                on_stack[node as usize] = false;
                postorder.push(node);
            }
        }
    }
    retreating_edges.sort_unstable();
    retreating_edges.dedup();
    let mut rpo_number = vec![None; len];
    for (position, &node) in postorder.iter().rev().enumerate() {
        rpo_number[node as usize] = Some(position as u32);
    }
    Dfs {
        preorder,
        postorder,
        rpo_number,
        parent,
        retreating_edges,
    }
}

/// The strongly connected components of `graph` without the node `removed`
/// (Tarjan's algorithm, iterative): `component[n]` numbers the component of
/// `n` (`u32::MAX` for `removed`), and `cyclic[c]` says whether component `c`
/// holds a closed path, i.e. has two nodes or a self-loop. Two nodes lie on
/// one closed path avoiding `removed` exactly when they share a cyclic
/// component: the convergence-token rules about closed paths that do not
/// contain a token's definition ask this (`verify::tokens`).
pub fn components_without(graph: &Graph, removed: u32) -> Components {
    const NONE: u32 = u32::MAX;
    let len = graph.len();
    let mut index = vec![NONE; len];
    let mut low = vec![0u32; len];
    let mut on_stack = vec![false; len];
    let mut component = vec![NONE; len];
    let mut cyclic = Vec::new();
    let mut members: Vec<u32> = Vec::new();
    let mut next_index = 0u32;
    for start in 0..len as u32 {
        if start == removed || index[start as usize] != NONE {
            continue;
        }
        // Each frame: a node and the position of its next successor.
        let mut frames: Vec<(u32, usize)> = vec![(start, 0)];
        index[start as usize] = next_index;
        low[start as usize] = next_index;
        next_index += 1;
        members.push(start);
        on_stack[start as usize] = true;
        while let Some(&mut (node, ref mut next)) = frames.last_mut() {
            if let Some(&succ) = graph.successors(node).get(*next) {
                *next += 1;
                if succ == removed {
                    continue;
                }
                if index[succ as usize] == NONE {
                    index[succ as usize] = next_index;
                    low[succ as usize] = next_index;
                    next_index += 1;
                    members.push(succ);
                    on_stack[succ as usize] = true;
                    frames.push((succ, 0));
                } else if on_stack[succ as usize] {
                    low[node as usize] = low[node as usize].min(index[succ as usize]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent as usize] = low[parent as usize].min(low[node as usize]);
            }
            if low[node as usize] == index[node as usize] {
                let id = cyclic.len() as u32;
                let mut size = 0usize;
                while let Some(member) = members.pop() {
                    on_stack[member as usize] = false;
                    component[member as usize] = id;
                    size += 1;
                    if member == node {
                        break;
                    }
                }
                cyclic.push(size > 1 || graph.successors(node).contains(&node));
            }
        }
    }
    Components { component, cyclic }
}

/// What [`components_without`] computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Components {
    /// Per node, its component (`u32::MAX` for the removed node).
    pub component: Vec<u32>,
    /// Per component, whether it holds a closed path.
    pub cyclic: Vec<bool>,
}

impl Components {
    /// The cyclic component holding `node`, if `node` lies on a closed path.
    pub fn cyclic_of(&self, node: u32) -> Option<u32> {
        let c = *self.component.get(node as usize)?;
        (c != u32::MAX && self.cyclic[c as usize]).then_some(c)
    }

    /// The nodes of component `c`.
    pub fn nodes(&self, c: u32) -> impl Iterator<Item = u32> + '_ {
        (0u32..)
            .zip(&self.component)
            .filter(move |&(_, &k)| k == c)
            .map(|(n, _)| n)
    }
}

/// The dominator tree of a graph from a root (thesis §2.3).
///
/// Computed by the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
/// Dominance Algorithm", 2001) over the reverse postorder of the documented [`dfs`].
/// Dominance queries take O(1): each reachable node carries the interval of its
/// subtree in a DFS numbering of the tree itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomTree {
    root: u32,
    /// Immediate dominator per node; `None` for the root and unreachable nodes.
    idom: Vec<Option<u32>>,
    /// Tree children per node, in ascending node order.
    children: Vec<Vec<u32>>,
    /// Reverse-postorder number per reachable node (of the graph's DFS).
    rpo_number: Vec<Option<u32>>,
    /// Entry and exit times of each reachable node in a DFS of the tree itself.
    tree_enter: Vec<u32>,
    tree_exit: Vec<u32>,
    /// The reachable nodes in reverse postorder.
    rpo: Vec<u32>,
}

impl DomTree {
    /// The dominator tree of `graph` from `root`: the immediate dominators by
    /// Lengauer and Tarjan's algorithm (`idoms_lengauer_tarjan`), in
    /// near-linear time whatever the loop nesting (the iterative algorithm of
    /// Cooper, Harvey and Kennedy it replaced walks dominator chains as long as
    /// a nest is deep, once per back edge: quadratic on
    /// `scripts/nested-cfg.py loops D`; kept as the tests' reference).
    pub fn compute(graph: &Graph, root: u32) -> Self {
        let len = graph.len();
        let search = dfs(graph, root);
        let (idom, _) = idoms_lengauer_tarjan(graph, &search);
        let rpo = search.reverse_postorder();
        let rpo_number = search.rpo_number;
        let mut children = vec![Vec::new(); len];
        for (node, parent) in idom.iter().enumerate() {
            if let Some(parent) = parent {
                children[*parent as usize].push(node as u32);
            }
        }
        let (tree_enter, tree_exit) = tree_intervals(&children, rpo.first().copied(), len);
        DomTree {
            root,
            idom,
            children,
            rpo_number,
            tree_enter,
            tree_exit,
            rpo,
        }
    }

    /// The root the tree was computed from.
    pub fn root(&self) -> u32 {
        self.root
    }

    /// The number of nodes of the graph.
    pub fn len(&self) -> usize {
        self.idom.len()
    }

    /// Whether the graph has no nodes.
    pub fn is_empty(&self) -> bool {
        self.idom.is_empty()
    }

    /// The immediate dominator of `node`: `None` for the root, for unreachable nodes
    /// and for nodes outside the graph.
    pub fn idom(&self, node: u32) -> Option<u32> {
        self.idom.get(node as usize).copied().flatten()
    }

    /// Whether the root reaches `node`.
    pub fn is_reachable(&self, node: u32) -> bool {
        self.rpo_number
            .get(node as usize)
            .is_some_and(|n| n.is_some())
    }

    /// The reachable nodes in reverse postorder of the documented DFS.
    pub fn reverse_postorder(&self) -> &[u32] {
        &self.rpo
    }

    /// Whether `a` dominates `b` (§2.3; reflexive). Every node dominates an
    /// unreachable `b` (no path reaches it); an unreachable `a` dominates only
    /// unreachable nodes. False for nodes outside the graph.
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        if a as usize >= self.len() || b as usize >= self.len() {
            return false;
        }
        if !self.is_reachable(b) {
            return true;
        }
        if !self.is_reachable(a) {
            return false;
        }
        let (a, b) = (a as usize, b as usize);
        self.tree_enter[a] <= self.tree_enter[b] && self.tree_exit[b] <= self.tree_exit[a]
    }

    /// Whether `a` dominates `b` and `a ≠ b`.
    pub fn strictly_dominates(&self, a: u32, b: u32) -> bool {
        a != b && self.dominates(a, b)
    }

    /// The nodes `node` immediately dominates, in ascending order.
    pub fn children(&self, node: u32) -> &[u32] {
        self.children.get(node as usize).map_or(&[], Vec::as_slice)
    }

    /// The nearest node that dominates both `a` and `b`, if both are reachable.
    pub fn nearest_common_dominator(&self, a: u32, b: u32) -> Option<u32> {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return None;
        }
        let (mut a, mut b) = (a, b);
        // The idom of a node has a smaller RPO number, so walking up the node with
        // the larger number meets the other one at their nearest common dominator.
        while a != b {
            let (na, nb) = (self.rpo_number[a as usize], self.rpo_number[b as usize]);
            if na > nb {
                a = self.idom(a)?;
            } else {
                b = self.idom(b)?;
            }
        }
        Some(a)
    }

    /// The dominance frontier of every node (Cytron et al. 1991): `DF(x)` holds `y` iff
    /// `x` dominates a predecessor of `y` but does not strictly dominate `y`. Computed
    /// as in Cooper, Harvey and Kennedy (2001) from the predecessors of `graph`, which
    /// must be the graph the tree was computed from. Each list is sorted, without
    /// duplicates; unreachable nodes have empty frontiers and appear in none.
    pub fn frontiers(&self, graph: &Graph) -> Vec<Vec<u32>> {
        let mut frontier: Vec<Vec<u32>> = vec![Vec::new(); self.len()];
        for node in 0..self.len() as u32 {
            if !self.is_reachable(node) {
                continue;
            }
            let stop = self.idom(node);
            for &pred in graph.predecessors(node) {
                if !self.is_reachable(pred) {
                    continue;
                }
                // Walk up from the predecessor to (excluding) idom(node): every node on
                // the way dominates `pred` but not strictly `node`.
                let mut runner = Some(pred);
                while let Some(current) = runner {
                    if Some(current) == stop {
                        break;
                    }
                    frontier[current as usize].push(node);
                    runner = self.idom(current);
                }
            }
        }
        for list in &mut frontier {
            list.sort_unstable();
            list.dedup();
        }
        frontier
    }
}

/// The immediate dominator of every node the search `search` of `graph`
/// reached (`None` for its root and for unreached nodes), by the algorithm of
/// Lengauer and Tarjan with path compression ("A fast algorithm for finding
/// dominators in a flowgraph", 1979, the simple version), and the number of
/// steps taken (predecessors examined plus nodes compressed, for the tests'
/// budgets).
///
/// Nodes are numbered in the search's preorder. The semidominator of `w` is the
/// smallest-numbered `v` with a path `v → … → w` whose inner nodes are all
/// numbered above `w`; processing nodes in decreasing preorder, `eval(v)` gives
/// the node of least semidominator on the forest path above `v` among nodes
/// already processed, so `semi(w)` is the least `semi(eval(v))` over the
/// predecessors `v` of `w`. The dominator theorem then gives `idom(w)` as
/// `semi(w)` when the least semidominator on the tree path from `semi(w)` to
/// `w` is `w`'s own, and as `idom` of that node otherwise (the final pass, in
/// increasing preorder). Path compression keeps each `eval` amortised
/// `O(log n)`: `O(m log n)` in all, with no term for the loop nesting depth.
fn idoms_lengauer_tarjan(graph: &Graph, search: &Dfs) -> (Vec<Option<u32>>, u64) {
    const NONE: u32 = u32::MAX;
    let len = graph.len();
    let vertex = &search.preorder;
    let count = vertex.len();
    let mut idom: Vec<Option<u32>> = vec![None; len];
    if count == 0 {
        return (idom, 0);
    }
    let mut num = vec![NONE; len];
    for (i, &v) in vertex.iter().enumerate() {
        num[v as usize] = i as u32;
    }
    let parent: Vec<u32> = vertex
        .iter()
        .map(|&v| search.parent[v as usize].map_or(NONE, |p| num[p as usize]))
        .collect();
    // Everything below is in preorder numbers.
    let mut semi: Vec<u32> = (0..count as u32).collect();
    let mut label: Vec<u32> = (0..count as u32).collect();
    let mut ancestor = vec![NONE; count];
    let mut dom = vec![0u32; count];
    let mut bucket_head = vec![NONE; count];
    let mut bucket_next = vec![NONE; count];
    let mut path: Vec<u32> = Vec::new();
    let mut steps = 0u64;
    // The node of least semidominator on the forest path above `v` (`v` itself
    // at a forest root), compressing the path on the way.
    let mut eval =
        |v: u32, semi: &[u32], label: &mut [u32], ancestor: &mut [u32], steps: &mut u64| -> u32 {
            if ancestor[v as usize] == NONE {
                return v;
            }
            let mut x = v;
            while ancestor[ancestor[x as usize] as usize] != NONE {
                path.push(x);
                x = ancestor[x as usize];
            }
            *steps += path.len() as u64;
            // Top down: each node takes the better label of its (already
            // compressed) ancestor and links past it.
            while let Some(y) = path.pop() {
                let a = ancestor[y as usize];
                if semi[label[a as usize] as usize] < semi[label[y as usize] as usize] {
                    label[y as usize] = label[a as usize];
                }
                ancestor[y as usize] = ancestor[a as usize];
            }
            label[v as usize]
        };
    for w in (1..count as u32).rev() {
        for &p in graph.predecessors(vertex[w as usize]) {
            steps += 1;
            let v = num[p as usize];
            if v == NONE {
                // Unreachable: contributes no path.
                continue;
            }
            let u = eval(v, &semi, &mut label, &mut ancestor, &mut steps);
            if semi[u as usize] < semi[w as usize] {
                semi[w as usize] = semi[u as usize];
            }
        }
        let s = semi[w as usize];
        bucket_next[w as usize] = bucket_head[s as usize];
        bucket_head[s as usize] = w;
        let pw = parent[w as usize];
        ancestor[w as usize] = pw;
        let mut v = std::mem::replace(&mut bucket_head[pw as usize], NONE);
        while v != NONE {
            steps += 1;
            let u = eval(v, &semi, &mut label, &mut ancestor, &mut steps);
            dom[v as usize] = if semi[u as usize] < semi[v as usize] {
                u
            } else {
                pw
            };
            v = bucket_next[v as usize];
        }
    }
    for w in 1..count {
        if dom[w] != semi[w] {
            dom[w] = dom[dom[w] as usize];
        }
        idom[vertex[w] as usize] = Some(vertex[dom[w] as usize]);
    }
    (idom, steps)
}

/// The intersection step of Cooper-Harvey-Kennedy: walks two dominator chains up to
/// their meeting point, using reverse-postorder numbers to decide which to advance.
#[cfg(test)]
fn intersect(doms: &[Option<u32>], rpo_number: &[Option<u32>], a: u32, b: u32) -> u32 {
    let (mut a, mut b) = (a, b);
    while a != b {
        while rpo_number[a as usize] > rpo_number[b as usize] {
            match doms[a as usize] {
                Some(up) => a = up,
                None => return b,
            }
        }
        while rpo_number[b as usize] > rpo_number[a as usize] {
            match doms[b as usize] {
                Some(up) => b = up,
                None => return a,
            }
        }
    }
    a
}

/// Entry and exit times of a DFS over the dominator tree from `root`; unreachable
/// nodes get `u32::MAX` (never compared: callers test reachability first).
fn tree_intervals(children: &[Vec<u32>], root: Option<u32>, len: usize) -> (Vec<u32>, Vec<u32>) {
    let mut enter = vec![u32::MAX; len];
    let mut exit = vec![u32::MAX; len];
    let mut clock = 0u32;
    let mut stack: Vec<(u32, usize)> = Vec::new();
    if let Some(root) = root {
        enter[root as usize] = clock;
        clock += 1;
        stack.push((root, 0));
    }
    while let Some(top) = stack.last_mut() {
        let (node, next) = *top;
        match children[node as usize].get(next) {
            Some(&child) => {
                top.1 += 1;
                enter[child as usize] = clock;
                clock += 1;
                stack.push((child, 0));
            }
            None => {
                stack.pop();
                exit[node as usize] = clock;
                clock += 1;
            }
        }
    }
    (enter, exit)
}

/// Whether `graph` is reducible from `root` (thesis §2.4, after Hecht and Ullman): the
/// target of every retreating edge of the documented DFS dominates its source. Only
/// the part of the graph reachable from `root` matters.
pub fn is_reducible(graph: &Graph, root: u32) -> bool {
    let search = dfs(graph, root);
    let tree = DomTree::compute(graph, root);
    search
        .retreating_edges
        .iter()
        .all(|&(source, target)| tree.dominates(target, source))
}

/// The CFG of a function body (thesis §4.1): node `i` is `Block(i)`, the entry is the
/// first block of the layout (Def. 1), and unreachable blocks are nodes too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cfg {
    graph: Graph,
    succs: Vec<Vec<Block>>,
    preds: Vec<Vec<Block>>,
    entry: Block,
    search: Dfs,
}

impl Cfg {
    /// The CFG of `body`. A body without blocks gives a CFG without nodes whose
    /// `entry()` is `Block(0)`, which no query accepts as a node.
    pub fn new(body: &Body) -> Self {
        let succs: Vec<Vec<u32>> = body
            .blocks
            .values()
            .map(|block| block.term.successors().iter().map(|b| b.as_u32()).collect())
            .collect();
        let graph = Graph::from_succs(succs);
        let to_blocks = |lists: &Vec<Vec<u32>>| -> Vec<Vec<Block>> {
            lists
                .iter()
                .map(|list| list.iter().map(|&n| Block::from_u32(n)).collect())
                .collect()
        };
        let entry = body.entry().unwrap_or(Block::from_u32(0));
        let search = dfs(&graph, entry.as_u32());
        Cfg {
            succs: to_blocks(&graph.succs),
            preds: to_blocks(&graph.preds),
            graph,
            entry,
            search,
        }
    }

    /// The index graph (node `i` is `Block(i)`), for the generic algorithms.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The number of blocks (nodes).
    pub fn len(&self) -> usize {
        self.graph.len()
    }

    /// Whether the body has no blocks.
    pub fn is_empty(&self) -> bool {
        self.graph.is_empty()
    }

    /// The entry block (Def. 1: the first block of the layout).
    pub fn entry(&self) -> Block {
        self.entry
    }

    /// The successors of `block` in successor-index order, duplicates kept.
    pub fn succs(&self, block: Block) -> &[Block] {
        self.succs
            .get(block.as_u32() as usize)
            .map_or(&[], Vec::as_slice)
    }

    /// The `index`-th successor of `block`: `ℓ'` with `(ℓ, index, ℓ') ∈ E` (§2.2).
    pub fn successor(&self, block: Block, index: u32) -> Option<Block> {
        self.succs(block).get(index as usize).copied()
    }

    /// The predecessors of `block`, one per edge.
    pub fn preds(&self, block: Block) -> &[Block] {
        self.preds
            .get(block.as_u32() as usize)
            .map_or(&[], Vec::as_slice)
    }

    /// The blocks the entry reaches, in reverse postorder of the documented DFS.
    pub fn reverse_postorder(&self) -> Vec<Block> {
        self.search
            .postorder
            .iter()
            .rev()
            .map(|&n| Block::from_u32(n))
            .collect()
    }

    /// Whether the entry reaches `block`.
    pub fn reachable(&self, block: Block) -> bool {
        self.search.is_reachable(block.as_u32())
    }

    /// The documented DFS from the entry (see [`dfs`]).
    pub fn dfs(&self) -> &Dfs {
        &self.search
    }

    /// The retreating edges of the documented DFS, as blocks.
    pub fn retreating_edges(&self) -> Vec<(Block, Block)> {
        self.search
            .retreating_edges
            .iter()
            .map(|&(x, y)| (Block::from_u32(x), Block::from_u32(y)))
            .collect()
    }

    /// The dominator tree from the entry.
    pub fn dominators(&self) -> BlockDomTree {
        BlockDomTree {
            tree: DomTree::compute(&self.graph, self.entry.as_u32()),
        }
    }

    /// Whether the CFG is reducible (§2.4).
    pub fn is_reducible(&self) -> bool {
        is_reducible(&self.graph, self.entry.as_u32())
    }
}

/// A [`DomTree`] of a [`Cfg`], queried with blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockDomTree {
    /// The index-level tree.
    pub tree: DomTree,
}

impl BlockDomTree {
    /// The immediate dominator of `block` (`None` for the entry and unreachable blocks).
    pub fn idom(&self, block: Block) -> Option<Block> {
        self.tree.idom(block.as_u32()).map(Block::from_u32)
    }

    /// Whether `a` dominates `b` (see [`DomTree::dominates`]).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        self.tree.dominates(a.as_u32(), b.as_u32())
    }

    /// Whether `a` dominates `b` and `a ≠ b`.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        self.tree.strictly_dominates(a.as_u32(), b.as_u32())
    }

    /// Whether the entry reaches `block`.
    pub fn is_reachable(&self, block: Block) -> bool {
        self.tree.is_reachable(block.as_u32())
    }

    /// The blocks `block` immediately dominates, in ascending order.
    pub fn children(&self, block: Block) -> Vec<Block> {
        self.tree
            .children(block.as_u32())
            .iter()
            .map(|&n| Block::from_u32(n))
            .collect()
    }

    /// The dominance frontier of every block, indexed by block (see
    /// [`DomTree::frontiers`]).
    pub fn frontiers(&self, cfg: &Cfg) -> Vec<Vec<Block>> {
        self.tree
            .frontiers(cfg.graph())
            .into_iter()
            .map(|list| list.into_iter().map(Block::from_u32).collect())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Checks the dominator tree, retreating edges and reducibility of `succs` from
    /// node 0 against hand-derived answers; `idom` lists `None` for root/unreachable.
    fn check(succs: &[&[u32]], idom: &[Option<u32>], retreating: &[(u32, u32)], reducible: bool) {
        let graph = Graph::from_succs(succs.iter().map(|s| s.to_vec()).collect());
        let tree = DomTree::compute(&graph, 0);
        let got: Vec<Option<u32>> = (0..graph.len() as u32).map(|n| tree.idom(n)).collect();
        assert_eq!(got, idom, "idom of {succs:?}");
        assert_eq!(
            dfs(&graph, 0).retreating_edges,
            retreating,
            "retreating edges of {succs:?}"
        );
        assert_eq!(
            is_reducible(&graph, 0),
            reducible,
            "reducibility of {succs:?}"
        );
        assert_eq!(
            brute_dominance(&graph, 0),
            dominance_table(&tree, graph.len())
        );
        assert_eq!(collapses(&graph, 0), reducible, "T1/T2 oracle on {succs:?}");
    }

    #[test]
    fn diamond() {
        // 0 → {1, 2} → 3
        check(
            &[&[1, 2], &[3], &[3], &[]],
            &[None, Some(0), Some(0), Some(0)],
            &[],
            true,
        );
        let graph = Graph::from_succs(vec![vec![1, 2], vec![3], vec![3], vec![]]);
        let tree = DomTree::compute(&graph, 0);
        assert_eq!(
            tree.frontiers(&graph),
            vec![vec![], vec![3], vec![3], vec![]]
        );
        assert_eq!(tree.children(0), &[1, 2, 3]);
        assert_eq!(tree.nearest_common_dominator(1, 2), Some(0));
        assert_eq!(dfs(&graph, 0).reverse_postorder(), vec![0, 2, 1, 3]);
    }

    #[test]
    fn loops() {
        // 0 → 1 ⇄ 2, 1 → 3: a while loop with header 1 and latch 2.
        check(
            &[&[1], &[2, 3], &[1], &[]],
            &[None, Some(0), Some(1), Some(1)],
            &[(2, 1)],
            true,
        );
        // Nested: 0 → 1 → 2 → 3 → {2, 4}, 4 → {1, 5}.
        check(
            &[&[1], &[2], &[3], &[2, 4], &[1, 5], &[]],
            &[None, Some(0), Some(1), Some(2), Some(3), Some(4)],
            &[(3, 2), (4, 1)],
            true,
        );
        let graph = Graph::from_succs(vec![
            vec![1],
            vec![2],
            vec![3],
            vec![2, 4],
            vec![1, 5],
            vec![],
        ]);
        let tree = DomTree::compute(&graph, 0);
        let frontiers = tree.frontiers(&graph);
        assert_eq!(frontiers[3], vec![1, 2]);
        assert_eq!(frontiers[1], vec![1]);
    }

    #[test]
    fn classic_irreducible() {
        // 0 → {1, 2}, 1 ⇄ 2: the cycle has two entries. The documented DFS goes to 1
        // first, so 2 → 1 is the retreating edge, and 1 does not dominate 2.
        check(
            &[&[1, 2], &[2], &[1]],
            &[None, Some(0), Some(0)],
            &[(2, 1)],
            false,
        );
        // Swapping the entry's successor order flips the retreating edge.
        check(
            &[&[2, 1], &[2], &[1]],
            &[None, Some(0), Some(0)],
            &[(1, 2)],
            false,
        );
    }

    #[test]
    fn self_loops_unreachable_and_parallel_edges() {
        check(
            &[&[0, 1], &[1, 2], &[]],
            &[None, Some(0), Some(1)],
            &[(0, 0), (1, 1)],
            true,
        );
        // Node 2 is unreachable and has an edge into the reachable part.
        check(&[&[1], &[], &[1, 2]], &[None, Some(0), None], &[], true);
        let graph = Graph::from_succs(vec![vec![1], vec![], vec![1]]);
        let tree = DomTree::compute(&graph, 0);
        assert!(
            tree.dominates(1, 2),
            "an unreachable node is dominated by everything"
        );
        assert!(!tree.dominates(2, 1));
        assert!(!tree.is_reachable(2));
        // Two edges from 0 to 1 (a switch with two cases to one block).
        let graph = Graph::from_succs(vec![vec![1, 1, 2], vec![2], vec![]]);
        assert_eq!(graph.predecessors(1), &[0, 0]);
        assert_eq!(graph.predecessors(2), &[0, 1]);
        check(
            &[&[1, 1, 2], &[2], &[]],
            &[None, Some(0), Some(0)],
            &[],
            true,
        );
        // Edges out of the graph are dropped.
        assert_eq!(Graph::from_succs(vec![vec![0, 7]]).successors(0), &[0]);
    }

    #[test]
    fn reversed_and_roots() {
        let graph = Graph::from_succs(vec![vec![1, 2], vec![3], vec![3], vec![]]);
        let rev = graph.reversed();
        assert_eq!(rev.successors(3), &[1, 2]);
        let post = DomTree::compute(&rev, 3);
        assert_eq!(post.idom(0), Some(3));
        assert_eq!(post.idom(1), Some(3));
        let nothing = DomTree::compute(&graph, 9);
        assert!(!nothing.is_reachable(0));
        assert!(!nothing.dominates(9, 0));
        assert!(DomTree::compute(&Graph::default(), 0).is_empty());
    }

    /// `table[a][b]`: whether `a` dominates `b` according to `tree`.
    fn dominance_table(tree: &DomTree, len: usize) -> Vec<Vec<bool>> {
        (0..len as u32)
            .map(|a| (0..len as u32).map(|b| tree.dominates(a, b)).collect())
            .collect()
    }

    /// Nodes reachable from `root` in `graph` with node `removed` deleted.
    fn reachable_without(graph: &Graph, root: u32, removed: Option<u32>) -> Vec<bool> {
        let mut seen = vec![false; graph.len()];
        if Some(root) == removed {
            return seen;
        }
        let mut work = vec![root];
        seen[root as usize] = true;
        while let Some(n) = work.pop() {
            for &s in graph.successors(n) {
                if Some(s) != removed && !seen[s as usize] {
                    seen[s as usize] = true;
                    work.push(s);
                }
            }
        }
        seen
    }

    /// §2.3 by brute force: `a` dominates `b` iff `a = b` or removing `a` cuts every
    /// path from the root to `b`.
    fn brute_dominance(graph: &Graph, root: u32) -> Vec<Vec<bool>> {
        (0..graph.len() as u32)
            .map(|a| {
                let without = reachable_without(graph, root, Some(a));
                (0..graph.len() as u32)
                    .map(|b| a == b || !without[b as usize])
                    .collect()
            })
            .collect()
    }

    /// Reducibility by the T1/T2 collapse (Hecht and Ullman): on the reachable part,
    /// repeatedly delete self-loops (T1) and merge a non-root node with a unique
    /// predecessor into it (T2); reducible iff one node remains.
    fn collapses(graph: &Graph, root: u32) -> bool {
        use std::collections::BTreeSet;
        let reachable = reachable_without(graph, root, None);
        let mut alive: BTreeSet<u32> = (0..graph.len() as u32)
            .filter(|&n| reachable[n as usize])
            .collect();
        let mut succs: Vec<BTreeSet<u32>> = graph
            .succs
            .iter()
            .map(|s| s.iter().copied().collect())
            .collect();
        loop {
            for (n, s) in succs.iter_mut().enumerate() {
                s.remove(&(n as u32));
            }
            let candidate = alive.iter().copied().find_map(|n| {
                let preds: Vec<u32> = alive
                    .iter()
                    .copied()
                    .filter(|&p| succs[p as usize].contains(&n))
                    .collect();
                (n != root && preds.len() == 1).then(|| (n, preds[0]))
            });
            let Some((node, pred)) = candidate else { break };
            let moved = std::mem::take(&mut succs[node as usize]);
            succs[pred as usize].remove(&node);
            succs[pred as usize].extend(moved);
            alive.remove(&node);
        }
        alive.len() == 1
    }

    /// Random graphs of 1 to 8 nodes with up to 3 successors each (self-loops and
    /// parallel edges included).
    fn graphs() -> impl Strategy<Value = Graph> {
        (1usize..=8).prop_flat_map(|len| {
            prop::collection::vec(prop::collection::vec(0..len as u32, 0..=3), len)
                .prop_map(Graph::from_succs)
        })
    }

    /// The immediate dominators by the iterative algorithm of Cooper, Harvey
    /// and Kennedy ("A Simple, Fast Dominance Algorithm"): from the root in
    /// reverse postorder, each node's dominator is the intersection of its
    /// processed predecessors' until nothing changes. What [`DomTree::compute`]
    /// used before [`idoms_lengauer_tarjan`]; the oracle it is compared with.
    fn idoms_iterative_reference(graph: &Graph, root: u32) -> Vec<Option<u32>> {
        let search = dfs(graph, root);
        let rpo = search.reverse_postorder();
        let rpo_number = search.rpo_number;
        let mut doms: Vec<Option<u32>> = vec![None; graph.len()];
        if let Some(&first) = rpo.first() {
            doms[first as usize] = Some(first);
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &node in rpo.iter().skip(1) {
                let mut new_idom: Option<u32> = None;
                for &pred in graph.predecessors(node) {
                    if doms[pred as usize].is_none() {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => pred,
                        Some(current) => intersect(&doms, &rpo_number, pred, current),
                    });
                }
                if new_idom.is_some() && doms[node as usize] != new_idom {
                    doms[node as usize] = new_idom;
                    changed = true;
                }
            }
        }
        if let Some(&first) = rpo.first() {
            doms[first as usize] = None;
        }
        doms
    }

    /// Random graphs of up to 40 nodes, mostly forward edges (nested
    /// structure, loops, irreducible regions), unreachable nodes included.
    fn bigger_graphs() -> impl Strategy<Value = Graph> {
        (1usize..=40).prop_flat_map(|len| {
            prop::collection::vec(
                prop::collection::vec((0..len as u32, any::<bool>()), 0..=3),
                len,
            )
            .prop_map(move |raw| {
                let succs = raw
                    .into_iter()
                    .enumerate()
                    .map(|(i, ts)| {
                        ts.into_iter()
                            .map(|(t, near)| {
                                let ahead = (len - i - 1) as u32;
                                if near && ahead > 0 {
                                    i as u32 + 1 + t % ahead.min(3)
                                } else {
                                    t
                                }
                            })
                            .collect()
                    })
                    .collect();
                Graph::from_succs(succs)
            })
        })
    }

    /// Dominators of 2,000 nested loops take at most 4 steps per node, where
    /// the iterative algorithm walked a dominator chain as deep as the nest for
    /// every header; 40 loops agree with it.
    #[test]
    fn nested_loops_dominators_cost_linear_work() {
        for depth in [40u32, 2000] {
            let graph = Graph::nested_loops(depth);
            let (idom, steps) = idoms_lengauer_tarjan(&graph, &dfs(&graph, 0));
            assert!(
                steps <= 4 * graph.len() as u64,
                "depth {depth}: {steps} steps"
            );
            // Each header is dominated by the one around it, each latch by the
            // latch inside it.
            assert_eq!(idom[2], Some(1));
            assert_eq!(idom[(2 * depth + 1) as usize], Some(2 * depth));
            if depth == 40 {
                assert_eq!(idom, idoms_iterative_reference(&graph, 0));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn lengauer_tarjan_equals_the_iterative_reference(graph in bigger_graphs(), root in 0u32..40) {
            let root = root % graph.len() as u32;
            let (fast, _) = idoms_lengauer_tarjan(&graph, &dfs(&graph, root));
            prop_assert_eq!(fast, idoms_iterative_reference(&graph, root), "{:?}", graph.succs);
        }
    }

    /// Whether `to` is reached from `from` by a path of at least one edge that
    /// does not touch `removed` (breadth-first).
    fn reaches_without(graph: &Graph, from: u32, to: u32, removed: u32) -> bool {
        let mut seen = vec![false; graph.len()];
        let mut work = vec![from];
        while let Some(n) = work.pop() {
            for &s in graph.successors(n) {
                if s == removed || seen[s as usize] {
                    continue;
                }
                if s == to {
                    return true;
                }
                seen[s as usize] = true;
                work.push(s);
            }
        }
        false
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// Two nodes share a cyclic component of the graph without `removed`
        /// exactly when each reaches the other by a path avoiding it (so both
        /// lie on one closed path), and a node alone is cyclic exactly when it
        /// reaches itself.
        #[test]
        fn components_without_are_the_closed_paths(graph in bigger_graphs(), removed in 0u32..40) {
            let removed = removed % graph.len() as u32;
            let comps = components_without(&graph, removed);
            for a in 0..graph.len() as u32 {
                if a == removed {
                    prop_assert_eq!(comps.cyclic_of(a), None);
                    continue;
                }
                prop_assert_eq!(
                    comps.cyclic_of(a).is_some(),
                    reaches_without(&graph, a, a, removed),
                    "node {} of {:?} without {}", a, graph.succs, removed
                );
                for b in 0..graph.len() as u32 {
                    if b == removed || b == a {
                        continue;
                    }
                    let together = comps.cyclic_of(a).is_some() && comps.cyclic_of(a) == comps.cyclic_of(b);
                    let mutual = reaches_without(&graph, a, b, removed) && reaches_without(&graph, b, a, removed);
                    prop_assert_eq!(together, mutual, "{} and {} in {:?} without {}", a, b, graph.succs, removed);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn dominance_matches_brute_force(graph in graphs()) {
            let tree = DomTree::compute(&graph, 0);
            prop_assert_eq!(dominance_table(&tree, graph.len()), brute_dominance(&graph, 0));
        }

        #[test]
        fn idom_is_the_closest_strict_dominator(graph in graphs()) {
            let tree = DomTree::compute(&graph, 0);
            let brute = brute_dominance(&graph, 0);
            for b in 0..graph.len() as u32 {
                let Some(d) = tree.idom(b) else {
                    prop_assert!(b == 0 || !tree.is_reachable(b));
                    continue;
                };
                prop_assert!(d != b && brute[d as usize][b as usize]);
                for a in 0..graph.len() as u32 {
                    if a != b && brute[a as usize][b as usize] {
                        prop_assert!(brute[a as usize][d as usize], "{a} dominates {b} but not idom {d}");
                    }
                }
            }
        }

        #[test]
        fn reducibility_matches_t1_t2(graph in graphs()) {
            prop_assert_eq!(is_reducible(&graph, 0), collapses(&graph, 0));
        }

        #[test]
        fn frontiers_match_definition(graph in graphs()) {
            let tree = DomTree::compute(&graph, 0);
            let brute = brute_dominance(&graph, 0);
            let reachable = reachable_without(&graph, 0, None);
            let frontiers = tree.frontiers(&graph);
            for x in 0..graph.len() as u32 {
                let expect: Vec<u32> = (0..graph.len() as u32)
                    .filter(|&y| {
                        reachable[x as usize]
                            && reachable[y as usize]
                            && graph.predecessors(y).iter().any(|&p| {
                                reachable[p as usize] && brute[x as usize][p as usize]
                            })
                            && !(x != y && brute[x as usize][y as usize])
                    })
                    .collect();
                prop_assert_eq!(&frontiers[x as usize], &expect, "DF({})", x);
            }
        }

        #[test]
        fn dfs_orders_are_permutations_of_the_reachable_nodes(graph in graphs()) {
            let search = dfs(&graph, 0);
            let reachable = reachable_without(&graph, 0, None);
            let mut pre = search.preorder.clone();
            pre.sort_unstable();
            let expect: Vec<u32> = (0..graph.len() as u32).filter(|&n| reachable[n as usize]).collect();
            prop_assert_eq!(&pre, &expect);
            let mut post = search.postorder.clone();
            post.sort_unstable();
            prop_assert_eq!(&post, &expect);
            // Every edge that is not retreating goes forward in reverse postorder.
            for (x, targets) in graph.succs.iter().enumerate() {
                for &y in targets {
                    let (Some(nx), Some(ny)) = (search.rpo_number[x], search.rpo_number[y as usize]) else { continue };
                    let retreating = search.retreating_edges.contains(&(x as u32, y));
                    prop_assert_eq!(retreating, ny <= nx);
                }
            }
        }
    }
}
