//! The divergence analysis of thesis Ch. 6: the worklist algorithm `compute_da`
//! (Listing 1), `update_shape` (Listing 2), `prop_control_div` (Listing 3), every
//! abstract transformer [DA-*] of §6.5 (Fig. 6.5-6.8, 6.10), shadow phis, `mask()`,
//! activation and control-mask dependence, `total`, and Alloca SSA (§6.6,
//! Fig. 6.13) for stack objects.
//!
//! The state is Definition 19: `Shapes` plus the block sets `sdep*`, `tdep*`,
//! `adep*`, `cdep*`. Sync and temporal dependences come from a `JoinOracle`: for
//! the thesis analysis that is `global_joins` of Ch. 7 (Listing 7); the POPL'21
//! analysis ([`crate::popl`]) runs the same transformers with its own oracle (the
//! relevant splits of POPL'21 §4.6), which is how its edge effects are defined.
//!
//! Where the thesis leaves a case open, pllvm decides as follows (each is needed
//! for soundness against the interpreter, `proofs/tests/soundness.rs`):
//! - **Control-mask dependence is transitive, per iteration, and covers divergent
//!   loops.** The thesis adds `cdep_on(DivBlock)` to `cdep*` (Listing 3, line 26).
//!   pllvm adds more, because each of these blocks can run with only some lanes:
//!   - blocks control dependent on a block of `cdep*` through a uniform branch (§6.7:
//!     "(transitively) control-dependent");
//!   - a divergent block that post-dominates one of its own successors (a loop
//!     latch: it runs again with the lanes that stayed; Ferrante's strict control
//!     dependence);
//!   - blocks control dependent on the divergent block in the CFG of one iteration
//!     (back edges cut): a block of a loop that post-dominates the divergent
//!     branch only by way of later iterations is skipped this iteration by some
//!     lanes (thesis Fig. 7.3: B post-dominates the header A, yet the lanes that
//!     take A → D skip it);
//!   - every block of a loop with a temporally divergent exit: the lanes that left
//!     are missing from the later iterations.
//! - **A varying block predicate splits the lanes.** A lane whose predicate is false
//!   takes any successor ([PC-ND-BRANCH]), so a block with a varying predicate and
//!   two different successors has a divergent terminator.
//! - **`total` reads every lane** ([W-CMD-TOTAL]): its result is uniform only when
//!   each operand is uniform in *all* lanes: a constant, a uniform parameter, a
//!   `total` over such operands, or a uniform value of a block outside `adep*`
//!   (executed by every lane).
//! - **Uses outside a loop.** The thesis requires LCSSA (§6.3). For a use outside a
//!   loop of a value defined inside it, pllvm acts as if an LCSSA phi sat between:
//!   the use sees `v` when the oracle says lanes may leave that loop in different
//!   iterations (`JoinOracle::live_out_varying`).
//! - **Stack objects.** An `alloca`'s shape is its object's (Fig. 6.11): pointers
//!   into a uniform object are uniform (each lane's own copy, at the same offset).
//!   An object whose address escapes (stored, passed to a call, converted to an
//!   integer, returned) may be touched by other lanes and is varying; `ptrtoint`
//!   and ordered comparisons of stack addresses are varying (the addresses of the
//!   lanes' copies differ).

use crate::shape::Shape;
use crate::uniformity::{AnalysisKind, InitShapes, Uniformity};
use crate::{BlockMap, CfgFacts};
use pllvm_semantics::cfg::{DomTree, Graph};
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{
    Block, Body, CastOp, FuncId, ICmpPred, Inst, InstKind, Module, Terminator, Value, ValueDef,
};
use pllvm_semantics::theta::{self, Builtin};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The sync and temporal dependences of a divergent terminator, and what a use
/// outside a loop sees: the only places where the thesis and the POPL'21 analysis
/// differ.
pub(crate) trait JoinOracle {
    /// `(sdeps, tdeps)` of a divergent terminator in `div` (Listing 3, line 2).
    fn joins(&mut self, div: Block) -> (BTreeSet<Block>, BTreeSet<Block>);
    /// Whether a use in `user` of a value defined in `def` (inside a loop that does
    /// not contain `user`) may see the value of different iterations in different
    /// lanes, given the joins found so far.
    fn live_out_varying(
        &self,
        def: Block,
        user: Block,
        sdep: &BTreeSet<Block>,
        tdep: &BTreeSet<Block>,
    ) -> bool;
}

/// `compute_da` (Listing 1) with `global_joins` (Listing 7) as the oracle.
pub fn compute_da(
    module: &Module,
    func: FuncId,
    body: &Body,
    facts: &CfgFacts,
    init: &InitShapes,
) -> Uniformity {
    let oracle = GlobalJoins { facts };
    run(
        module,
        func,
        body,
        facts,
        init,
        oracle,
        AnalysisKind::Thesis,
    )
}

/// The thesis oracle: `global_joins` (Listing 7) of Ch. 7.
pub(crate) struct GlobalJoins<'a> {
    pub(crate) facts: &'a CfgFacts,
}

impl JoinOracle for GlobalJoins<'_> {
    fn joins(&mut self, div: Block) -> (BTreeSet<Block>, BTreeSet<Block>) {
        // Listing 3, line 2: global_joins(Successors(DivBlock), {}, lp(DivBlock)).
        let j = crate::joins::global_joins(self.facts, div, self.facts.cfg.succs(div));
        (
            j.sync.iter().copied().collect(),
            j.temporal.iter().copied().collect(),
        )
    }

    fn live_out_varying(
        &self,
        def: Block,
        user: Block,
        _sdep: &BTreeSet<Block>,
        tdep: &BTreeSet<Block>,
    ) -> bool {
        // As if LCSSA phis sat in every exit of each loop left between def and
        // user: one temporally divergent exit (tdep*) of such a loop makes the
        // live-out varying.
        let loops = &self.facts.loops;
        loops
            .ancestors(def)
            .into_iter()
            .any(|l| !loops.contains(l, user) && loops.exits(l).iter().any(|e| tdep.contains(e)))
    }
}

/// A worklist entry: an instruction, a terminator, or an Alloca SSA `Join` node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    Inst(Inst),
    Term(Block),
    Join(usize),
}

/// What a call does, for its transformer (the thesis leaves calls to the user,
/// §6.5: "We leave it to the user to supplement abstract transformers").
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CallKind {
    /// `thread_id` and its GPU spellings: varying.
    ThreadId,
    /// `any`, `all`, `popcount`, `ballot`: one value broadcast to every lane.
    Horizontal,
    /// Pure per-lane functions: [DA-UARITH] / [DA-DARITH].
    Pure,
    /// Writes memory through argument `dst`, with the contents depending on `data`
    /// (`memset`, `memcpy`, `memmove`, `lifetime.*`).
    Write {
        /// The written pointer's argument index.
        dst: usize,
        /// Arguments the written contents depend on.
        data: Vec<usize>,
    },
    /// No effect on values or memory (`assume`, debug intrinsics).
    NoEffect,
}

/// Classifies a call to `callee` by θ (§4.9.2).
pub(crate) fn call_kind(module: &Module, callee: FuncId, n_args: usize) -> CallKind {
    let name = &module.functions[callee].name;
    match theta::resolve(name) {
        Some(Builtin::ThreadId) => CallKind::ThreadId,
        Some(Builtin::Any | Builtin::All | Builtin::Popcount | Builtin::Ballot) => {
            CallKind::Horizontal
        }
        Some(Builtin::Math(_)) => CallKind::Pure,
        Some(Builtin::Memset | Builtin::Memcpy | Builtin::Memmove) => CallKind::Write {
            dst: 0,
            data: (1..n_args).collect(),
        },
        Some(Builtin::LifetimeStart | Builtin::LifetimeEnd) => CallKind::Write {
            dst: n_args.saturating_sub(1),
            data: Vec::new(),
        },
        Some(Builtin::Assume | Builtin::NoOp) => CallKind::NoEffect,
        None => CallKind::Pure,
    }
}

/// May-alias facts for stack objects: `aliased_allocas` of §6.5.2.
#[derive(Clone, Debug, Default)]
pub(crate) struct PointsTo {
    /// Per value: the allocas it may point into.
    sets: BTreeMap<Value, BTreeSet<Inst>>,
    /// Per value: whether it may point anywhere (loaded, argument, `inttoptr`, call).
    unknown: BTreeSet<Value>,
    /// Allocas whose address escapes.
    pub escaped: BTreeSet<Inst>,
    /// Every alloca.
    pub allocas: Vec<Inst>,
}

impl PointsTo {
    /// Propagates alloca provenance through `getelementptr`, phis, `select`, casts
    /// and `freeze` to a fixpoint; anything else that yields a pointer may point
    /// to any escaped object.
    pub(crate) fn compute(module: &Module, body: &Body) -> PointsTo {
        let mut pt = PointsTo::default();
        let insts = all_insts(body);
        for &i in &insts {
            if matches!(body.insts[i].kind, InstKind::Alloca { .. }) {
                pt.allocas.push(i);
            }
        }
        let is_ptr = |v: Value| module.types.is_ptr(body.values[v].ty);
        for (v, data) in body.values.iter() {
            if matches!(data.def, ValueDef::Param(_)) && is_ptr(v) {
                pt.unknown.insert(v);
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &i in &insts {
                let data = &body.insts[i];
                let Some(result) = data.result else { continue };
                let sources: Vec<Value> = match &data.kind {
                    InstKind::Alloca { .. } => {
                        changed |= pt.sets.entry(result).or_default().insert(i);
                        continue;
                    }
                    InstKind::Gep { base, .. } => vec![*base],
                    InstKind::Phi { .. } | InstKind::Select { .. } => {
                        let ops = data.kind.operands();
                        match &data.kind {
                            InstKind::Select { .. } => ops[1..].to_vec(),
                            _ => ops,
                        }
                    }
                    InstKind::Freeze { arg, .. } => vec![*arg],
                    InstKind::Cast {
                        op: CastOp::Bitcast | CastOp::AddrSpaceCast,
                        arg,
                        ..
                    } => vec![*arg],
                    InstKind::Cast {
                        op: CastOp::IntToPtr,
                        ..
                    }
                    | InstKind::Load { .. }
                    | InstKind::Call { .. } => {
                        if is_ptr(result) {
                            changed |= pt.unknown.insert(result);
                        }
                        continue;
                    }
                    _ => continue,
                };
                for s in sources {
                    let add: Vec<Inst> = pt.sets.get(&s).into_iter().flatten().copied().collect();
                    let entry = pt.sets.entry(result).or_default();
                    for a in add {
                        changed |= entry.insert(a);
                    }
                    if pt.unknown.contains(&s) {
                        changed |= pt.unknown.insert(result);
                    }
                }
            }
        }
        // Escapes: a stack address stored as data, passed to a call other than as
        // the written pointer of a memory intrinsic, turned into an integer, or
        // returned.
        let mut escaping: Vec<Value> = Vec::new();
        for &i in &insts {
            match &body.insts[i].kind {
                InstKind::Store { value, .. } => escaping.push(*value),
                InstKind::Cast {
                    op: CastOp::PtrToInt,
                    arg,
                    ..
                } => escaping.push(*arg),
                InstKind::Call { callee, args, .. } => {
                    let kind = call_kind(module, *callee, args.len());
                    for (k, a) in args.iter().enumerate() {
                        let written = matches!(&kind, CallKind::Write { dst, .. } if *dst == k);
                        let copied_from = matches!(&kind, CallKind::Write { dst, data } if *dst == 0 && k == 1 && !data.is_empty());
                        if !(written || copied_from) {
                            escaping.push(*a);
                        }
                    }
                }
                _ => {}
            }
        }
        for &b in &body.layout {
            if let Terminator::Ret(Some(v)) = body.blocks[b].term {
                escaping.push(v);
            }
        }
        for v in escaping {
            if let Some(set) = pt.sets.get(&v) {
                pt.escaped.extend(set.iter().copied());
            }
        }
        pt
    }

    /// `aliased_allocas(val_ptr)` (§6.5.2): the allocas `ptr` may point into.
    pub(crate) fn aliased_allocas(&self, ptr: Value) -> BTreeSet<Inst> {
        let mut out: BTreeSet<Inst> = self.sets.get(&ptr).cloned().unwrap_or_default();
        if self.unknown.contains(&ptr) {
            out.extend(self.escaped.iter().copied());
        }
        out
    }

    /// Whether `ptr` may hold the address of a stack object.
    pub(crate) fn may_be_stack(&self, ptr: Value) -> bool {
        !self.aliased_allocas(ptr).is_empty()
    }
}

/// Every phi and command of `body`, in layout order.
pub(crate) fn all_insts(body: &Body) -> Vec<Inst> {
    body.layout
        .iter()
        .flat_map(|&b| {
            let data = &body.blocks[b];
            data.phis.iter().chain(&data.body).copied()
        })
        .collect()
}

/// An Alloca SSA `Join` node (§6.6): the state of `alloca` where control joins in
/// `block`.
#[derive(Clone, Copy, Debug)]
struct AllocaJoin {
    block: Block,
    alloca: Inst,
}

/// The Alloca SSA graph reduced to what the transformers need: one `Join` per
/// (object, block) where different states of the object may meet. `Def` nodes are
/// the allocas, `Write` nodes the stores and memory intrinsics that may alias them;
/// a `Join` goes to the iterated dominance frontier of an object's `Def` and
/// `Write` blocks (as phis do for values), and, standing in for LCSSA, to every
/// exit of a loop that writes the object.
fn alloca_ssa(module: &Module, body: &Body, facts: &CfgFacts, pt: &PointsTo) -> Vec<AllocaJoin> {
    let frontiers = facts.dom.frontiers(&facts.cfg);
    let mut writes: BTreeMap<Inst, BTreeSet<Block>> = BTreeMap::new();
    let mut defs: BTreeMap<Inst, Block> = BTreeMap::new();
    for &b in &body.layout {
        let data = &body.blocks[b];
        for &i in data.phis.iter().chain(&data.body) {
            match &body.insts[i].kind {
                InstKind::Alloca { .. } => {
                    defs.insert(i, b);
                }
                InstKind::Store { ptr, .. } => {
                    for a in pt.aliased_allocas(*ptr) {
                        writes.entry(a).or_default().insert(b);
                    }
                }
                InstKind::Call { callee, args, .. } => {
                    if let CallKind::Write { dst, .. } = call_kind(module, *callee, args.len())
                        && let Some(&p) = args.get(dst)
                    {
                        for a in pt.aliased_allocas(p) {
                            writes.entry(a).or_default().insert(b);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut joins = Vec::new();
    for (&alloca, &def) in &defs {
        let written = writes.get(&alloca).cloned().unwrap_or_default();
        let mut placed: BTreeSet<Block> = BTreeSet::new();
        let mut work: Vec<Block> = written.iter().copied().chain([def]).collect();
        while let Some(b) = work.pop() {
            for &f in frontiers.get(b.as_u32() as usize).into_iter().flatten() {
                if placed.insert(f) {
                    work.push(f);
                }
            }
        }
        for &w in &written {
            for l in facts.loops.ancestors(w) {
                placed.extend(facts.loops.exits(l).iter().copied());
            }
        }
        joins.extend(placed.into_iter().map(|block| AllocaJoin { block, alloca }));
    }
    joins
}

/// The analysis state of Definition 19 and the static tables the worklist needs.
struct Engine<'a, O: JoinOracle> {
    module: &'a Module,
    body: &'a Body,
    facts: &'a CfgFacts,
    oracle: O,
    init: &'a InitShapes,
    // Definition 19.
    shapes: SecondaryMap<Value, Shape>,
    terms: SecondaryMap<Block, Shape>,
    sdep: BTreeSet<Block>,
    tdep: BTreeSet<Block>,
    adep: BTreeSet<Block>,
    cdep: BTreeSet<Block>,
    varying_allocas: BTreeSet<Inst>,
    // The work queue.
    queue: VecDeque<Item>,
    queued: BTreeSet<Item>,
    // Static tables.
    inst_block: SecondaryMap<Inst, Option<Block>>,
    users: BTreeMap<Value, Vec<Item>>,
    predicated: BTreeMap<Value, Vec<Block>>,
    pt: PointsTo,
    joins: Vec<AllocaJoin>,
    cross_loop: Vec<Item>,
    cdep_on: BlockMap<Vec<Block>>,
}

/// Runs Listing 1 with `oracle`.
pub(crate) fn run<O: JoinOracle>(
    module: &Module,
    func: FuncId,
    body: &Body,
    facts: &CfgFacts,
    init: &InitShapes,
    oracle: O,
    analysis: AnalysisKind,
) -> Uniformity {
    run_refined(
        module,
        func,
        body,
        facts,
        init,
        oracle,
        analysis,
        &mut NoRefinement,
    )
}

/// A refinement of the value lattice (thesis §10.2.1): a richer lattice whose
/// elements translate to the basic shapes of §6.1. The engine keeps the control
/// divergence (`sdep*`, `tdep*`, `adep*`, `cdep*`, Definition 19) and asks the
/// refinement for the shape of every value it computes; the basic shape the
/// refinement answers is what the engine stores, so a branch the refinement
/// proves uniform causes no control divergence ([`crate::stride`]).
pub(crate) trait Refinement {
    /// A parameter with its `InitShapes` shape; returns the basic shape to store.
    fn param(&mut self, facts: &dyn EngineFacts, value: Value, basic: Shape) -> Shape;
    /// The result `value` of `inst`, whose basic transformer gave `basic`; returns
    /// the basic shape to store and whether the refined shape changed (then the
    /// users are visited again even if the basic shape did not change).
    fn inst(
        &mut self,
        facts: &dyn EngineFacts,
        inst: Inst,
        value: Value,
        basic: Shape,
    ) -> (Shape, bool);
}

/// The basic lattice itself: no refinement (`thesis`, `popl`).
pub(crate) struct NoRefinement;

impl Refinement for NoRefinement {
    fn param(&mut self, _: &dyn EngineFacts, _: Value, basic: Shape) -> Shape {
        basic
    }
    fn inst(&mut self, _: &dyn EngineFacts, _: Inst, _: Value, basic: Shape) -> (Shape, bool) {
        (basic, false)
    }
}

/// What a [`Refinement`] may read of the analysis state (Definition 19).
pub(crate) trait EngineFacts {
    /// The block holding `inst`.
    fn block_of(&self, inst: Inst) -> Option<Block>;
    /// Whether `block` is in `sdep* ∪ tdep*` ([DA-PHI-D]).
    fn joined(&self, block: Block) -> bool;
    /// Whether `block` is in `cdep*` ([DA-SPHI-D]).
    fn control_divergent(&self, block: Block) -> bool;
    /// Whether a use in `user` of `value` sees it varying because lanes may have
    /// left a loop around its definition in different iterations (the LCSSA rule).
    fn live_out_varying(&self, user: Block, value: Value) -> bool;
    /// The basic shape stored for `value`.
    fn basic(&self, value: Value) -> Shape;
    /// Whether `value` may point into a stack object (§6.5.2).
    fn may_be_stack(&self, value: Value) -> bool;
}

impl<O: JoinOracle> EngineFacts for Engine<'_, O> {
    fn block_of(&self, inst: Inst) -> Option<Block> {
        self.inst_block[inst]
    }
    fn joined(&self, block: Block) -> bool {
        self.sdep.contains(&block) || self.tdep.contains(&block)
    }
    fn control_divergent(&self, block: Block) -> bool {
        self.cdep.contains(&block)
    }
    fn live_out_varying(&self, user: Block, value: Value) -> bool {
        match &self.body.values[value].def {
            ValueDef::Inst(i) => match self.inst_block[*i] {
                Some(d) => {
                    d != user
                        && self
                            .oracle
                            .live_out_varying(d, user, &self.sdep, &self.tdep)
                }
                None => false,
            },
            _ => false,
        }
    }
    fn basic(&self, value: Value) -> Shape {
        self.shapes[value]
    }
    fn may_be_stack(&self, value: Value) -> bool {
        self.pt.may_be_stack(value)
    }
}

/// Runs Listing 1 with `oracle`, the value shapes refined by `refine`.
#[allow(
    clippy::too_many_arguments,
    reason = "the inputs of Listing 1 plus the refinement"
)]
pub(crate) fn run_refined<O: JoinOracle, R: Refinement>(
    module: &Module,
    func: FuncId,
    body: &Body,
    facts: &CfgFacts,
    init: &InitShapes,
    oracle: O,
    analysis: AnalysisKind,
    refine: &mut R,
) -> Uniformity {
    let mut engine = Engine::new(module, body, facts, init, oracle);
    engine.solve(refine);
    engine.finish(func, analysis)
}

impl<'a, O: JoinOracle> Engine<'a, O> {
    fn new(
        module: &'a Module,
        body: &'a Body,
        facts: &'a CfgFacts,
        init: &'a InitShapes,
        oracle: O,
    ) -> Self {
        let mut inst_block = SecondaryMap::with_default(None);
        let mut users: BTreeMap<Value, Vec<Item>> = BTreeMap::new();
        let mut predicated: BTreeMap<Value, Vec<Block>> = BTreeMap::new();
        let mut cross_loop = Vec::new();
        for &b in &body.layout {
            let data = &body.blocks[b];
            for &i in data.phis.iter().chain(&data.body) {
                inst_block[i] = Some(b);
            }
        }
        let def_block = |v: Value| body.def_inst(v).and_then(|i| inst_block[i]);
        let leaves_loop = |v: Value, user: Block| {
            def_block(v).is_some_and(|d: Block| {
                facts
                    .loops
                    .ancestors(d)
                    .into_iter()
                    .any(|l| !facts.loops.contains(l, user))
            })
        };
        for &b in &body.layout {
            let data = &body.blocks[b];
            if let Some(p) = data.predicate {
                predicated.entry(p).or_default().push(b);
                users.entry(p).or_default().push(Item::Term(b));
                if leaves_loop(p, b) {
                    cross_loop.push(Item::Term(b));
                }
            }
            for &i in data.phis.iter().chain(&data.body) {
                let kind = &body.insts[i].kind;
                let uses: Vec<(Value, Block)> = match kind {
                    InstKind::Phi {
                        incoming, shadow, ..
                    } => incoming
                        .iter()
                        .copied()
                        .chain(shadow.iter().map(|&s| (s, b)))
                        .collect(),
                    _ => kind.operands().into_iter().map(|v| (v, b)).collect(),
                };
                for (v, user) in uses {
                    users.entry(v).or_default().push(Item::Inst(i));
                    if leaves_loop(v, user) {
                        cross_loop.push(Item::Inst(i));
                    }
                }
            }
            for v in data.term.operands() {
                users.entry(v).or_default().push(Item::Term(b));
                if leaves_loop(v, b) {
                    cross_loop.push(Item::Term(b));
                }
            }
        }
        // Ferrante's strict control dependence: cdep_on plus the block itself when
        // it post-dominates one of its successors; and control dependence in the
        // CFG of one iteration.
        let cdep = crate::control_dependence(body, &facts.postdom);
        let mut cdep_on = crate::cdep_on(&cdep);
        for (a, ks) in iteration_cdep_on(body, facts) {
            for k in ks {
                if !cdep_on[a].contains(&k) {
                    cdep_on[a].push(k);
                }
            }
        }
        for &b in &body.layout {
            if facts
                .cfg
                .succs(b)
                .iter()
                .any(|&s| facts.postdom.post_dominates(b, s))
                && !cdep_on[b].contains(&b)
            {
                cdep_on[b].push(b);
            }
        }
        let pt = PointsTo::compute(module, body);
        let joins = alloca_ssa(module, body, facts, &pt);
        Engine {
            module,
            body,
            facts,
            oracle,
            init,
            shapes: SecondaryMap::with_default(Shape::Bottom),
            terms: SecondaryMap::with_default(Shape::Bottom),
            sdep: BTreeSet::new(),
            tdep: BTreeSet::new(),
            adep: BTreeSet::new(),
            cdep: BTreeSet::new(),
            varying_allocas: BTreeSet::new(),
            queue: VecDeque::new(),
            queued: BTreeSet::new(),
            inst_block,
            users,
            predicated,
            pt,
            joins,
            cross_loop,
            cdep_on,
        }
    }

    fn push(&mut self, item: Item) {
        if self.queued.insert(item) {
            self.queue.push_back(item);
        }
    }

    /// Listing 1.
    fn solve<R: Refinement>(&mut self, refine: &mut R) {
        // Lines 6-8: apply predefined shapes (the parameters).
        let params: Vec<(Value, Shape)> = self
            .body
            .values
            .iter()
            .filter_map(|(v, d)| match d.def {
                ValueDef::Param(n) => Some((
                    v,
                    self.init
                        .params
                        .get(n as usize)
                        .copied()
                        .unwrap_or(Shape::Varying),
                )),
                _ => None,
            })
            .collect();
        for (v, s) in params {
            let s = refine.param(self, v, s);
            self.update_shape(v, s);
        }
        // An escaped stack object may be reached by other lanes: varying.
        for a in self.pt.escaped.clone() {
            self.set_alloca_varying(a);
        }
        // Lines 9-11: every instruction and terminator of the region.
        for &b in &self.body.layout {
            let data = &self.body.blocks[b];
            for &i in data.phis.iter().chain(&data.body) {
                self.push(Item::Inst(i));
            }
            self.push(Item::Term(b));
        }
        for j in 0..self.joins.len() {
            self.push(Item::Join(j));
        }
        // Lines 12-22.
        while let Some(item) = self.queue.pop_front() {
            self.queued.remove(&item);
            match item {
                Item::Inst(i) => {
                    let (var_allocas, new) = self.compute_transformer(i);
                    for a in var_allocas {
                        self.set_alloca_varying(a);
                    }
                    if let Some(v) = self.body.insts[i].result {
                        let (new, refined) = refine.inst(self, i, v, new);
                        if refined {
                            for item in self.users.get(&v).cloned().unwrap_or_default() {
                                self.push(item);
                            }
                        }
                        self.update_shape(v, new);
                    }
                }
                Item::Term(b) => {
                    let new = self.terminator_transformer(b);
                    let old = self.terms[b];
                    let new = old.join(new);
                    if new != old {
                        self.terms[b] = new;
                        // Lines 18-20.
                        if new.is_varying() {
                            self.prop_control_div(b);
                        }
                    }
                }
                Item::Join(j) => {
                    let join = self.joins[j];
                    if let Some(a) = self.da_join(join) {
                        self.set_alloca_varying(a);
                    }
                }
            }
        }
    }

    /// `update_shape` (Listing 2), monotone: the new shape is joined with the old.
    fn update_shape(&mut self, value: Value, new: Shape) {
        let old = self.shapes[value];
        let new = old.join(new);
        // Line 1.
        if new == old {
            return;
        }
        self.shapes[value] = new;
        // Lines 2-4: data-dependent users.
        for item in self.users.get(&value).cloned().unwrap_or_default() {
            self.push(item);
        }
        // Lines 5-12: activation dependence through a varying block predicate.
        if new.is_varying() {
            for b in self.predicated.get(&value).cloned().unwrap_or_default() {
                self.add_adep(b);
            }
        }
    }

    /// `b` joins `adep*`: its instructions are queued again, and so are the users
    /// of its values (a `total` user reads them in every lane).
    fn add_adep(&mut self, b: Block) {
        if !self.adep.insert(b) {
            return;
        }
        self.push_block(b);
        let data = &self.body.blocks[b];
        let results: Vec<Value> = data
            .phis
            .iter()
            .chain(&data.body)
            .filter_map(|&i| self.body.insts[i].result)
            .collect();
        for v in results {
            for item in self.users.get(&v).cloned().unwrap_or_default() {
                self.push(item);
            }
        }
    }

    fn push_block(&mut self, b: Block) {
        let data = &self.body.blocks[b];
        let items: Vec<Item> = data
            .phis
            .iter()
            .chain(&data.body)
            .map(|&i| Item::Inst(i))
            .chain([Item::Term(b)])
            .collect();
        for item in items {
            self.push(item);
        }
    }

    fn push_phis_and_joins(&mut self, b: Block) {
        let phis: Vec<Inst> = self.body.blocks[b].phis.clone();
        for i in phis {
            self.push(Item::Inst(i));
        }
        let joins: Vec<usize> = (0..self.joins.len())
            .filter(|&j| self.joins[j].block == b)
            .collect();
        for j in joins {
            self.push(Item::Join(j));
        }
    }

    /// `prop_control_div` (Listing 3).
    fn prop_control_div(&mut self, div: Block) {
        // Line 2.
        let (sdeps, tdeps) = self.oracle.joins(div);
        let mut grew = false;
        // Lines 4-13: sync dependence.
        for s in sdeps {
            if self.sdep.insert(s) {
                grew = true;
                self.push_phis_and_joins(s);
            }
        }
        // Lines 15-24: temporal dependence.
        for t in tdeps {
            if self.tdep.insert(t) {
                grew = true;
                self.push_phis_and_joins(t);
            }
        }
        if grew {
            for item in self.cross_loop.clone() {
                self.push(item);
            }
        }
        // Lines 26-33: activation dependence (divergent control mask), closed
        // transitively over control dependence; a loop that lanes leave in
        // different iterations runs its later iterations with fewer lanes.
        let mut work = vec![div];
        let loops = &self.facts.loops;
        for l in loops.ancestors(div) {
            if loops.exits(l).iter().any(|e| self.tdep.contains(e)) {
                work.extend(loops.blocks(l).iter().copied());
            }
        }
        for &b in &work.clone() {
            if b != div && self.cdep.insert(b) {
                self.add_adep(b);
            }
        }
        while let Some(b) = work.pop() {
            for k in self.cdep_on[b].clone() {
                if self.cdep.insert(k) {
                    self.add_adep(k);
                    work.push(k);
                }
            }
        }
    }

    /// [DA-ID], [DA-CONST] (Fig. 6.5) for a use of `v` in block `user`.
    fn operand(&self, user: Block, v: Value) -> Shape {
        match &self.body.values[v].def {
            ValueDef::Const(_) => Shape::Uniform,
            ValueDef::Param(_) => self.shapes[v],
            ValueDef::Inst(i) => {
                let s = self.shapes[v];
                if s == Shape::Bottom {
                    return s;
                }
                match self.inst_block[*i] {
                    Some(d)
                        if d != user
                            && self
                                .oracle
                                .live_out_varying(d, user, &self.sdep, &self.tdep) =>
                    {
                        Shape::Varying
                    }
                    _ => s,
                }
            }
        }
    }

    /// The shape of `v` read in *every* lane (for `total`, [W-CMD-TOTAL]).
    fn absolute(&self, user: Block, v: Value) -> Shape {
        let s = self.operand(user, v);
        if s != Shape::Uniform {
            return s;
        }
        match &self.body.values[v].def {
            ValueDef::Const(_) | ValueDef::Param(_) => Shape::Uniform,
            ValueDef::Inst(i) => {
                if self.body.insts[*i].total {
                    return Shape::Uniform;
                }
                match self.inst_block[*i] {
                    Some(d) if !self.adep.contains(&d) => Shape::Uniform,
                    _ => Shape::Varying,
                }
            }
        }
    }

    /// [DA-UARITH] / [DA-DARITH] over `shapes`: `v` if one is `v`, `u` if all are
    /// `u`, ⊥ otherwise (no rule applies yet).
    fn arith(shapes: impl IntoIterator<Item = Shape>) -> Shape {
        let mut out = Shape::Uniform;
        for s in shapes {
            match s {
                Shape::Varying => return Shape::Varying,
                Shape::Bottom => out = Shape::Bottom,
                Shape::Uniform => {}
            }
        }
        out
    }

    /// `compute_transformer` (Listing 1, line 14): `(VarAllocas, NewShape)`.
    fn compute_transformer(&self, i: Inst) -> (BTreeSet<Inst>, Shape) {
        let Some(b) = self.inst_block[i] else {
            return (BTreeSet::new(), Shape::Bottom);
        };
        let data = &self.body.insts[i];
        let op = |v: Value| {
            if data.total {
                self.absolute(b, v)
            } else {
                self.operand(b, v)
            }
        };
        let none = BTreeSet::new;
        match &data.kind {
            InstKind::Phi {
                incoming, shadow, ..
            } => (none(), self.da_phi(b, incoming, shadow.is_some())),
            InstKind::Mask => (none(), self.da_mask(b)),
            InstKind::Load { ptr, .. } => (none(), da_load(op(*ptr))),
            InstKind::Store { value, ptr, .. } => (
                self.da_store(b, *ptr, op(*value).join(op(*ptr))),
                Shape::Bottom,
            ),
            InstKind::Alloca { count, .. } => {
                let own = if self.varying_allocas.contains(&i) {
                    Shape::Varying
                } else {
                    Shape::Uniform
                };
                (
                    none(),
                    Self::arith(count.iter().map(|&c| op(c)).chain([own])),
                )
            }
            InstKind::Cast {
                op: CastOp::PtrToInt,
                arg,
                ..
            } if self.pt.may_be_stack(*arg) => (none(), Shape::Varying),
            InstKind::ICmp { pred, lhs, rhs, .. }
                if !matches!(pred, ICmpPred::Eq | ICmpPred::Ne)
                    && (self.pt.may_be_stack(*lhs) || self.pt.may_be_stack(*rhs)) =>
            {
                (none(), Shape::Varying)
            }
            InstKind::Call { callee, args, .. } => {
                match call_kind(self.module, *callee, args.len()) {
                    CallKind::ThreadId => (none(), Shape::Varying),
                    CallKind::Horizontal => (none(), Shape::Uniform),
                    CallKind::Pure => (none(), Self::arith(args.iter().map(|&a| op(a)))),
                    CallKind::NoEffect => (none(), Shape::Uniform),
                    CallKind::Write { dst, data: deps } => {
                        let Some(&p) = args.get(dst) else {
                            return (none(), Shape::Bottom);
                        };
                        let data_shape =
                            Self::arith(deps.iter().filter_map(|&k| args.get(k)).map(|&a| op(a)));
                        (self.da_store(b, p, data_shape.join(op(p))), Shape::Bottom)
                    }
                }
            }
            // [DA-UARITH] / [DA-DARITH]: side-effect free operations.
            kind => (none(), Self::arith(kind.operands().into_iter().map(op))),
        }
    }

    /// [DA-PHI-D] / [DA-PHI-U] (Fig. 6.7) and [DA-SPHI-D] / [DA-SPHI-U] (Fig. 6.8).
    fn da_phi(&self, b: Block, incoming: &[(Value, Block)], shadow: bool) -> Shape {
        let joined = self.sdep.contains(&b) || self.tdep.contains(&b);
        // A shadow phi also turns varying when the control mask of its block does:
        // the passive lanes see the shadow operand.
        if joined || (shadow && self.cdep.contains(&b)) {
            return Shape::Varying;
        }
        // id# = ⊔ [[val_j]]#, each read at the end of its incoming block (a join,
        // so that loop-carried phis leave ⊥ before their back-edge value does).
        Shape::join_all(incoming.iter().map(|&(v, q)| self.operand(q, v)))
    }

    /// [DA-DMASK] / [DA-UMASK] (Fig. 6.6).
    fn da_mask(&self, b: Block) -> Shape {
        if self.adep.contains(&b) {
            Shape::Varying
        } else {
            Shape::Uniform
        }
    }

    /// [DA-STORE-D] / [DA-STORE-U] (Fig. 6.10): the stack objects a store may make
    /// varying. `operands` is the shape of the data and the pointer; `pmsk` is the
    /// activation of the store's block (`adep*`).
    fn da_store(&self, b: Block, ptr: Value, operands: Shape) -> BTreeSet<Inst> {
        let pmsk = self.adep.contains(&b);
        if operands.is_varying() || pmsk {
            self.pt.aliased_allocas(ptr)
        } else {
            BTreeSet::new()
        }
    }

    /// [DA-JOIN-D] (Fig. 6.13).
    fn da_join(&self, join: AllocaJoin) -> Option<Inst> {
        (self.sdep.contains(&join.block) || self.tdep.contains(&join.block)).then_some(join.alloca)
    }

    /// The transformer of a terminator: `v` if it may send the active lanes to
    /// different successors (successor indices, as [PC-ACTIVE] numbers them: a
    /// `switch` whose cases share a block still picks different indices).
    fn terminator_transformer(&self, b: Block) -> Shape {
        let data = &self.body.blocks[b];
        let mut succs = data.term.successors();
        succs.sort_unstable();
        succs.dedup();
        let cond = match &data.term {
            Terminator::CondBr { cond, .. } | Terminator::Switch { cond, .. } => {
                self.operand(b, *cond)
            }
            _ => Shape::Uniform,
        };
        // A lane whose predicate is false takes any successor ([PC-ND-BRANCH]).
        let predicate = match data.predicate {
            Some(p) if succs.len() > 1 => self.operand(b, p),
            _ => Shape::Uniform,
        };
        Self::arith([cond, predicate])
    }

    fn set_alloca_varying(&mut self, a: Inst) {
        if self.varying_allocas.insert(a) {
            if let Some(v) = self.body.insts[a].result {
                self.update_shape(v, Shape::Varying);
            }
            self.push(Item::Inst(a));
        }
    }

    fn finish(self, func: FuncId, analysis: AnalysisKind) -> Uniformity {
        let body = self.body;
        let mut activation = SecondaryMap::with_default(Shape::Bottom);
        let mut terminators = SecondaryMap::with_default(Shape::Bottom);
        for &b in &body.layout {
            activation[b] = if !self.facts.dom.is_reachable(b) {
                Shape::Bottom
            } else if self.adep.contains(&b) {
                Shape::Varying
            } else {
                Shape::Uniform
            };
            terminators[b] = self.terms[b];
        }
        let mut allocas = BTreeMap::new();
        for &a in &self.pt.allocas {
            let reached = body.insts[a]
                .result
                .is_some_and(|v| self.shapes[v] != Shape::Bottom);
            allocas.insert(
                a,
                if self.varying_allocas.contains(&a) {
                    Shape::Varying
                } else if reached {
                    Shape::Uniform
                } else {
                    Shape::Bottom
                },
            );
        }
        let mut loop_exits = BTreeMap::new();
        let mut divergent_loops = BTreeSet::new();
        for l in self.facts.loops.loops() {
            let mut divergent = false;
            for &e in self.facts.loops.exits(l) {
                let t = self.tdep.contains(&e);
                divergent |= t;
                let entry = loop_exits.entry(e).or_insert(Shape::Uniform);
                if t {
                    *entry = Shape::Varying;
                }
            }
            if divergent {
                divergent_loops.insert(self.facts.loops.header(l));
            }
        }
        let mut values = SecondaryMap::with_default(Shape::Bottom);
        for (v, _) in body.values.iter() {
            values[v] = self.shapes[v];
        }
        Uniformity {
            analysis,
            func,
            values,
            strides: BTreeMap::new(),
            terminators,
            activation,
            allocas,
            loop_exits,
            sync_joins: self.sdep,
            temporal_joins: self.tdep,
            divergent_loops,
        }
    }
}

/// `cdep_on` in the CFG of one loop iteration, restricted to the blocks of the
/// innermost loop around the branch: the CFG with every back edge `l → h`
/// replaced by an edge from `l` to a virtual exit (where the returning blocks go
/// too). The graph is acyclic, so post-dominance there means "later in the same
/// iteration, on every path" (§2.3's definition, on this graph). Blocks outside
/// the loop are left out: the greedy schedule (Def. 17) keeps the lanes that
/// leave early waiting there for the others.
fn iteration_cdep_on(body: &Body, facts: &CfgFacts) -> Vec<(Block, Vec<Block>)> {
    let n = facts.cfg.len();
    let exit = n as u32;
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
    for (b, out) in succs.iter_mut().enumerate().take(n) {
        let block = Block::from_u32(b as u32);
        for &s in facts.cfg.succs(block) {
            let t = if facts.loops.is_back_edge(block, s) {
                exit
            } else {
                s.as_u32()
            };
            if !out.contains(&t) {
                out.push(t);
            }
        }
        if out.is_empty() {
            out.push(exit);
        }
    }
    let forward = Graph::from_succs(succs);
    let pdom = DomTree::compute(&forward.reversed(), exit);
    let mut out = Vec::new();
    for &a in &body.layout {
        if !facts.dom.is_reachable(a) {
            continue;
        }
        let Some(l) = facts.loops.loop_of(a) else {
            continue;
        };
        let stop = pdom.idom(a.as_u32());
        let mut ks: Vec<Block> = Vec::new();
        for &b in forward.successors(a.as_u32()) {
            let mut runner = Some(b);
            while let Some(k) = runner {
                if Some(k) == stop || k == exit {
                    break;
                }
                if k != a.as_u32()
                    && facts.loops.contains(l, Block::from_u32(k))
                    && !ks.contains(&Block::from_u32(k))
                {
                    ks.push(Block::from_u32(k));
                }
                runner = pdom.idom(k);
            }
        }
        out.push((a, ks));
    }
    out
}

/// [DA-LOAD-D] / [DA-LOAD-U] (Fig. 6.10).
fn da_load(ptr: Shape) -> Shape {
    ptr
}
