//! # pllvm-corpus: golden programs and their checker
//!
//! The programs live in `corpus/<topic>/*.ll` with directives (`; run:`, `; expect`,
//! `; error:`) described in `corpus/README.md` and parsed by
//! `pllvm_interp::directives`. This crate checks one file against its
//! expectations ([`check_file`]): its runs ([`run_directive`]: scheduled,
//! explored, traced), its verifier errors, its divergence expectations
//! ([`analysis_expect`], checked against every run by `pllvm_interp::soundness`),
//! its `; transform NAME:` pipelines (the private `transform` module), and the
//! unified diff a failure prints ([`diff()`]); `tests/corpus.rs` turns every file
//! into a test.

mod diff;
mod transform;

pub use diff::diff;

use pllvm_interp::directives::{self, ExpectKind, RunDirective, RunMode, collapse_whitespace};
use pllvm_interp::greedy::{self, GreedyFacts, Verdict};
use pllvm_interp::run::ScheduledRun;
use pllvm_interp::{Machine, Outcome, controlled, convergence, trace};
use pllvm_semantics::diag::{Diagnostic, LineIndex};
use pllvm_semantics::ir::Module;
use pllvm_semantics::text;
use pllvm_semantics::verify::verify_module;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub mod analysis_expect;

/// The `corpus/` folder of the workspace.
pub fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Every `.ll` file below `root`, sorted.
pub fn corpus_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.file_name()
                    .is_some_and(|n| n != "target" && n != "src" && n != "tests")
                {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "ll") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// What a successful check saw.
#[derive(Debug, Default)]
pub struct Checked {
    /// Names of the rules the runs fired (from the trace).
    pub rules: BTreeSet<&'static str>,
    /// Number of runs executed.
    pub runs: usize,
    /// The schedule constraints of thesis Ch. 5 (`"Def. 14"`, `"Def. 17"`,
    /// `"§5.3"`, as `pllvm_interp::greedy` cites them) that rejected a step of a
    /// run's given schedule: the runs whose `--schedule` is not greedy.
    pub constraints: BTreeSet<&'static str>,
}

/// Checks one corpus file. `Err` holds a readable failure report.
pub fn check_file(path: &Path, bless: bool) -> Result<Checked, String> {
    let src = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path.display().to_string();
    let d = directives::parse(&src).map_err(|e| format!("{name}: {e}"))?;
    if !d.errors.is_empty() {
        return check_errors(&name, &src, &d.errors).map(|()| Checked::default());
    }
    let (module, spans) = text::parse_module(&src).map_err(|errors| {
        let diags: Vec<Diagnostic> = errors.iter().map(|e| e.to_diagnostic()).collect();
        pllvm_semantics::diag::render_all(&diags, &name, &src)
    })?;
    let report = verify_module(&module, &spans);
    if !report.errors.is_empty() {
        return Err(pllvm_semantics::diag::render_all(
            &report.errors,
            &name,
            &src,
        ));
    }
    let mut checked = Checked::default();
    let mut failures = Vec::new();
    let mut snapshots = Vec::new();
    // The `; transform NAME:` pipelines, each run once (transform.rs).
    let mut transformed = std::collections::BTreeMap::new();
    for t in &d.transforms {
        let out = transform::run(&module, t).map_err(|e| format!("{name}:{}: {e}", t.line))?;
        transformed.insert(t.name.clone(), out);
    }
    for e in &d.expects {
        if let ExpectKind::TransformCfg { transform, rows } = &e.kind
            && let Some(msg) = transformed
                .get(transform)
                .and_then(|m| transform::check_cfg(m, rows))
        {
            failures.push(format!(
                "{name}:{}: the CFG after transform '{transform}' differs:\n{msg}",
                e.line
            ));
        }
    }
    for run in &d.runs {
        let program = match &run.transform {
            Some(t) => transformed.get(t).unwrap_or(&module),
            None => &module,
        };
        let output =
            run_directive(program, run).map_err(|e| format!("{name}:{}: {e}", run.line))?;
        checked.runs += 1;
        checked.rules.extend(output.rules.iter().copied());
        checked.constraints.extend(
            output
                .violations
                .iter()
                .map(|v| v.2)
                .filter(|d| !d.is_empty()),
        );
        for e in d
            .expects
            .iter()
            .filter(|e| e.run.as_ref().is_none_or(|r| *r == run.name))
        {
            if let Some(msg) = check_expectation(&e.kind, &output)
                .or_else(|| check_convergence(&module, &e.kind, &output))
            {
                failures.push(format!(
                    "{name}:{}: expectation failed for run '{}' (line {}):\n{msg}",
                    e.line, run.name, run.line
                ));
            }
        }
        snapshots.push((run.name.clone(), output.snapshot));
    }
    // Divergence-analysis expectations (`; expect[NAME]: uniform|varying`), and
    // every uniform claim against each run (analysis_expect.rs).
    let runs: Vec<(String, pllvm_interp::RunConfig)> = d
        .runs
        .iter()
        .filter(|r| r.transform.is_none())
        .map(|r| (r.name.clone(), r.config.clone()))
        .collect();
    failures.extend(analysis_expect::check(&name, &src, &module, &spans, &runs));
    check_snapshots(path, &src, &snapshots, bless, &mut failures);
    if failures.is_empty() {
        Ok(checked)
    } else {
        Err(failures.join("\n\n"))
    }
}

/// A definition and its witness lane, as a verdict cites them (`Def. 17`, lane 1).
pub type Citation = (&'static str, Option<usize>);

/// What one run produced, as text the expectations compare against.
#[derive(Debug)]
pub struct RunOutput {
    /// `[r0, r1, …]`.
    pub result: String,
    /// The outcome as `pllvm run` prints it.
    pub outcome: String,
    /// The trace table rows (without header), whitespace-normalized.
    pub trace_rows: Vec<String>,
    /// Final value of each named variable.
    pub env: Vec<(String, String)>,
    /// Final contents of each global.
    pub memory: Vec<(String, String)>,
    /// The tool-owned snapshot (trace with values, outcome, result).
    pub snapshot: String,
    /// Rules fired.
    pub rules: BTreeSet<&'static str>,
    /// The blocks scheduled.
    pub schedule: Vec<String>,
    /// The verdict on every block in the final state (Def. 12-18): the block name
    /// and, when illegal, the definition and witness lane.
    pub legality: Vec<(String, Option<Citation>)>,
    /// Every step that was not greedy: (step, block, definition, lane).
    pub violations: Vec<(usize, String, &'static str, Option<usize>)>,
    /// Explore runs: the distinct result vectors, whitespace removed.
    pub outcomes: Vec<String>,
    /// Explore runs: the concurrent next blocks (Def. 20) by name.
    pub cnb: Vec<(String, String)>,
    /// Single runs: the function run and each lane's dynamic instances
    /// (`pllvm_interp::convergence`).
    pub lanes: Option<(pllvm_semantics::ir::FuncId, convergence::Threads)>,
}

/// Runs one `; run:` line in its mode (see `pllvm_interp::directives::RunMode`).
pub fn run_directive(module: &Module, run: &RunDirective) -> Result<RunOutput, String> {
    match &run.mode {
        RunMode::Plain => run_one(module, &run.config),
        RunMode::Sched(policy) => run_sched(module, &run.config, policy),
        RunMode::Explore(bounds) => run_explore(module, &run.config, bounds),
    }
}

/// A run driven by a built-in scheduler.
fn run_sched(
    module: &Module,
    config: &pllvm_interp::RunConfig,
    policy: &str,
) -> Result<RunOutput, String> {
    let mut machine = Machine::new(module, config).map_err(|e| e.to_string())?;
    machine.record_writes = true;
    let mut scheduler = pllvm_interp::sched::builtin(policy)?;
    let run = machine
        .run_with(scheduler.as_mut())
        .map_err(|e| e.to_string())?;
    render_run(module, &machine, &run.outcome, Some(&run))
}

/// An exhaustive exploration: `result` is the one result when there is exactly one
/// outcome; `outcome` is `returned` when every greedy schedule returns.
fn run_explore(
    module: &Module,
    config: &pllvm_interp::RunConfig,
    bounds: &pllvm_interp::explore::Bounds,
) -> Result<RunOutput, String> {
    let e = pllvm_interp::explore::explore(module, config, bounds).map_err(|e| e.to_string())?;
    let outcomes: Vec<String> = e
        .outcomes
        .iter()
        .map(|o| collapse_whitespace(&o.result_text).replace(' ', ""))
        .collect();
    let every_returned = e.truncated.is_none() && e.outcomes.iter().all(|o| o.ending == "returned");
    Ok(RunOutput {
        result: match e.outcomes.as_slice() {
            [one] => one.result_text.clone(),
            _ => "schedule-dependent".into(),
        },
        outcome: if every_returned && !e.outcomes.is_empty() {
            "returned".into()
        } else {
            e.outcomes
                .iter()
                .map(|o| o.ending.clone())
                .collect::<Vec<_>>()
                .join(" | ")
        },
        trace_rows: Vec::new(),
        env: Vec::new(),
        memory: Vec::new(),
        snapshot: e.report(),
        rules: BTreeSet::new(),
        schedule: Vec::new(),
        legality: Vec::new(),
        violations: Vec::new(),
        outcomes,
        lanes: None,
        cnb: e
            .concurrent_next_blocks()
            .iter()
            .map(|c| {
                (
                    e.name(c.blocks.0).to_string(),
                    e.name(c.blocks.1).to_string(),
                )
            })
            .collect(),
    })
}

/// Runs `config` on `module` and renders everything an expectation may check.
pub fn run_one(module: &Module, config: &pllvm_interp::RunConfig) -> Result<RunOutput, String> {
    let mut machine = Machine::new(module, config).map_err(|e| e.to_string())?;
    machine.record_writes = true;
    let (outcome, checked) = match &config.schedule {
        Some(s) => {
            let run = machine.run_schedule_checked(s).map_err(|e| e.to_string())?;
            (run.outcome.clone(), Some(run))
        }
        None => (machine.run_to_end().map_err(|e| e.to_string())?, None),
    };
    render_run(module, &machine, &outcome, checked.as_ref())
}

/// Renders what a finished machine shows (trace, results, memory, legality).
fn render_run(
    module: &Module,
    machine: &Machine<'_>,
    outcome: &Outcome,
    checked: Option<&ScheduledRun>,
) -> Result<RunOutput, String> {
    let body = machine.program.body;
    let program = &machine.program;
    let facts = GreedyFacts::compute(program)
        .with_interp(machine.interp)
        .with_exec(machine.exec);
    let legality = greedy::legality(program, &facts, &machine.state)
        .into_iter()
        .map(|l| {
            let verdict = match l.verdict {
                Verdict::Legal => None,
                Verdict::Illegal {
                    definition, lane, ..
                } => Some((definition, lane)),
            };
            (program.block_name(l.block).to_string(), verdict)
        })
        .collect();
    let (schedule, violations) = match checked {
        Some(run) => (
            run.schedule
                .iter()
                .map(|&b| program.block_name(b).to_string())
                .collect(),
            run.violations
                .iter()
                .map(|v| {
                    let (definition, lane) = match &v.legality.verdict {
                        Verdict::Illegal {
                            definition, lane, ..
                        } => (*definition, *lane),
                        Verdict::Legal => ("", None),
                    };
                    (
                        v.step,
                        program.block_name(v.legality.block).to_string(),
                        definition,
                        lane,
                    )
                })
                .collect(),
        ),
        None => (
            machine
                .trace
                .iter()
                .map(|r| program.block_name(r.scheduled).to_string())
                .collect(),
            Vec::new(),
        ),
    };
    let table = trace::table(&module.types, body, &machine.trace, false);
    let trace_rows = table.lines().skip(1).map(collapse_whitespace).collect();
    let env = body
        .values
        .iter()
        .filter_map(|(v, data)| {
            let name = data.name.as_ref()?;
            let width = module.types.int_width(data.ty);
            Some((
                format!("%{name}"),
                trace::lanes_text_typed(&machine.state.env.get(v), width),
            ))
        })
        .collect();
    let memory = module
        .globals
        .iter()
        .filter_map(|(g, data)| {
            let p = machine.global_pointer(g)?;
            let o = p.object?;
            let elem = pllvm_interp::machine::element_type(&module.types, data.ty);
            Some((
                format!("@{}", data.name),
                machine.state.mem.dump_object(o, &module.types, elem),
            ))
        })
        .collect();
    let outcome_text = outcome.to_string();
    let snapshot = format!(
        "{}\noutcome: {outcome_text}\nresult: {}",
        trace::table(&module.types, body, &machine.trace, true),
        machine.result_text()
    );
    let rules = machine.rules_fired.names().into_iter().collect();
    Ok(RunOutput {
        result: machine.result_text(),
        outcome: outcome_text,
        trace_rows,
        env,
        memory,
        snapshot,
        rules,
        schedule,
        legality,
        violations,
        outcomes: Vec::new(),
        cnb: Vec::new(),
        lanes: Some((
            machine.program.func,
            convergence::Threads::from_trace(machine.state.width(), &machine.trace),
        )),
    })
}

/// `None` if the expectation holds, else what differs.
fn check_expectation(kind: &ExpectKind, out: &RunOutput) -> Option<String> {
    let same = |a: &str, b: &str| {
        collapse_whitespace(a).replace(' ', "") == collapse_whitespace(b).replace(' ', "")
    };
    match kind {
        ExpectKind::Result(want) => (!same(want, &out.result))
            .then(|| format!("  expected result {want}\n  got      {}", out.result)),
        ExpectKind::Outcome(want) => {
            let ok = if let Some(sub) = want.strip_prefix("undefined:") {
                out.outcome.starts_with("undefined") && out.outcome.contains(sub.trim())
            } else {
                out.outcome.starts_with(want.trim())
            };
            (!ok).then(|| {
                format!(
                    "  expected outcome {want}\n  got              {}",
                    out.outcome
                )
            })
        }
        ExpectKind::Env(name, want) => match out.env.iter().find(|(n, _)| n == name) {
            None => Some(format!("  no variable {name}")),
            Some((_, got)) => (!same(want, got))
                .then(|| format!("  expected {name} = {want}\n  got      {name} = {got}")),
        },
        ExpectKind::Memory(name, want) => match out.memory.iter().find(|(n, _)| n == name) {
            None => Some(format!("  no global {name}")),
            Some((_, got)) => (!same(want, got))
                .then(|| format!("  expected {name} = {want}\n  got      {name} = {got}")),
        },
        ExpectKind::Legal(want) => {
            let got: BTreeSet<&str> = out
                .legality
                .iter()
                .filter(|(_, v)| v.is_none())
                .map(|(b, _)| b.as_str())
                .collect();
            let want: BTreeSet<&str> = want.iter().map(String::as_str).collect();
            (got != want).then(|| format!("  expected legal {want:?}\n  got            {got:?}"))
        }
        ExpectKind::Illegal(items) => {
            let mut problems = Vec::new();
            for (block, def, lane) in items {
                match out.legality.iter().find(|(b, _)| b == block) {
                    None => problems.push(format!("  no block {block}")),
                    Some((_, None)) => problems.push(format!("  {block} is legal")),
                    Some((_, Some((d, l)))) => {
                        if d != def || (lane.is_some() && lane != l) {
                            problems.push(format!(
                                "  expected {block} illegal by {def}{}\n  got      {d}{}",
                                lane.map_or(String::new(), |l| format!(", lane {l}")),
                                l.map_or(String::new(), |l| format!(", lane {l}"))
                            ));
                        }
                    }
                }
            }
            (!problems.is_empty()).then(|| problems.join("\n"))
        }
        ExpectKind::FirstViolation(want) => {
            let got = out.violations.first();
            let show = |v: Option<&(usize, String, &str, Option<usize>)>| match v {
                None => "none".to_string(),
                Some((step, b, d, l)) => format!(
                    "{b} at step {step} ({d}{})",
                    l.map_or(String::new(), |l| format!(", lane {l}"))
                ),
            };
            let ok = match (want, got) {
                (None, None) => true,
                (Some((b, step, d, lane)), Some((gs, gb, gd, gl))) => {
                    b == gb && step == gs && d == gd && (lane.is_none() || lane == gl)
                }
                _ => false,
            };
            (!ok).then(|| {
                let want_text = match want {
                    None => "none".to_string(),
                    Some((b, step, d, l)) => format!(
                        "{b} at step {step} ({d}{})",
                        l.map_or(String::new(), |l| format!(", lane {l}"))
                    ),
                };
                format!(
                    "  expected first violation {want_text}\n  got                      {}",
                    show(got)
                )
            })
        }
        ExpectKind::Schedule(want) => (want != &out.schedule).then(|| {
            format!(
                "  expected schedule {}\n  got               {}",
                want.join(","),
                out.schedule.join(",")
            )
        }),
        ExpectKind::Outcomes(want) => {
            let got: BTreeSet<&str> = out.outcomes.iter().map(String::as_str).collect();
            let want: BTreeSet<&str> = want.iter().map(String::as_str).collect();
            (got != want)
                .then(|| format!("  expected outcomes {want:?}\n  got               {got:?}"))
        }
        ExpectKind::Cnb(want) => {
            let key = |(a, b): &(String, String)| {
                if a <= b {
                    (a.clone(), b.clone())
                } else {
                    (b.clone(), a.clone())
                }
            };
            let got: BTreeSet<(String, String)> = out.cnb.iter().map(key).collect();
            let want: BTreeSet<(String, String)> = want.iter().map(key).collect();
            (got != want).then(|| format!("  expected cnb {want:?}\n  got          {got:?}"))
        }
        // Checked with the module by `check_convergence`.
        ExpectKind::Convergence { .. }
        | ExpectKind::MConverged(_)
        | ExpectKind::Controlled { .. }
        | ExpectKind::TokenViolations(_)
        | ExpectKind::TransformCfg { .. } => None,
        ExpectKind::Trace(rows) => {
            let want: Vec<String> = rows
                .iter()
                .map(|r| collapse_whitespace(r))
                .filter(|r| !r.starts_with("sc |"))
                .collect();
            if want == out.trace_rows {
                None
            } else {
                Some(diff(&want.join("\n"), &out.trace_rows.join("\n")))
            }
        }
    }
}

/// `None` if a dynamic-convergence expectation (`convergence`, `m-converged`)
/// holds for the run, else what differs; `None` for other expectations.
fn check_convergence(module: &Module, kind: &ExpectKind, out: &RunOutput) -> Option<String> {
    if !matches!(
        kind,
        ExpectKind::Convergence { .. }
            | ExpectKind::MConverged(_)
            | ExpectKind::Controlled { .. }
            | ExpectKind::TokenViolations(_)
    ) {
        return None;
    }
    let Some((func, threads)) = &out.lanes else {
        return Some("  an explore run has no single execution to compare".into());
    };
    let Some(body) = module.functions[*func].body.as_ref() else {
        return Some("  the function run has no body".into());
    };
    let all = convergence::hierarchies(body, 5_000);
    match kind {
        ExpectKind::Convergence { headers, rows } => {
            let mut want = headers.clone();
            want.sort();
            want.dedup();
            let chosen = if want.is_empty() {
                all.first()
            } else {
                all.iter()
                    .find(|h| convergence::header_names(body, h) == want)
            };
            let Some(h) = chosen else {
                let there: Vec<String> = all
                    .iter()
                    .map(|h| convergence::header_names(body, h).join(", "))
                    .collect();
                return Some(format!(
                    "  no DFS gives a hierarchy with headers {}; the hierarchies: {}",
                    want.join(", "),
                    there.join(" | ")
                ));
            };
            let relation = convergence::maximal_converged_with(threads, h);
            convergence::check_table(body, threads, &relation, rows)
                .err()
                .map(|e| {
                    let order = convergence::convergence_before(threads, &relation);
                    format!(
                        "  {e}\n  the run's maximal converged-with relation:\n{}",
                        convergence::table(body, threads, &relation, &order)
                    )
                })
        }
        ExpectKind::MConverged(want) => {
            let relations = convergence::relations(threads, &all);
            let got: BTreeSet<&str> = convergence::behaved_m_converged(threads, &relations)
                .into_iter()
                .filter(|(_, m)| *m)
                .map(|(b, _)| body.blocks[b].name.as_str())
                .collect();
            let want: BTreeSet<&str> = want.iter().map(String::as_str).collect();
            (got != want)
                .then(|| format!("  expected m-converged {want:?}\n  got                  {got:?}"))
        }
        ExpectKind::Controlled { op, classes } => {
            let relation = controlled::controlled_relation(module, body, threads);
            let Some(found) = relation.iter().find(|r| &r.name == op) else {
                let names: Vec<&str> = relation.iter().map(|r| r.name.as_str()).collect();
                return Some(format!(
                    "  no controlled operation {op}; the function has {names:?}"
                ));
            };
            let got: Vec<String> = found
                .classes
                .iter()
                .map(|c| controlled::lanes_text(&controlled::lanes_of(c)))
                .collect();
            (&got != classes).then(|| {
                format!(
                    "  expected {op} = {}\n  got        {op} = {}",
                    classes.join(" "),
                    got.join(" ")
                )
            })
        }
        ExpectKind::TokenViolations(want) => {
            let relation = controlled::controlled_relation(module, body, threads);
            let found = controlled::violations(&relation);
            let got: BTreeSet<String> = found
                .iter()
                .map(|v| match v {
                    controlled::Violation::Split { op, .. } => format!("split {op}"),
                    controlled::Violation::Merged { op, .. } => format!("merged {op}"),
                })
                .collect();
            let want: BTreeSet<String> = want.iter().cloned().collect();
            (got != want).then(|| {
                let listed: Vec<String> = found.iter().map(|v| format!("    {v}")).collect();
                format!(
                    "  expected token violations {want:?}\n  got                       {got:?}\n{}",
                    listed.join("\n")
                )
            })
        }
        _ => None,
    }
}

/// Verifier files: errors on exactly the annotated lines, with the annotated text.
fn check_errors(name: &str, src: &str, want: &[(usize, String)]) -> Result<(), String> {
    let index = LineIndex::new(src);
    let diags: Vec<Diagnostic> = match text::parse_module(src) {
        Err(errors) => errors.iter().map(|e| e.to_diagnostic()).collect(),
        Ok((module, spans)) => verify_module(&module, &spans).errors,
    };
    let got: Vec<(usize, String)> = diags
        .iter()
        .map(|d| (index.line_col(src, d.span.lo).0, d.message.clone()))
        .collect();
    let mut problems = Vec::new();
    for (line, sub) in want {
        if !got
            .iter()
            .any(|(l, m)| l == line && m.contains(sub.as_str()))
        {
            problems.push(format!(
                "{name}:{line}: expected an error containing '{sub}'"
            ));
        }
    }
    for (line, msg) in &got {
        if !want.iter().any(|(l, _)| l == line) {
            problems.push(format!("{name}:{line}: unexpected error: {msg}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        let rendered = pllvm_semantics::diag::render_all(&diags, name, src);
        Err(format!(
            "{}\n\nthe tools reported:\n{rendered}",
            problems.join("\n")
        ))
    }
}

/// Compares (or with `bless`, rewrites) the `; out[NAME]:` snapshot blocks.
fn check_snapshots(
    path: &Path,
    src: &str,
    snaps: &[(String, String)],
    bless: bool,
    failures: &mut Vec<String>,
) {
    let lines: Vec<&str> = src.lines().collect();
    let mut kept: Vec<String> = Vec::new();
    let mut existing: Vec<(String, usize, String)> = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        if let Some(name) = lines[k]
            .trim()
            .strip_prefix("; out[")
            .and_then(|rest| rest.strip_suffix("]:"))
        {
            let start = k + 1;
            let mut body = Vec::new();
            k += 1;
            while k < lines.len() && lines[k].starts_with(";   ") {
                body.push(&lines[k][4..]);
                k += 1;
            }
            existing.push((name.to_string(), start, body.join("\n")));
            continue;
        }
        kept.push(lines[k].to_string());
        k += 1;
    }
    if bless {
        while kept.last().is_some_and(|l| l.trim().is_empty()) {
            kept.pop();
        }
        let mut text = kept.join("\n");
        text.push('\n');
        for (name, snap) in snaps {
            text.push_str(&format!("\n; out[{name}]:\n"));
            for l in snap.lines() {
                text.push_str(&format!(";   {l}\n"));
            }
        }
        if text != src
            && let Err(e) = std::fs::write(path, text)
        {
            failures.push(format!("{}: cannot bless: {e}", path.display()));
        }
        return;
    }
    for (name, line, body) in existing {
        let Some((_, snap)) = snaps.iter().find(|(n, _)| *n == name) else {
            failures.push(format!(
                "{}:{line}: snapshot for unknown run '{name}'",
                path.display()
            ));
            continue;
        };
        let want: Vec<&str> = body.lines().map(str::trim_end).collect();
        let got: Vec<&str> = snap.lines().map(str::trim_end).collect();
        if want != got {
            failures.push(format!(
                "{}:{line}: snapshot out[{name}] differs (tool-owned; if the change is intended run `BLESS=1 cargo test -p pllvm-corpus -- {}`):\n{}",
                path.display(),
                path.file_name().map_or(String::new(), |f| f.to_string_lossy().to_string()),
                diff(&want.join("\n"), &got.join("\n"))
            ));
        }
    }
}
