//! The human summary of a campaign's report ([`print_summary`]).

use anyhow::Result;
use std::io::Write;
use std::path::Path;

/// The human summary of a report.
pub(super) fn print_summary(
    out: &mut impl Write,
    report: &serde_json::Value,
    dir: &Path,
) -> Result<()> {
    writeln!(
        out,
        "fuzz: {} programs in {:.1} s ({:.0} programs/min over all sessions), shard {}, base seed {}",
        report["programs"],
        report["seconds"].as_f64().unwrap_or(0.0),
        report["programs_per_minute"].as_f64().unwrap_or(0.0),
        report["shard"].as_str().unwrap_or("?"),
        report["base_seed"].as_str().unwrap_or("?"),
    )?;
    for o in report["oracles"].as_array().into_iter().flatten() {
        let name = o["name"].as_str().unwrap_or("?");
        if o["ran"].as_bool() == Some(true) {
            let c = &o["counts"];
            writeln!(
                out,
                "  {name}: {} checked, {} passed, {} skipped, {} failed",
                c["checked"], c["passed"], c["skipped"], c["failed"]
            )?;
            for (why, n) in c["skips"].as_object().into_iter().flatten() {
                writeln!(out, "    skipped {n}: {why}")?;
            }
            if let Some(mix) = c["mix"].as_object() {
                let parts: Vec<String> = mix.iter().map(|(k, n)| format!("{k} {n}")).collect();
                writeln!(out, "    programs with: {}", parts.join(", "))?;
            }
        } else {
            writeln!(
                out,
                "  {name}: not run: {}",
                o["why"].as_str().unwrap_or("?")
            )?;
        }
    }
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    if findings.is_empty() {
        writeln!(out, "no findings")?;
    } else {
        writeln!(out, "{} findings:", findings.len())?;
        for g in report["groups"].as_array().into_iter().flatten() {
            writeln!(
                out,
                "  {} / {}: {} failing programs",
                g["oracle"].as_str().unwrap_or("?"),
                g["kind"].as_str().unwrap_or("?"),
                g["hits"]
            )?;
            for f in g["files"].as_array().into_iter().flatten() {
                writeln!(out, "    {}", dir.join(f.as_str().unwrap_or("?")).display())?;
            }
        }
    }
    Ok(())
}
