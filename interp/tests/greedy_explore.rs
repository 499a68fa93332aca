//! Exhaustive exploration of greedy schedules (thesis Def. 12): distinct outcomes
//! with witnesses, schedule independence, bounds, termination preservation (§5.3),
//! concurrent next blocks (Def. 20) and Theorem 1.

use pllvm_interp::explore::{Bounds, Order, explore};
use pllvm_interp::{Machine, Outcome, RunConfig};
use pllvm_semantics::ir::Module;

fn module(src: &str) -> Module {
    pllvm_semantics::text::parse_module(src)
        .expect("the test program parses")
        .0
}

fn config(width: usize) -> RunConfig {
    RunConfig {
        threads: width,
        ..Default::default()
    }
}

/// Each lane adds its id + 1 to a shared counter at a block of its own: the order
/// of the blocks does not matter for the sum, but which lane reads what does.
/// B (t0) and C (t1) each read the counter and store it plus their own amount; a
/// greedy schedule runs B and C in either order, so the later one sees the
/// earlier one's store: the final counter is 3 either way, but the value each lane
/// returns (what it read) differs.
const RACE: &str = "@g = global i32 0
define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %z = icmp eq i32 %t, 0
  br i1 %z, label %B, label %C
B:
  %b0 = load i32, ptr @g
  %b1 = add i32 %b0, 1
  store i32 %b1, ptr @g
  br label %D
C:
  %c0 = load i32, ptr @g
  %c1 = add i32 %c0, 2
  store i32 %c1, ptr @g
  br label %D
D:
  %r = phi i32 [ %b0, %B ], [ %c0, %C ]
  ret i32 %r
}
";

#[test]
fn a_race_between_divergent_paths_has_two_outcomes() {
    let m = module(RACE);
    let e = explore(&m, &config(2), &Bounds::default()).expect("explores");
    assert!(e.truncated.is_none());
    let mut results: Vec<String> = e.outcomes.iter().map(|o| o.result_text.clone()).collect();
    results.sort();
    // B first: t0 reads 0, t1 reads 1. C first: t1 reads 0, t0 reads 2.
    assert_eq!(results, ["[0, 1]", "[2, 0]"]);
    for o in &e.outcomes {
        assert_eq!(o.memory, vec![("@g".to_string(), "[3]".to_string())]);
        // The witness replays to the same result.
        let mut machine = Machine::new(&m, &config(2)).expect("setup");
        let names: Vec<String> = o.witness.iter().map(|&b| e.name(b).to_string()).collect();
        let run = machine.run_schedule_checked(&names).expect("replays");
        assert_eq!(run.outcome, Outcome::Returned);
        assert!(run.violations.is_empty(), "witness {names:?} is greedy");
        assert_eq!(machine.result_text(), o.result_text);
    }
    assert!(!e.schedule_independent());
    assert_eq!(e.can_terminate, Some(true));
    assert!(!e.spins);
    assert!(e.report().contains("schedule-independent: no"));
}

#[test]
fn one_lane_is_schedule_independent() {
    let m = module(RACE);
    let e = explore(&m, &config(1), &Bounds::default()).expect("explores");
    assert!(e.schedule_independent());
    assert!(
        e.concurrent_next_blocks().is_empty(),
        "one lane has no concurrent next blocks"
    );
}

#[test]
fn orders_agree_on_outcomes() {
    let m = module(RACE);
    let sets: Vec<Vec<String>> = [Order::Lowest, Order::Highest, Order::Random(9)]
        .into_iter()
        .map(|order| {
            let bounds = Bounds {
                order,
                ..Bounds::default()
            };
            let e = explore(&m, &config(3), &bounds).expect("explores");
            let mut r: Vec<String> = e.outcomes.iter().map(|o| o.result_text.clone()).collect();
            r.sort();
            r
        })
        .collect();
    assert_eq!(sets[0], sets[1]);
    assert_eq!(sets[0], sets[2]);
}

#[test]
fn bounds_truncate() {
    let m = module(RACE);
    let few = Bounds {
        max_states: 2,
        ..Bounds::default()
    };
    let e = explore(&m, &config(2), &few).expect("explores");
    assert_eq!(e.states, 2);
    assert!(e.truncated.as_deref().is_some_and(|t| t.contains("states")));
    assert!(!e.schedule_independent());
    let short = Bounds {
        max_steps: 1,
        ..Bounds::default()
    };
    let e = explore(&m, &config(2), &short).expect("explores");
    assert!(e.truncated.as_deref().is_some_and(|t| t.contains("steps")));
    assert_eq!(e.can_terminate, None);
    assert!(e.outcomes.is_empty());
}

#[test]
fn undefined_behaviour_is_an_outcome() {
    let src = "define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %z = icmp eq i32 %t, 0
  br i1 %z, label %B, label %C
B:
  %q = sdiv i32 1, 0
  br label %C
C:
  ret i32 1
}
";
    let m = module(src);
    let e = explore(&m, &config(2), &Bounds::default()).expect("explores");
    assert_eq!(e.outcomes.len(), 1);
    assert!(
        e.outcomes[0].ending.starts_with("undefined"),
        "{}",
        e.outcomes[0].ending
    );
    assert_eq!(e.can_terminate, Some(true));
}

#[test]
fn termination_preservation_prunes_the_doomed_state() {
    let src = "define i32 @f() {
A:
  br label %B
B:
  predicate false
  br i1 true, label %L, label %D
L:
  br label %L
D:
  ret i32 7
}
";
    let m = module(src);
    let e = explore(&m, &config(2), &Bounds::default()).expect("explores");
    assert_eq!(e.pruned, 1);
    assert_eq!(e.outcomes.len(), 1);
    assert!(
        !e.spins,
        "the spin is only reachable through the pruned step"
    );
    assert!(e.schedule_independent());
}

#[test]
fn no_schedule_ends() {
    let src = "define i32 @f() {
A:
  br label %L
L:
  br label %L
}
";
    let m = module(src);
    let e = explore(&m, &config(2), &Bounds::default()).expect("explores");
    assert_eq!(e.can_terminate, Some(false));
    assert!(e.spins);
    assert!(e.outcomes.is_empty());
    assert!(e.report().contains("no greedy schedule ends"));
}

#[test]
fn cnb_of_a_divergent_loop_and_theorem_1() {
    // Fig. 7.1c/d: t0 leaves the loop B after one iteration, t1 after two.
    let src = "define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  br label %B
B:
  %x = phi i32 [ 0, %A ], [ %x.inc, %B ]
  %x.inc = add i32 %x, 1
  %c = icmp sle i32 %x.inc, %t
  br i1 %c, label %B, label %X
X:
  ret i32 %x.inc
}
";
    let m = module(src);
    let e = explore(&m, &config(2), &Bounds::default()).expect("explores");
    let pairs: Vec<(String, String)> = e
        .concurrent_next_blocks()
        .iter()
        .map(|c| {
            (
                e.name(c.blocks.0).to_string(),
                e.name(c.blocks.1).to_string(),
            )
        })
        .collect();
    assert_eq!(pairs, [("B".to_string(), "X".to_string())]);
    // X is never schedulable while t1 is still in the loop (Def. 17).
    assert!(e.concurrent_next_blocks_schedulable().is_empty());
    assert_eq!(e.loops.len(), 1);
    assert!(e.theorem_1_violations().is_empty());
    let witness = e.schedule_text(&e.concurrent_next_blocks()[0].witness);
    assert_eq!(witness, "A,B");
}
