//! Block and edge predicates, and phis turned into data flow, for a partially
//! linearized CFG (thesis §8.4-8.5, Fig. 8.4).
//!
//! Listing 8 only draws the new CFG `G_ℓ`; "it relies on proper predication of
//! the code inside the blocks" (§8.5), which this module adds. Every block `b` of
//! the original CFG `G` gets as its predicate (`val_msk`, Def. 7) its *original
//! control mask*: the lanes that execute `b` in `G`. It is built from
//!
//! - the **edge predicate** `e(a→b) = p(a) ∧ cond(a→b)` (§8.4: "whenever B executes
//!   and mAB is true, then in the CFG before if-conversion control reaches B from
//!   A"), computed at the end of `a` as a `total` `select` so that it is `false`,
//!   not ⊤, in lanes where `p(a)` is false (their `cond` may be ⊤);
//! - the **block predicate** `p(b) = ⋁ e(a→b)` over the edges of `G` into `b`.
//!
//! In `G_ℓ` the source `a` of an edge no longer dominates its target `b`, and other
//! sources may run in between, so `p(b)` is an *accumulator*: a variable that is
//! reset to `false` at the start of `d = idom(b)` (the immediate dominator in `G`,
//! which runs before every source of an edge into `b` in each iteration of every
//! loop around `b`), and that each source `a` updates at its end to `m ∨ e(a→b)`;
//! `p(b)` is its value at the start of `b`. A loop header keeps its two edges (its
//! dedicated preheader and its latch, §8.3), so its predicate is a phi of the
//! preheader's predicate and the back edge's predicate.
//!
//! A **phi** whose block's incoming edges changed is if-converted the same way
//! (Fig. 8.4b): its value is an accumulator reset to `undef` at `d`, which the
//! source of each incoming edge updates to `select e(a→b), v_a, m` (the first
//! source on a path simply assigns `v_a`, as the default arm of the cascade); a
//! **shadow phi** (Fig. 8.4d) becomes `select p(b), m, v_shadow`, since a lane
//! whose control mask is 0 in `G` is exactly a lane whose predicate is false in
//! `G_ℓ`. Reading the arm values at the end of their source blocks keeps every use
//! where `G` had it, so no value needs to dominate more than it did.
//!
//! A block `b` that is control equivalent to its immediate dominator `d` (same
//! innermost loop, `b` post-dominates `d` within the iteration) gets no
//! accumulator: `p(b) = p(d)` (`control_equivalent_dominators`). This leaves the
//! `or` of every edge into a join that rejoins all of `d`'s paths out of the
//! code, and with it a vector operation per edge in every iteration of a widened
//! loop (docs/native.md).
//!
//! # SSA form of the accumulators
//! The accumulators are put into SSA form over `G_ℓ` in one go, after Cytron et
//! al. (1991): phis at the iterated dominance frontier of each accumulator's
//! definitions, pruned to where it is live (blocks `d` dominates in `G_ℓ`, up to
//! its target in block-index order), then one walk of the dominator tree of
//! `G_ℓ` with a stack of values per accumulator, which also emits the masks and
//! selects block by block. Phis that turn out trivial or unused are removed. The
//! cost is linear in the body plus the frontiers the definitions reach, however
//! far apart Listing 8 put a source and its target (a per-read walk back along
//! `G_ℓ` is quadratic on deeply nested divergent branches).
//!
//! # Why the accumulators may ignore earlier loop iterations
//! A source `a` inside a loop `L` that does not contain the target `b` is on an
//! exit edge of `L`. Partial linearization needs uniform loops (§8.3): every lane
//! that enters `L` leaves it in the same iteration through the same exit, so
//! `e(a→b)` is `false` in every lane in every iteration but the last. An
//! accumulator that crosses `L` (a source inside, its target and `d` outside)
//! therefore starts each iteration at `L`'s header with its value at the end of
//! the preheader (the header's immediate dominator) instead of a phi of the back
//! edge.

use crate::edit::Editor;
use crate::prepare::is_true;
use pllvm_analysis::loops::LoopInfo;
use pllvm_semantics::cfg::{BlockDomTree, Cfg, DomTree, Graph};
use pllvm_semantics::ir::{
    Block, ConstData, ICmpPred, Inst, InstKind, Terminator, Value, ValueDef,
};
use pllvm_semantics::types::{Ty, TypeTable};
use std::collections::{HashMap, HashSet};

/// What the predication of a linearized body needs to know about the original CFG.
pub struct Original<'a> {
    /// The reachable blocks of `G` in block-index order (§2.5); every edge of `G_ℓ`
    /// except a back edge goes forward in it.
    pub order: &'a [Block],
    /// The terminators of `G`, before Listing 8 changed them, by block.
    pub terms: &'a HashMap<Block, Terminator>,
    /// The natural loops of `G` (one preheader, one latch each, §2.4).
    pub loops: &'a LoopInfo,
    /// The dominator tree of `G`.
    pub dom: &'a BlockDomTree,
    /// Blocks that get no predicate: the entry, the exit, and (Theorem 4) blocks
    /// whose activation is uniform.
    pub unpredicated: &'a HashSet<Block>,
}

/// One accumulator (see the module doc).
struct Acc {
    /// The block whose predicate or phi it computes.
    target: Block,
    /// `idom(target)` in `G`, where it is reset.
    reset: Block,
    ty: Ty,
    kind: AccKind,
}

enum AccKind {
    /// The control mask `p(target)`.
    Mask,
    /// The value of the phi `inst` of `target`: its arms in `G`, and its shadow.
    Phi {
        inst: Inst,
        arms: Vec<(Value, Block)>,
        shadow: Option<Value>,
    },
}

/// How an accumulator is defined at the start of a block.
#[derive(Clone, Copy)]
enum Start {
    /// Reset to this constant (at `idom(target)`).
    Reset(Value),
    /// The value at the end of the immediate dominator (a crossed loop's header).
    Carry,
}

/// [§8.4-8.5] Gives every block of the linearized body in `ed` its original control
/// mask as predicate and turns the phis whose incoming edges changed into selects;
/// returns one note per block whose phis were if-converted.
pub fn predicate_blocks(ed: &mut Editor, g: &Original<'_>) -> Vec<String> {
    let kept_edges = blocks_with_unchanged_edges(ed, g);
    let position: HashMap<Block, usize> =
        g.order.iter().enumerate().map(|(k, &b)| (b, k)).collect();
    let cfg = Cfg::new(ed.body());
    let dom = cfg.dominators();
    let same_mask = control_equivalent_dominators(g, &position, &dom);
    let accs = accumulators(ed, g, &kept_edges, &same_mask);
    let into = accumulators_by_target(&accs);
    let starts = start_definitions(ed, g, &accs);
    let phis = place_phis(ed, g, &cfg, &dom, &accs, &starts, &position);
    let mut sweep = Sweep {
        ed,
        g,
        kept_edges,
        stacks: vec![Vec::new(); accs.len()],
        accs,
        into,
        predicate: HashMap::new(),
        same_mask,
        header_phi: HashMap::new(),
        replaced: HashMap::new(),
        cascade: HashMap::new(),
        edges: HashMap::new(),
        notes: Vec::new(),
    };
    sweep.walk_dominator_tree(&dom, &starts, &phis);
    let Sweep {
        ed,
        predicate,
        mut replaced,
        notes,
        ..
    } = sweep;
    for (&b, &p) in &predicate {
        if !is_true(ed.body(), p) && !g.unpredicated.contains(&b) {
            ed.body_mut().blocks[b].predicate = Some(p);
        }
    }
    let created: Vec<(Block, Value)> = phis
        .iter()
        .flat_map(|(&b, list)| list.iter().map(move |&(_, v)| (b, v)))
        .collect();
    remove_trivial_phis(ed, &created, &mut replaced);
    ed.replace_uses(&replaced);
    remove_dead_phis(ed, &created);
    notes
}

/// The blocks whose incoming edges `(source, successor index)` are the same in `G`
/// and `G_ℓ`: their phis still see the edge each lane took and stay phis.
fn blocks_with_unchanged_edges(ed: &Editor, g: &Original<'_>) -> HashSet<Block> {
    let mut before: HashMap<Block, Vec<(Block, usize)>> = HashMap::new();
    let mut after: HashMap<Block, Vec<(Block, usize)>> = HashMap::new();
    for &a in g.order {
        if let Some(term) = g.terms.get(&a) {
            for (i, s) in term.successors().into_iter().enumerate() {
                before.entry(s).or_default().push((a, i));
            }
        }
        for (i, s) in ed.body().blocks[a]
            .term
            .successors()
            .into_iter()
            .enumerate()
        {
            after.entry(s).or_default().push((a, i));
        }
    }
    g.order
        .iter()
        .copied()
        .filter(|b| {
            let mut x = before.remove(b).unwrap_or_default();
            let mut y = after.remove(b).unwrap_or_default();
            x.sort_unstable();
            y.sort_unstable();
            x == y
        })
        .collect()
}

/// The blocks whose original control mask is their immediate dominator's in every
/// iteration, by block: `b` ↦ `d = idom(b)` (in `G`) when
///
/// - `b` is not a loop header, and `d` and `b` have the same innermost loop;
/// - `b` post-dominates `d` in `G` without its back edges, where every block
///   without a forward successor (a latch, an exit) leads to one virtual exit;
/// - `d` dominates `b` in `G_ℓ` too, so `p(d)` is defined wherever `p(b)` is used;
/// - `d` is predicated (not the entry, not a block of Theorem 4), so `p(d)` is a
///   mask, not the `true` of a block that runs under its context's mask.
///
/// Then `d` and `b` are control equivalent within an iteration: every lane that
/// runs `d` in an iteration of the loops around them reaches `b` before it takes a
/// back edge or leaves a loop (post-dominance, forward), and every lane that runs
/// `b` ran `d` in the same iteration (`d` dominates `b` within their innermost
/// loop). So `p(b) = p(d)` in every lane, and `b` needs no accumulator: its
/// predicate is `p(d)`, computed once (Ferrante, Ottenstein and Warren 1987:
/// control-equivalent blocks execute under the same condition). The partially
/// linearized loop of the divergent loop transform is where it matters (the native
/// backend, docs/native.md): the blocks that rejoin its linearized paths get the loop
/// body's predicate instead of an `or` of every edge into them, one vector operation
/// per edge and iteration.
fn control_equivalent_dominators(
    g: &Original<'_>,
    position: &HashMap<Block, usize>,
    dom_l: &BlockDomTree,
) -> HashMap<Block, Block> {
    let n = g.order.len();
    let exit = n as u32;
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
    for (k, &a) in g.order.iter().enumerate() {
        if let Some(term) = g.terms.get(&a) {
            for s in term.successors() {
                if g.loops.is_back_edge(a, s) {
                    continue;
                }
                if let Some(&j) = position.get(&s) {
                    succs[k].push(j as u32);
                }
            }
        }
        if succs[k].is_empty() {
            succs[k].push(exit);
        }
    }
    let post = DomTree::compute(&Graph::from_succs(succs).reversed(), exit);
    let mut same = HashMap::new();
    for (k, &b) in g.order.iter().enumerate() {
        if g.loops.is_header(b) {
            continue;
        }
        let Some(d) = g.dom.idom(b) else { continue };
        let Some(&j) = position.get(&d) else { continue };
        // `d` has a mask of its own (not the entry's or Theorem 4's `true`).
        if j == 0 || g.unpredicated.contains(&d) {
            continue;
        }
        if g.loops.loop_of(b) == g.loops.loop_of(d)
            && post.dominates(k as u32, j as u32)
            && dom_l.dominates(d, b)
        {
            same.insert(b, d);
        }
    }
    same
}

/// One accumulator per predicated block that is not a loop header (its mask) and
/// has no control-equivalent dominator (`same_mask`), and per phi of a block whose
/// incoming edges changed, each reset at the start of the target's immediate
/// dominator in `G`.
fn accumulators(
    ed: &Editor,
    g: &Original<'_>,
    kept_edges: &HashSet<Block>,
    same_mask: &HashMap<Block, Block>,
) -> Vec<Acc> {
    let mut accs = Vec::new();
    let entry = g.order.first().copied();
    for &b in g.order {
        if Some(b) == entry || g.loops.is_header(b) {
            continue;
        }
        let Some(reset) = g.dom.idom(b) else { continue };
        if !g.unpredicated.contains(&b) && !same_mask.contains_key(&b) {
            accs.push(Acc {
                target: b,
                reset,
                ty: TypeTable::I1,
                kind: AccKind::Mask,
            });
        }
        if kept_edges.contains(&b) {
            continue;
        }
        for &phi in &ed.body().blocks[b].phis {
            let InstKind::Phi {
                ty,
                incoming,
                shadow,
            } = ed.body().insts[phi].kind.clone()
            else {
                continue;
            };
            accs.push(Acc {
                target: b,
                reset,
                ty,
                kind: AccKind::Phi {
                    inst: phi,
                    arms: incoming,
                    shadow,
                },
            });
        }
    }
    accs
}

/// The accumulators of each target block.
fn accumulators_by_target(accs: &[Acc]) -> HashMap<Block, Vec<usize>> {
    let mut into: HashMap<Block, Vec<usize>> = HashMap::new();
    for (k, acc) in accs.iter().enumerate() {
        into.entry(acc.target).or_default().push(k);
    }
    into
}

/// The sources of the edges of `G` into each block, each source once, in block
/// index order.
fn original_sources(g: &Original<'_>) -> HashMap<Block, Vec<Block>> {
    let mut sources: HashMap<Block, Vec<Block>> = HashMap::new();
    for &a in g.order {
        let Some(term) = g.terms.get(&a) else {
            continue;
        };
        let mut succs = term.successors();
        succs.sort_unstable();
        succs.dedup();
        for s in succs {
            sources.entry(s).or_default().push(a);
        }
    }
    sources
}

/// The definitions at the start of blocks: each accumulator's reset at
/// `idom(target)`, and a carry at the header of every loop it crosses (a source
/// inside, the target and the reset block outside; see the module doc).
fn start_definitions(
    ed: &mut Editor,
    g: &Original<'_>,
    accs: &[Acc],
) -> HashMap<Block, Vec<(usize, Start)>> {
    let sources = original_sources(g);
    let mut starts: HashMap<Block, Vec<(usize, Start)>> = HashMap::new();
    for (k, acc) in accs.iter().enumerate() {
        let reset = match acc.kind {
            AccKind::Mask => ed.const_bool(false),
            AccKind::Phi { .. } => ed.undef(acc.ty),
        };
        starts
            .entry(acc.reset)
            .or_default()
            .push((k, Start::Reset(reset)));
        let mut crossed = HashSet::new();
        for &a in sources.get(&acc.target).map(Vec::as_slice).unwrap_or(&[]) {
            for l in g.loops.ancestors(a) {
                if g.loops.contains(l, acc.target) || g.loops.contains(l, acc.reset) {
                    break;
                }
                if crossed.insert(l) {
                    starts
                        .entry(g.loops.header(l))
                        .or_default()
                        .push((k, Start::Carry));
                }
            }
        }
    }
    starts
}

/// Cytron et al.'s phi placement for every accumulator: the iterated dominance
/// frontier (in `G_ℓ`) of the blocks that define it, pruned to the blocks its
/// reset block dominates, up to its target in block-index order (it is dead
/// elsewhere), and without the blocks that define it at their start. Returns the
/// new (empty) phis of each block: `(accumulator, phi value)`.
fn place_phis(
    ed: &mut Editor,
    g: &Original<'_>,
    cfg: &Cfg,
    dom: &BlockDomTree,
    accs: &[Acc],
    starts: &HashMap<Block, Vec<(usize, Start)>>,
    position: &HashMap<Block, usize>,
) -> HashMap<Block, Vec<(usize, Value)>> {
    let frontiers = dom.frontiers(cfg);
    let sources = original_sources(g);
    let mut started: Vec<HashSet<Block>> = vec![HashSet::new(); accs.len()];
    for (&b, list) in starts {
        for &(k, _) in list {
            started[k].insert(b);
        }
    }
    let mut phis: HashMap<Block, Vec<(usize, Value)>> = HashMap::new();
    for (k, acc) in accs.iter().enumerate() {
        let last = position.get(&acc.target).copied().unwrap_or(usize::MAX);
        let live = |y: Block| {
            !started[k].contains(&y)
                && dom.dominates(acc.reset, y)
                && position.get(&y).is_some_and(|&p| p <= last)
        };
        let mut work: Vec<Block> = started[k].iter().copied().collect();
        work.extend(sources.get(&acc.target).map(Vec::as_slice).unwrap_or(&[]));
        let mut defined: HashSet<Block> = work.iter().copied().collect();
        let mut placed: HashSet<Block> = HashSet::new();
        while let Some(x) = work.pop() {
            for &y in frontiers
                .get(x.as_u32() as usize)
                .map(Vec::as_slice)
                .unwrap_or(&[])
            {
                if !live(y) || !placed.insert(y) {
                    continue;
                }
                let stem = match &acc.kind {
                    AccKind::Mask => format!("{}.mask", ed.block_name(acc.target)),
                    AccKind::Phi { inst, .. } => ed.body().insts[*inst]
                        .result
                        .map(|v| ed.stem(v))
                        .unwrap_or_else(|| "phi".into()),
                };
                let v = ed.phi(y, acc.ty, Vec::new(), None, &stem);
                phis.entry(y).or_default().push((k, v));
                if defined.insert(y) {
                    work.push(y);
                }
            }
        }
    }
    phis
}

/// The state of the walk over the dominator tree of `G_ℓ`.
struct Sweep<'e, 'g> {
    ed: &'e mut Editor,
    g: &'g Original<'g>,
    /// The blocks whose phis stay phis.
    kept_edges: HashSet<Block>,
    accs: Vec<Acc>,
    /// Per accumulator, the values of its definitions on the current path of the
    /// dominator tree (Cytron et al.'s renaming stacks).
    stacks: Vec<Vec<Value>>,
    /// The accumulators of each target block.
    into: HashMap<Block, Vec<usize>>,
    /// `p(b)` of the blocks visited so far.
    predicate: HashMap<Block, Value>,
    /// The blocks whose predicate is their immediate dominator's
    /// ([`control_equivalent_dominators`]).
    same_mask: HashMap<Block, Block>,
    /// The predicate phi of each predicated loop header (its latch arm pending).
    header_phi: HashMap<Block, Inst>,
    /// Phi results and their replacements.
    replaced: HashMap<Value, Value>,
    /// Each `select e, v, m` of a phi's cascade, by result: `(e, v, m)` (see
    /// [`Sweep::cascade_default`] and [`Sweep::update_successors`]).
    cascade: HashMap<Value, (Value, Value, Value)>,
    /// The edge predicates built so far, by edge (see [`cached_edge_predicate`]).
    edges: HashMap<(Block, Block), Value>,
    notes: Vec<String>,
}

impl Sweep<'_, '_> {
    /// The current value of accumulator `k` (`undef` where none reaches: a block
    /// its reset block does not dominate, where it is dead).
    fn top(&mut self, k: usize) -> Value {
        match self.stacks[k].last() {
            Some(&v) => v,
            None => self.ed.undef(self.accs[k].ty),
        }
    }

    /// The value a phi's cascade `m` gives the lanes that have taken none of the
    /// edges whose selects make up `m`: `m` with every select of the cascade
    /// replaced by its third operand.
    ///
    /// A lane enters a block by one edge at most in each iteration of the loops
    /// around it (the accumulator is reset at `idom(b)`, and an edge from a loop
    /// that does not hold `b` is an exit edge, taken once), so the edge
    /// predicates of a block's incoming edges are disjoint: a lane whose
    /// `e(a→b)` is true gets from `m` exactly this default. When `v_a` *is* the
    /// default, `select e(a→b), v_a, m` equals `m` in every lane and is left out.
    /// The divergent loop transform's `%live.upd` is the case that matters:
    /// `false` from `Guard` and from every exit, `true` from the latch, it becomes
    /// one select instead of one per exit edge (in the native code each select is a
    /// vector operation per iteration of the widened loop).
    fn cascade_default(&self, mut m: Value) -> Value {
        while let Some(&(_, _, rest)) = self.cascade.get(&m) {
            m = rest;
        }
        m
    }

    /// Visits every block of `G_ℓ` in a preorder of its dominator tree: pushes the
    /// definitions at the block's start (resets, carries, phis), emits its
    /// predicate, phis and edge updates, fills its successors' accumulator phi
    /// arms, visits its children, and pops what it pushed.
    fn walk_dominator_tree(
        &mut self,
        dom: &BlockDomTree,
        starts: &HashMap<Block, Vec<(usize, Start)>>,
        phis: &HashMap<Block, Vec<(usize, Value)>>,
    ) {
        let Some(&entry) = self.g.order.first() else {
            return;
        };
        enum Step {
            Enter(Block),
            Leave(Vec<usize>),
        }
        let mut todo = vec![Step::Enter(entry)];
        while let Some(step) = todo.pop() {
            let b = match step {
                Step::Leave(pushed) => {
                    for k in pushed {
                        self.stacks[k].pop();
                    }
                    continue;
                }
                Step::Enter(b) => b,
            };
            let mut pushed = Vec::new();
            for &(k, start) in starts.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
                let v = match start {
                    Start::Reset(v) => v,
                    Start::Carry => self.top(k),
                };
                self.stacks[k].push(v);
                pushed.push(k);
            }
            for &(k, v) in phis.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
                self.stacks[k].push(v);
                pushed.push(k);
            }
            let p = self.block_predicate(b);
            self.predicate.insert(b, p);
            if let Some(note) = self.convert_phis(p, b) {
                self.notes.push(note);
            }
            pushed.extend(self.update_successors(p, b));
            self.fill_phi_arms(phis, b);
            todo.push(Step::Leave(pushed));
            for child in dom.children(b) {
                todo.push(Step::Enter(child));
            }
        }
    }

    /// Gives the accumulator phis of every successor of `b` in `G_ℓ` their arm
    /// from `b` (one per edge).
    fn fill_phi_arms(&mut self, phis: &HashMap<Block, Vec<(usize, Value)>>, b: Block) {
        for s in self.ed.body().blocks[b].term.successors() {
            for &(k, v) in phis.get(&s).map(Vec::as_slice).unwrap_or(&[]) {
                let arm = self.top(k);
                let Some(inst) = self.ed.body().def_inst(v) else {
                    continue;
                };
                if let InstKind::Phi { incoming, .. } = &mut self.ed.body_mut().insts[inst].kind {
                    incoming.push((arm, b));
                }
            }
        }
    }

    /// `p(b)`: `true` at the entry and where Theorem 4 needs none; at a loop header
    /// the phi `[p(preheader), preheader], [e(latch→header), latch]` (its latch arm
    /// is filled when the latch is visited); `p(d)` where `b` is control
    /// equivalent to its immediate dominator `d`; elsewhere the mask
    /// accumulator's value.
    fn block_predicate(&mut self, b: Block) -> Value {
        let g = self.g;
        if g.unpredicated.contains(&b) || g.order.first() == Some(&b) {
            return self.ed.const_bool(true);
        }
        if let Some(&p) = self.same_mask.get(&b).and_then(|d| self.predicate.get(d)) {
            return p;
        }
        if let Some(l) = g.loops.loop_with_header(b) {
            let (Some(pre), Some(latch)) = (g.loops.preheader(l), g.loops.latch(l)) else {
                return self.ed.const_bool(true);
            };
            let from_pre = match self.predicate.get(&pre) {
                Some(&p) => p,
                None => self.ed.const_bool(true),
            };
            let placeholder = self.ed.const_bool(false);
            let name = format!("{}.mask", self.ed.block_name(b));
            let phi = self.ed.phi(
                b,
                TypeTable::I1,
                vec![(from_pre, pre), (placeholder, latch)],
                None,
                &name,
            );
            if let Some(inst) = self.ed.body().def_inst(phi) {
                self.header_phi.insert(b, inst);
            }
            return phi;
        }
        let mask = self.into.get(&b).and_then(|list| {
            list.iter()
                .copied()
                .find(|&k| matches!(self.accs[k].kind, AccKind::Mask))
        });
        match mask {
            Some(k) => self.top(k),
            None => self.ed.const_bool(true),
        }
    }

    /// Fig. 8.4: the phis of `b` whose incoming edges changed become their
    /// accumulators' values (a shadow phi selects its shadow where `p(b)` is
    /// false); a shadow phi that stays a phi in a predicated block loses its
    /// shadow to the same select. Returns a note when `b` had phis converted.
    fn convert_phis(&mut self, p: Value, b: Block) -> Option<String> {
        let predicated = !is_true(self.ed.body(), p) && !self.g.unpredicated.contains(&b);
        let mut prelude: Vec<Inst> = Vec::new();
        let mut converted = Vec::new();
        let targets: Vec<usize> = self.into.get(&b).cloned().unwrap_or_default();
        for k in targets {
            let AccKind::Phi { inst, shadow, .. } = self.accs[k].kind else {
                continue;
            };
            let Some(old) = self.ed.body().insts[inst].result else {
                continue;
            };
            let mut value = self.top(k);
            let ed = &mut *self.ed;
            if let (Some(s), true) = (shadow, predicated) {
                let (sel, v) = select_inst(ed, p, value, s, &ed.stem(old));
                prelude.push(sel);
                value = v;
            }
            self.replaced.insert(old, value);
            converted.push(ed.stem(old));
            ed.body_mut().blocks[b].phis.retain(|&i| i != inst);
        }
        let ed = &mut *self.ed;
        let keeps_phis = self.kept_edges.contains(&b) || self.g.loops.is_header(b);
        if keeps_phis && predicated {
            for phi in ed.body().blocks[b].phis.clone() {
                let InstKind::Phi {
                    ty,
                    incoming,
                    shadow: Some(s),
                } = ed.body().insts[phi].kind.clone()
                else {
                    continue;
                };
                let Some(old) = ed.body().insts[phi].result else {
                    continue;
                };
                let stem = ed.stem(old);
                let plain = ed.phi(b, ty, incoming, None, &format!("{stem}.phi"));
                let (sel, v) = select_inst(ed, p, plain, s, &stem);
                prelude.push(sel);
                self.replaced.insert(old, v);
                ed.body_mut().blocks[b].phis.retain(|&i| i != phi);
            }
        }
        ed.body_mut().blocks[b].body.splice(0..0, prelude);
        (!converted.is_empty()).then(|| {
            format!(
                "if-converted phi{} %{} in %{} (Fig. 8.4)",
                if converted.len() > 1 { "s" } else { "" },
                converted.join(", %"),
                ed.block_name(b)
            )
        })
    }

    /// At the end of `b`: for every successor `s` in `G`, the edge predicate
    /// `e(b→s)`, and the update of each accumulator of `s` (pushed; returned so
    /// the walk pops them), and of a header's predicate phi through its back edge.
    fn update_successors(&mut self, p: Value, b: Block) -> Vec<usize> {
        let g = self.g;
        let mut pushed = Vec::new();
        let Some(term) = g.terms.get(&b) else {
            return pushed;
        };
        let mut succs = term.successors();
        succs.sort_unstable();
        succs.dedup();
        for s in succs {
            if g.loops.is_header(s) {
                if let Some(&phi) = self.header_phi.get(&s)
                    && g.loops.loop_with_header(s).and_then(|l| g.loops.latch(l)) == Some(b)
                {
                    let e = cached_edge_predicate(self.ed, &mut self.edges, b, p, term, s);
                    if let InstKind::Phi { incoming, .. } = &mut self.ed.body_mut().insts[phi].kind
                    {
                        for (v, from) in incoming.iter_mut() {
                            if *from == b {
                                *v = e;
                            }
                        }
                    }
                }
                continue;
            }
            // e(b→s), computed once (cached) and only if an accumulator needs it.
            let targets: Vec<usize> = self.into.get(&s).cloned().unwrap_or_default();
            for k in targets {
                let prev = self.top(k);
                let default = self.cascade_default(prev);
                let ed = &mut *self.ed;
                let next = match &self.accs[k].kind {
                    AccKind::Mask => {
                        let e = cached_edge_predicate(ed, &mut self.edges, b, p, term, s);
                        or_folded(ed, b, prev, e)
                    }
                    AccKind::Phi { arms, inst, .. } => {
                        let v = arms
                            .iter()
                            .find(|&&(_, from)| from == b)
                            .map(|&(v, _)| v)
                            .unwrap_or(prev);
                        if is_undef(ed, prev) || v == prev {
                            v
                        } else if v == default {
                            prev
                        } else {
                            let e = cached_edge_predicate(ed, &mut self.edges, b, p, term, s);
                            let stem = ed.body().insts[*inst]
                                .result
                                .map(|r| format!("{}.sel", ed.stem(r)))
                                .unwrap_or_else(|| "phi.sel".into());
                            let ty = ed.ty(v);
                            // `select e, v, (select e', v, m)` is `select e' ∨ e, v, m`:
                            // one `or` of masks instead of a second blend of `v`'s
                            // type (for a held live-out of the divergent loop
                            // transform, a blend of <W x i64> per iteration).
                            let (cond, rest) = match self.cascade.get(&prev) {
                                Some(&(e0, v0, m)) if v0 == v => {
                                    (ed.or_guarded(b, e0, e, &format!("{stem}.edges")), m)
                                }
                                _ => (e, prev),
                            };
                            let sel = ed.select(b, ty, (cond, v, rest), &stem, true);
                            self.cascade.insert(sel, (cond, v, rest));
                            sel
                        }
                    }
                };
                self.stacks[k].push(next);
                pushed.push(k);
            }
        }
        pushed
    }
}

/// A new `total` `select i1 cond, ty a, ty b` (not yet in a block) and its result.
fn select_inst(ed: &mut Editor, cond: Value, a: Value, b: Value, stem: &str) -> (Inst, Value) {
    let ty = ed.ty(a);
    let kind = InstKind::Select {
        ty,
        cond,
        if_true: a,
        if_false: b,
    };
    ed.new_inst(kind, ty, stem, true)
}

/// Adds to `replaced` every created phi whose arms are all one value (ignoring
/// the phi itself), repeatedly, and takes those phis out of their blocks.
fn remove_trivial_phis(
    ed: &mut Editor,
    created: &[(Block, Value)],
    replaced: &mut HashMap<Value, Value>,
) {
    let resolve = |map: &HashMap<Value, Value>, mut v: Value| {
        let mut hops = 0;
        while let Some(&n) = map.get(&v) {
            if n == v || hops > map.len() {
                break;
            }
            v = n;
            hops += 1;
        }
        v
    };
    let mut trivial: HashSet<Value> = HashSet::new();
    let mut changed = true;
    while changed {
        changed = false;
        for &(_, phi) in created {
            if trivial.contains(&phi) {
                continue;
            }
            let Some(inst) = ed.body().def_inst(phi) else {
                continue;
            };
            let InstKind::Phi { incoming, ty, .. } = &ed.body().insts[inst].kind else {
                continue;
            };
            let ty = *ty;
            let mut same: Option<Value> = None;
            let mut only_one = true;
            for &(v, _) in incoming {
                let v = resolve(replaced, v);
                if v == phi || Some(v) == same {
                    continue;
                }
                if same.is_some() {
                    only_one = false;
                    break;
                }
                same = Some(v);
            }
            if only_one {
                let to = match same {
                    Some(v) => v,
                    None => ed.undef(ty),
                };
                replaced.insert(phi, to);
                trivial.insert(phi);
                changed = true;
            }
        }
    }
    remove_phis(ed, created, &trivial);
}

/// Takes the created phis nothing uses (but other unused phis) out of their blocks.
fn remove_dead_phis(ed: &mut Editor, created: &[(Block, Value)]) {
    let mine: HashSet<Value> = created
        .iter()
        .map(|&(_, v)| v)
        .filter(|&v| ed.body().def_inst(v).is_some())
        .collect();
    // Uses of each created phi by anything but created phis, and the created
    // phis each one's arms use.
    let mut used: HashSet<Value> = HashSet::new();
    let mut arms_of: HashMap<Value, Vec<Value>> = HashMap::new();
    let body = ed.body();
    for &b in &body.layout {
        let data = &body.blocks[b];
        for &i in data.phis.iter().chain(&data.body) {
            let operands = body.insts[i].kind.operands();
            match body.insts[i].result {
                Some(r) if mine.contains(&r) => {
                    arms_of.insert(
                        r,
                        operands.into_iter().filter(|v| mine.contains(v)).collect(),
                    );
                }
                _ => used.extend(operands.into_iter().filter(|v| mine.contains(v))),
            }
        }
        used.extend(data.predicate.filter(|v| mine.contains(v)));
        used.extend(
            data.term
                .operands()
                .into_iter()
                .filter(|v| mine.contains(v)),
        );
    }
    let mut live: HashSet<Value> = HashSet::new();
    let mut work: Vec<Value> = used.into_iter().collect();
    while let Some(v) = work.pop() {
        if live.insert(v) {
            work.extend(arms_of.get(&v).into_iter().flatten().copied());
        }
    }
    let dead: HashSet<Value> = mine.difference(&live).copied().collect();
    remove_phis(ed, created, &dead);
}

/// Takes the phis whose results are in `gone` out of the blocks of `created`.
fn remove_phis(ed: &mut Editor, created: &[(Block, Value)], gone: &HashSet<Value>) {
    if gone.is_empty() {
        return;
    }
    let blocks: HashSet<Block> = created
        .iter()
        .filter(|(_, v)| gone.contains(v))
        .map(|&(b, _)| b)
        .collect();
    for b in blocks {
        let body = ed.body_mut();
        let keep: Vec<Inst> = body.blocks[b]
            .phis
            .iter()
            .copied()
            .filter(|&i| body.insts[i].result.is_none_or(|r| !gone.contains(&r)))
            .collect();
        body.blocks[b].phis = keep;
    }
}

/// [§8.4] The edge predicate `e(a→s) = p(a) ∧ cond(a→s)`, appended to `a`:
/// `total`, and `false` (not ⊤) where `p(a)` is false; folded when `p(a)` is the
/// constant `true` or the edge is taken unconditionally.
pub fn edge_predicate(ed: &mut Editor, a: Block, p: Value, term: &Terminator, s: Block) -> Value {
    let cond = edge_condition(ed, a, term, s);
    let name = format!("{}.{}", ed.block_name(a), ed.block_name(s));
    match cond {
        None => p,
        Some(c) if is_true(ed.body(), p) => c,
        Some(c) => ed.and_guarded(a, p, c, &name),
    }
}

/// [`edge_predicate`] through `cache`, built once per edge; the false edge of a
/// two-way branch in a predicated block is `select e(a→t), false, p(a)` from the
/// true edge's predicate `e(a→t) = select p(a), c, false` instead of `select p(a),
/// ¬c, false`.
///
/// Both are `p(a) ∧ ¬c` wherever `c` is defined (in a lane where `p(a)` is false
/// both are false, whatever `c`; where `p(a)` is true and `c` is ⊤, both are ⊤: the
/// lane branches on ⊤). The second form needs no `¬c`: in widened code `¬c` of a
/// compare becomes the inverted compare, a second vector compare per iteration
/// beside the first, where this form is one `andn` of masks (docs/native.md).
fn cached_edge_predicate(
    ed: &mut Editor,
    cache: &mut HashMap<(Block, Block), Value>,
    a: Block,
    p: Value,
    term: &Terminator,
    s: Block,
) -> Value {
    if let Some(&e) = cache.get(&(a, s)) {
        return e;
    }
    let e = match term {
        Terminator::CondBr {
            if_true, if_false, ..
        } if *if_false == s && if_true != if_false && !is_true(ed.body(), p) => {
            let t = cached_edge_predicate(ed, cache, a, p, term, *if_true);
            let f = ed.const_bool(false);
            let name = format!("{}.{}", ed.block_name(a), ed.block_name(s));
            ed.select(a, TypeTable::I1, (t, f, p), &name, true)
        }
        _ => edge_predicate(ed, a, p, term, s),
    };
    cache.insert((a, s), e);
    e
}

/// The condition under which an active lane of `a` takes an edge to `s` under
/// `term` (`None`: every active lane does), appended to `a` as `total` commands.
pub fn edge_condition(ed: &mut Editor, a: Block, term: &Terminator, s: Block) -> Option<Value> {
    let name = format!("{}.to.{}", ed.block_name(a), ed.block_name(s));
    match term {
        Terminator::Br(_) | Terminator::Ret(_) | Terminator::Unreachable => None,
        Terminator::CondBr {
            cond,
            if_true,
            if_false,
        } => {
            if if_true == if_false {
                None
            } else if *if_true == s {
                Some(*cond)
            } else {
                Some(ed.not(a, *cond, &name, true))
            }
        }
        Terminator::Switch {
            ty,
            cond,
            default,
            cases,
        } => {
            if cases.iter().all(|(_, t)| t == default) {
                return None;
            }
            let mut matches: Option<Value> = None;
            let mut any_case: Option<Value> = None;
            for (c, t) in cases {
                let k = ed.body_mut().add_const(*ty, ConstData::Int(c.clone()));
                let eq = ed.icmp(a, ICmpPred::Eq, *ty, (*cond, k), &name, true);
                any_case = Some(match any_case {
                    None => eq,
                    Some(acc) => ed.or_guarded(a, acc, eq, &name),
                });
                if *t == s {
                    matches = Some(match matches {
                        None => eq,
                        Some(acc) => ed.or_guarded(a, acc, eq, &name),
                    });
                }
            }
            if *default == s {
                let none = match any_case {
                    Some(v) => ed.not(a, v, &name, true),
                    None => ed.const_bool(true),
                };
                Some(match matches {
                    None => none,
                    Some(m) => ed.or_guarded(a, m, none, &name),
                })
            } else {
                Some(matches.unwrap_or_else(|| ed.const_bool(false)))
            }
        }
    }
}

/// `m ∨ e` as a `total` select in `b`, folded when either side is a constant.
fn or_folded(ed: &mut Editor, b: Block, m: Value, e: Value) -> Value {
    let body = ed.body();
    if is_false(body, m) || is_true(body, e) {
        return e;
    }
    if is_false(body, e) || is_true(body, m) {
        return m;
    }
    let name = format!("{}.acc", ed.block_name(b));
    ed.or_guarded(b, m, e, &name)
}

/// Whether `v` is the constant `false`.
pub fn is_false(body: &pllvm_semantics::ir::Body, v: Value) -> bool {
    matches!(body.as_const(v), Some(ConstData::Int(n)) if *n == 0u32.into())
}

/// Whether `v` is an `undef` constant.
fn is_undef(ed: &Editor, v: Value) -> bool {
    matches!(ed.body().values[v].def, ValueDef::Const(ConstData::Undef))
}
