//! The shared engine of the divergence analyses of thesis Ch. 6: the worklist
//! algorithm `compute_da` (Listing 1), `update_shape` (Listing 2) and
//! `prop_control_div` (Listing 3) over the analysis state of Definition 19
//! (`Shapes` plus the block sets `sdep*`, `tdep*`, `adep*`, `cdep*`), with
//! activation and control-mask dependence and the Alloca SSA `Join` nodes of §6.6.
//!
//! The engine applies the [DA-*] transformers of [`crate::transfer`]. Sync and
//! temporal dependences come from a `JoinOracle` (the thesis's `global_joins` in
//! [`crate::thesis`], POPL'21's relevant splits in [`crate::popl`]), and a
//! `Refinement` may replace the value lattice (the sa-lattice of Ch. 10,
//! [`crate::stride`]). Why the control-mask dependence is wider than Listing 3's is
//! recorded in the module documentation of [`crate::thesis`].

use crate::alloca_ssa::{AllocaJoin, alloca_ssa};
use crate::control_dep::{cdep_on, control_dependence};
use crate::facts::CfgFacts;
use crate::loops::LoopId;
use crate::points_to::PointsTo;
use crate::result::{AnalysisKind, InitShapes, Uniformity};
use crate::shape::Shape;
use crate::state::DaState;
use crate::tables::BlockMap;
use crate::transfer;
use pllvm_semantics::cfg::{DomTree, Graph};
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{Block, Body, FuncId, Inst, InstKind, Module, Value, ValueDef};
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

/// A worklist entry: an instruction, a terminator, or an Alloca SSA `Join` node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    Inst(Inst),
    Term(Block),
    Join(usize),
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
    /// Loops whose blocks are all in `cdep` already (put there by
    /// `prop_control_div`).
    cdep_loops: BTreeSet<LoopId>,
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
    fn param(&mut self, facts: &dyn DaState, value: Value, basic: Shape) -> Shape;
    /// The result `value` of `inst`, whose basic transformer gave `basic`; returns
    /// the basic shape to store and whether the refined shape changed (then the
    /// users are visited again even if the basic shape did not change).
    fn inst(
        &mut self,
        facts: &dyn DaState,
        inst: Inst,
        value: Value,
        basic: Shape,
    ) -> (Shape, bool);
}

/// The basic lattice itself: no refinement (`thesis`, `popl`).
pub(crate) struct NoRefinement;

impl Refinement for NoRefinement {
    fn param(&mut self, _: &dyn DaState, _: Value, basic: Shape) -> Shape {
        basic
    }
    fn inst(&mut self, _: &dyn DaState, _: Inst, _: Value, basic: Shape) -> (Shape, bool) {
        (basic, false)
    }
}

impl<O: JoinOracle> DaState for Engine<'_, O> {
    fn module(&self) -> &Module {
        self.module
    }
    fn body(&self) -> &Body {
        self.body
    }
    fn block_of(&self, inst: Inst) -> Option<Block> {
        self.inst_block[inst]
    }
    fn basic(&self, value: Value) -> Shape {
        self.shapes[value]
    }
    fn joined(&self, block: Block) -> bool {
        self.sdep.contains(&block) || self.tdep.contains(&block)
    }
    fn control_divergent(&self, block: Block) -> bool {
        self.cdep.contains(&block)
    }
    fn activation_divergent(&self, block: Block) -> bool {
        self.adep.contains(&block)
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
    fn alloca_varying(&self, alloca: Inst) -> bool {
        self.varying_allocas.contains(&alloca)
    }
    fn aliased_allocas(&self, ptr: Value) -> BTreeSet<Inst> {
        self.pt.aliased_allocas(ptr)
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
        // Some loop around the definition does not hold the user. Loops nest, so
        // that is the innermost one's question alone (one O(1) test, not a walk
        // over the nest per use).
        let leaves_loop = |v: Value, user: Block| {
            def_block(v).is_some_and(|d: Block| {
                facts
                    .loops
                    .loop_of(d)
                    .is_some_and(|l| !facts.loops.contains(l, user))
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
        let cdep = control_dependence(body, &facts.postdom);
        let mut cdep_on = cdep_on(&cdep);
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
            cdep_loops: BTreeSet::new(),
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
                    let (var_allocas, new) = transfer::compute_transformer(self, i);
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
                    // Lines 5-12 of Listing 2 for a predicate read across a loop
                    // exit: its own shape may stay uniform while lanes left the loop
                    // in different iterations ([DA-ID], as if an LCSSA phi sat
                    // between), so the activation is varying as the block reads it
                    // (found by `pllvm fuzz --oracle analyses`, docs/fuzzing.md).
                    if let Some(p) = self.body.blocks[b].predicate
                        && transfer::operand(self, b, p).is_varying()
                    {
                        self.add_adep(b);
                    }
                    let new = transfer::terminator_transformer(self, b);
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
                    if let Some(a) = transfer::da_join_d(self, join.block, join.alloca) {
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
        // The blocks of an outer such loop hold those of every inner one: only the
        // outermost loop's blocks are added (the nest's blocks once, not once per
        // loop of the nest), and only the first time (every branch of a nest of
        // divergent loops finds the same outermost loop: its blocks are added
        // once, not once per branch).
        let mut outermost = None;
        let mut around = loops.loop_of(div);
        while let Some(l) = around {
            if loops.exits(l).iter().any(|e| self.tdep.contains(e)) {
                outermost = Some(l);
            }
            around = loops.parent(l);
        }
        if let Some(l) = outermost
            && self.cdep_loops.insert(l)
        {
            work.extend(loops.blocks(l).iter().copied());
        }
        // `cdep*` is closed under `cdep_on` (every block put in it is expanded
        // below), so only `div` and the blocks new to it need expanding: a nest
        // of divergent branches costs its blocks once, not once per branch.
        let mut fresh = vec![div];
        for &b in &work {
            if b != div && self.cdep.insert(b) {
                self.add_adep(b);
                fresh.push(b);
            }
        }
        let mut work = fresh;
        while let Some(b) = work.pop() {
            for k in self.cdep_on[b].clone() {
                if self.cdep.insert(k) {
                    self.add_adep(k);
                    work.push(k);
                }
            }
        }
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
    // `seen[k] == a`: `k` is in `a`'s list already.
    let mut seen = vec![u32::MAX; n];
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
                // Once the chain leaves `l` it stays out: the graph has no back
                // edges, and a path from outside into `l` enters at its header,
                // which would close a cycle through `a` (§2.4). So the walk stops
                // there instead of climbing the post-dominators of the nest.
                if !facts.loops.contains(l, Block::from_u32(k)) {
                    break;
                }
                if k != a.as_u32() && seen[k as usize] != a.as_u32() {
                    seen[k as usize] = a.as_u32();
                    ks.push(Block::from_u32(k));
                }
                runner = pdom.idom(k);
            }
        }
        out.push((a, ks));
    }
    out
}
