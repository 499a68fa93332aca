//! Thread arrays of many widths (W = 1, 2, 3, 4, 8, 32, 64, 100; Def. 2 allows any
//! W ≥ 1), horizontal builtins at those widths (Fig. 4.15), resource limits that end
//! a run with a clear outcome, and the dynamic divergence record.

use pllvm_interp::config::{ArgValue, Scalar};
use pllvm_interp::{Machine, Outcome, RunConfig};
use pllvm_semantics::ir::Module;
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::parse_module;
use pllvm_semantics::value::Val;

/// A divergent loop whose trip count is the lane's argument, plus the number of
/// lanes that are active at its exit (`popcount` of `mask()` taken as a total
/// value, so every lane sees it) and the lane's thread id.
const KERNEL: &str = r#"
define i64 @f(i32 %n) {
entry:
  %tid = call i32 @pllvm.thread_id()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %acc1, %loop ]
  %w = zext i32 %i to i64
  %acc1 = add i64 %acc, %w
  %i1 = add i32 %i, 1
  %again = icmp slt i32 %i1, %n
  br i1 %again, label %loop, label %exit
exit:
  %m = mask()
  %count = call i32 @pllvm.popcount(i1 %m) total
  %c64 = zext i32 %count to i64
  %t64 = zext i32 %tid to i64
  %hi = shl i64 %t64, 32
  %r0 = add i64 %acc1, %hi
  %r = mul i64 %r0, %c64
  ret i64 %r
}
"#;

fn module(src: &str) -> Module {
    parse_module(src).expect("parses").0
}

fn run(m: &Module, width: usize, interp: Interp, n: Vec<i64>) -> (Outcome, Vec<Option<Val>>) {
    let mut config = RunConfig {
        threads: width,
        interp,
        ..RunConfig::default()
    };
    config.args.insert(
        "n".into(),
        ArgValue::PerLane(n.into_iter().map(Scalar::Int).collect()),
    );
    let mut machine = Machine::new(m, &config).expect("setup");
    let outcome = machine.run_to_end().expect("no rule is stuck");
    (outcome, machine.results())
}

/// Expected value of lane τ with argument n in a thread array of W lanes: the sum
/// 0 + 1 + … + (n - 1) (at least one iteration), plus τ in the high half, times W
/// (all lanes meet at `exit`, so `mask()` is all ones there).
fn expected(tau: usize, n: i64, width: usize) -> u128 {
    let n = n.max(1) as u128;
    let sum = n * (n - 1) / 2;
    ((sum + ((tau as u128) << 32)) * width as u128) & u128::from(u64::MAX)
}

#[test]
fn any_width_runs_each_lane_as_specified() {
    let m = module(KERNEL);
    for width in [1usize, 2, 3, 4, 8, 32, 64, 100] {
        let n: Vec<i64> = (0..width).map(|t| ((t * 7) % 13) as i64).collect();
        for interp in [Interp::Freezing, Interp::Oblivious] {
            let (outcome, results) = run(&m, width, interp, n.clone());
            assert_eq!(outcome, Outcome::Returned, "W = {width}");
            for (tau, r) in results.iter().enumerate() {
                let want = expected(tau, n[tau], width);
                match (interp, r) {
                    (_, Some(Val::Int(v))) => assert_eq!(*v, want, "W = {width} lane {tau}"),
                    // Under OBL, a lane that left the loop early had %acc1 overwritten
                    // with ⊤ by later passive iterations (the Fig. 3.21b effect).
                    (Interp::Oblivious, Some(Val::Undef)) => {
                        assert!(
                            n[tau] < *n.iter().max().unwrap_or(&0),
                            "W = {width} lane {tau}"
                        )
                    }
                    other => panic!("W = {width} lane {tau}: {other:?}"),
                }
            }
        }
    }
}

#[test]
fn ballot_needs_a_result_as_wide_as_the_thread_array() {
    let src = r#"
define i64 @f(i32 %n) {
entry:
  %c = icmp eq i32 %n, 1
  %b = call i64 @pllvm.ballot(i1 %c)
  ret i64 %b
}
"#;
    let m = module(src);
    let (outcome, results) = run(&m, 8, Interp::Freezing, vec![1, 0, 0, 1, 1, 0, 0, 0]);
    assert_eq!(outcome, Outcome::Returned);
    assert_eq!(results[5], Some(Val::Int(0b0001_1001)));
    let (outcome, _) = run(&m, 100, Interp::Freezing, vec![0; 100]);
    assert!(
        matches!(&outcome, Outcome::Undefined(ub) if ub.message.contains("ballot") || ub.message.contains("narrow") || ub.message.contains("wide")),
        "100 lanes do not fit an i64 ballot: {outcome}"
    );
}

#[test]
fn the_step_limit_ends_a_run_with_out_of_fuel() {
    let src = r#"
define i32 @spin(i32 %x) {
entry:
  br label %loop
loop:
  br label %loop
}
"#;
    let m = module(src);
    let mut config = RunConfig {
        threads: 2,
        max_steps: 50,
        ..RunConfig::default()
    };
    config
        .args
        .insert("x".into(), ArgValue::Uniform(Scalar::Int(0)));
    let mut machine = Machine::new(&m, &config).expect("setup");
    assert_eq!(machine.run_to_end(), Ok(Outcome::OutOfFuel));
    assert_eq!(machine.steps, 50);
}

#[test]
fn the_memory_limit_ends_a_run_with_a_limit_outcome() {
    let src = r#"
define i32 @grow(i32 %x) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %p = alloca [4096 x i64]
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, 1000
  br i1 %c, label %loop, label %done
done:
  ret i32 %i
}
"#;
    let m = module(src);
    let config = RunConfig {
        threads: 4,
        memory_limit: 1 << 20,
        ..RunConfig::default()
    };
    let mut machine = Machine::new(&m, &config).expect("setup");
    let outcome = machine.run_to_end().expect("no rule is stuck");
    assert!(matches!(outcome, Outcome::Limit(_)), "got {outcome}");
}

#[test]
fn the_divergence_record_sees_what_the_lanes_did() {
    let m = module(KERNEL);
    let mut config = RunConfig {
        threads: 4,
        ..RunConfig::default()
    };
    config.args.insert(
        "n".into(),
        ArgValue::PerLane(vec![
            Scalar::Int(1),
            Scalar::Int(3),
            Scalar::Int(3),
            Scalar::Int(2),
        ]),
    );
    let mut machine = Machine::new(&m, &config).expect("setup");
    assert_eq!(machine.run_to_end(), Ok(Outcome::Returned));
    let body = machine.program.body;
    let inst_of = |name: &str| {
        let v = body.value_by_name(name).expect("value");
        body.def_inst(v).expect("inst")
    };
    let rec = &machine.divergence;
    // %tid differs per lane; %count (a total popcount) is the same in all lanes.
    assert!(rec.insts[inst_of("tid")].diverged);
    assert!(!rec.insts[inst_of("count")].diverged);
    // %i: in each loop iteration the active lanes share the counter.
    assert!(!rec.insts[inst_of("i")].diverged);
    assert_eq!(rec.insts[inst_of("i")].instances, 3);
    // The loop's branch splits the lanes (lane 0 leaves first).
    let latch = body.block_by_name("loop").expect("block");
    assert!(rec.branches[latch].diverged);
}
