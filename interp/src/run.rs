//! The scheduler loop and the machine's run wrappers, in one place: [`run_with`]
//! runs a machine with a [`Scheduler`] while checking every step against the
//! greedy-schedule constraints of Ch. 5 ([`crate::greedy`]), [`run_checked`]
//! checks a given runtime schedule (Def. 5), and the `Machine::run_*` methods
//! below wrap them for the common cases.
//!
//! This module sits above [`crate::machine`] (one step with fuel,
//! [`Machine::checked_step`]) and [`crate::sched`] (the policies): neither imports
//! it back.

use crate::greedy::{
    GreedyFacts, Legality, Verdict, legal_blocks, pending_legality, pending_verdicts,
    rule_out_spins, state_hash, verdict_of,
};
use crate::lowest_path::LowestPath;
use crate::machine::{Machine, Outcome, RunError};
use crate::sched::{Lowest, Scheduler, earliest_pending};
use pllvm_semantics::ir::Block;
use pllvm_semantics::rules::{Program, State};
use std::collections::HashMap;

impl Machine<'_> {
    /// Runs until every lane terminates with the greedy `lowest` policy (lowest
    /// block index among the legal blocks of Ch. 5, with spin detection, §5.3): the
    /// order partial linearization realizes, and a greedy schedule, so every lane
    /// whose own run terminates terminates here.
    pub fn run_to_end(&mut self) -> Result<Outcome, RunError> {
        Ok(self.run_with(&mut Lowest)?.outcome)
    }

    /// Runs until every lane terminates, always scheduling the pending block that
    /// comes first in layout order ([`earliest_pending`]) and checking
    /// no greedy constraint. Fast, for benchmarks of the rules themselves; it can
    /// spin where the layout is not a block index (a lane waiting at the exit of a
    /// loop whose predicate masks the other lanes off), which `max_steps` ends.
    pub fn run_earliest_pending(&mut self) -> Result<Outcome, RunError> {
        loop {
            if self.state.all_done() {
                return Ok(Outcome::Returned);
            }
            let Some(b) = earliest_pending(&self.program, &self.state) else {
                return Ok(Outcome::Incomplete);
            };
            if let Some(outcome) = self.checked_step(b)? {
                return Ok(outcome);
            }
        }
    }

    /// Runs to the end with `scheduler`, checking every step against the greedy
    /// constraints of Ch. 5 (see [`run_with`]; the facts are computed
    /// for this machine's interpretation).
    pub fn run_with(&mut self, scheduler: &mut dyn Scheduler) -> Result<ScheduledRun, RunError> {
        let facts = GreedyFacts::compute(&self.program)
            .with_interp(self.interp)
            .with_exec(self.exec);
        run_with(self, &facts, scheduler)
    }

    /// Executes a runtime schedule (Def. 5) of block names like
    /// [`Machine::run_schedule`], and reports every step that is not greedy
    /// (Def. 12-18, see [`run_checked`]).
    pub fn run_schedule_checked(&mut self, schedule: &[String]) -> Result<ScheduledRun, RunError> {
        let blocks = self.schedule_blocks(schedule)?;
        let facts = GreedyFacts::compute(&self.program)
            .with_interp(self.interp)
            .with_exec(self.exec);
        run_checked(self, &facts, &blocks)
    }
}

/// A step that broke a greedy constraint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepViolation {
    /// The step's number, 1-based (the row of the trace).
    pub step: usize,
    /// The block and the verdict on it (always [`Verdict::Illegal`]).
    pub legality: Legality,
}

impl StepViolation {
    /// `step 2: C: not synchronizing (Def. 17): lane 1 waits at B, ...`.
    pub fn render(&self, program: &Program<'_>) -> String {
        format!("step {}: {}", self.step, self.legality.render(program))
    }
}

/// What a checked run did.
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduledRun {
    /// How it ended.
    pub outcome: Outcome,
    /// The blocks it scheduled.
    pub schedule: Vec<Block>,
    /// Every step that was not greedy, in order.
    pub violations: Vec<StepViolation>,
}

impl ScheduledRun {
    /// The first step that was not greedy.
    pub fn first_violation(&self) -> Option<&StepViolation> {
        self.violations.first()
    }
}

/// Spin detection by state repetition (§5.3): how often each block was chosen in
/// each state where there was a choice. A state seen again means the schedule is
/// going round a cycle; offering only the blocks chosen least often there makes the
/// run fair, so it leaves every cycle from which some schedule terminates.
#[derive(Debug, Default)]
struct SpinGuard {
    chosen: HashMap<u64, Vec<(Block, u32)>>,
}

impl SpinGuard {
    fn key(state: &State) -> u64 {
        state_hash(state)
    }

    /// The legal blocks the scheduler is offered in `state`.
    fn offer(&self, key: Option<u64>, legal: &[Block]) -> Vec<Block> {
        let Some(counts) = key.and_then(|k| self.chosen.get(&k)) else {
            return legal.to_vec();
        };
        let count = |b: Block| counts.iter().find(|(c, _)| *c == b).map_or(0, |&(_, n)| n);
        let least = legal.iter().map(|&b| count(b)).min().unwrap_or(0);
        legal
            .iter()
            .copied()
            .filter(|&b| count(b) == least)
            .collect()
    }

    fn record(&mut self, key: Option<u64>, b: Block) {
        let Some(k) = key else { return };
        let counts = self.chosen.entry(k).or_default();
        match counts.iter_mut().find(|(c, _)| *c == b) {
            Some((_, n)) => *n += 1,
            None => counts.push((b, 1)),
        }
    }
}

/// Runs `machine` to the end with `scheduler`: at every step the scheduler is
/// offered the legal blocks of [`crate::greedy::legality`] (minus, in a state seen before, the
/// blocks already chosen there more often than others: spin detection, §5.3).
/// Whatever it picks is executed; a pick outside the offer is recorded as a
/// violation. Ends when every lane terminated, when the scheduler answers `None`
/// (outcome incomplete), or with the run's outcome.
///
/// A policy that picks the lowest block index ([`Scheduler::lowest_first`]) is
/// offered only the block it would pick, checked along the lowest path the run
/// itself follows ([`LowestPath`]); the schedule, the outcome and the violations
/// are those of [`run_with_reference`], which checks every pending block in full
/// at every step (`interp/tests` compares the two on generated programs).
pub fn run_with(
    machine: &mut Machine<'_>,
    facts: &GreedyFacts,
    scheduler: &mut dyn Scheduler,
) -> Result<ScheduledRun, RunError> {
    let along_lowest = scheduler.lowest_first();
    drive(machine, facts, scheduler, along_lowest)
}

/// [`run_with`] with every pending block checked in full (Def. 14, 17, §5.3) at
/// every step, whatever the policy: the definition the fast path of `run_with`
/// is checked against.
pub fn run_with_reference(
    machine: &mut Machine<'_>,
    facts: &GreedyFacts,
    scheduler: &mut dyn Scheduler,
) -> Result<ScheduledRun, RunError> {
    drive(machine, facts, scheduler, false)
}

/// What the scheduler is offered in one state, and the verdicts behind it.
struct Offer {
    /// The verdicts of the pending blocks (§5.3 included unless the offer was
    /// checked along the lowest path).
    verdicts: Vec<Legality>,
    /// The spin guard's key of the state, when it keeps one.
    key: Option<u64>,
    /// The blocks offered.
    blocks: Vec<Block>,
}

/// Every legal block of `state` (Def. 14, 17 and §5.3), less those the spin
/// guard holds back.
fn full_offer(machine: &Machine<'_>, facts: &GreedyFacts, spin: &SpinGuard) -> Offer {
    // The pending blocks' verdicts; every other block stalls (Def. 14).
    let verdicts = pending_legality(&machine.program, facts, &machine.state);
    let legal = legal_blocks(&verdicts);
    // Only a state from which a lane can still reach a back edge or a
    // predicated block can come round again (see
    // `crate::greedy::termination_preserving`): elsewhere no key is kept,
    // which spares hashing the whole state at every choice.
    let key = (legal.len() >= 2 && facts.may_spin(&machine.state))
        .then(|| SpinGuard::key(&machine.state));
    let blocks = spin.offer(key, &legal);
    Offer {
        verdicts,
        key,
        blocks,
    }
}

/// The block a lowest-first policy picks among the legal blocks the spin guard
/// offers, found without deciding §5.3 for every candidate: the candidates
/// (Def. 14, 17) the guard offers, lowest block index first; the first whose
/// lowest path escapes (`lowest_path_escapes`, answered by `path`) cannot break
/// §5.3, and is offered alone. Equal to the lowest block of [`full_offer`]:
/// with L the legal blocks and C ⊇ L the candidates, the guard offers from C
/// the blocks of least count; if the lowest of them, b, escapes, b ∈ L, so its
/// count is also least in L and b is offered from L; every block offered from L
/// has that least count, so it is offered from C too and its index is not below
/// b's. When b does not escape, the full offer is made (the key is then also
/// kept where only one candidate proves legal, which changes no choice: in such
/// a state the guard offers that one block).
fn lowest_offer(
    machine: &Machine<'_>,
    facts: &GreedyFacts,
    spin: &SpinGuard,
    path: &mut LowestPath,
) -> Offer {
    let state = &machine.state;
    let program = &machine.program;
    let mut verdicts = pending_verdicts(program, facts, state);
    let candidates = legal_blocks(&verdicts);
    if candidates.len() < 2 || facts.termination_budget == 0 || !facts.may_spin(state) {
        // `termination_preserving` rules nothing out here: the candidates are
        // the legal blocks.
        return Offer {
            verdicts,
            key: None,
            blocks: candidates,
        };
    }
    let key = Some(path.hash_here().unwrap_or_else(|| SpinGuard::key(state)));
    let offered = spin.offer(key, &candidates);
    let lowest = offered.iter().copied().min_by_key(|&b| facts.index_of(b));
    match lowest {
        Some(b) if path.escapes(program, facts, state, b) => Offer {
            verdicts,
            key,
            blocks: vec![b],
        },
        _ => {
            rule_out_spins(program, facts, state, &mut verdicts);
            let legal = legal_blocks(&verdicts);
            let blocks = spin.offer(key, &legal);
            Offer {
                verdicts,
                key,
                blocks,
            }
        }
    }
}

/// The scheduler loop between two steps: the spin guard (§5.3) and the lowest
/// path kept for a lowest-first policy. [`run_with`] drives a whole run with
/// it; a caller that steps a machine itself (the soundness checker, which feeds
/// an observer at every step) asks it for each block and reports each step.
pub struct Chooser<'f> {
    facts: &'f GreedyFacts,
    spin: SpinGuard,
    path: LowestPath,
    along_lowest: bool,
}

impl<'f> Chooser<'f> {
    /// A chooser for runs checked with `facts`; `along_lowest`: the policy
    /// picks the lowest block index ([`Scheduler::lowest_first`]), so §5.3 is
    /// checked along its own path.
    pub fn new(facts: &'f GreedyFacts, along_lowest: bool) -> Chooser<'f> {
        Chooser {
            facts,
            spin: SpinGuard::default(),
            path: LowestPath::new(),
            along_lowest,
        }
    }

    /// The block `scheduler` picks in the machine's state, with the verdict
    /// that makes it a violation when it is not greedy; `None` when the
    /// scheduler answers `None`. The caller steps the block and then calls
    /// [`Chooser::stepped`].
    pub fn choose(
        &mut self,
        machine: &Machine<'_>,
        scheduler: &mut dyn Scheduler,
    ) -> Option<(Block, Option<Legality>)> {
        let facts = self.facts;
        let Offer {
            verdicts,
            key,
            blocks: offered,
        } = if self.along_lowest {
            lowest_offer(machine, facts, &self.spin, &mut self.path)
        } else {
            full_offer(machine, facts, &self.spin)
        };
        let b = scheduler.pick(&machine.program, facts, &machine.state, &offered)?;
        let violation = (!offered.contains(&b)).then(|| {
            verdicts
                .iter()
                .find(|l| l.block == b)
                .cloned()
                .or_else(|| {
                    let l = verdict_of(&machine.program, facts, &machine.state, b);
                    (machine.program.layout_pos[b].is_some()).then_some(l)
                })
                .filter(|l| !l.is_legal())
                .unwrap_or_else(|| spin_violation(&machine.program, b, &offered))
        });
        self.spin.record(key, b);
        Some((b, violation))
    }

    /// The caller scheduled `b`, the block [`Chooser::choose`] answered.
    pub fn stepped(&mut self, b: Block) {
        self.path.advance(b);
    }
}

/// The scheduler loop of [`run_with`] and [`run_with_reference`].
fn drive(
    machine: &mut Machine<'_>,
    facts: &GreedyFacts,
    scheduler: &mut dyn Scheduler,
    along_lowest: bool,
) -> Result<ScheduledRun, RunError> {
    let mut run = ScheduledRun {
        outcome: Outcome::Incomplete,
        schedule: Vec::new(),
        violations: Vec::new(),
    };
    let mut chooser = Chooser::new(facts, along_lowest);
    loop {
        if machine.state.all_done() {
            run.outcome = Outcome::Returned;
            return Ok(run);
        }
        let Some((b, violation)) = chooser.choose(machine, scheduler) else {
            run.outcome = Outcome::Incomplete;
            return Ok(run);
        };
        if let Some(legality) = violation {
            let step = run.schedule.len() + 1;
            run.violations.push(StepViolation { step, legality });
        }
        chooser.stepped(b);
        run.schedule.push(b);
        if let Some(outcome) = machine.checked_step(b)? {
            run.outcome = outcome;
            return Ok(run);
        }
    }
}

/// The verdict on a legal block the spin guard did not offer.
fn spin_violation(program: &Program<'_>, b: Block, offered: &[Block]) -> Legality {
    let others: Vec<&str> = offered.iter().map(|&o| program.block_name(o)).collect();
    Legality {
        block: b,
        verdict: Verdict::Illegal {
            definition: "§5.3",
            lane: None,
            why: format!(
                "this state was seen before and {} was chosen in it more often than {}: the schedule spins (state repetition)",
                program.block_name(b),
                others.join(", ")
            ),
        },
    }
}

/// Executes a given runtime schedule (Def. 5) and checks every step against
/// [`crate::greedy::legality`]: the run executes every listed block (a runtime schedule may be
/// any block list) and records each step that is not greedy.
pub fn run_checked(
    machine: &mut Machine<'_>,
    facts: &GreedyFacts,
    schedule: &[Block],
) -> Result<ScheduledRun, RunError> {
    let mut run = ScheduledRun {
        outcome: Outcome::Incomplete,
        schedule: Vec::new(),
        violations: Vec::new(),
    };
    for &b in schedule {
        let verdicts = pending_legality(&machine.program, facts, &machine.state);
        let verdict = match verdicts.into_iter().find(|l| l.block == b) {
            Some(l) => Some(l),
            // Not pending: Def. 14 rules it out (a block outside the layout has
            // no verdict, as in `legality`).
            None => (machine.program.layout_pos[b].is_some())
                .then(|| verdict_of(&machine.program, facts, &machine.state, b)),
        };
        if let Some(l) = verdict.filter(|l| !l.is_legal()) {
            run.violations.push(StepViolation {
                step: run.schedule.len() + 1,
                legality: l,
            });
        }
        run.schedule.push(b);
        if let Some(outcome) = machine.checked_step(b)? {
            run.outcome = outcome;
            return Ok(run);
        }
    }
    run.outcome = if machine.state.all_done() {
        Outcome::Returned
    } else {
        Outcome::Incomplete
    };
    Ok(run)
}
