//! The uniformity analysis of LLVM's "Convergence and Uniformity" (section "Static
//! Uniformity Analysis"): joins and diverged paths of divergent branches, divergent
//! cycle exits and temporal divergence, m-converged static instances (the diverged
//! entry criterion in its simplified dominance form, and diverged paths reaching a
//! cycle), and the uniformity rules for phis and other instructions, propagated to
//! a fixed point. Unlike `thesis` and `popl` it analyses irreducible CFGs, over the
//! cycle hierarchy of [`crate::cycles`] that LLVM's `CycleInfo` builds (its DFS
//! takes a block's successors in reverse order), or for the documented DFS on
//! request ([`analyze_in`]).
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
//!   exit) and the incoming values other than `undef`/`poison` and the phi itself
//!   are not all the same value (LLVM's `hasConstantOrUndefValue`); any other output is
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
//! activations are reported varying, no object shapes). On an nvptx module
//! every call other than θ's `pllvm.*` builtins is divergent, as NVPTX's
//! `isSourceOfDivergence` makes it.

use crate::calls::{CallKind, call_kind};
use crate::cycles::{CycleId, CycleInfo, DfsOrder};
use crate::result::{AnalysisKind, InitShapes, Uniformity};
use crate::shape::Shape;
use pllvm_semantics::cfg::{BlockDomTree, Cfg, Graph};
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{
    Block, Body, CastOp, ConstData, FuncId, ICmpPred, Inst, InstKind, Module, Terminator, Value,
    ValueDef,
};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

mod branch;
pub use branch::{BranchFacts, BranchSolver};
use pllvm_semantics::convergence_control::{Point, Regions};

/// Whether the analysis reads convergence control tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tokens {
    /// The two rules of controlled convergence (docs/analyses.md, "Convergence
    /// control tokens"; the document's "Controlled Convergence" with its
    /// "Temporal Divergence at Cycle Exit" and "Controlled m-converged Static
    /// Instances"), over the tokens' convergence regions
    /// ([`pllvm_semantics::convergence_control::Regions`]):
    /// - a use outside a cycle `C` of a value defined in `C` is not temporally
    ///   divergent on account of `C` when the use lies in the region of a token
    ///   definition inside `C` whose token is used outside `C`: threads that
    ///   executed converged instances of the definition before leaving `C`
    ///   stay converged in its region, so they see the value of one (converged)
    ///   iteration (`Ctx::tied`);
    /// - a node in the region of a token definition is m-converged only if the
    ///   definition is (`Ctx::in_unconverged_region`).
    Controlled,
    /// Tokens carry nothing: what opt-22 computes (it implements neither rule).
    Ignored,
}

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

/// What the divergent branches imply for the CFG, grown as branches turn
/// divergent (every part only grows: the analysis is monotone).
struct ControlFacts {
    /// Joins of divergent branches, per node.
    sync_joins: Vec<bool>,
    /// Cycles with a divergent exit, per cycle.
    divergent_exit: Vec<bool>,
    /// Exits of those cycles, per node.
    temporal_joins: Vec<bool>,
    /// Nodes that are not m-converged.
    not_m_converged: Vec<bool>,
    /// Irreducible cycles found not m-converged, per cycle.
    bad: Vec<bool>,
}

impl ControlFacts {
    fn new(nodes: usize, cycles: usize) -> Self {
        ControlFacts {
            sync_joins: vec![false; nodes],
            divergent_exit: vec![false; cycles],
            temporal_joins: vec![false; nodes],
            not_m_converged: vec![false; nodes],
            bad: vec![false; cycles],
        }
    }
}

/// Something whose divergence is re-decided when what it depends on changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    /// The result of an instruction of a block.
    Inst(Block, Inst),
    /// The terminator of a block.
    Term(Block),
}

/// The per-function context.
struct Ctx<'a> {
    module: &'a Module,
    body: &'a Body,
    graph: &'a Graph,
    cfg: &'a Cfg,
    /// Dominators, computed on first use (only irreducible cycles need them).
    dom: std::cell::OnceCell<BlockDomTree>,
    cycles: CycleInfo,
    /// The exit nodes of each cycle ([`branch::cycle_exits`]).
    exits: Vec<Vec<u32>>,
    /// For each cycle, the innermost irreducible cycle containing it (itself
    /// included), if any.
    irreducible_around: Vec<Option<CycleId>>,
    block_of: SecondaryMap<Inst, Option<Block>>,
    stack: BTreeSet<Value>,
    /// The module is for NVPTX, whose rule makes a load through a generic (0) or
    /// local (5) pointer a source of divergence (it may read a thread's private
    /// memory): LLVM's conservative and sound rule, followed here.
    nvptx: bool,
    /// The convergence regions of the token definitions, read under
    /// [`Tokens::Controlled`] (empty under [`Tokens::Ignored`]).
    tokens: Regions,
}

impl Ctx<'_> {
    /// The program point of `i` in `b`.
    fn point(&self, b: Block, i: Inst) -> Point {
        Point::of(self.body, b, i)
    }

    /// Whether a token ties the iterations of cycle `c` at `p`: a definition
    /// inside `c`, with a use outside `c`, holds `p` in its region.
    fn tied(&self, c: CycleId, p: Point) -> bool {
        let cy = self.cycles.cycle(c);
        self.tokens
            .iter()
            .any(|r| cy.contains(r.at.block) && r.used_outside(|b| cy.contains(b)) && r.contains(p))
    }

    /// The instructions in the regions of the tokens defined in `block`: what
    /// the controlled m-converged rule re-decides when `block` stops being
    /// m-converged.
    fn region_insts_of_defs_in(&self, block: u32) -> Vec<(Block, Inst)> {
        let body = self.body;
        let mut out = Vec::new();
        for r in self.tokens.iter().filter(|r| r.at.block == block) {
            for &b in &body.layout {
                let data = &body.blocks[b];
                for (pos, &i) in data.phis.iter().chain(&data.body).enumerate() {
                    let p = Point {
                        block: b.as_u32(),
                        pos,
                    };
                    if i != r.def && r.contains(p) {
                        out.push((b, i));
                    }
                }
            }
        }
        out
    }

    /// The simplified diverged entry criterion for `b` and its join `j` in cycle
    /// `c`: `b` or the header strictly dominates `j`, the cycle is reducible, or a
    /// child cycle holding both satisfies it.
    fn entry_ok(&self, c: CycleId, b: u32, j: u32) -> bool {
        let cy = self.cycles.cycle(c);
        if cy.is_reducible() {
            return true;
        }
        let dom = self.dom.get_or_init(|| self.cfg.dominators());
        if (b != j && dom.strictly_dominates(Block::from_u32(b), Block::from_u32(j)))
            || (cy.header != j
                && dom.strictly_dominates(Block::from_u32(cy.header), Block::from_u32(j)))
        {
            return true;
        }
        cy.children.iter().any(|&child| {
            let ch = self.cycles.cycle(child);
            ch.contains(b) && ch.contains(j) && self.entry_ok(child, b, j)
        })
    }

    /// The cycles containing `b` that fail the simplified diverged entry
    /// criterion (m-converged, (a)) for one of the joins `joins` of its branch.
    /// Only irreducible cycles can ([`Ctx::entry_ok`] holds in a reducible
    /// one), so the walk up from `b` steps from irreducible cycle to irreducible
    /// cycle ([`Ctx::irreducible_around`]): no work per reducible cycle around
    /// `b`, which on a nest of loops would be the depth per branch.
    fn entry_failures(&self, b: u32, joins: &[u32]) -> Vec<CycleId> {
        let mut out = Vec::new();
        let around = |c: Option<CycleId>| c.and_then(|c| self.irreducible_around[c.0 as usize]);
        let mut c = around(self.cycles.innermost(b));
        while let Some(id) = c {
            let cy = self.cycles.cycle(id);
            if joins
                .iter()
                .any(|&jn| cy.contains(jn) && !self.entry_ok(id, b, jn))
            {
                out.push(id);
            }
            c = around(cy.parent);
        }
        out
    }

    /// The reference computation of the facts of the divergent branches
    /// `divergent`, from the flow-based [`joins`] and [`diverged_reach`].
    fn control_facts_reference(&self, divergent: &BTreeSet<u32>) -> ControlFacts {
        let mut f = ControlFacts::new(self.graph.len(), self.cycles.len());
        let mut bad: BTreeSet<CycleId> = BTreeSet::new();
        for &b in divergent {
            let j = joins(self.graph, b);
            let reach = diverged_reach(self.graph, b, &j);
            for &jn in &j {
                f.sync_joins[jn as usize] = true;
            }
            for c in self.cycles.cycles_containing(b) {
                let cy = self.cycles.cycle(c);
                if reach.iter().any(|&v| !cy.contains(v)) {
                    f.divergent_exit[c.0 as usize] = true;
                }
            }
            let jv: Vec<u32> = j.iter().copied().collect();
            bad.extend(self.entry_failures(b, &jv));
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
        for c in self.cycles.ids() {
            if f.divergent_exit[c.0 as usize] {
                for e in self.cycles.exits(self.graph, c) {
                    f.temporal_joins[e as usize] = true;
                }
            }
        }
        for c in bad {
            f.bad[c.0 as usize] = true;
            for &v in self.cycles.cycle(c).nodes() {
                f.not_m_converged[v as usize] = true;
            }
        }
        f
    }

    /// Whether a use at `user` of `v` sees values of different iterations of a
    /// cycle with a divergent exit (temporal divergence), unless a token ties
    /// that cycle's iterations at the use ([`Ctx::tied`]).
    fn temporal(&self, f: &ControlFacts, v: Value, user: impl Fn() -> Point, at: Block) -> bool {
        let Some(def) = self.body.def_inst(v).and_then(|i| self.block_of[i]) else {
            return false;
        };
        let mut c = self.cycles.innermost(def.as_u32());
        while let Some(id) = c {
            let cy = self.cycles.cycle(id);
            if cy.contains(at.as_u32()) {
                // Every cycle further out contains the use too.
                return false;
            }
            if f.divergent_exit[id.0 as usize] && (self.tokens.is_empty() || !self.tied(id, user()))
            {
                return true;
            }
            c = cy.parent;
        }
        false
    }

    /// The document's controlled m-converged rule: the point of `i` in `b` lies in
    /// the convergence region of a token definition whose block is not
    /// m-converged.
    fn in_unconverged_region(&self, f: &ControlFacts, b: Block, i: Inst) -> bool {
        !self.tokens.is_empty()
            && self
                .tokens
                .iter()
                .filter(|r| f.not_m_converged[r.at.block as usize])
                .any(|r| r.contains(self.point(b, i)))
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

/// The `llvm` analysis of `func`, to its fixed point, over the cycle hierarchy
/// LLVM's `CycleInfo` builds ([`DfsOrder::Llvm`]).
pub fn analyze(module: &Module, func: FuncId, body: &Body, init: &InitShapes) -> Uniformity {
    analyze_in(module, func, body, init, DfsOrder::Llvm)
}

/// The `llvm` analysis over the cycle hierarchy of the DFS `order` (the headers
/// of irreducible cycles, and so the m-converged blocks, depend on it).
pub fn analyze_in(
    module: &Module,
    func: FuncId,
    body: &Body,
    init: &InitShapes,
    order: DfsOrder,
) -> Uniformity {
    let cfg = Cfg::new(body);
    let cycles = CycleInfo::of_graph_in(cfg.graph(), cfg.entry().as_u32(), order);
    solve(module, func, body, init, cycles, &cfg, Tokens::Controlled)
}

/// The `llvm` analysis with convergence control tokens read as `reading` says
/// (`--compare-llvm` asks [`Tokens::Ignored`] to tell the differences the token
/// rules make from the others).
pub fn analyze_reading(
    module: &Module,
    func: FuncId,
    body: &Body,
    init: &InitShapes,
    reading: Tokens,
) -> Uniformity {
    let cfg = Cfg::new(body);
    let cycles = CycleInfo::of_graph_in(cfg.graph(), cfg.entry().as_u32(), DfsOrder::Llvm);
    solve(module, func, body, init, cycles, &cfg, reading)
}

/// The per-function setup shared by the worklist and the reference solvers.
fn context<'a>(
    module: &'a Module,
    body: &'a Body,
    cfg: &'a Cfg,
    cycles: CycleInfo,
    reading: Tokens,
) -> Ctx<'a> {
    let mut block_of = SecondaryMap::with_default(None);
    for &b in &body.layout {
        for &i in body.blocks[b].phis.iter().chain(&body.blocks[b].body) {
            block_of[i] = Some(b);
        }
    }
    let graph = cfg.graph();
    let exits = branch::cycle_exits(graph, &cycles);
    // Parents have larger ids than their children: outermost first.
    let mut irreducible_around: Vec<Option<CycleId>> = vec![None; cycles.len()];
    for c in (0..cycles.len() as u32).rev().map(CycleId) {
        let cy = cycles.cycle(c);
        irreducible_around[c.0 as usize] = if cy.is_reducible() {
            cy.parent.and_then(|p| irreducible_around[p.0 as usize])
        } else {
            Some(c)
        };
    }
    Ctx {
        module,
        body,
        graph,
        cfg,
        dom: std::cell::OnceCell::new(),
        cycles,
        exits,
        irreducible_around,
        block_of,
        stack: stack_pointers(body),
        nvptx: crate::target::GpuTarget::of(module) == Some(crate::target::GpuTarget::Nvptx),
        tokens: match reading {
            Tokens::Controlled => Regions::of(module, body, graph),
            Tokens::Ignored => Regions::default(),
        },
    }
}

/// The starting point of both solvers: parameters as `init` says, every result
/// of a reachable instruction uniform.
fn initial_values(
    module: &Module,
    func: FuncId,
    body: &Body,
    cfg: &Cfg,
    init: &InitShapes,
) -> SecondaryMap<Value, Shape> {
    let mut values: SecondaryMap<Value, Shape> =
        SecondaryMap::filled(body.values.len(), Shape::Bottom);
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
    values
}

/// The `llvm` analysis over a given cycle hierarchy of `body`'s CFG (e.g. one of
/// [`crate::cycles::all_hierarchies`]): the document requires its answers to be
/// safe whichever hierarchy the DFS produced.
///
/// A worklist reaches the least fixed point of the rules: an instruction or
/// terminator is re-decided only when something it depends on turns divergent
/// (an operand, its block's predicate, its block becoming a join or not
/// m-converged, a cycle of a definition it uses getting a divergent exit), and
/// each divergent branch is examined once, by [`BranchSolver`]. Since every rule
/// is monotone, the result is the one of [`analyze_reference`].
pub fn analyze_with(
    module: &Module,
    func: FuncId,
    body: &Body,
    init: &InitShapes,
    cycles: CycleInfo,
) -> Uniformity {
    solve(
        module,
        func,
        body,
        init,
        cycles,
        &Cfg::new(body),
        Tokens::Controlled,
    )
}

/// [`analyze_with`] for a CFG already built.
fn solve(
    module: &Module,
    func: FuncId,
    body: &Body,
    init: &InitShapes,
    cycles: CycleInfo,
    cfg: &Cfg,
    reading: Tokens,
) -> Uniformity {
    let ctx = context(module, body, cfg, cycles, reading);
    let graph = ctx.graph;
    let mut values = initial_values(module, func, body, cfg, init);
    let n = graph.len();
    let mut facts = ControlFacts::new(n, ctx.cycles.len());
    let mut divergent = vec![false; n];
    // Users of each value, and the items of each block.
    let users = Users::of(body, cfg);
    let mut work: Vec<Item> = Vec::new();
    for &b in &body.layout {
        if !cfg.reachable(b) {
            continue;
        }
        let block = &body.blocks[b];
        for &i in block.phis.iter().chain(&block.body) {
            work.push(Item::Inst(b, i));
        }
        work.push(Item::Term(b));
    }
    work.reverse();
    let escaping = escaping_uses(&ctx, &users);
    // The first cycle at or around each cycle without a divergent exit yet
    // (a union-find over the parent links; `NONE` past the outermost).
    let mut unmarked: Vec<u32> = (0..ctx.cycles.len() as u32).collect();
    let mut solver = BranchSolver::new(graph, &ctx.cycles);
    // Re-decide the phis (or every instruction) of a block.
    let push_block = |work: &mut Vec<Item>, b: u32, phis_only: bool| {
        let block = &body.blocks[Block::from_u32(b)];
        let insts = if phis_only {
            &block.phis[..]
        } else {
            &block.body[..]
        };
        let phis = if phis_only { &[][..] } else { &block.phis[..] };
        for &i in phis.iter().chain(insts) {
            work.push(Item::Inst(Block::from_u32(b), i));
        }
    };
    while let Some(item) = work.pop() {
        match item {
            Item::Inst(b, i) => {
                let Some(r) = body.insts[i].result else {
                    continue;
                };
                if values[r].is_uniform() && inst_varying(&ctx, &facts, &values, b, i) {
                    values[r] = Shape::Varying;
                    work.extend(users.of_value(r).iter().copied());
                }
            }
            Item::Term(b) => {
                if divergent[b.as_u32() as usize] || !term_varying(&ctx, &facts, &values, b) {
                    continue;
                }
                divergent[b.as_u32() as usize] = true;
                let bf = solver.branch(b.as_u32());
                for &j in &bf.joins {
                    if !facts.sync_joins[j as usize] {
                        facts.sync_joins[j as usize] = true;
                        push_block(&mut work, j, true);
                    }
                }
                // The divergent cycle exits: the first `exited` cycles around
                // the branch, i.e. those of depth above `floor`. Each cycle is
                // marked once, the marked ones skipped through `unmarked`.
                if let (Some(inner), true) = (ctx.cycles.innermost(b.as_u32()), bf.exited > 0) {
                    let floor = ctx.cycles.cycle(inner).depth as usize - bf.exited;
                    let mut c = first_unmarked(&mut unmarked, inner.0);
                    while c != NONE && ctx.cycles.cycle(CycleId(c)).depth as usize > floor {
                        let cy = ctx.cycles.cycle(CycleId(c));
                        facts.divergent_exit[c as usize] = true;
                        unmarked[c as usize] = cy.parent.map_or(NONE, |p| p.0);
                        for &e in &ctx.exits[c as usize] {
                            if !facts.temporal_joins[e as usize] {
                                facts.temporal_joins[e as usize] = true;
                                push_block(&mut work, e, true);
                            }
                        }
                        // Uses outside the cycle of values defined inside it.
                        work.extend(escaping[c as usize].iter().copied());
                        c = match cy.parent {
                            Some(p) => first_unmarked(&mut unmarked, p.0),
                            None => NONE,
                        };
                    }
                }
                let mut bad = ctx.entry_failures(b.as_u32(), &bf.joins);
                bad.extend(bf.entered.iter().copied());
                for c in bad {
                    if facts.bad[c.0 as usize] {
                        continue;
                    }
                    facts.bad[c.0 as usize] = true;
                    for &v in ctx.cycles.cycle(c).nodes() {
                        if !facts.not_m_converged[v as usize] {
                            facts.not_m_converged[v as usize] = true;
                            push_block(&mut work, v, false);
                            // The controlled m-converged rule: the regions of
                            // the tokens defined in `v`.
                            work.extend(
                                ctx.region_insts_of_defs_in(v)
                                    .into_iter()
                                    .map(|(rb, ri)| Item::Inst(rb, ri)),
                            );
                        }
                    }
                }
            }
        }
    }
    let divergent: BTreeSet<u32> = (0..n as u32).filter(|&b| divergent[b as usize]).collect();
    finish(&ctx, cfg, func, values, &divergent, &facts)
}

/// The items of the reachable blocks that use each value (an operand, or the
/// block's predicate for its phis and terminator), all in one array: the
/// users of `v` are `items[start[v]..start[v + 1]]`, in layout order. One list
/// per value cost a vector header and a heap block per value (about 70 bytes
/// per value of a large function, where this costs about 16).
struct Users {
    start: Vec<u32>,
    items: Vec<Item>,
}

impl Users {
    fn of(body: &Body, cfg: &Cfg) -> Self {
        // Every (used value, user) pair of the reachable blocks, in order.
        let each = |f: &mut dyn FnMut(Value, Item)| {
            for &b in &body.layout {
                if !cfg.reachable(b) {
                    continue;
                }
                let block = &body.blocks[b];
                for &i in block.phis.iter().chain(&block.body) {
                    for o in body.insts[i].kind.operands() {
                        f(o, Item::Inst(b, i));
                    }
                    if let Some(p) = block.predicate
                        && matches!(body.insts[i].kind, InstKind::Phi { .. })
                    {
                        f(p, Item::Inst(b, i));
                    }
                }
                for o in block.term.operands() {
                    f(o, Item::Term(b));
                }
                if let Some(p) = block.predicate {
                    f(p, Item::Term(b));
                }
            }
        };
        let mut start = vec![0u32; body.values.len() + 1];
        each(&mut |v, _| start[v.as_u32() as usize + 1] += 1);
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut fill = start.clone();
        let placeholder = Item::Term(Block::from_u32(0));
        let mut items = vec![placeholder; start[body.values.len()] as usize];
        each(&mut |v, item| {
            let slot = &mut fill[v.as_u32() as usize];
            items[*slot as usize] = item;
            *slot += 1;
        });
        Users { start, items }
    }

    /// The users of `v`.
    fn of_value(&self, v: Value) -> &[Item] {
        let k = v.as_u32() as usize;
        &self.items[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

/// Marks that a cycle has no divergent exit yet in [`solve`]'s union-find.
const NONE: u32 = u32::MAX;

/// The first cycle at or around `c` that `unmarked` does not link onwards
/// (itself when unmarked), `NONE` past the outermost; compresses the path.
fn first_unmarked(unmarked: &mut [u32], c: u32) -> u32 {
    let mut top = c;
    while top != NONE && unmarked[top as usize] != top {
        top = unmarked[top as usize];
    }
    let mut x = c;
    while x != NONE && x != top && unmarked[x as usize] != top {
        let next = unmarked[x as usize];
        unmarked[x as usize] = top;
        x = next;
    }
    top
}

/// For each cycle, the items that use a value defined inside it from a block
/// outside it (what temporal divergence makes divergent once the cycle has a
/// divergent exit): each use is listed at every cycle around its definition
/// that does not contain the user, found by walking out from the definition's
/// innermost cycle until a cycle contains the user. The work is the number of
/// uses plus the number of (use, cycle left) pairs, where scanning every block
/// of each cycle, as the reference does, is the sum of the cycles' sizes.
fn escaping_uses(ctx: &Ctx<'_>, users: &Users) -> Vec<Vec<Item>> {
    let body = ctx.body;
    let mut out: Vec<Vec<Item>> = vec![Vec::new(); ctx.cycles.len()];
    for &b in &body.layout {
        let Some(inner) = ctx.cycles.innermost(b.as_u32()) else {
            continue;
        };
        let block = &body.blocks[b];
        for &i in block.phis.iter().chain(&block.body) {
            let Some(r) = body.insts[i].result else {
                continue;
            };
            for &u in users.of_value(r) {
                let (Item::Inst(ub, _) | Item::Term(ub)) = u;
                let mut c = Some(inner);
                while let Some(id) = c {
                    let cy = ctx.cycles.cycle(id);
                    if cy.contains(ub.as_u32()) {
                        break;
                    }
                    out[id.0 as usize].push(u);
                    c = cy.parent;
                }
            }
        }
    }
    out
}

/// The reference formulation of [`analyze_with`]: every fact of every
/// divergent branch recomputed with the flow-based [`joins`] and
/// [`diverged_reach`], then one sweep of the rules, until nothing changes. Far
/// slower (O(V·E) per divergent branch per round); kept as the oracle the
/// worklist solver is tested against.
pub fn analyze_reference(
    module: &Module,
    func: FuncId,
    body: &Body,
    init: &InitShapes,
    cycles: CycleInfo,
) -> Uniformity {
    let cfg = Cfg::new(body);
    let ctx = context(module, body, &cfg, cycles, Tokens::Controlled);
    let mut values = initial_values(module, func, body, &cfg, init);
    let mut divergent: BTreeSet<u32> = BTreeSet::new();
    let facts = loop {
        let f = ctx.control_facts_reference(&divergent);
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
            if !divergent.contains(&b.as_u32()) && term_varying(&ctx, &f, &values, b) {
                divergent.insert(b.as_u32());
                changed = true;
            }
        }
        if !changed {
            break f;
        }
    };
    finish(&ctx, &cfg, func, values, &divergent, &facts)
}

/// The [`Uniformity`] of the fixed point.
fn finish(
    ctx: &Ctx<'_>,
    cfg: &Cfg,
    func: FuncId,
    values: SecondaryMap<Value, Shape>,
    divergent: &BTreeSet<u32>,
    facts: &ControlFacts,
) -> Uniformity {
    let body = ctx.body;
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
        terminators[b] = Shape::from_uniform(!divergent.contains(&b.as_u32()));
        activation[b] = Shape::Varying;
    }
    for c in ctx.cycles.ids() {
        for &e in &ctx.exits[c.0 as usize] {
            let v = Shape::from_uniform(!facts.divergent_exit[c.0 as usize]);
            let slot = loop_exits
                .entry(Block::from_u32(e))
                .or_insert(Shape::Uniform);
            *slot = Shape::join(*slot, v);
        }
    }
    let nodes = |set: &[bool]| -> BTreeSet<Block> {
        (0..set.len() as u32)
            .filter(|&b| set[b as usize])
            .map(Block::from_u32)
            .collect()
    };
    Uniformity {
        analysis: AnalysisKind::Llvm,
        func,
        values,
        strides: Default::default(),
        terminators,
        activation,
        allocas,
        loop_exits,
        sync_joins: nodes(&facts.sync_joins),
        temporal_joins: nodes(&facts.temporal_joins),
        divergent_loops: ctx
            .cycles
            .ids()
            .filter(|c| facts.divergent_exit[c.0 as usize])
            .map(|c| Block::from_u32(ctx.cycles.cycle(c).header))
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
            pred || values[*cond].is_varying()
                || ctx.temporal(f, *cond, || Point::term(b.as_u32()), b)
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
    if inst.total {
        return true;
    }
    if let InstKind::Call { callee, args, .. } = &inst.kind {
        // NVPTX's `isSourceOfDivergence` takes the result of every call as
        // divergent, intrinsics included (`llvm.nvvm.read.ptx.sreg.ctaid.x`,
        // `llvm.fmuladd.f32` of uniform operands: opt-22 and opt-19 agree), a
        // sound over-approximation that this analysis follows on nvptx modules;
        // θ's own `pllvm.*` builtins keep their rules.
        if ctx.nvptx && !ctx.module.functions[*callee].name.starts_with("pllvm.") {
            return true;
        }
        if matches!(
            call_kind(ctx.module, *callee, args.len()),
            CallKind::Horizontal | CallKind::AlwaysUniform
        ) {
            // One value broadcast to every lane that executes it, whatever the
            // operands, in any block: LLVM's `markDivergent` never marks an
            // always-uniform value, not even in a cycle that is not m-converged
            // (opt-22, `corpus/analyses/llvm/always-uniform-in-irreducible-cycle.ll`).
            return false;
        }
    }
    if let InstKind::ExtractValue { agg, indices, .. } = &inst.kind
        && mask_of_if_or_else(ctx, *agg, indices)
    {
        // AMDGPU's `isAlwaysUniform`: the exec mask of `llvm.amdgcn.if`/`else`.
        return false;
    }
    if f.not_m_converged[b.as_u32() as usize] || ctx.in_unconverged_region(f, b, i) {
        return true;
    }
    let operands = inst.kind.operands();
    let any_varying = operands.iter().any(|&o| values[o].is_varying());
    let any_temporal = operands
        .iter()
        .any(|&o| ctx.temporal(f, o, || ctx.point(b, i), b));
    if any_varying || any_temporal {
        return true;
    }
    match &inst.kind {
        InstKind::Phi { incoming, .. } => {
            let pred_varying = body.blocks[b]
                .predicate
                .is_some_and(|p| values[p].is_varying());
            let joined = f.sync_joins[b.as_u32() as usize] || f.temporal_joins[b.as_u32() as usize];
            pred_varying || (joined && !one_defined_value(body, inst.result, incoming))
        }
        InstKind::Mask => true,
        InstKind::Call { callee, args, .. } => match call_kind(ctx.module, *callee, args.len()) {
            CallKind::ThreadId | CallKind::Source => true,
            CallKind::Horizontal | CallKind::AlwaysUniform => false,
            CallKind::Pure | CallKind::Write { .. } | CallKind::NoEffect => false,
        },
        InstKind::Load { ptr, .. } => {
            operands.iter().any(|o| ctx.stack.contains(o))
                || (ctx.nvptx
                    && matches!(
                        ctx.module.types.get(body.values[*ptr].ty),
                        pllvm_semantics::types::TypeData::Ptr(0 | 5)
                    ))
        }
        InstKind::Cast {
            op: CastOp::PtrToInt,
            ..
        } => operands.iter().any(|o| ctx.stack.contains(o)),
        InstKind::ICmp { pred, .. } => {
            !matches!(pred, ICmpPred::Eq | ICmpPred::Ne)
                && operands.iter().any(|o| ctx.stack.contains(o))
        }
        // LLVM's AMDGPU and NVPTX `isSourceOfDivergence`: atomics execute lane
        // after lane, each seeing the previous lane's write.
        InstKind::AtomicRmw { .. } | InstKind::CmpXchg { .. } => true,
        _ => false,
    }
}

/// Whether `extractvalue` at `indices` of `agg` reads the exec mask of a call
/// of `llvm.amdgcn.if` or `llvm.amdgcn.else` ([`crate::target::extract_always_uniform`]).
fn mask_of_if_or_else(ctx: &Ctx<'_>, agg: Value, indices: &[u32]) -> bool {
    let Some(def) = ctx.body.def_inst(agg) else {
        return false;
    };
    match &ctx.body.insts[def].kind {
        InstKind::Call { callee, .. } => {
            crate::target::extract_always_uniform(&ctx.module.functions[*callee].name, indices)
        }
        _ => false,
    }
}

/// LLVM's `PHINode::hasConstantOrUndefValue`, the test `taintAndPushPhiNodes`
/// applies at a join: the incoming values other than `undef`, `poison` and the
/// phi itself are one value (or there are none). A lane that takes an `undef`
/// arm holds ⊤, which the observer does not count as a value of the phi (Def.
/// 10.3, `interp::observe`), so the rule is sound for P-LLVM too.
fn one_defined_value(body: &Body, phi: Option<Value>, incoming: &[(Value, Block)]) -> bool {
    let mut defined = incoming.iter().map(|&(v, _)| v).filter(|&v| {
        Some(v) != phi && !matches!(body.as_const(v), Some(ConstData::Undef | ConstData::Poison))
    });
    match defined.next() {
        None => true,
        Some(first) => defined.all(|v| same_value(body, v, first)),
    }
}

/// Whether `a` and `b` are one value in every lane: the same value, or equal
/// constants of one type (the parser gives each use of a literal its own value,
/// where LLVM uniques constants, so `phi [7, %a], [7, %b]` has one incoming
/// value for `hasConstantOrUndefValue`).
fn same_value(body: &Body, a: Value, b: Value) -> bool {
    a == b
        || (body.values[a].ty == body.values[b].ty
            && matches!((body.as_const(a), body.as_const(b)), (Some(x), Some(y)) if x == y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{blk, graph_body, names};

    fn joins_of(spec: &str, b: &str) -> Vec<String> {
        let body = graph_body(spec);
        let cfg = Cfg::new(&body);
        let j = joins(cfg.graph(), blk(&body, b).as_u32());
        names(&body, j.into_iter().map(Block::from_u32))
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
