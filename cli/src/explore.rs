//! `pllvm explore`: every greedy schedule of a program (thesis Def. 12), its
//! distinct outcomes, schedule independence, concurrent next blocks (Def. 20)
//! and Theorem 1; as a report or as the graph of explored states.

use crate::errors::{EXIT_TRUNCATED, Usage};
use crate::flags::{InputFlags, MachineFlags, RunInputs, TimeLimit};
use crate::graphviz;
use crate::interrupt;
use crate::output::stdout;
use crate::source::{Source, load};
use anyhow::{Result, anyhow};
use clap::Args;
use pllvm_interp::RunConfig;
use pllvm_interp::explore::{Bounds, ExploreError, Order};
use pllvm_semantics::ir::Module;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// `pllvm explore`'s flags.
#[derive(Args, Debug)]
#[command(mut_arg("exec", |a| a.help(
    "How the rules run: reference (lane by lane, the definition) or fast (their kernels, the default); both give the same exploration"
)))]
#[command(mut_arg("input", |a| a.help(
    "Run inputs as JSON (threads, interp, args, memory); flags override it"
)))]
#[command(mut_arg("time", |a| a.help(
    "Stop exploring after this many seconds (the report then says truncated and the exit code is 3, as for --max-states, --max-steps and Ctrl-C)"
)))]
pub(crate) struct ExploreArgs {
    /// A .ll file.
    file: PathBuf,
    #[command(flatten)]
    inputs: RunInputs,
    #[command(flatten)]
    machine: MachineFlags,
    /// The function to explore (default: the first definition).
    #[arg(long, value_name = "NAME")]
    function: Option<String>,
    /// Most distinct states to explore.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    max_states: usize,
    /// Longest schedule to explore.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    max_steps: usize,
    /// Successor order: lowest, highest or random:SEED (changes witnesses, not outcomes).
    #[arg(long, value_name = "ORDER", default_value = "lowest")]
    order: String,
    #[command(flatten)]
    time: TimeLimit,
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

/// Runs `pllvm explore`.
pub(crate) fn main(e: ExploreArgs) -> Result<ExitCode> {
    let (module, spans, name, src) = load(&Some(e.file.clone()))?;
    let source = Source {
        name: &name,
        src: &src,
        spans: &spans,
    };
    let flags = InputFlags {
        inputs: &e.inputs,
        machine: &e.machine,
        buffers: &[],
        function: &e.function,
        schedule: false,
        sched: None,
    };
    let config = flags.config()?;
    for w in crate::flags::input_warnings(&module, &config) {
        eprintln!("warning: {w}");
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
    let (exploration, graph) = explore_watching(
        &module,
        &config,
        &bounds,
        e.time.time,
        &flags,
        e.dot || e.svg,
    )?;
    if let Some(graph) = graph {
        let dot = exploration.dot(&graph);
        if e.svg {
            if graph.states.len() > EXPLORE_SVG_MAX_STATES {
                return Err(anyhow!(
                    "{} explored states are too many to draw (at most {EXPLORE_SVG_MAX_STATES}: Graphviz's layout grows faster than linearly); lower --max-states, or print --dot",
                    graph.states.len()
                ));
            }
            writeln!(
                stdout(),
                "{}",
                graphviz::svg(&dot, &e.file.display().to_string()).map_err(|e| anyhow!(e))?
            )?;
        } else {
            write!(stdout(), "{dot}")?;
        }
        // The picture is the output asked for: only a cut-off search changes
        // its exit code.
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
    Ok(exit_code(&exploration))
}

/// The exit code of a finished exploration's report (docs/cli.md "Exit codes"): 3 when a
/// bound cut it off (its report is partial); 1, said on stderr, when it found
/// no ending or only undefined behaviour; else 0.
fn exit_code(exploration: &pllvm_interp::explore::Exploration) -> ExitCode {
    if exploration.truncated.is_some() {
        return ExitCode::from(EXIT_TRUNCATED);
    }
    if exploration.outcomes.is_empty() {
        eprintln!("error: the exploration found no ending");
        return ExitCode::from(1);
    }
    if exploration.outcomes.iter().all(|o| o.undefined.is_some()) {
        eprintln!("error: every ending of every greedy schedule is undefined behaviour");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
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
