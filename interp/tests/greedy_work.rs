//! The greedy checks (thesis Ch. 5) cost what the lanes can reach, not what the
//! CFG holds (BENCHMARKS.md, "`pllvm run` against CFG size"). Work is counted, not
//! timed: the blocks checked for progress and synchronization (Def. 14, 17) and the
//! states the §5.3 search expanded (`GreedyFacts::work`), and for the largest CFG the
//! peak resident memory of a child process.

use pllvm_interp::config::{ArgValue, Scalar};
use pllvm_interp::greedy::GreedyFacts;
use pllvm_interp::run::run_with;
use pllvm_interp::sched::Lowest;
use pllvm_interp::{Machine, Outcome, RunConfig};
use pllvm_semantics::ir::Module;
use pllvm_semantics::text::parse_module;

/// `e: br h0; hK: br %c, lK, rK; lK, rK: br jK; jK: phi, br hK+1`, `n` diamonds,
/// then a return (the diamond chain of BENCHMARKS.md).
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
    s += &format!("h{n}:\n  ret i32 %v{}\n}}\n", n - 1);
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

/// `int kernel(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * 3; return s; }`
/// as `clang-19 -O0 -S -emit-llvm` emits it (counters in allocas).
const O0_LOOP: &str = "define dso_local i32 @kernel(i32 noundef %0) {
  %2 = alloca i32, align 4
  %3 = alloca i32, align 4
  %4 = alloca i32, align 4
  store i32 %0, ptr %2, align 4
  store i32 0, ptr %3, align 4
  store i32 0, ptr %4, align 4
  br label %5

5:
  %6 = load i32, ptr %4, align 4
  %7 = load i32, ptr %2, align 4
  %8 = icmp slt i32 %6, %7
  br i1 %8, label %9, label %17

9:
  %10 = load i32, ptr %4, align 4
  %11 = mul nsw i32 %10, 3
  %12 = load i32, ptr %3, align 4
  %13 = add nsw i32 %12, %11
  store i32 %13, ptr %3, align 4
  br label %14

14:
  %15 = load i32, ptr %4, align 4
  %16 = add nsw i32 %15, 1
  store i32 %16, ptr %4, align 4
  br label %5

17:
  %18 = load i32, ptr %3, align 4
  ret i32 %18
}
";

fn module(src: &str) -> Module {
    parse_module(src).expect("the test program parses").0
}

/// Runs `m` with the `lowest` policy, the argument per lane as given: (steps,
/// blocks checked, states searched).
fn work(m: &Module, arg: Vec<i64>) -> (usize, u64, u64) {
    let mut config = RunConfig {
        threads: arg.len(),
        ..Default::default()
    };
    config.args.insert(
        "0".into(),
        ArgValue::PerLane(arg.into_iter().map(Scalar::Int).collect()),
    );
    let mut machine = Machine::new(m, &config).expect("setup");
    let facts = GreedyFacts::compute(&machine.program);
    let run = run_with(&mut machine, &facts, &mut Lowest).expect("runs");
    assert_eq!(run.outcome, Outcome::Returned);
    assert!(run.violations.is_empty());
    let w = facts.work();
    (run.schedule.len(), w.checks.get(), w.search_states.get())
}

#[test]
fn divergent_diamonds_cost_linear_work_and_no_search() {
    let (steps_25, checks_25, searched_25) = work(&module(&diamonds(25)), vec![0, 1, 2, 3]);
    let (steps_400, checks_400, searched_400) = work(&module(&diamonds(400)), vec![0, 1, 2, 3]);
    assert_eq!((steps_25, steps_400), (4 * 25 + 2, 4 * 400 + 2));
    // No lane can reach a loop or a predicate: §5.3 needs no search (before: up
    // to 256 states per candidate at each of the 400 splits).
    assert_eq!((searched_25, searched_400), (0, 0));
    // 16 times the diamonds, at most 20 times the checks.
    assert!(
        checks_400 <= 20 * checks_25,
        "checks: {checks_25} for 25 diamonds, {checks_400} for 400"
    );
}

#[test]
fn straight_line_checks_one_block_per_step() {
    let (steps_1k, checks_1k, _) = work(&module(&straight(1_000)), vec![0, 1, 2, 3]);
    let (steps_20k, checks_20k, _) = work(&module(&straight(20_000)), vec![0, 1, 2, 3]);
    assert_eq!((steps_1k, steps_20k), (1_000, 20_000));
    // One pending block per step (before: every block of the layout per step).
    assert_eq!((checks_1k, checks_20k), (1_000, 20_000));
}

#[test]
fn o0_loop_search_per_step_is_bounded_by_the_budget() {
    // Lanes leave the loop after 1, 2, 3 and n iterations; while the last lane
    // loops, the others wait at the exit and both blocks are candidates, so §5.3
    // searches (a state may repeat in the loop). The search is bounded per step:
    // at most its budget (256 states) and one more per candidate, whatever the
    // length of the run; it grows with n only until the budget is reached.
    let m = module(O0_LOOP);
    let (steps_100, _, searched_100) = work(&m, vec![1, 2, 3, 100]);
    let (steps_400, _, searched_400) = work(&m, vec![1, 2, 3, 400]);
    assert!(steps_400 > 3 * steps_100);
    let per_step_100 = searched_100 / steps_100 as u64;
    let per_step_400 = searched_400 / steps_400 as u64;
    assert!(per_step_400 <= 2 * 257, "{per_step_400} states per step");
    assert!(
        per_step_400 <= 2 * per_step_100,
        "{per_step_100} states per step at n = 100, {per_step_400} at n = 400"
    );
    // Without the loop (every lane leaves after one iteration) no search runs.
    let (_, _, searched_1) = work(&m, vec![1, 1, 1, 1]);
    assert_eq!(searched_1, 0);
}

#[test]
fn lowest_checks_termination_along_its_own_path_at_a_state_per_step() {
    // `lowest` follows the lowest path that §5.3's check looks along, so the
    // check keeps that path from step to step (`lowest_path::LowestPath`): the states
    // it steps are about one per step of the run plus one window (the budget),
    // whatever the run's length, where a fresh check at every choice followed up
    // to 257 states per candidate (about 130,000 at n = 500).
    let m = module(O0_LOOP);
    for n in [100, 500, 5_000] {
        let (steps, _, searched) = work(&m, vec![1, 2, 3, n]);
        assert!(
            searched <= steps as u64 + 3 * 257,
            "n = {n}: {searched} states searched for {steps} steps"
        );
    }
}

/// The peak resident memory of this process, in KiB (`VmHWM`).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The child's part of [`straight_line_100k_blocks_run_in_bounded_memory`].
fn run_100k_and_report_peak() {
    let m = module(&straight(100_000));
    let (steps, checks, _) = work(&m, vec![0, 1, 2, 3]);
    assert_eq!((steps, checks), (100_000, 100_000));
    println!("peak-rss-kib {}", peak_rss_kib().unwrap_or(u64::MAX));
}

#[test]
fn straight_line_100k_blocks_run_in_bounded_memory() {
    if std::env::var_os("PLLVM_GREEDY_WORK_CHILD").is_some() {
        run_100k_and_report_peak();
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    // The test's name in its binary: this module's path without the crate.
    let name = format!(
        "{}::straight_line_100k_blocks_run_in_bounded_memory",
        module_path!().split_once("::").map_or("", |(_, m)| m)
    );
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            name.trim_start_matches("::"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env("PLLVM_GREEDY_WORK_CHILD", "1")
        .output()
        .expect("the child runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {text}");
    let peak: u64 = text
        .lines()
        .find_map(|l| l.split("peak-rss-kib ").nth(1))
        .and_then(|v| v.trim().parse().ok())
        .expect("the child reports its peak");
    // Before: the all-pairs forward-reach table alone needed about 20 GB here.
    assert!(peak < 600 * 1024, "peak RSS {peak} KiB for 100k blocks");
}
