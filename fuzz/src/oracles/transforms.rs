//! `transforms`: stage-wise equivalence of the vectorizing transforms (docs/transforms.md;
//! thesis §3.6-3.7, Ch. 8-9; `proofs/tests/stagewise_equivalence.rs`): every
//! stage of every route (`dlt`; `dlt,pl`; `nonneg-div,dlt,boscc,pl` (`pllvm compile`'s
//! route) with BOSCC everywhere;
//! `ifconv`; `reconverge`, the only route given irreducible programs) verifies
//! and, run under OBLIVIOUS, refines the original under FREEZING lane by lane
//! and global element by element (`pllvm_interp::equiv`). A route that refuses
//! a generated program is a failure too: every generated program is valid input.

use super::case::Case;
use super::oracle::{Host, Oracle, Verdict};
use crate::GenConfig;
use pllvm_codegen::boscc::Policy;
use pllvm_codegen::{Options, Pass, run_passes};
use pllvm_interp::equiv::{Coverage, EquivConfig, check_stages};
use pllvm_interp::explore::Bounds;
use pllvm_semantics::ir::Module;
use pllvm_semantics::rules::Interp;

/// The `transforms` oracle.
pub struct Transforms;

/// One route of the vectorizing pipeline.
pub struct Route {
    /// As `--pass` spells it.
    pub name: &'static str,
    /// Its passes, in order.
    pub passes: &'static [Pass],
    /// Whether it handles irreducible control flow.
    pub irreducible: bool,
}

/// The routes of docs/transforms.md: `reconverge` is the only one given irreducible
/// programs.
pub const ROUTES: [Route; 5] = [
    Route {
        name: "dlt",
        passes: &[Pass::Dlt],
        irreducible: false,
    },
    Route {
        name: "dlt,pl",
        passes: &[Pass::Dlt, Pass::Pl],
        irreducible: false,
    },
    Route {
        name: "nonneg-div,dlt,boscc,pl",
        passes: &[Pass::NonnegDiv, Pass::Dlt, Pass::Boscc, Pass::Pl],
        irreducible: false,
    },
    Route {
        name: "ifconv",
        passes: &[Pass::IfConv],
        irreducible: false,
    },
    Route {
        name: "reconverge",
        passes: &[Pass::Reconverge],
        irreducible: true,
    },
];

/// Unpredicated SPMD code, as a front end hands the transforms
/// (`codegen/src/prepare.rs`); irreducible cycles allowed.
pub fn spmd_config(irreducible: bool) -> GenConfig {
    GenConfig {
        max_blocks: 20,
        max_loop_depth: 2,
        max_trip_count: 3,
        max_insts_per_block: 4,
        irreducible,
        predicates: false,
        self_predicates: false,
        predicated_branches: false,
        shadow_phis: false,
        total: false,
        mask: false,
        own_slice_reads: true,
        ..GenConfig::full()
    }
}

impl Oracle for Transforms {
    fn name(&self) -> &'static str {
        "transforms"
    }

    fn available(&self, _: &Host) -> Result<(), String> {
        Ok(())
    }

    fn gen_config(&self) -> GenConfig {
        spmd_config(false)
    }

    fn case(&self, seed: u64) -> Case {
        Case::generate(seed, &spmd_config(seed % 3 == 2), self.width(seed))
    }

    fn check(&self, case: &Case) -> Verdict {
        let Some(body) = case.module().functions[case.func()].body.as_ref() else {
            return Verdict::Skip("no body".into());
        };
        let reducible = pllvm_semantics::cfg::Cfg::new(body).is_reducible();
        let options = Options {
            uniform_args: case.program.uniform_args(),
            boscc: Policy::All,
            ..Options::default()
        };
        let mut stages: Vec<(String, Module)> = Vec::new();
        for route in ROUTES.iter().filter(|r| reducible || r.irreducible) {
            let route_name = route.name;
            match run_passes(case.module(), case.func(), route.passes, &options) {
                Ok(out) => {
                    for stage in out.into_iter().filter(|s| s.pass.refines_under_oblivious()) {
                        stages.push((format!("{route_name}: {}", stage.pass.name()), stage.module));
                    }
                }
                Err(e) => {
                    return Verdict::fail(
                        format!("{route_name} refuses"),
                        format!("route {route_name} refuses the program: {e}"),
                    );
                }
            }
        }
        let mut run = case.run_config(Interp::Freezing);
        run.observe = false;
        run.max_steps = 50_000;
        let config = EquivConfig {
            run,
            coverage: Coverage::Auto,
            bounds: Bounds {
                max_states: 5_000,
                max_steps: 2_000,
                ..Bounds::default()
            },
            random_runs: 4,
            deadline: None,
        };
        let checks = check_stages(
            case.module(),
            stages.iter().map(|(n, m)| (n.as_str(), m)),
            &config,
        );
        for check in checks {
            if let Some(e) = check.verify_errors.first() {
                return Verdict::fail(format!("{} does not verify", check.stage), e.clone());
            }
            if let Err(d) = &check.result {
                return Verdict::fail(format!("{} differs", check.stage), d.to_string());
            }
        }
        Verdict::Pass
    }
}
