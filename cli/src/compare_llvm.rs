//! `pllvm analyze FILE --compare-llvm`: pllvm's `llvm` analysis side by side with
//! LLVM's own (`opt-22`, and `opt-19` as a second opinion, run by
//! [`pllvm_analysis::opt_uniformity`]), with what the interpreter observed in the
//! file's `; run:` lines. LLVM's answer is a peer, not ground truth: a value some
//! analysis calls uniform while its lanes disagreed at run time is wrong there.
//! Each difference gets a [`Class`] (an LLVM bug a run witnessed, a θ builtin
//! opt does not know, a documented reading of pllvm's, or unexplained), and the
//! table ends with a count per class; `--json` prints the same as one document
//! ([`COMPARE_SCHEMA`]).

use anyhow::{Result, anyhow};
use pllvm_analysis::llvm::{self, Tokens};
use pllvm_analysis::opt_uniformity::{
    OptReport, opt_available, opt_input, opt_triple, parse_report, run_opt,
};
use pllvm_analysis::result::{AnalysisKind, InitShapes};
use pllvm_analysis::target::PLLVM_AMDGPU_SOURCES;
use pllvm_analysis::uniformity::analyze;
use pllvm_interp::machine::TIME_LIMIT;
use pllvm_interp::observe::DivergenceRecord;
use pllvm_interp::{Machine, Outcome};
use pllvm_semantics::ir::{Block, CastOp, InstKind, Module, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

/// The opt binaries asked, the first one required.
pub(crate) const OPTS: [&str; 2] = ["opt-22", "opt-19"];

fn word(divergent: Option<bool>) -> &'static str {
    match divergent {
        Some(true) => "divergent",
        Some(false) => "uniform",
        None => "-",
    }
}

/// The version of the `--compare-llvm --json` document
/// (`docs/schemas/pllvm-compare-llvm-1.schema.json`).
pub(crate) const COMPARE_SCHEMA: &str = "pllvm-compare-llvm/1";

/// Why pllvm's `llvm` analysis and LLVM's differ on a value or branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Class {
    /// An opt called it uniform and a `; run:` saw its lanes disagree: a bug of
    /// LLVM's analysis (or of pllvm's export to it), with the run as witness.
    LlvmUnsound,
    /// A call of a function θ defines and opt does not know (`@pllvm.any`,
    /// OpenCL's `get_local_id`, ...): opt takes it as an unknown call.
    ThetaBuiltin,
    /// A documented reading of pllvm's (docs/analyses.md, "`llvm`"): the P-LLVM
    /// additions (`mask()`, `total`, block predicates), loads and address
    /// compares of possible stack pointers, and the intrinsics pllvm keeps
    /// divergent where LLVM 22 does not (`target::PLLVM_AMDGPU_SOURCES`).
    PllvmReading,
    /// A rule of controlled convergence (docs/analyses.md, "Convergence control
    /// tokens"): pllvm reads the token and opt-22 does not; with the tokens
    /// ignored ([`Tokens::Ignored`]) pllvm gives opt's answer.
    Controlled,
    /// None of the above.
    Unexplained,
}

impl Class {
    /// Every class, in the order the summary lists them.
    const ALL: [Class; 5] = [
        Class::LlvmUnsound,
        Class::ThetaBuiltin,
        Class::PllvmReading,
        Class::Controlled,
        Class::Unexplained,
    ];

    fn name(self) -> &'static str {
        match self {
            Class::LlvmUnsound => "llvm-unsound",
            Class::ThetaBuiltin => "theta-builtin",
            Class::PllvmReading => "pllvm-reading",
            Class::Controlled => "controlled",
            Class::Unexplained => "unexplained",
        }
    }
}

/// One value or branch where the answers differ.
struct Row {
    /// `%x`, or `br in %b`.
    what: String,
    /// Whether pllvm calls it divergent.
    pllvm: Option<bool>,
    /// Each opt's answer, in the order of the reports.
    opts: Vec<Option<bool>>,
    /// What the runs saw.
    observed: &'static str,
    class: Class,
    /// The differing operand it inherits its class from, if any.
    via: Option<String>,
}

/// The class of a difference on the result of `inst` in `block` that no run
/// witnessed, from the instruction itself: a θ builtin opt does not know, an
/// intrinsic pllvm keeps divergent, a P-LLVM addition.
fn own_class(
    module: &Module,
    body: &pllvm_semantics::ir::Body,
    block: Block,
    inst: pllvm_semantics::ir::Inst,
) -> Option<Class> {
    let data = &body.insts[inst];
    if let InstKind::Call { callee, .. } = &data.kind {
        let name = &module.functions[*callee].name;
        if !name.starts_with("llvm.") && pllvm_semantics::theta::resolve(name).is_some() {
            return Some(Class::ThetaBuiltin);
        }
        if let Some(rest) = name.strip_prefix("llvm.amdgcn.")
            && PLLVM_AMDGPU_SOURCES
                .iter()
                .any(|r| rest == *r || rest.strip_prefix(r).is_some_and(|t| t.starts_with('.')))
        {
            return Some(Class::PllvmReading);
        }
    }
    let p_llvm = data.total
        || matches!(data.kind, InstKind::Mask)
        || (matches!(data.kind, InstKind::Phi { .. }) && body.blocks[block].predicate.is_some());
    p_llvm.then_some(Class::PllvmReading)
}

/// Whether pllvm's rule for possible stack pointers explains pllvm calling the
/// result of `inst` divergent (a load, `ptrtoint` or compare: each lane has its
/// own stack objects), asked only when no differing operand explains it.
fn stack_rule(
    body: &pllvm_semantics::ir::Body,
    inst: pllvm_semantics::ir::Inst,
    pllvm_divergent: bool,
) -> bool {
    pllvm_divergent
        && matches!(
            body.insts[inst].kind,
            InstKind::Load { .. }
                | InstKind::Cast {
                    op: CastOp::PtrToInt,
                    ..
                }
                | InstKind::ICmp { .. }
        )
}

/// Runs the comparison and prints the table of differences, each with its
/// [`Class`], and a count per class (one JSON document with `json`); `false`
/// when `deadline` (`--time`) cut interpreter runs off, which the table then
/// leaves out of `observed` and says so.
pub(crate) fn run(
    module: &Module,
    src: &str,
    function: Option<&str>,
    uniform_args: &[String],
    deadline: Option<Instant>,
    json: bool,
    out: &mut dyn Write,
) -> Result<bool> {
    let func = match function {
        Some(name) => module
            .function_by_name(name.trim_start_matches('@'))
            .ok_or_else(|| {
                crate::errors::Usage(format!(
                    "--function: no function @{}",
                    name.trim_start_matches('@')
                ))
            })?,
        None => module
            .first_definition()
            .ok_or_else(|| anyhow!("the module defines no function"))?,
    };
    let data = &module.functions[func];
    let body = data
        .body
        .as_ref()
        .ok_or_else(|| anyhow!("@{} has no body", data.name))?;
    let init = InitShapes::for_function(module, func, uniform_args)
        .map_err(|e| crate::errors::Usage(e.to_string()))?;
    let ours = analyze(module, func, AnalysisKind::Llvm, &init).map_err(|e| anyhow!("{e}"))?;
    let ignoring = llvm::analyze_reading(module, func, body, &init, Tokens::Ignored);
    let uniform: Vec<bool> = init.params.iter().map(|s| s.is_uniform()).collect();
    let input = opt_input(module, func, &uniform);
    let mut notes = Vec::new();
    let reports = opt_reports(module, &input, &data.name, &mut notes)?;
    let (observed, cut_off) = observe_runs(module, src, &data.name, deadline)?;
    let seen = |f: &dyn Fn(&DivergenceRecord) -> (u64, bool)| -> &'static str {
        if observed.is_empty() {
            return "not run";
        }
        let (mut instances, mut diverged) = (0, false);
        for o in &observed {
            let (i, d) = f(o);
            instances += i;
            diverged |= d;
        }
        match (instances, diverged) {
            (0, _) => "not executed",
            (_, true) => "divergent",
            (_, false) => "uniform",
        }
    };
    // A run saw the lanes disagree where an opt called it uniform.
    let witnessed =
        |opts: &[Option<bool>], obs: &str| obs == "divergent" && opts.contains(&Some(false));
    // The classes every difference is asked first: a run witnessed an opt wrong,
    // or the token rules alone explain it (without them, pllvm, which says
    // `mine`, gives an opt's answer `without`).
    let first_class = |mine: Option<bool>, without: bool, theirs: &[Option<bool>], obs: &str| {
        if witnessed(theirs, obs) {
            Some(Class::LlvmUnsound)
        } else if mine != Some(without) && theirs.contains(&Some(without)) {
            Some(Class::Controlled)
        } else {
            None
        }
    };
    let mut rows: Vec<Row> = Vec::new();
    // The class of each differing value, for the values that use it.
    let mut classed: BTreeMap<Value, (Class, String)> = BTreeMap::new();
    let mut compared = 0usize;
    for &b in &body.layout {
        let block = &body.blocks[b];
        for &i in block.phis.iter().chain(&block.body) {
            let Some(v) = body.insts[i].result else {
                continue;
            };
            let Some(name) = body.value_name(v) else {
                continue;
            };
            let mine = Some(ours.values[v].is_varying());
            let theirs: Vec<Option<bool>> = reports
                .iter()
                .map(|(_, r)| r.value_divergent(name))
                .collect();
            compared += 1;
            if theirs.iter().all(|t| *t == mine) {
                continue;
            }
            let obs = seen(&|o: &DivergenceRecord| (o.insts[i].instances, o.insts[i].diverged));
            let inherited = body.insts[i]
                .kind
                .operands()
                .into_iter()
                .find_map(|o| classed.get(&o).cloned());
            let (class, via) =
                if let Some(c) = first_class(mine, ignoring.values[v].is_varying(), &theirs, obs) {
                    (c, None)
                } else if let Some(c) = own_class(module, body, b, i) {
                    (c, None)
                } else if let Some((c, from)) = inherited {
                    (c, Some(from))
                } else if stack_rule(body, i, mine == Some(true)) {
                    (Class::PllvmReading, None)
                } else {
                    (Class::Unexplained, None)
                };
            let what = format!("%{name}");
            classed.insert(v, (class, what.clone()));
            rows.push(Row {
                what,
                pllvm: mine,
                opts: theirs,
                observed: obs,
                class,
                via,
            });
        }
        if block.term.successors().len() >= 2 {
            let mine = Some(ours.terminators[b].is_varying());
            let theirs: Vec<Option<bool>> = reports
                .iter()
                .map(|(_, r)| r.terminator_divergent(&block.name))
                .collect();
            compared += 1;
            if theirs.iter().all(|t| *t == mine) {
                continue;
            }
            let obs =
                seen(&|o: &DivergenceRecord| (o.branches[b].instances, o.branches[b].diverged));
            let inherited = block
                .term
                .operands()
                .into_iter()
                .find_map(|o| classed.get(&o).cloned());
            let (class, via) = if let Some(c) =
                first_class(mine, ignoring.terminators[b].is_varying(), &theirs, obs)
            {
                (c, None)
            } else if block.predicate.is_some() {
                (Class::PllvmReading, None)
            } else if let Some((c, from)) = inherited {
                (c, Some(from))
            } else {
                (Class::Unexplained, None)
            };
            rows.push(Row {
                what: format!("br in %{}", block.name),
                pllvm: mine,
                opts: theirs,
                observed: obs,
                class,
                via,
            });
        }
    }
    let by_class: Vec<(Class, usize)> = Class::ALL
        .iter()
        .map(|&c| (c, rows.iter().filter(|r| r.class == c).count()))
        .collect();
    if json {
        let opt_names: Vec<&str> = reports.iter().map(|(o, _)| *o).collect();
        let doc = serde_json::json!({
            "schema": COMPARE_SCHEMA,
            "function": data.name,
            "opts": opt_names,
            "compared": compared,
            "differ": rows.len(),
            "rows": rows.iter().map(|r| serde_json::json!({
                "value": r.what,
                "pllvm": word(r.pllvm),
                "opt": opt_names.iter().zip(&r.opts)
                    .map(|(o, t)| (o.to_string(), serde_json::Value::from(word(*t))))
                    .collect::<serde_json::Map<_, _>>(),
                "observed": r.observed,
                "class": r.class.name(),
                "via": r.via,
            })).collect::<Vec<_>>(),
            "by_class": by_class.iter()
                .map(|(c, n)| (c.name().to_string(), serde_json::Value::from(*n)))
                .collect::<serde_json::Map<_, _>>(),
            "observed_cut_off": cut_off,
            "notes": notes,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        return Ok(cut_off == 0);
    }
    for n in &notes {
        writeln!(out, "; {n}")?;
    }
    writeln!(
        out,
        "; @{}: {compared} values and branches compared, {} differ",
        data.name,
        rows.len()
    )?;
    if !rows.is_empty() {
        let mut header = format!("{:<28} {:<10}", "value", "pllvm");
        for (opt, _) in &reports {
            header.push_str(&format!(" {opt:<10}"));
        }
        header.push_str(&format!(" {:<12} class", "observed"));
        writeln!(out, "{header}")?;
        for r in &rows {
            let mut line = format!("{:<28} {:<10}", r.what, word(r.pllvm));
            for t in &r.opts {
                line.push_str(&format!(" {:<10}", word(*t)));
            }
            line.push_str(&format!(" {:<12} {}", r.observed, r.class.name()));
            if let Some(from) = &r.via {
                line.push_str(&format!(" (via {from})"));
            }
            writeln!(out, "{line}")?;
        }
        let counts: Vec<String> = by_class
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(c, n)| format!("{} {n}", c.name()))
            .collect();
        writeln!(out, "; by class: {}", counts.join(", "))?;
    }
    if cut_off > 0 {
        writeln!(
            out,
            "; observed is partial: {TIME_LIMIT} before {cut_off} `; run:` line{} ended, left out",
            if cut_off == 1 { "" } else { "s" }
        )?;
    }
    Ok(cut_off == 0)
}

/// Each `opt` of [`OPTS`] on `input`, and its report on function `name`: LLVM
/// 22's is required, a missing second one is said in `notes` and left out.
fn opt_reports(
    module: &Module,
    input: &str,
    name: &str,
    notes: &mut Vec<String>,
) -> Result<Vec<(&'static str, OptReport)>> {
    let mut reports = Vec::new();
    for (k, opt) in OPTS.iter().enumerate() {
        if !opt_available(opt) {
            if k == 0 {
                return Err(anyhow!(
                    "{opt} is not installed: --compare-llvm needs LLVM 22's opt (Debian package llvm-22)"
                ));
            }
            notes.push(format!("{opt} not found: no second opinion"));
            continue;
        }
        let stderr = run_opt(opt, input, opt_triple(module)).map_err(|e| anyhow!(e))?;
        reports.push((*opt, parse_report(&stderr, name).map_err(|e| anyhow!(e))?));
    }
    Ok(reports)
}

/// What the interpreter saw of function `name`, over every `; run:` of the file
/// `src` (runs that cannot be set up or do not end are left out), and how many
/// runs `deadline` cut off (left out too: a run cut short saw only part).
fn observe_runs(
    module: &Module,
    src: &str,
    name: &str,
    deadline: Option<Instant>,
) -> Result<(Vec<DivergenceRecord>, usize)> {
    let directives = pllvm_interp::directives::parse(src).map_err(|e| anyhow!(e))?;
    let mut observed = Vec::new();
    let mut cut_off = 0;
    for r in &directives.runs {
        let mut config = r.config.clone();
        config.function = Some(name.to_string());
        config.observe = true;
        let Ok(mut machine) = Machine::new(module, &config) else {
            continue;
        };
        machine.deadline = deadline;
        let done = match &config.schedule {
            Some(s) => machine.run_schedule(s),
            None => machine.run_to_end(),
        };
        match done {
            Ok(Outcome::Limit(why)) if deadline.is_some() && why == TIME_LIMIT => cut_off += 1,
            Ok(_) => observed.push(machine.divergence.clone()),
            Err(_) => {}
        }
    }
    Ok((observed, cut_off))
}
