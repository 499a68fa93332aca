//! Benchmark (BENCHMARKS.md, "Uniformity analysis"): `pllvm analyze --analysis
//! llvm` against LLVM's own uniformity analysis,
//! `opt-22 -mtriple=amdgcn-- -passes='require<uniformity>'`, each timed as a whole
//! process (reading and parsing included) on the same generated CFGs
//! ([`pllvm_fuzz::big_cfg`]) of 10k, 100k and 300k blocks: structured,
//! loop-heavy and with irreducible regions. Prints the median CPU time (user +
//! system of the child process, from `getrusage(RUSAGE_CHILDREN)` before and after
//! it, in microseconds: GNU time's 10 ms clock made the 10k ratios a matter of a
//! few ticks) and wall time of each side, their ratios, and the growth of CPU time
//! from one size to the next normalised by the growth in blocks (1.00 = linear).
//! CPU time is the comparison that survives a shared machine; wall time is printed
//! beside it.
//!
//! `cargo bench -p pllvm --bench analyze_vs_opt`; `PLLVM_BENCH_SIZES=10000,100000`
//! and `PLLVM_BENCH_RUNS=3` change the sizes and the runs per median (default 5);
//! `PLLVM_BENCH_BIN=path/to/pllvm` measures another build of pllvm. pllvm gets
//! the P-LLVM text with `--uniform-args n,u --summary` (the summary prints counts;
//! the analysis runs in full); opt gets `export-llvm` of the same module with `%n`
//! and `%u` marked `inreg` (uniform on AMDGPU), as `--compare-llvm` does.

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

/// Wall and CPU (user + system) time of one process.
#[derive(Clone, Copy, Debug)]
struct Times {
    wall: f64,
    cpu: f64,
}

/// The CPU time (user + system, in seconds) of every child process this process
/// has waited for so far (`getrusage(RUSAGE_CHILDREN)`, microsecond resolution).
fn children_cpu() -> Option<f64> {
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).ok()?;
    let secs = |t: TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 * 1e-6;
    Some(secs(usage.user_time()) + secs(usage.system_time()))
}

/// The medians (each taken separately) of `runs` runs of `cmd`, stdout discarded;
/// `None` if a run failed. The CPU time of a run is the growth of the children's
/// CPU time across it: the run is the only child, and it has been waited for.
fn median(runs: usize, cmd: &[&std::ffi::OsStr]) -> Option<Times> {
    let (mut walls, mut cpus) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let mut c = Command::new(cmd[0]);
        c.args(&cmd[1..]);
        c.stdout(Stdio::null()).stderr(Stdio::piped());
        let before = children_cpu()?;
        let start = Instant::now();
        let out = c.output().ok()?;
        let wall = start.elapsed().as_secs_f64();
        let cpu = children_cpu()? - before;
        if !out.status.success() {
            eprintln!("failed: {:?}: {}", c, String::from_utf8_lossy(&out.stderr));
            return None;
        }
        walls.push(wall);
        cpus.push(cpu);
    }
    walls.sort_by(f64::total_cmp);
    cpus.sort_by(f64::total_cmp);
    Some(Times {
        wall: walls[walls.len() / 2],
        cpu: cpus[cpus.len() / 2],
    })
}

fn write(path: &Path, text: &str) -> bool {
    std::fs::write(path, text).is_ok()
}

fn main() {
    let sizes = env_list("PLLVM_BENCH_SIZES", &[10_000, 100_000, 300_000]);
    let runs = env_list("PLLVM_BENCH_RUNS", &[5])[0].max(1);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("analyze_vs_opt");
    if std::fs::create_dir_all(&dir).is_err() {
        eprintln!("cannot create {}", dir.display());
        return;
    }
    // Another build of pllvm (an earlier commit, say) can be measured the same way.
    let pllvm =
        std::env::var("PLLVM_BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_pllvm").into());
    if !opt_available(OPT) {
        eprintln!("{OPT} is not installed: nothing to compare against");
        return;
    }
    println!(
        "pllvm analyze --analysis llvm vs {OPT} -passes='require<uniformity>', median of {runs}, seed {SEED}"
    );
    println!(
        "{:<12} {:>7} | {:>8} {:>8} {:>6} {:>7} {:>7} | {:>8} {:>8} {:>6}",
        "family",
        "blocks",
        "pllvm",
        "opt-22",
        "ratio",
        "growth",
        "(opt)",
        "pllvm",
        "opt-22",
        "ratio"
    );
    println!(
        "{:<12} {:>7} | {:>8} {:>8} {:>6} {:>7} {:>7} | {:>8} {:>8} {:>6}",
        "", "", "cpu s", "cpu s", "", "", "", "wall s", "wall s", ""
    );
    for family in Family::ALL {
        let mut previous: Option<(usize, Times, Times)> = None;
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
                return;
            }
            drop(module);
            let ours = median(
                runs,
                &[
                    pllvm.as_ref() as &std::ffi::OsStr,
                    "analyze".as_ref(),
                    src.as_os_str(),
                    "--analysis".as_ref(),
                    "llvm".as_ref(),
                    "--uniform-args".as_ref(),
                    "n,u".as_ref(),
                    "--summary".as_ref(),
                ],
            );
            let theirs = median(
                runs,
                &[
                    OPT.as_ref(),
                    "-mtriple=amdgcn--".as_ref(),
                    "-passes=require<uniformity>".as_ref(),
                    "-disable-output".as_ref(),
                    lowered.as_os_str(),
                ],
            );
            let (Some(ours), Some(theirs)) = (ours, theirs) else {
                continue;
            };
            // Growth of CPU time over the previous size, per block (1.00 = linear).
            let growth = |now: f64, before: f64, n0: usize| {
                format!("{:.2}", (now / before) / (blocks as f64 / n0 as f64))
            };
            let (g_ours, g_theirs) = match previous {
                Some((n0, o0, t0)) => {
                    (growth(ours.cpu, o0.cpu, n0), growth(theirs.cpu, t0.cpu, n0))
                }
                None => ("-".into(), "-".into()),
            };
            println!(
                "{:<12} {:>7} | {:>8.3} {:>8.3} {:>5.2}x {:>7} {:>7} | {:>8.3} {:>8.3} {:>5.2}x",
                family.name(),
                blocks,
                ours.cpu,
                theirs.cpu,
                ours.cpu / theirs.cpu,
                g_ours,
                g_theirs,
                ours.wall,
                theirs.wall,
                ours.wall / theirs.wall
            );
            previous = Some((blocks, ours, theirs));
        }
    }
}
