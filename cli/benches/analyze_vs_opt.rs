//! Benchmark (BENCHMARKS.md, "Uniformity analysis"): `pllvm analyze --analysis
//! llvm` against LLVM's own uniformity analysis,
//! `opt-22 -mtriple=amdgcn-- -passes='require<uniformity>'`, each timed as a whole
//! process (reading and parsing included) on the same generated CFGs
//! ([`pllvm_fuzz::big_cfg`]) of 10k, 100k and 300k blocks: structured,
//! loop-heavy and with irreducible regions. Prints the median CPU time (user +
//! system of the child process, in microseconds: GNU time's 10 ms clock made the
//! 10k ratios a matter of a few ticks), the median peak RSS of each side, their
//! ratios, and the growth of CPU time and peak RSS from one size to the next
//! normalised by the growth in blocks (1.00 = linear).
//! CPU time is the comparison that survives a shared machine; wall time is printed
//! beside it.
//!
//! Each run is measured through a fresh copy of this benchmark's own binary
//! (`--measure-child`), which starts the command, waits for it and reports its
//! `getrusage(RUSAGE_CHILDREN)`: with one child, that is the child's CPU time and
//! its own `ru_maxrss` (the children's peak of a process that has waited for
//! several children is only the largest of them).
//!
//! `cargo bench -p pllvm --bench analyze_vs_opt`; `PLLVM_BENCH_SIZES=10000,100000`
//! and `PLLVM_BENCH_RUNS=3` change the sizes and the runs per median (default 5);
//! `PLLVM_BENCH_FAMILIES=loops` picks families; `PLLVM_BENCH_ANALYSIS=all` runs
//! `--analysis all` instead of `llvm`; `PLLVM_BENCH_OPT_MAX=300000` leaves opt-22
//! out above that many blocks (its time grows about twice as fast as the
//! blocks on the loop families); `PLLVM_BENCH_BIN=path/to/pllvm` measures another
//! build of pllvm. 1M blocks is one command:
//! `PLLVM_BENCH_SIZES=10000,100000,1000000 PLLVM_BENCH_RUNS=1 cargo bench -p
//! pllvm --bench analyze_vs_opt`. pllvm gets
//! the P-LLVM text with `--uniform-args n,u --summary` (the summary prints counts;
//! the analysis runs in full); opt gets `export-llvm` of the same module with `%n`
//! and `%u` marked `inreg` (uniform on AMDGPU), as `--compare-llvm` does. The
//! generated files stay in the target directory's `tmp/analyze_vs_opt/`.

use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::time::TimeVal;
use pllvm_analysis::opt_uniformity::{opt_available, opt_input};
use pllvm_fuzz::big_cfg::{Family, big_cfg};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const OPT: &str = "opt-22";
const SEED: u64 = 1;

fn env_list(name: &str, default: &[usize]) -> Vec<usize> {
    std::env::var(name)
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .filter(|v: &Vec<usize>| !v.is_empty())
        .unwrap_or_else(|| default.to_vec())
}

/// Wall and CPU (user + system) time and peak RSS of one process.
#[derive(Clone, Copy, Debug)]
struct Times {
    wall: f64,
    cpu: f64,
    /// Peak resident set, MiB.
    rss: f64,
}

/// The CPU time (user + system, in seconds) and the peak RSS (KiB) of the
/// children this process has waited for (`getrusage(RUSAGE_CHILDREN)`,
/// microsecond resolution).
fn children_usage() -> Option<(f64, i64)> {
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).ok()?;
    let secs = |t: TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 * 1e-6;
    Some((
        secs(usage.user_time()) + secs(usage.system_time()),
        usage.max_rss(),
    ))
}

/// `--measure-child CMD ARGS...`: runs the command (stdout discarded), waits
/// for it, and prints its CPU seconds and peak RSS in KiB on one line; the
/// command's standard error and exit code 1 if it failed. This process's only
/// child is the command, so the children's usage is the command's.
fn measure_child(cmd: &[String]) -> std::process::ExitCode {
    let out = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    match (out, children_usage()) {
        (Ok(out), Some((cpu, rss))) if out.status.success() => {
            println!("{cpu} {rss}");
            std::process::ExitCode::SUCCESS
        }
        (Ok(out), _) => {
            eprint!("{}", String::from_utf8_lossy(&out.stderr));
            std::process::ExitCode::FAILURE
        }
        (Err(e), _) => {
            eprintln!("cannot run {}: {e}", cmd[0]);
            std::process::ExitCode::FAILURE
        }
    }
}

/// The medians (each taken separately) of `runs` runs of `cmd`, each through
/// [`measure_child`]; `None` if a run failed.
fn median(runs: usize, cmd: &[&std::ffi::OsStr]) -> Option<Times> {
    let me = std::env::current_exe().ok()?;
    let (mut walls, mut cpus, mut rsss) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let mut c = Command::new(&me);
        c.arg("--measure-child").args(cmd);
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        let start = Instant::now();
        let out = c.output().ok()?;
        let wall = start.elapsed().as_secs_f64();
        if !out.status.success() {
            eprintln!(
                "failed: {:?}: {}",
                cmd,
                String::from_utf8_lossy(&out.stderr)
            );
            return None;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut fields = text.split_whitespace();
        let cpu: f64 = fields.next()?.parse().ok()?;
        let rss_kib: f64 = fields.next()?.parse().ok()?;
        walls.push(wall);
        cpus.push(cpu);
        rsss.push(rss_kib / 1024.0);
    }
    let mid = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Some(Times {
        wall: mid(walls),
        cpu: mid(cpus),
        rss: mid(rsss),
    })
}

fn write(path: &Path, text: &str) -> bool {
    std::fs::write(path, text).is_ok()
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--measure-child") && args.len() > 2 {
        return measure_child(&args[2..]);
    }
    let sizes = env_list("PLLVM_BENCH_SIZES", &[10_000, 100_000, 300_000]);
    let runs = env_list("PLLVM_BENCH_RUNS", &[5])[0].max(1);
    let opt_max = env_list("PLLVM_BENCH_OPT_MAX", &[usize::MAX])[0];
    let analysis = std::env::var("PLLVM_BENCH_ANALYSIS").unwrap_or_else(|_| "llvm".into());
    let families: Vec<Family> = match std::env::var("PLLVM_BENCH_FAMILIES") {
        Ok(names) => Family::ALL
            .into_iter()
            .filter(|f| names.split(',').any(|n| n.trim() == f.name()))
            .collect(),
        Err(_) => Family::ALL.to_vec(),
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("analyze_vs_opt");
    if std::fs::create_dir_all(&dir).is_err() {
        eprintln!("cannot create {}", dir.display());
        return std::process::ExitCode::FAILURE;
    }
    // Another build of pllvm (an earlier commit, say) can be measured the same way.
    let pllvm =
        std::env::var("PLLVM_BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_pllvm").into());
    let with_opt = opt_available(OPT);
    if !with_opt {
        eprintln!("{OPT} is not installed: pllvm alone is measured");
    }
    println!(
        "pllvm analyze --analysis {analysis} vs {OPT} -passes='require<uniformity>', median of {runs}, seed {SEED}"
    );
    println!(
        "{:<12} {:>7} | {:>8} {:>8} {:>6} {:>7} {:>7} | {:>8} {:>8} {:>7} | {:>8} {:>8}",
        "family",
        "blocks",
        "pllvm",
        "opt-22",
        "ratio",
        "growth",
        "(opt)",
        "pllvm",
        "opt-22",
        "growth",
        "pllvm",
        "opt-22"
    );
    println!(
        "{:<12} {:>7} | {:>8} {:>8} {:>6} {:>7} {:>7} | {:>8} {:>8} {:>7} | {:>8} {:>8}",
        "", "", "cpu s", "cpu s", "", "", "", "RSS MiB", "RSS MiB", "(RSS)", "wall s", "wall s"
    );
    for family in families {
        let mut previous: Option<(usize, Times, Option<Times>)> = None;
        for &size in &sizes {
            let text = big_cfg(family, size, SEED);
            let Ok((module, _)) = pllvm_semantics::text::parse_module(&text) else {
                eprintln!(
                    "{} {size}: the generated program does not parse",
                    family.name()
                );
                continue;
            };
            let Some(func) = module.first_definition() else {
                continue;
            };
            let blocks = module.functions[func]
                .body
                .as_ref()
                .map_or(0, |b| b.layout.len());
            let src = dir.join(format!("{}-{size}.ll", family.name()));
            let lowered = dir.join(format!("{}-{size}.opt.ll", family.name()));
            if !write(&src, &text) || !write(&lowered, &opt_input(&module, func, &[true, true])) {
                eprintln!("cannot write into {}", dir.display());
                return std::process::ExitCode::FAILURE;
            }
            drop(module);
            drop(text);
            let Some(ours) = median(
                runs,
                &[
                    pllvm.as_ref() as &std::ffi::OsStr,
                    "analyze".as_ref(),
                    src.as_os_str(),
                    "--analysis".as_ref(),
                    analysis.as_ref(),
                    "--uniform-args".as_ref(),
                    "n,u".as_ref(),
                    "--summary".as_ref(),
                ],
            ) else {
                continue;
            };
            let theirs = (with_opt && size <= opt_max)
                .then(|| {
                    median(
                        runs,
                        &[
                            OPT.as_ref(),
                            "-mtriple=amdgcn--".as_ref(),
                            "-passes=require<uniformity>".as_ref(),
                            "-disable-output".as_ref(),
                            lowered.as_os_str(),
                        ],
                    )
                })
                .flatten();
            // Growth over the previous size, per block (1.00 = linear).
            let growth = |now: f64, before: f64, n0: usize| {
                format!("{:.2}", (now / before) / (blocks as f64 / n0 as f64))
            };
            let (g_ours, g_theirs, g_rss) = match previous {
                Some((n0, o0, t0)) => (
                    growth(ours.cpu, o0.cpu, n0),
                    match (theirs, t0) {
                        (Some(t), Some(t0)) => growth(t.cpu, t0.cpu, n0),
                        _ => "-".into(),
                    },
                    growth(ours.rss, o0.rss, n0),
                ),
                None => ("-".into(), "-".into(), "-".into()),
            };
            let or_dash = |v: Option<f64>, precision: usize| {
                v.map_or("-".to_string(), |v| format!("{v:.precision$}"))
            };
            println!(
                "{:<12} {:>7} | {:>8.3} {:>8} {:>6} {:>7} {:>7} | {:>8.1} {:>8} {:>7} | {:>8.3} {:>8}",
                family.name(),
                blocks,
                ours.cpu,
                or_dash(theirs.map(|t| t.cpu), 3),
                theirs.map_or("-".to_string(), |t| format!("{:.2}x", ours.cpu / t.cpu)),
                g_ours,
                g_theirs,
                ours.rss,
                or_dash(theirs.map(|t| t.rss), 1),
                g_rss,
                ours.wall,
                or_dash(theirs.map(|t| t.wall), 3),
            );
            previous = Some((blocks, ours, theirs));
        }
    }
    std::process::ExitCode::SUCCESS
}
