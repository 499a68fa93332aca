//! The schedulers of thesis Ch. 5: every built-in policy, replay, the interactive
//! callback, spin detection by state repetition (§5.3), and the IPD stack of GPUs
//! (§5.4, Fig. 5.6), which is not greedy and is reported where it breaks a
//! constraint.

use pllvm_interp::greedy::{GreedyFacts, Verdict};
use pllvm_interp::sched::{self, Highest, Interactive, Ipd, Lowest, Random, Replay, Scheduler};
use pllvm_interp::{Machine, Outcome, RunConfig};
use pllvm_semantics::ir::{Block, Module};
use pllvm_semantics::rules::{Program, State};

/// Four lanes: t0 -> B, t1 -> C, t2 and t3 -> D; all join in J. J returns the
/// popcount of its activation (4 under any greedy schedule: J is a barrier).
const FORK: &str = "define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  switch i32 %t, label %D [ i32 0, label %B
                            i32 1, label %C ]
B:
  br label %J
C:
  br label %J
D:
  br label %J
J:
  %m = mask()
  %n = call i32 @pllvm.popcount(i1 %m)
  ret i32 %n
}
";

/// Fig. 5.6: A -> {C, B}; B -> {D, C}; C -> D. t0 goes A -> C, t1 A -> B -> C.
const FIG5_6: &str = "define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %a = icmp eq i32 %t, 0
  br i1 %a, label %C, label %B
B:
  %bc = icmp sgt i32 %t, 5
  br i1 %bc, label %D, label %C
C:
  %cv = add i32 %t, 10
  br label %D
D:
  %r = phi i32 [ %cv, %C ], [ -1, %B ]
  ret i32 %r
}
";

/// Fig. 5.5: B is passive for every lane and loops to itself or goes on to C.
const SPIN: &str = "define i32 @f() {
A:
  br label %B
B:
  predicate false
  br i1 true, label %B, label %C
C:
  br label %D
D:
  ret i32 7
}
";

fn module(src: &str) -> Module {
    pllvm_semantics::text::parse_module(src)
        .expect("the test program parses")
        .0
}

fn names(machine: &Machine<'_>, schedule: &[Block]) -> Vec<String> {
    schedule
        .iter()
        .map(|&b| machine.program.block_name(b).to_string())
        .collect()
}

/// Runs `src` with `policy` on `width` lanes: (schedule, violations as text, result).
fn run(src: &str, width: usize, policy: &mut dyn Scheduler) -> (Vec<String>, Vec<String>, String) {
    let m = module(src);
    let config = RunConfig {
        threads: width,
        ..Default::default()
    };
    let mut machine = Machine::new(&m, &config).expect("setup");
    let run = machine.run_with(policy).expect("runs");
    assert_eq!(run.outcome, Outcome::Returned, "{}", policy.name());
    let violations = run
        .violations
        .iter()
        .map(|v| v.render(&machine.program))
        .collect();
    (
        names(&machine, &run.schedule),
        violations,
        machine.result_text(),
    )
}

#[test]
fn lowest_and_highest_follow_the_block_index() {
    // Block index (§2.5): A, then B, C, D (dominator-tree children of A, ties by
    // the reverse postorder of the DFS, which visits the switch's successors
    // default first: D, then B, then C), then J.
    let (lo, v, r) = run(FORK, 4, &mut Lowest);
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(r, "[4, 4, 4, 4]");
    let (hi, v, r) = run(FORK, 4, &mut Highest);
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(r, "[4, 4, 4, 4]");
    assert_eq!(lo.first().map(String::as_str), Some("A"));
    assert_eq!(lo.last().map(String::as_str), Some("J"));
    let mut middle_lo = lo[1..4].to_vec();
    let middle_hi: Vec<String> = hi[1..4].iter().rev().cloned().collect();
    assert_eq!(middle_lo, middle_hi, "highest is lowest reversed here");
    middle_lo.sort();
    assert_eq!(middle_lo, ["B", "C", "D"]);
}

#[test]
fn random_is_reproducible_and_greedy() {
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..20 {
        let (a, v, r) = run(FORK, 4, &mut Random::new(seed));
        let (b, _, _) = run(FORK, 4, &mut Random::new(seed));
        assert_eq!(a, b, "seed {seed}");
        assert!(v.is_empty(), "seed {seed}: {v:?}");
        assert_eq!(r, "[4, 4, 4, 4]");
        seen.insert(a);
    }
    assert!(seen.len() > 1, "twenty seeds gave one schedule");
}

#[test]
fn replay_runs_any_list_and_reports_what_is_not_greedy() {
    let m = module(FIG5_6);
    let mut machine = Machine::new(&m, &RunConfig::default()).expect("setup");
    let mut replay =
        Replay::parse(&machine.program, "A, C ; t0 first\nB C\nD\n", "ipd.txt").expect("parses");
    assert_eq!(replay.name(), "replay:ipd.txt");
    let run = machine.run_with(&mut replay).expect("runs");
    assert_eq!(names(&machine, &run.schedule), ["A", "C", "B", "C", "D"]);
    assert_eq!(machine.result_text(), "[10, 11]");
    let first = run.first_violation().expect("C at step 2 is not greedy");
    assert_eq!(first.step, 2);
    assert_eq!(
        first.render(&machine.program),
        "step 2: C: not synchronizing (Def. 17): lane 1 waits at B, B reaches C without a back edge"
    );
    assert_eq!(run.violations.len(), 1);
    let err = Replay::parse(&machine.program, "A, Z", "bad.txt").unwrap_err();
    assert_eq!(err, "bad.txt: no block named Z");
}

#[test]
fn replay_that_ends_early_is_incomplete() {
    let m = module(FIG5_6);
    let mut machine = Machine::new(&m, &RunConfig::default()).expect("setup");
    let a = machine.program.body.block_by_name("A").expect("A");
    let run = machine
        .run_with(&mut Replay::new(vec![a], "short"))
        .expect("runs");
    assert_eq!(run.outcome, Outcome::Incomplete);
    assert!(run.violations.is_empty());
}

#[test]
fn interactive_asks_the_callback_with_the_legal_blocks() {
    let mut asked: Vec<Vec<String>> = Vec::new();
    let mut policy = Interactive::new(
        |program: &Program<'_>, _: &GreedyFacts, _: &State, legal: &[Block]| {
            asked.push(
                legal
                    .iter()
                    .map(|&b| program.block_name(b).to_string())
                    .collect(),
            );
            legal.last().copied()
        },
    );
    assert_eq!(policy.name(), "interactive");
    let (schedule, v, r) = run(FIG5_6, 2, &mut policy);
    assert!(v.is_empty());
    assert_eq!(schedule, ["A", "B", "C", "D"]);
    assert_eq!(r, "[10, 11]");
    // After A only B is legal (C is not synchronizing while t1 waits at B).
    assert_eq!(asked, [vec!["A"], vec!["B"], vec!["C"], vec!["D"]]);
}

#[test]
fn ipd_runs_c_twice_and_is_reported() {
    let (schedule, v, r) = run(FIG5_6, 2, &mut Ipd::new());
    assert_eq!(schedule, ["A", "C", "B", "C", "D"]);
    assert_eq!(r, "[10, 11]");
    assert_eq!(
        v,
        [
            "step 2: C: not synchronizing (Def. 17): lane 1 waits at B, B reaches C without a back edge"
        ]
    );
}

#[test]
fn ipd_reconverges_loops_at_the_exit() {
    // t0 leaves after one iteration, t1 after two, t2 after three; the IPD of the
    // latch is the exit X, so the stack keeps running the loop for the remaining
    // lanes and X once for all: the same schedule as the greedy one here.
    let src = "define i32 @f() {
E:
  %t = call i32 @pllvm.thread_id()
  br label %H
H:
  %i = phi i32 [ 0, %E ], [ %n, %H ]
  %n = add i32 %i, 1
  %c = icmp sle i32 %n, %t
  br i1 %c, label %H, label %X
X:
  %m = mask()
  %k = call i32 @pllvm.popcount(i1 %m)
  ret i32 %k
}
";
    let (ipd, v, r) = run(src, 3, &mut Ipd::new());
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(ipd, ["E", "H", "H", "H", "X"]);
    assert_eq!(r, "[3, 3, 3]");
    let (lowest, _, _) = run(src, 3, &mut Lowest);
    assert_eq!(lowest, ipd);
}

#[test]
fn spin_detection_chooses_differently() {
    // Lowest prefers B (index 1) over C (index 2); B leaves the state unchanged, so
    // the second time the state is seen only C is offered (§5.3).
    let (schedule, v, r) = run(SPIN, 2, &mut Lowest);
    assert_eq!(schedule, ["A", "B", "B", "C", "D"]);
    assert!(v.is_empty());
    assert_eq!(r, "[7, 7]");
    // A policy that insists on B is recorded as spinning.
    let m = module(SPIN);
    let mut machine = Machine::new(&m, &RunConfig::default()).expect("setup");
    machine.max_steps = 6;
    let a = machine.program.body.block_by_name("A").expect("A");
    let b = machine.program.body.block_by_name("B").expect("B");
    let mut stubborn = Interactive::new(
        move |_: &Program<'_>, _: &GreedyFacts, _: &State, legal: &[Block]| {
            Some(if legal.contains(&a) { a } else { b })
        },
    );
    let run = machine.run_with(&mut stubborn).expect("runs");
    assert_eq!(run.outcome, Outcome::OutOfFuel);
    let first = run.first_violation().expect("the spin is reported");
    // Steps: A; B (the only choice); B (offered B and C, state first seen); B
    // again in the same state, where only C is offered: step 4 spins.
    assert_eq!(first.step, 4);
    assert!(matches!(
        &first.legality.verdict,
        Verdict::Illegal { definition: "§5.3", why, .. } if why.contains("state repetition")
    ));
}

#[test]
fn builtin_names() {
    for name in ["lowest", "highest", "random:42", "ipd"] {
        assert_eq!(sched::builtin(name).expect(name).name(), name);
    }
    assert!(sched::builtin("random:x").is_err());
    assert!(sched::builtin("fastest").is_err());
}

#[test]
fn a_checked_schedule_reports_every_violation() {
    let m = module(FIG5_6);
    let mut machine = Machine::new(&m, &RunConfig::default()).expect("setup");
    let list: Vec<String> = ["A", "D", "C", "B", "C", "D", "D"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let run = machine.run_schedule_checked(&list).expect("runs");
    let steps: Vec<(usize, &str)> = run
        .violations
        .iter()
        .map(|v| {
            let def = match &v.legality.verdict {
                Verdict::Illegal { definition, .. } => *definition,
                Verdict::Legal => "legal",
            };
            (v.step, def)
        })
        .collect();
    // D at 2 stalls (nobody's next is D); C at 3 leaves t1 behind at B; D at 7
    // runs after every lane returned.
    assert_eq!(steps, [(2, "Def. 14"), (3, "Def. 17"), (7, "Def. 14")]);
    assert_eq!(run.outcome, Outcome::Returned);
}
