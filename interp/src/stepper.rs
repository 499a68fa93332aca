//! A run that goes forward one scheduled block at a time and back again: what the
//! REPL steps (`step`, `run`, `continue`, `sched`, `back`), with no text of its own.
//!
//! A [`Stepper`] holds the run between commands as plain data: the execution state
//! σ (Def. 3), the steps so far, the latest rows of the trace, the divergence
//! record, how the run ended, the scheduling policy's own state, and a snapshot
//! per recent scheduled block so that [`Stepper::back`] restores earlier states
//! exactly. Each [`Stepper::advance`] builds the [`Machine`] for the module and the
//! [`RunConfig`] it is given (`Machine::new` is cheap and deterministic: globals
//! are allocated in module order), installs the state, and steps it with
//! [`Machine::checked_step`] ([LSS-W-STEP]); so the stepper borrows no module, and
//! every setting reaches the machine through the one `RunConfig`.
//!
//! What a stepper keeps is bounded, so that running a loop that never ends (up to
//! the step limit, a million blocks by default) does not exhaust the host: the
//! last [`BACK_DEPTH`] snapshots (fewer when the states are large: they stay
//! within [`SNAPSHOT_BUDGET`] bytes) and the last [`Stepper::trace_window`]
//! trace rows ([`trace::default_limit`], 10,000 up to W = 104, unless the front
//! end lowers it to fit the host).

use crate::config::RunConfig;
use crate::greedy::{GreedyFacts, Legality, Verdict, legal_blocks, legality};
use crate::machine::{Machine, Outcome, SetupError};
use crate::observe::DivergenceRecord;
use crate::trace::{self, TraceRow};
use pllvm_semantics::ir::{Block, Module};
use pllvm_semantics::rules::{Program, State};
use pllvm_semantics::value::Val;
use std::collections::VecDeque;

/// How many scheduled blocks [`Stepper::back`] can undo: the snapshots of the
/// last 1,000.
pub const BACK_DEPTH: usize = 1000;

/// Most bytes the snapshots for [`Stepper::back`] take, by [`snapshot_bytes`]'s
/// estimate: 256 MiB. Wide thread arrays of many values and large memories keep
/// fewer than [`BACK_DEPTH`] snapshots.
pub const SNAPSHOT_BUDGET: usize = 256 << 20;

/// A scheduling policy whose state can be kept in a snapshot (its generator,
/// replay position or IPD stack), so that stepping again after `back` picks the
/// same blocks.
pub trait StepPolicy: Clone {
    /// The next block, or why there is none. `legal` lists the blocks that keep
    /// the schedule greedy (Def. 12) in layout order; a policy may pick others.
    fn pick(
        &mut self,
        program: &Program<'_>,
        facts: &GreedyFacts,
        state: &State,
        legal: &[Block],
    ) -> Result<Block, String>;
}

/// What stops an [`Stepper::advance`] early, besides its budget and the run's end:
/// the REPL's Ctrl-C flag and breakpoints.
pub trait Watch {
    /// Whether the user asked to stop (checked before each block).
    fn interrupted(&mut self) -> bool;
    /// Checked before scheduling `block` (except the first block of the command):
    /// why not to schedule it, if so. The block is then not scheduled.
    fn stop_before(&mut self, program: &Program<'_>, block: Block) -> Option<String>;
    /// Checked after each scheduled block: why to stop there, if so.
    fn stop_after(&mut self, machine: &Machine<'_>) -> Option<String>;
}

/// How the blocks of one [`Stepper::advance`] are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drive {
    /// The policy picks up to this many blocks (`None`: until the end).
    Policy(Option<u64>),
    /// This block, once.
    Block(Block),
}

/// What one [`Stepper::advance`] did, besides the state, trace and outcome it left
/// in the stepper.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Advance {
    /// The step count before it.
    pub start: u64,
    /// Notes on its steps (a policy that chose a block that is not legal), each
    /// with the step count before the step.
    pub notes: Vec<(u64, String)>,
    /// Why it stopped before its budget or the run's end (interrupt, breakpoint,
    /// a policy with no block to give).
    pub stop: Option<String>,
    /// The block whose step ended the run in undefined behaviour or a limit (the
    /// state is the one before it).
    pub ended_at: Option<Block>,
    /// The block that could not be stepped (a stuck rule: a bug or ill-formed
    /// input), and why; the state is the one before it.
    pub failure: Option<(Block, String)>,
}

/// How far a [`Stepper::back`] went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Back {
    /// Steps undone (an attempt that ended the run counts as one).
    pub undone: u64,
    /// Steps asked for that could not be undone (no snapshot left).
    pub left: u64,
}

/// The state before one scheduled block, kept for [`Stepper::back`].
#[derive(Clone, Debug)]
struct Snapshot<P> {
    state: State,
    /// Blocks scheduled before this one.
    steps: u64,
    /// [`snapshot_bytes`] of the state.
    bytes: usize,
    divergence: DivergenceRecord,
    /// The policy before it picked this block.
    policy: P,
}

/// A run stepped block by block, with the snapshots to step back.
#[derive(Clone, Debug)]
pub struct Stepper<P> {
    /// The execution state σ (Def. 3).
    pub state: State,
    /// Blocks scheduled so far.
    pub steps: u64,
    /// The latest rows of the trace: row `k` is step `trace_first + k + 1`.
    pub trace: Vec<TraceRow>,
    /// Rows dropped from the front of the trace.
    pub trace_first: u64,
    /// The rows the trace keeps: the last `trace_window` at least, and at most
    /// twice as many (rows are dropped in batches). [`Stepper::new`] sets
    /// [`trace::default_limit`]; a front end may lower it to what the host's
    /// memory allows (the REPL does, `cli/src/repl/session.rs`).
    pub trace_window: usize,
    /// What the divergence observer has seen so far.
    pub divergence: DivergenceRecord,
    /// Why the run cannot go on: every lane returned, or the last attempted block
    /// had undefined behaviour or hit a limit (the state is then the one before it).
    pub ended: Option<Outcome>,
    /// The scheduling policy as it is now.
    pub policy: P,
    /// The snapshots of the last scheduled blocks, oldest first.
    snapshots: VecDeque<Snapshot<P>>,
    /// The sum of their [`Snapshot::bytes`].
    snapshots_bytes: usize,
}

impl<P: StepPolicy> Stepper<P> {
    /// The initial run of `module` under `config` (Def. 4), scheduled by `policy`.
    pub fn new(module: &Module, config: &RunConfig, policy: P) -> Result<Self, SetupError> {
        let m = Machine::new(module, config)?;
        Ok(Stepper {
            state: m.state,
            steps: 0,
            trace: Vec::new(),
            trace_first: 0,
            trace_window: trace::default_limit(config.threads),
            divergence: m.divergence,
            ended: None,
            policy,
            snapshots: VecDeque::new(),
            snapshots_bytes: 0,
        })
    }

    /// A machine for `module` under `config` holding the current state (with
    /// memory writes recorded in its trace rows).
    pub fn machine<'m>(
        &self,
        module: &'m Module,
        config: &RunConfig,
    ) -> Result<Machine<'m>, SetupError> {
        let mut m = Machine::new(module, config)?;
        m.record_writes = true;
        m.state = self.state.clone();
        m.divergence = self.divergence.clone();
        m.steps = self.steps;
        Ok(m)
    }

    /// How many snapshots are kept (how many steps [`Stepper::back`] can undo).
    pub fn snapshots(&self) -> usize {
        self.snapshots.len()
    }

    /// Forgets every snapshot.
    pub fn clear_snapshots(&mut self) {
        self.snapshots.clear();
        self.snapshots_bytes = 0;
    }

    /// Schedules blocks one [LSS-W-STEP] at a time through
    /// [`Machine::checked_step`], as `drive` says, keeping a snapshot before each.
    /// Stops at the budget, when every lane returned, at undefined behaviour or a
    /// limit (the state and policy stay the ones before that block; the outcome is
    /// [`Stepper::ended`]), or when `watch` says so. The policy is offered the
    /// legal blocks of [`legality`] (Def. 12-18, §5.3); it may pick another, which
    /// runs (Def. 5 allows any block) with a note.
    ///
    /// `Err` when the machine cannot be set up, or when the run has ended already.
    pub fn advance(
        &mut self,
        module: &Module,
        config: &RunConfig,
        facts: &GreedyFacts,
        drive: Drive,
        watch: &mut dyn Watch,
    ) -> Result<Advance, String> {
        if self.ended.is_some() {
            return Err("the run has ended".into());
        }
        let mut m = self.machine(module, config).map_err(|e| e.to_string())?;
        m.trace = std::mem::take(&mut self.trace);
        let window = self.trace_window.max(1);
        let mut report = Advance {
            start: self.steps,
            ..Advance::default()
        };
        let mut ended: Option<Outcome> = None;
        let mut k: u64 = 0;
        loop {
            if m.state.all_done() {
                ended = Some(Outcome::Returned);
                break;
            }
            if watch.interrupted() {
                report.stop = Some(format!("interrupted at step {}", m.steps));
                break;
            }
            let policy_before = self.policy.clone();
            let block = match drive {
                Drive::Block(b) if k == 0 => b,
                Drive::Block(_) => break,
                Drive::Policy(Some(n)) if k >= n => break,
                Drive::Policy(_) => {
                    let verdicts = legality(&m.program, facts, &m.state);
                    let legal = legal_blocks(&verdicts);
                    match self.policy.pick(&m.program, facts, &m.state, &legal) {
                        Ok(b) => {
                            // Replay and IPD may choose a block that is not legal: it
                            // runs (Def. 5 allows any block), with a note.
                            if let Some(Legality {
                                verdict: v @ Verdict::Illegal { .. },
                                ..
                            }) = verdicts.iter().find(|l| l.block == b)
                            {
                                report.notes.push((
                                    m.steps,
                                    format!(
                                        "note: the policy chose {}, which is not legal: {v}",
                                        m.program.block_name(b)
                                    ),
                                ));
                            }
                            b
                        }
                        Err(why) => {
                            report.stop = Some(why);
                            break;
                        }
                    }
                }
            };
            if k > 0
                && let Some(why) = watch.stop_before(&m.program, block)
            {
                // The block is not scheduled: the policy must pick it again.
                self.policy = policy_before;
                report.notes.retain(|(at, _)| *at < m.steps);
                report.stop = Some(why);
                break;
            }
            let snapshot = Snapshot {
                bytes: snapshot_bytes(&m.state, m.program.body.values.len()),
                state: m.state.clone(),
                steps: m.steps,
                divergence: m.divergence.clone(),
                policy: policy_before,
            };
            match m.checked_step(block) {
                Ok(None) => {
                    self.push_snapshot(snapshot);
                    k += 1;
                    // The trace keeps its last `window` rows (dropped in batches).
                    if m.trace.len() >= 2 * window {
                        let drop = m.trace.len() - window;
                        m.trace.drain(..drop);
                        self.trace_first += drop as u64;
                    }
                    if let Some(why) = watch.stop_after(&m) {
                        report.stop = Some(why);
                        if m.state.all_done() {
                            ended = Some(Outcome::Returned);
                        }
                        break;
                    }
                }
                Ok(Some(outcome)) => {
                    // Undefined behaviour or a limit: keep the state (and the
                    // policy) before the block.
                    m.state = snapshot.state;
                    m.divergence = snapshot.divergence;
                    self.policy = snapshot.policy;
                    if let Outcome::Undefined(_) | Outcome::Limit(_) = outcome {
                        report.ended_at = Some(block);
                    }
                    ended = Some(outcome);
                    break;
                }
                Err(e) => {
                    m.state = snapshot.state;
                    m.divergence = snapshot.divergence;
                    self.policy = snapshot.policy;
                    report.failure = Some((block, e.to_string()));
                    break;
                }
            }
        }
        self.state = m.state;
        self.steps = m.steps;
        self.trace = m.trace;
        self.divergence = m.divergence;
        if report.failure.is_none() {
            self.ended = ended;
        }
        Ok(report)
    }

    /// Restores the state before the `n`-th last scheduled block. An attempt that
    /// ended the run in undefined behaviour, a limit or out of fuel counts as one
    /// step (undoing it clears the outcome only).
    pub fn back(&mut self, n: u64) -> Back {
        let mut left = n;
        let mut undone = 0u64;
        if left > 0
            && matches!(
                self.ended,
                Some(Outcome::Undefined(_) | Outcome::Limit(_) | Outcome::OutOfFuel)
            )
        {
            self.ended = None;
            left -= 1;
            undone += 1;
        }
        let mut target: Option<Snapshot<P>> = None;
        while left > 0 {
            let Some(s) = self.snapshots.pop_back() else {
                break;
            };
            self.snapshots_bytes -= s.bytes;
            target = Some(s);
            left -= 1;
            undone += 1;
        }
        if let Some(s) = target {
            self.state = s.state;
            self.steps = s.steps;
            if s.steps < self.trace_first {
                self.trace.clear();
                self.trace_first = s.steps;
            } else {
                self.trace.truncate((s.steps - self.trace_first) as usize);
            }
            self.divergence = s.divergence;
            self.policy = s.policy;
            self.ended = None;
        }
        Back { undone, left }
    }

    /// Keeps `snapshot` for `back`, forgetting the oldest ones beyond
    /// [`BACK_DEPTH`] or [`SNAPSHOT_BUDGET`] (the newest is always kept).
    fn push_snapshot(&mut self, snapshot: Snapshot<P>) {
        self.snapshots_bytes += snapshot.bytes;
        self.snapshots.push_back(snapshot);
        while self.snapshots.len() > 1
            && (self.snapshots.len() > BACK_DEPTH || self.snapshots_bytes > SNAPSHOT_BUDGET)
        {
            if let Some(old) = self.snapshots.pop_front() {
                self.snapshots_bytes -= old.bytes;
            }
        }
    }
}

/// An estimate of the host bytes a snapshot of `state` takes: every lane of the
/// `values` columns and of the control state, and the bytes of memory.
pub fn snapshot_bytes(state: &State, values: usize) -> usize {
    let lanes = state.width().max(1);
    let columns = values + 2;
    let cell = std::mem::size_of::<Val>();
    let mem = usize::try_from(state.mem.live_bytes()).unwrap_or(usize::MAX);
    (lanes * columns * cell)
        .saturating_add(mem.saturating_mul(std::mem::size_of::<pllvm_semantics::memory::Byte>()))
}
