//! `pllvm diff-exec FILE... --target T`: differential execution (docs/native.md). Every
//! kernel (see `compile`) runs on the interpreter and natively, all kernels of
//! the command in one compile, link and run; the lanes are compared
//! (`pllvm_differential::diff`). Inputs: the flags (`--threads`, `--arg`,
//! `--mem`, `--input`) for every kernel, or, when none is given, each file's own
//! FREEZING `; run:` lines. Prints one line per run (agreement, or the first
//! difference at its `file:line:col`), or with `--json` one document of schema
//! `pllvm-diff-exec/1`. Exit 0 when everything compared agrees and something
//! was compared, 3 when nothing differs but `--time` cut runs off before they
//! were compared, 1 otherwise (docs/cli.md "Exit codes").

use crate::compile::{LoadedFile, PipelineArgs, Prepared, emit, kernels, prepare};
use crate::errors::{EXIT_TRUNCATED, Usage};
use crate::flags::{self, InputFlags, RunInputs, TimeLimit};
use anyhow::{Result, anyhow};
use clap::Args;
use pllvm_codegen::Site;
use pllvm_codegen::native::protocol::Status;
use pllvm_codegen::native::{self, WorkDir};
use pllvm_differential::diff::{DiffCase, Difference, Reference, Verdict, diff_batch_until};
use pllvm_interp::RunConfig;
use pllvm_interp::directives::{self, RunMode};
use pllvm_semantics::diag::Diagnostic;
use pllvm_semantics::rules::Interp;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// The schema of `--json`.
const SCHEMA: &str = "pllvm-diff-exec/1";

/// `pllvm diff-exec`.
#[derive(Args, Debug)]
#[command(mut_arg("threads", |a| a.short('n').value_name("N").help("n, the number of threads (run in chunks of W)")))]
#[command(mut_arg("args", |a| a.help("An argument, NAME=V or NAME=V0,V1,... (one per thread)")))]
#[command(mut_arg("mem", |a| a.help("Initial contents of a global, @G=V0,V1,...")))]
#[command(mut_arg("input", |a| a.help("Run inputs as JSON (`pllvm run --input`); flags override it")))]
#[command(mut_arg("time", |a| a.help(
    "Stop after this many seconds (fractions allowed; the build by llc-19 or gcc is not interrupted): runs not compared by then are reported as cut off, and the exit code is 3 unless a compared run differs (1)"
)))]
pub(crate) struct DiffExecArgs {
    /// .ll files (one batch).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    pipeline: PipelineArgs,
    #[command(flatten)]
    inputs: RunInputs,
    /// The interpreter run compared with: the original program under FREEZING
    /// (original-fr) or the transformed one under OBLIVIOUS (transformed-obl).
    #[arg(long, value_name = "original-fr|transformed-obl", default_value = "original-fr", value_parser = parse_reference)]
    reference: Reference,
    /// Seconds each kernel may run natively (the runner's alarm).
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    timeout: u32,
    /// Print one JSON document (schema pllvm-diff-exec/1).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    time: TimeLimit,
}

fn parse_reference(text: &str) -> Result<Reference, String> {
    match text {
        "original-fr" => Ok(Reference::OriginalFreezing),
        "transformed-obl" => Ok(Reference::TransformedOblivious),
        other => Err(format!(
            "'{other}' is not a reference (expected original-fr or transformed-obl)"
        )),
    }
}

/// One run of one kernel.
struct Run {
    /// The prepared kernel.
    kernel: usize,
    /// The run's name (`flags`, or the `; run` line's name).
    name: String,
    config: RunConfig,
}

/// Runs `pllvm diff-exec`.
pub(crate) fn main(a: DiffExecArgs) -> Result<ExitCode> {
    // A target the CPU lacks is refused before anything is built, not left to
    // die of an illegal instruction.
    if let Some(why) = a.pipeline.target.host_cannot_run() {
        return Err(Usage(why).into());
    }
    // `--time`: the clock starts with the command; a limit the clock cannot
    // reach is no limit.
    let deadline = a
        .time
        .time
        .and_then(|t| std::time::Instant::now().checked_add(t));
    let spinner = crate::progress::spinner("diff-exec");
    let (loaded, prepared) = prepare(&a.files, &a.pipeline, &crate::watchdog::Watch::unwatched())?;
    let width = a.pipeline.width();
    let from_flags = a.inputs.threads.is_some()
        || !a.inputs.args.is_empty()
        || !a.inputs.mem.is_empty()
        || a.inputs.input.is_some();
    let mut runs = Vec::new();
    for (k, p) in prepared.iter().enumerate() {
        let file = &loaded[p.file];
        let fname = &file.module.functions[p.func].name;
        if from_flags {
            let flags = InputFlags {
                inputs: &a.inputs,
                machine: &flags::NO_MACHINE_FLAGS,
                buffers: &[],
                function: &None,
                schedule: false,
                sched: None,
            };
            let mut config = flags.config()?;
            config.function = Some(fname.clone());
            runs.push(Run {
                kernel: k,
                name: "flags".into(),
                config,
            });
            continue;
        }
        let parsed = directives::parse(&file.src).map_err(|e| anyhow!("{}: {e}", file.name))?;
        for r in parsed.runs {
            let for_this = r
                .config
                .function
                .as_deref()
                .map(|f| f.trim_start_matches('@'));
            if r.config.interp != Interp::Freezing
                || r.transform.is_some()
                || r.config.schedule.is_some()
                || r.mode != RunMode::default()
                || for_this.is_some_and(|f| f != fname)
                || (for_this.is_none() && file.module.first_definition() != Some(p.func))
            {
                continue;
            }
            let mut config = r.config;
            config.function = Some(fname.clone());
            runs.push(Run {
                kernel: k,
                name: r.name,
                config,
            });
        }
    }
    let mut warned = false;
    for r in &runs {
        let p = &prepared[r.kernel];
        let file = &loaded[p.file];
        for w in flags::input_warnings(&file.module, &r.config) {
            let fname = &file.module.functions[p.func].name;
            eprintln!("warning: {} @{fname} [{}]: {w}", file.name, r.name);
            warned = true;
        }
    }
    if runs.is_empty() {
        return Err(Usage(
            "no run: give inputs (--threads, --arg, --mem, --input) or files with FREEZING `; run:` lines".into(),
        )
        .into());
    }
    // One chunk function per run, so that the batch's kernel i is run i.
    let run_kernels: Vec<Prepared> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let p = &prepared[r.kernel];
            Prepared {
                file: p.file,
                func: p.func,
                transformed: p.transformed.clone(),
                kernel: format!("{}_{i}", p.kernel),
                uniform_args: p.uniform_args.clone(),
            }
        })
        .collect();
    let target = a.pipeline.target;
    let source = emit(&loaded, &run_kernels, target, &a.pipeline.emit_options()?)?;
    let dir = WorkDir::new().map_err(|e| anyhow!(e))?;
    let program = native::build(target, &source, dir.path()).map_err(|e| anyhow!(e))?;
    let ks = kernels(&run_kernels);
    let cases: Vec<DiffCase<'_>> = runs
        .iter()
        .zip(&ks)
        .zip(&run_kernels)
        .map(|((r, k), p)| DiffCase {
            kernel: *k,
            original: &loaded[p.file].module,
            original_function: p.func,
            config: r.config.clone(),
        })
        .collect();
    let wall = Duration::from_secs(u64::from(a.timeout) * (cases.len() as u64 + 1) + 60);
    let verdicts = diff_batch_until(
        &program,
        &cases,
        width,
        a.reference,
        a.timeout,
        wall,
        deadline,
    )
    .map_err(|e| anyhow!(e))?;
    crate::progress::finish(spinner);
    // A run `--time` cut off is neither agreement nor a difference: the report
    // is partial (exit 3) unless a run compared differs (docs/cli.md "Time and
    // progress").
    let cut_off = verdicts
        .iter()
        .filter(|v| matches!(v, Verdict::CutOff(_)))
        .count();
    let ok = verdicts
        .iter()
        .all(|v| v.is_ok() || matches!(v, Verdict::CutOff(_)));
    // Honest exit codes (docs/cli.md "Exit codes"): agreement on nothing is no
    // agreement. A run compared nothing when every lane's return value was ⊤
    // (an argument without a value, say) and no global byte was defined, or
    // when the interpreter's run did not return.
    let compared_nothing = |v: &Verdict| {
        matches!(
            v,
            Verdict::Agree { lanes: 0, bytes: 0 } | Verdict::Skipped(_)
        )
    };
    let nothing = verdicts.iter().all(compared_nothing);
    let mut out = std::io::stdout().lock();
    if a.json {
        let items: Vec<serde_json::Value> = runs
            .iter()
            .zip(&run_kernels)
            .zip(&verdicts)
            .map(|((r, p), v)| json_case(&loaded[p.file], p, r, v))
            .collect();
        let doc = serde_json::json!({
            "schema": SCHEMA,
            "target": target.name(),
            "width": width,
            "reference": a.reference.name(),
            // Runs cut off agree on nothing.
            "agree": ok && cut_off == 0,
            "runs": items,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        for ((r, p), v) in runs.iter().zip(&run_kernels).zip(&verdicts) {
            let file = &loaded[p.file];
            let fname = &file.module.functions[p.func].name;
            let n = r.config.threads;
            let head = format!("{} @{fname} [{}, {n} threads]", file.name, r.name);
            let line = match v {
                Verdict::Agree { lanes: 0, bytes: 0 } => format!(
                    "{head}: nothing compared: every lane's return value is ⊤ and no global byte is defined"
                ),
                Verdict::Agree { lanes, bytes } => {
                    format!("{head}: agrees ({lanes} lanes, {bytes} global bytes compared)")
                }
                Verdict::Differ(d) => format!(
                    "{head}: DIFFERS: {}{d}",
                    location(file, d, a.reference).map_or(String::new(), |l| format!("{l}: "))
                ),
                Verdict::NativeFailed(s) => format!("{head}: NATIVE RUN FAILED: {}", status(s)),
                Verdict::Skipped(why) => {
                    format!("{head}: not compared: the interpreter's run ended {why}")
                }
                Verdict::Refused(why) => format!("{head}: REFUSED: {why}"),
                Verdict::CutOff(why) => format!("{head}: not compared, cut off by --time: {why}"),
            };
            writeln!(out, "{line}")?;
        }
    }
    if ok && cut_off > 0 {
        eprintln!(
            "the comparison is partial: the time limit came before {cut_off} of {} runs were compared",
            verdicts.len()
        );
        return Ok(ExitCode::from(EXIT_TRUNCATED));
    }
    if ok && nothing {
        eprintln!(
            "error: nothing was compared: no run left a defined lane or global byte to compare{}",
            if warned {
                " (the warnings above name inputs without values)"
            } else {
                ""
            }
        );
    }
    Ok(if ok && !nothing {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `file:line:col` of the returning terminator, when the reference is the
/// program as written (the transformed one has no source positions).
fn location(file: &LoadedFile, d: &Difference, reference: Reference) -> Option<String> {
    let Difference::Ret {
        site: Some(Site::Terminator(f, b)),
        ..
    } = d
    else {
        return None;
    };
    if reference != Reference::OriginalFreezing {
        return None;
    }
    let span = *file.spans.function(*f).terms.get(*b);
    Some(Diagnostic::error(span, "").location(&file.name, &file.src))
}

fn status(s: &Status) -> String {
    match s {
        Status::Ok(_) => "returned".into(),
        Status::Signal(name) => format!("signal {name}"),
        Status::Timeout => "timeout".into(),
        Status::Exit(code) if *code == pllvm_codegen::scalar_c::DIVERGED_EXIT => format!(
            "exit {code}: active lanes disagreed on a branch (a divergent branch is left; the scalar-c route needs --pass dlt,boscc,pl)"
        ),
        Status::Exit(code) => format!("exit {code}"),
    }
}

fn json_case(file: &LoadedFile, p: &Prepared, r: &Run, v: &Verdict) -> serde_json::Value {
    let mut item = serde_json::json!({
        "file": file.name,
        "function": file.module.functions[p.func].name,
        "run": r.name,
        "threads": r.config.threads,
    });
    let fields = match v {
        Verdict::Agree { lanes, bytes } => {
            serde_json::json!({"verdict": "agree", "lanes": lanes, "bytes": bytes})
        }
        Verdict::Differ(Difference::Ret {
            lane,
            expected,
            native,
            block,
            ..
        }) => serde_json::json!({
            "verdict": "differ",
            "difference": {"kind": "ret", "lane": lane, "expected": expected, "native": native, "block": block},
        }),
        Verdict::Differ(Difference::Global {
            name,
            offset,
            expected,
            native,
        }) => serde_json::json!({
            "verdict": "differ",
            "difference": {"kind": "global", "global": name, "offset": offset, "expected": expected, "native": native},
        }),
        Verdict::NativeFailed(s) => {
            serde_json::json!({"verdict": "native-failed", "status": status(s)})
        }
        Verdict::Skipped(why) => serde_json::json!({"verdict": "skipped", "why": why}),
        Verdict::Refused(why) => serde_json::json!({"verdict": "refused", "why": why}),
        Verdict::CutOff(why) => serde_json::json!({"verdict": "cut-off", "why": why}),
    };
    if let (Some(item), Some(fields)) = (item.as_object_mut(), fields.as_object()) {
        item.extend(fields.clone());
    }
    item
}
