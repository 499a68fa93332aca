//! The reconverging-CFG transform (`pllvm_codegen::reconverge`) establishes the
//! poster's Definition 1 ("every non-uniform condition node has exactly two
//! successors, one of which post-dominates it") on generated programs, reducible
//! and irreducible (`GenConfig::reducible`, `GenConfig::small` with its two-entry
//! cycles, `GenConfig::acyclic`), and its output verifies (thesis §4.10).
//! Definition 1 is checked with `pllvm_analysis::reconverging::check_reconverging`
//! against a fresh analysis of the output, the analysis the transform itself used
//! (`best`), with the generator's uniform parameters uniform. Each sweep prints
//! its case count.
//!
//! The route runs its three steps in order: irreducible cycles to natural loops,
//! the divergent loop transform (thesis §9.1, `pllvm_codegen::dlt`), the
//! OpenTree walk. The programs have no block predicates and no `total` stores
//! (the transform takes unpredicated SPMD code, `prepare::require_unpredicated`).
//!
//! Two more tests run generated lane-local programs (each lane computes what it
//! computes alone): under OBLIVIOUS the output computes what the input computes
//! under FREEZING, lane by lane, on every greedy schedule
//! (`pllvm_interp::explore`); and under FREEZING the output returns what the
//! input returns and leaves the same memory (a cheaper run, on more programs).

use pllvm_analysis::postdom::PostDomTree;
use pllvm_analysis::reconverging::check_reconverging;
use pllvm_codegen::pipeline::{Options, Pass, PassContext};
use pllvm_codegen::reconverge::reconverge;
use pllvm_fuzz::{GenConfig, Generated, generate};
use pllvm_interp::explore::{Bounds, Exploration, Order, explore};
use pllvm_interp::{Machine, Outcome};
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::Module;
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::print_module;
use pllvm_semantics::value::Val;
use pllvm_semantics::verify::verify_module;

/// Programs per configuration (`PROPTEST_CASES` overrides).
fn cases() -> u64 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

/// The generator's configuration without block predicates.
fn unpredicated(base: GenConfig) -> GenConfig {
    GenConfig {
        predicates: false,
        self_predicates: false,
        predicated_branches: false,
        ..base
    }
}

/// The transform's options for `g`: its uniform parameters uniform.
fn options(g: &Generated) -> Options {
    Options {
        uniform_args: g.uniform_args(),
        ..Options::default()
    }
}

/// The whole route on `g`.
fn route(g: &Generated, options: &Options) -> Result<Module, String> {
    let cx = PassContext {
        options,
        pass: Pass::Reconverge,
    };
    reconverge(&g.module, g.func, &cx)
        .map(|(m, _)| m)
        .map_err(|e| e.to_string())
}

/// Definition 1 and the verifier on the route's output for `g`.
fn check_definition_1(g: &Generated) -> Result<(), String> {
    let options = options(g);
    let out = route(g, &options)?;
    let printed = print_module(&out);
    let report = verify_module(&out, &SourceMap::default());
    if !report.is_ok() {
        let errors: Vec<String> = report.errors.iter().map(|d| d.message.clone()).collect();
        return Err(format!("does not verify: {errors:?}\n{printed}"));
    }
    let cx = PassContext {
        options: &options,
        pass: Pass::Reconverge,
    };
    let uniformity = cx.analyze(&out, g.func).map_err(|e| e.to_string())?;
    let body = out.functions[g.func].body.as_ref().ok_or("no body")?;
    let violations = check_reconverging(body, &PostDomTree::compute(body), &uniformity);
    match violations.first() {
        Some(v) => Err(format!("{}\n{printed}", v.message(body))),
        None => Ok(()),
    }
}

fn sweep(config: GenConfig, label: &str) {
    let mut failures = Vec::new();
    let (mut loops, mut irreducible) = (0, 0);
    let n = cases();
    for seed in 0..n {
        let g = generate(seed, &config);
        loops += usize::from(g.stats.loops > 0);
        irreducible += usize::from(g.stats.irreducible > 0);
        if let Err(why) = check_definition_1(&g) {
            failures.push(format!("seed {seed}: {why}"));
        }
    }
    eprintln!(
        "{label}: {n} programs ({loops} with loops, {irreducible} with an irreducible cycle): {} reconverging and verified, {} failed",
        n as usize - failures.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{label}: {} of {n} failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn reducible_programs_become_reconverging() {
    sweep(unpredicated(GenConfig::reducible()), "reducible");
}

#[test]
fn irreducible_programs_become_reconverging() {
    sweep(unpredicated(GenConfig::small()), "irreducible (small)");
}

#[test]
fn acyclic_programs_become_reconverging() {
    sweep(unpredicated(GenConfig::acyclic()), "acyclic");
}

/// Explores `module` with the inputs of `g` for `width` lanes under `interp`.
fn explored(
    module: &Module,
    g: &Generated,
    seed: u64,
    width: usize,
    interp: Interp,
) -> Result<Exploration, String> {
    let bounds = Bounds {
        max_states: 20_000,
        max_steps: 1000,
        order: Order::Lowest,
    };
    let run = g.run_config(&g.inputs(seed, width), interp);
    explore(module, &run, &bounds).map_err(|e| e.to_string())
}

/// Whether the lane results `after` refine `before` (⊤ in `before` admits anything).
fn refines(before: &[Option<Val>], after: &[Option<Val>]) -> bool {
    before.len() == after.len()
        && before.iter().zip(after).all(|(b, a)| match b {
            Some(Val::Undef) => true,
            _ => b == a,
        })
}

/// FR(original) = OBL(output) on every greedy schedule, for one program.
fn check_obl_equals_fr(g: &Generated, seed: u64) -> Result<Option<usize>, String> {
    let options = options(g);
    let out = route(g, &options)?;
    let width = 2 + (seed % 2) as usize;
    let before = explored(&g.module, g, seed, width, Interp::Freezing)?;
    if before.truncated.is_some() || before.outcomes.iter().any(|o| o.ending != "returned") {
        return Ok(None);
    }
    let after = explored(&out, g, seed, width, Interp::Oblivious)?;
    if after.truncated.is_some() {
        // The output runs more blocks (the divergent loop transform's); an
        // exploration that did not finish proves nothing either way.
        return Ok(None);
    }
    for o in &after.outcomes {
        let matched = before.outcomes.iter().any(|b| {
            o.ending == b.ending && refines(&b.results, &o.results) && o.memory == b.memory
        });
        if !matched {
            let fr: Vec<String> = before
                .outcomes
                .iter()
                .map(|b| format!("{} {} {:?}", b.ending, b.result_text, b.memory))
                .collect();
            return Err(format!(
                "W = {width}: OBL(output) {} {} {:?} (schedule {}) is no FR outcome of the input: {fr:?}\n{}",
                o.ending,
                o.result_text,
                o.memory,
                after.schedule_text(&o.witness),
                print_module(&out)
            ));
        }
    }
    Ok(Some(after.outcomes.len()))
}

#[test]
fn oblivious_output_computes_what_freezing_input_computes() {
    let configs = [
        (
            "lane-local acyclic",
            unpredicated(GenConfig {
                max_loop_depth: 0,
                irreducible: false,
                ..GenConfig::lane_local()
            }),
        ),
        ("lane-local", unpredicated(GenConfig::lane_local())),
    ];
    let n = cases() / 3;
    for (label, config) in configs {
        let mut failures = Vec::new();
        let mut compared = 0;
        for seed in 0..n {
            let g = generate(seed, &config);
            match check_obl_equals_fr(&g, seed) {
                Ok(Some(_)) => compared += 1,
                Ok(None) => {}
                Err(why) => failures.push(format!("seed {seed}: {why}")),
            }
        }
        eprintln!("{label}: {n} programs, {compared} compared on every greedy schedule");
        assert!(
            failures.is_empty(),
            "{label}: {} failed:\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }
}

/// What a FREEZING run leaves: the outcome, each lane's result, every global.
#[derive(Debug, PartialEq)]
struct RunResult {
    outcome: String,
    results: Vec<Option<Val>>,
    globals: Vec<Vec<Val>>,
}

/// Runs `module` (the program of `g` or its transform) under FREEZING with the
/// lowest-index greedy scheduler.
fn run_freezing(
    module: &Module,
    g: &Generated,
    seed: u64,
    width: usize,
) -> Result<RunResult, String> {
    let cfg = g.run_config(&g.inputs(seed, width), Interp::Freezing);
    let mut m = Machine::new(module, &cfg).map_err(|e| format!("setup: {e}"))?;
    let outcome = m.run_to_end().map_err(|e| format!("run: {e}"))?;
    // Every global, scalar by scalar (arrays flattened), as the checker of
    // `pllvm_interp::equiv` reads them.
    let globals: Vec<Vec<Val>> = m
        .global_contents()
        .into_iter()
        .map(|g| g.cells.into_iter().map(|c| c.value).collect())
        .collect();
    Ok(RunResult {
        outcome: format!("{outcome:?}"),
        results: m.results(),
        globals,
    })
}

/// The route keeps FREEZING behaviour: on lane-local programs (each lane
/// computes what it computes alone under FREEZING), irreducible ones included,
/// the output run under FREEZING returns what the input returns, lane by lane,
/// and leaves the same memory. This checks the rewiring and the phis of the flow
/// blocks and of the cycle dispatch on more programs than the exploration can.
#[test]
fn freezing_behaviour_is_kept() {
    let config = unpredicated(GenConfig::lane_local());
    let n = cases();
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut irreducible = 0;
    for seed in 0..n {
        let g = generate(seed, &config);
        let out = match route(&g, &options(&g)) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("seed {seed}: {e}"));
                continue;
            }
        };
        irreducible += usize::from(g.stats.irreducible > 0);
        for width in [1usize, 3, 4] {
            let before = match run_freezing(&g.module, &g, seed, width) {
                Ok(r) if r.outcome == format!("{:?}", Outcome::Returned) => r,
                _ => continue,
            };
            let after = run_freezing(&out, &g, seed, width);
            if after.as_ref() != Ok(&before) {
                failures.push(format!(
                    "seed {seed}, W = {width}: before {before:?}\nafter {after:?}\n{}",
                    print_module(&out)
                ));
                break;
            }
            compared += 1;
        }
    }
    eprintln!(
        "{n} lane-local programs ({irreducible} with an irreducible cycle), {compared} runs compared"
    );
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
