//! Which rules of `semantics/RULES.md` one scheduled block fired, read off what the
//! block did (its masks, successor indices and instruction kinds). The trace records
//! these names, and the corpus is checked to fire every rule at least once.

use pllvm_semantics::ir::InstKind;
use pllvm_semantics::rules::step::BlockStep;
use pllvm_semantics::rules::{Program, Succ};

/// The rule names fired by `step`, without duplicates, in a fixed order.
pub fn rules_fired(program: &Program<'_>, step: &BlockStep) -> Vec<&'static str> {
    let mut out = vec![
        "LSS-W-STEP",
        "BLS-W-STEP",
        "cmask",
        "pmask",
        "amask",
        "eval",
        "evalterm",
        "W-CMD-EMPTY",
        "PC-WSTEP",
    ];
    let block = &program.body.blocks[step.scheduled];
    for &phi in &block.phis {
        if let InstKind::Phi { shadow, .. } = &program.body.insts[phi].kind {
            out.push(if shadow.is_some() {
                "evalphi-shadow"
            } else {
                "evalphi"
            });
        }
    }
    for &c in &block.body {
        let data = &program.body.insts[c];
        out.push(match (&data.kind, data.total) {
            (InstKind::Mask, _) => "W-CMD-MASK",
            (_, true) => "W-CMD-TOTAL",
            _ => "W-CMD-INST",
        });
        if data.result.is_some() && !matches!(data.kind, InstKind::Mask) {
            out.extend(["UPD-ENV", "getNewValue"]);
        }
        out.push(match data.kind {
            InstKind::Alloca { .. } => "W-INST-ALLOCA",
            InstKind::Load { .. } => "W-INST-LOAD",
            InstKind::Store { .. } => "W-INST-STORE",
            InstKind::Call { .. } => "W-CMD-CALL",
            InstKind::Mask => "W-CMD-MASK",
            _ => "W-INST-LLVM",
        });
    }
    for (c, s) in step.cmask.iter().zip(&step.succ) {
        out.push(match (c, s) {
            (false, _) => "PC-PASSIVE",
            (true, Succ::Index(_)) => "PC-ACTIVE",
            (true, Succ::Any) => "PC-ND-BRANCH",
            (true, Succ::Ret(_)) => "PC-TERM",
        });
    }
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|r| seen.insert(*r));
    out
}
