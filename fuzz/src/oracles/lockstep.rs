//! `lockstep`: lock step is transparent under FREEZING (thesis §4.5,
//! docs/design/overview.md "Oracles: what checks what";
//! `proofs/tests/lock_step_transparency.rs`): on lane-local programs
//! (`GenConfig::lane_local`: no horizontal builtins, no `mask()`, the thread id as the
//! parameter `%tid`) an FR run of W lanes gives every lane the return value, and leaves
//! in the lane's own slices of the written buffers the elements, that a run of that
//! lane alone (W = 1) on the same inputs gives.

use super::case::Case;
use super::oracle::{Host, Oracle, Verdict};
use crate::GenConfig;
use pllvm_interp::{Machine, Outcome};
use pllvm_semantics::rules::Interp;
use pllvm_semantics::value::Val;

/// The `lockstep` oracle.
pub struct LockStep;

/// Each lane's result and each buffer's elements after a run.
type Leftovers = (Vec<Option<Val>>, Vec<Vec<Val>>);

/// What an FR run leaves, or the outcome when it is not `returned`.
fn run(case: &Case) -> Result<Leftovers, String> {
    let mut config = case.run_config(Interp::Freezing);
    config.observe = false;
    let mut m = Machine::new(case.module(), &config).map_err(|e| format!("setup: {e}"))?;
    // The checked greedy default of `run` (`lowest`, Ch. 5).
    let outcome = m.run_to_end().map_err(|e| format!("run: {e}"))?;
    if outcome != Outcome::Returned {
        return Err(format!("outcome: {outcome}"));
    }
    let contents = m.global_contents();
    let mut buffers = Vec::new();
    for spec in &case.program.buffers {
        let global = contents
            .iter()
            .find(|g| g.name.strip_prefix('@') == Some(spec.name.as_str()))
            .ok_or_else(|| format!("no object for @{}", spec.name))?;
        buffers.push(global.cells.iter().map(|c| c.value.clone()).collect());
    }
    Ok((m.results(), buffers))
}

impl Oracle for LockStep {
    fn name(&self) -> &'static str {
        "lockstep"
    }

    fn available(&self, _: &Host) -> Result<(), String> {
        Ok(())
    }

    fn gen_config(&self) -> GenConfig {
        GenConfig::lane_local()
    }

    fn width(&self, seed: u64) -> usize {
        [2, 3, 4, 8][(seed % 4) as usize]
    }

    fn check(&self, case: &Case) -> Verdict {
        let (results, buffers) = match run(case) {
            Ok(r) => r,
            Err(why) => return Verdict::Skip(format!("the lock-step run: {why}")),
        };
        for lane in 0..case.width {
            let alone = Case {
                columns: case.columns.iter().map(|c| vec![c[lane]]).collect(),
                width: 1,
                ..case.clone()
            };
            let (r1, b1) = match run(&alone) {
                Ok(r) => r,
                Err(why) => {
                    return Verdict::fail(
                        "a lane alone does not return",
                        format!("lane {lane} alone: {why}"),
                    );
                }
            };
            if results.get(lane) != r1.first() {
                return Verdict::fail(
                    "results differ",
                    format!(
                        "lane {lane}: lock step returned {:?}, alone {:?}",
                        results.get(lane),
                        r1.first()
                    ),
                );
            }
            for (k, spec) in case.program.buffers.iter().enumerate() {
                let Some(range) = case.program.lane_slice(k, lane) else {
                    continue;
                };
                let range = range.start.min(buffers[k].len())..range.end.min(buffers[k].len());
                if buffers[k][range.clone()] != b1[k][range.clone()] {
                    return Verdict::fail(
                        "memory differs",
                        format!(
                            "lane {lane}: @{}[{:?}] is {:?} in lock step, {:?} alone",
                            spec.name,
                            range.clone(),
                            &buffers[k][range.clone()],
                            &b1[k][range]
                        ),
                    );
                }
            }
        }
        Verdict::Pass
    }
}
