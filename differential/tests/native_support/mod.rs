//! Shared pieces of the native tests: the tools check (missing tools fail
//! loudly, naming the apt package), programs after `dlt,boscc,pl`, the FREEZING
//! runs of a corpus file, and one differential batch.

use pllvm_codegen::Kernel;
use pllvm_codegen::native::{Program, Source, Target, WorkDir, build, tools_for};
use pllvm_codegen::pipeline::{Options, parse_passes, run_passes};
use pllvm_differential::diff::{DiffCase, Reference, Verdict, diff_batch};
use pllvm_interp::RunConfig;
use pllvm_interp::directives::{self, RunMode};
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::{FuncId, Module};
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::parse_module;
use pllvm_semantics::verify::verify_module;
use std::time::Duration;

/// Fails (never passes silently) when a tool the target needs is missing,
/// naming the apt package; says so more sharply when `CI` is set.
#[allow(dead_code, reason = "not every test file builds every target")]
pub(crate) fn require_tools(target: Target, source: &Source) {
    for tool in tools_for(target, source) {
        if !tool.is_installed() {
            let ci = if std::env::var_os("CI").is_some() {
                "CI is set and "
            } else {
                ""
            };
            panic!(
                "{ci}{} is missing: this test needs it (apt-get install {}, or run scripts/test-all.sh)",
                tool.command, tool.package
            );
        }
    }
}

/// A parsed and verified module.
pub(crate) fn module(src: &str) -> Module {
    let (m, spans) = parse_module(src).expect("the test program parses");
    let report = verify_module(&m, &spans);
    assert!(report.is_ok(), "{:?}", report.errors);
    m
}

/// `func` of `m` after `dlt,boscc,pl`.
#[allow(dead_code, reason = "not every test file transforms with the defaults")]
pub(crate) fn transformed(m: &Module, func: FuncId) -> Result<Module, String> {
    transformed_for(m, func, &Options::default())
}

/// The same with `options` (e.g. the live-outs `pllvm compile` keeps for a target).
pub(crate) fn transformed_for(
    m: &Module,
    func: FuncId,
    options: &Options,
) -> Result<Module, String> {
    let passes = parse_passes("dlt,boscc,pl")?;
    let stages = run_passes(m, func, &passes, options).map_err(|e| e.to_string())?;
    let out = stages.into_iter().last().ok_or("no stage")?.module;
    let report = verify_module(&out, &SourceMap::default());
    if !report.is_ok() {
        return Err(format!(
            "the transformed program does not verify: {:?}",
            report.errors
        ));
    }
    Ok(out)
}

/// The FREEZING runs of a corpus file without a pinned schedule or transform:
/// (name, configuration).
#[allow(dead_code, reason = "not every test file reads the corpus")]
pub(crate) fn freezing_runs(src: &str) -> Vec<(String, RunConfig)> {
    directives::parse(src)
        .expect("the directives parse")
        .runs
        .into_iter()
        .filter(|r| {
            r.config.interp == Interp::Freezing
                && r.transform.is_none()
                && r.config.schedule.is_none()
                && r.mode == RunMode::default()
        })
        .map(|r| (r.name, r.config))
        .collect()
}

/// Builds `source` for `target` in `dir`.
pub(crate) fn program(target: Target, source: &Source, dir: &WorkDir) -> Program {
    require_tools(target, source);
    build(target, source, dir.path()).unwrap_or_else(|e| panic!("{e}\n{}", source.text()))
}

/// One differential batch: the verdicts of `cases` against `reference`.
pub(crate) fn verdicts(
    program: &Program,
    cases: &[DiffCase<'_>],
    width: usize,
    reference: Reference,
) -> Vec<Verdict> {
    diff_batch(
        program,
        cases,
        width,
        reference,
        10,
        Duration::from_secs(120),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A case of `func` in `original`, compiled from `transformed`.
pub(crate) fn case<'m>(
    name: &'m str,
    original: &'m Module,
    transformed: &'m Module,
    func: FuncId,
    config: RunConfig,
) -> DiffCase<'m> {
    DiffCase {
        kernel: Kernel {
            name,
            module: transformed,
            function: func,
            uniform_args: &[],
        },
        original,
        original_function: func,
        config,
    }
}
