//! The greedy-schedule constraints of thesis Ch. 5 (Def. 13-18, §5.3) and the
//! legality explanation, on small hand-written programs: which blocks are legal in
//! a state, which definition each other block violates, the witness lane and the
//! words.

use pllvm_interp::greedy::{self, GreedyFacts, Legality, Verdict};
use pllvm_interp::{Machine, RunConfig};
use pllvm_semantics::ir::Module;

/// The diamond of Fig. 5.4: t0 goes A -> B -> D, t1 goes A -> C -> D.
const DIAMOND: &str = "define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %p = icmp eq i32 %t, 0
  br i1 %p, label %B, label %C
B:
  br label %D
C:
  br label %D
D:
  ret i32 0
}
";

/// Fig. 5.2: A predicated by p = [1, 0], a uniform branch to B or C.
const UNIFORM: &str = "define i32 @f() {
entry:
  %t = call i32 @pllvm.thread_id()
  %p = icmp eq i32 %t, 0
  br label %A
A:
  predicate %p
  br i1 true, label %B, label %C
B:
  br label %D
C:
  br label %D
D:
  ret i32 0
}
";

/// A loop H -> B -> H with exit X taken by t0 after one iteration, t1 after two.
const LOOP: &str = "define i32 @f() {
E:
  %t = call i32 @pllvm.thread_id()
  br label %H
H:
  %i = phi i32 [ 0, %E ], [ %n, %B ]
  %n = add i32 %i, 1
  br label %B
B:
  %c = icmp sle i32 %n, %t
  br i1 %c, label %H, label %X
X:
  ret i32 %n
}
";

fn module(src: &str) -> Module {
    pllvm_semantics::text::parse_module(src)
        .expect("the test program parses")
        .0
}

/// The verdicts after running `prefix`, rendered `name: verdict`.
fn check(src: &str, width: usize, prefix: &[&str], expect: &[&str]) {
    let m = module(src);
    let config = RunConfig {
        threads: width,
        ..Default::default()
    };
    let mut machine = Machine::new(&m, &config).expect("setup");
    let names: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
    machine.run_schedule(&names).expect("the prefix runs");
    let facts = GreedyFacts::compute(&machine.program);
    let got: Vec<String> = greedy::legality(&machine.program, &facts, &machine.state)
        .iter()
        .map(|l| l.render(&machine.program))
        .collect();
    let want: Vec<String> = expect.iter().map(|s| s.to_string()).collect();
    assert_eq!(got, want, "after {prefix:?}");
}

#[test]
fn fig5_4_sync_names_the_waiting_lane() {
    check(
        DIAMOND,
        2,
        &["A", "B"],
        &[
            "A: no progress (Def. 14): no lane's control mask is set for A (stalling)",
            "B: no progress (Def. 14): no lane's control mask is set for B (stalling)",
            "C: legal",
            "D: not synchronizing (Def. 17): lane 1 waits at C, C reaches D without a back edge",
        ],
    );
}

#[test]
fn fig5_2_guide_sets_block_the_other_side() {
    check(
        UNIFORM,
        2,
        &["entry", "A"],
        &[
            "entry: no progress (Def. 14): no lane's control mask is set for entry (stalling)",
            "A: no progress (Def. 14): no lane's control mask is set for A (stalling)",
            "B: legal",
            "C: no progress (Def. 14): no lane has next = C, and lane 1 (in A) has guide set {B} (Def. 13)",
            "D: no progress (Def. 14): no lane's control mask is set for D (stalling)",
        ],
    );
}

#[test]
fn guide_sets_follow_def_13() {
    let m = module(UNIFORM);
    let mut machine = Machine::new(&m, &RunConfig::default()).expect("setup");
    machine
        .run_schedule(&["entry".into(), "A".into()])
        .expect("runs");
    let b = machine.program.body.block_by_name("B").expect("B");
    // Both lanes came from A; only t0 branched actively (to B).
    assert_eq!(greedy::guides(&machine.state, 0), vec![b]);
    assert_eq!(greedy::guides(&machine.state, 1), vec![b]);
    // Initially both lanes have ℓ_in = ⊥ and next = entry.
    let fresh = Machine::new(&m, &RunConfig::default()).expect("setup");
    let entry = fresh.program.body.block_by_name("entry").expect("entry");
    assert_eq!(greedy::guides(&fresh.state, 1), vec![entry]);
}

#[test]
fn a_lane_at_the_header_does_not_block_the_latch_over_a_back_edge() {
    // After E, H, B: t0 (t = 0) leaves to X, t1 loops to H. X: t1 waits at H, and
    // H reaches X without a back edge (H -> B -> X): not synchronizing. H: t0 waits
    // at X, X reaches nothing: legal.
    check(
        LOOP,
        2,
        &["E", "H", "B"],
        &[
            "E: no progress (Def. 14): no lane's control mask is set for E (stalling)",
            "H: legal",
            "B: no progress (Def. 14): no lane's control mask is set for B (stalling)",
            "X: not synchronizing (Def. 17): lane 1 waits at H, H reaches X without a back edge",
        ],
    );
}

#[test]
fn terminated_lanes_leave_nothing_legal() {
    let m = module(DIAMOND);
    let mut machine = Machine::new(&m, &RunConfig::default()).expect("setup");
    machine
        .run_schedule(&["A".into(), "B".into(), "C".into(), "D".into()])
        .expect("runs");
    let facts = GreedyFacts::compute(&machine.program);
    let verdicts = greedy::legality(&machine.program, &facts, &machine.state);
    assert!(greedy::legal_blocks(&verdicts).is_empty());
    assert!(verdicts.iter().all(|l| matches!(
        &l.verdict,
        Verdict::Illegal { definition: "Def. 14", lane: None, why } if why.starts_with("every lane has terminated")
    )));
}

#[test]
fn facts_follow_the_cfg() {
    let m = module(LOOP);
    let machine = Machine::new(&m, &RunConfig::default()).expect("setup");
    let p = &machine.program;
    let facts = GreedyFacts::compute(p);
    let b = |n: &str| p.body.block_by_name(n).expect("block");
    assert_eq!(facts.back_edges, vec![(b("B"), b("H"))]);
    assert!(facts.is_back_edge(b("B"), b("H")));
    // Def. 16: H reaches B and X forward, B does not reach H forward.
    assert!(facts.forward_reaches(b("H"), b("X")));
    assert!(!facts.forward_reaches(b("B"), b("H")));
    assert!(!facts.forward_reaches(b("X"), b("X")));
    assert_eq!(facts.fwdreaching(b("B")), &[b("E"), b("H")]);
    // §2.5: E, H, B, X is the only topological order.
    let order: Vec<u32> = ["E", "H", "B", "X"]
        .iter()
        .map(|n| facts.index_of(b(n)))
        .collect();
    assert_eq!(order, vec![0, 1, 2, 3]);
    let lp = facts.loop_of_header(b("H")).expect("H heads a loop");
    assert_eq!(lp.latches, vec![b("B")]);
    assert!(lp.contains(b("B")) && !lp.contains(b("X")));
    assert_eq!(facts.ipdom[b("H").as_u32() as usize], Some(b("B")));
    assert_eq!(facts.ipdom[b("X").as_u32() as usize], None);
}

#[test]
fn irreducible_back_edges_are_the_documented_dfs_retreating_edges() {
    // E -> {P, Q}, P <-> Q: the DFS visits P first (successor 0), so Q -> P is the
    // retreating edge, and P -> Q is forward.
    let src = "define i32 @f(i1 %c, i1 %d) {
E:
  br i1 %c, label %P, label %Q
P:
  br i1 %d, label %Q, label %R
Q:
  br i1 %d, label %P, label %R
R:
  ret i32 0
}
";
    let m = module(src);
    let machine = Machine::new(&m, &RunConfig::default()).expect("setup");
    let p = &machine.program;
    let facts = GreedyFacts::compute(p);
    let b = |n: &str| p.body.block_by_name(n).expect("block");
    assert!(!facts.reducible);
    assert_eq!(facts.back_edges, vec![(b("Q"), b("P"))]);
    assert!(facts.forward_reaches(b("P"), b("Q")));
    assert!(!facts.forward_reaches(b("Q"), b("P")));
}

#[test]
fn termination_preservation_rules_out_a_doomed_step() {
    // B is passive in both lanes (predicate false): they leave with next = ⊤ and
    // accept L (an endless loop) and D. After L no schedule ends; after D all do.
    let doomed = "define i32 @f() {
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
    let m = module(doomed);
    let mut machine = Machine::new(&m, &RunConfig::default()).expect("setup");
    machine
        .run_schedule(&["A".into(), "B".into()])
        .expect("runs");
    let facts = GreedyFacts::compute(&machine.program);
    let verdicts = greedy::legality(&machine.program, &facts, &machine.state);
    let get = |n: &str| -> &Legality {
        verdicts
            .iter()
            .find(|l| machine.program.block_name(l.block) == n)
            .expect("verdict")
    };
    assert!(get("D").is_legal());
    assert!(matches!(
        &get("L").verdict,
        Verdict::Illegal {
            definition: "§5.3",
            ..
        }
    ));
    // With the search turned off, only Def. 14 and 17 decide: L is legal again.
    let blind = facts.clone().with_termination_budget(0);
    let verdicts = greedy::legality(&machine.program, &blind, &machine.state);
    assert_eq!(greedy::legal_blocks(&verdicts).len(), 2);
    // A budget too small to see the whole spin counts as "may terminate".
    assert_eq!(
        greedy::can_terminate(&machine.program, &facts, &machine.state, 0),
        greedy::CanTerminate::Unknown
    );
    assert_eq!(
        greedy::can_terminate(&machine.program, &facts, &machine.state, 100),
        greedy::CanTerminate::Yes
    );
}
