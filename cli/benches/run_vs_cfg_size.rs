//! Benchmark (BENCHMARKS.md, "`pllvm run` against CFG size"): run time and peak resident memory of
//! `pllvm run` with the CLI defaults (the `lowest` greedy policy, every step
//! checked against Ch. 5, the default step limit) against the size of the CFG:
//! - *diamonds*: a chain of divergent diamonds `h: br %c, l, r; l: br j; r: br j;
//!   j: phi` (W = 4, `--arg x=0,1,2,3`: lanes part at every diamond);
//! - *straight*: a function of N blocks in a line (W = 4);
//! - *generated*: `pllvm_fuzz::big_cfg::big_cfg(Structured, N, 1)` (diamonds
//!   and switches on the thread id and on uniform values, a few loops; W = 4,
//!   `--arg n=3 --arg u=2`, and `--max-steps 20000`: its loops need not end;
//!   the property tests' generator `pllvm_fuzz::generate` caps its programs
//!   far below these sizes).
//!
//! Each run is a whole process (parsing included) under `/usr/bin/time -f %M`
//! (peak RSS in KiB), `prlimit --as` (4 GB) and `timeout` (120 s,
//! `PLLVM_BENCH_TIMEOUT`), so a build
//! that does not scale is cut off instead of taking the machine; wall time is
//! measured around it (best of `PLLVM_BENCH_RUNS`, default 3). Growth = (time
//! ratio to the previous size) / (size ratio): 1.00 is linear.
//!
//! `cargo bench -p pllvm --bench run_vs_cfg_size`; `PLLVM_BENCH_BIN=path/to/pllvm`
//! measures another build (e.g. the one before the change), `PLLVM_BENCH_SETS=diamonds,straight`
//! picks the families.

use pllvm_fuzz::big_cfg::{Family, big_cfg};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// A chain of `n` divergent diamonds.
fn diamonds(n: usize) -> String {
    let mut s =
        String::from("define i32 @f(i32 %x) {\ne:\n  %c = icmp slt i32 %x, 2\n  br label %h0\n");
    for i in 0..n {
        s += &format!(
            "h{i}:\n  br i1 %c, label %l{i}, label %r{i}\nl{i}:\n  br label %j{i}\nr{i}:\n  br label %j{i}\n\
             j{i}:\n  %v{i} = phi i32 [ 1, %l{i} ], [ 2, %r{i} ]\n  br label %h{}\n",
            i + 1
        );
    }
    s += &format!("h{n}:\n  ret i32 %v{}\n}}\n", n.saturating_sub(1));
    s
}

/// `n` blocks in a line.
fn straight(n: usize) -> String {
    let mut s = String::from("define i32 @f(i32 %x) {\nb0:\n  br label %b1\n");
    for i in 1..n {
        if i + 1 < n {
            s += &format!("b{i}:\n  br label %b{}\n", i + 1);
        } else {
            s += &format!("b{i}:\n  ret i32 %x\n");
        }
    }
    s + "}\n"
}

/// A generated CFG of about `n` blocks (`big_cfg`, structured family: diamonds
/// and switches on the thread id and on uniform values, a few loops) and its
/// flags: uniform `%n`, `%u`, and a step limit, since its loops need not end.
fn generated(n: usize) -> (String, Vec<String>) {
    let args = ["--arg", "n=3", "--arg", "u=2", "--max-steps", "20000"];
    (
        big_cfg(Family::Structured, n, 1),
        args.iter().map(|a| a.to_string()).collect(),
    )
}

/// With the `--arg` flags of the diamonds and the straight line.
fn with_x(text: String) -> (String, Vec<String>) {
    (text, vec!["--arg".into(), "x=0,1,2,3".into()])
}

/// One measured run: wall seconds, peak RSS in KiB, and how it ended.
struct Measured {
    wall: f64,
    rss_kib: Option<u64>,
    ended: String,
}

fn run_once(bin: &str, file: &Path, args: &[String], timeout: &str) -> Measured {
    let start = Instant::now();
    let out = Command::new("/usr/bin/time")
        .args(["-f", "peak %M"])
        .args(["timeout", timeout, "prlimit", "--as=4000000000", bin, "run"])
        .arg(file)
        .args(["--threads", "4"])
        .args(args)
        .stdin(Stdio::null())
        .output();
    let wall = start.elapsed().as_secs_f64();
    let Ok(out) = out else {
        return Measured {
            wall,
            rss_kib: None,
            ended: "cannot start /usr/bin/time".into(),
        };
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let rss_kib = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("peak "))
        .and_then(|v| v.trim().parse().ok());
    let ended = match out.status.code() {
        Some(124) => format!("timeout ({timeout} s)"),
        _ => stdout
            .lines()
            .find_map(|l| l.strip_prefix("outcome: "))
            .map_or_else(
                || format!("failed ({})", out.status),
                |o| o.split(':').next().unwrap_or(o).to_string(),
            ),
    };
    Measured {
        wall,
        rss_kib,
        ended,
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` builds this too.
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let bin =
        std::env::var("PLLVM_BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_pllvm").into());
    let runs: usize = std::env::var("PLLVM_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let timeout = std::env::var("PLLVM_BENCH_TIMEOUT").unwrap_or_else(|_| "120".into());
    let sets =
        std::env::var("PLLVM_BENCH_SETS").unwrap_or_else(|_| "diamonds,straight,generated".into());
    let dir: PathBuf = std::env::temp_dir().join(format!("pllvm-bench-cfg-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        eprintln!("cannot create {}", dir.display());
        return;
    }
    println!(
        "| program | blocks | wall s (best of {runs}) | peak RSS MiB | outcome | time growth | RSS growth |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    type Maker = fn(usize) -> (String, Vec<String>);
    let families: Vec<(&str, Vec<usize>, Maker)> = vec![
        ("diamonds", vec![25, 100, 400, 1600, 6400], |n| {
            with_x(diamonds(n))
        }),
        ("straight", vec![1_000, 10_000, 100_000], |n| {
            with_x(straight(n))
        }),
        ("generated", vec![1_000, 10_000, 100_000], generated),
    ];
    for (name, sizes, make) in families {
        if !sets.split(',').any(|s| s == name) {
            continue;
        }
        let mut previous: Option<(f64, f64, f64)> = None;
        for n in sizes {
            let (text, args) = make(n);
            // A label starts its line (`name:`, maybe a comment after it).
            let blocks = text
                .lines()
                .filter(|l| !l.starts_with(' '))
                .filter(|l| {
                    l.split_whitespace()
                        .next()
                        .is_some_and(|w| w.ends_with(':'))
                })
                .count();
            let file = dir.join(format!("{name}{n}.ll"));
            if std::fs::write(&file, &text).is_err() {
                eprintln!("cannot write {}", file.display());
                return;
            }
            let best = (0..runs)
                .map(|_| run_once(&bin, &file, &args, &timeout))
                .min_by(|a, b| a.wall.total_cmp(&b.wall));
            let Some(m) = best else { continue };
            let rss = m.rss_kib.map_or(f64::NAN, |k| k as f64 / 1024.0);
            let growth = |now: f64, before: f64, size_before: f64| {
                format!("{:.2}", (now / before) / (blocks as f64 / size_before))
            };
            let (tg, rg) = match previous {
                Some((t, r, b)) => (growth(m.wall, t, b), growth(rss, r, b)),
                None => ("-".into(), "-".into()),
            };
            println!(
                "| {name} | {blocks} | {:.3} | {rss:.1} | {} | {tg} | {rg} |",
                m.wall, m.ended
            );
            previous = Some((m.wall, rss, blocks as f64));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
