//! `pllvm fuzz merge DIR... --out DIR`: the shards of one campaign (or any
//! campaigns) as one report: findings copied (one file per distinct finding),
//! hits concatenated, counts summed. `pllvm fuzz promote FINDING`: a fixed
//! finding moved to the regression corpus.

use super::store::{self, Counts, State};
use anyhow::{Context, Result, anyhow};
use clap::Args;
use pllvm_fuzz::oracles::{Case, Host, Verdict, guarded};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// `pllvm fuzz merge`.
#[derive(Args, Debug)]
pub(super) struct MergeArgs {
    /// Campaign directories (each with state.json and findings/).
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Where the merged report and findings go.
    #[arg(long, value_name = "DIR", default_value = "fuzz-merged")]
    out: PathBuf,
    /// Print one JSON document (schema pllvm-fuzz/1).
    #[arg(long)]
    json: bool,
}

/// `pllvm fuzz promote`.
#[derive(Args, Debug)]
pub(super) struct PromoteArgs {
    /// A finding file (findings/ORACLE-HASH.ll).
    finding: PathBuf,
    /// The regression directory.
    #[arg(long, value_name = "DIR", default_value = "corpus/regressions")]
    to: PathBuf,
    /// The external oracle's command, for a finding of `external`.
    #[arg(long, value_name = "CMD")]
    oracle_cmd: Option<String>,
}

/// Merges campaign directories.
pub(super) fn merge(args: MergeArgs) -> Result<ExitCode> {
    let mut merged: Option<State> = None;
    let mut hits = Vec::new();
    let mut sources = Vec::new();
    check_merge_dirs(&args)?;
    let _lock = store::lock(&args.out)?;
    std::fs::create_dir_all(store::findings_dir(&args.out))
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    for dir in &args.dirs {
        let s = State::load(dir)?;
        sources.push(format!(
            "{} (shard {}/{})",
            dir.display(),
            s.shard,
            s.shards
        ));
        for entry in std::fs::read_dir(store::findings_dir(dir))
            .with_context(|| format!("cannot read {}/findings", dir.display()))?
        {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "ll")
                && let Some(name) = path.file_name()
            {
                let to = store::findings_dir(&args.out).join(name);
                if !to.exists() {
                    let text = std::fs::read_to_string(&path)
                        .with_context(|| format!("cannot read {}", path.display()))?;
                    store::write_atomic(&to, &text)?;
                }
            }
        }
        hits.extend(store::load_hits(dir));
        merged = Some(match merged {
            None => s,
            Some(mut m) => {
                if m.base_seed != s.base_seed {
                    eprintln!(
                        "warning: {} has base seed {}, the first directory {}",
                        dir.display(),
                        s.base_seed,
                        m.base_seed
                    );
                }
                m.next += s.next;
                m.seconds += s.seconds;
                for o in s.oracles {
                    if !m.oracles.contains(&o) {
                        m.oracles.push(o);
                    }
                }
                for (o, c) in s.counts {
                    m.counts.entry(o).or_insert_with(Counts::default).add(&c);
                }
                m
            }
        });
    }
    let mut state = merged.ok_or_else(|| anyhow!("no directory to merge"))?;
    state.shard = 0;
    state.shards = 1;
    store::save_hits(&args.out, &hits)?;
    let mut report = store::report(&state, &hits, &[], 0.0, 0);
    report["merged_from"] = serde_json::json!(sources);
    store::write_atomic(&args.out.join("report.json"), &format!("{report:#}\n"))?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{report}")?;
    } else {
        writeln!(out, "merged {}", sources.join(", "))?;
        super::summary::print_summary(&mut out, &report, &args.out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The directories of `fuzz merge` (docs/fuzzing.md "Campaign directories"): each
/// input once (a shard given twice would count its programs and hits twice), and
/// `--out` none of them (the merge would rewrite a shard's hits with the merged
/// ones). Directories are compared as files (the same directory under two names
/// is the same).
fn check_merge_dirs(args: &MergeArgs) -> Result<()> {
    let usage = |m: String| anyhow!(crate::errors::Usage(m));
    let mut seen: Vec<(std::path::PathBuf, &std::path::Path)> = Vec::new();
    for dir in &args.dirs {
        let real =
            std::fs::canonicalize(dir).with_context(|| format!("cannot read {}", dir.display()))?;
        if let Some((_, first)) = seen.iter().find(|(r, _)| *r == real) {
            return Err(usage(format!(
                "fuzz merge: {} is given twice ({} and {}): each shard counts once",
                real.display(),
                first.display(),
                dir.display()
            )));
        }
        seen.push((real, dir.as_path()));
    }
    if let Ok(out) = std::fs::canonicalize(&args.out)
        && let Some((_, dir)) = seen.iter().find(|(r, _)| *r == out)
    {
        return Err(usage(format!(
            "fuzz merge: --out {} is the input {}: merge into a directory of its own",
            args.out.display(),
            dir.display()
        )));
    }
    Ok(())
}

/// Promotes a fixed finding to a regression test.
pub(super) fn promote(args: PromoteArgs) -> Result<ExitCode> {
    let path = &args.finding;
    let src =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let oracle = src
        .lines()
        .find_map(|l| l.strip_prefix("; fuzz-oracle:"))
        .map(|o| o.trim().to_string())
        .ok_or_else(|| anyhow!("{}: no `; fuzz-oracle:` line", path.display()))?;
    let case = Case::from_file(&src).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let (chosen, _) = super::select::select(
        std::slice::from_ref(&oracle),
        args.oracle_cmd.as_deref(),
        &Host::probe(),
    )?;
    let o = chosen
        .first()
        .ok_or_else(|| anyhow!("oracle {oracle} is not available"))?;
    match guarded(|| o.check(&case)) {
        Verdict::Pass => {}
        Verdict::Fail(f) => {
            return Err(anyhow!(
                "{}: {oracle} still fails ({}: {}): fix the bug first",
                path.display(),
                f.kind,
                f.detail.lines().next().unwrap_or("")
            ));
        }
        Verdict::Skip(why) => {
            return Err(anyhow!(
                "{}: {oracle} says nothing on it now ({why}): it would not guard anything",
                path.display()
            ));
        }
    }
    let name = path
        .file_name()
        .ok_or_else(|| anyhow!("{}: no file name", path.display()))?;
    std::fs::create_dir_all(&args.to)
        .with_context(|| format!("cannot create {}", args.to.display()))?;
    let to = args.to.join(name);
    let text = format!(
        ";; regression: a fixed `pllvm fuzz` finding; its expectation is that the oracle \
         `{oracle}` passes on it (`; fuzz-expect: pass`, checked by \
         fuzz/tests/fuzz_regressions.rs; the corpus runner runs its `; run:` line)\n\
         ; fuzz-expect: pass\n{src}"
    );
    store::write_atomic(&to, &text)?;
    std::fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))?;
    println!("{} -> {}", path.display(), to.display());
    Ok(ExitCode::SUCCESS)
}
