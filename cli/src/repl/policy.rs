//! How `step`, `run` and `continue` pick the next block: the scheduling policies
//! of `pllvm_interp::sched` (thesis Ch. 5) behind one cloneable value, so that a
//! snapshot can keep a policy's own state (the random generator, the replay
//! position, the IPD stack) and `back` restores it with the execution state.
//!
//! Which blocks are legal, and why the others are not, is
//! `pllvm_interp::greedy::legality` (Def. 12-18, §5.3).

use pllvm_interp::greedy::GreedyFacts;
use pllvm_interp::sched::{Highest, Ipd, Lowest, Random, Replay, Scheduler};
use pllvm_interp::stepper::StepPolicy;
use pllvm_semantics::ir::Block;
use pllvm_semantics::rules::{Program, State};

/// A scheduling policy.
#[derive(Clone, Debug)]
pub(super) enum Policy {
    /// The legal block with the lowest block index (§2.5).
    Lowest(Lowest),
    /// The legal block with the highest block index.
    Highest(Highest),
    /// A seeded uniform choice among the legal blocks.
    Random(Random),
    /// A recorded runtime schedule (Def. 5), legal or not.
    Replay(Replay),
    /// The immediate-post-dominator stack of GPUs (§5.4, Fig. 5.6): not greedy.
    Ipd(Ipd),
    /// The user picks every block with `sched`.
    Interactive,
}

/// The policy names `set sched` completes to.
pub(super) const POLICY_NAMES: &[&str] = &[
    "lowest",
    "highest",
    "random:",
    "replay:",
    "ipd",
    "interactive",
];

impl Policy {
    /// Parses `lowest`, `highest`, `random:SEED`, `replay:FILE` (or, when no such
    /// file exists, `replay:A,B,C`), `ipd` or `interactive`; replayed block names
    /// are resolved in `program`.
    pub(super) fn parse(text: &str, program: &Program<'_>) -> Result<Policy, String> {
        let text = text.trim();
        if text == "interactive" {
            return Ok(Policy::Interactive);
        }
        if let Some(source) = text.strip_prefix("replay:") {
            return crate::flags::replay(program, source).map(Policy::Replay);
        }
        if let Some(seed) = text.strip_prefix("random:") {
            return seed
                .trim()
                .parse::<u64>()
                .map(|s| Policy::Random(Random::new(s)))
                .map_err(|_| {
                    format!(
                        "random:SEED needs a number, not '{}'",
                        super::command::truncate(seed)
                    )
                });
        }
        match text {
            "lowest" | "low" => Ok(Policy::Lowest(Lowest)),
            "highest" | "high" => Ok(Policy::Highest(Highest)),
            "ipd" => Ok(Policy::Ipd(Ipd::new())),
            // The unchecked order exists for launches only; say so, as `run` does.
            pllvm_interp::sched::EARLIEST => {
                Err(pllvm_interp::sched::EARLIEST_IS_FOR_LAUNCHES.to_string())
            }
            other => Err(format!(
                "unknown scheduling policy '{}' (lowest, highest, random:SEED, replay:FILE, replay:A,B,C, ipd, interactive)",
                super::command::truncate(other)
            )),
        }
    }

    /// The policy `--sched` names, as [`Policy::parse`] reads it; what it
    /// cannot read (a `replay:FILE` refused, a block the program lacks) is a
    /// usage error (exit 2), as for `run --sched`.
    pub(super) fn from_flag(text: &str, program: &Program<'_>) -> anyhow::Result<Policy> {
        Policy::parse(text, program)
            .map_err(|e| crate::errors::Usage(format!("--sched {}: {e}", text.trim())).into())
    }

    /// The replay of a schedule given as block names (a run input's or a corpus
    /// file's); its name `replay:A,B,C` parses back to the same policy.
    pub(super) fn replay_names(names: &[String], program: &Program<'_>) -> Result<Policy, String> {
        let list = names.join(",");
        Replay::parse(program, &list, &list).map(Policy::Replay)
    }

    /// The policy's name as `set sched` takes it.
    pub(super) fn name(&self) -> String {
        match self {
            Policy::Lowest(p) => p.name(),
            Policy::Highest(p) => p.name(),
            Policy::Random(p) => p.name(),
            Policy::Replay(p) => p.name(),
            Policy::Ipd(p) => p.name(),
            Policy::Interactive => "interactive".into(),
        }
    }

    /// The next block, or why there is none. `legal` lists the blocks that keep
    /// the schedule greedy (Def. 12) in layout order; replay and IPD may pick others.
    pub(super) fn pick(
        &mut self,
        program: &Program<'_>,
        facts: &GreedyFacts,
        state: &State,
        legal: &[Block],
    ) -> Result<Block, String> {
        let scheduler: &mut dyn Scheduler = match self {
            Policy::Lowest(p) => p,
            Policy::Highest(p) => p,
            Policy::Random(p) => p,
            Policy::Replay(p) => p,
            Policy::Ipd(p) => p,
            Policy::Interactive => {
                let names: Vec<&str> = legal.iter().map(|&b| program.block_name(b)).collect();
                return Err(format!(
                    "the policy is interactive: choose with sched BLOCK (legal next: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(" ")
                    }
                ));
            }
        };
        scheduler
            .pick(program, facts, state, legal)
            .ok_or_else(|| match self {
                Policy::Replay(_) => "the replayed schedule is used up".to_string(),
                _ => "no block is legal next".to_string(),
            })
    }
}

impl StepPolicy for Policy {
    fn pick(
        &mut self,
        program: &Program<'_>,
        facts: &GreedyFacts,
        state: &State,
        legal: &[Block],
    ) -> Result<Block, String> {
        Policy::pick(self, program, facts, state, legal)
    }
}
