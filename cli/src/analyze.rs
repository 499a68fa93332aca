//! `pllvm analyze`: the divergence analyses of thesis Ch. 6-7 (`thesis`), POPL'21
//! (`popl`), LLVM's "Convergence and Uniformity" (`llvm`) and the stride-alignment
//! lattice of thesis Ch. 10 (`sa`), or the meet of the sound ones (`best`) on one
//! function,
//! printed as annotated text, JSON, or a Graphviz picture of the CFG; with the
//! reconverging-CFG check (poster, Definition 1) under each analysis.

use crate::compare_llvm;
use crate::errors::{EXIT_TRUNCATED, Usage};
use crate::flags::TimeLimit;
use crate::graphviz;
use crate::output::stdout;
use crate::source::load;
use crate::watchdog::{self, Ending, Watch};
use anyhow::{Result, anyhow};
use clap::Args;
use pllvm_analysis::PostDomTree;
use pllvm_analysis::cycles::DfsOrder;
use pllvm_analysis::llvm;
use pllvm_analysis::reconverging::check_reconverging;
use pllvm_analysis::render;
use pllvm_analysis::result::{AnalysisError, AnalysisKind, InitShapes, Uniformity};
use pllvm_analysis::stride::ThreadIds;
use pllvm_analysis::target::NO_UNIFORM_ARGS;
use pllvm_analysis::uniformity::{analyze_best, analyze_for_width, analyze_sa};
use pllvm_semantics::ir::{FuncId, Module};
use std::io::{IsTerminal as _, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// `pllvm analyze`'s flags.
#[derive(Args, Debug)]
#[command(mut_arg("time", |a| a.help(
    "Stop after this many seconds (fractions allowed): the analyses (and `dot` for --svg) are stopped, nothing is printed but a line on stderr naming the stage (with --json one document whose `time_limit` says so), and the exit code is 3. With --compare-llvm: stop the interpreter's runs of the `; run:` lines (opt is not interrupted); runs cut off are left out of `observed`, said on stdout, and the exit code is 3"
)))]
pub(crate) struct AnalyzeArgs {
    /// A .ll file.
    file: PathBuf,
    /// Which analysis: thesis, popl, llvm, sa, best (the meet of thesis, popl and
    /// sa; llvm on an irreducible CFG) or all (the first four; comma-separated
    /// names allowed).
    #[arg(
        long,
        value_name = "thesis|popl|llvm|sa|best|all",
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
    /// `none`: no parameter is uniform. Default: the target's rules
    /// (docs/analyses.md).
    #[arg(long, value_name = "A,B|none", value_delimiter = ',')]
    uniform_args: Vec<String>,
    /// The function to analyse (default: the first definition).
    #[arg(long, value_name = "NAME")]
    function: Option<String>,
    /// Print a JSON report.
    #[arg(long, conflicts_with_all = ["dot", "svg"])]
    json: bool,
    /// Compare the `llvm` analysis with opt-22's (and opt-19's) `print<uniformity>`
    /// and with what the file's `; run:` lines observed; each difference is
    /// classed, with a count per class (`--json`: one document,
    /// `pllvm-compare-llvm/1`).
    #[arg(long, conflicts_with_all = ["dot", "svg"])]
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
    #[command(flatten)]
    time: TimeLimit,
}

fn cycle_order_flag(text: &str) -> Result<DfsOrder, String> {
    DfsOrder::parse(text).ok_or_else(|| format!("`{text}` is not a cycle order: llvm or index"))
}

/// `--analysis NAMES`, checked when the command line is parsed.
fn analysis_flag(text: &str) -> Result<String, String> {
    parse_analysis(text).map(|_| text.to_string())
}

/// Runs `pllvm analyze`.
pub(crate) fn main(a: AnalyzeArgs) -> Result<ExitCode> {
    let kinds = parse_analysis(&a.analysis).map_err(|e| anyhow!(e))?;
    if a.compare_llvm {
        let (module, _, _, src) = load(&Some(a.file.clone()))?;
        // `--time`: the clock starts with the comparison; a limit the clock
        // cannot reach is no limit.
        let deadline = a
            .time
            .time
            .and_then(|t| std::time::Instant::now().checked_add(t));
        let spinner = crate::progress::spinner("analyze --compare-llvm");
        let complete = compare_llvm::run(
            &module,
            &src,
            a.function.as_deref(),
            &a.uniform_args,
            deadline,
            a.json,
            &mut stdout(),
        );
        crate::progress::finish(spinner);
        // Runs the time limit cut off make the report partial (exit 3, as an
        // exploration cut off; docs/cli.md "Time and progress").
        return Ok(if complete? {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(EXIT_TRUNCATED)
        });
    }
    let format = if a.summary {
        Format::Summary
    } else if a.json {
        Format::Json
    } else if a.dot {
        Format::Dot
    } else if a.svg {
        Format::Svg
    } else {
        Format::Text
    };
    let limit = a.time.time;
    // The report goes straight to stdout only when nothing can cut it off and
    // no progress line shares the terminal; else it is printed once complete
    // (docs/cli.md "Time and progress").
    let direct = limit.is_none() && !std::io::stderr().is_terminal();
    let file = a.file.clone();
    let reading = format!("parsing and verifying {}", file.display());
    let ending = watchdog::within(limit, "analyze", &reading, move |watch| {
        let (module, _, _, _) = load(&Some(file.clone()))?;
        let mut report = Vec::new();
        let out: &mut dyn Write = if direct { &mut stdout() } else { &mut report };
        run(
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
            &file.display().to_string(),
            watch,
            out,
        )?;
        // The process ends soon: leave the module to the OS instead of
        // freeing it piece by piece (as clang's default -disable-free does).
        std::mem::forget(module);
        Ok(report)
    })?;
    match ending {
        Ending::Done(report) => {
            stdout().write_all(&report)?;
            Ok(ExitCode::SUCCESS)
        }
        Ending::Cut(cut) => {
            if format == Format::Json {
                // One document still: no function reported, and why.
                let doc = serde_json::json!({
                    "schema": render::REPORT_SCHEMA,
                    "functions": [],
                    "time_limit": cut.json(),
                });
                writeln!(stdout(), "{}", serde_json::to_string_pretty(&doc)?)?;
            }
            eprintln!("{}", cut.message("analyze"));
            Ok(cut.exit_code())
        }
    }
}

/// Which analyses `--analysis` selects.
pub(crate) fn parse_analysis(text: &str) -> Result<Vec<AnalysisKind>, String> {
    if text == "all" {
        return Ok(AnalysisKind::ALL.to_vec());
    }
    text.split(',')
        .map(|name| {
            AnalysisKind::parse(name.trim()).ok_or_else(|| {
                format!("unknown analysis '{name}' (thesis, popl, llvm, sa, best or all)")
            })
        })
        .collect()
}

/// How to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// The program with shapes in trailing comments.
    Text,
    /// The JSON report.
    Json,
    /// Graphviz (one digraph per analysis).
    Dot,
    /// One SVG picture of every CFG drawn (`--svg`): each (function, analysis)
    /// pair a cluster coloured as `--dot` colours it, with a legend; laid out
    /// by Graphviz's `dot`.
    Svg,
    /// Counts only: divergent and uniform values, divergent branches, joins and
    /// divergent loops per analysis (the whole analysis still runs; for large
    /// functions, e.g. the benchmark against opt-22).
    Summary,
}

/// Runs `kinds` on `function`, or on every function the module defines, and
/// prints the results (text and `--dot`: one function after the other; `--json`:
/// one document, [`render::ModuleReport`]); `ids` gives `sa` the thread array's
/// width (thesis Fig. 10.12) and whether it is one chunk of a larger one. Each
/// function's analyses, and `dot` for `--svg`, are a stage of `watch`.
#[allow(
    clippy::too_many_arguments,
    reason = "the flags of `pllvm analyze`, passed through"
)]
pub(crate) fn run(
    module: &Module,
    function: Option<&str>,
    kinds: &[AnalysisKind],
    uniform_args: &[String],
    ids: ThreadIds,
    cycle_order: DfsOrder,
    format: Format,
    file: &str,
    watch: &Watch,
    out: &mut dyn Write,
) -> Result<()> {
    let funcs: Vec<FuncId> = match function {
        Some(name) => {
            let name = name.trim_start_matches('@');
            vec![
                module
                    .function_by_name(name)
                    .ok_or_else(|| Usage(format!("--function: no function @{name}")))?,
            ]
        }
        None => module
            .functions
            .iter()
            .filter(|(_, f)| f.body.is_some())
            .map(|(id, _)| id)
            .collect(),
    };
    if funcs.is_empty() {
        return Err(anyhow!("the module defines no function"));
    }
    let several = funcs.len() > 1;
    if several {
        check_uniform_args(module, &funcs, uniform_args)?;
    }
    let mut reports = Vec::new();
    let mut clusters = String::new();
    let mut drawn = graphviz::Size::default();
    for (n, &func) in funcs.iter().enumerate() {
        let args = if several {
            uniform_args_of(module, func, uniform_args)
        } else {
            uniform_args.to_vec()
        };
        let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
        watch.stage(format!(
            "analysing @{} ({})",
            module.functions[func].name,
            names.join(", ")
        ));
        let (results, skipped) = analyze_function(module, func, kinds, &args, ids, cycle_order)?;
        if format == Format::Json {
            let refs: Vec<&Uniformity> = results.iter().collect();
            reports.push(render::Report {
                not_analysed: skipped.iter().map(|k| k.to_string()).collect(),
                ..render::report(module, &refs)
            });
            continue;
        }
        if format == Format::Svg {
            clusters.push_str(&svg_clusters(module, func, &results, n, &mut drawn)?);
            continue;
        }
        if n > 0 && format == Format::Text {
            writeln!(out)?;
        }
        print_function(module, func, &results, &skipped, format, out)?;
    }
    if format == Format::Json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&render::ModuleReport::new(reports))?
        )?;
    }
    if format == Format::Svg {
        let source = format!(
            "digraph \"pllvm analyze\" {{\n  node [shape=box, fontname=\"monospace\"];\n  edge [fontname=\"monospace\"];\n{clusters}{}}}\n",
            render::dot_legend(&[])
        );
        watch.tool("drawing the picture with Graphviz's dot");
        writeln!(
            out,
            "{}",
            graphviz::svg_until(&source, file, watch.deadline()).map_err(|e| anyhow!(e))?
        )?;
    }
    Ok(())
}

/// The `--svg` clusters of function number `n`: one cluster for the function
/// holding one per analysis (thesis Fig. 7.2 colouring, [`render::dot_cluster`]),
/// node ids `@f/analysis/block`; `drawn` sums what the picture asks of the
/// layout so far, and a picture past [`graphviz::Size::refusal`]'s bounds is
/// refused before Graphviz runs.
fn svg_clusters(
    module: &Module,
    func: FuncId,
    results: &[Uniformity],
    n: usize,
    drawn: &mut graphviz::Size,
) -> Result<String> {
    let name = &module.functions[func].name;
    if let Some(body) = module.functions[func].body.as_ref() {
        for _ in results {
            drawn.add(body);
        }
    }
    if let Some(why) = drawn.refusal() {
        return Err(anyhow!(
            "@{name} under {} {} (with the functions before it): {why}; use --dot, --analysis NAME or --function NAME",
            results.len(),
            if results.len() == 1 {
                "analysis"
            } else {
                "analyses"
            }
        ));
    }
    let mut s = format!(
        "  subgraph {} {{\n  label={}; labeljust=l; fontname=\"monospace\";\n",
        render::dot_id(&format!("cluster_f{n}")),
        render::dot_id(&format!("@{name}"))
    );
    for (k, r) in results.iter().enumerate() {
        let prefix = format!("@{name}/{}/", r.analysis);
        s.push_str(&render::dot_cluster(
            module,
            func,
            Some(r),
            &format!("f{n}_{k}"),
            &r.analysis.to_string(),
            &render::ClusterMarks {
                prefix: &prefix,
                notes: Vec::new(),
            },
        ));
    }
    s.push_str("  }\n");
    Ok(s)
}

/// With every function analysed, each `--uniform-args` entry must name a
/// parameter of one of them (a name, or a number below some function's
/// parameter count).
fn check_uniform_args(module: &Module, funcs: &[FuncId], uniform_args: &[String]) -> Result<()> {
    for arg in uniform_args {
        let known = funcs
            .iter()
            .any(|&f| !uniform_args_of(module, f, std::slice::from_ref(arg)).is_empty());
        if !known {
            return Err(Usage(format!(
                "--uniform-args: no analysed function has a parameter {arg}"
            ))
            .into());
        }
    }
    Ok(())
}

/// The entries of `uniform_args` that name a parameter of `func` (by name, with
/// or without `%`, or by number), and `none` (no parameter uniform) for every
/// function.
fn uniform_args_of(module: &Module, func: FuncId, uniform_args: &[String]) -> Vec<String> {
    let data = &module.functions[func];
    let names: Vec<&str> = data
        .body
        .as_ref()
        .map(|body| {
            data.params
                .iter()
                .filter_map(|p| body.values[p.value].name.as_deref())
                .collect()
        })
        .unwrap_or_default();
    uniform_args
        .iter()
        .filter(|a| {
            if a.trim() == NO_UNIFORM_ARGS {
                return true;
            }
            let a = a.trim_start_matches('%');
            names.contains(&a) || a.parse::<usize>().is_ok_and(|k| k < data.params.len())
        })
        .cloned()
        .collect()
}

/// The analyses of one function, and the names of those left out.
fn analyze_function(
    module: &Module,
    func: FuncId,
    kinds: &[AnalysisKind],
    uniform_args: &[String],
    ids: ThreadIds,
    cycle_order: DfsOrder,
) -> Result<(Vec<Uniformity>, Vec<&'static str>)> {
    let init =
        InitShapes::for_function(module, func, uniform_args).map_err(|e| Usage(e.to_string()))?;
    // With several analyses asked, one that assumes reducible control flow is left
    // out on an irreducible function (named in a note); alone, it is an error.
    let mut results: Vec<Uniformity> = Vec::new();
    let mut skipped = Vec::new();
    for &k in kinds {
        let result = match (k, &module.functions[func].body) {
            (AnalysisKind::Llvm, Some(body)) => {
                Ok(llvm::analyze_in(module, func, body, &init, cycle_order))
            }
            (AnalysisKind::Sa, _) => analyze_sa(module, func, &init, ids),
            (AnalysisKind::Best, _) => analyze_best(module, func, &init, ids),
            _ => analyze_for_width(module, func, k, &init, ids.width()),
        };
        match result {
            Ok(r) => results.push(r),
            Err(AnalysisError::Irreducible(_)) if kinds.len() > 1 => skipped.push(k.name()),
            Err(e) => return Err(anyhow!("@{}: {e}", module.functions[func].name)),
        }
    }
    if results.is_empty() {
        return Err(anyhow!(
            "@{}: no analysis could run",
            module.functions[func].name
        ));
    }
    Ok((results, skipped))
}

/// Prints the results of one function in the text, `--dot` or `--summary` form.
fn print_function(
    module: &Module,
    func: FuncId,
    results: &[Uniformity],
    skipped: &[&str],
    format: Format,
    out: &mut dyn Write,
) -> Result<()> {
    if !skipped.is_empty() && format == Format::Text {
        writeln!(
            out,
            "; not analysed (irreducible control flow): {}",
            skipped.join(", ")
        )?;
    }
    let refs: Vec<&Uniformity> = results.iter().collect();
    match format {
        Format::Summary => {
            let Some(body) = module.functions[func].body.as_ref() else {
                return Ok(());
            };
            for r in &refs {
                let (mut varying, mut uniform) = (0usize, 0usize);
                for (_, s) in r.values.iter() {
                    if s.is_varying() {
                        varying += 1;
                    } else if s.is_uniform() {
                        uniform += 1;
                    }
                }
                writeln!(
                    out,
                    "{}: @{}: {} blocks, {varying} divergent values, {uniform} uniform, {} divergent branches, {} sync joins, {} temporal joins, {} divergent loops",
                    r.analysis,
                    module.functions[func].name,
                    body.layout.len(),
                    r.divergent_branches(body).len(),
                    r.sync_joins.len(),
                    r.temporal_joins.len(),
                    r.divergent_loops.len()
                )?;
            }
        }
        // The document is printed once, after every function.
        Format::Json | Format::Svg => {}
        Format::Dot => {
            for r in &refs {
                write!(out, "{}", render::dot(module, r))?;
            }
        }
        Format::Text => {
            write!(out, "{}", render::annotate(module, &refs))?;
            let Some(body) = module.functions[func].body.as_ref() else {
                return Ok(());
            };
            let postdom = PostDomTree::compute(body);
            let names = |bs: &mut dyn Iterator<Item = pllvm_semantics::ir::Block>| {
                let v: Vec<String> = bs.map(|b| format!("%{}", body.blocks[b].name)).collect();
                if v.is_empty() {
                    "none".to_string()
                } else {
                    v.join(", ")
                }
            };
            for r in &refs {
                writeln!(out, "\n; {}:", r.analysis)?;
                writeln!(
                    out,
                    ";   divergent branches: {}",
                    names(&mut r.divergent_branches(body).into_iter())
                )?;
                writeln!(
                    out,
                    ";   sync joins: {}",
                    names(&mut r.sync_joins.iter().copied())
                )?;
                writeln!(
                    out,
                    ";   temporal joins: {}",
                    names(&mut r.temporal_joins.iter().copied())
                )?;
                writeln!(
                    out,
                    ";   divergent loops: {}",
                    names(&mut r.divergent_loops.iter().copied())
                )?;
                let violations = check_reconverging(body, &postdom, r);
                if violations.is_empty() {
                    writeln!(out, ";   reconverging (Definition 1): yes")?;
                } else {
                    writeln!(out, ";   reconverging (Definition 1): no")?;
                    for v in violations {
                        writeln!(out, ";     {}", v.message(body))?;
                    }
                }
            }
        }
    }
    Ok(())
}
