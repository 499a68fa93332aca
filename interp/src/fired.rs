//! Which rules of `semantics/RULES.md` one scheduled block fired, read off what the
//! block did (its masks, successor indices and instruction kinds). The trace records
//! these names, and the corpus is checked to fire every rule at least once.

use pllvm_semantics::ir::{Block, InstKind};
use pllvm_semantics::rules::step::BlockStep;
use pllvm_semantics::rules::{Program, Succ};

/// Every rule name of `semantics/RULES.md`, in a fixed order (bit k of a
/// [`RuleSet`] is `RULES[k]`).
pub const RULES: [&str; 25] = [
    "cmask",
    "pmask",
    "amask",
    "eval",
    "getNewValue",
    "UPD-ENV",
    "evalphi",
    "evalphi-shadow",
    "evalterm",
    "W-CMD-EMPTY",
    "W-CMD-INST",
    "W-CMD-TOTAL",
    "W-CMD-MASK",
    "W-INST-ALLOCA",
    "W-INST-LOAD",
    "W-INST-STORE",
    "W-CMD-CALL",
    "W-INST-LLVM",
    "BLS-W-STEP",
    "PC-ACTIVE",
    "PC-ND-BRANCH",
    "PC-PASSIVE",
    "PC-TERM",
    "PC-WSTEP",
    "LSS-W-STEP",
];

/// A set of rules, one bit each (cheap enough to compute on every step).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RuleSet(u32);

impl RuleSet {
    /// Adds the rule called `name` (names outside [`RULES`] are ignored).
    pub fn insert(&mut self, name: &str) {
        if let Some(k) = RULES.iter().position(|r| *r == name) {
            self.0 |= 1 << k;
        }
    }
    /// Adds every rule of `other`.
    pub fn extend(&mut self, other: RuleSet) {
        self.0 |= other.0;
    }
    /// Whether the rule called `name` is in the set.
    pub fn contains(&self, name: &str) -> bool {
        RULES
            .iter()
            .position(|r| *r == name)
            .is_some_and(|k| self.0 & (1 << k) != 0)
    }
    /// The rule names in the set, in [`RULES`] order.
    pub fn names(&self) -> Vec<&'static str> {
        RULES
            .iter()
            .enumerate()
            .filter(|(k, _)| self.0 & (1 << k) != 0)
            .map(|(_, r)| *r)
            .collect()
    }
}

const fn bit(k: usize) -> u32 {
    1 << k
}

/// The rules fired by `step`.
pub fn rules_fired(program: &Program<'_>, step: &BlockStep) -> RuleSet {
    rules_fired_in(block_rules(program, step.scheduled), step)
}

/// The rules every step of `block` fires whatever its lanes do: the masks, the
/// phis' and commands' rules, [BLS-W-STEP], [PC-WSTEP], [LSS-W-STEP]. A machine
/// computes them once per block.
#[allow(rustdoc::broken_intra_doc_links, reason = "rule citations, not links")]
pub fn block_rules(program: &Program<'_>, block: Block) -> RuleSet {
    // cmask, pmask, amask, eval, evalterm, W-CMD-EMPTY, BLS-W-STEP, PC-WSTEP, LSS-W-STEP.
    let mut set = bit(0) | bit(1) | bit(2) | bit(3) | bit(8) | bit(9) | bit(18) | bit(23) | bit(24);
    let Some(block) = program.body.blocks.get(block) else {
        return RuleSet(set);
    };
    for &phi in &block.phis {
        if let InstKind::Phi { shadow, .. } = &program.body.insts[phi].kind {
            set |= if shadow.is_some() { bit(7) } else { bit(6) };
        }
    }
    for &c in &block.body {
        let data = &program.body.insts[c];
        set |= match (&data.kind, data.total) {
            (InstKind::Mask, _) => bit(12),
            (_, true) => bit(11),
            _ => bit(10),
        };
        if data.result.is_some() && !matches!(data.kind, InstKind::Mask) {
            set |= bit(4) | bit(5);
        }
        set |= match data.kind {
            InstKind::Alloca { .. } => bit(13),
            InstKind::Load { .. } => bit(14),
            InstKind::Store { .. } => bit(15),
            InstKind::Call { .. } => bit(16),
            InstKind::Mask => bit(12),
            _ => bit(17),
        };
    }
    RuleSet(set)
}

/// The rules fired by `step`, given the rules of its block ([`block_rules`]):
/// adds the advancepc rule of every lane.
pub fn rules_fired_in(block: RuleSet, step: &BlockStep) -> RuleSet {
    let mut set = block.0;
    for (c, s) in step.cmask.iter().zip(&step.succ) {
        set |= match (c, s) {
            (false, _) => bit(21),
            (true, Succ::Index(_)) => bit(19),
            (true, Succ::Any) => bit(20),
            (true, Succ::Ret(_)) => bit(22),
        };
    }
    RuleSet(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_bits_name_the_rules() {
        let mut s = RuleSet::default();
        s.insert("PC-TERM");
        s.insert("no such rule");
        assert!(s.contains("PC-TERM"));
        assert!(!s.contains("PC-ACTIVE"));
        assert_eq!(s.names(), vec!["PC-TERM"]);
        assert_eq!(RULES[22], "PC-TERM");
        assert_eq!(RULES[18], "BLS-W-STEP");
    }
}
