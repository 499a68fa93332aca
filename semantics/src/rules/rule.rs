//! The rules of thesis §4.2-4.9 as a type: one [`Rule`] per row of
//! `semantics/RULES.md`, with its printed name and its place in the thesis, and
//! [`RuleSet`], the rules one step (or a whole run) applied.
//!
//! Stuck states ([`crate::rules::Stuck`]) and undefined behaviour
//! ([`crate::rules::Ub`]) name the rule whose premise failed by a [`Rule`]; the
//! dispatchers of [`crate::rules::step`], [`crate::rules::cmd`] and
//! [`crate::rules::phi`] record every rule they apply in a [`RuleSet`], which
//! [`crate::rules::step::BlockStep::rules`] returns with the step. The tidy test
//! `corpus/tests/tidy.rs` checks that [`Rule::ALL`] and RULES.md list the same rules
//! with the same thesis places, and that the corpus applies every one of them.

use std::cell::Cell;
use std::fmt;

/// One rule (or rule-like definition) of thesis §4.2-4.9, as RULES.md lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// `cmask` (§4.3, Def. 6).
    Cmask,
    /// `pmask` (§4.4, Def. 7).
    Pmask,
    /// `amask` (§4.4, Def. 8).
    Amask,
    /// `eval` (§4.6).
    Eval,
    /// `getNewValue` (§4.6, Fig. 4.8).
    GetNewValue,
    /// [UPD-ENV] (§4.6, Fig. 4.8).
    UpdEnv,
    /// `evalphi` (§4.8).
    EvalPhi,
    /// `evalphi` with a shadow operand (§4.8).
    EvalPhiShadow,
    /// `evalterm` (§4.7, Fig. 4.9).
    EvalTerm,
    /// [W-CMD-EMPTY] (§4.9, Fig. 4.12).
    WCmdEmpty,
    /// [W-CMD-INST] (§4.9, Fig. 4.12).
    WCmdInst,
    /// [W-CMD-TOTAL] (§4.9, Fig. 4.12).
    WCmdTotal,
    /// [W-CMD-MASK] (§4.9, Fig. 4.12).
    WCmdMask,
    /// [W-INST-ALLOCA] (§4.9.1).
    WInstAlloca,
    /// [W-INST-LOAD] (§4.9.1).
    WInstLoad,
    /// [W-INST-STORE] (§4.9.1).
    WInstStore,
    /// [W-CMD-CALL] (§4.9.2, Fig. 4.14).
    WCmdCall,
    /// [W-INST-LLVM] (§4.9, "regular LLVM semantics"; the name is pllvm's).
    WInstLlvm,
    /// [BLS-W-STEP] (§4.7).
    BlsWStep,
    /// [PC-ACTIVE] (§4.3, Fig. 4.4).
    PcActive,
    /// [PC-ND-BRANCH] (§4.3, Fig. 4.4).
    PcNdBranch,
    /// [PC-PASSIVE] (§4.3, Fig. 4.4).
    PcPassive,
    /// [PC-TERM] (§4.3, Fig. 4.4).
    PcTerm,
    /// [PC-WSTEP] (§4.3, Fig. 4.4).
    PcWStep,
    /// [LSS-W-STEP] (§4.3, Fig. 4.3).
    LssWStep,
    /// [W-INST-ATOMICRMW] (§4.9.1 read with LangRef's `atomicrmw`; the name is pllvm's).
    WInstAtomicRmw,
    /// [W-INST-CMPXCHG] (§4.9.1 read with LangRef's `cmpxchg`; the name is pllvm's).
    WInstCmpXchg,
    /// [W-INST-FENCE] (§4.9.1 read with LangRef's `fence`; the name is pllvm's).
    WInstFence,
}

impl Rule {
    /// Every rule, in the order of RULES.md.
    pub const ALL: [Rule; 28] = [
        Rule::Cmask,
        Rule::Pmask,
        Rule::Amask,
        Rule::Eval,
        Rule::GetNewValue,
        Rule::UpdEnv,
        Rule::EvalPhi,
        Rule::EvalPhiShadow,
        Rule::EvalTerm,
        Rule::WCmdEmpty,
        Rule::WCmdInst,
        Rule::WCmdTotal,
        Rule::WCmdMask,
        Rule::WInstAlloca,
        Rule::WInstLoad,
        Rule::WInstStore,
        Rule::WCmdCall,
        Rule::WInstLlvm,
        Rule::BlsWStep,
        Rule::PcActive,
        Rule::PcNdBranch,
        Rule::PcPassive,
        Rule::PcTerm,
        Rule::PcWStep,
        Rule::LssWStep,
        Rule::WInstAtomicRmw,
        Rule::WInstCmpXchg,
        Rule::WInstFence,
    ];

    /// The name RULES.md and the `/// [NAME]` citations give the rule.
    pub const fn name(self) -> &'static str {
        match self {
            Rule::Cmask => "cmask",
            Rule::Pmask => "pmask",
            Rule::Amask => "amask",
            Rule::Eval => "eval",
            Rule::GetNewValue => "getNewValue",
            Rule::UpdEnv => "UPD-ENV",
            Rule::EvalPhi => "evalphi",
            Rule::EvalPhiShadow => "evalphi-shadow",
            Rule::EvalTerm => "evalterm",
            Rule::WCmdEmpty => "W-CMD-EMPTY",
            Rule::WCmdInst => "W-CMD-INST",
            Rule::WCmdTotal => "W-CMD-TOTAL",
            Rule::WCmdMask => "W-CMD-MASK",
            Rule::WInstAlloca => "W-INST-ALLOCA",
            Rule::WInstLoad => "W-INST-LOAD",
            Rule::WInstStore => "W-INST-STORE",
            Rule::WCmdCall => "W-CMD-CALL",
            Rule::WInstLlvm => "W-INST-LLVM",
            Rule::BlsWStep => "BLS-W-STEP",
            Rule::PcActive => "PC-ACTIVE",
            Rule::PcNdBranch => "PC-ND-BRANCH",
            Rule::PcPassive => "PC-PASSIVE",
            Rule::PcTerm => "PC-TERM",
            Rule::PcWStep => "PC-WSTEP",
            Rule::LssWStep => "LSS-W-STEP",
            Rule::WInstAtomicRmw => "W-INST-ATOMICRMW",
            Rule::WInstCmpXchg => "W-INST-CMPXCHG",
            Rule::WInstFence => "W-INST-FENCE",
        }
    }

    /// Where the thesis states the rule: section, and the figure or definition
    /// (the `thesis` column of RULES.md).
    pub const fn thesis(self) -> &'static str {
        match self {
            Rule::Cmask => "§4.3, Def. 6",
            Rule::Pmask => "§4.4, Def. 7",
            Rule::Amask => "§4.4, Def. 8",
            Rule::Eval => "§4.6",
            Rule::GetNewValue | Rule::UpdEnv => "§4.6, Fig. 4.8",
            Rule::EvalPhi | Rule::EvalPhiShadow => "§4.8",
            Rule::EvalTerm => "§4.7, Fig. 4.9",
            Rule::WCmdEmpty | Rule::WCmdInst | Rule::WCmdTotal | Rule::WCmdMask => {
                "§4.9, Fig. 4.12"
            }
            Rule::WInstAlloca | Rule::WInstLoad | Rule::WInstStore => "§4.9.1",
            Rule::WCmdCall => "§4.9.2, Fig. 4.14",
            Rule::WInstLlvm => "§4.9",
            Rule::BlsWStep => "§4.7",
            Rule::PcActive | Rule::PcNdBranch | Rule::PcPassive | Rule::PcTerm | Rule::PcWStep => {
                "§4.3, Fig. 4.4"
            }
            Rule::LssWStep => "§4.3, Fig. 4.3",
            Rule::WInstAtomicRmw | Rule::WInstCmpXchg | Rule::WInstFence => "§4.9.1",
        }
    }

    /// The rule called `name` (as [`Rule::name`] prints it).
    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The rule's bit in a [`RuleSet`]: its position in [`Rule::ALL`] (the enum's
    /// declaration order, which `ALL` follows; a unit test checks it).
    const fn bit(self) -> u32 {
        1 << self as u32
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of [`Rule`]s, one bit each: what a step applied, or a whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RuleSet(u32);

impl RuleSet {
    /// The empty set.
    pub const EMPTY: RuleSet = RuleSet(0);

    /// Adds `rule`.
    #[inline]
    pub fn insert(&mut self, rule: Rule) {
        self.0 |= rule.bit();
    }

    /// Adds every rule of `other`.
    #[inline]
    pub fn extend(&mut self, other: RuleSet) {
        self.0 |= other.0;
    }

    /// Whether `rule` is in the set.
    pub fn contains(&self, rule: Rule) -> bool {
        self.0 & rule.bit() != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The rules in the set, in [`Rule::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = Rule> + '_ {
        Rule::ALL.into_iter().filter(|r| self.contains(*r))
    }

    /// The names of the rules in the set, in [`Rule::ALL`] order.
    pub fn names(&self) -> Vec<&'static str> {
        self.iter().map(Rule::name).collect()
    }
}

impl FromIterator<Rule> for RuleSet {
    fn from_iter<I: IntoIterator<Item = Rule>>(iter: I) -> Self {
        let mut set = RuleSet::EMPTY;
        for r in iter {
            set.insert(r);
        }
        set
    }
}

/// The rules one step has applied so far. The dispatchers record each rule as
/// they apply it through a shared reference (the command context that carries it
/// is `Copy`), and the step returns [`Applied::rules`] with its result. A step
/// that ends in undefined behaviour or gets stuck returns no set: the rule whose
/// premise failed did not apply.
#[derive(Debug, Default)]
pub struct Applied(Cell<RuleSet>);

impl Applied {
    /// Records that `rule` applied.
    #[inline]
    pub fn record(&self, rule: Rule) {
        let mut set = self.0.get();
        set.insert(rule);
        self.0.set(set);
    }

    /// Every rule recorded so far.
    pub fn rules(&self) -> RuleSet {
        self.0.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_rule_once_in_declaration_order() {
        for (k, r) in Rule::ALL.iter().enumerate() {
            assert_eq!(*r as usize, k, "{r} is out of order in Rule::ALL");
            assert_eq!(Rule::from_name(r.name()), Some(*r));
        }
        assert_eq!(Rule::from_name("no such rule"), None);
        let all: RuleSet = Rule::ALL.into_iter().collect();
        assert_eq!(all.iter().count(), Rule::ALL.len());
    }

    #[test]
    fn a_set_holds_exactly_what_was_inserted() {
        let mut s = RuleSet::EMPTY;
        assert!(s.is_empty());
        s.insert(Rule::PcTerm);
        s.insert(Rule::Cmask);
        assert!(s.contains(Rule::PcTerm) && s.contains(Rule::Cmask));
        assert!(!s.contains(Rule::PcActive));
        assert_eq!(s.names(), vec!["cmask", "PC-TERM"]);
        let mut t = RuleSet::EMPTY;
        t.insert(Rule::LssWStep);
        s.extend(t);
        assert_eq!(s.names(), vec!["cmask", "PC-TERM", "LSS-W-STEP"]);
        let applied = Applied::default();
        applied.record(Rule::WInstLlvm);
        applied.record(Rule::WInstLlvm);
        assert_eq!(applied.rules().names(), vec!["W-INST-LLVM"]);
    }

    /// Each step of a run reports exactly the rules its dispatchers applied:
    /// the instruction kinds present, and the advancepc rule of each lane's case.
    #[test]
    fn a_step_reports_the_rules_it_applied() {
        use crate::memory::Memory;
        use crate::rules::step::lss_w_step;
        use crate::rules::{Env, Exec, Interp, Program, Scratch, State};
        use crate::text::parse_module;
        use crate::value::Val;
        let text = "define i32 @f(i32 %x) {\n\
            A:\n  %c = icmp eq i32 %x, 0\n  br i1 %c, label %B, label %C\n\
            B:\n  %m = mask()\n  br label %C\n\
            C:\n  ret i32 1\n}\n";
        let (module, _) = parse_module(text).expect("parses");
        let func = module.functions.keys().next().expect("one function");
        let program = Program::new(&module, func).expect("program");
        let args = vec![vec![Val::Int(0), Val::Int(1)]];
        let env = Env::new(&program, 2, &args, &|_| Val::Undef, false, false);
        let entry = program.body.layout[0];
        // Every step: the masks, eval of the predicate, evalterm, the empty command
        // list at the end, [BLS-W-STEP], [PC-WSTEP] and [LSS-W-STEP].
        let every = [
            "cmask",
            "pmask",
            "amask",
            "eval",
            "evalterm",
            "W-CMD-EMPTY",
            "BLS-W-STEP",
            "PC-WSTEP",
            "LSS-W-STEP",
        ];
        let expected: [(&str, &[&str]); 3] = [
            // Both lanes active; lane 0 to B, lane 1 to C.
            (
                "A",
                &[
                    "getNewValue",
                    "UPD-ENV",
                    "W-CMD-INST",
                    "W-INST-LLVM",
                    "PC-ACTIVE",
                ],
            ),
            // Lane 1 waits at C: passive.
            (
                "B",
                &[
                    "getNewValue",
                    "UPD-ENV",
                    "W-CMD-MASK",
                    "PC-ACTIVE",
                    "PC-PASSIVE",
                ],
            ),
            ("C", &["PC-TERM"]),
        ];
        // Both executions record the same rules: the hooks record what their
        // dispatcher chose, whichever of the rule and its kernel runs.
        for exec in [Exec::Reference, Exec::Fast] {
            let mut state = State::initial(entry, Memory::new(1 << 20), env.clone());
            let mut scratch = Scratch::default();
            for (block, own) in expected {
                let b = program.body.block_by_name(block).expect("block");
                let step = lss_w_step(
                    &program,
                    Interp::Freezing,
                    exec,
                    b,
                    &mut state,
                    &mut scratch,
                    false,
                )
                .expect("steps");
                let mut want: Vec<Rule> = every
                    .iter()
                    .chain(own)
                    .map(|n| Rule::from_name(n).expect("a rule"))
                    .collect();
                want.sort();
                assert_eq!(
                    step.rules.iter().collect::<Vec<_>>(),
                    want,
                    "{exec}: block {block}"
                );
            }
            assert!(state.all_done());
        }
    }
}
