//! `exec`: fast execution is the definition (docs/design/overview.md "Oracles: what checks what";
//! `proofs/tests/whole_run_equivalence.rs`): a run with `Exec::Fast` (the
//! fast forms of `semantics/src/fast/`) and one with `Exec::Reference` (every
//! rule lane by lane, thesis Ch. 4) of the same case along the same schedule
//! (a seeded random greedy one for a quarter of the seeds, the earliest
//! pending block otherwise) are the same run: the same schedule, trace rows
//! (ℓ_in^W, ℓ_next^W, the masks, i^W, every value written), outcome, results,
//! memory and final Δ^W. Cases alternate FREEZING and OBLIVIOUS and turn strict
//! mode (Def. 10-11) on for a third of the seeds.

use super::case::Case;
use super::oracle::{Host, Oracle, Verdict};
use crate::GenConfig;
use pllvm_interp::sched::{Lowest, Random};
use pllvm_interp::trace::TraceRow;
use pllvm_interp::{Machine, RunConfig};
use pllvm_semantics::memory::Memory;
use pllvm_semantics::rules::{Exec as Mode, Interp};
use pllvm_semantics::value::Val;

/// The `exec` oracle.
pub struct Exec;

/// What a whole run shows.
#[derive(PartialEq)]
struct WholeRun {
    outcome: String,
    schedule: Vec<String>,
    trace: Vec<TraceRow>,
    results: Vec<Option<Val>>,
    memory: Memory,
    env: Vec<Vec<Val>>,
}

fn whole_run(case: &Case, config: &RunConfig, mode: Mode) -> Result<WholeRun, String> {
    let config = RunConfig {
        exec: mode,
        ..config.clone()
    };
    let mut m = Machine::new(case.module(), &config).map_err(|e| format!("setup: {e}"))?;
    m.record_trace = true;
    m.record_writes = true;
    // Every run is a checked greedy schedule (Ch. 5): a quarter of the seeds
    // take a seeded random one, the others `lowest` (the default of `run`),
    // both recorded.
    let run = if case.seed.is_multiple_of(4) {
        m.run_with(&mut Random::new(case.seed ^ 0x51))
    } else {
        m.run_with(&mut Lowest)
    };
    let (outcome, schedule) = match run {
        Ok(run) => (
            run.outcome.to_string(),
            run.schedule
                .iter()
                .map(|&b| m.program.block_name(b).to_string())
                .collect(),
        ),
        Err(e) => (format!("error: {e}"), Vec::new()),
    };
    let values: Vec<_> = m.program.body.values.keys().collect();
    Ok(WholeRun {
        outcome,
        schedule,
        trace: m.trace.clone(),
        results: m.results(),
        memory: m.state.mem.clone(),
        env: values
            .iter()
            .map(|&v| m.state.env.get(v).into_owned())
            .collect(),
    })
}

impl Oracle for Exec {
    fn name(&self) -> &'static str {
        "exec"
    }

    fn available(&self, _: &Host) -> Result<(), String> {
        Ok(())
    }

    fn gen_config(&self) -> GenConfig {
        GenConfig::full()
    }

    fn width(&self, seed: u64) -> usize {
        [1, 2, 3, 4, 5, 8, 13][(seed % 7) as usize]
    }

    fn check(&self, case: &Case) -> Verdict {
        let interp = if case.seed.is_multiple_of(2) {
            Interp::Freezing
        } else {
            Interp::Oblivious
        };
        let mut config = case.run_config(interp);
        config.strict = case.seed.is_multiple_of(3);
        config.max_steps = 2_000;
        let (reference, fast) = match (
            whole_run(case, &config, Mode::Reference),
            whole_run(case, &config, Mode::Fast),
        ) {
            (Ok(r), Ok(f)) => (r, f),
            (Err(e), _) | (_, Err(e)) => return Verdict::Skip(e),
        };
        if reference == fast {
            return Verdict::Pass;
        }
        let how = format!("{interp:?}{}", if config.strict { ", strict" } else { "" });
        if let Some(k) = (0..reference.trace.len().min(fast.trace.len()))
            .find(|&k| reference.trace[k] != fast.trace[k])
        {
            return Verdict::fail(
                "fast differs: trace",
                format!(
                    "{how}: trace row {k} differs:\n  reference {:?}\n  fast      {:?}",
                    reference.trace[k], fast.trace[k]
                ),
            );
        }
        let fields = [
            ("outcome", reference.outcome == fast.outcome),
            ("schedule", reference.schedule == fast.schedule),
            ("trace length", reference.trace.len() == fast.trace.len()),
            ("results", reference.results == fast.results),
            ("memory", reference.memory == fast.memory),
            ("final env", reference.env == fast.env),
        ];
        let differ: Vec<&str> = fields.iter().filter(|f| !f.1).map(|f| f.0).collect();
        Verdict::fail(
            format!("fast differs: {}", differ.first().copied().unwrap_or("?")),
            format!(
                "{how}: {} differ (outcomes: reference {}, fast {})",
                differ.join(", "),
                reference.outcome,
                fast.outcome
            ),
        )
    }
}
