//! The lowest path of §5.3's fast check ([`crate::greedy::lowest_path_escapes`]) kept
//! from one step of a run to the next, so that a run whose scheduler follows the
//! lowest path itself (the `lowest` policy) checks termination preservation at
//! the cost of about one extra step per step, instead of following up to
//! `termination_budget + 1` states at every choice.
//!
//! # Why the kept path answers as the fresh one would
//! `lowest_path_escapes(σ, b)` steps `b` on a copy of σ, then always the
//! candidate (Def. 14 and 17) of lowest block index (§2.5), and answers from the
//! sequence of states s₁, s₂, … it passes: `true` at the first step that ends the
//! run (every lane terminated, undefined behaviour, a limit) or once it has
//! hashed `budget + 1` distinct states; `false` at the first repeated hash or
//! when no candidate is left. Each sᵢ₊₁ is a function of sᵢ alone ([LSS-W-STEP]
//! is deterministic, and the lowest candidate is a function of the state), so
//! the path from sᵢ is the suffix of the path from σ. A run that schedules `b`
//! in σ is in s₁; if it then schedules the lowest candidate again, it is in s₂,
//! and so on: the path it needs at its next choice is the one already computed,
//! minus its first element, plus whatever lies beyond. [`LowestPath`] keeps the
//! blocks and hashes of the path from the run's current state, the state at its
//! far end, and a count of the hashes among its first `budget + 1` elements (the
//! window the fresh check would look at), so that each answer costs the steps
//! that extend the window, not the window.
//!
//! The run must tell the path every block it schedules ([`LowestPath::advance`]);
//! a block other than the path's next one drops the path, and the next question
//! starts a fresh one. `proofs/tests/greedy_fast_checks.rs` checks the answers
//! against [`crate::greedy::lowest_path_escapes`] on generated programs, and
//! whole runs against the checks of every block at every step.

use crate::greedy::{GreedyFacts, GreedyWork, candidates, state_hash};
use pllvm_semantics::ir::Block;
use pllvm_semantics::rules::step::lss_w_step;
use pllvm_semantics::rules::{Program, Scratch, State};
use std::collections::{HashMap, VecDeque};

/// The lowest path from a run's current state (see the module documentation).
#[derive(Default)]
pub struct LowestPath {
    /// The path's steps from the run's state: the block, and the hash of the
    /// state after it, `None` when the step ends the run (then it is the last).
    steps: VecDeque<(Block, Option<u64>)>,
    /// The state after the last step, while the path can go on; `None` once it
    /// ended, or when no candidate is left after it (the path is stuck).
    far_end: Option<State>,
    /// How often each hash occurs among the first `window` steps.
    counts: HashMap<u64, u32>,
    /// How many leading steps are counted: at most `budget + 1`, none past a
    /// step that ends the run.
    window: usize,
    /// Occurrences in the window beyond the first of their hash.
    repeats: usize,
    /// The hash of the run's state, when the step that led there was the path's.
    here: Option<u64>,
    /// Buffers for stepping the far end.
    scratch: Scratch,
}

impl LowestPath {
    /// An empty path (the first question starts one).
    pub fn new() -> LowestPath {
        LowestPath::default()
    }

    /// `lowest_path_escapes(program, facts, state, b)`, from the kept path when
    /// it starts with `b` in `state`: every block the run scheduled since the
    /// path was started must have been passed to [`LowestPath::advance`].
    pub fn escapes(
        &mut self,
        program: &Program<'_>,
        facts: &GreedyFacts,
        state: &State,
        b: Block,
    ) -> bool {
        if self.steps.front().map(|&(first, _)| first) != Some(b) {
            self.clear();
            self.far_end = Some(state.clone());
            self.extend(program, facts, Some(b));
        }
        let capacity = facts.termination_budget.saturating_add(1);
        self.fill(program, facts, capacity);
        self.repeats == 0
            && (self.window == capacity
                || self
                    .steps
                    .get(self.window)
                    .is_some_and(|&(_, hash)| hash.is_none()))
    }

    /// The run scheduled `b`: the path now starts one step later, or is dropped
    /// when `b` is not its next block.
    pub fn advance(&mut self, b: Block) {
        match self.steps.front() {
            Some(&(first, hash)) if first == b => {
                self.steps.pop_front();
                if self.window > 0 {
                    self.window -= 1;
                    if let Some(h) = hash {
                        self.uncount(h);
                    }
                }
                if self.steps.is_empty() {
                    self.clear();
                }
                self.here = hash;
            }
            _ => self.clear(),
        }
    }

    /// [`state_hash`] of the run's state, known without hashing it when the
    /// run's last step was the path's first ([`LowestPath::advance`]).
    pub fn hash_here(&self) -> Option<u64> {
        self.here
    }

    /// Drops the path.
    pub fn clear(&mut self) {
        self.steps.clear();
        self.far_end = None;
        self.counts.clear();
        self.window = 0;
        self.repeats = 0;
        self.here = None;
    }

    /// How many steps the path holds (for tests of the work it keeps).
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether the path holds no step.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Counts steps into the window until it holds `capacity` hashes, reaches a
    /// step that ends the run, or shows a repeat (the answer is then `false`
    /// whatever follows), extending the path where it is too short.
    fn fill(&mut self, program: &Program<'_>, facts: &GreedyFacts, capacity: usize) {
        while self.window < capacity && self.repeats == 0 {
            match self.steps.get(self.window) {
                Some(&(_, Some(h))) => {
                    *self.counts.entry(h).or_insert(0) += 1;
                    if self.counts[&h] > 1 {
                        self.repeats += 1;
                    }
                    self.window += 1;
                }
                Some(&(_, None)) => return,
                None if self.far_end.is_some() => self.extend(program, facts, None),
                None => return,
            }
        }
    }

    fn uncount(&mut self, h: u64) {
        if let Some(n) = self.counts.get_mut(&h) {
            if *n > 1 {
                self.repeats -= 1;
            }
            *n -= 1;
            if *n == 0 {
                self.counts.remove(&h);
            }
        }
    }

    /// One more step at the far end: `first` for a fresh path, otherwise the
    /// candidate of lowest block index, as `lowest_path_escapes` chooses.
    fn extend(&mut self, program: &Program<'_>, facts: &GreedyFacts, first: Option<Block>) {
        let Some(state) = self.far_end.as_mut() else {
            return;
        };
        let at = match first {
            Some(b) => b,
            None => match candidates(program, facts, state)
                .into_iter()
                .min_by_key(|&n| facts.index_of(n))
            {
                Some(n) => n,
                None => {
                    self.far_end = None; // stuck: the answer is `false`
                    return;
                }
            },
        };
        let step = lss_w_step(
            program,
            facts.interp,
            facts.exec,
            at,
            state,
            &mut self.scratch,
            false,
        );
        if step.is_err() || state.all_done() {
            self.steps.push_back((at, None));
            self.far_end = None;
            return;
        }
        GreedyWork::add(&facts.work().search_states, 1);
        self.steps.push_back((at, Some(state_hash(state))));
    }
}
