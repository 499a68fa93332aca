//! The `pllvm` command: the only crate that does IO (STYLE §1).
//!
//! Exit codes: 0 success, 1 the program or the input is wrong (parse, verify, setup
//! or run errors, undefined behaviour), 2 the command line is wrong (clap's usage
//! errors).

mod analyze;
mod compare_llvm;
mod default_program;
mod repl;

/// The allocator of the `pllvm` process: mimalloc instead of the system malloc.
/// Parsing, normalizing and analyzing a large module allocate many small vectors
/// and strings; with glibc's malloc, allocation, freeing and page faults were
/// about a fifth of `pllvm analyze` on a 300k-block CFG (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use anyhow::{Context, Result, anyhow};
use clap::{Args, Parser, Subcommand};
use pllvm_interp::config::{parse_byte_size, parse_interp};
use pllvm_interp::explore::{Bounds, Order};
use pllvm_interp::greedy::{self, GreedyFacts};
use pllvm_interp::sched::{self, Interactive, Replay, Scheduler};
use pllvm_interp::{Machine, Outcome, RunConfig, trace};
use pllvm_semantics::diag::{Diagnostic, SourceMap, render_all};
use pllvm_semantics::ir::Module;
use pllvm_semantics::text;
use pllvm_semantics::verify::verify_module;
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
}

#[derive(Args, Debug)]
struct ExploreArgs {
    /// A .ll file.
    file: PathBuf,
    /// W, the number of lanes (threads) of the thread array.
    #[arg(long, short = 'w', value_name = "W")]
    threads: Option<usize>,
    /// The interpretation: fr (FREEZING) or obl (OBLIVIOUS), thesis §4.5.
    #[arg(long, value_name = "fr|obl", value_parser = parse_interp)]
    interp: Option<pllvm_semantics::rules::Interp>,
    /// An argument: NAME=V for every lane, NAME=V0,V1,... for one value per lane.
    #[arg(long = "arg", value_name = "NAME=V[,V...]")]
    args: Vec<String>,
    /// Initial contents of a global: @G=V0,V1,...
    #[arg(long = "mem", value_name = "@G=V,...")]
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
}

#[derive(Args, Debug)]
struct AnalyzeArgs {
    /// A .ll file.
    file: PathBuf,
    /// Which analysis: thesis, popl, llvm, sa or all (comma-separated names allowed).
    #[arg(long, value_name = "thesis|popl|llvm|sa|all", default_value = "all")]
    analysis: String,
    /// `sa`: the thread array has at most W lanes (thesis Fig. 10.12); default: any.
    #[arg(long, value_name = "W", value_parser = clap::value_parser!(u32).range(1..))]
    width: Option<u32>,
    /// Parameters that are uniform (InitShapes, Listing 1); all others are varying.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    uniform_args: Vec<String>,
    /// The function to analyse (default: the first definition).
    #[arg(long, value_name = "NAME")]
    function: Option<String>,
    /// Print a JSON report.
    #[arg(long, conflicts_with = "dot")]
    json: bool,
    /// Compare the `llvm` analysis with opt-22's (and opt-19's) `print<uniformity>`
    /// and with what the file's `; run:` lines observed.
    #[arg(long, conflicts_with_all = ["dot", "json"])]
    compare_llvm: bool,
    /// Print the CFG as Graphviz (divergent branches, joins, divergent loops coloured).
    #[arg(long)]
    dot: bool,
    /// Print only counts (divergent values, branches, joins, loops); the analysis
    /// runs in full. For large functions.
    #[arg(long, conflicts_with_all = ["dot", "json", "compare_llvm"])]
    summary: bool,
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
    /// W, the number of lanes (threads) of the thread array.
    #[arg(long, short = 'w', value_name = "W", requires = "file")]
    threads: Option<usize>,
    /// The interpretation: fr (FREEZING) or obl (OBLIVIOUS), thesis §4.5.
    #[arg(long, value_name = "fr|obl", value_parser = parse_interp, requires = "file")]
    interp: Option<pllvm_semantics::rules::Interp>,
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
    #[arg(long, value_name = "POLICY", requires = "file")]
    sched: Option<String>,
    /// An argument: NAME=V for every lane, NAME=V0,V1,... for one value per lane.
    #[arg(long = "arg", value_name = "NAME=V[,V...]")]
    args: Vec<String>,
    /// Initial contents of a global: @G=V0,V1,...
    #[arg(long = "mem", value_name = "@G=V,...", requires = "file")]
    mem: Vec<String>,
    /// Run inputs as JSON (threads, interp, args, memory, schedule); flags override it.
    #[arg(long, value_name = "FILE", requires = "file")]
    input: Option<PathBuf>,
    /// Print the trace as a table (thesis Fig. 4.5b layout) or as JSON.
    #[arg(long, value_name = "table|json", requires = "file")]
    trace: Option<TraceFormat>,
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
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum TraceFormat {
    Table,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = cli.command.unwrap_or(Command::Run(RunArgs::default_run()));
    match dispatch(command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

impl RunArgs {
    fn default_run() -> RunArgs {
        RunArgs {
            file: None,
            threads: None,
            interp: None,
            schedule: None,
            sched: None,
            args: Vec::new(),
            mem: Vec::new(),
            input: None,
            trace: Some(TraceFormat::Table),
            values: false,
            strict: false,
            divergence: false,
            convergence: false,
            function: None,
            max_steps: None,
            memory_limit: None,
        }
    }
}

fn dispatch(command: Command) -> Result<ExitCode> {
    match command {
        Command::Check(f) => check(f),
        Command::Print(f) => {
            let (module, _, _, _) = load(&f.file)?;
            print!("{}", text::print_module(&module));
            Ok(ExitCode::SUCCESS)
        }
        Command::ExportLlvm(f) => {
            let (module, _, _, _) = load(&f.file)?;
            print!("{}", text::export_llvm(&module));
            Ok(ExitCode::SUCCESS)
        }
        Command::Run(r) => run(r),
        Command::Repl(r) => repl::main(r),
        Command::Explore(e) => explore(e),
        Command::Analyze(a) => {
            let kinds = analyze::parse_analysis(&a.analysis).map_err(|e| anyhow!(e))?;
            let (module, _, _, src) = load(&Some(a.file.clone()))?;
            if a.compare_llvm {
                compare_llvm::run(
                    &module,
                    &src,
                    a.function.as_deref(),
                    &a.uniform_args,
                    &mut std::io::stdout(),
                )?;
                return Ok(ExitCode::SUCCESS);
            }
            let format = if a.summary {
                analyze::Format::Summary
            } else if a.json {
                analyze::Format::Json
            } else if a.dot {
                analyze::Format::Dot
            } else {
                analyze::Format::Text
            };
            analyze::run(
                &module,
                a.function.as_deref(),
                &kinds,
                &a.uniform_args,
                a.width,
                format,
                &mut std::io::stdout(),
            )?;
            // The process ends here: leave the module to the OS instead of freeing
            // it piece by piece (as clang's default -disable-free does).
            std::mem::forget(module);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Reads, parses and verifies a file (or the embedded default), rendering every
/// diagnostic with file:line:col.
fn load(file: &Option<PathBuf>) -> Result<(Module, SourceMap, String, String)> {
    let (name, src) = match file {
        Some(p) => (
            p.display().to_string(),
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        ),
        None => (
            default_program::CHECK_NAME.to_string(),
            default_program::CHECK_SOURCE.to_string(),
        ),
    };
    let (module, spans) = text::parse_module(&src).map_err(|errors| {
        let diags: Vec<Diagnostic> = errors.iter().map(|e| e.to_diagnostic()).collect();
        anyhow!("{}", render_all(&diags, &name, &src))
    })?;
    let report = verify_module(&module, &spans);
    if !report.errors.is_empty() {
        return Err(anyhow!("{}", render_all(&report.errors, &name, &src)));
    }
    Ok((module, spans, name, src))
}

fn check(f: FileArg) -> Result<ExitCode> {
    let (module, spans, name, src) = load(&f.file)?;
    let report = verify_module(&module, &spans);
    for note in &report.notes {
        println!("{}", note.render(&name, &src));
    }
    let defined = module
        .functions
        .values()
        .filter(|f| f.body.is_some())
        .count();
    println!(
        "{name}: ok ({defined} function{} verified)",
        if defined == 1 { "" } else { "s" }
    );
    for (func, reducible) in &report.reducible {
        println!(
            "  @{}: {}",
            module.functions[*func].name,
            if *reducible {
                "reducible"
            } else {
                "irreducible (allowed)"
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn run(r: RunArgs) -> Result<ExitCode> {
    if r.file.is_none() {
        return default_program::run_default(&mut std::io::stdout());
    }
    let (module, _, _, _) = load(&r.file)?;
    let mut config = match &r.input {
        Some(p) => RunConfig::from_json(
            &std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        )
        .map_err(|e| anyhow!("{}: {e}", p.display()))?,
        None => RunConfig::default(),
    };
    if let Some(w) = r.threads {
        config.threads = w;
    }
    if let Some(i) = r.interp {
        config.interp = i;
    }
    if let Some(s) = &r.schedule {
        config.set_schedule(s);
    }
    for a in &r.args {
        config.add_arg(a).map_err(|e| anyhow!(e))?;
    }
    for m in &r.mem {
        config.add_memory(m).map_err(|e| anyhow!(e))?;
    }
    config.strict |= r.strict;
    if r.function.is_some() {
        config.function.clone_from(&r.function);
    }
    if let Some(n) = r.max_steps {
        config.max_steps = n;
    }
    if let Some(n) = r.memory_limit {
        config.memory_limit = n;
    }
    let mut out = std::io::stdout();
    let outcome = execute(
        &module,
        &config,
        r.sched.as_deref(),
        r.trace,
        r.values,
        Reports {
            divergence: r.divergence,
            convergence: r.convergence,
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
    if let Some(file) = spec.strip_prefix("replay:") {
        let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {file}"))?;
        return Ok(Box::new(
            Replay::parse(program, &text, file).map_err(|e| anyhow!(e))?,
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
struct Reports {
    /// `--divergence`: which instructions and branches diverged.
    divergence: bool,
    /// `--convergence`: dynamic convergence (LLVM "Convergence and Uniformity").
    convergence: bool,
}

/// Runs one configuration and prints the trace, the outcome and the results.
fn execute(
    module: &Module,
    config: &RunConfig,
    sched: Option<&str>,
    format: Option<TraceFormat>,
    values: bool,
    reports: Reports,
    out: &mut dyn std::io::Write,
) -> Result<Outcome> {
    let mut machine = Machine::new(module, config).map_err(|e| anyhow!(e))?;
    machine.record_writes = values || matches!(format, Some(TraceFormat::Json));
    let checked = match (&config.schedule, sched) {
        (Some(s), _) => Some((
            "the schedule".to_string(),
            machine.run_schedule_checked(s).map_err(|e| anyhow!(e))?,
        )),
        (None, Some(spec)) => {
            let mut policy = scheduler(spec, &machine.program)?;
            let name = policy.name();
            Some((
                name,
                machine.run_with(policy.as_mut()).map_err(|e| anyhow!(e))?,
            ))
        }
        (None, None) => None,
    };
    let outcome = match &checked {
        Some((_, run)) => run.outcome.clone(),
        None => machine.run_to_end().map_err(|e| anyhow!(e))?,
    };
    let body = machine.program.body;
    match format {
        Some(TraceFormat::Table) => writeln!(
            out,
            "{}",
            trace::table(&module.types, body, &machine.trace, values)
        )?,
        Some(TraceFormat::Json) => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&trace::to_json(body, &machine.trace))?
        )?,
        None => {}
    }
    writeln!(out, "outcome: {outcome}")?;
    writeln!(out, "result: {}", machine.result_text())?;
    if let Some((name, run)) = &checked {
        let program = &machine.program;
        if config.schedule.is_none() {
            let blocks: Vec<&str> = run
                .schedule
                .iter()
                .map(|&b| program.block_name(b))
                .collect();
            writeln!(out, "schedule ({name}): {}", blocks.join(","))?;
        }
        match run.first_violation() {
            None => writeln!(out, "greedy: yes (Def. 12)")?,
            Some(first) => {
                writeln!(
                    out,
                    "greedy: no; first violation: {}",
                    first.render(program)
                )?;
                for v in run.violations.iter().skip(1) {
                    writeln!(out, "  then {}", v.render(program))?;
                }
            }
        }
    }
    if reports.divergence {
        writeln!(out, "{}", pllvm_interp::observe::report(&machine))?;
    }
    if reports.convergence {
        use pllvm_interp::convergence;
        let threads = convergence::Threads::from_trace(machine.state.width(), &machine.trace);
        let func = machine.program.func;
        let init = convergence::init_from_config(module, func, config);
        writeln!(
            out,
            "{}",
            convergence::report(module, func, body, &threads, &init)
        )?;
    }
    Ok(outcome)
}

fn explore(e: ExploreArgs) -> Result<ExitCode> {
    let (module, _, _, _) = load(&Some(e.file.clone()))?;
    let mut config = match &e.input {
        Some(p) => RunConfig::from_json(
            &std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        )
        .map_err(|err| anyhow!("{}: {err}", p.display()))?,
        None => RunConfig::default(),
    };
    if let Some(w) = e.threads {
        config.threads = w;
    }
    if let Some(i) = e.interp {
        config.interp = i;
    }
    for a in &e.args {
        config.add_arg(a).map_err(|err| anyhow!(err))?;
    }
    for m in &e.mem {
        config.add_memory(m).map_err(|err| anyhow!(err))?;
    }
    config.strict |= e.strict;
    if e.function.is_some() {
        config.function.clone_from(&e.function);
    }
    if let Some(n) = e.memory_limit {
        config.memory_limit = n;
    }
    let order = match e.order.as_str() {
        "lowest" => Order::Lowest,
        "highest" => Order::Highest,
        other => match other.strip_prefix("random:").map(str::parse::<u64>) {
            Some(Ok(seed)) => Order::Random(seed),
            _ => {
                return Err(anyhow!(
                    "--order: lowest, highest or random:SEED, not '{other}'"
                ));
            }
        },
    };
    let bounds = Bounds {
        max_states: e.max_states,
        max_steps: e.max_steps,
        order,
    };
    let exploration =
        pllvm_interp::explore::explore(&module, &config, &bounds).map_err(|err| anyhow!(err))?;
    print!("{}", exploration.report());
    Ok(ExitCode::SUCCESS)
}
