//! Work efficiency of each transform route on each kernel of `corpus/kernels/`
//! (the table in BENCHMARKS.md beside thesis Ch. 13).
//!
//! For every kernel, the first FR run of the file (its inputs and W) is run on
//! the original program under FREEZING, and on the output of each route under
//! OBLIVIOUS, with the default greedy scheduler (`pllvm run`'s default); the
//! parameters a file's `; analyze: --uniform-args` names are uniform for the
//! transforms (`pllvm transform --uniform-args`). The
//! counts (`pllvm_interp::work`): scheduled blocks, issued instructions (phis and
//! commands per scheduled block), active lane-instructions and the active share;
//! the last column is issued instructions relative to full if-conversion. A route
//! whose results differ from the original's says so (it must not).
//!
//! Run: `cargo bench -p pllvm-differential --bench work_efficiency`. It calls the
//! library the `pllvm transform` and `pllvm run` commands call, so that one
//! process measures every route on the same inputs.

use pllvm_codegen::pipeline::{Options, Pass, run_passes};
use pllvm_interp::directives;
use pllvm_interp::work::{Work, measure};
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::parse_module;
use std::path::Path;

const ROUTES: [(&str, &[Pass]); 5] = [
    ("ifconv", &[Pass::IfConv]),
    ("dlt", &[Pass::Dlt]),
    ("dlt,pl", &[Pass::Dlt, Pass::Pl]),
    ("dlt,boscc,pl", &[Pass::Dlt, Pass::Boscc, Pass::Pl]),
    ("reconverge", &[Pass::Reconverge]),
];

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/kernels");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "ll"));
    files.sort();
    if files.is_empty() {
        eprintln!("work_efficiency: no kernels in {}", dir.display());
        std::process::exit(1);
    }
    println!(
        "| kernel | W | route | blocks | issued | active lane-insts | active share | issued vs ifconv |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut failed = false;
    for path in files {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        let src = std::fs::read_to_string(&path).unwrap_or_default();
        let Ok((module, _)) = parse_module(&src) else {
            eprintln!("{name}: does not parse");
            failed = true;
            continue;
        };
        let Ok(d) = directives::parse(&src) else {
            eprintln!("{name}: directives do not parse");
            failed = true;
            continue;
        };
        let Some(run) = d
            .runs
            .iter()
            .filter(|r| r.transform.is_none() && r.config.interp == Interp::Freezing)
            .max_by_key(|r| r.config.threads)
        else {
            eprintln!("{name}: no FR run to take inputs from");
            continue;
        };
        // `; analyze: --uniform-args a,b`: the parameters every run gives one value.
        let uniform_args: Vec<String> = src
            .lines()
            .filter_map(|l| l.trim().strip_prefix("; analyze:"))
            .flat_map(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                words
                    .windows(2)
                    .filter(|w| w[0] == "--uniform-args")
                    .flat_map(|w| w[1].split(',').map(str::to_string).collect::<Vec<_>>())
                    .collect::<Vec<_>>()
            })
            .collect();
        let options = Options {
            uniform_args,
            ..Options::default()
        };
        let mut config = run.config.clone();
        config.schedule = None;
        let Some(func) = module.first_definition() else {
            continue;
        };
        let (_, original, want) = match measure(&module, &config) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{name}: original run failed: {e}");
                failed = true;
                continue;
            }
        };
        row(&name, "original (FR)", &original, None, "");
        let mut baseline: Option<Work> = None;
        config.interp = Interp::Oblivious;
        for (route, passes) in ROUTES {
            let stages = match run_passes(&module, func, passes, &options) {
                Ok(s) => s,
                Err(e) => {
                    println!(
                        "| {name} | {} | {route} | refused: {} | | | | |",
                        config.threads, e.message
                    );
                    continue;
                }
            };
            let Some(last) = stages.last() else { continue };
            match measure(&last.module, &config) {
                Ok((_, work, got)) => {
                    let agrees = got.iter().zip(&want).all(|(g, w)| {
                        w.as_ref()
                            .is_none_or(|w| w.is_undef() || Some(w) == g.as_ref())
                    });
                    if !agrees {
                        failed = true;
                    }
                    if route == "ifconv" {
                        baseline = Some(work);
                    }
                    row(
                        &name,
                        route,
                        &work,
                        baseline.as_ref(),
                        if agrees { "" } else { " (RESULTS DIFFER)" },
                    );
                }
                Err(e) => {
                    println!(
                        "| {name} | {} | {route} | run failed: {e} | | | | |",
                        config.threads
                    );
                    failed = true;
                }
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}

fn row(kernel: &str, route: &str, w: &Work, baseline: Option<&Work>, mark: &str) {
    let ratio = baseline
        .filter(|b| b.issued > 0)
        .map(|b| format!("{:.2}x", w.issued as f64 / b.issued as f64))
        .unwrap_or_default();
    println!(
        "| {kernel} | {} | {route}{mark} | {} | {} | {} | {:.1}% | {ratio} |",
        w.width,
        w.scheduled_blocks,
        w.issued,
        w.active_lane_insts,
        100.0 * w.active_share()
    );
}
