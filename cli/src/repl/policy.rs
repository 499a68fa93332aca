//! How `step`, `run` and `continue` pick the next block, and which blocks `legal`
//! and `sched` allow (thesis Ch. 5).
//!
//! The greedy-schedule constraints (Def. 12-18) and the scheduler policies come
//! from the schedulers issue (issue 4). Until they are in the interpreter, the REPL
//! checks progress (Def. 13-14, with the stalling corollary of §5.1: some lane's
//! control mask is set) but not synchronization (Def. 15-18), and offers the two
//! layout orders over the blocks that pass.

use pllvm_semantics::ir::Block;
use pllvm_semantics::rules::masks::cmask;
use pllvm_semantics::rules::{Next, Program, State};

/// Printed by `legal` and on refusals while the greedy constraints are missing.
pub const GREEDY_MISSING: &str =
    "greedy constraints not available: synchronization (Def. 17) is not checked";

/// A scheduling policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Policy {
    /// The legal block with the lowest layout index (§2.5).
    Lowest,
    /// The legal block with the highest layout index.
    Highest,
    /// A runtime schedule given in advance (Def. 5): block `k` of the list is
    /// step `k` of the run, so `back` replays exactly.
    Replay(Vec<String>),
}

impl Policy {
    /// Parses `lowest`, `highest` or `replay:A,B,C`.
    pub fn parse(text: &str) -> Result<Policy, String> {
        let text = text.trim();
        match text {
            "lowest" | "low" => Ok(Policy::Lowest),
            "highest" | "high" => Ok(Policy::Highest),
            _ => {
                if let Some(list) = text.strip_prefix("replay:") {
                    let blocks: Vec<String> = list
                        .split([',', ' '])
                        .map(|s| s.trim().trim_start_matches('%').to_string())
                        .filter(|s| !s.is_empty())
                        .collect();
                    if blocks.is_empty() {
                        return Err("replay: needs a block list, as in replay:A,B,C".into());
                    }
                    return Ok(Policy::Replay(blocks));
                }
                let head = text.split(':').next().unwrap_or(text);
                if matches!(head, "random" | "interactive" | "ipd") {
                    Err(format!(
                        "scheduling policy '{}' is not available yet (the schedulers of issue 4); use lowest, highest or replay:A,B,C",
                        super::command::truncate(text)
                    ))
                } else {
                    Err(format!(
                        "unknown scheduling policy '{}' (lowest, highest, replay:A,B,C)",
                        super::command::truncate(text)
                    ))
                }
            }
        }
    }

    /// The policy's name as `set sched` takes it.
    pub fn name(&self) -> String {
        match self {
            Policy::Lowest => "lowest".into(),
            Policy::Highest => "highest".into(),
            Policy::Replay(list) => format!("replay:{}", list.join(",")),
        }
    }

    /// The block to schedule as step number `step` (0-based) from `state`, or why
    /// there is none.
    pub fn pick(&self, program: &Program<'_>, state: &State, step: usize) -> Result<Block, String> {
        match self {
            Policy::Lowest => legal_blocks(program, state)
                .first()
                .copied()
                .ok_or_else(|| "no block is legal next".to_string()),
            Policy::Highest => legal_blocks(program, state)
                .last()
                .copied()
                .ok_or_else(|| "no block is legal next".to_string()),
            Policy::Replay(list) => {
                let name = list.get(step).ok_or_else(|| {
                    format!(
                        "the replayed schedule has {} block{}: it is used up",
                        list.len(),
                        if list.len() == 1 { "" } else { "s" }
                    )
                })?;
                program
                    .body
                    .block_by_name(name)
                    .ok_or_else(|| format!("the replayed schedule names no block {name}"))
            }
        }
    }
}

/// Whether `block` may be scheduled next, and why (not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Legal: these lanes have their control mask set.
    Legal {
        /// Lanes with cmask 1.
        lanes: Vec<usize>,
    },
    /// Not legal, with the reason naming the definition.
    Illegal(String),
}

/// The verdict for every block of the program, in layout order.
pub fn legality(program: &Program<'_>, state: &State) -> Vec<(Block, Verdict)> {
    program
        .body
        .layout
        .iter()
        .map(|&b| (b, verdict(program, state, b)))
        .collect()
}

/// The blocks that are legal next, in layout order.
pub fn legal_blocks(program: &Program<'_>, state: &State) -> Vec<Block> {
    program
        .body
        .layout
        .iter()
        .copied()
        .filter(|&b| matches!(verdict(program, state, b), Verdict::Legal { .. }))
        .collect()
}

/// The verdict for one block: some lane's control mask must be set (Def. 6; the
/// stalling corollary of §5.1), and scheduling it must make progress (Def. 14).
pub fn verdict(program: &Program<'_>, state: &State, block: Block) -> Verdict {
    let lanes: Vec<usize> = state
        .incoming
        .iter()
        .zip(&state.next)
        .enumerate()
        .filter(|(_, (i, n))| cmask(program, **i, n, block))
        .map(|(lane, _)| lane)
        .collect();
    if lanes.is_empty() {
        return Verdict::Illegal(
            "no lane's control mask is set (Def. 6): it would stall (§5.1)".into(),
        );
    }
    // Def. 14.1: some lane waits for exactly this block.
    if state.next.contains(&Next::Block(block)) {
        return Verdict::Legal { lanes };
    }
    // Def. 14.2: every lane with an edge ℓ_in → ℓ_sc has an empty guide set
    // (Def. 13): no lane that left the same block went to a definite successor.
    for (lane, incoming) in state.incoming.iter().enumerate() {
        let Some(from) = incoming else { continue };
        if !program.has_edge(*from, block) {
            continue;
        }
        let guides: Vec<String> = state
            .incoming
            .iter()
            .zip(&state.next)
            .filter(|(i, _)| *i == incoming)
            .filter_map(|(_, n)| match n {
                Next::Block(b) => Some(program.block_name(*b).to_string()),
                _ => None,
            })
            .collect();
        if !guides.is_empty() {
            return Verdict::Illegal(format!(
                "no lane waits for it (Def. 14.1) and the guide set of lane {lane}, which \
                 left {}, is {{{}}}, not empty (Def. 13, 14.2)",
                program.block_name(*from),
                guides.join(", ")
            ));
        }
    }
    Verdict::Legal { lanes }
}
