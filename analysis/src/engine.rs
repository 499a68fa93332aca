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
use crate::control_dep::PathMarks;
use crate::facts::CfgFacts;
use crate::loops::{LoopId, LoopInfo};
use crate::points_to::PointsTo;
use crate::result::{AnalysisKind, InitShapes, Uniformity};
use crate::shape::Shape;
use crate::state::DaState;
#[cfg(test)]
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
    /// Whether [`JoinOracle::live_out_varying`] reads only whether exits of the
    /// loops around `def` that do not hold `user` are joins. The engine then
    /// re-reads a use leaving loops only when an exit of a loop around its
    /// definition becomes a join, instead of every such use at every new join.
    fn live_out_reads_loop_exits(&self) -> bool {
        true
    }
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
    /// The loops with an exit in `tdep*`, as their outermost ones.
    flagged: FlaggedLoops,
    /// The positions of `LoopInfo::all_blocks` whose blocks a loop put in
    /// `cdep*` already.
    taken: PathMarks,
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
    /// The uses that leave a loop around their definition, keyed by the
    /// preorder number of the definition's innermost loop
    /// ([`LoopInfo::preorder`]) and sorted by it, so that the uses whose
    /// definition lies in a loop `l` are one range.
    cross_loop: Vec<(u32, Item)>,
    /// Per block, the loops it is an exit of.
    loops_exited: BTreeMap<Block, Vec<LoopId>>,
    /// `cdep_on` closed over on demand ([`CdepClosure`]), marks in step with
    /// `cdep`.
    closure: CdepClosure,
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
        // The key of such a use: the preorder number of that innermost loop.
        let leaves_loop = |v: Value, user: Block| {
            def_block(v).and_then(|d: Block| {
                let l = facts.loops.loop_of(d)?;
                (!facts.loops.contains(l, user)).then(|| facts.loops.preorder(l).0)
            })
        };
        for &b in &body.layout {
            let data = &body.blocks[b];
            if let Some(p) = data.predicate {
                predicated.entry(p).or_default().push(b);
                users.entry(p).or_default().push(Item::Term(b));
                if let Some(key) = leaves_loop(p, b) {
                    cross_loop.push((key, Item::Term(b)));
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
                    if let Some(key) = leaves_loop(v, user) {
                        cross_loop.push((key, Item::Inst(i)));
                    }
                }
            }
            for v in data.term.operands() {
                users.entry(v).or_default().push(Item::Term(b));
                if let Some(key) = leaves_loop(v, b) {
                    cross_loop.push((key, Item::Term(b)));
                }
            }
        }
        cross_loop.sort_unstable();
        cross_loop.dedup();
        let mut loops_exited: BTreeMap<Block, Vec<LoopId>> = BTreeMap::new();
        for l in facts.loops.loops() {
            for &e in facts.loops.exits(l) {
                loops_exited.entry(e).or_default().push(l);
            }
        }
        let closure = CdepClosure::new(facts);
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
            flagged: FlaggedLoops::new(&facts.loops, body.blocks.len()),
            taken: {
                // Position `p`'s parent is `p + 1`; the last one is the root.
                let n = facts.loops.all_blocks().len() as u32;
                let next: Vec<Option<u32>> = (0..=n).map(|p| (p < n).then_some(p + 1)).collect();
                PathMarks::new(&next)
            },
            varying_allocas: BTreeSet::new(),
            queue: VecDeque::new(),
            queued: BTreeSet::new(),
            inst_block,
            users,
            predicated,
            pt,
            joins,
            cross_loop,
            loops_exited,
            closure,
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

    /// Puts back on the worklist the uses leaving a loop whose
    /// [`JoinOracle::live_out_varying`] the joins `new` may change: those whose
    /// definition lies in a loop that a new join exits (a loop contains the
    /// loops whose preorder number lies in its interval). Every other such use
    /// reads exits that did not change. An oracle that reads more than loop
    /// exits gets every such use back.
    fn reread_uses_leaving_loops(&mut self, new: &[Block]) {
        if new.is_empty() {
            return;
        }
        if !self.oracle.live_out_reads_loop_exits() {
            for (_, item) in self.cross_loop.clone() {
                self.push(item);
            }
            return;
        }
        let loops = &self.facts.loops;
        let mut ranges: Vec<(u32, u32)> = new
            .iter()
            .filter_map(|t| self.loops_exited.get(t))
            .flatten()
            .map(|&l| loops.preorder(l))
            .collect();
        ranges.sort_unstable();
        let mut items = Vec::new();
        let mut covered_to: Option<u32> = None;
        for (first, last) in ranges {
            // Nested intervals: a range inside one already pushed adds nothing.
            if covered_to.is_some_and(|end| last <= end) {
                continue;
            }
            covered_to = Some(last);
            let from = self.cross_loop.partition_point(|&(k, _)| k < first);
            let to = self.cross_loop.partition_point(|&(k, _)| k <= last);
            items.extend(self.cross_loop[from..to].iter().map(|&(_, item)| item));
        }
        for item in items {
            self.push(item);
        }
    }

    /// `prop_control_div` (Listing 3).
    fn prop_control_div(&mut self, div: Block) {
        // Line 2.
        let (sdeps, tdeps) = self.oracle.joins(div);
        let mut new_joins = Vec::new();
        // Lines 4-13: sync dependence.
        for s in sdeps {
            if self.sdep.insert(s) {
                new_joins.push(s);
                self.push_phis_and_joins(s);
            }
        }
        // Lines 15-24: temporal dependence.
        for t in tdeps {
            if self.tdep.insert(t) {
                new_joins.push(t);
                self.push_phis_and_joins(t);
                self.flagged.exit_joined(&self.facts.loops, t);
            }
        }
        self.reread_uses_leaving_loops(&new_joins);
        // Lines 26-33: activation dependence (divergent control mask), closed
        // transitively over control dependence; a loop that lanes leave in
        // different iterations runs its later iterations with fewer lanes.
        let mut work = vec![div];
        let facts = self.facts;
        let loops = &facts.loops;
        // The blocks of an outer such loop hold those of every inner one: only the
        // outermost loop's blocks are added (the nest's blocks once, not once per
        // loop of the nest), and only the first time (every branch of a nest of
        // divergent loops finds the same outermost loop: its blocks are added
        // once, not once per branch). The outermost loop around `div` with an
        // exit in `tdep*` is one look-up ([`FlaggedLoops`]), and of its blocks
        // only those no loop put in `cdep*` before are read (`taken`, a
        // union-find over the positions of the loops' block ranges, which are
        // nested intervals).
        let outermost = loops
            .loop_of(div)
            .and_then(|m| self.flagged.outermost(loops, m));
        if let Some(l) = outermost
            && self.cdep_loops.insert(l)
        {
            let all = loops.all_blocks();
            let range = loops.block_range(l);
            let end = range.end as u32;
            let mut at = Some(range.start as u32);
            while let Some(p) = at {
                // `div` itself joins only through `cdep_on`: its position stays
                // open for the next loop (once: a block is `div` once).
                self.taken.climb(p, Some(end), u32::MAX, |marks, p| {
                    let b = all[p as usize];
                    if b == div {
                        at = Some(p + 1);
                        return false;
                    }
                    marks.mark(p);
                    work.push(b);
                    true
                });
                at = at.filter(|&q| q != p && q < end);
            }
        }
        // `cdep*` is closed under `cdep_on` (every block put in it is expanded by
        // the closure), so only `div` and the blocks new to it need expanding: a
        // nest of divergent branches costs its blocks once, not once per branch.
        let fresh = self.closure.close(facts, div, &work[1..]);
        for &b in &fresh {
            self.cdep.insert(b);
        }
        for b in fresh {
            self.add_adep(b);
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

/// The loops with an exit in `tdep*` (Listing 3, line 26: the loops lanes leave
/// in different iterations), kept as the outermost ones, so that the outermost
/// such loop around a block is one look-up instead of a climb over the nest.
///
/// The loops are intervals of the loop tree's preorder ([`LoopInfo::preorder`]),
/// and two of them are nested or disjoint. The outermost flagged loops are
/// therefore disjoint intervals, kept by their first number; a loop `m`'s
/// outermost flagged ancestor (or `m` itself) is the one of them that contains
/// `first(m)`: the last one starting at or before it, if it reaches that far.
/// Flagging a loop inside a kept one changes nothing; flagging one around kept
/// ones removes them (each is removed once), so all the flagging costs O(L log L)
/// for L loops, plus the exits lists once.
struct FlaggedLoops {
    /// Per block: the loops it is an exit of.
    exit_of: Vec<Vec<LoopId>>,
    /// The outermost flagged loops: first preorder number to (last, loop).
    outermost: BTreeMap<u32, (u32, LoopId)>,
}

impl FlaggedLoops {
    fn new(loops: &LoopInfo, blocks: usize) -> FlaggedLoops {
        let mut exit_of = vec![Vec::new(); blocks];
        for l in loops.loops() {
            for &e in loops.exits(l) {
                if let Some(list) = exit_of.get_mut(e.as_u32() as usize) {
                    list.push(l);
                }
            }
        }
        FlaggedLoops {
            exit_of,
            outermost: BTreeMap::new(),
        }
    }

    /// `exit` joined `tdep*`: the loops it is an exit of are flagged.
    fn exit_joined(&mut self, loops: &LoopInfo, exit: Block) {
        let Some(list) = self.exit_of.get(exit.as_u32() as usize) else {
            return;
        };
        for &l in list {
            let (first, last) = loops.preorder(l);
            if self.outermost_at(first).is_some() {
                continue;
            }
            let inside: Vec<u32> = self
                .outermost
                .range(first..=last)
                .map(|(&k, _)| k)
                .collect();
            for k in inside {
                self.outermost.remove(&k);
            }
            self.outermost.insert(first, (last, l));
        }
    }

    /// The kept loop whose interval holds `point`.
    fn outermost_at(&self, point: u32) -> Option<LoopId> {
        self.outermost
            .range(..=point)
            .next_back()
            .filter(|(_, (last, _))| *last >= point)
            .map(|(_, &(_, l))| l)
    }

    /// The outermost flagged loop among `m` and the loops around it.
    fn outermost(&self, loops: &LoopInfo, m: LoopId) -> Option<LoopId> {
        self.outermost_at(loops.preorder(m).0)
    }
}

/// The CFG of one loop iteration: the CFG with every back edge `l → h` replaced by
/// an edge from `l` to a virtual exit (node `n`, where the returning blocks go
/// too), and its post-dominator tree rooted at that exit. The graph is acyclic, so
/// post-dominance there means "later in the same iteration, on every path" (§2.3's
/// definition, on this graph).
fn iteration_graph(facts: &CfgFacts) -> (Graph, DomTree) {
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
    (forward, pdom)
}

/// The parent array of a post-dominator tree over `n` blocks and a virtual exit
/// `n` (its root): a block without an immediate post-dominator hangs below the
/// exit, where the walks of §2.3 end.
fn tree_parents(n: usize, ipdom: impl Fn(u32) -> Option<u32>) -> Vec<Option<u32>> {
    let mut parent: Vec<Option<u32>> = (0..n as u32)
        .map(|b| Some(ipdom(b).unwrap_or(n as u32)))
        .collect();
    parent.push(None);
    parent
}

/// The relation `cdep_on` the engine closes `cdep*` over (Listing 3, line 26),
/// never stored: Ferrante's strict control dependence (§2.3's relation, plus a
/// block on itself when it post-dominates one of its successors) and control
/// dependence in the CFG of one loop iteration ([`iteration_graph`]), restricted
/// to the blocks of the innermost loop around the branch (blocks outside the loop
/// are left out: the greedy schedule, Def. 17, keeps the lanes that leave early
/// waiting there for the others).
///
/// `cdep_on(a)` is, per successor `b` of `a`, the tree path from `b` up to, not
/// including, the immediate post-dominator of `a`, without `a` (in each of the two
/// trees; the iteration path also stops where it leaves `a`'s innermost loop: the
/// iteration graph has no back edges, so a path that left the loop never
/// re-enters it but through its header, which would close a cycle through `a`,
/// §2.4). Stored, the relation has d^2 pairs on a nest of d loops (every block of
/// the nest depends on every latch around it). The closure instead walks those
/// paths with [`PathMarks`], which skips the blocks already in `cdep*`: a block
/// in `cdep*` has had its own paths walked (or is about to), and the other blocks
/// on a path are found beyond it, so skipping it loses nothing; each block is
/// marked once per tree, so all the closing `cdep*` ever does costs
/// O((V + E) α(V)) steps, plus one walk per successor of each `div` it is asked
/// to expand. [`cdep_on_reference`] is the stored relation, and a property test
/// checks that both give the same closures.
struct CdepClosure {
    /// The post-dominator tree (§2.3), marks on the blocks in `cdep*`.
    pdt: PathMarks,
    /// The post-dominator tree of the iteration graph, the same marks.
    iteration: PathMarks,
    /// Successors in the iteration graph.
    forward: Graph,
    /// Immediate post-dominators in the iteration graph.
    iteration_ipdom: Vec<Option<u32>>,
    /// Blocks that post-dominate one of their successors (on themselves).
    self_dependent: Vec<bool>,
}

impl CdepClosure {
    fn new(facts: &CfgFacts) -> CdepClosure {
        let n = facts.cfg.len();
        let pdt = PathMarks::new(&tree_parents(n, |b| {
            facts.postdom.ipdom(Block::from_u32(b)).map(|p| p.as_u32())
        }));
        let (forward, pdom) = iteration_graph(facts);
        let iteration_ipdom: Vec<Option<u32>> = (0..n as u32).map(|b| pdom.idom(b)).collect();
        let iteration = PathMarks::new(&tree_parents(n, |b| {
            pdom.idom(b).filter(|&p| p != n as u32)
        }));
        let self_dependent = (0..n as u32)
            .map(Block::from_u32)
            .map(|b| {
                facts
                    .cfg
                    .succs(b)
                    .iter()
                    .any(|&s| facts.postdom.post_dominates(b, s))
            })
            .collect();
        CdepClosure {
            pdt,
            iteration,
            forward,
            iteration_ipdom,
            self_dependent,
        }
    }

    /// Whether `b` is in the closed set.
    fn contains(&self, b: Block) -> bool {
        self.pdt.is_marked(b.as_u32())
    }

    /// Puts `b` in the closed set; whether it is new.
    fn insert(&mut self, b: Block) -> bool {
        if self.contains(b) {
            return false;
        }
        self.pdt.mark(b.as_u32());
        self.iteration.mark(b.as_u32());
        true
    }

    /// Listing 3, lines 26-33: puts the blocks of `extra` in the set, and closes it
    /// under `cdep_on` from `div` (which itself joins only if `cdep_on` leads back
    /// to it) and from every block new to it. Returns the new blocks, in the order
    /// they joined.
    fn close(&mut self, facts: &CfgFacts, div: Block, extra: &[Block]) -> Vec<Block> {
        let mut fresh = Vec::new();
        let mut work = vec![div];
        for &b in extra {
            if self.insert(b) {
                fresh.push(b);
                work.push(b);
            }
        }
        let mut found = Vec::new();
        while let Some(a) = work.pop() {
            self.expand(facts, a, &mut found);
            for &k in &found {
                fresh.push(k);
                work.push(k);
            }
            found.clear();
        }
        fresh
    }

    /// Walks `cdep_on(a)`: every block of it not yet in the set joins it (marked
    /// in both trees) and is pushed to `found`.
    fn expand(&mut self, facts: &CfgFacts, a: Block, found: &mut Vec<Block>) {
        let au = a.as_u32();
        if self.self_dependent[au as usize] && !self.contains(a) {
            self.pdt.mark(au);
            found.push(a);
        }
        let stop = facts.postdom.ipdom(a).map(|p| p.as_u32());
        for &b in facts.cfg.succs(a) {
            self.pdt.climb(b.as_u32(), stop, au, |marks, k| {
                marks.mark(k);
                found.push(Block::from_u32(k));
                true
            });
        }
        // The iteration paths skip what the set holds: mark the blocks found so
        // far there too.
        for &k in found.iter() {
            self.iteration.mark(k.as_u32());
        }
        if !facts.dom.is_reachable(a) {
            return;
        }
        let Some(l) = facts.loops.loop_of(a) else {
            return;
        };
        let stop = self.iteration_ipdom[au as usize];
        let n = facts.cfg.len() as u32;
        let mut more = Vec::new();
        for &b in self.forward.successors(au) {
            if b == n {
                continue;
            }
            self.iteration.climb(b, stop, au, |marks, k| {
                if !facts.loops.contains(l, Block::from_u32(k)) {
                    return false;
                }
                marks.mark(k);
                more.push(Block::from_u32(k));
                true
            });
        }
        for k in more {
            self.pdt.mark(k.as_u32());
            found.push(k);
        }
    }
}

/// `cdep_on` as the engine used to store it (the reference of [`CdepClosure`]):
/// [`control_dependence`] inverted, plus the iteration graph's control dependence
/// restricted to the innermost loop around the branch, plus a block on itself
/// when it post-dominates one of its successors; each list without duplicates.
#[cfg(test)]
fn cdep_on_reference(body: &Body, facts: &CfgFacts) -> BlockMap<Vec<Block>> {
    use crate::control_dep::{cdep_on, control_dependence};
    let cdep = control_dependence(body, &facts.postdom);
    let mut on = cdep_on(&cdep);
    let (forward, pdom) = iteration_graph(facts);
    let n = facts.cfg.len();
    let exit = n as u32;
    for &a in &body.layout {
        if !facts.dom.is_reachable(a) {
            continue;
        }
        let Some(l) = facts.loops.loop_of(a) else {
            continue;
        };
        let stop = pdom.idom(a.as_u32());
        for &b in forward.successors(a.as_u32()) {
            let mut runner = Some(b);
            while let Some(k) = runner {
                if Some(k) == stop || k == exit {
                    break;
                }
                if !facts.loops.contains(l, Block::from_u32(k)) {
                    break;
                }
                let k = Block::from_u32(k);
                if k != a && !on[a].contains(&k) {
                    on[a].push(k);
                }
                runner = pdom.idom(k.as_u32());
            }
        }
    }
    for &b in &body.layout {
        if facts
            .cfg
            .succs(b)
            .iter()
            .any(|&s| facts.postdom.post_dominates(b, s))
            && !on[b].contains(&b)
        {
            on[b].push(b);
        }
    }
    on
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{arb_cfg, graph_body, nested_spec, spec_of};
    use proptest::prelude::*;

    /// The closure of `cdep_on` by the stored relation, as `prop_control_div` used
    /// to compute it: `extra` joins the set, then `div` and every block new to the
    /// set are expanded. Returns the blocks new to `set`.
    fn close_reference(
        on: &BlockMap<Vec<Block>>,
        set: &mut BTreeSet<Block>,
        div: Block,
        extra: &[Block],
    ) -> BTreeSet<Block> {
        let mut fresh = BTreeSet::new();
        let mut work = vec![div];
        for &b in extra {
            if set.insert(b) {
                fresh.insert(b);
                work.push(b);
            }
        }
        while let Some(b) = work.pop() {
            for &k in &on[b] {
                if set.insert(k) {
                    fresh.insert(k);
                    work.push(k);
                }
            }
        }
        fresh
    }

    /// Runs a sequence of closings on `spec` with both [`CdepClosure`] and the
    /// stored relation, and compares what each step adds: every reachable block
    /// as `div` alone, in layout order and in reverse, and then with the blocks of
    /// each loop as `extra`.
    fn check(spec: &str) -> Result<(), TestCaseError> {
        let body = graph_body(spec);
        let Ok(facts) = CfgFacts::compute(&body) else {
            return Ok(());
        };
        let on = cdep_on_reference(&body, &facts);
        let blocks: Vec<Block> = body.layout.clone();
        let orders = [
            blocks.clone(),
            blocks.iter().rev().copied().collect::<Vec<_>>(),
        ];
        // Each block alone, from an empty set.
        for &div in &blocks {
            let mut fast = CdepClosure::new(&facts);
            let got: BTreeSet<Block> = fast.close(&facts, div, &[]).into_iter().collect();
            let want = close_reference(&on, &mut BTreeSet::new(), div, &[]);
            prop_assert_eq!(got, want, "{} div {:?}", spec, div);
        }
        // Sequences that grow one set.
        for order in &orders {
            let mut fast = CdepClosure::new(&facts);
            let mut set = BTreeSet::new();
            for (k, &div) in order.iter().enumerate() {
                let extra: Vec<Block> = match facts.loops.loops().nth(k) {
                    Some(l) => facts.loops.blocks(l).to_vec(),
                    None => Vec::new(),
                };
                let got: Vec<Block> = fast.close(&facts, div, &extra);
                let got_set: BTreeSet<Block> = got.iter().copied().collect();
                prop_assert_eq!(got.len(), got_set.len(), "a block joined twice");
                let want = close_reference(&on, &mut set, div, &extra);
                prop_assert_eq!(got_set, want, "{} step {} div {:?}", spec, k, div);
            }
        }
        Ok(())
    }

    #[test]
    fn nested_loops_and_switch() {
        for spec in [
            "E: H; H: B X; B: H; X:",
            "E: H; H: L; L: H X; X:",
            "A: B C D; B: E; C: E; D: F; E: F G; F:; G: F",
            &nested_spec("loops", 4),
            &nested_spec("ifs", 4),
        ] {
            check(spec).expect("closures agree");
        }
    }

    /// Closing `cdep*` from every branch of 2,000 nested ifs, and of 2,000 nested
    /// loops (innermost branch first, as the worklist meets them, and outermost
    /// first), takes a bounded number of union-find steps per block: the stored
    /// relation has d^2 / 2 pairs on the loops.
    #[test]
    fn nested_ifs_and_loops_close_in_linear_work() {
        for kind in ["ifs", "loops"] {
            let body = graph_body(&nested_spec(kind, 2000));
            let facts = CfgFacts::compute(&body).expect("reducible");
            let branches: Vec<Block> = body
                .layout
                .iter()
                .copied()
                .filter(|&b| facts.cfg.succs(b).len() > 1)
                .collect();
            for order in [
                branches.clone(),
                branches.iter().rev().copied().collect::<Vec<_>>(),
            ] {
                let mut fast = CdepClosure::new(&facts);
                let mut joined = 0;
                for &div in &order {
                    joined += fast.close(&facts, div, &[]).len();
                }
                let steps = fast.pdt.steps() + fast.iteration.steps();
                let blocks = body.layout.len() as u64;
                assert!(
                    steps <= 12 * blocks,
                    "{kind}: {steps} steps for {blocks} blocks"
                );
                assert!(joined <= body.layout.len());
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        /// [`CdepClosure`] (paths walked with the blocks in the set skipped) closes
        /// `cdep*` as the stored relation [`cdep_on_reference`] does, from every
        /// block and along growing sequences, on random CFGs.
        #[test]
        fn closure_equals_the_stored_relation_on_generated_cfgs(succs in arb_cfg()) {
            check(&spec_of(&succs))?;
        }
    }
}
