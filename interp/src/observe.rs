//! The dynamic divergence observer: for each static instruction, whether the lanes
//! executing one dynamic instance of it ever disagreed on its value, and for each
//! branch whether the lanes it sent on ever took different successors.
//!
//! This is what the static analyses (thesis Ch. 6-7, POPL'21, LLVM) are checked
//! against: a value called uniform must never be seen to disagree here. The lanes
//! of an instance are the lanes that assign the value actively: the control mask
//! for a phi (§4.8), every lane for `total` and `mask()` ([W-CMD-TOTAL],
//! [W-CMD-MASK]), the activation for every other command ([W-CMD-INST]); of those,
//! only lanes whose definition mask (Def. 10) is set count, as in the masked
//! concretization γ' of §6.2 that the analyses' shapes are stated in.

use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{Block, Body, Inst, InstKind};
use pllvm_semantics::rules::Env;
use pllvm_semantics::rules::step::BlockStep;
use pllvm_semantics::rules::{Program, Succ};

/// What one static instruction or branch was seen to do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Observed {
    /// Dynamic instances with at least one executing lane.
    pub instances: u64,
    /// Whether some instance had executing lanes that disagreed.
    pub diverged: bool,
}

/// The record of a run (or of several runs, merged).
#[derive(Clone, Debug, PartialEq)]
pub struct DivergenceRecord {
    /// Per instruction with a result.
    pub insts: SecondaryMap<Inst, Observed>,
    /// Per block with a terminator on a value (`br` on a condition, `switch`).
    pub branches: SecondaryMap<Block, Observed>,
}

impl DivergenceRecord {
    /// An empty record for `body`.
    pub fn new(body: &Body) -> Self {
        let _ = body;
        DivergenceRecord {
            insts: SecondaryMap::with_default(Observed::default()),
            branches: SecondaryMap::with_default(Observed::default()),
        }
    }

    /// Folds in one executed block.
    pub fn observe(&mut self, program: &Program<'_>, env: &Env, step: &BlockStep) {
        let body = program.body;
        let block = &body.blocks[step.scheduled];
        let all = vec![true; step.cmask.len()];
        for &inst in block.phis.iter().chain(&block.body) {
            let data = &body.insts[inst];
            let Some(id) = data.result else { continue };
            let lanes: &[bool] = if data.kind.is_phi() {
                &step.cmask
            } else if data.total || matches!(data.kind, InstKind::Mask) {
                &all
            } else {
                &step.active
            };
            // γ' (§6.2) speaks of the lanes whose definition mask is set: a phi
            // lane with control mask whose incoming value was itself undefined
            // (Def. 10.3) does not count.
            let defined = env.defined(id);
            let column = env.column(id);
            let mut seen = lanes
                .iter()
                .enumerate()
                .filter(|(lane, a)| **a && defined.is_none_or(|d| d[*lane]))
                .map(|(lane, _)| column.lane(lane));
            if let Some(first) = seen.next() {
                let entry = &mut self.insts[inst];
                entry.instances += 1;
                entry.diverged |= seen.any(|v| v != first);
            }
        }
        if block.term.is_branch_on_value() {
            let mut taken = step
                .succ
                .iter()
                .zip(&step.active)
                .filter(|(_, a)| **a)
                .map(|(s, _)| s);
            if let Some(first) = taken.next() {
                let entry = &mut self.branches[step.scheduled];
                entry.instances += 1;
                entry.diverged |= taken.any(|s: &Succ| s != first);
            }
        }
    }
}

/// A text report of a run's divergence record `rec` over `body` (a machine's
/// `divergence` and `program.body`): every instruction and branch that executed,
/// marked `diverged` or `uniform`, in program order.
pub fn report(body: &Body, rec: &DivergenceRecord) -> String {
    let mut lines = vec!["observed divergence:".to_string()];
    for &b in &body.layout {
        let block = &body.blocks[b];
        for &inst in block.phis.iter().chain(&block.body) {
            let Some(id) = body.insts[inst].result else {
                continue;
            };
            let o = rec.insts[inst];
            if o.instances == 0 {
                continue;
            }
            lines.push(format!(
                "  {:<10} %{} ({} instance{})",
                if o.diverged { "diverged" } else { "uniform" },
                body.value_name(id).unwrap_or("?"),
                o.instances,
                if o.instances == 1 { "" } else { "s" }
            ));
        }
        let o = rec.branches[b];
        if o.instances > 0 {
            lines.push(format!(
                "  {:<10} branch of {} ({} instance{})",
                if o.diverged { "diverged" } else { "uniform" },
                block.name,
                o.instances,
                if o.instances == 1 { "" } else { "s" }
            ));
        }
    }
    lines.join("\n")
}
