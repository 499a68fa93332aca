//! Schedulers (thesis Ch. 5): the [`Scheduler`] trait and the built-in policies.
//! The driver that runs a machine with a scheduler while checking every step
//! against the greedy-schedule constraints of [`crate::greedy`] is `run_with`, in
//! the `run` module (which imports this one, never the reverse).
//!
//! The semantics never chooses a block (Def. 5: a runtime schedule is any block
//! list). A scheduler chooses, one step at a time, among the blocks that keep the
//! schedule greedy (Def. 12). The built-in policies:
//!
//! | policy | `--sched` | what it picks |
//! | --- | --- | --- |
//! | [`Lowest`] | `lowest` | the lowest block index (§2.5), the order partial linearization realizes |
//! | [`Highest`] | `highest` | the highest block index |
//! | [`Random`] | `random:SEED` | a seeded uniform choice |
//! | [`Replay`] | `replay:FILE` | the next block of a recorded schedule |
//! | [`Interactive`] | `interactive` | whatever a callback answers (the REPL) |
//! | [`Ipd`] | `ipd` | the immediate-post-dominator stack of GPUs (§5.4, Fig. 5.6): not greedy |
//!
//! A policy may return a block outside the legal list ([`Ipd`], [`Replay`],
//! [`Interactive`] do when told to): the run executes it anyway and records the
//! greedy constraint it breaks (`ScheduledRun::violations`).
//!
//! A user-defined policy implements the trait:
//!
//! ```
//! use pllvm_interp::greedy::GreedyFacts;
//! use pllvm_interp::run::run_with;
//! use pllvm_interp::sched::Scheduler;
//! use pllvm_interp::{Machine, Outcome, RunConfig};
//! use pllvm_semantics::ir::Block;
//! use pllvm_semantics::rules::{Program, State};
//!
//! /// Prefers the legal block with the longest name, then the first in layout order.
//! struct LongestName;
//!
//! impl Scheduler for LongestName {
//!     fn pick(&mut self, program: &Program<'_>, _: &GreedyFacts, _: &State, legal: &[Block]) -> Option<Block> {
//!         legal.iter().copied().rev().max_by_key(|&b| program.block_name(b).len())
//!     }
//!     fn name(&self) -> String {
//!         "longest-name".into()
//!     }
//! }
//!
//! let src = "define i32 @f() {\nentry:\n  %t = call i32 @pllvm.thread_id()\n  %c = icmp eq i32 %t, 0\n  br i1 %c, label %left, label %right_side\nleft:\n  br label %join\nright_side:\n  br label %join\njoin:\n  %x = phi i32 [ 1, %left ], [ 2, %right_side ]\n  ret i32 %x\n}\n";
//! let (module, _) = pllvm_semantics::text::parse_module(src).unwrap();
//! let mut machine = Machine::new(&module, &RunConfig { threads: 2, ..Default::default() }).unwrap();
//! let facts = GreedyFacts::compute(&machine.program);
//! let run = run_with(&mut machine, &facts, &mut LongestName).unwrap();
//! assert_eq!(run.outcome, Outcome::Returned);
//! assert!(run.violations.is_empty());
//! let names: Vec<&str> = run.schedule.iter().map(|&b| machine.program.block_name(b)).collect();
//! assert_eq!(names, ["entry", "right_side", "left", "join"]);
//! assert_eq!(machine.result_text(), "[1, 2]");
//! ```

use crate::greedy::{GreedyFacts, pending_blocks};
use pllvm_semantics::ir::Block;
use pllvm_semantics::rules::masks::cmask;
use pllvm_semantics::rules::{Next, Program, State};

/// The blocks some lane would execute with its control mask set (Def. 6), in
/// layout order: the ℓ_next of every lane that waits at a block, and every
/// successor of ℓ_in for lanes whose ℓ_next is ⊤.
pub fn pending(program: &Program<'_>, state: &State) -> Vec<Block> {
    // The lanes' targets (`crate::greedy::lane_targets`), not a scan of the layout:
    // a step costs the same in a CFG of 10 blocks and of 100k.
    pending_blocks(program, state)
}

/// The pending block earliest in layout order, `None` when no lane can move.
///
/// This is the policy of `Machine::run_earliest_pending` (in the `run` module):
/// fast (it checks no constraint) and, for programs whose layout is a block index (§2.5, as compilers emit them),
/// the same choice as [`Lowest`] whenever that choice is greedy.
pub fn earliest_pending(program: &Program<'_>, state: &State) -> Option<Block> {
    // A lane waiting at a block has cmask there and nowhere else (Def. 6), so
    // without ⊤ lanes the answer is the earliest ℓ_next in the layout.
    let mut first: Option<usize> = None;
    for n in &state.next {
        match n {
            Next::Block(b) => {
                if let Some(p) = program.layout_pos[*b] {
                    first = Some(first.map_or(p, |f| f.min(p)));
                }
            }
            Next::Any => return earliest_pending_scan(program, state),
            Next::Done(_) => {}
        }
    }
    first.map(|p| program.body.layout[p])
}

/// [`earliest_pending`] by testing cmask for every block in layout order (needed
/// when some lane accepts any successor of its ℓ_in).
fn earliest_pending_scan(program: &Program<'_>, state: &State) -> Option<Block> {
    // The first block of `pending`, without building the list.
    program.body.layout.iter().copied().find(|&b| {
        state
            .incoming
            .iter()
            .zip(&state.next)
            .any(|(i, n)| !matches!(n, Next::Done(_)) && cmask(program, *i, n, b))
    })
}

/// A scheduling policy: picks the next block given the state and the blocks that
/// keep the schedule greedy (Def. 12), in layout order. `None` ends the run.
pub trait Scheduler {
    /// The next block; normally one of `legal`.
    fn pick(
        &mut self,
        program: &Program<'_>,
        facts: &GreedyFacts,
        state: &State,
        legal: &[Block],
    ) -> Option<Block>;

    /// The policy's name as `--sched` spells it.
    fn name(&self) -> String;

    /// Whether `pick` always answers the offered block of lowest block index
    /// (§2.5). Such a policy follows the lowest path of the §5.3 check itself, so
    /// the scheduler loop checks termination preservation for it along the way
    /// (`crate::lowest_path::LowestPath`) and offers it only the block it checked;
    /// every other policy is offered every legal block, each checked in full.
    fn lowest_first(&self) -> bool {
        false
    }
}

/// The legal block with the lowest block index (§2.5): the order in which
/// partial linearization lays the blocks out, so the SIMD code follows it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lowest;

impl Scheduler for Lowest {
    fn pick(
        &mut self,
        _: &Program<'_>,
        facts: &GreedyFacts,
        _: &State,
        legal: &[Block],
    ) -> Option<Block> {
        legal.iter().copied().min_by_key(|&b| facts.index_of(b))
    }
    fn name(&self) -> String {
        "lowest".into()
    }
    fn lowest_first(&self) -> bool {
        true
    }
}

/// The legal block with the highest block index (§2.5).
#[derive(Clone, Copy, Debug, Default)]
pub struct Highest;

impl Scheduler for Highest {
    fn pick(
        &mut self,
        _: &Program<'_>,
        facts: &GreedyFacts,
        _: &State,
        legal: &[Block],
    ) -> Option<Block> {
        legal.iter().copied().max_by_key(|&b| facts.index_of(b))
    }
    fn name(&self) -> String {
        "highest".into()
    }
}

/// A uniform choice among the legal blocks from a seeded generator (SplitMix64:
/// the same seed gives the same schedule on every platform).
#[derive(Clone, Debug)]
pub struct Random {
    seed: u64,
    state: u64,
}

impl Random {
    /// The policy for `seed`.
    pub fn new(seed: u64) -> Random {
        Random { seed, state: seed }
    }

    /// The next number of the SplitMix64 sequence.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl Scheduler for Random {
    fn pick(
        &mut self,
        _: &Program<'_>,
        _: &GreedyFacts,
        _: &State,
        legal: &[Block],
    ) -> Option<Block> {
        if legal.is_empty() {
            return None;
        }
        let k = (self.next_u64() % legal.len() as u64) as usize;
        legal.get(k).copied()
    }
    fn name(&self) -> String {
        format!("random:{}", self.seed)
    }
}

/// Replays a recorded schedule block by block, legal or not (the run records the
/// violations); ends when the recording does.
#[derive(Clone, Debug)]
pub struct Replay {
    blocks: Vec<Block>,
    at: usize,
    source: String,
}

impl Replay {
    /// Replays `blocks`; `source` names the recording (a file name).
    pub fn new(blocks: Vec<Block>, source: impl Into<String>) -> Replay {
        Replay {
            blocks,
            at: 0,
            source: source.into(),
        }
    }

    /// Reads a recording in any of the forms pllvm writes or a person types:
    /// - block names separated by commas, white space or line breaks, where `;`
    ///   starts a comment that runs to the end of the line (a `schedule (..): A,B`
    ///   line of `pllvm run` counts from its colon);
    /// - a trace table (`pllvm run --trace table`, the REPL's `save-trace FILE`):
    ///   the `sc` column of each row; indented value lines and the `outcome:` /
    ///   `result:` lines after the table are skipped;
    /// - a JSON trace (`--trace json`, `save-trace FILE.json`): the `sc` of each row.
    ///
    /// The interpreter reads no file: `pllvm`'s `replay:FILE` reads the file
    /// (with a bound) and hands its text here.
    pub fn parse(program: &Program<'_>, text: &str, source: &str) -> Result<Replay, String> {
        let names = recorded_block_names(text).map_err(|e| format!("{source}: {e}"))?;
        let mut blocks = Vec::with_capacity(names.len());
        for name in names {
            let b = program
                .body
                .block_by_name(&name)
                .ok_or_else(|| format!("{source}: no block named {name}"))?;
            blocks.push(b);
        }
        Ok(Replay::new(blocks, source))
    }
}

/// The block names of a recording, in the forms [`Replay::parse`] reads.
fn recorded_block_names(text: &str) -> Result<Vec<String>, String> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        let json: serde_json::Value =
            serde_json::from_str(trimmed).map_err(|e| format!("not a JSON trace: {e}"))?;
        let rows = match &json {
            serde_json::Value::Array(rows) => rows,
            serde_json::Value::Object(o) => match o.get("trace").or_else(|| o.get("rows")) {
                Some(serde_json::Value::Array(rows)) => rows,
                _ => return Err("a JSON trace is an array of rows with an \"sc\" field".into()),
            },
            _ => return Err("a JSON trace is an array of rows with an \"sc\" field".into()),
        };
        return rows
            .iter()
            .enumerate()
            .map(|(k, row)| match row.get("sc") {
                Some(serde_json::Value::String(name)) => {
                    Ok(name.trim_start_matches('%').to_string())
                }
                _ => Err(format!(
                    "row {k} of the JSON trace has no \"sc\" block name"
                )),
            })
            .collect();
    }
    let mut lines = text.lines().peekable();
    let is_table = lines
        .clone()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with(';'))
        .is_some_and(|l| l.split('|').next().is_some_and(|h| h.trim() == "sc"));
    let mut names = Vec::new();
    if is_table {
        for line in lines.by_ref() {
            if line.starts_with(char::is_whitespace) || line.trim().is_empty() {
                continue; // the values a row wrote, or a blank line
            }
            let Some((first, _)) = line.split_once('|') else {
                break; // the end of the table: `outcome:`, `result:`, ...
            };
            let name = first.trim();
            if name != "sc" {
                names.push(name.trim_start_matches('%').to_string());
            }
        }
        return Ok(names);
    }
    for line in lines {
        let line = line.split(';').next().unwrap_or("");
        let line = match line.split_once("):") {
            Some((head, rest)) if head.trim_start().starts_with("schedule") => rest,
            _ => line,
        };
        for name in line.split(|c: char| c == ',' || c.is_whitespace()) {
            let name = name.trim().trim_start_matches('%');
            if !name.is_empty() {
                names.push(name.to_string());
            }
        }
    }
    Ok(names)
}

impl Scheduler for Replay {
    fn pick(&mut self, _: &Program<'_>, _: &GreedyFacts, _: &State, _: &[Block]) -> Option<Block> {
        let b = self.blocks.get(self.at).copied();
        self.at += 1;
        b
    }
    fn name(&self) -> String {
        format!("replay:{}", self.source)
    }
}

/// Asks a callback for every block (the REPL's policy): it sees the program, the
/// facts, the state and the legal blocks, and may answer any block or `None`.
pub struct Interactive<F>
where
    F: FnMut(&Program<'_>, &GreedyFacts, &State, &[Block]) -> Option<Block>,
{
    ask: F,
}

impl<F> Interactive<F>
where
    F: FnMut(&Program<'_>, &GreedyFacts, &State, &[Block]) -> Option<Block>,
{
    /// The policy that asks `ask`.
    pub fn new(ask: F) -> Self {
        Interactive { ask }
    }
}

impl<F> Scheduler for Interactive<F>
where
    F: FnMut(&Program<'_>, &GreedyFacts, &State, &[Block]) -> Option<Block>,
{
    fn pick(
        &mut self,
        program: &Program<'_>,
        facts: &GreedyFacts,
        state: &State,
        legal: &[Block],
    ) -> Option<Block> {
        (self.ask)(program, facts, state, legal)
    }
    fn name(&self) -> String {
        "interactive".into()
    }
}

/// One entry of the divergence stack: the block its lanes execute next, where they
/// reconverge (`None`: at the function's end), and which lanes it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
struct IpdEntry {
    pc: Option<Block>,
    reconverge: Option<Block>,
    lanes: Vec<bool>,
}

/// The immediate-post-dominator (IPD) stack of GPUs (Fung et al. 2007, thesis §5.4,
/// Fig. 5.6). Not a greedy policy: it ignores the legal list and the run reports
/// where it breaks a constraint.
///
/// The top entry's block runs next. When the lanes of the top entry leave its
/// block for one successor, the entry moves there (and is popped when that is its
/// reconvergence point). When they leave for several, the entry waits at the
/// block's immediate post-dominator, and one entry per successor is pushed with
/// that reconvergence point, successor 0 on top (so it runs first); lanes whose
/// successor is the post-dominator itself just wait in the entry below. Lanes with
/// ℓ_next = ⊤ (passive in the block) follow the first group. The stack knows only
/// its own bookkeeping; which lanes execute a block is still decided by the
/// control masks (Def. 6). An entry whose block nobody can execute is dropped;
/// with the stack empty and lanes left, the lowest pending block starts a new entry.
#[derive(Clone, Debug, Default)]
pub struct Ipd {
    stack: Vec<IpdEntry>,
    started: bool,
    update: bool,
}

impl Ipd {
    /// A fresh stack.
    pub fn new() -> Ipd {
        Ipd::default()
    }

    /// Moves the top entry after its block ran.
    fn after_step(&mut self, program: &Program<'_>, facts: &GreedyFacts, state: &State) {
        let Some(top) = self.stack.pop() else { return };
        let Some(pc) = top.pc else { return };
        let succs = &program.succs[pc];
        // Group the entry's lanes by where they go, in successor-index order.
        let mut groups: Vec<(Block, Vec<bool>)> = Vec::new();
        let mut any = vec![false; top.lanes.len()];
        for (t, &member) in top.lanes.iter().enumerate() {
            if !member {
                continue;
            }
            match &state.next[t] {
                Next::Done(_) => {}
                Next::Any => any[t] = true,
                Next::Block(s) => match groups.iter_mut().find(|(b, _)| b == s) {
                    Some((_, lanes)) => lanes[t] = true,
                    None => {
                        let mut lanes = vec![false; top.lanes.len()];
                        lanes[t] = true;
                        groups.push((*s, lanes));
                    }
                },
            }
        }
        let order = |b: &Block| succs.iter().position(|s| s == b).unwrap_or(usize::MAX);
        groups.sort_by_key(|(b, _)| order(b));
        if any.iter().any(|&a| a) {
            match groups.first_mut() {
                Some((_, lanes)) => {
                    for (l, a) in lanes.iter_mut().zip(&any) {
                        *l |= a;
                    }
                }
                None => {
                    if let Some(&s) = succs.first() {
                        groups.push((s, any));
                    }
                }
            }
        }
        match groups.len() {
            0 => {}
            1 => {
                let (s, lanes) = groups.remove(0);
                if Some(s) != top.reconverge {
                    self.stack.push(IpdEntry {
                        pc: Some(s),
                        reconverge: top.reconverge,
                        lanes,
                    });
                }
            }
            _ => {
                let r = facts.ipdom.get(pc.as_u32() as usize).copied().flatten();
                let mut all = vec![false; top.lanes.len()];
                for (_, lanes) in &groups {
                    for (a, l) in all.iter_mut().zip(lanes) {
                        *a |= l;
                    }
                }
                if r != top.reconverge || r.is_none() {
                    self.stack.push(IpdEntry {
                        pc: r,
                        reconverge: top.reconverge,
                        lanes: all,
                    });
                }
                for (s, lanes) in groups.into_iter().rev() {
                    if Some(s) != r {
                        self.stack.push(IpdEntry {
                            pc: Some(s),
                            reconverge: r,
                            lanes,
                        });
                    }
                }
            }
        }
    }
}

impl Scheduler for Ipd {
    fn pick(
        &mut self,
        program: &Program<'_>,
        facts: &GreedyFacts,
        state: &State,
        _: &[Block],
    ) -> Option<Block> {
        if !self.started {
            self.started = true;
            self.stack.push(IpdEntry {
                pc: program.body.entry(),
                reconverge: None,
                lanes: vec![true; state.width()],
            });
        } else if self.update {
            self.after_step(program, facts, state);
        }
        self.update = false;
        let runnable = |b: Block| {
            (0..state.width()).any(|t| cmask(program, state.incoming[t], &state.next[t], b))
        };
        while let Some(top) = self.stack.last() {
            match top.pc {
                Some(pc) if runnable(pc) => {
                    self.update = true;
                    return Some(pc);
                }
                _ => {
                    self.stack.pop();
                }
            }
        }
        let restart = pending(program, state)
            .into_iter()
            .min_by_key(|&b| facts.index_of(b))?;
        self.stack.push(IpdEntry {
            pc: Some(restart),
            reconverge: None,
            lanes: state.next.iter().map(|n| !n.is_done()).collect(),
        });
        self.update = true;
        Some(restart)
    }
    fn name(&self) -> String {
        "ipd".into()
    }
}

/// `--sched earliest`: the pending block earliest in layout order
/// ([`earliest_pending`]), with no greedy constraint checked. Not a
/// [`Scheduler`] (the scheduler loop checks every step): a launch's opt-in
/// (`crate::launch::Grid::scheduler`), the order launches had before their
/// arrays were checked. It is not always greedy: where the layout is not a
/// block index, or lanes that left a loop wait at a barrier after it, it runs
/// the block that is earliest in the file, not a legal one, and may end a
/// correct kernel in undefined behaviour.
pub const EARLIEST: &str = "earliest";

/// Why a run that is not a launch refuses [`EARLIEST`].
pub const EARLIEST_IS_FOR_LAUNCHES: &str = "earliest is the unchecked order of launches (--grid) only: it checks no greedy constraint, and a single run is always checked (lowest is the default)";

/// A built-in policy by its `--sched` name: `lowest`, `highest`, `random:SEED`,
/// `ipd`. (`replay:FILE` and `interactive` need IO or a callback: see [`Replay`]
/// and [`Interactive`].)
pub fn builtin(spec: &str) -> Result<Box<dyn Scheduler>, String> {
    match spec {
        "lowest" => Ok(Box::new(Lowest)),
        "highest" => Ok(Box::new(Highest)),
        "ipd" => Ok(Box::new(Ipd::new())),
        EARLIEST => Err(EARLIEST_IS_FOR_LAUNCHES.into()),
        other => match other.strip_prefix("random:") {
            Some(seed) => seed
                .trim()
                .parse::<u64>()
                .map(|s| Box::new(Random::new(s)) as Box<dyn Scheduler>)
                .map_err(|_| format!("random:SEED needs a number, not '{seed}'")),
            None => Err(format!(
                "unknown scheduler '{other}' (lowest, highest, random:SEED, replay:FILE, interactive, ipd)"
            )),
        },
    }
}
