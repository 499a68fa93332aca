//! `pllvm analyze FILE --compare-llvm`: pllvm's `llvm` analysis side by side with
//! LLVM's own (`opt-22`, and `opt-19` as a second opinion, run by
//! [`pllvm_analysis::opt_uniformity`]), with what the interpreter observed in the
//! file's `; run:` lines. LLVM's answer is a peer, not ground truth: a value some
//! analysis calls uniform while its lanes disagreed at run time is wrong there.

use anyhow::{Result, anyhow};
use pllvm_analysis::opt_uniformity::{
    OptReport, opt_available, opt_input, opt_triple, parse_report, run_opt,
};
use pllvm_analysis::result::{AnalysisKind, InitShapes};
use pllvm_analysis::uniformity::analyze;
use pllvm_interp::machine::TIME_LIMIT;
use pllvm_interp::observe::DivergenceRecord;
use pllvm_interp::{Machine, Outcome};
use pllvm_semantics::ir::Module;
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

/// Runs the comparison and prints the table of differences; `false` when
/// `deadline` (`--time`) cut interpreter runs off, which the table then leaves
/// out of `observed` and says so.
pub(crate) fn run(
    module: &Module,
    src: &str,
    function: Option<&str>,
    uniform_args: &[String],
    deadline: Option<Instant>,
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
    let uniform: Vec<bool> = init.params.iter().map(|s| s.is_uniform()).collect();
    let input = opt_input(module, func, &uniform);
    let reports = opt_reports(module, &input, &data.name, out)?;
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
    let mut header = format!("{:<28} {:<10}", "value", "pllvm");
    for (opt, _) in &reports {
        header.push_str(&format!(" {opt:<10}"));
    }
    header.push_str(" observed");
    let mut rows = Vec::new();
    let (mut compared, mut differ) = (0usize, 0usize);
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
            differ += 1;
            let obs = seen(&|o: &DivergenceRecord| (o.insts[i].instances, o.insts[i].diverged));
            let mut row = format!("{:<28} {:<10}", format!("%{name}"), word(mine));
            for t in &theirs {
                row.push_str(&format!(" {:<10}", word(*t)));
            }
            row.push_str(&format!(" {obs}"));
            rows.push(row);
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
            differ += 1;
            let obs =
                seen(&|o: &DivergenceRecord| (o.branches[b].instances, o.branches[b].diverged));
            let mut row = format!(
                "{:<28} {:<10}",
                format!("br in %{}", block.name),
                word(mine)
            );
            for t in &theirs {
                row.push_str(&format!(" {:<10}", word(*t)));
            }
            row.push_str(&format!(" {obs}"));
            rows.push(row);
        }
    }
    writeln!(
        out,
        "; @{}: {compared} values and branches compared, {differ} differ",
        data.name
    )?;
    if !rows.is_empty() {
        writeln!(out, "{header}")?;
        for r in rows {
            writeln!(out, "{r}")?;
        }
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
/// 22's is required, a missing second one is said on `out` and left out.
fn opt_reports(
    module: &Module,
    input: &str,
    name: &str,
    out: &mut dyn Write,
) -> Result<Vec<(&'static str, OptReport)>> {
    let mut reports = Vec::new();
    for (k, opt) in OPTS.iter().enumerate() {
        if !opt_available(opt) {
            if k == 0 {
                return Err(anyhow!(
                    "{opt} is not installed: --compare-llvm needs LLVM 22's opt (Debian package llvm-22)"
                ));
            }
            writeln!(out, "; {opt} not found: no second opinion")?;
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
