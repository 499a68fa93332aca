//! A REPL session: the loaded program, the run configuration, the scheduling
//! policy as set, the breakpoints, and the run: a [`Stepper`] (the current
//! execution state σ, Def. 3, with the latest rows of its trace, the policy's
//! state, and a snapshot per recent scheduled block so that `back` restores
//! earlier states exactly). [`Session::execute`] runs one input line and returns
//! the text to show: the session parses commands and prints; stepping and
//! snapshots are `pllvm_interp::stepper`'s.
//!
//! What a session keeps is bounded (see `pllvm_interp::stepper`): the last
//! [`BACK_DEPTH`] snapshots (fewer when the states are large: they stay within
//! `SNAPSHOT_BUDGET` bytes) and the last [`pllvm_interp::trace::default_limit`]
//! trace rows (10,000 up to W = 104), fewer when that many rows would not fit a
//! quarter of the host memory this process may still use (`initial_run`, with
//! a warning, as `run --trace-limit` is capped).
//!
//! The machine is `pllvm_interp::Machine`, the same one `pllvm run` and the corpus
//! use: every command rebuilds it for the loaded module and the session's
//! `RunConfig` ([`Stepper::machine`]) and installs the current state, so the
//! session owns plain data and no borrow of the module.

use super::command::{self, COMMANDS, Command, Setting, Target};
use super::policy::Policy;
use super::show;
use super::style::{Role, Style};
use crate::default_program;
use crate::flags::{InputFlags, MachineFlags, RunInputs};
use pllvm_analysis::result::{AnalysisKind, InitShapes, Uniformity};
use pllvm_analysis::shape::Shape;
use pllvm_analysis::uniformity::analyze as analyze_uniformity;
use pllvm_interp::config::parse_interp;
use pllvm_interp::greedy::{GreedyFacts, Legality, Verdict, legality};
use pllvm_interp::stepper::{BACK_DEPTH, Back, Drive, Stepper, Watch};
use pllvm_interp::trace;
use pllvm_interp::{Machine, Outcome, RunConfig, directives};
use pllvm_semantics::diag::{Diagnostic, SourceMap};
use pllvm_semantics::ir::{Block, InstKind, Module};
use pllvm_semantics::rules::{Exec, Program};
use pllvm_semantics::text;
use pllvm_semantics::value::{Pointer, Val};
use pllvm_semantics::verify::verify_module;
use std::path::Path;

/// A parsed and verified program.
#[derive(Debug)]
pub(super) struct Loaded {
    /// The file name as given (or the embedded program's name).
    pub name: String,
    /// The program text, for rendering outcomes at their source positions.
    pub src: String,
    /// The spans of the module's entities (the side table of positions).
    pub spans: SourceMap,
    /// The module.
    pub module: Module,
    /// Where the initial run configuration came from, for the banner.
    pub inputs_from: Option<String>,
    /// The configuration the file's first `; run:` line describes (or the default),
    /// without its schedule.
    pub file_config: RunConfig,
    /// The schedule of that line: the default policy replays it, so that `run`
    /// shows what the golden file records.
    pub file_schedule: Option<Vec<String>>,
}

/// What the loop does after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flow {
    /// Prompt again.
    Continue,
    /// Leave.
    Quit,
}

/// Options from the command line.
#[derive(Clone, Debug, Default)]
pub(super) struct StartOptions {
    /// `--threads`, `--arg`, `--mem`, `--input`.
    pub inputs: RunInputs,
    /// `--interp`, `--exec`, `--strict`, `--memory-limit`.
    pub machine: MachineFlags,
    /// The scheduling policy.
    pub sched: Option<String>,
    /// The function to run.
    pub function: Option<String>,
}

/// One REPL session.
#[derive(Debug)]
pub(super) struct Session {
    loaded: Loaded,
    config: RunConfig,
    /// The policy as set (restored by `reset`); the run holds it as it is now.
    policy_start: Policy,
    /// CFG facts for the greedy constraints of Ch. 5.
    facts: GreedyFacts,
    breaks: Vec<Target>,
    /// The run so far, with its snapshots for `back`.
    run: Stepper<Policy>,
    /// Why the run's trace window is smaller than usual (host memory), shown
    /// with the banner and whenever the run starts over.
    trace_warning: Option<String>,
    style: Style,
}

/// Reads, parses and verifies `file` (the embedded default program when `None`).
/// Errors are one line: the first diagnostic with its position, and how many more.
pub(super) fn load_program(file: Option<&Path>) -> Result<Loaded, String> {
    let (name, src) = match file {
        Some(p) => {
            let name = p.display().to_string();
            // Read with a bound, a device refused (docs/cli.md "Conventions").
            // The REPL reads its commands from standard input, so `-` here is a
            // file of that name, as it was before the bound.
            let path = if p.as_os_str() == "-" {
                Path::new("./-")
            } else {
                p
            };
            let bytes = crate::host::read_whole(path, "the program")?;
            // A byte that is not UTF-8 is an error at its position, as in `pllvm check`.
            let src = text::decode_source(bytes)
                .map_err(|e| one_line(&[e.error.to_diagnostic()], &name, &e.text))?;
            (name, src)
        }
        None => (
            default_program::CHECK_NAME.to_string(),
            default_program::CHECK_SOURCE.to_string(),
        ),
    };
    let (module, spans) = text::parse_module(&src).map_err(|errors| {
        let diags: Vec<Diagnostic> = errors.iter().map(|e| e.to_diagnostic()).collect();
        one_line(&diags, &name, &src)
    })?;
    let report = verify_module(&module, &spans);
    if !report.errors.is_empty() {
        return Err(one_line(&report.errors, &name, &src));
    }
    let mut file_schedule = None;
    let (file_config, inputs_from) = match directives::parse(&src) {
        Ok(d) => match d.runs.into_iter().next() {
            Some(run) => {
                let mut config = run.config;
                file_schedule = config.schedule.take();
                let label = if run.name == "default" {
                    "; run:".to_string()
                } else {
                    format!("; run {}:", run.name)
                };
                (
                    config,
                    Some(format!("the file's `{label}` line (line {})", run.line)),
                )
            }
            None => (RunConfig::default(), None),
        },
        Err(_) => (RunConfig::default(), None),
    };
    Ok(Loaded {
        name,
        src,
        spans,
        module,
        inputs_from,
        file_config,
        file_schedule,
    })
}

/// `file:line:col: message`, plus how many more errors there are.
fn one_line(diags: &[Diagnostic], name: &str, src: &str) -> String {
    let mut sorted: Vec<&Diagnostic> = diags.iter().collect();
    sorted.sort_by_key(|d| d.span.lo);
    match sorted.first() {
        None => format!("{name}: does not load"),
        Some(d) => {
            let more = match sorted.len() - 1 {
                0 => String::new(),
                n => format!(
                    " (and {n} more error{}: pllvm check shows them all)",
                    if n == 1 { "" } else { "s" }
                ),
            };
            format!("{}: {}{more}", d.location(name, src), d.message)
        }
    }
}

/// Appends one line.
fn push_line(out: &mut String, text: impl AsRef<str>) {
    out.push_str(text.as_ref());
    out.push('\n');
}

impl Session {
    /// A session on `file` (or the embedded default program) with the command
    /// line's options over the file's first `; run:` line (or over `--input`).
    ///
    /// A run input the program does not have, given as a flag, is a
    /// [`crate::errors::Usage`] error (exit code 2), as for `pllvm run`.
    pub(super) fn new(
        file: Option<&Path>,
        options: &StartOptions,
        style: Style,
    ) -> anyhow::Result<Session> {
        let loaded = load_program(file).map_err(anyhow::Error::msg)?;
        let flags = InputFlags {
            inputs: &options.inputs,
            machine: &options.machine,
            buffers: &[],
            function: &options.function,
            schedule: false,
            sched: options.sched.as_deref(),
        };
        let mut config = flags.config_over(RunConfig {
            schedule: loaded.file_schedule.clone(),
            ..loaded.file_config.clone()
        })?;
        let schedule = config.schedule.take();
        let (policy, facts) = {
            let m = Machine::new(&loaded.module, &config).map_err(|e| flags.setup_error(e))?;
            let policy = match (&options.sched, schedule) {
                (Some(p), _) => Policy::from_flag(p, &m.program)?,
                (None, Some(list)) => {
                    Policy::replay_names(&list, &m.program).map_err(anyhow::Error::msg)?
                }
                (None, None) => Policy::Lowest(pllvm_interp::sched::Lowest),
            };
            (policy, facts_of(&m, &config))
        };
        let (run, trace_warning) =
            initial_run(&loaded.module, &config, policy.clone()).map_err(anyhow::Error::msg)?;
        Ok(Session {
            loaded,
            config,
            policy_start: policy,
            facts,
            breaks: Vec::new(),
            run,
            trace_warning,
            style,
        })
    }

    /// The lines shown when the session starts.
    pub(super) fn banner(&self) -> String {
        let mut out = String::new();
        push_line(&mut out, self.summary());
        if let Some(from) = &self.loaded.inputs_from
            && self.config == self.loaded.file_config
        {
            let what = match &self.loaded.file_schedule {
                Some(list) if self.policy_start.name() == format!("replay:{}", list.join(",")) => {
                    "inputs and schedule"
                }
                _ => "inputs",
            };
            push_line(&mut out, format!("{what} from {from}"));
        }
        if let Ok(m) = self.machine() {
            let body = m.program.body;
            for v in show::named_values(body) {
                if matches!(body.values[v].def, pllvm_semantics::ir::ValueDef::Param(_)) {
                    push_line(
                        &mut out,
                        format!(
                            "  {}",
                            show::value_line(&m.program, &m.state, v, None, &self.style)
                        ),
                    );
                }
            }
            // Inputs the run lacks start as ⊤: say so now, not as "branches on ⊤"
            // many steps later.
            for w in &m.warnings {
                push_line(
                    &mut out,
                    self.style.paint(Role::Note, &format!("warning: {w}")),
                );
            }
        }
        self.push_trace_warning(&mut out);
        push_line(&mut out, "type help for the commands, quit to leave");
        out
    }

    /// `file: @f, W = 2, FR, policy lowest`.
    fn summary(&self) -> String {
        let func = self
            .machine()
            .map(|m| format!("@{}", m.program.module.functions[m.program.func].name))
            .unwrap_or_else(|_| "?".into());
        format!(
            "{}: {func}, W = {}, {}, policy {}{}{}",
            self.loaded.name,
            self.config.threads,
            self.config.interp.short(),
            self.run.policy.name(),
            if self.config.strict { ", strict" } else { "" },
            match self.config.exec {
                Exec::Reference => ", exec reference",
                Exec::Fast => "",
            }
        )
    }

    /// Block names, value names and global names, for completion.
    pub(super) fn names(&self) -> (Vec<String>, Vec<String>, Vec<String>) {
        let Ok(m) = self.machine() else {
            return (Vec::new(), Vec::new(), Vec::new());
        };
        let body = m.program.body;
        let blocks = body
            .layout
            .iter()
            .map(|&b| body.blocks[b].name.clone())
            .collect();
        let values = show::named_values(body)
            .into_iter()
            .filter_map(|v| body.value_name(v).map(str::to_string))
            .collect();
        let globals = self
            .loaded
            .module
            .globals
            .iter()
            .map(|(_, g)| g.name.clone())
            .collect();
        (blocks, values, globals)
    }

    /// A machine for the loaded module holding the current state.
    fn machine(&self) -> Result<Machine<'_>, String> {
        self.run
            .machine(&self.loaded.module, &self.config)
            .map_err(|e| e.to_string())
    }

    /// Runs one input line. `Err` is a one-line error message.
    pub(super) fn execute(&mut self, line: &str) -> Result<(String, Flow), String> {
        let cmd = command::parse(line)?;
        let mut out = String::new();
        match cmd {
            Command::Nothing => {}
            Command::Quit => return Ok((out, Flow::Quit)),
            Command::Step(n) => self.advance(Drive::Policy(Some(n)), true, &mut out)?,
            Command::Continue => self.advance(Drive::Policy(None), false, &mut out)?,
            Command::Sched { block, force } => self.sched(&block, force, &mut out)?,
            Command::Legal => self.legal(&mut out)?,
            Command::Break(t) => self.add_break(t, &mut out)?,
            Command::Delete(t) => self.delete_break(t, &mut out)?,
            Command::Back(n) => self.back(n, &mut out)?,
            Command::Print(v) => self.print(v.as_deref(), &mut out)?,
            Command::Masks => {
                let m = self.machine()?;
                push_line(&mut out, show::masks_table(&m, &self.style));
            }
            Command::State => {
                let m = self.machine()?;
                push_line(
                    &mut out,
                    format!(
                        "step {}: {}",
                        self.run.steps,
                        match &self.run.ended {
                            Some(o) => format!("ended: {o}"),
                            None => "running".into(),
                        }
                    ),
                );
                push_line(
                    &mut out,
                    show::state_table(&m.program, &m.state, &self.style),
                );
            }
            Command::Trace { values } => {
                if self.run.steps == 0 {
                    push_line(&mut out, "no block has been scheduled yet");
                } else {
                    push_line(&mut out, self.trace_text(values)?);
                }
            }
            Command::Mem(addr) => self.mem(addr.as_deref(), &mut out)?,
            Command::Analyze => self.analyze(&mut out)?,
            Command::Set(s) => self.set(s, &mut out)?,
            Command::Reset => {
                self.reset()?;
                push_line(
                    &mut out,
                    "the run starts over from the initial state (Def. 4)",
                );
                self.push_trace_warning(&mut out);
            }
            Command::Load(file) => self.load(&file, &mut out)?,
            Command::List => out.push_str(&text::print_module(&self.loaded.module)),
            Command::SaveTrace(file) => self.save_trace(&file, &mut out)?,
            Command::Help(topic) => push_line(&mut out, self.help(topic.as_deref())?),
        }
        Ok((out, Flow::Continue))
    }

    /// The warning of a trace window the host's memory made smaller, if any.
    fn push_trace_warning(&self, out: &mut String) {
        if let Some(w) = &self.trace_warning {
            push_line(out, self.style.paint(Role::Note, &format!("warning: {w}")));
        }
    }

    /// Back to the initial state (Def. 4), forgetting the snapshots.
    fn reset(&mut self) -> Result<(), String> {
        (self.run, self.trace_warning) =
            initial_run(&self.loaded.module, &self.config, self.policy_start.clone())?;
        Ok(())
    }

    /// The trace table (thesis Fig. 4.5b layout), with the values written if asked;
    /// after a long run, the rows kept (the latest) under a note.
    fn trace_text(&self, values: bool) -> Result<String, String> {
        let m = self.machine()?;
        let table = trace::table(
            &self.loaded.module.types,
            m.program.body,
            &self.run.trace,
            values,
        );
        Ok(match self.run.trace_first {
            0 => table,
            first => format!("{}\n{table}", self.dropped_note(first)),
        })
    }

    /// The note over a trace whose first `first` rows are no longer kept.
    fn dropped_note(&self, first: u64) -> String {
        self.style.paint(
            Role::Note,
            &format!(
                "(the first {first} row{} are not kept: the session keeps the last {} rows of the trace)",
                if first == 1 { "" } else { "s" },
                self.run.trace_window
            ),
        )
    }

    /// `step`, `run`, `continue` and `sched`: [`Stepper::advance`] with the
    /// breakpoints and Ctrl-C, then the rows (or a summary), notes and outcome.
    fn advance(&mut self, drive: Drive, rows: bool, out: &mut String) -> Result<(), String> {
        if let Some(o) = &self.run.ended {
            return Err(format!(
                "the run has ended ({}); back, reset or load to go on",
                short_outcome(o)
            ));
        }
        // Ctrl-C before this command does not stop it.
        let _ = crate::interrupt::take();
        let mut watch = Breaks {
            breaks: &self.breaks,
        };
        let report = self.run.advance(
            &self.loaded.module,
            &self.config,
            &self.facts,
            drive,
            &mut watch,
        )?;
        let m = self.machine()?;
        let start = report.start;
        // The rows of this command that the trace still keeps.
        let first_kept = start.max(self.run.trace_first);
        let kept = &self.run.trace[(first_kept - self.run.trace_first) as usize..];
        if rows {
            if first_kept > start {
                push_line(
                    out,
                    self.style
                        .paint(Role::Note, &trace::omitted_note(first_kept - start)),
                );
            }
            if !kept.is_empty() {
                push_line(
                    out,
                    trace::table(&self.loaded.module.types, m.program.body, kept, true),
                );
            }
        } else {
            let names: Vec<&str> = kept
                .iter()
                .map(|r| m.program.block_name(r.scheduled))
                .collect();
            push_line(out, scheduled_summary(self.run.steps - start, &names));
        }
        for (_, note) in &report.notes {
            push_line(out, self.style.paint(Role::Note, note));
        }
        if let Some((block, e)) = report.failure {
            return Err(format!("scheduling {}: {e}", m.program.block_name(block)));
        }
        if let Some(s) = &report.stop {
            push_line(out, self.style.paint(Role::Note, &format!("stopped: {s}")));
        }
        match &self.run.ended {
            Some(o) => {
                let role = if *o == Outcome::Returned {
                    Role::Good
                } else {
                    Role::Error
                };
                push_line(out, self.style.paint(role, &format!("outcome: {o}")));
                if let Some(b) = report.ended_at {
                    push_line(
                        out,
                        format!(
                            "  while scheduling {}; the state is the one before it",
                            m.program.block_name(b)
                        ),
                    );
                }
                // Undefined behaviour at its source position, as `pllvm run` renders it.
                if let Outcome::Undefined(ub) = o {
                    let d = ub
                        .diagnostic(self.loaded.spans.function(m.program.func))
                        .render(&self.loaded.name, &self.loaded.src);
                    push_line(out, self.style.paint(Role::Error, &d));
                }
                push_line(out, format!("result: {}", m.result_text()));
            }
            None => push_line(
                out,
                format!("next: {}", show::next_row(&m.program, &m.state)),
            ),
        }
        Ok(())
    }

    /// Whether a value breakpoint fires after the last scheduled block: the lanes
    /// that executed the definition of the value in this block disagree on it. The
    /// lanes are those of the divergence observer (`pllvm_interp::observe`): the
    /// control mask for a phi (§4.8), every lane for `total` and `mask()`
    /// ([W-CMD-TOTAL], [W-CMD-MASK]), the activation otherwise ([W-CMD-INST]).
    fn value_break_hit(breaks: &[Target], m: &Machine<'_>) -> Option<String> {
        let row = m.trace.last()?;
        let body = m.program.body;
        let block = &body.blocks[row.scheduled];
        for t in breaks {
            let Target::Value(name) = t else { continue };
            let Some(value) = body.value_by_name(name) else {
                continue;
            };
            let Some(inst) = body.def_inst(value) else {
                continue;
            };
            if !block.phis.contains(&inst) && !block.body.contains(&inst) {
                continue;
            }
            let data = &body.insts[inst];
            let all = vec![true; row.cmask.len()];
            let lanes: &[bool] = if data.kind.is_phi() {
                &row.cmask
            } else if data.total || matches!(data.kind, InstKind::Mask) {
                &all
            } else {
                &row.active
            };
            let column = m.state.env.get(value);
            let mut seen = lanes
                .iter()
                .zip(column.iter())
                .filter(|(a, _)| **a)
                .map(|(_, v)| v);
            if let Some(first) = seen.next()
                && seen.any(|v| v != first)
            {
                let ty = body.values[value].ty;
                let width = m.program.types().int_width(ty);
                return Some(format!(
                    "breakpoint %{name}: its lanes diverged in {}: %{name} = {}",
                    block.name,
                    show::lanes(&column, width, Some(lanes))
                ));
            }
        }
        None
    }

    /// `sched BLOCK`: one block by hand, refused when it is not legal next.
    fn sched(&mut self, name: &str, force: bool, out: &mut String) -> Result<(), String> {
        let block = {
            let m = self.machine()?;
            let block = m.program.body.block_by_name(name).ok_or_else(|| {
                format!(
                    "no block named {} in @{}",
                    command::truncate(name),
                    m.program.module.functions[m.program.func].name
                )
            })?;
            if !force
                && self.run.ended.is_none()
                && let Some(Legality {
                    verdict: v @ Verdict::Illegal { .. },
                    ..
                }) = legality(&m.program, &self.facts, &m.state)
                    .into_iter()
                    .find(|l| l.block == block)
            {
                return Err(format!(
                    "refused: {name} is not legal next: {v}; sched -f {name} forces it"
                ));
            }
            block
        };
        self.advance(Drive::Block(block), true, out)
    }

    /// `legal`: every block with its verdict.
    fn legal(&self, out: &mut String) -> Result<(), String> {
        let m = self.machine()?;
        if m.state.all_done() {
            push_line(out, "every lane has terminated: nothing is legal next");
            return Ok(());
        }
        let width = m
            .program
            .body
            .layout
            .iter()
            .map(|&b| m.program.block_name(b).chars().count())
            .max()
            .unwrap_or(0);
        for l in legality(&m.program, &self.facts, &m.state) {
            let name = m.program.block_name(l.block);
            let pad = " ".repeat(width - name.chars().count());
            let lanes: Vec<String> = m
                .state
                .incoming
                .iter()
                .zip(&m.state.next)
                .enumerate()
                .filter(|(_, (i, n))| {
                    pllvm_semantics::rules::masks::cmask(&m.program, **i, n, l.block)
                })
                .map(|(t, _)| t.to_string())
                .collect();
            match &l.verdict {
                Verdict::Legal => push_line(
                    out,
                    format!(
                        "{}{pad}  {} (control mask set in lane{} {})",
                        self.style.paint(Role::Block, name),
                        self.style.paint(Role::Good, "legal"),
                        if lanes.len() == 1 { "" } else { "s" },
                        lanes.join(" ")
                    ),
                ),
                v @ Verdict::Illegal { .. } => push_line(
                    out,
                    format!(
                        "{}{pad}  {}",
                        self.style.paint(Role::Block, name),
                        show::wrap(&format!("not legal: {v}"), 78 - width, width + 2)
                    ),
                ),
            }
        }
        Ok(())
    }

    fn check_target(&self, t: &Target) -> Result<(), String> {
        let m = self.machine()?;
        let body = m.program.body;
        match t {
            Target::Block(b) => body
                .block_by_name(b)
                .map(|_| ())
                .ok_or_else(|| format!("no block named {}", command::truncate(b))),
            Target::Value(v) => {
                let value = body
                    .value_by_name(v)
                    .ok_or_else(|| format!("no value named %{}", command::truncate(v)))?;
                match body.def_inst(value) {
                    Some(_) => Ok(()),
                    None => Err(format!(
                        "%{v} is a parameter: no block computes it, so it cannot diverge during the run"
                    )),
                }
            }
        }
    }

    /// `break [TARGET]`.
    fn add_break(&mut self, t: Option<Target>, out: &mut String) -> Result<(), String> {
        let Some(t) = t else {
            if self.breaks.is_empty() {
                push_line(out, "no breakpoints");
            }
            for t in &self.breaks {
                push_line(out, format!("breakpoint {}", describe_break(t)));
            }
            return Ok(());
        };
        self.check_target(&t)?;
        if self.breaks.contains(&t) {
            push_line(out, format!("breakpoint {t} is already set"));
        } else {
            push_line(out, format!("breakpoint {}", describe_break(&t)));
            self.breaks.push(t);
        }
        Ok(())
    }

    /// `delete [TARGET]`.
    fn delete_break(&mut self, t: Option<Target>, out: &mut String) -> Result<(), String> {
        match t {
            None => {
                let n = self.breaks.len();
                self.breaks.clear();
                push_line(
                    out,
                    format!("deleted {n} breakpoint{}", if n == 1 { "" } else { "s" }),
                );
            }
            Some(t) => {
                let before = self.breaks.len();
                self.breaks.retain(|b| *b != t);
                if self.breaks.len() == before {
                    return Err(format!("no breakpoint {t}"));
                }
                push_line(out, format!("deleted breakpoint {t}"));
            }
        }
        Ok(())
    }

    /// `back N`: restore the state before the N-th last scheduled block. An attempt
    /// that ended in undefined behaviour (or a limit) counts as one step.
    fn back(&mut self, n: u64, out: &mut String) -> Result<(), String> {
        let Back { undone, left } = self.run.back(n);
        if undone == 0 {
            return Err(if self.run.steps > 0 {
                format!(
                    "cannot go back from step {}: the session keeps the states of the last {BACK_DEPTH} scheduled blocks (fewer for large states); reset starts over",
                    self.run.steps
                )
            } else {
                "nothing to undo: no block has been scheduled".into()
            });
        }
        let m = self.machine()?;
        push_line(
            out,
            format!(
                "back {undone} step{}: {} block{} scheduled, next: {}",
                if undone == 1 { "" } else { "s" },
                self.run.steps,
                if self.run.steps == 1 { "" } else { "s" },
                show::next_row(&m.program, &m.state)
            ),
        );
        if left > 0 && self.run.steps > 0 {
            push_line(
                out,
                self.style.paint(
                    Role::Note,
                    &format!(
                        "(that is as far back as the session keeps: the last {BACK_DEPTH} scheduled blocks, fewer for large states; reset starts over)"
                    ),
                ),
            );
        } else if left > 0 {
            push_line(
                out,
                self.style.paint(
                    Role::Note,
                    "(that is the initial state: nothing more to undo)",
                ),
            );
        }
        Ok(())
    }

    /// `print [%v]`.
    fn print(&self, name: Option<&str>, out: &mut String) -> Result<(), String> {
        let m = self.machine()?;
        let body = m.program.body;
        let active = self.run.trace.last().map(|r| r.active.as_slice());
        let values = match name {
            Some(n) => vec![body.value_by_name(n).ok_or_else(|| {
                format!(
                    "no value named %{} in @{}",
                    command::truncate(n),
                    m.program.module.functions[m.program.func].name
                )
            })?],
            None => show::named_values(body),
        };
        for &v in &values {
            // Wide thread arrays wrap at 80 columns, lanes continuing indented.
            let line = show::value_line(&m.program, &m.state, v, active, &self.style);
            push_line(out, show::wrap(&line, 80, 4));
        }
        if let (Some(row), Some(a)) = (self.run.trace.last(), active)
            && a.iter().any(|x| !x)
            && !values.is_empty()
        {
            push_line(
                out,
                self.style.paint(
                    Role::Note,
                    &format!(
                        "(v): lane passive in the last scheduled block, {}",
                        m.program.block_name(row.scheduled)
                    ),
                ),
            );
        }
        Ok(())
    }

    /// `mem [ADDR]`.
    fn mem(&self, addr: Option<&str>, out: &mut String) -> Result<(), String> {
        let m = self.machine()?;
        let mem = &m.state.mem;
        let types = &self.loaded.module.types;
        let Some(addr) = addr else {
            push_line(out, show::objects_table(&m, &self.style));
            return Ok(());
        };
        if let Some(g) = addr.strip_prefix('@') {
            let (id, data) = self
                .loaded
                .module
                .globals
                .iter()
                .find(|(_, d)| d.name == g)
                .ok_or_else(|| format!("no global @{}", command::truncate(g)))?;
            let ptr = m
                .global_pointer(id)
                .and_then(|p| p.object)
                .ok_or_else(|| format!("@{g} has no object"))?;
            let elem = pllvm_interp::machine::element_type(types, data.ty);
            push_line(
                out,
                format!(
                    "@{g} ({}, object #{}) = {}",
                    types.display(data.ty),
                    ptr.0,
                    mem.dump_object(ptr, types, elem)
                ),
            );
            return Ok(());
        }
        if let Some(v) = addr.strip_prefix('%') {
            let value = m
                .program
                .body
                .value_by_name(v)
                .ok_or_else(|| format!("no value named %{}", command::truncate(v)))?;
            for (lane, val) in m.state.env.get(value).iter().enumerate() {
                let text = match val {
                    Val::Ptr(p) => bytes_at(mem, *p, 16).unwrap_or_else(|e| format!("  {e}")),
                    other => format!("  {other} is not a pointer"),
                };
                push_line(out, format!("lane {lane}: {val}"));
                push_line(out, text);
            }
            return Ok(());
        }
        let pointer = if let Some(n) = addr.strip_prefix('#') {
            let id = n
                .parse::<u32>()
                .map_err(|_| format!("mem: '{}' is not an object number", command::truncate(n)))?;
            Pointer {
                object: Some(pllvm_semantics::value::ObjectId(id)),
                offset: 0,
            }
        } else {
            let number = match addr.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => addr.parse::<u64>(),
            }
            .map_err(|_| {
                format!(
                    "mem: '{}' is not @global, #object, %pointer or an address",
                    command::truncate(addr)
                )
            })?;
            Pointer::from_address(number)
        };
        push_line(out, bytes_at(mem, pointer, u64::MAX)?);
        Ok(())
    }

    /// `analyze`: for every named value and every branch on a value, what the run
    /// has observed so far (`pllvm_interp::observe`: whether the lanes of one
    /// instance disagreed) next to the shape each static analysis gives it (thesis
    /// Ch. 6-7 and POPL'21, `pllvm_analysis::uniformity`). A parameter counts as
    /// uniform for the analyses when the run gives every lane the same value.
    fn analyze(&self, out: &mut String) -> Result<(), String> {
        let m = self.machine()?;
        let module = &self.loaded.module;
        let func = m.program.func;
        let body = m.program.body;
        let fdata = &module.functions[func];
        let initial = Machine::new(module, &self.config).map_err(|e| e.to_string())?;
        let uniform_params: Vec<String> = fdata
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                let lanes = initial.state.env.get(p.value);
                lanes.iter().all(|v| Some(v) == lanes.first())
            })
            .map(|(n, p)| {
                body.value_name(p.value)
                    .map_or(n.to_string(), str::to_string)
            })
            .collect();
        let init = InitShapes::with_uniform(fdata, &uniform_params).map_err(|e| e.to_string())?;
        let mut results: Vec<(AnalysisKind, Uniformity)> = Vec::new();
        let mut missing: Vec<String> = Vec::new();
        for kind in AnalysisKind::ALL {
            match analyze_uniformity(module, func, kind, &init) {
                Ok(u) => results.push((kind, u)),
                Err(e) => missing.push(format!("{}: {e}", kind.name())),
            }
        }
        push_line(
            out,
            format!(
                "observed in {} scheduled block{} next to the static shapes; uniform parameters: {}",
                self.run.steps,
                if self.run.steps == 1 { "" } else { "s" },
                if uniform_params.is_empty() {
                    "none".to_string()
                } else {
                    uniform_params
                        .iter()
                        .map(|p| format!("%{p}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            ),
        );
        let mut header = vec!["".to_string(), "observed".to_string()];
        header.extend(results.iter().map(|(k, _)| k.name().to_string()));
        let mut rows = vec![header];
        let mut unsound = false;
        let observed_text = |o: pllvm_interp::observe::Observed| match (o.instances, o.diverged) {
            (0, _) => "not run".to_string(),
            (n, true) => format!("diverged ({n})"),
            (n, false) => format!("uniform ({n})"),
        };
        let mut row = |label: String, o: pllvm_interp::observe::Observed, shapes: Vec<Shape>| {
            let mut r = vec![label, observed_text(o)];
            for shape in shapes {
                // A uniform shape promises the lanes never disagree (γ', Fig. 6.3).
                let wrong = o.diverged && shape == Shape::Uniform;
                unsound |= wrong;
                r.push(format!("{}{}", shape.word(), if wrong { " !" } else { "" }));
            }
            rows.push(r);
        };
        for &b in &body.layout {
            let block = &body.blocks[b];
            for &inst in block.phis.iter().chain(&block.body) {
                let Some(v) = body.insts[inst].result else {
                    continue;
                };
                let Some(name) = body.value_name(v) else {
                    continue;
                };
                let shapes = results.iter().map(|(_, u)| u.inst(body, inst)).collect();
                row(format!("%{name}"), m.divergence.insts[inst], shapes);
            }
            if block.term.is_branch_on_value() {
                let shapes = results.iter().map(|(_, u)| u.terminator(b)).collect();
                row(
                    format!("branch of {}", block.name),
                    m.divergence.branches[b],
                    shapes,
                );
            }
        }
        push_line(out, show::table(&rows, &self.style));
        for (kind, u) in &results {
            let names = |set: &std::collections::BTreeSet<Block>| {
                if set.is_empty() {
                    "-".to_string()
                } else {
                    set.iter()
                        .map(|&b| body.blocks[b].name.clone())
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            };
            push_line(
                out,
                show::wrap(
                    &format!(
                        "{}: sync joins {}; temporal joins {}; divergent loops {}",
                        kind.name(),
                        names(&u.sync_joins),
                        names(&u.temporal_joins),
                        names(&u.divergent_loops)
                    ),
                    80,
                    2,
                ),
            );
        }
        if unsound {
            push_line(
                out,
                self.style.paint(
                    Role::Error,
                    &show::wrap(
                        "!: the analysis calls it uniform, yet the lanes the observer counts \
                         (the control mask for a phi, §4.8; the activation otherwise) disagreed",
                        80,
                        3,
                    ),
                ),
            );
        }
        for e in missing {
            push_line(
                out,
                self.style
                    .paint(Role::Note, &format!("not analysed by {e}")),
            );
        }
        Ok(())
    }

    /// `set ...`.
    fn set(&mut self, s: Option<Setting>, out: &mut String) -> Result<(), String> {
        let Some(s) = s else {
            push_line(out, self.summary());
            for (name, value) in &self.config.args {
                push_line(out, format!("  lane-input {name} = {}", arg_text(value)));
            }
            for (name, values) in &self.config.memory {
                let cells: Vec<String> = values.iter().map(scalar_text).collect();
                push_line(
                    out,
                    format!(
                        "  mem @{} = [{}]",
                        name.trim_start_matches('@'),
                        cells.join(", ")
                    ),
                );
            }
            return Ok(());
        };
        let mut config = self.config.clone();
        let mut notes = Vec::new();
        match s {
            Setting::Sched(p) => {
                let m = self.machine()?;
                let policy = Policy::parse(&p, &m.program)?;
                drop(m);
                self.policy_start = policy.clone();
                self.run.policy = policy;
                push_line(out, format!("policy {}", self.run.policy.name()));
                return Ok(());
            }
            Setting::Threads(w) => {
                config.threads = w;
                // Per-lane inputs of another width cannot stay; say which go.
                let dropped: Vec<String> = config
                    .args
                    .iter()
                    .filter(|(_, v)| {
                        matches!(v, pllvm_interp::config::ArgValue::PerLane(l) if l.len() != w)
                    })
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in &dropped {
                    config.args.remove(k);
                    notes.push(format!(
                        "dropped the per-lane input %{k} (it has another width): set lane-input {k}=... to give it again"
                    ));
                }
            }
            Setting::Interp(i) => config.interp = parse_interp(&i)?,
            Setting::Exec(x) => config.exec = x,
            Setting::LaneInput(spec) => config.add_arg(&spec).map_err(|e| reword(&e))?,
            Setting::Mem(spec) => config.add_memory(&spec).map_err(|e| reword(&e))?,
            Setting::Strict(on) => config.strict = on,
        }
        let (run, trace_warning) =
            initial_run(&self.loaded.module, &config, self.policy_start.clone())
                .map_err(|e| reword(&e))?;
        let facts = Machine::new(&self.loaded.module, &config)
            .map(|m| facts_of(&m, &config))
            .map_err(|e| e.to_string())?;
        self.config = config;
        self.facts = facts;
        self.run = run;
        self.trace_warning = trace_warning;
        push_line(out, format!("{} (the run starts over)", self.summary()));
        self.push_trace_warning(out);
        for n in notes {
            push_line(out, self.style.paint(Role::Note, &n));
        }
        Ok(())
    }

    /// `load FILE`: the file's first `; run:` line gives the configuration; the
    /// policy stays, breakpoints go.
    fn load(&mut self, file: &str, out: &mut String) -> Result<(), String> {
        let loaded = load_program(Some(Path::new(file)))?;
        let config = loaded.file_config.clone();
        // The policy is kept by name; a replay names blocks of the old program.
        let mut note = None;
        let (policy, facts) = {
            let m = Machine::new(&loaded.module, &config).map_err(|e| e.to_string())?;
            let policy = match &loaded.file_schedule {
                Some(list) => Policy::replay_names(list, &m.program),
                None => Policy::parse(&self.policy_start.name(), &m.program),
            }
            .unwrap_or_else(|e| {
                note = Some(format!("note: policy lowest ({e})"));
                Policy::Lowest(pllvm_interp::sched::Lowest)
            });
            (policy, facts_of(&m, &config))
        };
        let (run, trace_warning) = initial_run(&loaded.module, &config, policy.clone())?;
        self.loaded = loaded;
        self.config = config;
        self.run = run;
        self.trace_warning = trace_warning;
        self.facts = facts;
        self.policy_start = policy;
        self.breaks.clear();
        out.push_str(&self.banner());
        if let Some(n) = note {
            push_line(out, self.style.paint(Role::Note, &n));
        }
        Ok(())
    }

    /// `save-trace FILE`.
    fn save_trace(&self, file: &str, out: &mut String) -> Result<(), String> {
        let m = self.machine()?;
        let text = if file.ends_with(".json") {
            serde_json::to_string_pretty(&trace::to_json(m.program.body, &self.run.trace))
                .map_err(|e| format!("cannot write json: {e}"))?
        } else {
            trace::table(
                &self.loaded.module.types,
                m.program.body,
                &self.run.trace,
                true,
            )
        };
        crate::output::write_bytes(std::path::Path::new(file), format!("{text}\n").as_bytes())
            .map_err(|e| format!("{e:#}"))?;
        push_line(
            out,
            format!(
                "wrote {} row{} to {file}",
                self.run.trace.len(),
                if self.run.trace.len() == 1 { "" } else { "s" }
            ),
        );
        if self.run.trace_first > 0 {
            push_line(out, self.dropped_note(self.run.trace_first));
        }
        Ok(())
    }

    /// `help [CMD]`.
    fn help(&self, topic: Option<&str>) -> Result<String, String> {
        match topic {
            None => {
                let mut out = String::from("commands (aliases in brackets):\n");
                for c in COMMANDS {
                    let head = if c.aliases.is_empty() {
                        c.name.to_string()
                    } else {
                        format!("{} [{}]", c.name, c.aliases.join(" "))
                    };
                    let head = format!("  {head:<20}");
                    let body = show::wrap(c.summary, 78 - 23, 23);
                    push_line(
                        &mut out,
                        format!("{} {body}", self.style.paint(Role::Heading, &head)),
                    );
                }
                out.push_str(
                    "help COMMAND tells more; Tab completes commands, blocks and values\n\
                     Ctrl-C stops step, run or continue; back undoes up to the last 1,000 blocks\n\
                     a script on stdin exits 1 when one of its commands failed, 0 otherwise",
                );
                Ok(out)
            }
            Some(t) => {
                let c = command::lookup(t.trim_start_matches("help ")).ok_or_else(|| {
                    format!(
                        "no command '{}' (type help for the list)",
                        command::truncate(t)
                    )
                })?;
                let mut out = format!("usage: {}\n", c.usage);
                if !c.aliases.is_empty() {
                    push_line(&mut out, format!("aliases: {}", c.aliases.join(", ")));
                }
                out.push_str(c.summary);
                if !c.details.is_empty() {
                    out.push('\n');
                    out.push_str(c.details);
                }
                Ok(out)
            }
        }
    }
}

/// The initial run of `module` under `config` (Def. 4), scheduled by `policy`,
/// with its trace window capped by the host memory this process may still use
/// (`crate::host::cap_repl_trace_window`, as `run --trace-limit` is capped),
/// and the warning that says so when it is.
fn initial_run(
    module: &Module,
    config: &RunConfig,
    policy: Policy,
) -> Result<(Stepper<Policy>, Option<String>), String> {
    let mut run = Stepper::new(module, config, policy).map_err(|e| e.to_string())?;
    let machine = run.machine(module, config).map_err(|e| e.to_string())?;
    // Each row records at most the values of the largest block (the REPL's
    // machine records the values written).
    let body = machine.program.body;
    let written = body
        .layout
        .iter()
        .map(|&b| body.blocks[b].phis.len() + body.blocks[b].body.len())
        .max()
        .unwrap_or(0);
    let width = config.threads;
    let (window, warning) = crate::host::cap_repl_trace_window(
        run.trace_window,
        trace::row_bytes(width, written),
        crate::host::available_memory(),
        width,
    );
    run.trace_window = window;
    Ok((run, warning))
}

/// The breakpoints and Ctrl-C, as [`Stepper::advance`] checks them.
struct Breaks<'a> {
    breaks: &'a [Target],
}

impl Watch for Breaks<'_> {
    fn interrupted(&mut self) -> bool {
        crate::interrupt::take()
    }

    /// A block breakpoint: stop before scheduling the block.
    fn stop_before(&mut self, program: &Program<'_>, block: Block) -> Option<String> {
        let name = program.block_name(block);
        self.breaks
            .contains(&Target::Block(name.to_string()))
            .then(|| format!("breakpoint {name}: stopped before scheduling {name}"))
    }

    /// A value breakpoint: stop when its lanes diverged in the last block.
    fn stop_after(&mut self, machine: &Machine<'_>) -> Option<String> {
        Session::value_break_hit(self.breaks, machine)
    }
}

/// The CFG facts of the greedy constraints (Ch. 5) for the machine's program,
/// with the §5.3 search stepping states under the run's interpretation.
fn facts_of(m: &Machine<'_>, config: &RunConfig) -> GreedyFacts {
    GreedyFacts::compute(&m.program)
        .with_interp(config.interp)
        .with_exec(config.exec)
}

/// `returned` / `undefined behaviour` / ...: a short name for an outcome.
fn short_outcome(o: &Outcome) -> &'static str {
    match o {
        Outcome::Returned => "every lane returned",
        Outcome::Incomplete => "incomplete",
        Outcome::Undefined(_) => "undefined behaviour",
        Outcome::Limit(_) => "a resource limit",
        Outcome::OutOfFuel => "out of fuel",
    }
}

/// What `run` / `continue` report about the blocks they scheduled.
/// `scheduled N blocks: A B C D ... W X Y Z`: `total` blocks, of which `names`
/// are the latest (all of them unless the trace dropped the first ones).
fn scheduled_summary(total: u64, names: &[&str]) -> String {
    const SHOWN: usize = 16;
    let n = names.len();
    match total {
        0 => "scheduled no block".into(),
        t if t == n as u64 && n <= SHOWN => format!(
            "scheduled {n} block{}: {}",
            if n == 1 { "" } else { "s" },
            names.join(" ")
        ),
        t if t == n as u64 => format!(
            "scheduled {n} blocks: {} ... {}",
            names[..4].join(" "),
            names[n - 8..].join(" ")
        ),
        t => format!(
            "scheduled {t} blocks: ... {}",
            names[n.saturating_sub(8)..].join(" ")
        ),
    }
}

fn describe_break(t: &Target) -> String {
    match t {
        Target::Block(b) => format!("{b}: stop before {b} is scheduled"),
        Target::Value(v) => format!("%{v}: stop when the lanes computing %{v} disagree"),
    }
}

/// The bytes from `p` to the end of its object (at most `limit`).
fn bytes_at(
    mem: &pllvm_semantics::memory::Memory,
    p: Pointer,
    limit: u64,
) -> Result<String, String> {
    let Some(id) = p.object else {
        return Err(format!("0x{:x} points to no object", p.offset));
    };
    let object = mem
        .object(id)
        .ok_or_else(|| format!("no object #{} (mem lists them)", id.0))?;
    if !object.live {
        return Err(format!("object #{} ({}) is dead", id.0, object.kind));
    }
    let size = object.size();
    if p.offset > size {
        return Err(format!(
            "offset {} is past the end of object #{} ({}, {size} bytes)",
            p.offset, id.0, object.kind
        ));
    }
    let len = (size - p.offset).min(limit);
    let bytes = mem.read_bytes(p, len).map_err(|e| e.to_string())?;
    Ok(format!(
        "object #{} ({}), {size} bytes, from offset {}:\n{}",
        id.0,
        object.kind,
        p.offset,
        show::hex_dump(&bytes, p.offset)
    ))
}

/// Run-input messages name the `pllvm run` flags; the REPL's settings are spelled
/// `lane-input` and `mem`.
fn reword(message: &str) -> String {
    message
        .replace("--arg", "lane-input")
        .replace("--mem", "mem")
}

fn scalar_text(s: &pllvm_interp::config::Scalar) -> String {
    use pllvm_interp::config::Scalar;
    match s {
        Scalar::Bool(b) => b.to_string(),
        Scalar::Int(i) => i.to_string(),
        Scalar::UInt(u) => u.to_string(),
        Scalar::Float(f) => f.to_string(),
        Scalar::Text(t) => t.clone(),
    }
}

fn arg_text(v: &pllvm_interp::config::ArgValue) -> String {
    use pllvm_interp::config::ArgValue;
    match v {
        ArgValue::Uniform(s) => scalar_text(s),
        ArgValue::PerLane(l) => format!(
            "[{}]",
            l.iter().map(scalar_text).collect::<Vec<_>>().join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(file: Option<&str>) -> Session {
        session_with(file, &StartOptions::default())
    }

    fn session_with(file: Option<&str>, options: &StartOptions) -> Session {
        let path = file.map(|f| Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(f));
        match Session::new(path.as_deref(), options, Style { color: false }) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    fn run(s: &mut Session, line: &str) -> String {
        match s.execute(line) {
            Ok((text, _)) => text,
            Err(e) => panic!("{line}: {e}"),
        }
    }

    /// `back N` after K + N blocks gives the very state (𝕄, Δ^W, ℓ_in^W, ℓ_next^W),
    /// trace and divergence record of a session that scheduled K blocks.
    fn check_back(file: Option<&str>, total: u64, undo: u64) {
        check_back_with(file, &StartOptions::default(), total, undo);
    }

    fn check_back_with(file: Option<&str>, options: &StartOptions, total: u64, undo: u64) {
        let mut long = session_with(file, options);
        run(&mut long, &format!("step {total}"));
        let printed_before = run(&mut long, "print");
        run(&mut long, &format!("back {undo}"));
        let mut short = session_with(file, options);
        if total > undo {
            run(&mut short, &format!("step {}", total - undo));
        }
        assert_eq!(long.run.state, short.run.state, "{file:?}");
        assert_eq!(long.run.trace, short.run.trace, "{file:?}");
        assert_eq!(long.run.divergence, short.run.divergence, "{file:?}");
        assert_eq!(long.run.ended, short.run.ended, "{file:?}");
        assert_eq!(long.run.snapshots(), short.run.snapshots());
        // And stepping forward again repeats the same states.
        run(&mut long, &format!("step {undo}"));
        assert_eq!(run(&mut long, "print"), printed_before, "{file:?}");
    }

    #[test]
    fn back_restores_exact_states() {
        check_back(None, 5, 2);
        check_back(None, 5, 5);
        check_back(Some("corpus/semantics/fig4.5-control-mechanics.ll"), 4, 1);
        check_back(Some("corpus/semantics/alloca-per-lane.ll"), 3, 2);
        check_back(Some("corpus/semantics/gather-scatter.ll"), 1, 1);
    }

    /// With a random policy, `back` also restores the generator: the blocks picked
    /// after it are those picked before, for every seed.
    #[test]
    fn back_restores_the_random_policy() {
        for seed in 0..20 {
            let options = StartOptions {
                sched: Some(format!("random:{seed}")),
                inputs: RunInputs {
                    threads: Some(4),
                    args: vec!["x=0,1,0,1".into()],
                    ..RunInputs::default()
                },
                ..StartOptions::default()
            };
            let file = Some("corpus/semantics/fig4.5-control-mechanics.ll");
            check_back_with(file, &options, 4, 3);
            let mut s = session_with(file, &options);
            run(&mut s, "run");
            let first: Vec<Block> = s.run.trace.iter().map(|r| r.scheduled).collect();
            run(&mut s, "back 4");
            run(&mut s, "run");
            let again: Vec<Block> = s.run.trace.iter().map(|r| r.scheduled).collect();
            assert_eq!(first, again, "seed {seed}");
        }
    }

    #[test]
    fn back_after_undefined_behaviour_clears_the_outcome_only() {
        let mut s = session(Some("corpus/semantics/ub-branch-on-undef.ll"));
        run(&mut s, "run");
        assert!(matches!(s.run.ended, Some(Outcome::Undefined(_))));
        let before = s.run.state.clone();
        run(&mut s, "back");
        assert_eq!(s.run.ended, None);
        assert_eq!(s.run.state, before);
        assert_eq!(s.run.trace.len(), 1);
    }

    #[test]
    fn save_trace_writes_the_table_and_json() {
        let mut s = session(Some("corpus/semantics/fig4.5-control-mechanics.ll"));
        run(&mut s, "step 2");
        let dir = std::env::temp_dir().join(format!("pllvm-save-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let text = dir.join("t.txt");
        let json = dir.join("t.json");
        run(&mut s, &format!("save-trace {}", text.display()));
        run(&mut s, &format!("save-trace {}", json.display()));
        let table = std::fs::read_to_string(&text).expect("table");
        assert_eq!(table, run(&mut s, "trace -v"));
        let rows: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("parses");
        let scheduled: Vec<&str> = rows
            .as_array()
            .expect("array")
            .iter()
            .filter_map(|r| r["sc"].as_str())
            .collect();
        assert_eq!(scheduled, ["A", "B"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn wide_values_wrap_at_80_columns() {
        let options = StartOptions {
            inputs: RunInputs {
                threads: Some(32),
                args: vec!["x=7".into()],
                ..RunInputs::default()
            },
            ..StartOptions::default()
        };
        let mut s = session_with(
            Some("corpus/semantics/fig4.5-control-mechanics.ll"),
            &options,
        );
        let text = run(&mut s, "print %x");
        assert!(text.lines().count() > 1, "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        let joined: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(joined, format!("%x : i32 = [{}]", vec!["7"; 32].join(", ")));
    }

    #[test]
    fn failed_settings_keep_the_session() {
        let mut s = session(None);
        run(&mut s, "step 2");
        for bad in [
            "set threads 0",
            "set interp x",
            "set lane-input q=1",
            "load /nope",
        ] {
            assert!(s.execute(bad).is_err(), "{bad}");
            assert_eq!(s.run.trace.len(), 2, "{bad} must not reset the run");
        }
    }
}
