//! SSA repair after the reconverging transform changed control flow: the
//! predecessor lists with edge multiplicity, every use a definition no longer
//! dominates (thesis §4.10: definitions dominate their uses), and the values the
//! transform created that ended up unused.
//!
//! The repair uses the on-demand SSA construction of [`crate::ssa`] (Braun et
//! al. 2013). Why the values it produces are right: after the
//! transform a lane still visits the blocks of its original path in the original
//! order, with new blocks (flow blocks, a cycle's dispatch block) in between that
//! define none of the program's values. So at any point of a lane's path the
//! latest definition the lane passed is the one it passed in the original
//! program, and SSA construction yields exactly "the latest definition on the
//! path taken". Paths that no lane takes (a flow block's predecessor whose lanes
//! go elsewhere) may read `undef`: no lane uses those values.
//!
//! It also holds what every step of the route shares (the pass name, the
//! internal error), so that the steps import it and not the route above them.

use crate::edit::{Editor, for_each_operand_mut};
use crate::error::{Site, TransformError};
use crate::ssa::SsaVar;
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::{Block, Body, FuncId, Inst, InstKind, Terminator, Value};
use std::collections::{HashMap, HashSet};

/// The pass name in errors (here, below the route and its steps, which all
/// import it).
pub(super) const PASS: &str = "reconverge";

/// An error of the transform itself (not of its input), at the function.
pub(super) fn internal_error(func: FuncId, what: &str) -> TransformError {
    TransformError::new(
        PASS,
        Site::Function(func),
        format!("internal error of the reconverging transform: {what}"),
    )
}

/// The predecessors of every block, one entry per edge (a phi has one arm per
/// predecessor edge, as in LLVM), in arena order. Every block of the arena
/// counts, also one the editor has not placed in the layout yet (a new block
/// waits for [`Editor::finish`]), as `pllvm_semantics::cfg::Cfg` counts them.
pub(super) fn predecessor_edges(body: &Body) -> HashMap<Block, Vec<Block>> {
    let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
    for b in body.blocks.keys() {
        for s in body.blocks[b].term.successors() {
            preds.entry(s).or_default().push(b);
        }
    }
    preds
}

/// One use of a value, located for rewriting.
#[derive(Clone, Copy, Debug)]
enum UseSite {
    /// An operand of the command `inst` in `block`.
    Operand { inst: Inst, block: Block },
    /// Arm `arm` of the phi `inst`, read at the end of `pred`.
    PhiArm { inst: Inst, arm: usize, pred: Block },
    /// The shadow operand of the phi `inst` in `block` (§4.8).
    Shadow { inst: Inst, block: Block },
    /// The predicate of `block` (Def. 7).
    Predicate { block: Block },
    /// An operand of the terminator of `block`.
    Terminator { block: Block },
}

/// Where an instruction result is defined: its block, its position there (phis
/// first), and whether it is a phi.
struct DefSite {
    block: Block,
    position: usize,
    is_phi: bool,
}

/// Rewrites every use that its definition no longer dominates (§4.10) through
/// SSA construction; returns how many values needed it.
pub(super) fn repair_dominance(ed: &mut Editor) -> usize {
    let body = ed.body();
    let cfg = Cfg::new(body);
    let dom = cfg.dominators();
    // Every block of the arena, placed or not (see `predecessor_edges`).
    let blocks: Vec<Block> = body.blocks.keys().collect();
    let mut defs: HashMap<Value, DefSite> = HashMap::new();
    for &b in &blocks {
        let data = &body.blocks[b];
        for (position, &inst) in data.phis.iter().chain(&data.body).enumerate() {
            if let Some(v) = body.insts[inst].result {
                defs.insert(
                    v,
                    DefSite {
                        block: b,
                        position,
                        is_phi: position < data.phis.len(),
                    },
                );
            }
        }
    }
    let mut broken: Vec<(Value, Vec<UseSite>)> = Vec::new();
    let mut index: HashMap<Value, usize> = HashMap::new();
    let mut note = |v: Value, site: UseSite| {
        let slot = *index.entry(v).or_insert_with(|| {
            broken.push((v, Vec::new()));
            broken.len() - 1
        });
        broken[slot].1.push(site);
    };
    for &b in &blocks {
        if !dom.is_reachable(b) {
            continue;
        }
        let data = &body.blocks[b];
        let n_phis = data.phis.len();
        for (position, &inst) in data.phis.iter().chain(&data.body).enumerate() {
            match &body.insts[inst].kind {
                InstKind::Phi {
                    incoming, shadow, ..
                } => {
                    for (arm, &(v, pred)) in incoming.iter().enumerate() {
                        if let Some(d) = defs.get(&v)
                            && dom.is_reachable(pred)
                            && dom.is_reachable(d.block)
                            && !dom.dominates(d.block, pred)
                        {
                            note(v, UseSite::PhiArm { inst, arm, pred });
                        }
                    }
                    if let Some(s) = *shadow
                        && let Some(d) = defs.get(&s)
                        && dom.is_reachable(d.block)
                        && !(dom.strictly_dominates(d.block, b) || (d.block == b && d.is_phi))
                    {
                        note(s, UseSite::Shadow { inst, block: b });
                    }
                }
                kind => {
                    for v in kind.operands() {
                        if let Some(d) = defs.get(&v)
                            && dom.is_reachable(d.block)
                            && !(dom.strictly_dominates(d.block, b)
                                || (d.block == b && d.position < position))
                        {
                            note(v, UseSite::Operand { inst, block: b });
                        }
                    }
                }
            }
        }
        if let Some(p) = data.predicate
            && let Some(d) = defs.get(&p)
            && dom.is_reachable(d.block)
            && !(dom.strictly_dominates(d.block, b) || (d.block == b && d.position < n_phis))
        {
            note(p, UseSite::Predicate { block: b });
        }
        for v in data.term.operands() {
            if let Some(d) = defs.get(&v)
                && dom.is_reachable(d.block)
                && !dom.dominates(d.block, b)
            {
                note(v, UseSite::Terminator { block: b });
            }
        }
    }
    if broken.is_empty() {
        return 0;
    }
    let preds = predecessor_edges(ed.body());
    let repaired = broken.len();
    for (value, sites) in broken {
        let Some(def_block) = defs.get(&value).map(|d| d.block) else {
            continue;
        };
        let ty = ed.ty(value);
        let stem = ed.stem(value);
        let mut var = SsaVar::new(ty, &stem);
        var.define_at_end(def_block, value);
        for site in sites {
            rewrite_use(ed, &mut var, &preds, value, site);
        }
        var.finish(ed);
    }
    repaired
}

/// Replaces the use of `value` at `site` with the variable's reaching value there.
fn rewrite_use(
    ed: &mut Editor,
    var: &mut SsaVar,
    preds: &HashMap<Block, Vec<Block>>,
    value: Value,
    site: UseSite,
) {
    let swap = |to: Value| {
        move |v: &mut Value| {
            if *v == value {
                *v = to;
            }
        }
    };
    match site {
        UseSite::Operand { inst, block } => {
            let to = var.read_at_start(ed, preds, block);
            for_each_operand_mut(&mut ed.body_mut().insts[inst].kind, &swap(to));
        }
        UseSite::PhiArm { inst, arm, pred } => {
            let to = var.read_at_end(ed, preds, pred);
            if let InstKind::Phi { incoming, .. } = &mut ed.body_mut().insts[inst].kind
                && let Some(slot) = incoming.get_mut(arm)
            {
                slot.0 = to;
            }
        }
        UseSite::Shadow { inst, block } => {
            let to = var.read_at_start(ed, preds, block);
            if let InstKind::Phi { shadow, .. } = &mut ed.body_mut().insts[inst].kind
                && let Some(s) = shadow
            {
                swap(to)(s);
            }
        }
        UseSite::Predicate { block } => {
            let to = var.read_at_start(ed, preds, block);
            if let Some(p) = &mut ed.body_mut().blocks[block].predicate {
                swap(to)(p);
            }
        }
        UseSite::Terminator { block } => {
            let to = var.read_at_end(ed, preds, block);
            match &mut ed.body_mut().blocks[block].term {
                Terminator::CondBr { cond, .. } | Terminator::Switch { cond, .. } => swap(to)(cond),
                Terminator::Ret(Some(v)) => swap(to)(v),
                _ => {}
            }
        }
    }
}

/// Removes the phis and pure commands with an index at or above `first_new` (the
/// ones the transform created) that nothing uses, and then those only they used;
/// flow conditions a flow block ended up not needing go this way.
pub(super) fn remove_unused_new(ed: &mut Editor, first_new: usize) {
    let body = ed.body();
    let mut uses: HashMap<Value, usize> = HashMap::new();
    let mut defined_by: HashMap<Value, Inst> = HashMap::new();
    let blocks: Vec<Block> = body.blocks.keys().collect();
    for &b in &blocks {
        let data = &body.blocks[b];
        for &inst in data.phis.iter().chain(&data.body) {
            for v in body.insts[inst].kind.operands() {
                *uses.entry(v).or_default() += 1;
            }
            if let Some(r) = body.insts[inst].result {
                defined_by.insert(r, inst);
            }
        }
        for v in data.predicate.iter().copied().chain(data.term.operands()) {
            *uses.entry(v).or_default() += 1;
        }
    }
    let removable = |inst: Inst| {
        inst.as_u32() as usize >= first_new
            && matches!(
                body.insts[inst].kind,
                InstKind::Phi { .. }
                    | InstKind::Binary { .. }
                    | InstKind::ICmp { .. }
                    | InstKind::Select { .. }
            )
    };
    let mut work: Vec<Inst> = defined_by
        .iter()
        .filter(|(v, i)| removable(**i) && uses.get(v).copied().unwrap_or(0) == 0)
        .map(|(_, &i)| i)
        .collect();
    let mut dead: HashSet<Inst> = HashSet::new();
    while let Some(inst) = work.pop() {
        if !dead.insert(inst) {
            continue;
        }
        for v in body.insts[inst].kind.operands() {
            let Some(n) = uses.get_mut(&v) else {
                continue;
            };
            *n = n.saturating_sub(1);
            if *n == 0
                && let Some(&d) = defined_by.get(&v)
                && removable(d)
            {
                work.push(d);
            }
        }
    }
    if dead.is_empty() {
        return;
    }
    let body = ed.body_mut();
    for b in blocks {
        let data = &mut body.blocks[b];
        data.phis.retain(|i| !dead.contains(i));
        data.body.retain(|i| !dead.contains(i));
    }
}
