//! The embedded default program: the logstar walk-through of thesis Fig. 3.20-3.22.
//!
//! `pllvm` (or `pllvm run`) with no file runs the same corpus files the golden
//! tests check: logstar under FREEZING (correct), the naive SIMD version under
//! OBLIVIOUS (wrong: the lane that left the loop first has its variables
//! overwritten with ⊤), and the divergent-loop-transformed version of Fig. 3.22c
//! under OBLIVIOUS (right again), printing the three trace tables.

use anyhow::{Result, anyhow};
use pllvm_interp::{Machine, directives, trace};
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text;
use std::io::Write;
use std::process::ExitCode;

/// The file name `pllvm check` reports for the embedded program.
pub(crate) const CHECK_NAME: &str =
    "<embedded>/corpus/semantics/fig3.22d-logstar-obl-transformed.ll";
/// The embedded program `pllvm check` verifies.
pub(crate) const CHECK_SOURCE: &str = PARTS[2].2;

/// (title, file name, source, interpretation) of each part of the walk-through:
/// each part runs the file's first `; run:` line with that interpretation.
const PARTS: [(&str, &str, &str, Interp); 3] = [
    (
        "logstar under FREEZING (Fig. 3.20b): each lane computes what it computes alone",
        "corpus/semantics/fig3.20b-logstar-fr.ll",
        include_str!("../../corpus/semantics/fig3.20b-logstar-fr.ll"),
        Interp::Freezing,
    ),
    (
        "naive SIMD logstar under OBLIVIOUS (Fig. 3.21b): passive loop iterations overwrite the early lane with ⊤",
        "corpus/semantics/fig3.21b-logstar-obl-naive.ll",
        include_str!("../../corpus/semantics/fig3.21b-logstar-obl-naive.ll"),
        Interp::Oblivious,
    ),
    (
        "logstar after the divergent loop transform (Fig. 3.22c/d) under OBLIVIOUS: correct again",
        "corpus/semantics/fig3.22d-logstar-obl-transformed.ll",
        include_str!("../../corpus/semantics/fig3.22d-logstar-obl-transformed.ll"),
        Interp::Oblivious,
    ),
];

/// Runs the three parts and prints their traces, outcomes and results.
pub(crate) fn run_default(out: &mut dyn Write) -> Result<ExitCode> {
    for (k, (title, file, src, interp)) in PARTS.iter().enumerate() {
        let (module, _) = text::parse_module(src)
            .map_err(|e| anyhow!("{file}: embedded program does not parse: {e:?}"))?;
        let d = directives::parse(src).map_err(|e| anyhow!("{file}: {e}"))?;
        let run = d
            .runs
            .iter()
            .find(|r| r.config.interp == *interp && r.config.threads > 1)
            .ok_or_else(|| anyhow!("{file}: no {} run directive", interp.short()))?;
        let mut machine = Machine::new(&module, &run.config).map_err(|e| anyhow!(e))?;
        machine.record_writes = true;
        let outcome = match &run.config.schedule {
            Some(s) => machine.run_schedule(s),
            None => machine.run_to_end(),
        }
        .map_err(|e| anyhow!(e))?;
        writeln!(out, "== {}. {title}", k + 1)?;
        writeln!(
            out,
            "   {file}: W = {}, {}",
            run.config.threads,
            run.config.interp.short()
        )?;
        writeln!(
            out,
            "{}",
            trace::table(&module.types, machine.program.body, &machine.trace, true)
        )?;
        writeln!(out, "outcome: {outcome}")?;
        writeln!(out, "result: {}\n", machine.result_text())?;
    }
    Ok(ExitCode::SUCCESS)
}
