//! The `pllvm` command: the only crate that does IO (docs/design/style.md §1).
//! This file parses the command line and hands each subcommand to its module;
//! the shared pieces are modules of their own, below every subcommand: the run
//! flags (`flags`), loading a program with its source positions (`source`),
//! standard output (`output`) and the errors `main` renders (`errors`).
//!
//! Exit codes (docs/cli.md "Conventions"): 0 success, 1 the program or the input
//! is wrong (parse, verify, setup or run errors, undefined behaviour) or the
//! command found nothing to stand on (`diff-exec` compared nothing, every ending
//! `explore` found is undefined), 2 the command line is wrong (clap's usage
//! errors, and `errors::Usage`: a flag naming what the program lacks), 3
//! `explore` was cut off (`--max-states`, `--max-steps`, `--time` or Ctrl-C), or
//! `transform --check`, `diff-exec` or `analyze --compare-llvm` by `--time`, and
//! its report is partial, or `analyze`, `transform` or `compile` by `--time`,
//! and it printed and wrote nothing (`watchdog`).

mod analyze;
mod check;
mod check_llvm_pass;
mod compare_llvm;
mod compile;
mod default_program;
mod diff_exec;
mod dumps;
mod errors;
mod explore;
mod flags;
mod fuzz;
mod graphviz;
mod grid;
mod host;
mod interrupt;
mod output;
mod progress;
mod repl;
mod run;
mod source;
mod trace_html;
mod transform;
mod watchdog;

/// The allocator of the `pllvm` process: jemalloc instead of the system malloc.
/// Parsing, normalizing and analyzing a large module allocate many small vectors
/// and strings; with glibc's malloc, allocation, freeing and page faults were
/// about a fifth of `pllvm analyze` on a 300k-block CFG (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use anyhow::Result;
use clap::{Parser, Subcommand};
use errors::{Rendered, Usage};
use std::process::ExitCode;

/// pllvm: the executable semantics of P-LLVM, the predicated SPMD extension of LLVM IR.
#[derive(Parser, Debug)]
#[command(name = "pllvm", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse and verify a program (thesis §4.10); with no FILE, the embedded default program.
    Check(check::FileArg),
    /// Print a program in canonical P-LLVM text.
    Print(check::FileArg),
    /// Write plain LLVM IR that opt accepts (P-LLVM additions lowered to @pllvm.* calls and metadata).
    ExportLlvm(check::FileArg),
    /// Run a program on a thread array (thesis Ch. 4); with no FILE, the logstar example of Fig. 3.20-3.22.
    Run(run::RunArgs),
    /// Step a thread array through a program block by block, interactively (or from a script on stdin).
    Repl(repl::ReplArgs),
    /// Explore every greedy schedule (thesis Def. 12): distinct outcomes, schedule independence,
    /// concurrent next blocks (Def. 20) and Theorem 1.
    Explore(explore::ExploreArgs),
    /// Divergence analyses (thesis Ch. 6-7, POPL'21): the shape of every value, branch and block.
    Analyze(analyze::AnalyzeArgs),
    /// The vectorizing transforms (thesis Ch. 8-9): divergent loop transform (dlt), BOSCC
    /// gadgets (boscc), partial linearization (pl), reconverging CFGs (reconverge), full
    /// if-conversion (ifconv); before them, divisions by powers of two of known
    /// non-negative dividends made shifts (nonneg-div).
    Transform(transform::TransformArgs),
    /// Compile kernels to native code (docs/native.md): the transforms, then vector LLVM IR
    /// for avx2, avx512 or neon, or scalar-lane C; as source, object or a program
    /// linked with the runner.
    Compile(compile::CompileArgs),
    /// Differential execution (docs/native.md): the interpreter against native code, lane by
    /// lane, for a batch of kernels compiled, linked and run once.
    DiffExec(diff_exec::DiffExecArgs),
    /// One of LLVM's control-flow passes checked by execution (docs/fuzzing.md): opt-22
    /// runs it on the exported program, and its output under OBLIVIOUS must refine the
    /// program under FREEZING on the run inputs.
    CheckLlvmPass(check_llvm_pass::CheckLlvmPassArgs),
    /// Differential fuzzing campaigns over generated programs (docs/fuzzing.md):
    /// oracles by name, findings shrunk and written to --out/findings.
    Fuzz(fuzz::FuzzArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = cli
        .command
        .unwrap_or(Command::Run(run::RunArgs::default_run()));
    match dispatch(command) {
        Ok(code) => code,
        Err(e) => {
            if let Some(usage) = e.downcast_ref::<Usage>() {
                eprintln!("error: {usage}\n\nFor more information, try '--help'.");
                return ExitCode::from(2);
            }
            match e.downcast_ref::<Rendered>() {
                Some(diagnostics) => eprintln!("{diagnostics}"),
                None => eprintln!("error: {e:#}"),
            }
            ExitCode::from(1)
        }
    }
}

/// Runs one subcommand.
fn dispatch(command: Command) -> Result<ExitCode> {
    match command {
        Command::Check(f) => check::check(f),
        Command::Print(f) => check::print(f),
        Command::ExportLlvm(f) => check::export_llvm(f),
        Command::Run(r) => run::main(r),
        Command::Repl(r) => repl::main(r),
        Command::Explore(e) => explore::main(e),
        Command::Analyze(a) => analyze::main(a),
        Command::Transform(t) => transform::main(t),
        Command::Compile(c) => compile::main(c),
        Command::DiffExec(d) => diff_exec::main(d),
        Command::CheckLlvmPass(c) => check_llvm_pass::main(c),
        Command::Fuzz(f) => fuzz::main(f),
    }
}
