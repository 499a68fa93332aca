//! `pllvm run FILE --grid N` (docs/launch.md): a launch of N
//! threads as thread arrays of W lanes on all cores
//! ([`pllvm_interp::launch`]), its results in thread order, its dumps and its
//! races, as text or as one JSON document (`--json`, schema `pllvm-run/1`).

use crate::dumps::{self, DumpSpec};
use crate::errors::Usage;
use crate::flags::InputFlags;
use crate::progress;
use crate::source::{RUN_SCHEMA, Source};
use anyhow::{Result, anyhow};
use pllvm_interp::launch::{ArrayRun, Grid, Launch, LaunchError, launch_watched};
use pllvm_interp::machine::TIME_LIMIT;
use pllvm_interp::sched;
use pllvm_interp::workgroup::GroupRace;
use pllvm_interp::{Outcome, RunConfig, RunError};
use pllvm_semantics::diag::LineIndex;
use pllvm_semantics::ir::Body;
use pllvm_semantics::ir::Module;
use std::process::ExitCode;

/// The W of a launch when neither `--threads` nor the input file gives one: a
/// warp of 32 lanes.
pub(crate) const DEFAULT_LAUNCH_WIDTH: usize = 32;

/// The flags of `run` a launch reads.
pub(crate) struct GridFlags<'a> {
    /// `--grid N` or `--grid X,Y[,Z]`.
    pub grid: &'a [u64],
    /// `--threads W`.
    pub width: Option<usize>,
    /// `--group G` or `--group x,y[,z]`.
    pub group: Option<&'a [u64]>,
    /// `--jobs J`.
    pub jobs: Option<u64>,
    /// `--lane-id NAME`.
    pub lane_id: Option<String>,
    /// `--sched POLICY`.
    pub sched: Option<String>,
    /// `--divergence`.
    pub divergence: bool,
    /// `--time`.
    pub time: Option<std::time::Duration>,
    /// `--dump`.
    pub dumps: &'a [DumpSpec],
    /// `--json`.
    pub json: bool,
    /// Flags a launch does not take, and whether each was given.
    pub refused: [(&'static str, bool); 4],
}

/// Runs the launch and prints its report.
pub(crate) fn run(
    module: &Module,
    source: &Source<'_>,
    config: &RunConfig,
    flags: &InputFlags<'_>,
    grid_flags: &GridFlags<'_>,
    out: &mut dyn std::io::Write,
) -> Result<ExitCode> {
    let grid = grid_of(module, config, flags, grid_flags)?;
    grid.check().map_err(Usage)?;
    // Per-array progress on a terminal (stderr only: stdout is the report).
    let bar = progress::bar(grid.arrays() as u64, "thread arrays");
    let launched = launch_watched(module, config, &grid, &|done| {
        if let Some(bar) = &bar {
            bar.set_position(done as u64);
        }
    });
    progress::finish(bar);
    let launched = launched.map_err(|e| match e {
        LaunchError::Setup(e) => flags.setup_error(e),
        LaunchError::Run {
            array,
            error: RunError::Stuck(s),
        } => match pick(module, config) {
            Some(func) => anyhow!(
                "thread array {array}:\n{}",
                s.diagnostic(source.spans.function(func))
                    .render(source.name, source.src)
            ),
            None => anyhow!("thread array {array}: {s}"),
        },
        other => anyhow!(other),
    })?;
    report_on_stderr(module, source, &grid, &launched);
    let report = Report {
        module,
        source,
        grid: &grid,
        outcome: launched.outcome(),
        dumped: dumps::dump_all(module, config, &launched.memory, grid_flags.dumps)?,
        divergence: launched.divergence.as_ref().and_then(|d| {
            module.functions[launched.func]
                .body
                .as_ref()
                .map(|body| pllvm_interp::observe::report(body, d))
        }),
        launched: &launched,
    };
    if grid_flags.json {
        write_json(&report, out)?;
    } else {
        write_text(&report, out)?;
    }
    Ok(
        if matches!(report.outcome, Outcome::Returned | Outcome::Incomplete)
            && launched.conflicting_races == 0
            && launched.group_race_count == 0
        {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        },
    )
}

/// The launch the flags ask for, or the usage error that refuses it: a flag
/// that follows one thread array, an input's schedule, a scheduler a launch
/// cannot run in every array.
fn grid_of(
    module: &Module,
    config: &RunConfig,
    flags: &InputFlags<'_>,
    grid_flags: &GridFlags<'_>,
) -> Result<Grid> {
    if let Some((flag, _)) = grid_flags.refused.iter().find(|(_, given)| *given) {
        return Err(Usage(format!(
            "{flag} follows one thread array; a launch (--grid) runs many (run without --grid to see one)"
        ))
        .into());
    }
    if config.schedule.is_some() {
        return Err(Usage(
            "a launch (--grid) runs each thread array with a scheduler, not the input's schedule"
                .into(),
        )
        .into());
    }
    let width = grid_flags
        .width
        .or(flags.inputs.input.as_ref().map(|_| config.threads))
        .unwrap_or(DEFAULT_LAUNCH_WIDTH);
    let jobs = grid_flags.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    // A kernel with atomics runs its arrays one after another on one memory
    // (`pllvm_interp::launch`): one job, whatever `--jobs` says.
    let launched = match config.function.as_deref() {
        Some(name) => module.function_by_name(name.trim_start_matches('@')),
        None => module.first_definition(),
    };
    let jobs = if launched.is_some_and(|f| pllvm_interp::launch::uses_atomics(module, f)) {
        1
    } else {
        jobs
    };
    let (threads, group, dims) = Grid::shaped(grid_flags.grid, grid_flags.group).map_err(Usage)?;
    let grid = Grid {
        threads,
        width,
        group,
        dims,
        jobs,
        lane_id: grid_flags
            .lane_id
            .as_ref()
            .map(|l| l.trim_start_matches('%').to_string()),
        scheduler: grid_flags.sched.clone(),
        divergence: grid_flags.divergence,
        time_limit: grid_flags.time,
    };
    if let Some(spec) = &grid.scheduler
        && (spec.starts_with("replay:") || spec == "interactive")
    {
        return Err(Usage(format!(
            "--sched {spec}: a launch runs lowest (the default), highest, random:SEED, ipd or the unchecked earliest in every thread array"
        ))
        .into());
    }
    Ok(grid)
}

/// The first thread array that did not return.
fn first_failed(launched: &Launch) -> Option<&ArrayRun> {
    launched
        .arrays
        .iter()
        .find(|a| !matches!(a.outcome, Outcome::Returned))
}

/// What goes to stderr whatever the format: the launch's warnings, undefined
/// behaviour at its source position (once, for the first array it ended, as a
/// single run shows it), and the races.
fn report_on_stderr(module: &Module, source: &Source<'_>, grid: &Grid, launched: &Launch) {
    for w in &launched.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(a) = first_failed(launched)
        && let Outcome::Undefined(ub) = &a.outcome
    {
        eprintln!(
            "thread array {} (threads {}..{}):\n{}",
            a.index,
            a.first_thread,
            a.first_thread + a.lanes as u64,
            source.render_ub(launched.func, ub)
        );
        if grid.scheduler.as_deref() == Some(sched::EARLIEST) {
            eprintln!(
                "note: --sched earliest checks no greedy constraint (thesis Ch. 5): this undefined behaviour may come from the order alone; run without --sched (or with --sched lowest) for a checked greedy schedule"
            );
        }
    }
    let unit = race_unit(launched);
    for race in &launched.races {
        eprintln!("race: {race}");
    }
    if launched.race_count > launched.races.len() as u64 {
        eprintln!(
            "race: … {} more bytes written by two {unit}s",
            launched.race_count - launched.races.len() as u64
        );
    }
    let body = module.functions[launched.func].body.as_ref();
    for race in &launched.group_races {
        eprintln!(
            "race within a work-group: {}",
            race_text(source, launched.func, body, race)
        );
    }
    let listed: u64 = launched.group_races.iter().map(|r| r.len).sum();
    if launched.group_race_count > listed {
        eprintln!(
            "race within a work-group: … {} more bytes accessed by two thread arrays between the same barriers",
            launched.group_race_count - listed
        );
    }
}

/// The unit of a launch's races between memories: `work-group` when its
/// work-groups ran as groups of several thread arrays, else `thread array`.
fn race_unit(launched: &Launch) -> &'static str {
    if launched.by_groups {
        "work-group"
    } else {
        "thread array"
    }
}

/// A race within a work-group, each access at its source position
/// (`line:col`) when the source map has it.
fn race_text(
    source: &Source<'_>,
    func: pllvm_semantics::ir::FuncId,
    body: Option<&Body>,
    race: &GroupRace,
) -> String {
    let Some(body) = body else {
        return format!("work-group {}: {}", race.group, race.object);
    };
    let spans = source.spans.function(func);
    let lines = LineIndex::new(source.src);
    let at = |i: pllvm_semantics::ir::Inst| {
        let (line, col) = lines.line_col(source.src, spans.insts.get(i).lo);
        format!(" ({}:{line}:{col})", source.name)
    };
    format!(
        "{}; first access{}, second{}",
        race.render(body),
        at(race.first.inst),
        at(race.then.inst)
    )
}

/// A finished launch and everything its report shows.
struct Report<'r> {
    module: &'r Module,
    source: &'r Source<'r>,
    grid: &'r Grid,
    launched: &'r Launch,
    outcome: Outcome,
    dumped: Vec<(String, dumps::Dumped)>,
    divergence: Option<String>,
}

/// `--json`: the launch as one document (schema `pllvm-run/1`).
fn write_json(r: &Report<'_>, out: &mut dyn std::io::Write) -> Result<()> {
    let (module, grid, launched) = (r.module, r.grid, r.launched);
    let mut doc = serde_json::Map::new();
    doc.insert("schema".into(), RUN_SCHEMA.into());
    doc.insert(
        "function".into(),
        module.functions[launched.func].name.clone().into(),
    );
    doc.insert("threads".into(), grid.width.into());
    doc.insert(
        "grid".into(),
        serde_json::json!({
            "threads": grid.threads,
            "width": grid.width,
            "group": grid.group_size(),
            "arrays": grid.arrays(),
            "jobs": grid.jobs,
            "scheduler": grid.scheduler.as_deref().unwrap_or("lowest"),
            "checked": grid.scheduler.as_deref() != Some(sched::EARLIEST),
        }),
    );
    if let (Some(dims), Some(g)) = (
        &grid.dims,
        doc.get_mut("grid").and_then(|g| g.as_object_mut()),
    ) {
        let extent: Vec<u64> = (0..3).map(|d| dims.group[d] * dims.groups[d]).collect();
        g.insert(
            "dims".into(),
            serde_json::json!({ "grid": extent, "group": dims.group }),
        );
    }
    doc.insert("outcome".into(), r.outcome.to_string().into());
    if let (Some(a), Outcome::Undefined(ub)) = (first_failed(launched), &r.outcome) {
        let mut u = r.source.ub_json_of(module, launched.func, ub);
        if let Some(obj) = u.as_object_mut() {
            obj.insert("array".into(), a.index.into());
            obj.insert(
                "thread".into(),
                ub.lane.map(|l| a.first_thread + l as u64).into(),
            );
        }
        doc.insert("undefined".into(), u);
    }
    let unfinished: Vec<serde_json::Value> = launched
        .arrays
        .iter()
        .filter(|a| a.started && !matches!(a.outcome, Outcome::Returned))
        .map(|a| {
            serde_json::json!({
                "array": a.index,
                "first_thread": a.first_thread,
                "lanes": a.lanes,
                "outcome": a.outcome.to_string(),
            })
        })
        .collect();
    doc.insert("arrays_not_returned".into(), unfinished.into());
    if let Some(limit) = grid.time_limit {
        let spans = |part: Part| -> Vec<[usize; 2]> { spans(launched, part) };
        doc.insert(
            "time_limit".into(),
            serde_json::json!({
                "seconds": limit.as_secs_f64(),
                "reached": launched.arrays.iter().any(|a| part_of(a) != Part::Finished),
                "finished": spans(Part::Finished),
                "stopped": spans(Part::Stopped),
                "not_started": spans(Part::NotStarted),
            }),
        );
    }
    if launched.returns_value {
        doc.insert("result".into(), serde_json::json!(launched.results()));
    }
    if !r.dumped.is_empty() {
        let dumps: serde_json::Map<String, serde_json::Value> = r
            .dumped
            .iter()
            .map(|(name, d)| (name.clone(), d.json.clone()))
            .collect();
        doc.insert("dumps".into(), dumps.into());
    }
    let unit_key = if launched.by_groups { "group" } else { "array" };
    let races: Vec<serde_json::Value> = launched
        .races
        .iter()
        .map(|r| {
            serde_json::json!({
                "object": r.object,
                "offset": r.offset,
                "first": { unit_key: r.first.0, "byte": r.first.1 },
                "then": { unit_key: r.then.0, "byte": r.then.1 },
            })
        })
        .collect();
    let site = |s: &pllvm_interp::workgroup::AccessSite| {
        let body = r.module.functions[launched.func].body.as_ref();
        serde_json::json!({
            "array": s.array,
            "lane": s.lane,
            "block": body.map(|b| b.blocks[s.block].name.clone()),
            "write": s.write,
        })
    };
    let group_races: Vec<serde_json::Value> = launched
        .group_races
        .iter()
        .map(|g| {
            serde_json::json!({
                "group": g.group,
                "object": g.object,
                "offset": g.offset,
                "len": g.len,
                "first": site(&g.first),
                "then": site(&g.then),
            })
        })
        .collect();
    doc.insert(
        "races".into(),
        serde_json::json!({
            "count": launched.race_count,
            "conflicting": launched.conflicting_races,
            "listed": races,
            "within_groups": {
                "count": launched.group_race_count,
                "listed": group_races,
            },
        }),
    );
    if let Some(d) = &r.divergence {
        doc.insert("divergence".into(), d.clone().into());
    }
    writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    Ok(())
}

/// The launch as text: its shape, outcome, arrays that did not return,
/// results, races, divergence and dumps.
fn write_text(r: &Report<'_>, out: &mut dyn std::io::Write) -> Result<()> {
    let (grid, launched) = (r.grid, r.launched);
    let (width, jobs) = (grid.width, grid.jobs);
    writeln!(
        out,
        "launch: {} threads as {} thread arrays of {} lane{}{}, work-groups of {} threads, {jobs} job{}",
        grid.threads,
        grid.arrays(),
        width,
        if width == 1 { "" } else { "s" },
        if !grid.threads.is_multiple_of(width as u64) {
            format!(" (the last of {})", grid.threads % width as u64)
        } else {
            String::new()
        },
        grid.group_size(),
        if jobs == 1 { "" } else { "s" }
    )?;
    if let Some(dims) = &grid.dims {
        let x = |v: [u64; 3]| v.map(|n| n.to_string()).join(" × ");
        let extent = std::array::from_fn(|d| dims.group[d] * dims.groups[d]);
        writeln!(
            out,
            "shape: {} threads, work-groups of {}, {} work-groups (thread order: group by group, x fastest)",
            x(extent),
            x(dims.group),
            x(dims.groups)
        )?;
    }
    writeln!(out, "outcome: {}", r.outcome)?;
    for a in launched
        .arrays
        .iter()
        .filter(|a| a.started && !matches!(a.outcome, Outcome::Returned))
    {
        writeln!(
            out,
            "  thread array {} (threads {}..{}): {}",
            a.index,
            a.first_thread,
            a.first_thread + a.lanes as u64,
            a.outcome
        )?;
    }
    if let Some(limit) = grid.time_limit {
        write_time_limit(limit, launched, out)?;
    }
    if launched.returns_value {
        let lanes: Vec<String> = launched
            .results()
            .into_iter()
            .map(|r| r.unwrap_or_else(|| "-".into()))
            .collect();
        writeln!(out, "result: [{}]", lanes.join(", "))?;
    }
    if launched.race_count > 0 {
        let unit = race_unit(launched);
        writeln!(
            out,
            "races: {} bytes written by two {unit}s ({} with different values; later {unit}s' writes kept)",
            launched.race_count, launched.conflicting_races
        )?;
    }
    if launched.group_race_count > 0 {
        writeln!(
            out,
            "races within work-groups: {} bytes accessed by two thread arrays of a work-group between the same barriers, at least one writing",
            launched.group_race_count
        )?;
    }
    if let Some(d) = &r.divergence {
        writeln!(out, "{d}")?;
    }
    for (_, d) in &r.dumped {
        writeln!(out, "{}", d.text)?;
    }
    Ok(())
}

/// What became of a thread array under a time limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// It ran to its own end (returned, or another outcome of its run).
    Finished,
    /// The time limit ended it while it ran.
    Stopped,
    /// The time limit came before it started.
    NotStarted,
}

/// Which [`Part`] array `a` is in.
fn part_of(a: &ArrayRun) -> Part {
    match (&a.outcome, a.started) {
        (_, false) => Part::NotStarted,
        (Outcome::Limit(why), true) if why == TIME_LIMIT => Part::Stopped,
        _ => Part::Finished,
    }
}

/// The arrays of `part` as maximal spans `[first, end)` of array indices.
fn spans(launched: &Launch, part: Part) -> Vec<[usize; 2]> {
    let mut spans: Vec<[usize; 2]> = Vec::new();
    for a in launched.arrays.iter().filter(|a| part_of(a) == part) {
        match spans.last_mut() {
            Some(last) if last[1] == a.index => last[1] += 1,
            _ => spans.push([a.index, a.index + 1]),
        }
    }
    spans
}

/// Most spans of arrays a text line lists (the count is always given).
const SPANS_LISTED: usize = 20;

/// `0..4, 6, 9..12`: spans of array indices (`a..b` excludes b, as thread
/// ranges do), at most [`SPANS_LISTED`] of them.
fn spans_text(spans: &[[usize; 2]]) -> String {
    let mut parts: Vec<String> = spans
        .iter()
        .take(SPANS_LISTED)
        .map(|&[a, b]| {
            if b == a + 1 {
                a.to_string()
            } else {
                format!("{a}..{b}")
            }
        })
        .collect();
    if spans.len() > SPANS_LISTED {
        parts.push("…".into());
    }
    parts.join(", ")
}

/// The time limit's line of the text report: how many arrays finished and
/// which, then the arrays it stopped and those it came before.
fn write_time_limit(
    limit: std::time::Duration,
    launched: &Launch,
    out: &mut dyn std::io::Write,
) -> Result<()> {
    let count = |part: Part| {
        launched
            .arrays
            .iter()
            .filter(|a| part_of(a) == part)
            .count()
    };
    let finished = spans(launched, Part::Finished);
    if count(Part::Finished) == launched.arrays.len() {
        return Ok(());
    }
    writeln!(
        out,
        "time limit of {} s reached: {} of {} thread arrays finished{}",
        limit.as_secs_f64(),
        count(Part::Finished),
        launched.arrays.len(),
        if finished.is_empty() {
            String::new()
        } else {
            format!(": {}", spans_text(&finished))
        }
    )?;
    let stopped = spans(launched, Part::Stopped);
    if !stopped.is_empty() {
        writeln!(
            out,
            "  stopped while running: {} ({})",
            spans_text(&stopped),
            count(Part::Stopped)
        )?;
    }
    let not_started = spans(launched, Part::NotStarted);
    if !not_started.is_empty() {
        writeln!(
            out,
            "  not started: {} ({})",
            spans_text(&not_started),
            count(Part::NotStarted)
        )?;
    }
    Ok(())
}

/// The function a configuration runs, as the machine picks it.
fn pick(module: &Module, config: &RunConfig) -> Option<pllvm_semantics::ir::FuncId> {
    match &config.function {
        Some(name) => module.function_by_name(name.trim_start_matches('@')),
        None => module.first_definition(),
    }
}
