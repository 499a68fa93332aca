//! `schedules`: greedy schedules agree where the thesis promises it
//! (Ch. 5, Def. 12-18; `proofs/tests/acyclic_schedule_independence.rs` and
//! `greedy_props.rs`). On a loop-free program whose lanes read only their own
//! slices of written buffers (`GenConfig::acyclic`), exhaustive exploration of
//! the greedy schedules finds exactly one outcome and it is `returned`; the
//! `lowest`, `highest` and a seeded `random` scheduler each take only greedy
//! steps (Def. 12) and end in that outcome. Explorations cut off by their
//! bounds are skipped.

use super::case::Case;
use super::oracle::{Host, Oracle, Verdict};
use crate::GenConfig;
use pllvm_interp::explore::{Bounds, Order, explore};
use pllvm_interp::sched::{Highest, Lowest, Random, Scheduler};
use pllvm_interp::{Machine, Outcome};
use pllvm_semantics::rules::Interp;

/// The `schedules` oracle.
pub struct Schedules;

/// The exploration's bounds: small programs explore in well under a second.
const BOUNDS: Bounds = Bounds {
    max_states: 5_000,
    max_steps: 200,
    order: Order::Lowest,
};

impl Oracle for Schedules {
    fn name(&self) -> &'static str {
        "schedules"
    }

    fn available(&self, _: &Host) -> Result<(), String> {
        Ok(())
    }

    fn gen_config(&self) -> GenConfig {
        GenConfig {
            max_blocks: 12,
            ..GenConfig::acyclic()
        }
    }

    fn check(&self, case: &Case) -> Verdict {
        let config = case.run_config(Interp::Freezing);
        let e = match explore(case.module(), &config, &BOUNDS) {
            Ok(e) => e,
            Err(err) => return Verdict::fail("exploration errs", err.to_string()),
        };
        if let Some(why) = &e.truncated {
            return Verdict::Skip(format!("exploration truncated: {why}"));
        }
        let endings: Vec<String> = e.outcome_lines();
        if e.outcomes.len() != 1 || e.outcomes[0].ending != "returned" {
            return Verdict::fail(
                "greedy outcomes differ",
                format!("{} outcomes: {}", e.outcomes.len(), endings.join("; ")),
            );
        }
        let expected = &e.outcomes[0];
        let policies: [Box<dyn Scheduler>; 3] = [
            Box::new(Lowest),
            Box::new(Highest),
            Box::new(Random::new(case.seed)),
        ];
        for mut policy in policies {
            let name = policy.name();
            let mut m = match Machine::new(case.module(), &config) {
                Ok(m) => m,
                Err(err) => return Verdict::fail("setup fails", err.to_string()),
            };
            let run = match m.run_with(policy.as_mut()) {
                Ok(r) => r,
                Err(err) => return Verdict::fail("a scheduler run errs", format!("{name}: {err}")),
            };
            if let Some(v) = run.violations.first() {
                return Verdict::fail(
                    "a scheduler takes a non-greedy step",
                    format!("{name}: {}", v.render(&m.program)),
                );
            }
            if run.outcome != Outcome::Returned || m.result_text() != expected.result_text {
                return Verdict::fail(
                    "a scheduler ends elsewhere",
                    format!(
                        "{name}: {} {}, exploration: {}",
                        run.outcome,
                        m.result_text(),
                        endings.join("; ")
                    ),
                );
            }
        }
        Verdict::Pass
    }
}
