//! `pllvm run`: one run of a program on a thread array (thesis Ch. 4), its
//! trace, outcome, results and reports as text, JSON or an HTML page; with
//! `--grid`, a launch of many thread arrays ([`crate::grid`]).

use crate::default_program;
use crate::dumps;
use crate::errors::Usage;
use crate::flags::{self, InputFlags, MachineFlags, RunInputs, TimeLimit};
use crate::grid;
use crate::host;
use crate::output::{self, stdout};
use crate::progress;
use crate::source::{RUN_SCHEMA, Source, load};
use crate::trace_html;
use anyhow::{Result, anyhow};
use clap::Args;
use pllvm_interp::greedy::{self, GreedyFacts};
use pllvm_interp::run::ScheduledRun;
use pllvm_interp::sched::{self, Interactive, Scheduler};
use pllvm_interp::{Machine, Outcome, RunConfig, RunError, trace};
use pllvm_semantics::ir::{Block, Module};
use pllvm_semantics::rules::{Program, State};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// `pllvm run`'s flags. The run inputs other than `--arg` need a FILE: the
/// embedded walk-through takes no options.
#[derive(Args, Debug, Default)]
#[command(mut_arg("threads", |a| a.requires("file")))]
#[command(mut_arg("mem", |a| a.requires("file")))]
#[command(mut_arg("input", |a| a.requires("file")))]
#[command(mut_arg("interp", |a| a.requires("file")))]
#[command(mut_arg("exec", |a| a.requires("file")))]
#[command(mut_arg("strict", |a| a.requires("file")))]
#[command(mut_arg("memory_limit", |a| a.requires("file")))]
#[command(mut_arg("time", |a| a.requires("file").help(
    "Stop after this many seconds (fractions allowed): the run, or every thread array of a launch still running, ends with a limit outcome (exit 1); a launch reports the arrays that finished"
)))]
pub(crate) struct RunArgs {
    /// A .ll file; the embedded logstar walk-through if absent (which takes no options).
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub inputs: RunInputs,
    #[command(flatten)]
    pub machine: MachineFlags,
    #[command(flatten)]
    pub time: TimeLimit,
    /// A runtime schedule (Def. 5): block names separated by commas. The run executes it
    /// and reports the first step that is not greedy (Def. 12-18).
    #[arg(
        long,
        value_name = "A,B,C",
        conflicts_with = "sched",
        requires = "file"
    )]
    pub schedule: Option<String>,
    /// A scheduler (thesis Ch. 5): lowest (the default), highest, random:SEED, replay:FILE, interactive, ipd; with --grid also earliest, the unchecked layout order.
    #[arg(long, value_name = "POLICY", requires = "file", value_parser = flags::sched_flag)]
    pub sched: Option<String>,
    /// Print the trace as a table (thesis Fig. 4.5b layout), as JSON, or as an HTML
    /// page that steps through the run (CFG drawn by Graphviz's dot; see -o).
    #[arg(long, value_name = "table|json|html", requires = "file")]
    pub trace: Option<TraceFormat>,
    /// With --trace html: write the page to FILE and print the run's report as
    /// usual (without -o the page alone goes to standard output).
    #[arg(long, short = 'o', value_name = "FILE", requires = "trace")]
    pub output: Option<PathBuf>,
    /// Most trace rows kept for --trace and --convergence: the first N rows and the
    /// latest, with a "… K rows omitted" line between. Default: 10,000 (fewer above
    /// W = 104: N × W ≤ 2^20).
    #[arg(long, value_name = "N", requires = "file")]
    pub trace_limit: Option<usize>,
    /// Show the values each block writes under its trace row.
    #[arg(long, requires = "file")]
    pub values: bool,
    /// Print which instructions and branches diverged in this run.
    #[arg(long, requires = "file")]
    pub divergence: bool,
    /// Print the run's dynamic convergence (LLVM "Convergence and Uniformity"): the maximal
    /// converged-with relation, m-converged blocks, and what lock step put together.
    #[arg(long, requires = "file")]
    pub convergence: bool,
    /// The function to run (default: the first definition).
    #[arg(long, value_name = "NAME", requires = "file")]
    pub function: Option<String>,
    /// Stop after this many scheduled blocks.
    #[arg(long, value_name = "N", requires = "file")]
    pub max_steps: Option<u64>,
    /// Launch N threads as ⌈N/W⌉ thread arrays of W lanes (--threads, default 32
    /// here), run in parallel (docs/launch.md); X,Y or X,Y,Z: a launch of two
    /// or three dimensions of X·Y·Z threads.
    #[arg(long, value_name = "N|X,Y[,Z]", requires = "file", value_parser = flags::sizes_flag)]
    pub grid: Option<flags::Sizes>,
    /// With --grid: threads per work-group, a multiple of W (default: the whole
    /// grid); thread ids count within a group. `x,y[,z]` for a launch of several
    /// dimensions, each dividing the grid's.
    #[arg(long, value_name = "G|x,y[,z]", requires = "grid", value_parser = flags::sizes_flag)]
    pub group: Option<flags::Sizes>,
    /// With --grid: host threads running thread arrays at once (default: all cores).
    #[arg(long, value_name = "J", requires = "grid", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    /// With --grid: the parameter that gets each thread's global id.
    #[arg(long, value_name = "NAME", requires = "grid")]
    pub lane_id: Option<String>,
    /// A buffer bound to the pointer parameter of its name (or position):
    /// `NAME=TYPE[LEN]` (zero-filled), `NAME=TYPE:FILE` (raw little-endian), or
    /// `NAME=TYPE[LEN]:FILE`.
    #[arg(long = "buffer", value_name = "NAME=TYPE[LEN]|NAME=TYPE:FILE", requires = "file", value_parser = flags::buffer_flag)]
    pub buffers: Vec<String>,
    /// After the run, print a buffer's (or @GLOBAL's) contents; NAME=FILE writes
    /// its raw bytes to FILE instead.
    #[arg(long = "dump", value_name = "NAME[=FILE]", requires = "file", value_parser = dumps::parse)]
    pub dumps: Vec<dumps::DumpSpec>,
    /// Print one JSON document on stdout (schema pllvm-run/1): outcome, results,
    /// dumps, and the trace, divergence or convergence when asked for.
    #[arg(long, requires = "file")]
    pub json: bool,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum TraceFormat {
    Table,
    Json,
    /// One self-contained page (`trace_html`).
    Html,
}

impl RunArgs {
    /// `pllvm` alone: the embedded walk-through with its trace.
    pub(crate) fn default_run() -> RunArgs {
        RunArgs {
            trace: Some(TraceFormat::Table),
            ..RunArgs::default()
        }
    }
}

/// Runs `pllvm run`.
pub(crate) fn main(r: RunArgs) -> Result<ExitCode> {
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
        inputs: &r.inputs,
        machine: &r.machine,
        buffers: &r.buffers,
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
    dumps::check(&module, &config, &r.dumps)?;
    let mut out = stdout();
    if let Some(sizes) = &r.grid {
        return grid::run(
            &module,
            &source,
            &config,
            &flags,
            &grid::GridFlags {
                grid: &sizes.0,
                width: r.inputs.threads,
                group: r.group.as_ref().map(|g| g.0.as_slice()),
                jobs: r.jobs,
                lane_id: r.lane_id.clone(),
                sched: r.sched.clone(),
                divergence: r.divergence,
                time: r.time.time,
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
        r.time.time,
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
fn scheduler(spec: &str, program: &Program<'_>) -> Result<Box<dyn Scheduler>> {
    if let Some(source) = spec.strip_prefix("replay:") {
        return Ok(Box::new(
            flags::replay(program, source).map_err(|e| anyhow!(e))?,
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
    program: &Program<'_>,
    facts: &GreedyFacts,
    state: &State,
    legal: &[Block],
) -> Option<Block> {
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
    time: Option<std::time::Duration>,
    reports: Reports<'_>,
    out: &mut dyn std::io::Write,
) -> Result<Outcome> {
    let format = trace_output.format;
    let mut machine = Machine::new(module, config).map_err(|e| flags.setup_error(e))?;
    for w in &machine.warnings {
        eprintln!("warning: {w}");
    }
    machine.record_trace = format.is_some() || reports.convergence;
    machine.record_writes = values || matches!(format, Some(TraceFormat::Json | TraceFormat::Html));
    let trace_limit = trace_rows(&machine, trace_output.limit);
    machine.trace_limit = Some(trace_limit);
    // `--time`: the clock starts with the run; a limit the clock cannot reach
    // is no limit.
    machine.deadline = time.and_then(|t| std::time::Instant::now().checked_add(t));
    // No spinner under the interactive scheduler: it asks for blocks on stderr.
    let spinner = if flags.sched == Some("interactive") {
        None
    } else {
        progress::spinner("run")
    };
    let func = machine.program.func;
    let ran = run_machine(&mut machine, source, config, flags).and_then(|checked| {
        let outcome = match &checked {
            Some((_, run)) => run.outcome.clone(),
            None => machine
                .run_to_end()
                .map_err(|e| source.run_error(func, e))?,
        };
        Ok((checked, outcome))
    });
    progress::finish(spinner);
    let (checked, outcome) = ran?;
    if let Outcome::Undefined(ub) = &outcome {
        eprintln!("{}", source.render_ub(func, ub));
    }
    let report = RunReport::gather(
        module,
        config,
        &machine,
        checked.as_ref(),
        reports,
        trace_limit,
    )?;
    let run = Ran {
        module,
        source,
        machine: &machine,
        outcome: &outcome,
        report: &report,
    };
    if let Some(TraceFormat::Html) = format
        && write_html(&run, trace_output.output, out)?
    {
        return Ok(outcome);
    }
    if reports.json || matches!(format, Some(TraceFormat::Json)) {
        write_json(&run, matches!(format, Some(TraceFormat::Json)), out)?;
    } else {
        write_text(
            &run,
            matches!(format, Some(TraceFormat::Table)),
            values,
            out,
        )?;
    }
    Ok(outcome)
}

/// The trace rows `machine` keeps: `requested` (`--trace-limit` or
/// [`trace::default_limit`]), capped by the host memory this process may still
/// use ([`host::cap_trace_rows`]) with a warning on stderr, so that no trace
/// limit grows a run until the allocator aborts it (docs/cli.md "Traces and
/// reports").
fn trace_rows(machine: &Machine<'_>, requested: usize) -> usize {
    if !machine.record_trace {
        return requested;
    }
    let body = machine.program.body;
    // Each row records at most the values of the largest block.
    let written = if machine.record_writes {
        body.layout
            .iter()
            .map(|&b| body.blocks[b].phis.len() + body.blocks[b].body.len())
            .max()
            .unwrap_or(0)
    } else {
        0
    };
    let width = machine.state.width();
    let (kept, warning) = host::cap_trace_rows(
        requested,
        trace::row_bytes(width, written),
        host::available_memory(),
        width,
    );
    if let Some(w) = warning {
        eprintln!("warning: {w}");
    }
    kept
}

/// Runs `machine` under the runtime schedule of `config` (checked step by step
/// against the greedy constraints) or under the scheduler `--sched` names,
/// returning the scheduler's name and the run; `None` when neither is given
/// (the caller runs to the end with the default scheduler).
fn run_machine(
    machine: &mut Machine<'_>,
    source: &Source<'_>,
    config: &RunConfig,
    flags: &InputFlags<'_>,
) -> Result<Option<(String, ScheduledRun)>> {
    let func = machine.program.func;
    Ok(match (&config.schedule, flags.sched) {
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
    })
}

/// What a run reports besides its trace, outcome and results, in the order the
/// text prints it.
struct RunReport {
    /// The scheduler's name and the blocks it scheduled (not for a runtime
    /// schedule given as input).
    schedule: Option<(String, Vec<String>)>,
    /// The steps that were not greedy, the first first (a scheduled run only).
    violations: Option<Vec<String>>,
    /// `--divergence`.
    divergence: Option<String>,
    /// `--convergence`.
    convergence: Option<String>,
    /// `--dump`.
    dumped: Vec<(String, dumps::Dumped)>,
}

impl RunReport {
    /// The reports of the run `machine` made (`checked`: under a schedule or a
    /// scheduler), of those `reports` asks for.
    fn gather(
        module: &Module,
        config: &RunConfig,
        machine: &Machine<'_>,
        checked: Option<&(String, ScheduledRun)>,
        reports: Reports<'_>,
        trace_limit: usize,
    ) -> Result<RunReport> {
        let program = &machine.program;
        let schedule = checked.and_then(|(name, run)| {
            config.schedule.is_none().then(|| {
                let blocks: Vec<String> = run
                    .schedule
                    .iter()
                    .map(|&b| program.block_name(b).to_string())
                    .collect();
                (name.clone(), blocks)
            })
        });
        let violations: Option<Vec<String>> = checked.map(|(_, run)| {
            run.first_violation()
                .into_iter()
                .chain(run.violations.iter().skip(1))
                .map(|v| v.render(program))
                .collect()
        });
        let divergence = reports
            .divergence
            .then(|| pllvm_interp::observe::report(program.body, &machine.divergence));
        let convergence = if !reports.convergence {
            None
        } else if machine.trace_omitted > 0 {
            Some(format!(
                "convergence: not computed: the run scheduled {} blocks, more than the {} trace rows kept (--trace-limit N raises the limit)",
                machine.steps, trace_limit
            ))
        } else {
            use pllvm_interp::convergence;
            let threads = convergence::Threads::from_trace(machine.state.width(), &machine.trace);
            let func = program.func;
            let init = convergence::init_from_config(module, func, config);
            let mut text = convergence::report(module, func, program.body, &threads, &init);
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&pllvm_interp::controlled::report(
                module,
                program.body,
                &threads,
            ));
            Some(text)
        };
        let dumped = dumps::dump_all(module, config, &machine.state.mem, reports.dumps)?;
        Ok(RunReport {
            schedule,
            violations,
            divergence,
            convergence,
            dumped,
        })
    }
}

/// A finished run and everything its output shows.
struct Ran<'r> {
    module: &'r Module,
    source: &'r Source<'r>,
    machine: &'r Machine<'r>,
    outcome: &'r Outcome,
    report: &'r RunReport,
}

/// `--trace html`: writes the page to `output`, or to `out` when there is no
/// `-o FILE`. Returns whether the page was all the output (no `-o`), so that
/// nothing else is printed.
fn write_html(
    run: &Ran<'_>,
    output: Option<&std::path::Path>,
    out: &mut dyn std::io::Write,
) -> Result<bool> {
    let machine = run.machine;
    let mut summary = serde_json::json!({ "text": run.outcome.to_string() });
    if let Outcome::Undefined(ub) = run.outcome {
        summary["undefined"] = run.source.ub_json(&machine.program, ub);
    }
    if machine.returns_value() {
        summary["result"] = machine.result_text().into();
    }
    let page = trace_html::Run {
        module: run.module,
        func: machine.program.func,
        file: run.source.name,
        interp: machine.interp.short(),
        width: machine.state.width(),
        rows: &machine.trace,
        omitted: machine.trace_omitted,
        outcome: &summary,
    };
    match output {
        Some(path) => {
            // Atomically: a page that cannot be made leaves FILE as it was.
            output::write_file(path, |w| {
                trace_html::write_page(&page, w).map_err(|e| anyhow!(e))
            })
            .map_err(|e| anyhow!("--trace html: {e:#}"))?;
            Ok(false)
        }
        None => {
            trace_html::write_page(&page, &mut std::io::BufWriter::new(&mut *out))
                .map_err(|e| anyhow!("--trace html: {e}"))?;
            Ok(true)
        }
    }
}

/// `--json` or `--trace json`: one JSON document (schema `pllvm-run/1`), the
/// trace streamed row by row inside it when `with_trace`.
fn write_json(run: &Ran<'_>, with_trace: bool, out: &mut dyn std::io::Write) -> Result<()> {
    let (machine, report) = (run.machine, run.report);
    let mut rest = serde_json::Map::new();
    rest.insert("outcome".into(), run.outcome.to_string().into());
    if let Outcome::Undefined(ub) = run.outcome {
        rest.insert("undefined".into(), run.source.ub_json(&machine.program, ub));
    }
    if machine.returns_value() {
        rest.insert("result".into(), serde_json::json!(machine.result_lanes()));
    }
    if let Some((name, blocks)) = &report.schedule {
        rest.insert(
            "schedule".into(),
            serde_json::json!({ "policy": name, "blocks": blocks }),
        );
    }
    if let Some(v) = &report.violations {
        rest.insert(
            "greedy".into(),
            serde_json::json!({ "greedy": v.is_empty(), "violations": v }),
        );
    }
    if let Some(d) = &report.divergence {
        rest.insert("divergence".into(), d.clone().into());
    }
    if let Some(c) = &report.convergence {
        rest.insert("convergence".into(), c.clone().into());
    }
    if !report.dumped.is_empty() {
        let dumps: serde_json::Map<String, serde_json::Value> = report
            .dumped
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
        serde_json::json!(run.module.functions[machine.program.func].name),
        machine.state.width()
    )?;
    if with_trace {
        write!(out, "  \"trace\": ")?;
        // Buffered: the standard output flushes at every line, and a trace of
        // W = 64 lanes is millions of lines.
        {
            let mut buffered = std::io::BufWriter::new(&mut *out);
            trace::write_json_bounded(
                &mut buffered,
                machine.program.body,
                &machine.trace,
                machine.trace_omitted,
            )?;
            buffered.flush()?;
        }
        writeln!(out, ",{}", rest.trim_start_matches('{'))?;
    } else {
        writeln!(out, "{}", rest.trim_start_matches("{\n"))?;
    }
    Ok(())
}

/// The text report: the trace table when `table` (with the values each block
/// writes when `values`), the outcome, the results and the reports.
fn write_text(
    run: &Ran<'_>,
    table: bool,
    values: bool,
    out: &mut dyn std::io::Write,
) -> Result<()> {
    let (machine, report) = (run.machine, run.report);
    if table {
        // Written row by row (through a buffer: standard output flushes at
        // every line): the table is never held whole.
        let mut buffered = std::io::BufWriter::new(&mut *out);
        trace::write_table_bounded(
            &mut buffered,
            &run.module.types,
            machine.program.body,
            &machine.trace,
            values,
            machine.trace_omitted,
        )?;
        writeln!(buffered)?;
        buffered.flush()?;
    }
    writeln!(out, "outcome: {}", run.outcome)?;
    if machine.returns_value() {
        writeln!(out, "result: {}", machine.result_text())?;
    }
    if let Some((name, blocks)) = &report.schedule {
        writeln!(out, "schedule ({name}): {}", blocks.join(","))?;
    }
    if let Some(v) = &report.violations {
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
    if let Some(d) = &report.divergence {
        writeln!(out, "{d}")?;
    }
    if let Some(c) = &report.convergence {
        writeln!(out, "{c}")?;
    }
    for (_, d) in &report.dumped {
        writeln!(out, "{}", d.text)?;
    }
    Ok(())
}
