//! The divergent loop transform (thesis §9.1, `pllvm_codegen::dlt`) on generated
//! programs: reducible, lane-local, unpredicated SPMD code (no block predicates,
//! `total`, shadows, `mask()` or horizontal operations: what a front end writes,
//! the transform's input). The output verifies, and under OBLIVIOUS it ends as the
//! input ends under FREEZING: results and memory, with the default scheduler at
//! W = 1 and 3, and on every greedy schedule (`explore`, W = 2 and 3) for the
//! programs whose loops the transform changed. The seeded broken transform
//! (`Fault::DropLiveOutTracker`) is caught. The counts are printed.

use pllvm_codegen::pipeline::{Options, Pass, run_passes};
use pllvm_fuzz::{GenConfig, Generated, InputScalar, generate};
use pllvm_interp::Machine;
use pllvm_interp::explore::{Bounds, explore};
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::Module;
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::print_module;
use pllvm_semantics::verify::verify_module;

/// Unpredicated SPMD programs, reducible.
fn config() -> GenConfig {
    GenConfig {
        irreducible: false,
        predicates: false,
        self_predicates: false,
        total: false,
        shadow_phis: false,
        mask: false,
        horizontal: false,
        ..GenConfig::lane_local()
    }
}

/// The program after `--pass dlt`, and whether a loop was transformed.
fn transformed(g: &Generated) -> Result<(Module, bool), String> {
    transformed_with(g, &Options::default())
}

/// [`transformed`] with `options` (the seeded fault).
fn transformed_with(g: &Generated, options: &Options) -> Result<(Module, bool), String> {
    let stages = run_passes(&g.module, g.func, &[Pass::Dlt], options).map_err(|e| e.to_string())?;
    let stage = stages.into_iter().next().ok_or("no stage")?;
    let report = verify_module(&stage.module, &SourceMap::default());
    if !report.is_ok() {
        return Err(format!(
            "the output does not verify: {:?}\n{}",
            report.errors,
            print_module(&stage.module)
        ));
    }
    let changed = stage.notes.iter().any(|n| n.contains(", made "));
    Ok((stage.module, changed))
}

/// Outcome and results of one scheduler run (`None`: the input did not return).
fn run(m: &Module, g: &Generated, columns: &[(String, Vec<InputScalar>)], i: Interp) -> String {
    let cfg = g.run_config(columns, i);
    match Machine::new(m, &cfg) {
        Ok(mut machine) => match machine.run_to_end() {
            Ok(outcome) => format!("{outcome:?} {:?}", machine.results()),
            Err(e) => format!("error {e}"),
        },
        Err(e) => format!("setup {e}"),
    }
}

#[test]
fn obl_after_dlt_equals_fr_before_with_the_default_scheduler() {
    let (mut compared, mut changed_programs) = (0, 0);
    let mut failures = Vec::new();
    for seed in 0..300u64 {
        let g = generate(seed, &config());
        let (out, changed) = match transformed(&g) {
            Ok(x) => x,
            Err(why) => {
                failures.push(format!("seed {seed}: {why}"));
                continue;
            }
        };
        changed_programs += usize::from(changed);
        for width in [1usize, 3] {
            let columns = g.inputs(seed.wrapping_mul(7919), width);
            let before = run(&g.module, &g, &columns, Interp::Freezing);
            if !before.starts_with("Returned") {
                continue;
            }
            compared += 1;
            let after = run(&out, &g, &columns, Interp::Oblivious);
            if before != after {
                failures.push(format!(
                    "seed {seed}, W = {width}: FR before {before}, OBL after {after}\n{}",
                    print_module(&out)
                ));
            }
        }
    }
    println!(
        "dlt, default scheduler: {compared} runs compared, {changed_programs} programs with a transformed loop"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(changed_programs > 50, "too few divergent loops generated");
}

#[test]
fn obl_after_dlt_equals_fr_before_on_every_greedy_schedule() {
    let bounds = Bounds {
        max_states: 20_000,
        ..Bounds::default()
    };
    let endings = |m: &Module, g: &Generated, columns: &[(String, Vec<InputScalar>)], i| {
        let e = explore(m, &g.run_config(columns, i), &bounds).ok()?;
        if e.truncated.is_some() {
            return None;
        }
        let mut v: Vec<String> = e
            .outcomes
            .iter()
            .map(|o| format!("{} {} {:?}", o.ending, o.result_text, o.memory))
            .collect();
        v.sort();
        Some(v)
    };
    let (mut explored, mut truncated) = (0, 0);
    let mut failures = Vec::new();
    for seed in 0..120u64 {
        let g = generate(seed, &config());
        let Ok((out, true)) = transformed(&g) else {
            continue;
        };
        for width in [2usize, 3] {
            let columns = g.inputs(seed.wrapping_mul(31), width);
            let (Some(before), Some(after)) = (
                endings(&g.module, &g, &columns, Interp::Freezing),
                endings(&out, &g, &columns, Interp::Oblivious),
            ) else {
                truncated += 1;
                continue;
            };
            explored += 1;
            if before != after {
                failures.push(format!(
                    "seed {seed}, W = {width}: FR before {before:?}\nOBL after {after:?}\n{}",
                    print_module(&g.module)
                ));
            }
        }
    }
    println!(
        "dlt, every greedy schedule: {explored} explorations compared, {truncated} over the state bound"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(explored > 50, "too few explorations");
}

#[test]
fn the_seeded_broken_transform_is_caught() {
    let options = Options {
        fault: Some(pllvm_codegen::dlt::Fault::DropLiveOutTracker),
        ..Options::default()
    };
    let (mut compared, mut caught) = (0, 0);
    for seed in 0..300u64 {
        let g = generate(seed, &config());
        let Ok((out, true)) = transformed_with(&g, &options) else {
            continue;
        };
        for width in [2usize, 3] {
            let columns = g.inputs(seed.wrapping_mul(7919), width);
            let before = run(&g.module, &g, &columns, Interp::Freezing);
            if !before.starts_with("Returned") {
                continue;
            }
            compared += 1;
            caught += usize::from(before != run(&out, &g, &columns, Interp::Oblivious));
        }
    }
    println!("dlt with a dropped live-out tracker: {caught} of {compared} runs differ");
    assert!(caught > 0, "the broken transform went unnoticed");
}
