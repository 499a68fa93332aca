//! Work efficiency of a run (BENCHMARKS.md, "Vectorizing transforms: work
//! efficiency against full if-conversion", beside what thesis Ch. 13 reports for
//! RV): how many blocks the schedule ran, how many instructions a SIMD
//! machine issues for them (one per phi and command of each scheduled block,
//! whatever the activation), how many of those lane slots did useful work (the
//! active lanes, amsk^W of Def. 8), and so the share of active lanes.
//!
//! A transform that linearizes more issues more instructions with fewer active
//! lanes each; one that keeps uniform branches (partial linearization, Theorem 5)
//! or skips all-false regions (BOSCC, §9.2) issues fewer. The counts come from
//! the trace the machine records, row by row ([`Work::of_trace`]).

use crate::config::RunConfig;
use crate::machine::{Machine, Outcome};
use crate::trace::TraceRow;
use pllvm_semantics::ir::{Body, Module};
use pllvm_semantics::value::Val;

/// The counts of one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// W.
    pub width: usize,
    /// Blocks scheduled (trace rows).
    pub scheduled_blocks: u64,
    /// Phis and commands of the scheduled blocks, each counted once per
    /// scheduling: the instructions a SIMD machine issues.
    pub issued: u64,
    /// Σ over issued instructions of the lanes active in their block: the lane
    /// slots that did work the original program asked for.
    pub active_lane_insts: u64,
}

impl Work {
    /// The counts of a recorded trace of `body` on `width` lanes.
    pub fn of_trace(body: &Body, trace: &[TraceRow], width: usize) -> Work {
        let mut work = Work {
            width,
            ..Work::default()
        };
        for row in trace {
            let data = &body.blocks[row.scheduled];
            let insts = (data.phis.len() + data.body.len()) as u64;
            let active = row.active.iter().filter(|&&a| a).count() as u64;
            work.scheduled_blocks += 1;
            work.issued += insts;
            work.active_lane_insts += insts * active;
        }
        work
    }

    /// `active_lane_insts / (issued × W)`: the share of issued lane slots that
    /// were active (1.0 when nothing was issued).
    pub fn active_share(&self) -> f64 {
        let slots = self.issued as f64 * self.width as f64;
        if slots == 0.0 {
            1.0
        } else {
            self.active_lane_insts as f64 / slots
        }
    }
}

/// Runs the program `config` selects with the default greedy scheduler (lowest
/// block index, the order partial linearization realizes) and counts its work.
/// Returns the outcome, the counts and every lane's result.
pub fn measure(
    module: &Module,
    config: &RunConfig,
) -> Result<(Outcome, Work, Vec<Option<Val>>), String> {
    let mut machine = Machine::new(module, config).map_err(|e| e.to_string())?;
    machine.record_trace = true;
    machine.trace_limit = None;
    let outcome = machine.run_to_end().map_err(|e| e.to_string())?;
    let body = machine.program.body;
    let work = Work::of_trace(body, &machine.trace, config.threads);
    Ok((outcome, work, machine.results()))
}
