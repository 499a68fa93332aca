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
//! sources may run in between, so `p(b)` is an *accumulator*: an on-demand SSA
//! variable ([`SsaVar`]) that is reset to `false` at the start of `idom(b)` (the
//! immediate dominator in `G`, which runs before every source of an edge into `b`
//! in each iteration of every loop around `b`), and that each source `a` updates at
//! its end to `m ∨ e(a→b)`; `p(b)` is its value at the start of `b`. A loop header
//! keeps its two edges (its dedicated preheader and its latch, §8.3), so its
//! predicate is a phi of the preheader's predicate and the back edge's predicate.
//!
//! A **phi** whose block's incoming edges changed is if-converted the same way
//! (Fig. 8.4b): its value is an accumulator reset to `undef` at `idom(b)`, which
//! the source of each incoming edge updates to `select e(a→b), v_a, m` (the first
//! source on a path simply assigns `v_a`, as the default arm of the cascade); a
//! **shadow phi** (Fig. 8.4d) becomes `select p(b), m, v_shadow`, since a lane
//! whose control mask is 0 in `G` is exactly a lane whose predicate is false in
//! `G_ℓ`. Reading the arm values at the end of their source blocks keeps every use
//! where `G` had it, so no value needs to dominate more than it did.
//!
//! # Why the accumulators may ignore earlier loop iterations
//! A source `a` inside a loop `L` that does not contain the target `b` is on an
//! exit edge of `L`. Partial linearization needs uniform loops (§8.3): every lane
//! that enters `L` leaves it in the same iteration through the same exit, so
//! `e(a→b)` is `false` in every lane in every iteration but the last. An
//! accumulator that crosses `L` is therefore set at the start of `L`'s header to
//! its value at the end of the preheader, not carried around the back edge; the
//! reads then never walk around a back edge past definitions not yet recorded,
//! and blocks can be processed once, in block-index order.

use crate::edit::Editor;
use crate::prepare::is_true;
use crate::ssa::{SsaVar, finish_all};
use pllvm_analysis::loops::LoopInfo;
use pllvm_semantics::cfg::BlockDomTree;
use pllvm_semantics::ir::{
    Block, ConstData, ICmpPred, Inst, InstKind, Terminator, Value, ValueDef,
};
use pllvm_semantics::types::TypeTable;
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
    var: SsaVar,
    /// The block whose predicate or phi it computes.
    target: Block,
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

/// [§8.4-8.5] Gives every block of the linearized body in `ed` its original control
/// mask as predicate and turns the phis whose incoming edges changed into selects;
/// returns one note per block whose phis were if-converted.
pub fn predicate_blocks(ed: &mut Editor, g: &Original<'_>) -> Vec<String> {
    let preds = edge_predecessors(ed);
    let kept_edges = blocks_with_unchanged_edges(ed, g);
    let accs = accumulators(ed, g, &kept_edges);
    let into = accumulators_by_target(&accs);
    let crossing = crossing_loops(g, &accs);
    let mut sweep = Sweep {
        ed,
        g,
        preds,
        kept_edges,
        accs,
        into,
        predicate: HashMap::new(),
        header_phi: HashMap::new(),
        replaced: HashMap::new(),
    };
    let mut notes = Vec::new();
    for &b in g.order {
        sweep.enter_loop_header(crossing.get(&b), b);
        let p = sweep.block_predicate(b);
        sweep.predicate.insert(b, p);
        notes.extend(sweep.convert_phis(p, b));
        sweep.update_successors(p, b);
    }
    let Sweep {
        ed,
        accs,
        predicate,
        replaced,
        ..
    } = sweep;
    for (&b, &p) in &predicate {
        if !is_true(ed.body(), p) && !g.unpredicated.contains(&b) {
            ed.body_mut().blocks[b].predicate = Some(p);
        }
    }
    ed.replace_uses(&replaced);
    finish_all(accs.into_iter().map(|a| a.var).collect(), ed);
    notes
}

/// The state of the one sweep over the blocks in block-index order.
struct Sweep<'e, 'g> {
    ed: &'e mut Editor,
    g: &'g Original<'g>,
    /// The predecessors in `G_ℓ`, one per edge.
    preds: HashMap<Block, Vec<Block>>,
    /// The blocks whose phis stay phis.
    kept_edges: HashSet<Block>,
    accs: Vec<Acc>,
    /// The accumulators of each target block.
    into: HashMap<Block, Vec<usize>>,
    /// `p(b)` of the blocks visited so far.
    predicate: HashMap<Block, Value>,
    /// The predicate phi of each predicated loop header (its latch arm pending).
    header_phi: HashMap<Block, Inst>,
    /// Phi results and their replacements.
    replaced: HashMap<Value, Value>,
}

/// The predecessors of every block in the current CFG, one entry per edge (a block
/// with two edges to the same successor is listed twice, as phis list it).
fn edge_predecessors(ed: &Editor) -> HashMap<Block, Vec<Block>> {
    let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
    for &b in &ed.body().layout {
        for s in ed.body().blocks[b].term.successors() {
            preds.entry(s).or_default().push(b);
        }
    }
    preds
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

/// One accumulator per predicated block that is not a loop header (its mask) and
/// per phi of a block whose incoming edges changed, each reset at the start of the
/// target's immediate dominator in `G`.
fn accumulators(ed: &mut Editor, g: &Original<'_>, kept_edges: &HashSet<Block>) -> Vec<Acc> {
    let mut accs = Vec::new();
    let entry = g.order.first().copied();
    for &b in g.order {
        if Some(b) == entry || g.loops.is_header(b) {
            continue;
        }
        let Some(d) = g.dom.idom(b) else { continue };
        let name = ed.block_name(b).to_string();
        if !g.unpredicated.contains(&b) {
            let mut var = SsaVar::new(TypeTable::I1, &format!("{name}.mask"));
            let f = ed.const_bool(false);
            var.define_at_start(d, f);
            accs.push(Acc {
                var,
                target: b,
                kind: AccKind::Mask,
            });
        }
        if kept_edges.contains(&b) {
            continue;
        }
        for phi in ed.body().blocks[b].phis.clone() {
            let InstKind::Phi {
                ty,
                incoming,
                shadow,
            } = ed.body().insts[phi].kind.clone()
            else {
                continue;
            };
            let stem = ed.body().insts[phi]
                .result
                .map(|v| ed.stem(v))
                .unwrap_or_else(|| "phi".into());
            let mut var = SsaVar::new(ty, &stem);
            let u = ed.undef(ty);
            var.define_at_start(d, u);
            accs.push(Acc {
                var,
                target: b,
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

/// For each loop header, the accumulators with a source inside the loop and both
/// their target and their reset block outside it (see the module doc): they enter
/// each iteration with their value from the preheader.
fn crossing_loops(g: &Original<'_>, accs: &[Acc]) -> HashMap<Block, Vec<usize>> {
    let sources = original_sources(g);
    let mut crossing: HashMap<Block, Vec<usize>> = HashMap::new();
    for (k, acc) in accs.iter().enumerate() {
        let b = acc.target;
        let Some(d) = g.dom.idom(b) else { continue };
        let mut seen = HashSet::new();
        for &a in sources.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
            for l in g.loops.ancestors(a) {
                if g.loops.contains(l, b) || g.loops.contains(l, d) {
                    break;
                }
                if seen.insert(l) {
                    crossing.entry(g.loops.header(l)).or_default().push(k);
                }
            }
        }
    }
    crossing
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

impl Sweep<'_, '_> {
    /// At a loop header: every accumulator crossing the loop starts each iteration
    /// with its value at the end of the preheader.
    fn enter_loop_header(&mut self, crossing: Option<&Vec<usize>>, header: Block) {
        let Some(list) = crossing else { return };
        let loops = self.g.loops;
        let Some(preheader) = loops
            .loop_with_header(header)
            .and_then(|l| loops.preheader(l))
        else {
            return;
        };
        for &k in list {
            let v = self.accs[k]
                .var
                .read_at_end(self.ed, &self.preds, preheader);
            self.accs[k].var.define_at_start(header, v);
        }
    }

    /// `p(b)`: `true` at the entry and where Theorem 4 needs none; at a loop header
    /// the phi `[p(preheader), preheader], [e(latch→header), latch]` (its latch arm
    /// is filled when the latch is processed); elsewhere the mask accumulator's
    /// value.
    fn block_predicate(&mut self, b: Block) -> Value {
        let g = self.g;
        if g.unpredicated.contains(&b) || g.order.first() == Some(&b) {
            return self.ed.const_bool(true);
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
        for &k in self.into.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
            if matches!(self.accs[k].kind, AccKind::Mask) {
                return self.accs[k].var.read_at_start(self.ed, &self.preds, b);
            }
        }
        self.ed.const_bool(true)
    }

    /// Fig. 8.4: the phis of `b` whose incoming edges changed become their
    /// accumulators' values (a shadow phi selects its shadow where `p(b)` is
    /// false); a shadow phi that stays a phi in a predicated block loses its
    /// shadow to the same select. Returns a note when `b` had phis converted.
    fn convert_phis(&mut self, p: Value, b: Block) -> Option<String> {
        let ed = &mut *self.ed;
        let predicated = !is_true(ed.body(), p) && !self.g.unpredicated.contains(&b);
        let mut prelude: Vec<Inst> = Vec::new();
        let mut converted = Vec::new();
        for &k in self.into.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
            let AccKind::Phi { inst, shadow, .. } = self.accs[k].kind else {
                continue;
            };
            let Some(old) = ed.body().insts[inst].result else {
                continue;
            };
            let mut value = self.accs[k].var.read_at_start(ed, &self.preds, b);
            if let (Some(s), true) = (shadow, predicated) {
                let (sel, v) = select_inst(ed, p, value, s, &ed.stem(old));
                prelude.push(sel);
                value = v;
            }
            self.replaced.insert(old, value);
            converted.push(ed.stem(old));
            ed.body_mut().blocks[b].phis.retain(|&i| i != inst);
        }
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
    /// `e(b→s)`, and the update of each accumulator of `s` (and of a header's
    /// predicate phi through its back edge).
    fn update_successors(&mut self, p: Value, b: Block) {
        let g = self.g;
        let Some(term) = g.terms.get(&b) else {
            return;
        };
        let mut succs = term.successors();
        succs.sort_unstable();
        succs.dedup();
        for s in succs {
            if g.loops.is_header(s) {
                if let Some(&phi) = self.header_phi.get(&s)
                    && g.loops.loop_with_header(s).and_then(|l| g.loops.latch(l)) == Some(b)
                {
                    let e = edge_predicate(self.ed, b, p, term, s);
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
            // e(b→s), computed once and only if an accumulator needs it.
            let mut edge: Option<Value> = None;
            for &k in self.into.get(&s).map(Vec::as_slice).unwrap_or(&[]) {
                let ed = &mut *self.ed;
                let prev = self.accs[k].var.read_at_end(ed, &self.preds, b);
                let next = match &self.accs[k].kind {
                    AccKind::Mask => {
                        let e = *edge.get_or_insert_with(|| edge_predicate(ed, b, p, term, s));
                        or_folded(ed, b, prev, e)
                    }
                    AccKind::Phi { arms, .. } => {
                        let v = arms
                            .iter()
                            .find(|&&(_, from)| from == b)
                            .map(|&(v, _)| v)
                            .unwrap_or(prev);
                        if is_undef(ed, prev) || v == prev {
                            v
                        } else {
                            let e = *edge.get_or_insert_with(|| edge_predicate(ed, b, p, term, s));
                            let stem = format!("{}.sel", self.accs[k].var_stem(ed));
                            let ty = ed.ty(v);
                            ed.select(b, ty, (e, v, prev), &stem, true)
                        }
                    }
                };
                self.accs[k].var.define_at_end(b, next);
            }
        }
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

impl Acc {
    /// A name stem for the values this accumulator adds.
    fn var_stem(&self, ed: &Editor) -> String {
        match &self.kind {
            AccKind::Mask => format!("{}.mask", ed.block_name(self.target)),
            AccKind::Phi { inst, .. } => ed.body().insts[*inst]
                .result
                .map(|v| ed.stem(v))
                .unwrap_or_else(|| "phi".into()),
        }
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
