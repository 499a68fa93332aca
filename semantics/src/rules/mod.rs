//! The formal semantics of P-LLVM (thesis §4.2-4.9), one function per rule
//! (docs/design/style.md §3).
//!
//! | module | thesis | rules |
//! | --- | --- | --- |
//! | [`state`] | §4.2, Def. 2-4 | execution state, initial state |
//! | [`masks`] | §4.3-4.4, Def. 6-8 | cmask, pmask, amask |
//! | [`env`](mod@env) | §4.6, Fig. 4.8, Def. 9 | eval, [UPD-ENV] |
//! | [`phi`] | §4.8 | evalphi (plain and shadow) |
//! | [`term`] | §4.7, Fig. 4.9 | evalterm |
//! | [`ctx`] | §4.9, Def. 10-11 | what the command rules share: [`ctx::CmdCtx`], strict mode's premise |
//! | [`llvm`] | §4.9 | [W-INST-LLVM] |
//! | [`cmd`] | §4.9, Fig. 4.12, 4.14 | computecmd [W-CMD-*], evalcmd [W-INST-*] |
//! | [`step`] | §4.3, §4.7, Fig. 4.3, 4.4 | [BLS-W-STEP], advancepc [PC-*], [LSS-W-STEP] |
//! | [`exec`] | | [`Exec`]: lane by lane or fast |
//! | [`hooks`] | | one hook per rule kind: the rule, or its fast form ([`crate::fast`]) |
//! | [`error`] | | how a step fails: [`Ub`], [`Stuck`], [`StepError`] |
//! | [`rule`] | RULES.md | the rules as a type ([`Rule`]) and sets of them ([`RuleSet`]) |
//!
//! `semantics/RULES.md` lists every rule with its function; a tidy test keeps the
//! table, the citations and [`Rule::ALL`] in sync. This module only declares the
//! rules' modules and re-exports their items; the modules name each other directly,
//! so none imports a module that imports it back (ARCHITECTURE.md, "semantics"). The interpreter (crate `pllvm-interp`) drives these functions with a
//! runtime schedule (Def. 5) or a scheduler; the rules never choose a block.

pub mod cmd;
pub mod ctx;
pub mod env;
pub mod error;
pub mod exec;
pub mod hooks;
pub mod llvm;
pub mod masks;
pub mod phi;
pub mod program;
pub mod rule;
pub mod state;
pub mod step;
pub mod term;

pub use error::{Site, StepError, Stuck, Ub, rule_help};
pub use exec::Exec;
pub use program::Program;
pub use rule::{Applied, Rule, RuleSet};
pub use state::{Env, Interp, LaneMasks, Next, Scratch, State, StepBuffers, Succ};
