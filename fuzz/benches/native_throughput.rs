//! Batched differential execution of generated programs (the target: "at least
//! 1,000 generated programs per minute on 2 cores for AVX2, generation,
//! interpreter, compile, run and compare together").
//!
//! Each worker (one per core) takes batches of programs: generates them,
//! transforms them (`nonneg-div,dlt,boscc,pl`), emits one translation unit per batch,
//! builds it once (llc-19 and the link), runs it once (the runner forks per
//! kernel) and compares every run with the interpreter's FREEZING run of the
//! original (`pllvm_fuzz::native::diff_generated`, the path of
//! `fuzz/tests/native_generated.rs`). One run per program, at W + 3 threads
//! (two chunks, the second with a masked tail), or W threads for a program with
//! horizontal builtins (they range over one chunk). The `contiguous` column
//! counts the programs with a load or store the widening made contiguous.
//!
//! Run: `cargo bench -p pllvm-fuzz --bench native_throughput` (defaults:
//! avx2, 1000 programs, batches of 100); `-- TARGET PROGRAMS BATCH` overrides.

use pllvm_codegen::native::Target;
use pllvm_fuzz::native::{BatchReport, diff_generated, native_config};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let target = args
        .first()
        .and_then(|t| Target::parse(t))
        .unwrap_or(Target::Avx2);
    let programs: u64 = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1000);
    let batch: u64 = args
        .get(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(100)
        .max(1);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let w = target.default_width();
    let next = AtomicU64::new(0);
    let total = Mutex::new(BatchReport::default());
    let errors = Mutex::new(Vec::<String>::new());
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let first = next.fetch_add(batch, Ordering::SeqCst);
                    if first >= programs {
                        break;
                    }
                    let seeds = first..(first + batch).min(programs);
                    match diff_generated(seeds, &native_config(), target, w, &[w + 3]) {
                        Ok(r) => total.lock().expect("report").absorb(r),
                        Err(e) => errors.lock().expect("errors").push(e),
                    }
                }
            });
        }
    });
    let secs = start.elapsed().as_secs_f64();
    let r = total.into_inner().expect("report");
    let errors = errors.into_inner().expect("errors");
    println!(
        "| target | programs | contiguous | runs | agree | skipped | failures | workers | wall s | programs/min | prepare s | build s | run+compare s |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    println!(
        "| {target} (W = {w}, {} threads) | {} | {} | {} | {} | {} | {} | {workers} | {secs:.1} | {:.0} | {:.1} | {:.1} | {:.1} |",
        w + 3,
        r.programs,
        r.contiguous,
        r.runs,
        r.agreed,
        r.skipped,
        r.failures.len(),
        r.programs as f64 / secs * 60.0,
        r.prepare.as_secs_f64(),
        r.build.as_secs_f64(),
        r.run.as_secs_f64()
    );
    for f in r.failures.iter().take(10) {
        eprintln!("failure: {f}");
    }
    for e in &errors {
        eprintln!("batch error: {e}");
    }
    if !errors.is_empty() || !r.failures.is_empty() {
        std::process::exit(1);
    }
}
