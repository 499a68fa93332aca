//! How a step fails: undefined behaviour ([`Ub`], a program outcome, at its [`Site`]),
//! a resource limit, or a stuck state ([`Stuck`]: no rule applies, never a program
//! outcome), together as [`StepError`] (thesis §4.2-4.9; docs/design/style.md §5).

use crate::diag::{Diagnostic, FunctionSpans, Span};
use crate::ir::{Block, Inst};
use crate::rules::rule::Rule;
use std::fmt;

/// "No rule applies": a bug in pllvm or an ill-formed (unverified) program. Never a
/// program outcome (docs/design/style.md §5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stuck {
    /// The rule whose premise failed.
    pub rule: Rule,
    /// Which premise, in words.
    pub why: String,
    /// The scheduled block, once the step that got stuck is known
    /// ([`crate::rules::step::lss_w_step`] fills it in).
    pub block: Option<Block>,
}

impl Stuck {
    /// A failed premise of `rule`.
    pub fn new(rule: Rule, why: impl Into<String>) -> Self {
        Stuck {
            rule,
            why: why.into(),
            block: None,
        }
    }

    /// The same, in the step of scheduled block `block` (kept if already known).
    pub fn in_block(mut self, block: Block) -> Self {
        self.block.get_or_insert(block);
        self
    }

    /// `file:line:col: error: ...` at the scheduled block's label (a stuck step
    /// has no instruction to point at), with the rule and its thesis place as
    /// `help:`, rendered like the verifier's errors.
    pub fn diagnostic(&self, spans: &FunctionSpans) -> Diagnostic {
        let span = self
            .block
            .and_then(|b| written(*spans.blocks.get(b)))
            .unwrap_or(spans.header);
        Diagnostic::error(span, format!("stuck: no rule applies: {}", self.why))
            .with_help(rule_help(self.rule))
    }
}

impl fmt::Display for Stuck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stuck in [{}]: {}", self.rule, self.why)
    }
}

/// `span` if the source map recorded one (an absent entry reads as the empty span).
fn written(span: Span) -> Option<Span> {
    (span.hi > span.lo).then_some(span)
}

/// `[NAME], thesis §…`: the `help:` line of an outcome's diagnostic.
pub fn rule_help(rule: Rule) -> String {
    format!("[{}], thesis {}", rule.name(), rule.thesis())
}

/// Where in the scheduled block undefined behaviour happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// A phi or command.
    Inst(Inst),
    /// The block predicate `val_msk` (Def. 7).
    Predicate,
    /// The terminator.
    Terminator,
}

/// Undefined behaviour of the program: an outcome that names the rule and the place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ub {
    /// The rule whose execution hit undefined behaviour.
    pub rule: Rule,
    /// The lane that did it (`None` when the whole thread array is concerned).
    pub lane: Option<usize>,
    /// The scheduled block.
    pub block: Block,
    /// The instruction, the predicate or the terminator.
    pub site: Site,
    /// What happened, lowercase.
    pub message: String,
}

impl Ub {
    /// `file:line:col: error: undefined behaviour in lane τ: ...` at the
    /// instruction, predicate or terminator, with the rule and its thesis place as
    /// `help:` (`help: [W-INST-LLVM], thesis §4.9`), rendered like the verifier's
    /// errors. Positions come from the side table [`FunctionSpans`]; a site
    /// without a span (a program built in memory) falls back to the block label.
    pub fn diagnostic(&self, spans: &FunctionSpans) -> Diagnostic {
        let site = match self.site {
            Site::Inst(i) => spans.insts.get(i),
            Site::Predicate => spans.predicates.get(self.block),
            Site::Terminator => spans.terms.get(self.block),
        };
        let span = written(*site)
            .or_else(|| written(*spans.blocks.get(self.block)))
            .unwrap_or(spans.header);
        let message = match self.lane {
            Some(lane) => format!("undefined behaviour in lane {lane}: {}", self.message),
            None => format!("undefined behaviour: {}", self.message),
        };
        Diagnostic::error(span, message).with_help(rule_help(self.rule))
    }
}

impl fmt::Display for Ub {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.lane {
            Some(lane) => write!(f, "[{}] lane {}: {}", self.rule, lane, self.message),
            None => write!(f, "[{}] {}", self.rule, self.message),
        }
    }
}

/// Why a step did not produce a next state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepError {
    /// The program has undefined behaviour here (an outcome).
    Undefined(Ub),
    /// A resource limit (memory) was reached (an outcome).
    Limit(String),
    /// No rule applies (a bug or an unverified program).
    Stuck(Stuck),
}

impl StepError {
    /// The same error, a stuck one naming scheduled block `block` ([`Stuck::in_block`]).
    pub fn in_block(self, block: Block) -> Self {
        match self {
            StepError::Stuck(s) => StepError::Stuck(s.in_block(block)),
            other => other,
        }
    }
}

impl From<Stuck> for StepError {
    fn from(s: Stuck) -> Self {
        StepError::Stuck(s)
    }
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Undefined(ub) => write!(f, "undefined behaviour: {ub}"),
            StepError::Limit(why) => write!(f, "resource limit: {why}"),
            StepError::Stuck(s) => write!(f, "{s}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_module;

    const SRC: &str = "define i32 @f(i1 %p) {\nentry:\n  %q = xor i1 %p, true\n  \
                       br label %b\nb:\n  predicate %q\n  ret i32 1\n}\n";

    /// Renders `at` for block `block` of [`SRC`] (an outcome of `rule` in lane 1).
    fn check(block: &str, site: impl Fn(&crate::ir::Body) -> Site, expect: &str) {
        let (module, spans) = parse_module(SRC).expect("parses");
        let (func, data) = module.functions.iter().next().expect("one function");
        let body = data.body.as_ref().expect("a body");
        let block = body.block_by_name(block).expect("block");
        let ub = Ub {
            rule: Rule::WInstLlvm,
            lane: Some(1),
            block,
            site: site(body),
            message: "what happened".into(),
        };
        let rendered = ub.diagnostic(spans.function(func)).render("a.ll", SRC);
        assert_eq!(rendered, expect);
    }

    #[test]
    fn undefined_behaviour_points_at_its_site_and_names_its_rule() {
        let head = "a.ll:3:3: error: undefined behaviour in lane 1: what happened\n";
        let inst = |body: &crate::ir::Body| Site::Inst(body.blocks[body.layout[0]].body[0]);
        check(
            "entry",
            inst,
            &format!(
                "{head}  %q = xor i1 %p, true\n  ^^^^^^^^^^^^^^^^^^^^\nhelp: [W-INST-LLVM], thesis §4.9"
            ),
        );
        check(
            "b",
            |_| Site::Predicate,
            "a.ll:6:3: error: undefined behaviour in lane 1: what happened\n  predicate %q\n  ^^^^^^^^^^^^\nhelp: [W-INST-LLVM], thesis §4.9",
        );
        check(
            "b",
            |_| Site::Terminator,
            "a.ll:7:3: error: undefined behaviour in lane 1: what happened\n  ret i32 1\n  ^^^^^^^^^\nhelp: [W-INST-LLVM], thesis §4.9",
        );
        // `entry` has no predicate clause: the block label (with its colon) stands in.
        check(
            "entry",
            |_| Site::Predicate,
            "a.ll:2:1: error: undefined behaviour in lane 1: what happened\nentry:\n^^^^^^\nhelp: [W-INST-LLVM], thesis §4.9",
        );
    }

    #[test]
    fn a_stuck_step_points_at_its_block() {
        let (module, spans) = parse_module(SRC).expect("parses");
        let (func, data) = module.functions.iter().next().expect("one function");
        let body = data.body.as_ref().expect("a body");
        let b = body.block_by_name("b").expect("block b");
        let stuck = Stuck::new(Rule::PcActive, "block has no successor 3").in_block(b);
        let rendered = stuck.diagnostic(spans.function(func)).render("a.ll", SRC);
        assert_eq!(
            rendered,
            "a.ll:5:1: error: stuck: no rule applies: block has no successor 3\nb:\n^^\nhelp: [PC-ACTIVE], thesis §4.3, Fig. 4.4"
        );
        // The block, once known, is kept.
        let entry = body.block_by_name("entry").expect("entry");
        assert_eq!(stuck.clone().in_block(entry).block, Some(b));
    }
}
