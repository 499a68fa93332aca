//! Benchmark (not a test): a launch of 16,384 threads in thread arrays of 32
//! (docs/launch.md; BENCHMARKS.md "Launches"), on all cores against one core, and
//! against LLVM's IR interpreter running the same threads one by one.
//!
//! The kernel is Mandelbrot escape time of 128 x 128 pixels written to a buffer,
//! `benches/mandel_rows.ll`, launched as `pllvm run --grid 16384 --threads 32
//! --buffer out=i32[16384] --lane-id tid` would launch it
//! ([`pllvm_interp::launch::launch`]): 512 thread arrays under FREEZING with the
//! lowest-index scheduler, on `jobs` host threads. `lli-19 -force-interpreter`
//! runs the same function once per thread id from `benches/grid_lli_main.ll`.
//! All three print the sum of the escape counts, which must agree. Times are the
//! best of `PLLVM_BENCH_REPEAT` runs (default 3), and the ratios are taken in
//! one run of this program.
//!
//! Run: `cargo bench -p pllvm-interp --bench grid_launch`.

use pllvm_interp::RunConfig;
use pllvm_interp::buffers::{BufferInit, BufferSpec, ElemType, dump_values};
use pllvm_interp::launch::{Grid, Launch, launch};
use pllvm_semantics::text::parse_module;
use std::time::{Duration, Instant};

#[path = "support/lli_peer.rs"]
mod lli_peer;

const THREADS: u64 = 16384;
const WIDTH: usize = 32;

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/benches");
    let kernel = std::fs::read_to_string(format!("{dir}/mandel_rows.ll")).expect("kernel");
    let driver = std::fs::read_to_string(format!("{dir}/grid_lli_main.ll")).expect("driver");
    let repeat: usize = std::env::var("PLLVM_BENCH_REPEAT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (module, _) = parse_module(&kernel).expect("kernel parses");
    let mut config = RunConfig::default();
    config.buffers.insert(
        "out".into(),
        BufferSpec {
            elem: ElemType::Int(32),
            len: Some(THREADS),
            init: BufferInit::Zero,
        },
    );
    let time = |jobs: usize| {
        let grid = Grid {
            threads: THREADS,
            width: WIDTH,
            group: None,
            dims: None,
            jobs,
            lane_id: Some("tid".into()),
            scheduler: None,
            divergence: false,
            time_limit: None,
        };
        let mut best = Duration::MAX;
        let mut sum = 0;
        for _ in 0..repeat {
            let start = Instant::now();
            let done = launch(&module, &config, &grid).expect("launch");
            best = best.min(start.elapsed());
            sum = checksum(&done);
        }
        (best, sum)
    };
    let (one, sum_one) = time(1);
    let (all, sum_all) = time(cores);
    assert_eq!(sum_one, sum_all, "1 job and {cores} jobs disagree");

    let (best_lli, lli_sum) = lli_peer::time_lli(&format!("{kernel}\n{driver}"), repeat);
    assert_eq!(lli_sum, sum_one.to_string(), "pllvm and lli-19 disagree");

    let (one, all, lli) = (one.as_secs_f64(), all.as_secs_f64(), best_lli.as_secs_f64());
    println!(
        "kernel: mandel_rows 128x128, {THREADS} threads in {} arrays of {WIDTH}, FR; checksum {sum_one}",
        THREADS / WIDTH as u64
    );
    println!("pllvm --jobs 1:            {one:.3} s");
    println!("pllvm --jobs {cores}:            {all:.3} s");
    println!("lli-19 -force-interpreter: {lli:.3} s");
    println!("speed-up {cores} jobs / 1 job: {:.2}x", one / all);
    println!("ratio lli-19 / pllvm ({cores} jobs): {:.2}x", lli / all);
    println!("ratio lli-19 / pllvm (1 job): {:.2}x", lli / one);
}

/// The sum of the escape counts the launch wrote to `out`.
fn checksum(done: &Launch) -> i128 {
    let ptr = done.initial.buffers["out"];
    dump_values(&done.memory, ptr, ElemType::Int(32), THREADS)
        .expect("out")
        .iter()
        .map(|e| match e {
            pllvm_interp::buffers::Element::Int(i) => *i,
            other => panic!("out holds {other}"),
        })
        .sum()
}
