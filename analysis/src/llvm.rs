//! The uniformity analysis of LLVM's "Convergence and Uniformity" (section "Static
//! Uniformity Analysis"): joins and diverged paths of divergent branches, divergent
//! cycle exits and temporal divergence, m-converged static instances (the diverged
//! entry criterion in its simplified dominance form, and diverged paths reaching a
//! cycle), and the uniformity rules for phis and other instructions, propagated to
//! a fixed point. Unlike `thesis` and `popl` it analyses irreducible CFGs, over the
//! cycle hierarchy of [`crate::cycles`] for the documented DFS.
//!
//! # The document's terms as computed here
//! - **Join node** of a branch `B` ("Terminology"): a node reachable from `B` along
//!   two paths disjoint but for their ends; found as two units of vertex-disjoint
//!   flow from `B` to the node, leaving `B` by different successors ([`joins`]).
//! - **Diverged path**: from `B`, through nodes that are not joins of `B`, up to a
//!   join or the end of the function ([`diverged_reach`]).
//! - **Divergent cycle exit** ("Divergent Cycle Exits"): a cycle containing `B` that
//!   a diverged path of `B` leaves. Every use outside such a cycle of a value
//!   defined inside it is divergent (temporal divergence), and phis in its exits are
//!   treated like phis in joins.
//! - **m-converged** ("m-converged static instances"): a node in no cycle is; a node
//!   in a cycle `C` is not when, for some cycle containing it,
//!   (a) a divergent branch `B` in the cycle has a join `J` in it with neither `B`
//!   nor the header strictly dominating `J`, recursively for child cycles holding
//!   both (the simplified diverged entry criterion; reducible cycles satisfy it
//!   trivially), or (b) a diverged path of a divergent branch reaches an entry of
//!   the cycle from outside it ("Diverged Paths reaching a Cycle"). Every output of
//!   a node that is not m-converged is divergent.
//! - **Uniformity rules** ("Uniformity"): a phi of an m-converged node is divergent
//!   when an incoming value is, or when its block is a join (or a divergent cycle
//!   exit) and the incoming values are not all the same value; any other output is
//!   divergent when an operand is.
//!
//! # What the document leaves to the target, as pllvm decides it
//! Thread ids are divergent; `any`/`all`/`popcount`/`ballot` uniform (they broadcast
//! over the executing lanes, like AMDGPU's ballot); other calls follow their
//! operands. A load is uniform when its pointer is and cannot point into a stack
//! object (each lane has its own copies); `ptrtoint` and ordered comparisons of
//! possible stack addresses are divergent. The P-LLVM additions have no LLVM
//! counterpart: `mask()` and `total` results are divergent, a phi in a block whose
//! predicate is divergent is divergent, and a terminator is divergent when its
//! condition or (with two successors or more) its block predicate is. The
//! analysis makes no claim about block activation or stack object contents (all
//! activations are reported varying, no object shapes).

use crate::cycles::{CycleId, CycleInfo};
use crate::shape::Shape;
use crate::thesis::{CallKind, call_kind};
use crate::uniformity::{AnalysisKind, InitShapes, Uniformity};
use pllvm_semantics::cfg::{BlockDomTree, Cfg, Graph};
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{
    Block, Body, CastOp, FuncId, ICmpPred, Inst, InstKind, Module, Terminator, Value, ValueDef,
};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The joins of a branch in `node` ("Terminology": reachable along disjoint paths
/// starting from the branch): every node `j` with two paths from `node` to `j`
/// that share no node but their ends and leave by different successors. `node`
/// itself is a join when two such closed paths return to it.
pub fn joins(graph: &Graph, node: u32) -> BTreeSet<u32> {
    let mut succs: Vec<u32> = graph.successors(node).to_vec();
    succs.sort_unstable();
    succs.dedup();
    let mut out = BTreeSet::new();
    if succs.len() < 2 {
        return out;
    }
    for j in reachable_from(graph, &succs) {
        if two_disjoint_paths(graph, node, j) {
            out.insert(j);
        }
    }
    out
}

/// Nodes reachable from `starts` (the starts included).
fn reachable_from(graph: &Graph, starts: &[u32]) -> BTreeSet<u32> {
    let mut seen: BTreeSet<u32> = starts.iter().copied().collect();
    let mut work: Vec<u32> = starts.to_vec();
    while let Some(v) = work.pop() {
        for &s in graph.successors(v) {
            if seen.insert(s) {
                work.push(s);
            }
        }
    }
    seen
}

/// Whether two internally vertex-disjoint paths lead from `b` to `j` (unit vertex
/// capacities, two augmenting paths). Node `v` is split into `2v` (in) and `2v+1`
/// (out); the source is `b`'s out-node, the sink `j`'s in-node.
fn two_disjoint_paths(graph: &Graph, b: u32, j: u32) -> bool {
    let n = graph.len();
    // Residual capacities on an edge list.
    let mut to: Vec<usize> = Vec::new();
    let mut cap: Vec<u8> = Vec::new();
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); 2 * n];
    let mut add = |from: usize, target: usize, c: u8, adj: &mut Vec<Vec<usize>>| {
        adj[from].push(to.len());
        to.push(target);
        cap.push(c);
        adj[target].push(to.len());
        to.push(from);
        cap.push(0);
    };
    for v in 0..n as u32 {
        if v != b && v != j {
            add(2 * v as usize, 2 * v as usize + 1, 1, &mut adj);
        }
        if v == j && v != b {
            continue;
        }
        let mut seen = BTreeSet::new();
        for &s in graph.successors(v) {
            if seen.insert(s) && (s != b || j == b) {
                add(2 * v as usize + 1, 2 * s as usize, 1, &mut adj);
            }
        }
    }
    let (source, sink) = (2 * b as usize + 1, 2 * j as usize);
    let mut flow = 0;
    while flow < 2 {
        let mut prev: Vec<Option<usize>> = vec![None; 2 * n];
        let mut seen = vec![false; 2 * n];
        seen[source] = true;
        let mut queue = VecDeque::from([source]);
        while let Some(u) = queue.pop_front() {
            if u == sink {
                break;
            }
            for &e in &adj[u] {
                if cap[e] > 0 && !seen[to[e]] {
                    seen[to[e]] = true;
                    prev[to[e]] = Some(e);
                    queue.push_back(to[e]);
                }
            }
        }
        if !seen[sink] {
            return false;
        }
        let mut v = sink;
        while let Some(e) = prev[v] {
            cap[e] -= 1;
            cap[e ^ 1] += 1;
            v = to[e ^ 1];
        }
        flow += 1;
    }
    true
}

/// The nodes on diverged paths of a branch in `node` with joins `joins`: reached
/// from its successors without passing through a join (joins themselves are
/// reached, but not passed).
pub fn diverged_reach(graph: &Graph, node: u32, joins: &BTreeSet<u32>) -> BTreeSet<u32> {
    let mut seen = BTreeSet::new();
    let mut work: Vec<u32> = graph.successors(node).to_vec();
    while let Some(v) = work.pop() {
        if !seen.insert(v) || joins.contains(&v) {
            continue;
        }
        work.extend(graph.successors(v).iter().copied());
    }
    seen
}

/// What the divergent branches imply for the CFG, recomputed as branches turn
/// divergent.
#[derive(Default)]
struct ControlFacts {
    /// Joins of divergent branches.
    sync_joins: BTreeSet<u32>,
    /// Cycles with a divergent exit.
    divergent_exit: BTreeSet<CycleId>,
    /// Exits of those cycles.
    temporal_joins: BTreeSet<u32>,
    /// Nodes that are not m-converged.
    not_m_converged: BTreeSet<u32>,
}

/// The per-function context.
struct Ctx<'a> {
    module: &'a Module,
    body: &'a Body,
    graph: &'a Graph,
    dom: BlockDomTree,
    cycles: CycleInfo,
    block_of: BTreeMap<Inst, Block>,
    stack: BTreeSet<Value>,
    cache: BTreeMap<u32, (BTreeSet<u32>, BTreeSet<u32>)>,
}

impl Ctx<'_> {
    /// Joins and diverged-path nodes of the branch in `b`, cached.
    fn branch(&mut self, b: u32) -> &(BTreeSet<u32>, BTreeSet<u32>) {
        let graph = self.graph;
        self.cache.entry(b).or_insert_with(|| {
            let j = joins(graph, b);
            let r = diverged_reach(graph, b, &j);
            (j, r)
        })
    }

    /// The simplified diverged entry criterion for `b` and its join `j` in cycle
    /// `c`: `b` or the header strictly dominates `j`, the cycle is reducible, or a
    /// child cycle holding both satisfies it.
    fn entry_ok(&self, c: CycleId, b: u32, j: u32) -> bool {
        let cy = self.cycles.cycle(c);
        if cy.is_reducible()
            || (b != j && self.dom.strictly_dominates(Block(b), Block(j)))
            || (cy.header != j && self.dom.strictly_dominates(Block(cy.header), Block(j)))
        {
            return true;
        }
        cy.children.iter().any(|&child| {
            let ch = self.cycles.cycle(child);
            ch.contains(b) && ch.contains(j) && self.entry_ok(child, b, j)
        })
    }

    fn control_facts(&mut self, divergent: &BTreeSet<u32>) -> ControlFacts {
        let mut f = ControlFacts::default();
        let mut bad: BTreeSet<CycleId> = BTreeSet::new();
        for &b in divergent {
            let (j, reach) = self.branch(b).clone();
            f.sync_joins.extend(j.iter().copied());
            for c in self.cycles.cycles_containing(b) {
                let cy = self.cycles.cycle(c);
                if reach.iter().any(|&v| !cy.contains(v)) {
                    f.divergent_exit.insert(c);
                }
                // (a) the simplified diverged entry criterion.
                if j.iter()
                    .any(|&jn| cy.contains(jn) && !self.entry_ok(c, b, jn))
                {
                    bad.insert(c);
                }
            }
            // (b) diverged paths reaching an entry of an irreducible cycle from
            // outside it.
            for c in self.cycles.ids() {
                let cy = self.cycles.cycle(c);
                if cy.is_reducible() {
                    continue;
                }
                let enters = std::iter::once(b).chain(reach.iter().copied()).any(|u| {
                    !cy.contains(u)
                        && (u == b || !j.contains(&u))
                        && self
                            .graph
                            .successors(u)
                            .iter()
                            .any(|s| cy.entries.contains(s))
                });
                if enters {
                    bad.insert(c);
                }
            }
        }
        for &c in &f.divergent_exit {
            f.temporal_joins
                .extend(self.cycles.exits(self.graph, c).iter().copied());
        }
        for c in bad {
            f.not_m_converged
                .extend(self.cycles.cycle(c).nodes.iter().copied());
        }
        f
    }

    /// Whether a use in `user` of `v` sees values of different iterations of a
    /// cycle with a divergent exit (temporal divergence).
    fn temporal(&self, f: &ControlFacts, v: Value, user: Block) -> bool {
        let Some(def) = self.body.def_inst(v).and_then(|i| self.block_of.get(&i)) else {
            return false;
        };
        self.cycles
            .cycles_containing(def.0)
            .into_iter()
            .any(|c| f.divergent_exit.contains(&c) && !self.cycles.cycle(c).contains(user.0))
    }
}

/// Values that may point into a stack object: derived from an `alloca`, or of
/// unknown provenance (loaded, a parameter, a call, `inttoptr`) in a function with
/// an `alloca`.
fn stack_pointers(body: &Body) -> BTreeSet<Value> {
    let has_alloca = body
        .insts
        .values()
        .any(|i| matches!(i.kind, InstKind::Alloca { .. }));
    let mut out = BTreeSet::new();
    if has_alloca {
        for (v, data) in body.values.iter() {
            if matches!(data.def, ValueDef::Param(_)) {
                out.insert(v);
            }
        }
    }
    loop {
        let mut grew = false;
        for inst in body.insts.values() {
            let Some(r) = inst.result else { continue };
            if out.contains(&r) {
                continue;
            }
            let stacky = match &inst.kind {
                InstKind::Alloca { .. } => true,
                InstKind::Load { .. } | InstKind::Call { .. } => has_alloca,
                InstKind::Cast {
                    op: CastOp::IntToPtr,
                    ..
                } => has_alloca,
                InstKind::Gep { .. }
                | InstKind::Phi { .. }
                | InstKind::Select { .. }
                | InstKind::Freeze { .. }
                | InstKind::Cast { .. } => inst.kind.operands().iter().any(|o| out.contains(o)),
                _ => false,
            };
            if stacky {
                out.insert(r);
                grew = true;
            }
        }
        if !grew {
            return out;
        }
    }
}

/// The `llvm` analysis of `func`, to its fixed point, over the cycle hierarchy of
/// the documented DFS.
pub fn uniformity(module: &Module, func: FuncId, body: &Body, init: &InitShapes) -> Uniformity {
    uniformity_with(module, func, body, init, CycleInfo::compute(body))
}

/// The `llvm` analysis over a given cycle hierarchy of `body`'s CFG (e.g. one of
/// [`crate::cycles::all_hierarchies`]): the document requires its answers to be
/// safe whichever hierarchy the DFS produced.
pub fn uniformity_with(
    module: &Module,
    func: FuncId,
    body: &Body,
    init: &InitShapes,
    cycles: CycleInfo,
) -> Uniformity {
    let cfg = Cfg::new(body);
    let graph = cfg.graph().clone();
    let mut block_of = BTreeMap::new();
    for &b in &body.layout {
        for &i in body.blocks[b].phis.iter().chain(&body.blocks[b].body) {
            block_of.insert(i, b);
        }
    }
    let mut ctx = Ctx {
        module,
        body,
        graph: &graph,
        dom: cfg.dominators(),
        cycles,
        block_of,
        stack: stack_pointers(body),
        cache: BTreeMap::new(),
    };
    let mut values: SecondaryMap<Value, Shape> = SecondaryMap::with_default(Shape::Bottom);
    let data = &module.functions[func];
    for (k, p) in data.params.iter().enumerate() {
        values[p.value] = init.params.get(k).copied().unwrap_or(Shape::Varying);
    }
    for &b in &body.layout {
        if !cfg.reachable(b) {
            continue;
        }
        for &i in body.blocks[b].phis.iter().chain(&body.blocks[b].body) {
            if let Some(r) = body.insts[i].result {
                values[r] = Shape::Uniform;
            }
        }
    }
    let mut divergent: BTreeSet<u32> = BTreeSet::new();
    let facts = loop {
        let f = ctx.control_facts(&divergent);
        let mut changed = false;
        for &b in &body.layout {
            if !cfg.reachable(b) {
                continue;
            }
            let block = &body.blocks[b];
            for &i in block.phis.iter().chain(&block.body) {
                let Some(r) = body.insts[i].result else {
                    continue;
                };
                if values[r].is_uniform() && inst_varying(&ctx, &f, &values, b, i) {
                    values[r] = Shape::Varying;
                    changed = true;
                }
            }
            if !divergent.contains(&b.0) && term_varying(&ctx, &f, &values, b) {
                divergent.insert(b.0);
                changed = true;
            }
        }
        if !changed {
            break f;
        }
    };
    let mut terminators: SecondaryMap<Block, Shape> = SecondaryMap::with_default(Shape::Bottom);
    let mut activation: SecondaryMap<Block, Shape> = SecondaryMap::with_default(Shape::Bottom);
    let mut loop_exits = BTreeMap::new();
    // No claim about stack object contents: every object is reported varying.
    let allocas: BTreeMap<Inst, Shape> = body
        .insts
        .iter()
        .filter(|(_, d)| matches!(d.kind, InstKind::Alloca { .. }))
        .map(|(i, _)| (i, Shape::Varying))
        .collect();
    for &b in &body.layout {
        if !cfg.reachable(b) {
            continue;
        }
        terminators[b] = Shape::from_uniform(!divergent.contains(&b.0));
        activation[b] = Shape::Varying;
    }
    for c in ctx.cycles.ids() {
        for e in ctx.cycles.exits(&graph, c) {
            let v = Shape::from_uniform(!facts.divergent_exit.contains(&c));
            let slot = loop_exits.entry(Block(e)).or_insert(Shape::Uniform);
            *slot = Shape::join(*slot, v);
        }
    }
    Uniformity {
        analysis: AnalysisKind::Llvm,
        func,
        values,
        strides: Default::default(),
        terminators,
        activation,
        allocas,
        loop_exits,
        sync_joins: facts.sync_joins.iter().map(|&b| Block(b)).collect(),
        temporal_joins: facts.temporal_joins.iter().map(|&b| Block(b)).collect(),
        divergent_loops: facts
            .divergent_exit
            .iter()
            .map(|&c| Block(ctx.cycles.cycle(c).header))
            .collect(),
    }
}

/// Whether the terminator of `b` sends the lanes different ways: its condition
/// is divergent, or temporally divergent at this use, or its predicate is.
fn term_varying(
    ctx: &Ctx<'_>,
    f: &ControlFacts,
    values: &SecondaryMap<Value, Shape>,
    b: Block,
) -> bool {
    let body = ctx.body;
    // Successors count by index, as the observer does (`switch` cases to one
    // block are still different successors).
    let block = &body.blocks[b];
    if block.term.successors().len() < 2 {
        return false;
    }
    let pred = block.predicate.is_some_and(|p| values[p].is_varying());
    match &block.term {
        Terminator::CondBr { cond, .. } | Terminator::Switch { cond, .. } => {
            pred || values[*cond].is_varying() || ctx.temporal(f, *cond, b)
        }
        _ => pred,
    }
}

/// Whether the result of `i` in `b` is divergent by the rules of the document.
fn inst_varying(
    ctx: &Ctx<'_>,
    f: &ControlFacts,
    values: &SecondaryMap<Value, Shape>,
    b: Block,
    i: Inst,
) -> bool {
    let body = ctx.body;
    let inst = &body.insts[i];
    if f.not_m_converged.contains(&b.0) || inst.total {
        return true;
    }
    if let InstKind::Call { callee, args, .. } = &inst.kind
        && call_kind(ctx.module, *callee, args.len()) == CallKind::Horizontal
    {
        // One value broadcast to every executing lane, whatever the operands.
        return false;
    }
    let operands = inst.kind.operands();
    let any_varying = operands.iter().any(|&o| values[o].is_varying());
    let any_temporal = operands.iter().any(|&o| ctx.temporal(f, o, b));
    if any_varying || any_temporal {
        return true;
    }
    match &inst.kind {
        InstKind::Phi { incoming, .. } => {
            let pred_varying = body.blocks[b]
                .predicate
                .is_some_and(|p| values[p].is_varying());
            let joined = f.sync_joins.contains(&b.0) || f.temporal_joins.contains(&b.0);
            let same = incoming.windows(2).all(|w| w[0].0 == w[1].0);
            pred_varying || (joined && !same)
        }
        InstKind::Mask => true,
        InstKind::Call { callee, args, .. } => match call_kind(ctx.module, *callee, args.len()) {
            CallKind::ThreadId => true,
            CallKind::Horizontal => false,
            CallKind::Pure | CallKind::Write { .. } | CallKind::NoEffect => false,
        },
        InstKind::Load { .. } => operands.iter().any(|o| ctx.stack.contains(o)),
        InstKind::Cast {
            op: CastOp::PtrToInt,
            ..
        } => operands.iter().any(|o| ctx.stack.contains(o)),
        InstKind::ICmp { pred, .. } => {
            !matches!(pred, ICmpPred::Eq | ICmpPred::Ne)
                && operands.iter().any(|o| ctx.stack.contains(o))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{blk, graph_body, names};

    fn joins_of(spec: &str, b: &str) -> Vec<String> {
        let body = graph_body(spec);
        let cfg = Cfg::new(&body);
        let j = joins(cfg.graph(), blk(&body, b).0);
        names(&body, j.into_iter().map(Block))
    }

    #[test]
    fn diamond_joins_at_its_end_only() {
        let spec = "A: B C; B: D; C: D; D: E F; E: G; F: G; G:";
        assert_eq!(joins_of(spec, "A"), ["D"]);
        assert_eq!(joins_of(spec, "D"), ["G"]);
    }

    #[test]
    fn loop_with_two_latches_joins_at_the_header() {
        let spec = "E: H; H: B; B: L1 L2; L1: H; L2: H X; X:";
        assert_eq!(joins_of(spec, "B"), ["H"]);
    }

    #[test]
    fn closed_path_join_is_s() {
        // The document's closed path P -> Q -> R -> S: Q -> R -> S and Q -> S.
        let spec = "Entry: P R; P: Q; Q: R S; R: S; S: P X; X:";
        assert_eq!(joins_of(spec, "Q"), ["S"]);
    }
}
