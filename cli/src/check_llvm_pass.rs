//! `pllvm check-llvm-pass FILE --passes P`: one of LLVM's control-flow passes
//! checked by execution on one program (docs/cli.md; docs/fuzzing.md, "LLVM's
//! control-flow transforms"). The program is exported for AMDGPU, `opt-22` runs
//! the passes, its output is read back, and the output under OBLIVIOUS must
//! refine the program under FREEZING on the run inputs, on every greedy schedule
//! when the exploration finishes (as `transform --check`). The work is the
//! `llvm-transforms` oracle's (`pllvm_fuzz::oracles::llvm_transforms`).

use crate::errors::{EXIT_TRUNCATED, Usage};
use crate::flags::{self, InputFlags, RunInputs};
use crate::source::load;
use anyhow::{Result, anyhow};
use clap::Args;
use pllvm_fuzz::oracles::llvm_transforms::{
    OPT, Original, PassCheck, check_with_opt, equiv_config, opt_command, pipeline, precondition,
};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// `pllvm check-llvm-pass`'s flags.
#[derive(Args, Debug)]
#[command(mut_arg("threads", |a| a.help("W, the number of lanes")))]
pub(crate) struct CheckLlvmPassArgs {
    /// A .ll file (`-` reads standard input).
    file: PathBuf,
    /// A pipeline by name (structurizecfg, structurizecfg-skip-uniform,
    /// fix-irreducible, unify-loop-exits, lower-switch,
    /// amdgpu-unify-divergent-exit-nodes, amdgpu-structurizer) or opt's own
    /// `-passes=` text, given to opt as it is.
    #[arg(long, value_name = "P")]
    passes: String,
    /// Parameters opt may call uniform (`inreg`), by name, comma-separated; the
    /// others are divergent.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    uniform_args: Vec<String>,
    /// The function to check (default: the first definition).
    #[arg(long, value_name = "NAME")]
    function: Option<String>,
    /// Write opt's output (the module checked) to this file.
    #[arg(long, value_name = "OUT.ll")]
    emit: Option<PathBuf>,
    /// Write opt's input (the program exported for AMDGPU) to this file.
    #[arg(long, value_name = "IN.ll")]
    emit_input: Option<PathBuf>,
    #[command(flatten)]
    inputs: RunInputs,
    /// Most distinct states an exploration may visit before the check falls
    /// back to scheduler runs.
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    max_states: usize,
}

/// Runs `pllvm check-llvm-pass`.
pub(crate) fn main(a: CheckLlvmPassArgs) -> Result<ExitCode> {
    let (module, _, name, _) = load(&Some(a.file.clone()))?;
    let func = crate::transform::function(&module, &a.function, &name)?;
    let params = &module.functions[func].params;
    let body = module.functions[func]
        .body
        .as_ref()
        .ok_or_else(|| anyhow!("{name}: the function has no body"))?;
    let param_names: Vec<String> = params
        .iter()
        .map(|p| body.value_name(p.value).unwrap_or_default().to_string())
        .collect();
    for u in &a.uniform_args {
        let u = u.trim_start_matches('%');
        if !param_names.iter().any(|p| p == u) {
            return Err(Usage(format!(
                "--uniform-args: the function has no parameter %{u}"
            ))
            .into());
        }
    }
    let uniform: Vec<bool> = param_names
        .iter()
        .map(|p| {
            a.uniform_args
                .iter()
                .any(|u| u.trim_start_matches('%') == p)
        })
        .collect();
    let named = pipeline(&a.passes);
    let passes = named.map_or(a.passes.as_str(), |p| p.passes);
    let mut out = std::io::stdout().lock();
    writeln!(out, "opt: {}", opt_command(passes))?;
    if let Some(p) = named
        && let Some(why) = precondition(&module, func, p)
    {
        writeln!(out, "skipped: not an input the pass is meant for: {why}")?;
        return Ok(ExitCode::from(EXIT_TRUNCATED));
    }
    let flags = InputFlags {
        inputs: &a.inputs,
        machine: &flags::NO_MACHINE_FLAGS,
        buffers: &[],
        function: &a.function,
        schedule: false,
        sched: None,
    };
    let run = flags.config()?;
    for w in flags::input_warnings(&module, &run) {
        eprintln!("warning: {w}");
    }
    let mut config = equiv_config(run);
    config.bounds.max_states = a.max_states;
    let original = Original::new(&module, &config)
        .map_err(|e| anyhow!("{name}: the program under FR on these inputs: {e}"))?;
    let checked = check_with_opt(&original, func, &uniform, OPT, passes);
    if let Some(path) = &a.emit_input {
        std::fs::write(path, &checked.input)
            .map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    }
    if let (Some(path), Some(text)) = (&a.emit, &checked.output) {
        std::fs::write(path, text).map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    }
    Ok(match checked.check {
        PassCheck::OptFails(e) => {
            writeln!(out, "opt fails: {e}")?;
            ExitCode::from(1)
        }
        PassCheck::Unreadable(e) => {
            writeln!(out, "opt's output is unreadable by pllvm:\n{e}")?;
            ExitCode::from(1)
        }
        PassCheck::Refines(summary) => {
            writeln!(out, "ok: {summary}")?;
            ExitCode::SUCCESS
        }
        PassCheck::Undecided(why) => {
            writeln!(out, "not decided: {why}")?;
            ExitCode::from(EXIT_TRUNCATED)
        }
        PassCheck::DiffersUnderFr(d) => {
            writeln!(out, "DIFFERS under FR: {d}")?;
            writeln!(
                out,
                "the output run under FR differs too: the pass changed what a lane computes"
            )?;
            ExitCode::from(1)
        }
        PassCheck::ObliviousOnly {
            difference,
            input: None,
        } => {
            writeln!(out, "DIFFERS under OBL: {difference}")?;
            writeln!(
                out,
                "under FR the output refines the program, which refines itself under OBL: the pass lost a passive lane's value"
            )?;
            ExitCode::from(1)
        }
        PassCheck::ObliviousOnly {
            difference,
            input: Some(naive),
        } => {
            writeln!(
                out,
                "ok under FR; under OBL the output differs as the program itself does (a divergent loop's live-out the pass kept, Fig. 3.21)"
            )?;
            writeln!(out, "  the output under OBL: {difference}")?;
            writeln!(out, "  the program under OBL: {naive}")?;
            ExitCode::SUCCESS
        }
    })
}
