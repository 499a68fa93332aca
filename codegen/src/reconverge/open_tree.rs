//! Step 3 of the reconverging route: the poster's OpenTree walk, which reroutes
//! open edges through flow blocks until every divergent branch has two
//! successors, one of which post-dominates it (Definition 1).
//!
//! # The reconstruction
//! The poster gives the bookkeeping (Fig. 4) but not the algorithm's text; this is
//! the reading implemented here. Blocks are visited one by one in an *ordering*
//! (below). An edge is *open* while its target is unvisited and *closed* once it
//! is visited. The OpenTree (OT) is a forest under a virtual root whose nodes are
//! the visited blocks that still have open edges; its parent-child edges record
//! which visited block a later one was reached from. A divergent block is *armed*
//! once one of its edges is closed. Visiting a block `B`:
//!
//! 1. **Defuse armed predecessors.** Let `S` be the union of the OT subtrees
//!    rooted at the armed predecessors of `B`. If some node of `S` has an open edge
//!    to a block other than `B`, *reroute* `S`: a new flow block `F` takes every
//!    open edge of every node of `S` (Fig. 4c: "Subforest of A and C is rerouted
//!    through new flow block. Unvisited nodes B and D become open edges of the
//!    inserted block"). For each of its targets `T`, `F` gets an `i1` phi that is
//!    true on the arm from a block whose lanes were heading to `T`: the branch
//!    condition `c` (or `¬c`) when both edges of `br c` are rerouted, `true` when
//!    one edge is, and the flow phi itself when the block is an earlier flow
//!    block. `F` is visited at once (its edges from `S` close).
//! 2. **Attach `B`** (Fig. 4d: "B is attached to its lowest predecessor"): the
//!    paths from the OT nodes that are predecessors of `B` up to their common
//!    ancestor are flattened into one chain (ancestors stay above descendants) and
//!    `B` becomes a child of its bottom. The edges into `B` close: a divergent
//!    predecessor becomes armed, a flow block records `B` as its first successor,
//!    and a node without open edges leaves the OT (its children move to its
//!    parent).
//!
//! A flow block counts as divergent, so when its first successor closes it is
//! armed, and when the next of its targets is visited all its other open edges are
//! rerouted to a newer flow block: every flow block ends with at most two
//! successors, `br (cond of first), first, newer flow` (the poster: "Solid black
//! edges symbolize OT parent-child edges. Divergent nodes are called armed (red)
//! if one of the outgoing edges has already been closed").
//!
//! # Why Definition 1 holds
//! A node visited after `A` and reached from it through closed edges is attached
//! below `A` and stays below it (flattening keeps ancestors above descendants;
//! removal moves children up, not past `A`). When the last open edge of an armed
//! `A` closes, at the visit of a block `T`, step 1 has made every open edge of
//! `A`'s subtree lead to `T` (directly, or to the flow block `F` that took them,
//! which is then the `T`). So every forward path from `A` stays in blocks below
//! `A` until it takes an edge to `T`: `T` post-dominates `A` along forward paths.
//! Back edges are never rerouted (their targets, loop headers, are visited before
//! the latch), so the walk works on the forward DAG of the reducible CFG. For a
//! divergent branch inside a loop, with one latch (see [`super::normal_form`]) and
//! only uniform exits (after the divergent loop transform, step 2), the latch is
//! the last block of the loop in the ordering, so `T` is found inside the loop
//! before any path leaves it: `T` post-dominates `A` in the CFG. The route checks
//! Definition 1 on a fresh analysis of the output anyway.
//!
//! # The ordering
//! The poster names four orderings (DF, DFPD, BF, RPOT) and says that correctness
//! does not depend on the choice, only the quality of the output. The walk here
//! needs two properties of it: every forward predecessor of a block is visited
//! before the block (an open edge always points forward), and every loop is
//! visited as one interval (a subtree rooted inside a loop then holds only blocks
//! of that loop, so no flow block mixes edges from inside a loop with edges from
//! outside, which would give the loop a second entry). RPOT has the first
//! property but not always the second; the thesis block index (§2.5) is a
//! topological order of the forward CFG that has both, and also keeps dominance
//! regions compact where it can (not needed for correctness: a region's blocks
//! are visited together, so its edges close before the walk moves on). Ties
//! between unrelated blocks go by the RPOT of the documented DFS, so the block
//! index is the poster's RPOT made loop-compact. That is the ordering used. On
//! the poster's Fig. 2a it gives A → C → B → D, the order of Fig. 4.
//!
//! A divergent block with a back edge (a divergent latch) cannot satisfy
//! Definition 1 without rerouting the back edge; after the divergent loop
//! transform and with one latch per loop there is none, and the route's final
//! check would report it.

use super::repair::internal_error;
use super::repair::{predecessor_edges, remove_unused_new, repair_dominance};
use crate::edit::{Editor, set_successor};
use crate::error::TransformError;
use pllvm_analysis::block_index;
use pllvm_analysis::result::Uniformity;
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::{Block, FuncId, InstKind, Module, Terminator, Value};
use pllvm_semantics::types::TypeTable;
use std::collections::{HashMap, HashSet};

/// The OT node of the virtual root.
const ROOT: usize = 0;

/// One node of the OpenTree.
#[derive(Clone, Debug)]
struct TreeNode {
    /// The block (`None` for the root).
    block: Option<Block>,
    parent: Option<usize>,
    children: Vec<usize>,
    /// Whether the node is still in the tree (it has open edges).
    in_tree: bool,
}

/// A flow block's successors while the walk runs: each target with the `i1`
/// value that is true for the lanes heading there, and the first target visited.
#[derive(Clone, Debug)]
struct Flow {
    first: Option<Block>,
    out: Vec<(Block, Value)>,
}

/// The walk's state (see the module doc).
struct OpenTree {
    nodes: Vec<TreeNode>,
    node_of: HashMap<Block, usize>,
    visited: HashSet<Block>,
    armed: HashSet<Block>,
    divergent: HashSet<Block>,
    flows: HashMap<Block, Flow>,
    /// Flow blocks in creation order.
    flow_order: Vec<Block>,
    /// Each flow block's predecessors (fixed when it is made).
    flow_preds: HashMap<Block, Vec<Block>>,
    /// The blocks that give an edge of a uniform `switch` its own way into a
    /// flow block: the switch's block and the edge's target.
    splits: HashMap<Block, (Block, Block)>,
    /// The current distinct predecessors of every block.
    incoming: HashMap<Block, Vec<Block>>,
    /// Where each block goes in the layout: original blocks by their position,
    /// a new block after its anchor (the key of the anchor with one more
    /// number); the layout is the blocks sorted by key.
    layout_key: HashMap<Block, Vec<u32>>,
    /// The next number for a key (so that later blocks after one anchor follow
    /// earlier ones).
    next_key: u32,
    /// Each flow block's index in `flow_order`.
    flow_index: HashMap<Block, usize>,
    notes: Vec<String>,
}

/// One OpenTree walk over `module`, whose divergent branches `uniformity` gives;
/// returns the rewritten module. Appends one note per flow block.
pub(super) fn open_tree_walk(
    module: &Module,
    func: FuncId,
    uniformity: &Uniformity,
    notes: &mut Vec<String>,
) -> Result<Module, TransformError> {
    let mut ed = Editor::new(module, func);
    let first_new = ed.body().insts.len();
    let body = ed.body();
    let cfg = Cfg::new(body);
    let order: Vec<Block> = block_index(body)
        .order()
        .iter()
        .copied()
        .filter(|&b| cfg.reachable(b))
        .collect();
    let divergent: HashSet<Block> = body
        .layout
        .iter()
        .copied()
        .filter(|&b| {
            uniformity.terminators[b].is_varying() && distinct_successors(&ed, b).len() >= 2
        })
        .collect();
    let original_preds = predecessor_edges(body);
    let mut incoming: HashMap<Block, Vec<Block>> = HashMap::new();
    for &b in &body.layout {
        for s in distinct_successors(&ed, b) {
            incoming.entry(s).or_default().push(b);
        }
    }
    let mut tree = OpenTree {
        nodes: vec![TreeNode {
            block: None,
            parent: None,
            children: Vec::new(),
            in_tree: true,
        }],
        node_of: HashMap::new(),
        visited: HashSet::new(),
        armed: HashSet::new(),
        divergent,
        flows: HashMap::new(),
        flow_order: Vec::new(),
        flow_preds: HashMap::new(),
        splits: HashMap::new(),
        incoming,
        layout_key: body
            .layout
            .iter()
            .enumerate()
            .map(|(i, &b)| (b, vec![i as u32]))
            .collect(),
        next_key: 0,
        flow_index: HashMap::new(),
        notes: Vec::new(),
    };
    for b in order {
        tree.visit(&mut ed, b);
    }
    if !tree.nodes[ROOT].children.is_empty() {
        return Err(internal_error(
            func,
            "open edges remain after the OpenTree walk visited every block",
        ));
    }
    tree.finish_flow_blocks(&mut ed, func)?;
    ed.body_mut().layout = tree.layout();
    // The blocks that existed before the walk and whose incoming edges changed.
    let now = predecessor_edges(ed.body());
    let changed: Vec<Block> = module.functions[func]
        .body
        .as_ref()
        .map(|b| b.layout.clone())
        .unwrap_or_default()
        .into_iter()
        .filter(|b| original_preds.get(b) != now.get(b))
        .collect();
    tree.rebuild_phis(&mut ed, &changed);
    repair_dominance(&mut ed);
    remove_unused_new(&mut ed, first_new);
    notes.extend(tree.notes);
    Ok(ed.finish())
}

/// The successors of `b`'s terminator, each once, in successor-index order.
fn distinct_successors(ed: &Editor, b: Block) -> Vec<Block> {
    let mut out = Vec::new();
    for s in ed.body().blocks[b].term.successors() {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

impl OpenTree {
    /// The current successors of `x`, each once: a flow block's targets, or its
    /// terminator's.
    fn successors(&self, ed: &Editor, x: Block) -> Vec<Block> {
        match self.flows.get(&x) {
            Some(flow) => flow.out.iter().map(|&(t, _)| t).collect(),
            None => distinct_successors(ed, x),
        }
    }

    /// The targets of `x`'s open edges (unvisited successors).
    fn open_targets(&self, ed: &Editor, x: Block) -> Vec<Block> {
        self.successors(ed, x)
            .into_iter()
            .filter(|t| !self.visited.contains(t))
            .collect()
    }

    fn in_tree(&self, b: Block) -> bool {
        self.node_of.get(&b).is_some_and(|&n| self.nodes[n].in_tree)
    }

    /// Visits `b`: step 1 (defuse armed predecessors) and step 2 (attach).
    fn visit(&mut self, ed: &mut Editor, b: Block) {
        let armed_preds: Vec<Block> = self
            .incoming
            .get(&b)
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|&p| self.armed.contains(&p) && self.in_tree(p))
            .collect();
        if !armed_preds.is_empty() {
            let region = self.subtrees(&armed_preds);
            let escapes = region
                .iter()
                .any(|&x| self.open_targets(ed, x).iter().any(|&t| t != b));
            if escapes {
                self.reroute(ed, &region);
            }
        }
        self.attach(ed, b);
    }

    /// The blocks of the OT subtrees rooted at `roots`, each once, in preorder.
    fn subtrees(&self, roots: &[Block]) -> Vec<Block> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        for r in roots {
            let Some(&n) = self.node_of.get(r) else {
                continue;
            };
            let mut stack = vec![n];
            while let Some(x) = stack.pop() {
                if !seen.insert(x) {
                    continue;
                }
                if let Some(block) = self.nodes[x].block {
                    out.push(block);
                }
                for &c in self.nodes[x].children.iter().rev() {
                    stack.push(c);
                }
            }
        }
        out
    }

    /// Step 1's rerouting: a new flow block takes every open edge of `region`
    /// and is visited at once.
    fn reroute(&mut self, ed: &mut Editor, region: &[Block]) {
        let flow = ed.new_numbered_block("flow", Terminator::Unreachable);
        let yes = ed.const_bool(true);
        let no = ed.const_bool(false);
        // (predecessor of the flow block, target, lanes-heading-there condition)
        let mut arms: Vec<(Block, Block, Value)> = Vec::new();
        let mut flow_preds: Vec<Block> = Vec::new();
        let mut targets: Vec<Block> = Vec::new();
        for &x in region {
            let open = self.open_targets(ed, x);
            if open.is_empty() {
                continue;
            }
            for &t in &open {
                if !targets.contains(&t) {
                    targets.push(t);
                }
                if let Some(list) = self.incoming.get_mut(&t) {
                    list.retain(|&p| p != x);
                }
            }
            if let Some(f) = self.flows.get_mut(&x) {
                for &(t, c) in &f.out {
                    if open.contains(&t) {
                        arms.push((x, t, c));
                    }
                }
                f.out.retain(|(t, _)| !open.contains(t));
                f.out.push((flow, yes));
                flow_preds.push(x);
                continue;
            }
            match ed.body().blocks[x].term.clone() {
                Terminator::Br(t) => {
                    arms.push((x, t, yes));
                    ed.retarget(x, t, flow);
                    flow_preds.push(x);
                }
                Terminator::CondBr {
                    cond,
                    if_true,
                    if_false,
                } => {
                    let (t_open, f_open) = (open.contains(&if_true), open.contains(&if_false));
                    if t_open && f_open {
                        let stem = format!("{}.not", ed.stem(cond));
                        let not = ed.not(x, cond, &stem, false);
                        arms.push((x, if_true, cond));
                        arms.push((x, if_false, not));
                        ed.body_mut().blocks[x].term = Terminator::Br(flow);
                    } else {
                        let t = if t_open { if_true } else { if_false };
                        arms.push((x, t, yes));
                        ed.retarget(x, t, flow);
                    }
                    flow_preds.push(x);
                }
                Terminator::Switch { .. } => {
                    // A uniform switch inside the region: each of its open edges
                    // gets a block of its own into the flow block (the first
                    // goes directly), so that every arm of the flow's phis knows
                    // the one target its lanes head to.
                    let slots = ed.body().blocks[x].term.successors();
                    let mut direct = true;
                    for (s, &t) in slots.iter().enumerate() {
                        if !open.contains(&t) {
                            continue;
                        }
                        let from = if direct {
                            direct = false;
                            x
                        } else {
                            let stem = format!("{}.to.{}", ed.block_name(x), ed.block_name(t));
                            let split = ed.new_block(&stem, Terminator::Br(flow));
                            self.visited.insert(split);
                            self.splits.insert(split, (x, t));
                            self.insert_after(split, x);
                            split
                        };
                        let to = if from == x { flow } else { from };
                        set_successor(&mut ed.body_mut().blocks[x].term, s, to);
                        arms.push((from, t, yes));
                        flow_preds.push(from);
                    }
                }
                Terminator::Ret(_) | Terminator::Unreachable => {}
            }
        }
        let mut out = Vec::new();
        for &t in &targets {
            let values: Vec<(Value, Block)> = flow_preds
                .iter()
                .map(|&p| {
                    let v = arms
                        .iter()
                        .find(|&&(q, target, _)| q == p && target == t)
                        .map_or(no, |&(_, _, c)| c);
                    (v, p)
                })
                .collect();
            let cond = match values.first() {
                Some(&(v, _)) if values.iter().all(|&(w, _)| w == v) => v,
                _ => {
                    let stem = format!("to.{}", ed.block_name(t));
                    ed.phi(flow, TypeTable::I1, values, None, &stem)
                }
            };
            out.push((t, cond));
            self.incoming.entry(t).or_default().push(flow);
        }
        self.incoming.insert(flow, flow_preds.clone());
        self.flow_preds.insert(flow, flow_preds.clone());
        let last = flow_preds
            .iter()
            .copied()
            .max_by(|a, b| self.layout_key.get(a).cmp(&self.layout_key.get(b)));
        if let Some(anchor) = last {
            self.insert_after(flow, anchor);
        }
        let name_list = |ed: &Editor, list: &[Block]| {
            list.iter()
                .map(|&b| format!("%{}", ed.block_name(b)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        self.notes.push(format!(
            "flow block %{} takes the open edges of {} to {}",
            ed.block_name(flow),
            name_list(ed, &flow_preds),
            name_list(ed, &targets),
        ));
        self.flows.insert(flow, Flow { first: None, out });
        self.flow_index.insert(flow, self.flow_order.len());
        self.flow_order.push(flow);
        self.divergent.insert(flow);
        self.attach(ed, flow);
    }

    /// Puts the new block `b` after `anchor` (and after the blocks put there
    /// before) in the layout.
    fn insert_after(&mut self, b: Block, anchor: Block) {
        let mut key = self.layout_key.get(&anchor).cloned().unwrap_or_default();
        key.push(self.next_key);
        self.next_key += 1;
        self.layout_key.insert(b, key);
    }

    /// The layout: every block by its key.
    fn layout(&self) -> Vec<Block> {
        let mut blocks: Vec<(&Vec<u32>, Block)> =
            self.layout_key.iter().map(|(&b, k)| (k, b)).collect();
        blocks.sort();
        blocks.into_iter().map(|(_, b)| b).collect()
    }

    /// Step 2: attaches `b` below the flattened chain of its OT predecessors and
    /// closes the edges into it.
    fn attach(&mut self, ed: &Editor, b: Block) {
        let preds: Vec<Block> = self
            .incoming
            .get(&b)
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|p| self.visited.contains(p))
            .collect();
        let tree_preds: Vec<usize> = preds
            .iter()
            .filter(|&&p| self.in_tree(p))
            .filter_map(|p| self.node_of.get(p).copied())
            .collect();
        let parent = if tree_preds.is_empty() {
            ROOT
        } else {
            self.flatten(&tree_preds)
        };
        let id = self.nodes.len();
        self.nodes.push(TreeNode {
            block: Some(b),
            parent: Some(parent),
            children: Vec::new(),
            in_tree: true,
        });
        self.nodes[parent].children.push(id);
        self.node_of.insert(b, id);
        self.visited.insert(b);
        for p in preds {
            if let Some(flow) = self.flows.get_mut(&p)
                && flow.first.is_none()
            {
                flow.first = Some(b);
            }
            if self.divergent.contains(&p) {
                self.armed.insert(p);
            }
            if self.in_tree(p) && self.open_targets(ed, p).is_empty() {
                self.remove(p);
            }
        }
        // A divergent block with an edge to a visited block (a back edge) has a
        // closed edge from the start.
        if self.divergent.contains(&b)
            && self
                .successors(ed, b)
                .iter()
                .any(|s| self.visited.contains(s))
        {
            self.armed.insert(b);
        }
        if self.open_targets(ed, b).is_empty() {
            self.remove(b);
        }
    }

    /// Flattens the paths from `preds` up to their common ancestor into one chain
    /// below that ancestor (ancestors above descendants, inner nodes before
    /// leaves) and returns the bottom of the chain.
    fn flatten(&mut self, preds: &[usize]) -> usize {
        let ancestors = |nodes: &[TreeNode], mut n: usize| {
            let mut set = HashSet::from([n]);
            while let Some(p) = nodes[n].parent {
                set.insert(p);
                n = p;
            }
            set
        };
        // The deepest common ancestor, one predecessor at a time.
        let Some((&first, rest)) = preds.split_first() else {
            return ROOT;
        };
        let mut common = first;
        for &p in rest {
            let above = ancestors(&self.nodes, common);
            let mut n = p;
            while !above.contains(&n) {
                match self.nodes[n].parent {
                    Some(q) => n = q,
                    None => break,
                }
            }
            common = n;
        }
        let mut on_paths: HashSet<usize> = HashSet::new();
        for &p in preds {
            let mut n = p;
            while n != common {
                on_paths.insert(n);
                match self.nodes[n].parent {
                    Some(q) => n = q,
                    None => break,
                }
            }
        }
        let mut head = common;
        let mut inner: Vec<usize> = Vec::new();
        let mut leaves: Vec<usize> = Vec::new();
        loop {
            let children = std::mem::take(&mut self.nodes[head].children);
            let (taken, kept): (Vec<usize>, Vec<usize>) =
                children.into_iter().partition(|c| on_paths.contains(c));
            self.nodes[head].children = kept;
            for c in taken {
                self.nodes[c].parent = None;
                if self.nodes[c].children.is_empty() {
                    leaves.push(c);
                } else {
                    inner.push(c);
                }
            }
            let Some(next) = inner.pop().or_else(|| leaves.pop()) else {
                break;
            };
            self.nodes[head].children.push(next);
            self.nodes[next].parent = Some(head);
            head = next;
        }
        head
    }

    /// Takes the node of `b` out of the tree; its children move to its parent.
    fn remove(&mut self, b: Block) {
        let Some(&n) = self.node_of.get(&b) else {
            return;
        };
        if !self.nodes[n].in_tree {
            return;
        }
        let parent = self.nodes[n].parent.unwrap_or(ROOT);
        let children = std::mem::take(&mut self.nodes[n].children);
        for &c in &children {
            self.nodes[c].parent = Some(parent);
        }
        self.nodes[parent].children.retain(|&c| c != n);
        self.nodes[parent].children.extend(children);
        self.nodes[n].parent = None;
        self.nodes[n].in_tree = false;
    }

    /// Rebuilds the phis of `blocks`, the blocks whose incoming edges the walk
    /// rerouted, so that they keep the original control flow (poster Fig. 3:
    /// "Phi instructions need to be inserted at flow blocks to maintain original
    /// control flow"). A lane reaches such a block `T` either on an original edge
    /// `P → T`, or from an original block `P` through flow blocks only, and then
    /// `P → T` was its original edge (the flow phis send it where `P`'s branch
    /// sent it). So the arm for a flow predecessor is a phi of that flow block
    /// whose arm from `P` is the original arm of `P` (or, from an earlier flow
    /// block, that block's phi). An arm no lane takes (`P` was no predecessor of
    /// `T`, or a split edge of a switch heads elsewhere) is `undef`. A phi whose
    /// arms agree is not built.
    fn rebuild_phis(&self, ed: &mut Editor, blocks: &[Block]) {
        let preds = predecessor_edges(ed.body());
        for &t in blocks {
            let phis = ed.body().blocks[t].phis.clone();
            if phis.is_empty() {
                continue;
            }
            let new_preds = preds.get(&t).cloned().unwrap_or_default();
            // The flow blocks some lane may come through, in creation order
            // (a flow block's predecessors are older than it).
            let mut needed: HashSet<Block> = HashSet::new();
            let mut stack: Vec<Block> = new_preds
                .iter()
                .copied()
                .filter(|q| self.flow_preds.contains_key(q))
                .collect();
            while let Some(f) = stack.pop() {
                if !needed.insert(f) {
                    continue;
                }
                for p in self.flow_preds.get(&f).map(Vec::as_slice).unwrap_or(&[]) {
                    if self.flow_preds.contains_key(p) {
                        stack.push(*p);
                    }
                }
            }
            let mut flows: Vec<Block> = needed.into_iter().collect();
            flows.sort_by_key(|f| self.flow_index.get(f).copied().unwrap_or(usize::MAX));
            for phi in phis {
                let InstKind::Phi { ty, incoming, .. } = ed.body().insts[phi].kind.clone() else {
                    continue;
                };
                let Some(result) = ed.body().insts[phi].result else {
                    continue;
                };
                let stem = ed.stem(result);
                let undef = ed.undef(ty);
                let original = |p: Block| {
                    incoming
                        .iter()
                        .find(|&&(_, b)| b == p)
                        .map_or(undef, |&(v, _)| v)
                };
                let mut at_flow: HashMap<Block, Value> = HashMap::new();
                let value_from = |at_flow: &HashMap<Block, Value>, p: Block| {
                    if let Some(&v) = at_flow.get(&p) {
                        v
                    } else if let Some(&(switch, target)) = self.splits.get(&p) {
                        if target == t { original(switch) } else { undef }
                    } else {
                        original(p)
                    }
                };
                for &f in &flows {
                    let arms: Vec<(Value, Block)> = self
                        .flow_preds
                        .get(&f)
                        .map(Vec::as_slice)
                        .unwrap_or(&[])
                        .iter()
                        .map(|&p| (value_from(&at_flow, p), p))
                        .collect();
                    let v = match arms.first() {
                        Some(&(v, _)) if arms.iter().all(|&(w, _)| w == v) => v,
                        _ => ed.phi(f, ty, arms, None, &stem),
                    };
                    at_flow.insert(f, v);
                }
                let arms: Vec<(Value, Block)> = new_preds
                    .iter()
                    .map(|&q| (value_from(&at_flow, q), q))
                    .collect();
                if let InstKind::Phi { incoming, .. } = &mut ed.body_mut().insts[phi].kind {
                    *incoming = arms;
                }
            }
        }
    }

    /// Gives every flow block its terminator: `br first` or `br (cond of first),
    /// first, other`.
    fn finish_flow_blocks(&self, ed: &mut Editor, func: FuncId) -> Result<(), TransformError> {
        for &flow in &self.flow_order {
            let Some(f) = self.flows.get(&flow) else {
                continue;
            };
            let term = match f.out.as_slice() {
                [(only, _)] => Terminator::Br(*only),
                [(a, ca), (b, _)] if f.first != Some(*b) => Terminator::CondBr {
                    cond: *ca,
                    if_true: *a,
                    if_false: *b,
                },
                [(a, _), (b, cb)] => Terminator::CondBr {
                    cond: *cb,
                    if_true: *b,
                    if_false: *a,
                },
                _ => {
                    return Err(internal_error(
                        func,
                        &format!(
                            "flow block %{} ended with {} successors",
                            ed.block_name(flow),
                            f.out.len()
                        ),
                    ));
                }
            };
            ed.body_mut().blocks[flow].term = term;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! One OpenTree walk on inputs already in the walk's normal form (one exit,
    //! two-way branches): the CFG each gives, derived by hand from the module
    //! doc, and the output verifies.
    use super::open_tree_walk;
    use crate::shape::cfg_lines;
    use crate::uniform::analyze;
    use pllvm_analysis::result::AnalysisKind;
    use pllvm_semantics::diag::SourceMap;
    use pllvm_semantics::text::{parse_module, print_module};
    use pllvm_semantics::verify::verify_module;

    /// `%n`, when the function has it, is uniform.
    fn check(src: &str, expect: &[&str]) {
        let (module, _) = parse_module(src).unwrap_or_else(|e| panic!("{e:?}"));
        let func = module
            .first_definition()
            .unwrap_or_else(|| panic!("no function"));
        let uniform: Vec<String> = if src.contains("%n") {
            vec!["n".to_string()]
        } else {
            Vec::new()
        };
        let uniformity = analyze(&module, func, AnalysisKind::Best, &uniform, "reconverge")
            .unwrap_or_else(|e| panic!("{e}"));
        let mut notes = Vec::new();
        let out = open_tree_walk(&module, func, &uniformity, &mut notes)
            .unwrap_or_else(|e| panic!("{e}"));
        let printed = print_module(&out);
        let report = verify_module(&out, &SourceMap::default());
        assert!(report.is_ok(), "{:?}\n{printed}", report.errors);
        let body = out.functions[func]
            .body
            .as_ref()
            .unwrap_or_else(|| panic!("no body"));
        assert_eq!(cfg_lines(body), expect, "{printed}");
    }

    #[test]
    fn if_then_needs_nothing() {
        // C post-dominates A: at C every open edge of A's subtree goes to C.
        check(
            "define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %c = icmp eq i32 %t, 0
  br i1 %c, label %B, label %C
B:
  br label %C
C:
  ret i32 0
}",
            &["A -> B, C", "B -> C", "C -> ret"],
        );
    }

    #[test]
    fn crossing_branches_of_thesis_fig_5_6() {
        // A -> {C, B}, B -> {D, C}, C -> D, both divergent; order A, B, C, D.
        // B arms A; at C, A's subtree {A, B} has the open edge B -> D besides
        // the edges to C: flow0 takes A -> C and both edges of B (whose branch
        // moves into flow0: to C on ¬q, to D on q); D then closes flow0.
        check(
            "define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %p = icmp eq i32 %t, 0
  br i1 %p, label %C, label %B
B:
  %q = icmp eq i32 %t, 1
  br i1 %q, label %D, label %C
C:
  br label %D
D:
  ret i32 0
}",
            &[
                "A -> flow0, B",
                "B -> flow0",
                "flow0 -> C, D",
                "C -> D",
                "D -> ret",
            ],
        );
    }

    #[test]
    fn uniform_switch_inside_a_divergent_region_is_kept() {
        // A -> {U, V} diverges; U is a switch on the uniform %n to P, Q, R, each
        // to J; V -> J. Block index A, V, U, R, Q, P, J (ties by reverse
        // postorder, where the DFS took each block's successor 0 first). V arms
        // A; at U, A's subtree {A, V} has the open edge V -> J: flow0 takes
        // A -> U and V -> J. U, R, Q, P attach below flow0; at J every open edge
        // of flow0's subtree goes to J. U's switch keeps its three edges.
        check(
            "define i32 @f(i32 %n) {
A:
  %t = call i32 @pllvm.thread_id()
  %c = icmp eq i32 %t, 0
  br i1 %c, label %U, label %V
U:
  switch i32 %n, label %P [ i32 1, label %Q
                            i32 2, label %R ]
P:
  br label %J
Q:
  br label %J
R:
  br label %J
V:
  br label %J
J:
  ret i32 0
}",
            &[
                "A -> flow0, V",
                "U -> P, Q, R",
                "P -> J",
                "Q -> J",
                "R -> J",
                "V -> flow0",
                "flow0 -> U, J",
                "J -> ret",
            ],
        );
    }

    #[test]
    fn uniform_switch_with_two_open_edges_gets_an_edge_block() {
        // A -> {B, U} diverges; U switches on the uniform %n to P, Q, R; B
        // branches on %n to P, Q; P, Q, R -> J. Block index A, U, R, B, Q, P, J.
        // At B, A's subtree {A, U, R} has U's open edges to P and Q and R -> J:
        // flow0 takes them with A -> B; U's first open edge (to P) goes to
        // flow0 directly, the one to Q through the new block U.to.Q, so that
        // every arm of flow0's phis names one target. At Q, flow0's other open
        // edges (P, J) and both of B's go to flow1; at P, flow1's edges to P and
        // J and Q -> J go to flow2. Each flow block ends with two successors.
        check(
            "define i32 @f(i32 %n) {
A:
  %t = call i32 @pllvm.thread_id()
  %c = icmp eq i32 %t, 0
  br i1 %c, label %B, label %U
U:
  switch i32 %n, label %P [ i32 1, label %Q
                            i32 2, label %R ]
R:
  br label %J
B:
  %u = icmp eq i32 %n, 7
  br i1 %u, label %P, label %Q
P:
  br label %J
Q:
  br label %J
J:
  ret i32 0
}",
            &[
                "A -> flow0, U",
                "U -> flow0, U.to.Q, R",
                "U.to.Q -> flow0",
                "R -> flow0",
                "flow0 -> B, flow1",
                "B -> flow1",
                "flow1 -> Q, flow2",
                "P -> J",
                "Q -> flow2",
                "flow2 -> P, J",
                "J -> ret",
            ],
        );
    }
}
