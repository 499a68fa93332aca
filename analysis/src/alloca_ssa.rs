//! Alloca SSA (thesis §6.6, Fig. 6.13) reduced to what the transformers need: the
//! `Join` nodes where different states of a stack object may meet.

use crate::calls::{CallKind, call_kind};
use crate::facts::CfgFacts;
use crate::points_to::PointsTo;
use pllvm_semantics::ir::{Block, Body, Inst, InstKind, Module};
use std::collections::{BTreeMap, BTreeSet};

/// An Alloca SSA `Join` node (§6.6): the state of `alloca` where control joins in
/// `block`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AllocaJoin {
    /// The block where the states meet.
    pub(crate) block: Block,
    /// The stack object.
    pub(crate) alloca: Inst,
}

/// The Alloca SSA graph reduced to what the transformers need: one `Join` per
/// (object, block) where different states of the object may meet. `Def` nodes are
/// the allocas, `Write` nodes the stores and memory intrinsics that may alias them;
/// a `Join` goes to the iterated dominance frontier of an object's `Def` and
/// `Write` blocks (as phis do for values), and, standing in for LCSSA, to every
/// exit of a loop that writes the object.
pub(crate) fn alloca_ssa(
    module: &Module,
    body: &Body,
    facts: &CfgFacts,
    pt: &PointsTo,
) -> Vec<AllocaJoin> {
    let mut writes: BTreeMap<Inst, BTreeSet<Block>> = BTreeMap::new();
    let mut defs: BTreeMap<Inst, Block> = BTreeMap::new();
    for &b in &body.layout {
        let data = &body.blocks[b];
        for &i in data.phis.iter().chain(&data.body) {
            match &body.insts[i].kind {
                InstKind::Alloca { .. } => {
                    defs.insert(i, b);
                }
                InstKind::Store { ptr, .. }
                | InstKind::AtomicRmw { ptr, .. }
                | InstKind::CmpXchg { ptr, .. } => {
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
    // The dominance frontiers hold d^2 pairs on a nest of d loops (every header
    // is in the frontier of every block inside it): computed only when there is
    // an object to place joins for.
    if defs.is_empty() {
        return joins;
    }
    let frontiers = facts.dom.frontiers(&facts.cfg);
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
