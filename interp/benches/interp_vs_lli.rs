//! Benchmark (not a test): lane-instructions per second of the interpreter on a
//! divergent kernel, next to LLVM's own IR interpreter on the same total work.
//!
//! The kernel is Mandelbrot escape time over 16384 threads (128 x 128 pixels, at
//! most 255 iterations), `benches/mandelbrot.ll`. pllvm runs it as 512 thread arrays
//! of W = 32 lanes under FREEZING with the built-in schedule; `lli-19
//! -force-interpreter` runs the same function once per thread id from the driver
//! `benches/lli_main.ll`. Both print the sum of all escape counts, which must agree.
//! The ratio of the two wall times (best of `PLLVM_BENCH_REPEAT` runs, default 3) is
//! the number BENCHMARKS.md records.
//!
//! Run: `cargo bench -p pllvm-interp --bench interp_vs_lli`.

use pllvm_interp::config::{ArgValue, Scalar};
use pllvm_interp::{Machine, Outcome, RunConfig};
use pllvm_semantics::text::parse_module;
use pllvm_semantics::value::Val;
use std::time::{Duration, Instant};

#[path = "support/lli_peer.rs"]
mod lli_peer;

const THREADS: u32 = 16384;
const WIDTH: u32 = 32;

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/benches");
    let kernel = std::fs::read_to_string(format!("{dir}/mandelbrot.ll")).expect("kernel");
    let driver = std::fs::read_to_string(format!("{dir}/lli_main.ll")).expect("driver");
    let repeat: usize = std::env::var("PLLVM_BENCH_REPEAT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);

    let (module, _) = parse_module(&kernel).expect("kernel parses");
    // The work is counted in a run of its own: counting active lanes after every
    // step is the benchmark's instrumentation, not the interpreter's work.
    let (checksum, lane_insts) = run_pllvm(&module, true);
    let mut best_ours = Duration::MAX;
    for _ in 0..repeat {
        let start = Instant::now();
        let (sum, _) = run_pllvm(&module, false);
        best_ours = best_ours.min(start.elapsed());
        assert_eq!(sum, checksum, "the counted and the timed runs disagree");
    }

    let (best_lli, lli_sum) = lli_peer::time_lli(&format!("{kernel}\n{driver}"), repeat);
    assert_eq!(
        lli_sum,
        checksum.to_string(),
        "pllvm and lli disagree on the checksum"
    );

    let ours = best_ours.as_secs_f64();
    let lli = best_lli.as_secs_f64();
    println!("kernel: mandelbrot 128x128, {THREADS} threads, W = {WIDTH}, FR; checksum {checksum}");
    println!("active lane-instructions: {lane_insts}");
    println!(
        "pllvm:                  {ours:.3} s  ({:.1} M active lane-instructions/s)",
        lane_insts as f64 / ours / 1e6
    );
    println!(
        "lli-19 -force-interpreter: {lli:.3} s  ({:.1} M instructions/s, same work)",
        lane_insts as f64 / lli / 1e6
    );
    println!("ratio lli / pllvm: {:.2}x", lli / ours);
}

/// Runs every thread array; returns the checksum and, when `count` is set, the
/// number of active lane-instructions (phis, commands and terminators times
/// active lanes; 0 otherwise).
fn run_pllvm(module: &pllvm_semantics::ir::Module, count: bool) -> (u64, u64) {
    let mut sum = 0u64;
    let mut work = 0u64;
    for base in (0..THREADS).step_by(WIDTH as usize) {
        let mut config = RunConfig {
            threads: WIDTH as usize,
            observe: false,
            ..RunConfig::default()
        };
        config.args.insert(
            "tid".into(),
            ArgValue::PerLane(
                (base..base + WIDTH)
                    .map(|t| Scalar::Int(i64::from(t)))
                    .collect(),
            ),
        );
        let mut machine = Machine::new(module, &config).expect("setup");
        machine.record_trace = false;
        machine.count_work = count;
        let outcome = machine.run_earliest_pending().expect("run");
        assert_eq!(outcome, Outcome::Returned);
        for r in machine.results() {
            if let Some(Val::Int(v)) = r {
                sum += v as u64;
            }
        }
        work += machine.active_lane_insts;
    }
    (sum, work)
}
