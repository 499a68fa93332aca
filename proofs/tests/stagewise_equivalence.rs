//! Stage-wise equivalence of the vectorizing transforms (docs/transforms.md): the
//! thesis's claim (§3.6-3.7, Ch. 8-9) that every stage of the vectorizer has a
//! semantics, and that the program after each transform, run under OBLIVIOUS,
//! computes what the original computes under FREEZING. For every generated
//! program, every random per-lane input and every greedy schedule (Def. 12),
//! every stage's output verifies (§4.10) and refines the original lane by lane
//! (return values) and element by element (globals), where the original is
//! defined: `pllvm_interp::equiv` decides it, by exhaustive exploration where it
//! finishes within bounds and by scheduler runs (`lowest`, `highest`, seeded
//! `random`) otherwise.
//!
//! # Programs
//! The generator's (`fuzz/src/gen/`) with the features of unpredicated SPMD
//! code a front end hands the transforms (`codegen/src/prepare.rs`): nested
//! loops with several exits and trip counts that depend on the thread id and on
//! loaded data (divergent loops), divergent and uniform branches, switches,
//! memory (global buffers, allocas, gathers, scatters to each lane's own slice),
//! horizontal builtins (whose operands the generator makes `total`, which a
//! transform's input may contain: they are side-effect free), integers of 1-128
//! bits and floats. Not generated: block predicates, shadow phis, `mask()` and
//! predicated branches, which only transforms emit. Lanes read only their own
//! slices of written buffers, so no schedule-dependent data race makes a sampled
//! check miss the original outcome a transform realizes. A third of the programs
//! may contain irreducible two-entry cycles; those that do are given to the
//! route that handles them (`reconverge`) only.
//!
//! # Routes
//! `dlt`; `dlt,pl`; `nonneg-div,dlt,boscc,pl` (`pllvm compile`'s route) with a
//! BOSCC gadget on every branch that may take one (`boscc::Policy::All`; the
//! `nonneg-div` stage itself still has its divergent loops, which OBLIVIOUS
//! breaks, so it is checked through the stages after it,
//! `Pass::refines_under_oblivious`); `ifconv`; `reconverge`; and `dlt,pl` with
//! every live-out in a tracker pair (`dlt::LiveOuts::Tracked`, the native
//! route's choice for AVX-512). Every stage of every route is checked against the
//! original, not only the last one. Parameters the generator feeds uniformly are
//! declared uniform (`Options::uniform_args`), so uniform branches and loops are kept.
//! A transform that refuses a generated program fails the test: every generated program
//! is valid input.
//!
//! # Case counts
//! By default the property runs 48 random cases and the fixed sweep 48 seeds (W
//! from 2 to 4); `PLLVM_LONG=1` runs 1000 random cases and 1000 seeds;
//! `PROPTEST_CASES=N` sets the random cases directly. Each test prints how many
//! programs and stages it checked and how (exhaustive, or sampled).
//!
//! # Does it catch a broken transform?
//! `a_broken_transform_is_caught` runs the divergent loop transform with the
//! test-only fault `dlt::Fault::DropLiveOutTracker` (the live-out tracking of
//! §9.1, the `i_upd`/`i_out` pair of Fig. 3.22c, left out) and asserts that the
//! checker reports a difference on logstar (lane 1, as in Fig. 3.21b) and on
//! some generated program, while the unbroken transform passes on the same
//! programs. `the_naive_run_is_caught` checks logstar under OBL without any
//! transform against itself under FR (Fig. 3.20b): lane 1 becomes ⊤.

use pllvm_codegen::boscc::Policy;
use pllvm_codegen::dlt::{Fault, LiveOuts};
use pllvm_codegen::{Options, Pass, run_passes};
use pllvm_fuzz::oracles::transforms::{ROUTES, spmd_config};
use pllvm_fuzz::{Generated, generate};
use pllvm_interp::equiv::{
    Coverage, DifferenceKind, EquivConfig, EquivReport, Method, check_refines, check_stages,
};
use pllvm_interp::explore::Bounds;
use pllvm_semantics::ir::Module;
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::{parse_module, print_module};
use pllvm_semantics::value::Val;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::cell::RefCell;

/// Logstar (thesis Fig. 3.20a, CFG form Fig. 3.22a) and the thesis's inputs.
const LOGSTAR: &str = include_str!("../../corpus/semantics/fig3.20b-logstar-fr.ll");

/// The pipeline options for `g`: its uniformly fed parameters declared uniform,
/// BOSCC gadgets everywhere they may go, and the given fault.
fn options(g: &Generated, fault: Option<Fault>) -> Options {
    Options {
        uniform_args: g.uniform_args(),
        boscc: Policy::All,
        fault,
        ..Options::default()
    }
}

/// The checker's configuration for `g` with `width` lanes on the inputs drawn
/// from `input_seed`: explorations of at most 5000 states, else 2 + 4 scheduler
/// runs per program.
fn equiv_config(g: &Generated, width: usize, input_seed: u64) -> EquivConfig {
    let mut run = g.run_config(&g.inputs(input_seed, width), Interp::Freezing);
    run.observe = false;
    run.max_steps = 50_000;
    EquivConfig {
        run,
        coverage: Coverage::Auto,
        bounds: Bounds {
            max_states: 5_000,
            max_steps: 2_000,
            ..Bounds::default()
        },
        random_runs: 4,
        deadline: None,
    }
}

/// How the checks went, summed over the programs of one test.
#[derive(Debug, Default)]
struct Tally {
    programs: usize,
    irreducible: usize,
    stages: usize,
    exhaustive: usize,
    original_exhaustive: usize,
    sampled: usize,
    vacuous: usize,
    inconclusive: usize,
    /// Divisions `nonneg-div` made shifts (its stage is not vacuous).
    divisions: usize,
}

impl Tally {
    fn count(&mut self, report: &EquivReport) {
        self.stages += 1;
        match report.method {
            Method::Exhaustive => self.exhaustive += 1,
            Method::OriginalExhaustive { .. } => self.original_exhaustive += 1,
            Method::Sampled { .. } => self.sampled += 1,
        }
        if report.original_undefined.is_some() {
            self.vacuous += 1;
        }
        self.inconclusive += report.inconclusive;
    }

    fn print(&self, test: &str) {
        eprintln!(
            "{test}: {} programs ({} irreducible), {} stages checked: {} exhaustive, \
             {} with the original exhaustive and the transformed sampled in part, {} sampled; \
             {} vacuous (the original has undefined behaviour), {} outcomes inconclusive; \
             {} divisions made shifts by nonneg-div",
            self.programs,
            self.irreducible,
            self.stages,
            self.exhaustive,
            self.original_exhaustive,
            self.sampled,
            self.vacuous,
            self.inconclusive,
            self.divisions
        );
    }
}

/// One case: a program, a width, an input.
#[derive(Clone, Debug)]
struct Case {
    seed: u64,
    width: usize,
    input_seed: u64,
}

impl Case {
    /// The program: a third of the seeds may have irreducible cycles.
    fn program(&self) -> Generated {
        generate(self.seed, &spmd_config(self.seed % 3 == 2))
    }
}

/// Every stage of every route that takes `g`, named `route: pass`, and the
/// number of divisions `nonneg-div` rewrote.
fn stages_of(
    g: &Generated,
    fault: Option<Fault>,
) -> Result<(Vec<(String, Module)>, usize), String> {
    let reducible = g.stats.irreducible == 0;
    let mut out = Vec::new();
    let mut divisions = 0;
    for route in ROUTES.iter().filter(|r| reducible || r.irreducible) {
        let stages = run_passes(&g.module, g.func, route.passes, &options(g, fault))
            .map_err(|e| format!("route {} refuses the program: {e}", route.name))?;
        for stage in stages {
            if stage.pass == Pass::NonnegDiv {
                divisions += stage.notes.iter().filter(|n| n.contains("becomes")).count();
            }
            if !stage.pass.refines_under_oblivious() {
                continue;
            }
            out.push((
                format!("{}: {}", route.name, stage.pass.name()),
                stage.module,
            ));
        }
    }
    // The native route for AVX-512 keeps every live-out in a tracker pair
    // (`dlt::LiveOuts::Tracked`, `native::Target::live_outs`): its stages too.
    if reducible && fault.is_none() {
        let tracked = Options {
            live_outs: LiveOuts::Tracked,
            ..options(g, None)
        };
        let stages = run_passes(&g.module, g.func, &[Pass::Dlt, Pass::Pl], &tracked)
            .map_err(|e| format!("route dlt,pl (tracked live-outs) refuses the program: {e}"))?;
        for stage in stages {
            out.push((
                format!("dlt,pl (tracked live-outs): {}", stage.pass.name()),
                stage.module,
            ));
        }
    }
    Ok((out, divisions))
}

/// Checks every stage of every route on one case; counts into `tally`.
fn check_case(case: &Case, tally: &mut Tally) -> Result<(), String> {
    let g = case.program();
    let original = print_module(&g.module);
    let (stages, divisions) = stages_of(&g, None).map_err(|e| format!("{e}\n{original}"))?;
    tally.divisions += divisions;
    let config = equiv_config(&g, case.width, case.input_seed);
    let checks = check_stages(
        &g.module,
        stages.iter().map(|(name, m)| (name.as_str(), m)),
        &config,
    );
    tally.programs += 1;
    if g.stats.irreducible > 0 {
        tally.irreducible += 1;
    }
    for (check, (_, module)) in checks.iter().zip(&stages) {
        let fail = |why: String| {
            format!(
                "{}: {why}\n--- original ---\n{original}\n--- after {} ---\n{}",
                check.stage,
                check.stage,
                print_module(module)
            )
        };
        if !check.verify_errors.is_empty() {
            return Err(fail(format!(
                "does not verify: {}",
                check.verify_errors.join("; ")
            )));
        }
        match &check.result {
            Ok(report) => tally.count(report),
            Err(d) => return Err(fail(d.to_string())),
        }
    }
    Ok(())
}

/// Whether the long mode is on (`PLLVM_LONG=1`).
fn long() -> bool {
    std::env::var("PLLVM_LONG").is_ok_and(|v| v != "0" && !v.is_empty())
}

/// The number of random cases: `PROPTEST_CASES`, else 1000 in the long mode and
/// 48 otherwise.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if long() { 1000 } else { 48 })
}

/// The property, over random programs, widths 2-4 and inputs. (A hand-driven
/// runner rather than `proptest!`, so that the counts print once at the end.)
#[test]
fn every_stage_refines_the_original() {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let tally = RefCell::new(Tally::default());
    let strategy = (any::<u64>(), 2usize..=4, any::<u64>());
    let result = runner.run(&strategy, |(seed, width, input_seed)| {
        let case = Case {
            seed,
            width,
            input_seed,
        };
        check_case(&case, &mut tally.borrow_mut())
            .map_err(|why| TestCaseError::fail(format!("{case:?}: {why}")))
    });
    tally.borrow().print("every_stage_refines_the_original");
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// A fixed sweep over seeds and widths, so that every run covers the same
/// programs too.
#[test]
fn every_stage_refines_the_original_fixed_seeds() {
    let seeds = if long() { 1000 } else { 48 };
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for seed in 0..seeds {
        let case = Case {
            seed,
            width: 2 + (seed as usize % 3),
            input_seed: seed.wrapping_mul(0x9e37_79b9),
        };
        if let Err(why) = check_case(&case, &mut tally) {
            failures.push(format!("{case:?}: {why}"));
        }
    }
    tally.print("every_stage_refines_the_original_fixed_seeds");
    assert!(
        failures.is_empty(),
        "{} of {seeds} programs fail:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(tally.stages > 0, "no stage was checked");
    assert!(
        tally.divisions > 0,
        "no generated program had a division nonneg-div rewrites: its stage was never exercised"
    );
}

/// Logstar with the thesis's inputs (Fig. 3.20b): W = 2, n = [88.38, 1.5].
fn logstar() -> (Module, EquivConfig) {
    let (module, _) = parse_module(LOGSTAR).unwrap_or_else(|e| panic!("logstar parses: {e:?}"));
    let mut config = EquivConfig::default();
    config.run.threads = 2;
    config
        .run
        .add_arg("n=88.38,1.5")
        .unwrap_or_else(|e| panic!("{e}"));
    (module, config)
}

/// Whether `kind` is lane 1 of logstar returning something else than FR's 1.
fn is_lane_1_of_logstar(kind: &DifferenceKind) -> bool {
    matches!(
        kind,
        DifferenceKind::Result {
            lane: 1,
            original: Val::Int(1),
            ..
        }
    )
}

/// Fig. 3.20b through the checker: logstar under OBL, untransformed, does not
/// refine logstar under FR; lane 1 returns ⊤ where FR returns 1.
#[test]
fn the_naive_run_is_caught() {
    let (module, config) = logstar();
    let difference = match check_refines(&module, &module, &config) {
        Ok(report) => panic!("the naive run passes: {}", report.summary()),
        Err(d) => d,
    };
    assert_eq!(
        *difference.kind,
        DifferenceKind::Result {
            lane: 1,
            original: Val::Int(1),
            transformed: Some(Val::Undef),
            int_width: Some(32),
        }
    );
    assert_eq!(
        difference.to_string(),
        "lane 1: original returns 1, transformed returns ⊤ (schedule A,B,B,B,C)"
    );
}

/// The divergent loop transform without its live-out tracking is caught, on
/// logstar and on some generated program; the transform itself passes there.
#[test]
fn a_broken_transform_is_caught() {
    // Logstar: the broken transform loses lane 1's count (Fig. 3.21b).
    let (module, config) = logstar();
    let func = module
        .first_definition()
        .unwrap_or_else(|| panic!("logstar defines a function"));
    for fault in [None, Some(Fault::DropLiveOutTracker)] {
        let options = Options {
            fault,
            ..Options::default()
        };
        let stages = run_passes(&module, func, &[Pass::Dlt], &options)
            .unwrap_or_else(|e| panic!("dlt ({fault:?}) transforms logstar: {e}"));
        let checks = check_stages(
            &module,
            stages.iter().map(|s| (s.pass.name(), &s.module)),
            &config,
        );
        let [check] = &checks[..] else {
            panic!("one stage expected, got {}", checks.len());
        };
        assert!(check.verify_errors.is_empty(), "{check:?}");
        match (fault, &check.result) {
            (None, Ok(_)) => {}
            (None, Err(d)) => panic!("the unbroken dlt fails on logstar: {d}"),
            (Some(_), Ok(report)) => {
                panic!("the broken dlt passes on logstar: {}", report.summary())
            }
            (Some(_), Err(d)) => assert!(is_lane_1_of_logstar(&d.kind), "{d}"),
        }
    }

    // Generated programs: the first seeds with divergent loops, until one is
    // caught; the unbroken transform must pass on every one tried.
    let seeds = if long() { 400 } else { 80 };
    let mut caught = None;
    let mut tried = 0;
    for seed in 0..seeds {
        let g = generate(seed, &spmd_config(false));
        if g.stats.divergent_bounds == 0 {
            continue;
        }
        tried += 1;
        let config = equiv_config(&g, 2 + (seed as usize % 3), seed);
        for fault in [None, Some(Fault::DropLiveOutTracker)] {
            let stages = run_passes(&g.module, g.func, &[Pass::Dlt], &options(&g, fault))
                .unwrap_or_else(|e| panic!("seed {seed}: dlt ({fault:?}) refuses: {e}"));
            let checks = check_stages(
                &g.module,
                stages.iter().map(|s| (s.pass.name(), &s.module)),
                &config,
            );
            match (fault, checks.iter().find(|c| !c.passed())) {
                (None, Some(bad)) => panic!("seed {seed}: the unbroken dlt fails: {bad:?}"),
                (Some(_), Some(bad)) => {
                    let why = match &bad.result {
                        Err(d) => d.to_string(),
                        Ok(_) => bad.verify_errors.join("; "),
                    };
                    caught = Some(format!("seed {seed}: {why}"));
                }
                _ => {}
            }
        }
        if caught.is_some() {
            break;
        }
    }
    eprintln!(
        "a_broken_transform_is_caught: {tried} generated programs with divergent loops tried; caught on {}",
        caught.as_deref().unwrap_or("none")
    );
    assert!(
        caught.is_some(),
        "the broken dlt was caught on none of {tried} generated programs with divergent loops"
    );
}
