//! The formal semantics of P-LLVM (thesis §4.2-4.9), one function per rule (STYLE §3).
//!
//! | module | thesis | rules |
//! | --- | --- | --- |
//! | [`state`] | §4.2, Def. 2-4 | execution state, initial state |
//! | [`masks`] | §4.3-4.4, Def. 6-8 | cmask, pmask, amask |
//! | [`env`](mod@env) | §4.6, Fig. 4.8, Def. 9 | eval, [UPD-ENV] |
//! | [`phi`] | §4.8 | evalphi (plain and shadow) |
//! | [`term`] | §4.7, Fig. 4.9 | evalterm |
//! | [`cmd`] | §4.9, Fig. 4.12, 4.14 | computecmd [W-CMD-*], evalcmd [W-INST-*] |
//! | [`step`] | §4.3, §4.7, Fig. 4.3, 4.4 | [BLS-W-STEP], advancepc [PC-*], [LSS-W-STEP] |
//! | [`exec`] | | [`Exec`]: the hooks that run a rule or its kernel ([`crate::kernels`]) |
//!
//! `semantics/RULES.md` lists every rule with its function; a tidy test keeps the two
//! in sync. The interpreter (crate `pllvm-interp`) drives these functions with a
//! runtime schedule (Def. 5) or a scheduler; the rules never choose a block.

pub mod cmd;
pub mod env;
pub mod exec;
pub mod masks;
pub mod phi;
pub mod program;
pub mod state;
pub mod step;
pub mod term;

pub use exec::Exec;
pub use program::Program;
pub use state::{Env, Interp, LaneMasks, Next, Scratch, State, StepBuffers, Succ};

use crate::ir::{Block, Inst};
use std::fmt;

/// "No rule applies": a bug in pllvm or an ill-formed (unverified) program. Never a
/// program outcome (STYLE §5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stuck {
    /// The rule whose premise failed.
    pub rule: &'static str,
    /// Which premise, in words.
    pub why: String,
}

impl Stuck {
    /// A failed premise of `rule`.
    pub fn new(rule: &'static str, why: impl Into<String>) -> Self {
        Stuck {
            rule,
            why: why.into(),
        }
    }
}

impl fmt::Display for Stuck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stuck in [{}]: {}", self.rule, self.why)
    }
}

/// Undefined behaviour of the program: an outcome that names the rule and the place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ub {
    /// The rule (or definition) whose execution hit undefined behaviour.
    pub rule: &'static str,
    /// The lane that did it (`None` when the whole thread array is concerned).
    pub lane: Option<usize>,
    /// The scheduled block.
    pub block: Block,
    /// The instruction, `None` for the terminator or the predicate.
    pub inst: Option<Inst>,
    /// What happened, lowercase.
    pub message: String,
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
