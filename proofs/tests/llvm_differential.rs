//! Differential runs of pllvm's `llvm` analysis against LLVM's own uniformity
//! analysis (`opt-22 -mtriple=amdgcn-- -passes='print<uniformity>'`, docs/analyses.md) over
//! the corpus and generated programs, reducible and irreducible, with what the
//! interpreter observed (run under FREEZING by the machine's built-in policy, as in
//! `soundness.rs`).
//!
//! For every named value and every branch: whether both analyses agree; where they
//! differ, which one the execution refutes. Printed (`--nocapture`): the agreement
//! rate, every value LLVM calls uniform whose lanes disagreed at run time, and
//! how often pllvm is the more precise one. LLVM's answer is a peer, not ground
//! truth, so its mistakes are printed, not failed; the test fails when opt-22 is
//! missing, when a report cannot be had, or when pllvm's own `llvm` claim is
//! refuted. The corpus and then generated programs for 15 s by default (the whole
//! corpus, then as many generated programs as fit), for 50 s in the long mode
//! (`PLLVM_LONG=1`); `PLLVM_DIFF_LONG=1` runs at least 1000 generated programs.

use pllvm_analysis::opt_uniformity::{opt_available, opt_input, opt_triple, parse_report, run_opt};
use pllvm_analysis::result::{AnalysisKind, InitShapes};
use pllvm_analysis::shape::Shape;
use pllvm_analysis::uniformity::analyze;
use pllvm_fuzz::{GenConfig, generate};
use pllvm_interp::soundness::{Observation, observe_run};
use pllvm_semantics::ir::{FuncId, Module};
use pllvm_semantics::rules::Interp;
use std::time::{Duration, Instant};

#[derive(Default)]
struct Tally {
    programs: usize,
    compared: usize,
    agree: usize,
    pllvm_more_precise: usize,
    llvm_more_precise: usize,
    missing: usize,
    llvm_refuted: Vec<String>,
    pllvm_refuted: Vec<String>,
}

/// Compares one function; `obs` are the observations of its runs.
fn compare(
    tally: &mut Tally,
    label: &str,
    module: &Module,
    func: FuncId,
    init: &InitShapes,
    obs: &[Observation],
) -> Result<(), String> {
    let data = &module.functions[func];
    let Some(body) = data.body.as_ref() else {
        return Ok(());
    };
    let ours = analyze(module, func, AnalysisKind::Llvm, init).map_err(|e| e.to_string())?;
    let uniform: Vec<bool> = init.params.iter().map(|s| s.is_uniform()).collect();
    let stderr = run_opt(
        "opt-22",
        &opt_input(module, func, &uniform),
        opt_triple(module),
    )
    .map_err(|e| format!("{label}: {e}"))?;
    let report = parse_report(&stderr, &data.name).map_err(|e| format!("{label}: {e}"))?;
    tally.programs += 1;
    for &b in &body.layout {
        let block = &body.blocks[b];
        for &i in block.phis.iter().chain(&block.body) {
            let Some(v) = body.insts[i].result else {
                continue;
            };
            let Some(name) = body.value_name(v) else {
                continue;
            };
            let Some(theirs) = report.value_divergent(name) else {
                tally.missing += 1;
                continue;
            };
            let mine = ours.values[v] == Shape::Varying;
            let diverged = obs.iter().any(|o| o.insts[i].diverged);
            tally.compared += 1;
            if mine == theirs {
                tally.agree += 1;
            } else if mine {
                tally.llvm_more_precise += 1;
            } else {
                tally.pllvm_more_precise += 1;
            }
            if !theirs && diverged {
                // `total` (exported as metadata opt ignores) reads inactive lanes too.
                let why = if body.insts[i].total {
                    " (a `total` command: P-LLVM semantics opt does not know)"
                } else {
                    ""
                };
                tally.llvm_refuted.push(format!(
                    "{label}: opt-22 calls %{name} uniform, its lanes disagreed{why}"
                ));
            }
            if !mine && diverged {
                tally.pllvm_refuted.push(format!(
                    "{label}: llvm calls %{name} uniform, its lanes disagreed"
                ));
            }
        }
    }
    Ok(())
}

fn corpus_files() -> Vec<std::path::PathBuf> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/divergence");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "ll"));
    files.sort();
    files
}

#[test]
fn llvm_against_opt_22_on_the_corpus_and_generated_programs() {
    assert!(
        opt_available("opt-22"),
        "opt-22 is missing: the differential test needs LLVM 22's opt (Debian: apt-get install llvm-22)"
    );
    let long = std::env::var("PLLVM_DIFF_LONG").is_ok_and(|v| v == "1");
    let budget = Duration::from_secs(if long {
        3600
    } else {
        crate::test_cases(15, 50)
    });
    let start = Instant::now();
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    // The corpus.
    let files = corpus_files();
    assert!(!files.is_empty(), "no corpus files found");
    for path in files {
        let label = path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        let Ok(src) = std::fs::read_to_string(&path) else {
            failures.push(format!("{label}: unreadable"));
            continue;
        };
        let Ok((module, _)) = pllvm_semantics::text::parse_module(&src) else {
            continue;
        };
        let Ok(d) = pllvm_corpus::analysis_expect::parse(&src) else {
            continue;
        };
        let func = match &d.function {
            Some(f) => module.function_by_name(f.trim_start_matches('@')),
            None => module.first_definition(),
        };
        let Some(func) = func else { continue };
        let Ok(init) = InitShapes::for_function(&module, func, &d.uniform_args) else {
            continue;
        };
        let mut obs = Vec::new();
        if let Ok(dirs) = pllvm_interp::directives::parse(&src) {
            for r in dirs.runs {
                let mut config = r.config.clone();
                config.function = Some(module.functions[func].name.clone());
                if let Ok(o) = observe_run(&module, &config) {
                    obs.push(o);
                }
            }
        }
        if let Err(e) = compare(&mut tally, &label, &module, func, &init, &obs) {
            failures.push(e);
        }
    }
    let corpus_programs = tally.programs;
    // Generated programs, alternating reducible and irreducible configurations.
    let configs = [
        GenConfig::reducible(),
        GenConfig::small(),
        GenConfig::full(),
    ];
    let target = if long { 1000 } else { usize::MAX };
    let mut seed = 0u64;
    while start.elapsed() < budget && (tally.programs - corpus_programs) < target.max(1) {
        let config = &configs[(seed % 3) as usize];
        let g = generate(seed, config);
        let init = g.init_shapes();
        let width = 2 + (seed % 3) as usize;
        let run = g.run_config(&g.inputs(seed ^ 0x5eed, width), Interp::Freezing);
        let obs: Vec<Observation> = observe_run(&g.module, &run).into_iter().collect();
        if let Err(e) = compare(
            &mut tally,
            &format!("seed {seed}"),
            &g.module,
            g.func,
            &init,
            &obs,
        ) {
            failures.push(e);
        }
        seed += 1;
    }
    let rate = if tally.compared == 0 {
        0.0
    } else {
        100.0 * tally.agree as f64 / tally.compared as f64
    };
    println!(
        "llvm vs opt-22: {} programs ({} corpus, {} generated), {} values compared, {:.2}% agree; \
         pllvm more precise {}, opt-22 more precise {}, not in opt's report {}",
        tally.programs,
        corpus_programs,
        tally.programs - corpus_programs,
        tally.compared,
        rate,
        tally.pllvm_more_precise,
        tally.llvm_more_precise,
        tally.missing
    );
    let (total, other): (Vec<&String>, Vec<&String>) = tally
        .llvm_refuted
        .iter()
        .partition(|r| r.contains("`total`"));
    println!(
        "opt-22 calls uniform, execution shows divergent: {} ({} of them `total` commands)",
        tally.llvm_refuted.len(),
        total.len()
    );
    for r in other {
        println!("  {r}");
    }
    assert!(
        failures.is_empty(),
        "{} failures; the first: {}",
        failures.len(),
        failures[0]
    );
    assert!(tally.compared > 0, "nothing was compared");
    assert!(
        tally.pllvm_refuted.is_empty(),
        "pllvm's llvm analysis refuted: {}",
        tally.pllvm_refuted.join("\n")
    );
    if long {
        assert!(
            tally.programs - corpus_programs >= 1000,
            "the long mode ran fewer than 1000 programs"
        );
    }
}
