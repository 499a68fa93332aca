//! Benchmark (not a test) of exhaustive exploration (`pllvm_interp::explore`,
//! thesis Def. 12): states per second, and the largest program size and W whose
//! every greedy schedule is explored within one minute.
//!
//! Two scalable families of programs, written here as text:
//! - `race(D)`: D divergent diamonds in a row; lane τ takes the left side of
//!   diamond k when bit k mod log2(W) of τ is set. Both sides update one shared
//!   global, and the updates do not commute (g = 2g left, g = g + 1 right), so
//!   the two orders of a diamond's sides give different memories and the state
//!   space doubles with every diamond: the worst case for state hashing.
//! - `fanout(W)`: a `switch` on the thread id sends every lane to a block of its
//!   own, which updates a shared global (g = g·(τ + 2) + τ); any order of the W
//!   blocks is greedy and gives its own memory, so the states are the ordered
//!   prefixes of the lanes, Σ_k W!/(W-k)!: the exploration grows with W.
//! - `chain(N)`: N units of a divergent diamond and a divergent self-loop of
//!   three iterations (`scripts/explore-chain.py`, with the bound a constant):
//!   8N + 3 states at W = 2, each holding all 8N + 2 values. The states and the
//!   values grow together, so a cost per state that grows with the program shows
//!   as quadratic time; measured at N = 75, 750 and 7,500 (600 to 60,000
//!   states), with the growth of the time per 10x the states (10.0 = linear).
//!
//! For each family the size grows until an exploration no longer finishes within
//! the budget (`PLLVM_BENCH_BUDGET_SECS`, default 60): the state bound of each run
//! is the measured rate times the budget, so a run that would take longer is
//! truncated instead of running on. States waiting in the breadth-first queue are
//! kept whole (tens of kilobytes each for the larger programs), so the bound is
//! also capped by `PLLVM_BENCH_MAX_STATES` (default 2000000) to stay within memory.
//!
//! Run: `cargo bench -p pllvm-interp --bench explore` (`PLLVM_BENCH_FAMILIES=chain`
//! for one family: a comma-separated list of `race`, `fanout`, `chain`).

use pllvm_interp::RunConfig;
use pllvm_interp::explore::{Bounds, Order, explore};
use pllvm_semantics::text::parse_module;
use std::fmt::Write as _;
use std::time::Instant;

/// `race(D)` for W lanes.
fn race(diamonds: usize, width: usize) -> String {
    let bits = width.next_power_of_two().trailing_zeros().max(1) as usize;
    let mut s = String::from(
        "@g = global i64 0\ndefine i64 @f() {\nentry:\n  %t = call i32 @pllvm.thread_id()\n  br label %d0\n",
    );
    for k in 0..diamonds {
        let next = if k + 1 == diamonds {
            "done".to_string()
        } else {
            format!("d{}", k + 1)
        };
        let shift = k % bits;
        let _ = write!(
            s,
            "d{k}:
  %s{k} = lshr i32 %t, {shift}
  %b{k} = and i32 %s{k}, 1
  %c{k} = icmp eq i32 %b{k}, 1
  br i1 %c{k}, label %l{k}, label %r{k}
l{k}:
  %lv{k} = load i64, ptr @g
  %la{k} = mul i64 %lv{k}, 2
  store i64 %la{k}, ptr @g
  br label %{next}
r{k}:
  %rv{k} = load i64, ptr @g
  %ra{k} = add i64 %rv{k}, 1
  store i64 %ra{k}, ptr @g
  br label %{next}
"
        );
    }
    s.push_str("done:\n  %v = load i64, ptr @g\n  ret i64 %v\n}\n");
    s
}

/// `fanout(W)`: lane τ runs block `c{τ}`, which sets g = g·(τ + 2) + τ.
fn fanout(width: usize) -> String {
    let mut s = String::from(
        "@g = global i64 1\ndefine i64 @f() {\nentry:\n  %t = call i32 @pllvm.thread_id()\n  switch i32 %t, label %done [",
    );
    for k in 0..width {
        let _ = write!(s, " i32 {k}, label %c{k}");
    }
    s.push_str(" ]\n");
    for k in 0..width {
        let _ = write!(
            s,
            "c{k}:
  %v{k} = load i64, ptr @g
  %m{k} = mul i64 %v{k}, {f}
  %a{k} = add i64 %m{k}, {k}
  store i64 %a{k}, ptr @g
  br label %done
",
            f = k + 2
        );
    }
    s.push_str("done:\n  %v = load i64, ptr @g\n  ret i64 %v\n}\n");
    s
}

/// `chain(N)`: unit k branches on `tid < 1` at hK to lK or rK, meets at jK and
/// runs the self-loop LK three times.
fn chain(units: usize) -> String {
    let mut s = String::from(
        "define i32 @f() {\nentry:\n  %tid = call i32 @pllvm.thread_id()\n  br label %h0\n",
    );
    for k in 0..units {
        let _ = write!(
            s,
            "h{k}:
  %c{k} = icmp slt i32 %tid, 1
  br i1 %c{k}, label %l{k}, label %r{k}
l{k}:
  br label %j{k}
r{k}:
  br label %j{k}
j{k}:
  br label %L{k}
L{k}:
  %i{k} = phi i32 [ 0, %j{k} ], [ %n{k}, %L{k} ]
  %n{k} = add i32 %i{k}, 1
  %e{k} = icmp sge i32 %n{k}, 3
  br i1 %e{k}, label %h{next}, label %L{k}
",
            next = k + 1
        );
    }
    let _ = write!(s, "h{units}:\n  ret i32 0\n}}\n");
    s
}

struct Measured {
    states: usize,
    outcomes: usize,
    seconds: f64,
    finished: bool,
}

fn measure(src: &str, width: usize, max_states: usize) -> Measured {
    let (module, _) = parse_module(src).expect("the benchmark program parses");
    let config = RunConfig {
        threads: width,
        ..Default::default()
    };
    let bounds = Bounds {
        max_states,
        max_steps: usize::MAX,
        order: Order::Lowest,
    };
    let start = Instant::now();
    let e = explore(&module, &config, &bounds).expect("explores");
    Measured {
        states: e.states,
        outcomes: e.outcomes.len(),
        seconds: start.elapsed().as_secs_f64(),
        finished: e.truncated.is_none(),
    }
}

fn main() {
    let budget: f64 = std::env::var("PLLVM_BENCH_BUDGET_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60.0);
    let max_states: usize = std::env::var("PLLVM_BENCH_MAX_STATES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let families = std::env::var("PLLVM_BENCH_FAMILIES").unwrap_or("race,fanout,chain".into());
    let run = |family: &str| families.split(',').any(|f| f.trim() == family);
    println!("explore benchmark, budget {budget} s and {max_states} states per exploration");
    println!("family      W  size(blocks)  states  outcomes  seconds  states/s  finished");
    let mut rate = 20_000.0f64;
    let report = |rate: &mut f64, family: &str, width: usize, blocks: usize, m: &Measured| {
        let r = m.states as f64 / m.seconds.max(1e-9);
        println!(
            "{family:<10} {width:>2}  {blocks:>12}  {:>6}  {:>8}  {:>7.2}  {:>8.0}  {}",
            m.states, m.outcomes, m.seconds, r, m.finished
        );
        if m.states > 1000 {
            *rate = r;
        }
    };
    for width in [2usize, 4, 8].into_iter().filter(|_| run("race")) {
        let mut largest = None;
        for diamonds in (2..=40).step_by(2) {
            let cap = ((rate * budget) as usize).min(max_states);
            let m = measure(&race(diamonds, width), width, cap.max(1000));
            report(&mut rate, "race", width, 3 * diamonds + 2, &m);
            if !m.finished || m.seconds > budget {
                break;
            }
            largest = Some(3 * diamonds + 2);
        }
        println!("race W={width}: largest finishing in {budget} s: {largest:?} blocks");
    }
    let mut largest_w = None;
    for width in (2usize..=16).filter(|_| run("fanout")) {
        let cap = ((rate * budget) as usize).min(max_states);
        let m = measure(&fanout(width), width, cap.max(1000));
        report(&mut rate, "fanout", width, width + 2, &m);
        if !m.finished || m.seconds > budget {
            break;
        }
        largest_w = Some(width);
    }
    if run("fanout") {
        println!("fanout: largest W finishing in {budget} s: {largest_w:?}");
    }
    let mut before: Option<f64> = None;
    for units in [75usize, 750, 7_500].into_iter().filter(|_| run("chain")) {
        let m = measure(&chain(units), 2, max_states);
        report(&mut rate, "chain", 2, 5 * units + 2, &m);
        if let Some(b) = before {
            println!(
                "chain: time x{:.1} for 10x the states",
                m.seconds / b.max(1e-9)
            );
        }
        before = Some(m.seconds);
    }
}
