//! `pllvm transform FILE --pass dlt,pl`: the vectorizing transforms of
//! `pllvm-codegen` (thesis Ch. 8-9, the reconverging-CFG poster) on a program.
//! Prints the program after the last pass (or every stage, or the CFG shapes);
//! an input a pass refuses is reported at its `file:line:col` like a verifier
//! error, and an output that does not verify is reported as the bug it is.

use crate::errors::{EXIT_TRUNCATED, Rendered, Usage};
use crate::flags::{self, InputFlags, RunInputs, TimeLimit};
use crate::source::load;
use crate::watchdog::{self, Ending, Watch};
use anyhow::{Result, anyhow};
use clap::Args;
use pllvm_analysis::render::{self, ClusterMarks};
use pllvm_analysis::result::AnalysisKind;
use pllvm_codegen::dlt::LiveOuts;
use pllvm_codegen::pipeline::{Options, Stage, parse_passes};
use pllvm_codegen::shape::cfg_lines;
use pllvm_codegen::{Site, TransformError};
use pllvm_semantics::diag::{Diagnostic, SourceMap, render_all};
use pllvm_semantics::ir::{FuncId, Module};
use pllvm_semantics::text::print_module;
use pllvm_semantics::verify::verify_module;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// `pllvm transform`'s flags; the run inputs are those of `--check`.
#[derive(Args, Debug)]
#[command(mut_arg("threads", |a| a.help("`--check`: W, the number of lanes")))]
#[command(mut_arg("args", |a| a.help("`--check`: an argument, NAME=V or NAME=V0,V1,...")))]
#[command(mut_arg("mem", |a| a.help("`--check`: initial contents of a global, @G=V0,V1,...")))]
#[command(mut_arg("input", |a| a.help("`--check`: run inputs as JSON; flags override it")))]
#[command(mut_arg("time", |a| a.help(
    "Stop after this many seconds (fractions allowed): the transforms (and `dot` for --svg) are stopped, nothing is printed or written but a line on stderr naming the stage, and the exit code is 3. With --check: a stage not decided by then is reported as not decided and the exit code is 3 (1 if a stage decided before differs)"
)))]
pub(crate) struct TransformArgs {
    /// A .ll file (`-` reads standard input).
    file: PathBuf,
    /// The passes, in order: nonneg-div, dlt, boscc, pl (e.g. dlt,boscc,pl), or
    /// reconverge, or ifconv alone (each after nonneg-div at most).
    #[arg(long, value_name = "PASSES")]
    pass: String,
    /// The analysis deciding what is uniform: best (the meet of thesis, popl and
    /// sa; llvm on irreducible CFGs), thesis, popl, llvm or sa.
    #[arg(long, value_name = "best|thesis|popl|llvm|sa", default_value = "best")]
    analysis: String,
    /// Parameters that are uniform (by name or number, comma-separated); the
    /// others are varying.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    uniform_args: Vec<String>,
    /// Where BOSCC gadgets go (thesis §9.2): heuristic, all, none or a
    /// comma-separated list of blocks to guard.
    #[arg(long, value_name = "POLICY", default_value = "heuristic")]
    boscc: String,
    /// How dlt keeps the values lanes leave a loop with (thesis §9.1): `held` by
    /// the header phi where one can (fewer loop-carried values), or `tracked`,
    /// every one by a tracker pair (header phis stay uniform).
    #[arg(long, value_name = "held|tracked", default_value = "held", value_parser = live_outs_flag)]
    live_outs: LiveOuts,
    /// The function to transform (default: the first definition).
    #[arg(long, value_name = "NAME")]
    function: Option<String>,
    /// Write the program to this file instead of standard output.
    #[arg(long, short = 'o', value_name = "OUT.ll")]
    output: Option<PathBuf>,
    /// Print the CFG of each stage (`A -> B, C`, `A [p] -> ...` for a predicated
    /// block) instead of the program.
    #[arg(long)]
    cfg: bool,
    /// Print the program after every pass, each after a `; stage N: PASS` line.
    #[arg(long)]
    stages: bool,
    /// Print a before/after SVG picture instead of the program: the CFG as
    /// written and after the last pass side by side (laid out by Graphviz's
    /// `dot`), coloured by the analysis, blocks added or removed marked.
    #[arg(long, conflicts_with_all = ["cfg", "stages", "check"])]
    svg: bool,
    /// Print what each pass decided (loops transformed, branches kept, gadgets) on
    /// standard error.
    #[arg(long)]
    notes: bool,
    /// Check every stage against the original instead of printing the program:
    /// each must verify and, run under OBLIVIOUS, refine the original under
    /// FREEZING lane by lane (results and globals), on every greedy schedule when
    /// the exploration finishes, else on scheduler runs (lowest, highest, random).
    /// Takes the run inputs below; exit 1 names the first difference.
    #[arg(long)]
    check: bool,
    #[command(flatten)]
    inputs: RunInputs,
    /// `--check`: most distinct states an exploration may visit before the check
    /// falls back to scheduler runs.
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    max_states: usize,
    #[command(flatten)]
    time: TimeLimit,
}

fn live_outs_flag(text: &str) -> Result<LiveOuts, String> {
    LiveOuts::parse(text).ok_or_else(|| format!("`{text}` is not held or tracked"))
}

/// Runs `pllvm transform`.
pub(crate) fn main(a: TransformArgs) -> Result<ExitCode> {
    let passes = parse_passes(&a.pass).map_err(|e| Usage(format!("--pass: {e}")))?;
    let analysis = AnalysisKind::parse(&a.analysis).ok_or_else(|| {
        Usage(format!(
            "--analysis: '{}' is not best, thesis, popl, llvm or sa",
            a.analysis
        ))
    })?;
    let boscc = pllvm_codegen::boscc::Policy::parse(&a.boscc)
        .map_err(|e| Usage(format!("--boscc: {e}")))?;
    let options = Options {
        analysis,
        uniform_args: a.uniform_args.clone(),
        boscc,
        live_outs: a.live_outs,
        ..Options::default()
    };
    if a.check {
        // `--check` has a deadline of its own, and its partial report.
        let (module, spans, name, src) = load(&Some(a.file.clone()))?;
        let func = function(&module, &a.function, &name)?;
        let stages = transformed(&module, func, &passes, &options, &spans, &name, &src)?;
        return check(&module, &stages, &a);
    }
    // `--time`: the work is watched (cli/src/watchdog.rs): cut off, it prints
    // and writes nothing.
    let reading = format!("parsing and verifying {}", a.file.display());
    let ending = watchdog::within(a.time.time, "transform", &reading, move |watch| {
        let (module, spans, name, src) = load(&Some(a.file.clone()))?;
        let func = function(&module, &a.function, &name)?;
        watch.stage(format!(
            "transforming @{} ({})",
            module.functions[func].name, a.pass
        ));
        let stages = transformed(&module, func, &passes, &options, &spans, &name, &src)?;
        let notes: Vec<String> = stages
            .iter()
            .flat_map(|stage| {
                stage
                    .notes
                    .iter()
                    .map(|note| format!("{}: {note}", stage.pass.name()))
            })
            .collect();
        let text = if a.svg {
            watch.stage("colouring the picture");
            before_after_svg(&module, &stages, func, &a, &options, watch)?
        } else {
            watch.stage("printing the program");
            render_stages(&stages, func, &a)
        };
        Ok((notes, text, a.notes, a.output))
    })?;
    let (notes, text, show_notes, output) = match ending {
        Ending::Done(done) => done,
        Ending::Cut(cut) => {
            eprintln!("{}", cut.message("transform"));
            return Ok(cut.exit_code());
        }
    };
    if show_notes {
        let mut err = std::io::stderr().lock();
        for note in &notes {
            writeln!(err, "{note}")?;
        }
    }
    match &output {
        Some(path) => crate::output::write_bytes(path, text.as_bytes())?,
        None => write!(crate::output::stdout(), "{text}")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The function `--function` names (default: the first definition of the file
/// `name`).
pub(crate) fn function(module: &Module, function: &Option<String>, name: &str) -> Result<FuncId> {
    Ok(match function {
        Some(f) => {
            let f = f.trim_start_matches('@');
            module
                .function_by_name(f)
                .filter(|&id| module.functions[id].body.is_some())
                .ok_or_else(|| Usage(format!("--function: the program defines no @{f}")))?
        }
        None => module
            .first_definition()
            .ok_or_else(|| anyhow!("{name}: the file defines no function"))?,
    })
}

/// The stages of the passes on `func`, each verified: a refusal is rendered at
/// its `file:line:col`, a stage that does not verify is the bug it is.
fn transformed(
    module: &Module,
    func: FuncId,
    passes: &[pllvm_codegen::pipeline::Pass],
    options: &Options,
    spans: &SourceMap,
    name: &str,
    src: &str,
) -> Result<Vec<Stage>> {
    let stages = pllvm_codegen::run_passes(module, func, passes, options)
        .map_err(|e| Rendered(render_error(&e, spans, name, src)))?;
    for stage in &stages {
        let report = verify_module(&stage.module, &SourceMap::default());
        if !report.is_ok() {
            let text = print_module(&stage.module);
            return Err(Rendered(format!(
                "{}\nerror: internal error: the program after `{}` does not verify (a bug in pllvm's transform; please report it with the input)\n{text}",
                render_all(&report.errors, &format!("<after {}>", stage.pass.name()), &text),
                stage.pass.name()
            ))
            .into());
        }
    }
    Ok(stages)
}

/// `--check`: every stage against the original (`pllvm_interp::equiv`).
fn check(
    module: &pllvm_semantics::ir::Module,
    stages: &[Stage],
    a: &TransformArgs,
) -> Result<ExitCode> {
    let flags = InputFlags {
        inputs: &a.inputs,
        machine: &flags::NO_MACHINE_FLAGS,
        buffers: &[],
        function: &a.function,
        schedule: false,
        sched: None,
    };
    let mut config = pllvm_interp::equiv::EquivConfig::default();
    let run = flags.config()?;
    for w in flags::input_warnings(module, &run) {
        eprintln!("warning: {w}");
    }
    config.run = pllvm_interp::RunConfig {
        observe: false,
        ..run
    };
    config.bounds.max_states = a.max_states;
    // `--time`: the clock starts with the check; a limit the clock cannot reach
    // is no limit.
    config.deadline = a
        .time
        .time
        .and_then(|t| std::time::Instant::now().checked_add(t));
    let spinner = crate::progress::spinner("transform --check");
    // The untransformed program under OBLIVIOUS first, for comparison: where a
    // divergent loop lets a lane's values be overwritten (thesis Fig. 3.21b) it
    // differs, and that is what the transforms repair; it does not decide the
    // exit code.
    let checks = pllvm_interp::equiv::check_stages(
        module,
        std::iter::once(("naive", module)).chain(stages.iter().map(|s| (s.pass.name(), &s.module))),
        &config,
    );
    crate::progress::finish(spinner);
    let mut out = std::io::stdout().lock();
    let mut ok = true;
    let mut cut_off = 0;
    for (n, c) in checks.iter().enumerate() {
        // A stage `--time` cut off is neither ok nor different (docs/cli.md
        // "Time and progress").
        if let Err(d) = &c.result
            && d.kind.is_cut_off()
        {
            cut_off += 1;
            let stage = if n == 0 {
                "naive (the program as written, under OBL)"
            } else {
                &c.stage
            };
            writeln!(out, "{stage}: {d}")?;
            continue;
        }
        if n == 0 {
            match &c.result {
                Ok(report) => writeln!(
                    out,
                    "naive (the program as written, under OBL): agrees: {}",
                    report.summary()
                )?,
                Err(d) => writeln!(
                    out,
                    "naive (the program as written, under OBL): differs, as expected without the transforms: {d}"
                )?,
            }
            continue;
        }
        match &c.result {
            Ok(report) => writeln!(out, "{}: ok: {}", c.stage, report.summary())?,
            Err(d) => {
                ok = false;
                writeln!(out, "{}: DIFFERS: {d}", c.stage)?;
            }
        }
    }
    drop(out);
    if cut_off > 0 {
        eprintln!(
            "the check is partial: the time limit came before {cut_off} of {} checks were decided",
            checks.len()
        );
    }
    // A difference found is an answer whatever else was cut off (exit 1); a
    // check cut off is partial (exit 3, as for `explore`).
    Ok(if !ok {
        ExitCode::from(1)
    } else if cut_off > 0 {
        ExitCode::from(EXIT_TRUNCATED)
    } else {
        ExitCode::SUCCESS
    })
}

/// The text `transform` prints: the last program, every stage, or the CFGs.
fn render_stages(stages: &[Stage], func: FuncId, a: &TransformArgs) -> String {
    let shown: Vec<&Stage> = if a.stages || a.cfg {
        stages.iter().collect()
    } else {
        stages.last().into_iter().collect()
    };
    let mut out = String::new();
    for (n, stage) in shown.iter().enumerate() {
        if a.stages || a.cfg {
            out.push_str(&format!("; stage {}: {}\n", n + 1, stage.pass.name()));
        }
        if a.cfg {
            if let Some(body) = &stage.module.functions[func].body {
                for line in cfg_lines(body) {
                    out.push_str(&format!("  {line}\n"));
                }
            }
        } else {
            out.push_str(&print_module(&stage.module));
        }
    }
    out
}

/// `--svg`: the CFG of `func` as written ("before") and after the last stage
/// ("after", titled with the pass route) as two clusters of one digraph, laid
/// out by Graphviz. Each side is coloured by the chosen analysis when it runs on
/// that side (divergent branches, joins, divergent loops: thesis Fig. 7.2); a
/// block only the transformed CFG has is marked "added", one only the original
/// has "removed". Node ids are `before/NAME` and `after/NAME`.
fn before_after_svg(
    module: &Module,
    stages: &[Stage],
    func: FuncId,
    a: &TransformArgs,
    options: &Options,
    watch: &Watch,
) -> Result<String> {
    let after = stages.last().map_or(module, |s| &s.module);
    let names = |m: &Module| -> Vec<String> {
        m.functions[func].body.as_ref().map_or(Vec::new(), |b| {
            b.layout.iter().map(|&k| b.blocks[k].name.clone()).collect()
        })
    };
    let (old, new) = (names(module), names(after));
    let mut size = crate::graphviz::Size::default();
    for m in [module, after] {
        if let Some(body) = m.functions[func].body.as_ref() {
            size.add(body);
        }
    }
    if let Some(why) = size.refusal() {
        return Err(anyhow!(
            "before and after: {why}; use --cfg, or `pllvm analyze FILE --dot` on the output"
        ));
    }
    let analysis = |m: &Module| {
        pllvm_codegen::uniform::analyze(m, func, options.analysis, &options.uniform_args, "svg")
            .ok()
    };
    // The blocks of one side whose names the other side lacks, marked.
    let marks = |prefix, ours: &[String], theirs: &[String], what, colour| ClusterMarks {
        prefix,
        notes: ours
            .iter()
            .filter(|n| !theirs.contains(n))
            .map(|n| (n.clone(), what, colour))
            .collect(),
    };
    let before_marks = marks("before/", &old, &new, "removed", REMOVED_COLOUR);
    let after_marks = marks("after/", &new, &old, "added", ADDED_COLOUR);
    let route: Vec<&str> = stages.iter().map(|s| s.pass.name()).collect();
    let fname = &module.functions[func].name;
    let source = format!(
        "digraph \"pllvm transform\" {{\n  label={}; labelloc=t; fontname=\"monospace\";\n  node [shape=box, fontname=\"monospace\"];\n  edge [fontname=\"monospace\"];\n{}{}{}}}\n",
        render::dot_id(&format!(
            "@{fname}: --pass {} (analysis {})",
            route.join(","),
            a.analysis
        )),
        render::dot_cluster(
            module,
            func,
            analysis(module).as_ref(),
            "before",
            "before",
            &before_marks
        ),
        render::dot_cluster(
            after,
            func,
            analysis(after).as_ref(),
            "after",
            &format!("after {}", route.join(" -> ")),
            &after_marks
        ),
        render::dot_legend(&[
            (
                "(added): only after the transform",
                &format!("fontcolor={ADDED_COLOUR}")
            ),
            (
                "(removed): only before it",
                &format!("fontcolor={REMOVED_COLOUR}")
            ),
        ]),
    );
    watch.tool("drawing the picture with Graphviz's dot");
    let mut svg =
        crate::graphviz::svg_until(&source, &a.file.display().to_string(), watch.deadline())
            .map_err(|e| anyhow!(e))?;
    svg.push('\n');
    Ok(svg)
}

/// The font colour of a block the transform added (`--svg`).
const ADDED_COLOUR: &str = "darkgreen";
/// The font colour of a block the transform removed (`--svg`).
const REMOVED_COLOUR: &str = "gray40";

/// A transform's refusal at the input's `file:line:col`.
pub(crate) fn render_error(e: &TransformError, spans: &SourceMap, name: &str, src: &str) -> String {
    let span = |func: FuncId| spans.function(func);
    let at = match e.site {
        Site::Function(f) => span(f).header,
        Site::Block(f, b) => *span(f).blocks.get(b),
        Site::Terminator(f, b) => *span(f).terms.get(b),
        Site::Inst(f, i) => *span(f).insts.get(i),
    };
    Diagnostic::error(at, format!("{}: {}", e.pass, e.message)).render(name, src)
}
