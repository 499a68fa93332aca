//! The `pllvm` command: the only crate that does IO (STYLE §1).
//!
//! Exit codes: 0 success, 1 the program or the input is wrong (parse, verify, setup
//! or run errors, undefined behaviour), 2 the command line is wrong (clap's usage
//! errors), 3 `explore` was cut off (`--max-states`, `--max-steps`, `--time` or
//! Ctrl-C) and its report is partial.

mod analyze;
mod compare_llvm;
mod compile;
mod default_program;
mod diff_exec;
mod dumps;
mod fuzz;
mod graphviz;
mod grid;
mod interrupt;
mod repl;
mod trace_html;
mod transform;

/// The allocator of the `pllvm` process: mimalloc instead of the system malloc.
/// Parsing, normalizing and analyzing a large module allocate many small vectors
/// and strings; with glibc's malloc, allocation, freeing and page faults were
/// about a fifth of `pllvm analyze` on a 300k-block CFG (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use anyhow::{Context, Result, anyhow};
use clap::{Args, Parser, Subcommand};
use pllvm_analysis::cycles::DfsOrder;
use pllvm_analysis::stride::ThreadIds;
use pllvm_interp::config::{parse_byte_size, parse_exec, parse_interp, parse_width};
use pllvm_interp::explore::ExploreError;
use pllvm_interp::explore::{Bounds, Order};
use pllvm_interp::greedy::{self, GreedyFacts};
use pllvm_interp::sched::{self, Interactive, Replay, Scheduler};
use pllvm_interp::{Machine, Outcome, RunConfig, RunError, SetupError, SetupInput, trace};
use pllvm_semantics::diag::{Diagnostic, LineIndex, SourceMap, render_all};
use pllvm_semantics::ir::{FuncId, Module};
use pllvm_semantics::rules::{Program, Ub};
use pllvm_semantics::text;
use pllvm_semantics::verify::verify_module;
use std::io::Write as _;
use std::path::PathBuf;
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
    Check(FileArg),
    /// Print a program in canonical P-LLVM text.
    Print(FileArg),
    /// Write plain LLVM IR that opt accepts (P-LLVM additions lowered to @pllvm.* calls and metadata).
    ExportLlvm(FileArg),
    /// Run a program on a thread array (thesis Ch. 4); with no FILE, the logstar example of Fig. 3.20-3.22.
    Run(RunArgs),
    /// Step a thread array through a program block by block, interactively (or from a script on stdin).
    Repl(repl::ReplArgs),
    /// Explore every greedy schedule (thesis Def. 12): distinct outcomes, schedule independence,
    /// concurrent next blocks (Def. 20) and Theorem 1.
    Explore(ExploreArgs),
    /// Divergence analyses (thesis Ch. 6-7, POPL'21): the shape of every value, branch and block.
    Analyze(AnalyzeArgs),
    /// The vectorizing transforms (thesis Ch. 8-9): divergent loop transform (dlt), BOSCC
    /// gadgets (boscc), partial linearization (pl), reconverging CFGs (reconverge), full
    /// if-conversion (ifconv); before them, divisions by powers of two of known
    /// non-negative dividends made shifts (nonneg-div).
    Transform(transform::TransformArgs),
    /// Compile kernels to native code (issue 17): the transforms, then vector LLVM IR
    /// for avx2, avx512 or neon, or scalar-lane C; as source, object or a program
    /// linked with the runner.
    Compile(compile::CompileArgs),
    /// Differential execution (issue 17): the interpreter against native code, lane by
    /// lane, for a batch of kernels compiled, linked and run once.
    DiffExec(diff_exec::DiffExecArgs),
    /// Differential fuzzing campaigns over generated programs (docs/fuzzing.md):
    /// oracles by name, findings shrunk and written to --out/findings.
    Fuzz(fuzz::FuzzArgs),
}

#[derive(Args, Debug)]
struct ExploreArgs {
    /// A .ll file.
    file: PathBuf,
    /// W, the number of lanes (threads) of the thread array: 1 to 4096.
    #[arg(long, short = 'w', value_name = "W", value_parser = parse_width)]
    threads: Option<usize>,
    /// The interpretation: fr (FREEZING) or obl (OBLIVIOUS), thesis §4.5.
    #[arg(long, value_name = "fr|obl", value_parser = parse_interp)]
    interp: Option<pllvm_semantics::rules::Interp>,
    /// How the rules run: reference (lane by lane, the definition) or fast (their
    /// kernels, the default); both give the same exploration.
    #[arg(long, value_name = "reference|fast", value_parser = parse_exec)]
    exec: Option<pllvm_semantics::rules::Exec>,
    /// An argument: NAME=V for every lane, NAME=V0,V1,... for one value per lane.
    #[arg(long = "arg", value_name = "NAME=V[,V...]", value_parser = arg_flag)]
    args: Vec<String>,
    /// Initial contents of a global: @G=V0,V1,...
    #[arg(long = "mem", value_name = "@G=V,...", value_parser = mem_flag)]
    mem: Vec<String>,
    /// Run inputs as JSON (threads, interp, args, memory); flags override it.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Track definition masks and report uses they do not cover (Def. 10-11).
    #[arg(long)]
    strict: bool,
    /// The function to explore (default: the first definition).
    #[arg(long, value_name = "NAME")]
    function: Option<String>,
    /// Most distinct states to explore.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    max_states: usize,
    /// Longest schedule to explore.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    max_steps: usize,
    /// Most bytes of guest memory live at once (globals, inputs, allocas); beyond it
    /// the run ends with a limit outcome (exit 1). Suffixes K, M, G, T (powers of
    /// 1024); default 1G.
    #[arg(long, value_name = "BYTES", value_parser = parse_byte_size)]
    memory_limit: Option<u64>,
    /// Successor order: lowest, highest or random:SEED (changes witnesses, not outcomes).
    #[arg(long, value_name = "ORDER", default_value = "lowest")]
    order: String,
    /// Stop exploring after this many seconds (the report then says truncated and
    /// the exit code is 3, as for --max-states, --max-steps and Ctrl-C).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    time: Option<std::time::Duration>,
    /// Print the graph of explored states and outcomes as Graphviz instead of the
    /// report: transitions labelled with the scheduled block, outcome nodes, and
    /// where a bound cut the search.
    #[arg(long)]
    dot: bool,
    /// Print that graph as SVG, laid out by Graphviz's `dot` (at most
    /// 2,000 states: lower --max-states for larger programs).
    #[arg(long, conflicts_with = "dot")]
    svg: bool,
}

/// Most states `pllvm explore --svg` lays out: Graphviz's layout grows faster
/// than linearly (BENCHMARKS.md); `--dot` prints any number.
const EXPLORE_SVG_MAX_STATES: usize = 2_000;

/// `--time SECONDS`: a positive number of seconds (fractions allowed).
fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| format!("'{text}' is not a positive number of seconds"))
}

/// The exit code of an exploration the bounds, `--time` or Ctrl-C cut off: its
/// report is partial.
const EXIT_TRUNCATED: u8 = 3;

#[derive(Args, Debug)]
struct AnalyzeArgs {
    /// A .ll file.
    file: PathBuf,
    /// Which analysis: thesis, popl, llvm, sa or all (comma-separated names allowed).
    #[arg(
        long,
        value_name = "thesis|popl|llvm|sa|all",
        default_value = "all",
        value_parser = analysis_flag
    )]
    analysis: String,
    /// `sa`: the thread array has at most W lanes (thesis Fig. 10.12); default: any.
    #[arg(long, value_name = "W", value_parser = clap::value_parser!(u32).range(1..))]
    width: Option<u32>,
    /// `sa`: the W lanes are one chunk of a larger thread array, lane t's thread
    /// id c·W + t (as `pllvm compile` and `diff-exec` widen it) instead of t.
    #[arg(long, requires = "width")]
    chunk: bool,
    /// Parameters that are uniform (InitShapes, Listing 1); all others are varying.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    uniform_args: Vec<String>,
    /// The function to analyse (default: the first definition).
    #[arg(long, value_name = "NAME")]
    function: Option<String>,
    /// Print a JSON report.
    #[arg(long, conflicts_with_all = ["dot", "svg"])]
    json: bool,
    /// Compare the `llvm` analysis with opt-22's (and opt-19's) `print<uniformity>`
    /// and with what the file's `; run:` lines observed.
    #[arg(long, conflicts_with_all = ["dot", "json", "svg"])]
    compare_llvm: bool,
    /// Print the CFG as Graphviz (divergent branches, joins, divergent loops coloured).
    #[arg(long)]
    dot: bool,
    /// Print only counts (divergent values, branches, joins, loops); the analysis
    /// runs in full. For large functions.
    #[arg(long, conflicts_with_all = ["dot", "json", "compare_llvm", "svg"])]
    summary: bool,
    /// Print the CFGs as one SVG picture laid out by Graphviz's `dot` (colours as
    /// --dot, every function and analysis, with a legend).
    #[arg(long, conflicts_with = "dot")]
    svg: bool,
    /// The DFS whose cycle hierarchy the `llvm` analysis uses (it picks the headers
    /// of irreducible cycles): `llvm`, as LLVM's CycleInfo (successors in reverse
    /// order), or `index`, the documented DFS (successors in order).
    #[arg(long, value_name = "llvm|index", default_value = "llvm", value_parser = cycle_order_flag)]
    cycle_order: DfsOrder,
}

fn cycle_order_flag(text: &str) -> Result<DfsOrder, String> {
    DfsOrder::parse(text).ok_or_else(|| format!("`{text}` is not a cycle order: llvm or index"))
}

#[derive(Args, Debug)]
struct FileArg {
    /// A .ll file (plain LLVM IR or P-LLVM); the embedded default program if absent.
    file: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// A .ll file; the embedded logstar walk-through if absent (which takes no options).
    file: Option<PathBuf>,
    /// W, the number of lanes (threads) of the thread array: 1 to 4096.
    #[arg(long, short = 'w', value_name = "W", value_parser = parse_width, requires = "file")]
    threads: Option<usize>,
    /// The interpretation: fr (FREEZING) or obl (OBLIVIOUS), thesis §4.5.
    #[arg(long, value_name = "fr|obl", value_parser = parse_interp, requires = "file")]
    interp: Option<pllvm_semantics::rules::Interp>,
    /// How the rules run: reference (lane by lane, the definition) or fast (their
    /// kernels, the default); both give the same run.
    #[arg(long, value_name = "reference|fast", value_parser = parse_exec, requires = "file")]
    exec: Option<pllvm_semantics::rules::Exec>,
    /// A runtime schedule (Def. 5): block names separated by commas. The run executes it
    /// and reports the first step that is not greedy (Def. 12-18).
    #[arg(
        long,
        value_name = "A,B,C",
        conflicts_with = "sched",
        requires = "file"
    )]
    schedule: Option<String>,
    /// A scheduler (thesis Ch. 5): lowest, highest, random:SEED, replay:FILE, interactive, ipd.
    #[arg(long, value_name = "POLICY", requires = "file", value_parser = sched_flag)]
    sched: Option<String>,
    /// An argument: NAME=V for every lane, NAME=V0,V1,... for one value per lane.
    #[arg(long = "arg", value_name = "NAME=V[,V...]", value_parser = arg_flag)]
    args: Vec<String>,
    /// Initial contents of a global: @G=V0,V1,...
    #[arg(long = "mem", value_name = "@G=V,...", requires = "file", value_parser = mem_flag)]
    mem: Vec<String>,
    /// Run inputs as JSON (threads, interp, args, memory, schedule); flags override it.
    #[arg(long, value_name = "FILE", requires = "file")]
    input: Option<PathBuf>,
    /// Print the trace as a table (thesis Fig. 4.5b layout), as JSON, or as an HTML
    /// page that steps through the run (CFG drawn by Graphviz's dot; see -o).
    #[arg(long, value_name = "table|json|html", requires = "file")]
    trace: Option<TraceFormat>,
    /// With --trace html: write the page to FILE and print the run's report as
    /// usual (without -o the page alone goes to standard output).
    #[arg(long, short = 'o', value_name = "FILE", requires = "trace")]
    output: Option<PathBuf>,
    /// Most trace rows kept for --trace and --convergence: the first N rows and the
    /// latest, with a "… K rows omitted" line between. Default: 10,000 (fewer above
    /// W = 104: N × W ≤ 2^20).
    #[arg(long, value_name = "N", requires = "file")]
    trace_limit: Option<usize>,
    /// Show the values each block writes under its trace row.
    #[arg(long, requires = "file")]
    values: bool,
    /// Track definition masks and report uses they do not cover (Def. 10-11).
    #[arg(long, requires = "file")]
    strict: bool,
    /// Print which instructions and branches diverged in this run.
    #[arg(long, requires = "file")]
    divergence: bool,
    /// Print the run's dynamic convergence (LLVM "Convergence and Uniformity"): the maximal
    /// converged-with relation, m-converged blocks, and what lock step put together.
    #[arg(long, requires = "file")]
    convergence: bool,
    /// The function to run (default: the first definition).
    #[arg(long, value_name = "NAME", requires = "file")]
    function: Option<String>,
    /// Stop after this many scheduled blocks.
    #[arg(long, value_name = "N", requires = "file")]
    max_steps: Option<u64>,
    /// Most bytes of guest memory live at once (globals, inputs, allocas); beyond it
    /// the run ends with a limit outcome (exit 1). Suffixes K, M, G, T (powers of
    /// 1024); default 1G.
    #[arg(long, value_name = "BYTES", value_parser = parse_byte_size, requires = "file")]
    memory_limit: Option<u64>,
    /// Launch N threads as ⌈N/W⌉ thread arrays of W lanes (--threads, default 32
    /// here), run in parallel (docs/launch.md).
    #[arg(long, value_name = "N", requires = "file")]
    grid: Option<u64>,
    /// With --grid: threads per work-group, a multiple of W (default: the whole
    /// grid); thread ids count within a group.
    #[arg(long, value_name = "G", requires = "grid")]
    group: Option<u64>,
    /// With --grid: host threads running thread arrays at once (default: all cores).
    #[arg(long, value_name = "J", requires = "grid", value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,
    /// With --grid: the parameter that gets each thread's global id.
    #[arg(long, value_name = "NAME", requires = "grid")]
    lane_id: Option<String>,
    /// A buffer bound to the pointer parameter of its name (or position):
    /// `NAME=TYPE[LEN]` (zero-filled), `NAME=TYPE:FILE` (raw little-endian), or
    /// `NAME=TYPE[LEN]:FILE`.
    #[arg(long = "buffer", value_name = "NAME=TYPE[LEN]|NAME=TYPE:FILE", requires = "file", value_parser = buffer_flag)]
    buffers: Vec<String>,
    /// After the run, print a buffer's (or @GLOBAL's) contents; NAME=FILE writes
    /// its raw bytes to FILE instead.
    #[arg(long = "dump", value_name = "NAME[=FILE]", requires = "file", value_parser = dumps::parse)]
    dumps: Vec<dumps::DumpSpec>,
    /// Print one JSON document on stdout (schema pllvm-run/1): outcome, results,
    /// dumps, and the trace, divergence or convergence when asked for.
    #[arg(long, requires = "file")]
    json: bool,
}

/// `--buffer NAME=...`, checked for its shape when the command line is parsed.
fn buffer_flag(text: &str) -> Result<String, String> {
    RunConfig::default().add_buffer(text)?;
    Ok(text.to_string())
}

/// The version of `pllvm run --trace json`'s document: it changes when a field is
/// renamed or removed or its meaning changes, not when a field is added.
const RUN_SCHEMA: &str = "pllvm-run/1";

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum TraceFormat {
    Table,
    Json,
    /// One self-contained page (`trace_html`).
    Html,
}

/// Standard output for every subcommand's report. A reader that goes away
/// (`pllvm print big.ll | head -1`) ends the process quietly with status 0, as a
/// Unix filter ends on SIGPIPE, instead of a panic in `print!` (issue 14).
fn stdout() -> PipeStdout {
    PipeStdout(std::io::stdout())
}

/// [`std::io::Stdout`] whose broken pipe is a quiet exit (see [`stdout`]).
struct PipeStdout(std::io::Stdout);

impl std::io::Write for PipeStdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        exit_on_broken_pipe(self.0.write(buf))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        exit_on_broken_pipe(self.0.flush())
    }
}

/// Exits with status 0, printing nothing, when `result` says the reader of
/// standard output has gone; otherwise returns `result`.
fn exit_on_broken_pipe<T>(result: std::io::Result<T>) -> std::io::Result<T> {
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        other => other,
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = cli.command.unwrap_or(Command::Run(RunArgs::default_run()));
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

/// A mistake of the command line that only the program shows (a flag naming a
/// parameter, function or global the program does not have, a value that does not
/// fit its parameter): exit code 2, like the mistakes clap finds itself.
#[derive(Debug)]
pub struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// `--arg NAME=V[,V...]`, checked for its shape when the command line is parsed.
fn arg_flag(text: &str) -> Result<String, String> {
    RunConfig::default().add_arg(text)?;
    Ok(text.to_string())
}

/// `--mem @G=V,...`, checked for its shape when the command line is parsed.
fn mem_flag(text: &str) -> Result<String, String> {
    RunConfig::default().add_memory(text)?;
    Ok(text.to_string())
}

/// `--sched POLICY`, checked for its shape when the command line is parsed (a
/// replay's file and block names are checked against the program later).
fn sched_flag(text: &str) -> Result<String, String> {
    match text.strip_prefix("replay:") {
        Some("") => Err("replay: needs a file or a block list, as in replay:A,B,C".into()),
        Some(_) => Ok(text.to_string()),
        None if text == "interactive" => Ok(text.to_string()),
        None => sched::builtin(text).map(|_| text.to_string()),
    }
}

/// `--analysis NAMES`, checked when the command line is parsed.
fn analysis_flag(text: &str) -> Result<String, String> {
    analyze::parse_analysis(text).map(|_| text.to_string())
}

/// The run inputs given as flags; they override an `--input` JSON file's.
struct InputFlags<'a> {
    input: &'a Option<PathBuf>,
    threads: Option<usize>,
    interp: Option<pllvm_semantics::rules::Interp>,
    exec: Option<pllvm_semantics::rules::Exec>,
    args: &'a [String],
    mem: &'a [String],
    /// `--buffer` (run only).
    buffers: &'a [String],
    strict: bool,
    function: &'a Option<String>,
    /// Whether `--schedule` gave the runtime schedule.
    schedule: bool,
    /// `--sched`: the scheduler, which wins over the input file's schedule.
    sched: Option<&'a str>,
}

impl InputFlags<'_> {
    /// The run configuration: the `--input` file's, with the flags applied over it.
    /// A flag given twice for the same argument or global is a usage error.
    fn config(&self) -> Result<RunConfig> {
        let mut config = match self.input {
            Some(p) => RunConfig::from_json(
                &std::fs::read_to_string(p)
                    .with_context(|| format!("cannot read {}", p.display()))?,
            )
            .map_err(|e| anyhow!("{}: {e}", p.display()))?,
            None => RunConfig::default(),
        };
        if let Some(w) = self.threads {
            config.threads = w;
        }
        if let Some(i) = self.interp {
            config.interp = i;
        }
        if let Some(x) = self.exec {
            config.exec = x;
        }
        let mut flagged = RunConfig::default();
        for a in self.args {
            let before = flagged.args.len();
            flagged.add_arg(a).map_err(Usage)?;
            if flagged.args.len() == before {
                return Err(Usage(format!("--arg {a}: this argument is already given")).into());
            }
            config.add_arg(a).map_err(Usage)?;
        }
        for m in self.mem {
            let before = flagged.memory.len();
            flagged.add_memory(m).map_err(Usage)?;
            if flagged.memory.len() == before {
                return Err(Usage(format!("--mem {m}: this global is already given")).into());
            }
            config.add_memory(m).map_err(Usage)?;
        }
        for b in self.buffers {
            flagged.add_buffer(b).map_err(Usage)?;
            config.buffers.remove(
                b.split_once('=')
                    .map_or("", |(n, _)| n.trim().trim_start_matches('%')),
            );
            config.add_buffer(b).map_err(Usage)?;
        }
        // A buffer's file is read here (the interpreter does no IO); a relative
        // name is relative to the working directory.
        for (name, spec) in config.buffers.iter_mut() {
            if let Some(file) = spec.file().map(str::to_string) {
                let bytes = std::fs::read(&file)
                    .with_context(|| format!("--buffer {name}: cannot read {file}"))?;
                spec.resolve_file(bytes);
            }
        }
        config.strict |= self.strict;
        if self.function.is_some() {
            config.function.clone_from(self.function);
        }
        Ok(config)
    }

    /// A setup error about an input given as a flag is a usage error (exit 2); one
    /// about the program or the `--input` file is not (exit 1).
    fn setup_error(&self, e: SetupError) -> anyhow::Error {
        let from_flag = match &e.input {
            None => false,
            Some(SetupInput::Function) => self.function.is_some(),
            Some(SetupInput::Threads) => self.threads.is_some(),
            Some(SetupInput::Arg(name)) => self.args.iter().any(|a| {
                a.split_once('=')
                    .is_some_and(|(n, _)| n.trim().trim_start_matches('%') == name)
            }),
            Some(SetupInput::Memory(name)) => self.mem.iter().any(|m| {
                m.split_once('=')
                    .is_some_and(|(n, _)| n.trim().trim_start_matches('@') == name)
            }),
            Some(SetupInput::Buffer(name)) => self.buffers.iter().any(|b| {
                b.split_once('=')
                    .is_some_and(|(n, _)| n.trim().trim_start_matches('%') == name)
            }),
        };
        if from_flag {
            Usage(e.message).into()
        } else {
            anyhow!(e)
        }
    }
}

impl RunArgs {
    fn default_run() -> RunArgs {
        RunArgs {
            file: None,
            threads: None,
            interp: None,
            exec: None,
            schedule: None,
            sched: None,
            args: Vec::new(),
            mem: Vec::new(),
            input: None,
            trace: Some(TraceFormat::Table),
            output: None,
            trace_limit: None,
            values: false,
            strict: false,
            divergence: false,
            convergence: false,
            function: None,
            max_steps: None,
            memory_limit: None,
            grid: None,
            group: None,
            jobs: None,
            lane_id: None,
            buffers: Vec::new(),
            dumps: Vec::new(),
            json: false,
        }
    }
}

fn dispatch(command: Command) -> Result<ExitCode> {
    match command {
        Command::Check(f) => check(f),
        Command::Print(f) => {
            let (module, _, _, _) = load(&f.file)?;
            write!(stdout(), "{}", text::print_module(&module))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::ExportLlvm(f) => {
            let (module, _, _, _) = load(&f.file)?;
            write!(stdout(), "{}", text::export_llvm(&module))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Run(r) => run(r),
        Command::Repl(r) => repl::main(r),
        Command::Explore(e) => explore(e),
        Command::Transform(t) => transform::main(t),
        Command::Compile(c) => compile::main(c),
        Command::DiffExec(d) => diff_exec::main(d),
        Command::Fuzz(f) => fuzz::main(f),
        Command::Analyze(a) => {
            let kinds = analyze::parse_analysis(&a.analysis).map_err(|e| anyhow!(e))?;
            let (module, _, _, src) = load(&Some(a.file.clone()))?;
            if a.compare_llvm {
                compare_llvm::run(
                    &module,
                    &src,
                    a.function.as_deref(),
                    &a.uniform_args,
                    &mut stdout(),
                )?;
                return Ok(ExitCode::SUCCESS);
            }
            let format = if a.summary {
                analyze::Format::Summary
            } else if a.json {
                analyze::Format::Json
            } else if a.dot {
                analyze::Format::Dot
            } else if a.svg {
                analyze::Format::Svg
            } else {
                analyze::Format::Text
            };
            analyze::run(
                &module,
                a.function.as_deref(),
                &kinds,
                &a.uniform_args,
                match (a.chunk, a.width) {
                    (true, Some(w)) => ThreadIds::Chunk(w),
                    _ => ThreadIds::Array(a.width),
                },
                a.cycle_order,
                format,
                &mut stdout(),
            )?;
            // The process ends here: leave the module to the OS instead of freeing
            // it piece by piece (as clang's default -disable-free does).
            std::mem::forget(module);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Diagnostics rendered as `file:line:col: error: ...` with their source lines:
/// `main` prints them as they are, without a second `error:` prefix.
#[derive(Debug)]
struct Rendered(String);

impl std::fmt::Display for Rendered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Rendered {}

/// Reads, parses and verifies a file (or the embedded default), rendering every
/// diagnostic with file:line:col.
fn load(file: &Option<PathBuf>) -> Result<(Module, SourceMap, String, String)> {
    let (name, src) = match file {
        Some(p) => {
            let (name, bytes) = if p.as_os_str() == "-" {
                let mut bytes = Vec::new();
                std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
                    .context("cannot read the program from standard input")?;
                ("<stdin>".to_string(), bytes)
            } else {
                let name = p.display().to_string();
                let bytes = std::fs::read(p).with_context(|| format!("cannot read {name}"))?;
                (name, bytes)
            };
            let src = text::decode_source(bytes)
                .map_err(|e| Rendered(e.error.to_diagnostic().render(&name, &e.text)))?;
            (name, src)
        }
        None => (
            default_program::CHECK_NAME.to_string(),
            default_program::CHECK_SOURCE.to_string(),
        ),
    };
    let (module, spans) = text::parse_module(&src).map_err(|errors| {
        let diags: Vec<Diagnostic> = errors.iter().map(|e| e.to_diagnostic()).collect();
        Rendered(render_all(&diags, &name, &src))
    })?;
    let report = verify_module(&module, &spans);
    if !report.errors.is_empty() {
        return Err(Rendered(render_all(&report.errors, &name, &src)).into());
    }
    Ok((module, spans, name, src))
}

fn check(f: FileArg) -> Result<ExitCode> {
    let (module, spans, name, src) = load(&f.file)?;
    let report = verify_module(&module, &spans);
    for note in &report.notes {
        writeln!(stdout(), "{}", note.render(&name, &src))?;
    }
    let defined = module
        .functions
        .values()
        .filter(|f| f.body.is_some())
        .count();
    writeln!(
        stdout(),
        "{name}: ok ({defined} function{} verified)",
        if defined == 1 { "" } else { "s" }
    )?;
    for (func, reducible) in &report.reducible {
        writeln!(
            stdout(),
            "  @{}: {}",
            module.functions[*func].name,
            if *reducible {
                "reducible"
            } else {
                "irreducible (allowed)"
            }
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn run(r: RunArgs) -> Result<ExitCode> {
    if r.file.is_none() {
        return default_program::run_default(&mut stdout());
    }
    let (module, spans, name, src) = load(&r.file)?;
    let source = Source {
        name: &name,
        src: &src,
        spans: &spans,
    };
    let flags = InputFlags {
        input: &r.input,
        threads: r.threads,
        interp: r.interp,
        exec: r.exec,
        args: &r.args,
        mem: &r.mem,
        buffers: &r.buffers,
        strict: r.strict,
        function: &r.function,
        schedule: r.schedule.is_some(),
        sched: r.sched.as_deref(),
    };
    let mut config = flags.config()?;
    if let Some(s) = &r.schedule {
        config.set_schedule(s);
    }
    if r.sched.is_some() {
        // Flags override the input file: a scheduler named on the command line
        // wins over the file's schedule.
        config.schedule = None;
    }
    if let Some(n) = r.max_steps {
        config.max_steps = n;
    }
    if let Some(n) = r.memory_limit {
        config.memory_limit = n;
    }
    if let (true, Some(f @ (TraceFormat::Table | TraceFormat::Html))) = (r.json, r.trace) {
        let name = if matches!(f, TraceFormat::Html) {
            "html"
        } else {
            "table"
        };
        return Err(Usage(format!(
            "--json prints one JSON document: use --trace json with it, not --trace {name}"
        ))
        .into());
    }
    if r.output.is_some() && !matches!(r.trace, Some(TraceFormat::Html)) {
        return Err(Usage(
            "-o FILE is where --trace html writes its page: use it with --trace html".into(),
        )
        .into());
    }
    let mut out = stdout();
    if let Some(threads) = r.grid {
        return grid::run(
            &module,
            &source,
            &config,
            &flags,
            &grid::GridFlags {
                threads,
                width: r.threads,
                group: r.group,
                jobs: r.jobs,
                lane_id: r.lane_id.clone(),
                sched: r.sched.clone(),
                divergence: r.divergence,
                dumps: &r.dumps,
                json: r.json,
                refused: [
                    ("--schedule", r.schedule.is_some()),
                    ("--trace", r.trace.is_some()),
                    ("--values", r.values),
                    ("--convergence", r.convergence),
                ],
            },
            &mut out,
        );
    }
    let outcome = execute(
        &module,
        &source,
        &config,
        &flags,
        TraceOutput {
            format: r.trace,
            output: r.output.as_deref(),
            limit: r
                .trace_limit
                .unwrap_or_else(|| trace::default_limit(config.threads)),
        },
        r.values,
        Reports {
            divergence: r.divergence,
            convergence: r.convergence,
            dumps: &r.dumps,
            json: r.json,
        },
        &mut out,
    )?;

    Ok(match outcome {
        Outcome::Returned | Outcome::Incomplete => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}

/// Builds the scheduler `--sched` names (reading the file of `replay:FILE`).
fn scheduler(
    spec: &str,
    program: &pllvm_semantics::rules::Program<'_>,
) -> Result<Box<dyn Scheduler>> {
    if let Some(source) = spec.strip_prefix("replay:") {
        return Ok(Box::new(
            Replay::from_spec(program, source).map_err(|e| anyhow!(e))?,
        ));
    }
    if spec == "interactive" {
        return Ok(Box::new(Interactive::new(ask_block)));
    }
    sched::builtin(spec).map_err(|e| anyhow!(e))
}

/// The `interactive` policy on a terminal: shows the legality of every block
/// (Def. 12-18) on stderr and reads a block name from stdin (empty: the first legal
/// block; `q` or end of input: stop).
fn ask_block(
    program: &pllvm_semantics::rules::Program<'_>,
    facts: &GreedyFacts,
    state: &pllvm_semantics::rules::State,
    legal: &[pllvm_semantics::ir::Block],
) -> Option<pllvm_semantics::ir::Block> {
    use std::io::BufRead;
    for l in greedy::legality(program, facts, state) {
        eprintln!("  {}", l.render(program));
    }
    loop {
        eprint!("next block> ");
        let mut line = String::new();
        let n = std::io::stdin().lock().read_line(&mut line).ok()?;
        let name = line.trim();
        if n == 0 || name == "q" {
            return None;
        }
        if name.is_empty() {
            return legal.first().copied();
        }
        match program.body.block_by_name(name.trim_start_matches('%')) {
            Some(b) => return Some(b),
            None => eprintln!("no block named {name}"),
        }
    }
}

/// The reports `run` prints after the results.
#[derive(Clone, Copy, Debug)]
struct Reports<'a> {
    /// `--divergence`: which instructions and branches diverged.
    divergence: bool,
    /// `--convergence`: dynamic convergence (LLVM "Convergence and Uniformity").
    convergence: bool,
    /// `--dump`: buffers and globals to show after the run.
    dumps: &'a [dumps::DumpSpec],
    /// `--json`: one JSON document on stdout.
    json: bool,
}

/// The trace `run` prints: in which format (none: the trace is not kept) and
/// how many rows it keeps (`--trace-limit`).
#[derive(Clone, Copy, Debug)]
struct TraceOutput<'a> {
    /// `--trace`.
    format: Option<TraceFormat>,
    /// `-o FILE` of `--trace html` (none: the page goes to standard output).
    output: Option<&'a std::path::Path>,
    /// `--trace-limit` or [`trace::default_limit`].
    limit: usize,
}

/// The program text a run came from, for rendering its outcomes at
/// `file:line:col` (positions from the side table [`SourceMap`]).
#[derive(Clone, Copy, Debug)]
struct Source<'a> {
    /// The file name as the user gave it (`<stdin>` for `-`).
    name: &'a str,
    /// The text.
    src: &'a str,
    /// The spans of the parsed module.
    spans: &'a SourceMap,
}

impl Source<'_> {
    /// The undefined behaviour `ub` of a run of `func`, rendered like the
    /// verifier's errors: `file:line:col: error: undefined behaviour in lane τ: ...`,
    /// the source line with a caret, and `help: [RULE], thesis §…`.
    fn render_ub(&self, func: FuncId, ub: &Ub) -> String {
        ub.diagnostic(self.spans.function(func))
            .render(self.name, self.src)
    }

    /// A run error: a stuck step rendered at its scheduled block like the
    /// verifier's errors (with its rule as `help:`), anything else as it is.
    fn run_error(&self, func: FuncId, e: RunError) -> anyhow::Error {
        match e {
            RunError::Stuck(s) => Rendered(
                s.diagnostic(self.spans.function(func))
                    .render(self.name, self.src),
            )
            .into(),
            other => anyhow!(other),
        }
    }

    /// [`Source::ub_json`] for undefined behaviour in a run of `func`.
    fn ub_json_of(&self, module: &Module, func: FuncId, ub: &Ub) -> serde_json::Value {
        let diagnostic = ub.diagnostic(self.spans.function(func));
        let (line, col) = LineIndex::new(self.src).line_col(self.src, diagnostic.span.lo);
        let block = module.functions[func]
            .body
            .as_ref()
            .map(|body| body.blocks[ub.block].name.clone());
        serde_json::json!({
            "rule": ub.rule.name(),
            "thesis": ub.rule.thesis(),
            "lane": ub.lane,
            "block": block,
            "file": self.name,
            "line": line,
            "col": col,
            "message": ub.message,
        })
    }

    /// The position and rule of undefined behaviour, as the fields of the
    /// `undefined` object of `run --trace json` (schema `pllvm-run/1`).
    fn ub_json(&self, program: &Program<'_>, ub: &Ub) -> serde_json::Value {
        let diagnostic = ub.diagnostic(self.spans.function(program.func));
        let (line, col) = LineIndex::new(self.src).line_col(self.src, diagnostic.span.lo);
        serde_json::json!({
            "rule": ub.rule.name(),
            "thesis": ub.rule.thesis(),
            "lane": ub.lane,
            "block": program.block_name(ub.block),
            "file": self.name,
            "line": line,
            "col": col,
            "message": ub.message,
        })
    }
}

/// Runs one configuration and prints the trace, the outcome and the results.
/// The machine keeps the trace only when the output needs it (`--trace`,
/// `--convergence`), and then at most `trace.limit` rows and the latest: a long
/// run without them costs the host O(W) memory, not O(steps × W).
///
/// Undefined behaviour is also rendered at its source position on stderr (the
/// stream the verifier's errors go to), and a stuck step is an error rendered
/// the same way.
#[allow(clippy::too_many_arguments, reason = "one run's inputs and outputs")]
fn execute(
    module: &Module,
    source: &Source<'_>,
    config: &RunConfig,
    flags: &InputFlags<'_>,
    trace_output: TraceOutput<'_>,
    values: bool,
    reports: Reports<'_>,
    out: &mut dyn std::io::Write,
) -> Result<Outcome> {
    let format = trace_output.format;
    let mut machine = Machine::new(module, config).map_err(|e| flags.setup_error(e))?;
    for w in &machine.warnings {
        eprintln!("warning: {w}");
    }
    let func = machine.program.func;
    machine.record_trace = format.is_some() || reports.convergence;
    machine.trace_limit = Some(trace_output.limit);
    machine.record_writes = values || matches!(format, Some(TraceFormat::Json | TraceFormat::Html));
    let checked = match (&config.schedule, flags.sched) {
        (Some(s), _) => Some((
            "the schedule".to_string(),
            machine.run_schedule_checked(s).map_err(|e| match e {
                RunError::BadSchedule(why) if flags.schedule => {
                    Usage(format!("--schedule: {why}")).into()
                }
                other => source.run_error(func, other),
            })?,
        )),
        (None, Some(spec)) => {
            let mut policy = scheduler(spec, &machine.program)
                .map_err(|e| Usage(format!("--sched {spec}: {e:#}")))?;
            let name = policy.name();
            Some((
                name,
                machine
                    .run_with(policy.as_mut())
                    .map_err(|e| source.run_error(func, e))?,
            ))
        }
        (None, None) => None,
    };
    let outcome = match &checked {
        Some((_, run)) => run.outcome.clone(),
        None => machine
            .run_to_end()
            .map_err(|e| source.run_error(func, e))?,
    };
    if let Outcome::Undefined(ub) = &outcome {
        eprintln!("{}", source.render_ub(func, ub));
    }
    let body = machine.program.body;
    let program = &machine.program;
    // What the run reports besides its trace, in the order the text prints it.
    let schedule = checked.as_ref().and_then(|(name, run)| {
        config.schedule.is_none().then(|| {
            let blocks: Vec<&str> = run
                .schedule
                .iter()
                .map(|&b| program.block_name(b))
                .collect();
            (name.clone(), blocks)
        })
    });
    let violations: Option<Vec<String>> = checked.as_ref().map(|(_, run)| {
        run.first_violation()
            .into_iter()
            .chain(run.violations.iter().skip(1))
            .map(|v| v.render(program))
            .collect()
    });
    let divergence = reports
        .divergence
        .then(|| pllvm_interp::observe::report(machine.program.body, &machine.divergence));
    let convergence = if !reports.convergence {
        None
    } else if machine.trace_omitted > 0 {
        Some(format!(
            "convergence: not computed: the run scheduled {} blocks, more than the {} trace rows kept (--trace-limit N raises the limit)",
            machine.steps, trace_output.limit
        ))
    } else {
        use pllvm_interp::convergence;
        let threads = convergence::Threads::from_trace(machine.state.width(), &machine.trace);
        let func = machine.program.func;
        let init = convergence::init_from_config(module, func, config);
        Some(convergence::report(module, func, body, &threads, &init))
    };
    let dumped = dumps::dump_all(module, config, &machine.state.mem, reports.dumps)?;
    if let Some(TraceFormat::Html) = format {
        let mut summary = serde_json::json!({ "text": outcome.to_string() });
        if let Outcome::Undefined(ub) = &outcome {
            summary["undefined"] = source.ub_json(program, ub);
        }
        if machine.returns_value() {
            summary["result"] = machine.result_text().into();
        }
        let run = trace_html::Run {
            module,
            func,
            file: source.name,
            interp: machine.interp.short(),
            width: machine.state.width(),
            rows: &machine.trace,
            omitted: machine.trace_omitted,
            outcome: &summary,
        };
        match trace_output.output {
            Some(path) => {
                let file = std::fs::File::create(path)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                let written = trace_html::write_page(&run, &mut std::io::BufWriter::new(file));
                if let Err(e) = written {
                    // No half page is left behind.
                    let _ = std::fs::remove_file(path);
                    return Err(anyhow!("--trace html: {}: {e}", path.display()));
                }
            }
            None => {
                trace_html::write_page(&run, &mut std::io::BufWriter::new(&mut *out))
                    .map_err(|e| anyhow!("--trace html: {e}"))?;
                return Ok(outcome);
            }
        }
    }
    if reports.json || matches!(format, Some(TraceFormat::Json)) {
        // One JSON document: the trace is streamed row by row inside it.
        let mut rest = serde_json::Map::new();
        rest.insert("outcome".into(), outcome.to_string().into());
        if let Outcome::Undefined(ub) = &outcome {
            rest.insert("undefined".into(), source.ub_json(program, ub));
        }
        if machine.returns_value() {
            rest.insert("result".into(), serde_json::json!(machine.result_lanes()));
        }
        if let Some((name, blocks)) = &schedule {
            rest.insert(
                "schedule".into(),
                serde_json::json!({ "policy": name, "blocks": blocks }),
            );
        }
        if let Some(v) = &violations {
            rest.insert(
                "greedy".into(),
                serde_json::json!({ "greedy": v.is_empty(), "violations": v }),
            );
        }
        if let Some(d) = &divergence {
            rest.insert("divergence".into(), d.clone().into());
        }
        if let Some(c) = &convergence {
            rest.insert("convergence".into(), c.clone().into());
        }
        if !dumped.is_empty() {
            let dumps: serde_json::Map<String, serde_json::Value> = dumped
                .iter()
                .map(|(name, d)| (name.clone(), d.json.clone()))
                .collect();
            rest.insert("dumps".into(), dumps.into());
        }
        let rest = serde_json::to_string_pretty(&rest)?;
        write!(
            out,
            "{{\n  \"schema\": {},\n  \"function\": {},\n  \"threads\": {},\n",
            serde_json::json!(RUN_SCHEMA),
            serde_json::json!(module.functions[machine.program.func].name),
            machine.state.width()
        )?;
        if let Some(TraceFormat::Json) = format {
            write!(out, "  \"trace\": ")?;
            // Buffered: the standard output flushes at every line, and a trace of
            // W = 64 lanes is millions of lines.
            {
                let mut buffered = std::io::BufWriter::new(&mut *out);
                trace::write_json_bounded(
                    &mut buffered,
                    body,
                    &machine.trace,
                    machine.trace_omitted,
                )?;
                buffered.flush()?;
            }
            writeln!(out, ",{}", rest.trim_start_matches('{'))?;
        } else {
            writeln!(out, "{}", rest.trim_start_matches("{\n"))?;
        }
        return Ok(outcome);
    }
    if let Some(TraceFormat::Table) = format {
        writeln!(
            out,
            "{}",
            trace::table_bounded(
                &module.types,
                body,
                &machine.trace,
                values,
                machine.trace_omitted
            )
        )?;
    }
    writeln!(out, "outcome: {outcome}")?;
    if machine.returns_value() {
        writeln!(out, "result: {}", machine.result_text())?;
    }
    if let Some((name, blocks)) = &schedule {
        writeln!(out, "schedule ({name}): {}", blocks.join(","))?;
    }
    if let Some(v) = &violations {
        match v.split_first() {
            None => writeln!(out, "greedy: yes (Def. 12)")?,
            Some((first, then)) => {
                writeln!(out, "greedy: no; first violation: {first}")?;
                for v in then {
                    writeln!(out, "  then {v}")?;
                }
            }
        }
    }
    if let Some(d) = &divergence {
        writeln!(out, "{d}")?;
    }
    if let Some(c) = &convergence {
        writeln!(out, "{c}")?;
    }
    for (_, d) in &dumped {
        writeln!(out, "{}", d.text)?;
    }
    Ok(outcome)
}

fn explore(e: ExploreArgs) -> Result<ExitCode> {
    let (module, spans, name, src) = load(&Some(e.file.clone()))?;
    let source = Source {
        name: &name,
        src: &src,
        spans: &spans,
    };
    let flags = InputFlags {
        input: &e.input,
        threads: e.threads,
        interp: e.interp,
        exec: e.exec,
        args: &e.args,
        mem: &e.mem,
        buffers: &[],
        strict: e.strict,
        function: &e.function,
        schedule: false,
        sched: None,
    };
    let mut config = flags.config()?;
    if let Some(n) = e.memory_limit {
        config.memory_limit = n;
    }
    let order = match e.order.as_str() {
        "lowest" => Order::Lowest,
        "highest" => Order::Highest,
        other => match other.strip_prefix("random:").map(str::parse::<u64>) {
            Some(Ok(seed)) => Order::Random(seed),
            _ => {
                return Err(Usage(format!(
                    "--order: lowest, highest or random:SEED, not '{other}'"
                ))
                .into());
            }
        },
    };
    let bounds = Bounds {
        max_states: e.max_states,
        max_steps: e.max_steps,
        order,
    };
    let (exploration, graph) =
        explore_watching(&module, &config, &bounds, e.time, &flags, e.dot || e.svg)?;
    if let Some(graph) = graph {
        let dot = exploration.dot(&graph);
        if e.svg {
            if graph.states.len() > EXPLORE_SVG_MAX_STATES {
                return Err(anyhow!(
                    "{} explored states are too many to draw (at most {EXPLORE_SVG_MAX_STATES}: Graphviz's layout grows faster than linearly); lower --max-states, or print --dot",
                    graph.states.len()
                ));
            }
            writeln!(stdout(), "{}", graphviz::svg(&dot).map_err(|e| anyhow!(e))?)?;
        } else {
            write!(stdout(), "{dot}")?;
        }
        return Ok(if exploration.truncated.is_some() {
            ExitCode::from(EXIT_TRUNCATED)
        } else {
            ExitCode::SUCCESS
        });
    }
    write!(stdout(), "{}", exploration.report())?;
    // Each undefined-behaviour ending at its source position, after the report.
    for ub in exploration
        .outcomes
        .iter()
        .filter_map(|o| o.undefined.as_ref())
    {
        writeln!(stdout(), "{}", source.render_ub(exploration.func, ub))?;
    }
    Ok(if exploration.truncated.is_some() {
        ExitCode::from(EXIT_TRUNCATED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Explores with a deadline (`--time`), Ctrl-C as a stop (the states found so far
/// are reported), and, when stderr is a terminal, a progress line on stderr;
/// records the explored graph when `graph` (`--dot`, `--svg`).
fn explore_watching(
    module: &Module,
    config: &RunConfig,
    bounds: &Bounds,
    time: Option<std::time::Duration>,
    flags: &InputFlags<'_>,
    graph: bool,
) -> Result<(
    pllvm_interp::explore::Exploration,
    Option<pllvm_interp::explore::graph::StateGraph>,
)> {
    use std::io::IsTerminal;
    use std::ops::ControlFlow;
    let start = std::time::Instant::now();
    let catching = interrupt::install();
    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        Some(bar)
    } else {
        None
    };
    let mut watch = |p: &pllvm_interp::explore::Progress| {
        if let Some(bar) = &bar
            && p.states % 64 == 1
        {
            bar.set_message(format!(
                "explore: {} states, {} transitions, {} queued, depth {}",
                p.states, p.transitions, p.queued, p.depth
            ));
        }
        if catching && interrupt::take() {
            return ControlFlow::Break(format!(
                "interrupted (Ctrl-C) after {:.1} s",
                start.elapsed().as_secs_f64()
            ));
        }
        match time {
            Some(limit) if start.elapsed() >= limit => {
                ControlFlow::Break(format!("time limit of {} s reached", limit.as_secs_f64()))
            }
            _ => ControlFlow::Continue(()),
        }
    };
    let result = if graph {
        pllvm_interp::explore::explore_graph(module, config, bounds, &mut watch)
            .map(|(e, g)| (e, Some(g)))
    } else {
        pllvm_interp::explore::explore_watched(module, config, bounds, &mut |_| {}, &mut watch)
            .map(|e| (e, None))
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result.map_err(|err| match err {
        ExploreError::Setup(e) => flags.setup_error(e),
        other => anyhow!(other),
    })
}
