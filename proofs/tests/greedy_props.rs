//! Greedy schedules (thesis Ch. 5) and Theorem 1 (Ch. 7) over generated programs
//! (`pllvm_fuzz::generate`), W = 2..4, small programs, bounded exploration:
//!
//! - every greedy policy (lowest, highest, random, replay) produces only greedy
//!   schedules (Def. 12), checked again by replaying each schedule through the
//!   constraint checker, and ends in an outcome that exhaustive exploration found;
//! - the IPD stack policy is reported consistently: the steps its run reports are
//!   exactly the steps a replay of its schedule reports;
//! - every greedy schedule terminates (the generator makes every lane's own path
//!   finite): exploration finds an end, no cycle among the reachable states, no
//!   state where nothing can be scheduled, nothing ruled out by §5.3;
//! - exploration finds the same outcomes and the same concurrent next blocks
//!   (Def. 20) whether successors are generated lowest-index first or in a seeded
//!   random order;
//! - Theorem 1 holds on every explored state: no loop header is concurrent next
//!   with another block of its loop.

use pllvm_fuzz::{GenConfig, Generated, generate};
use pllvm_interp::explore::{Bounds, Exploration, Order, explore};
use pllvm_interp::greedy::GreedyFacts;
use pllvm_interp::sched::{Highest, Ipd, Lowest, Random, Replay, Scheduler};
use pllvm_interp::{Machine, Outcome, RunConfig};
use pllvm_semantics::rules::Interp;
use std::collections::BTreeSet;

/// Programs small enough to explore for four lanes.
fn small() -> GenConfig {
    GenConfig {
        max_blocks: 14,
        max_loop_depth: 2,
        max_trip_count: 3,
        max_insts_per_block: 2,
        floats: false,
        wide_ints: false,
        ..GenConfig::small()
    }
}

const SEEDS: u64 = 200;
const BOUNDS: Bounds = Bounds {
    max_states: 20_000,
    max_steps: 400,
    order: Order::Lowest,
};

fn run_config(g: &Generated, width: usize, seed: u64) -> RunConfig {
    let mut cfg = g.run_config(&g.inputs(seed, width), Interp::Freezing);
    cfg.max_steps = 100_000;
    cfg
}

/// The cases: (seed, W, generated program, run configuration).
fn cases(config: &GenConfig) -> impl Iterator<Item = (u64, usize, Generated, RunConfig)> + '_ {
    (0..SEEDS).map(move |seed| {
        let width = 2 + (seed % 3) as usize;
        let g = generate(seed, config);
        let cfg = run_config(&g, width, seed);
        (seed, width, g, cfg)
    })
}

/// An outcome as exploration keys it: results and memory as text.
fn key_of(results: String, memory: Vec<(String, String)>) -> String {
    let mem: Vec<String> = memory.iter().map(|(g, c)| format!("{g}={c}")).collect();
    format!("{results} {}", mem.join(" "))
}

fn outcome_keys(e: &Exploration) -> BTreeSet<String> {
    e.outcomes
        .iter()
        .filter(|o| o.ending == "returned")
        .map(|o| key_of(o.result_text.clone(), o.memory.clone()))
        .collect()
}

fn machine_key(g: &Generated, m: &Machine<'_>) -> String {
    let memory = g
        .module
        .globals
        .iter()
        .filter_map(|(gid, data)| {
            let o = m.global_pointer(gid)?.object?;
            let elem = pllvm_interp::machine::element_type(&g.module.types, data.ty);
            Some((
                format!("@{}", data.name),
                m.state.mem.dump_object(o, &g.module.types, elem),
            ))
        })
        .collect();
    key_of(m.result_text(), memory)
}

#[test]
fn every_policy_produces_greedy_schedules() {
    let mut explored = 0;
    for (seed, width, g, cfg) in cases(&small()) {
        let e = explore(&g.module, &cfg, &BOUNDS).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let known = e.truncated.is_none().then(|| outcome_keys(&e));
        explored += usize::from(known.is_some());
        let policies: Vec<Box<dyn Scheduler>> = vec![
            Box::new(Lowest),
            Box::new(Highest),
            Box::new(Random::new(seed)),
            Box::new(Random::new(seed ^ 0xfeed)),
        ];
        let mut lowest_schedule = Vec::new();
        for mut policy in policies {
            let name = policy.name();
            let mut m = Machine::new(&g.module, &cfg).expect("setup");
            let run = m.run_with(policy.as_mut()).expect("runs");
            let what = format!("seed {seed}, W = {width}, {name}");
            assert_eq!(run.outcome, Outcome::Returned, "{what}");
            let v: Vec<String> = run
                .violations
                .iter()
                .map(|v| v.render(&m.program))
                .collect();
            assert!(v.is_empty(), "{what}: {v:?}");
            if let Some(known) = &known {
                let key = machine_key(&g, &m);
                assert!(known.contains(&key), "{what}: {key} not among {known:?}");
            }
            // Independently: the schedule replayed through the checker is greedy
            // and gives the same results.
            let names: Vec<String> = run
                .schedule
                .iter()
                .map(|&b| m.program.block_name(b).to_string())
                .collect();
            let mut again = Machine::new(&g.module, &cfg).expect("setup");
            let check = again.run_schedule_checked(&names).expect("replays");
            assert!(
                check.violations.is_empty(),
                "{what}: replay finds a violation"
            );
            assert_eq!(again.result_text(), m.result_text(), "{what}");
            if name == "lowest" {
                lowest_schedule = names;
            }
        }
        // Replay of the lowest schedule, through the Replay policy.
        let mut m = Machine::new(&g.module, &cfg).expect("setup");
        let mut replay =
            Replay::parse(&m.program, &lowest_schedule.join(","), "lowest").expect("names resolve");
        let run = m.run_with(&mut replay).expect("runs");
        assert_eq!(run.outcome, Outcome::Returned, "seed {seed}: replay");
        assert!(run.violations.is_empty(), "seed {seed}: replay");
    }
    assert!(
        explored >= SEEDS as usize / 2,
        "only {explored} explorations finished"
    );
}

#[test]
fn ipd_violations_are_reported_consistently() {
    for (seed, width, g, cfg) in cases(&small()) {
        let mut m = Machine::new(&g.module, &cfg).expect("setup");
        let run = m.run_with(&mut Ipd::new()).expect("runs");
        let what = format!("seed {seed}, W = {width}, ipd");
        let names: Vec<String> = run
            .schedule
            .iter()
            .map(|&b| m.program.block_name(b).to_string())
            .collect();
        let mut again = Machine::new(&g.module, &cfg).expect("setup");
        let check = again.run_schedule_checked(&names).expect("replays");
        let steps = |v: &[pllvm_interp::run::StepViolation]| {
            v.iter()
                .map(|x| (x.step, x.legality.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(steps(&run.violations), steps(&check.violations), "{what}");
        assert_eq!(run.outcome, check.outcome, "{what}");
    }
}

#[test]
fn every_greedy_schedule_terminates() {
    for (seed, width, g, cfg) in cases(&small()) {
        let e = explore(&g.module, &cfg, &BOUNDS).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        if e.truncated.is_some() {
            continue;
        }
        let what = format!("seed {seed}, W = {width}");
        assert_eq!(e.can_terminate, Some(true), "{what}");
        assert!(!e.spins, "{what}: a greedy schedule can run forever");
        assert_eq!(e.pruned, 0, "{what}: §5.3 had to rule out a step");
        for o in &e.outcomes {
            assert_eq!(
                o.ending,
                "returned",
                "{what}: witness {}",
                e.schedule_text(&o.witness)
            );
        }
    }
}

#[test]
fn exploration_order_does_not_change_outcomes_or_cnb() {
    for (seed, width, g, cfg) in cases(&small()) {
        let lowest = explore(&g.module, &cfg, &BOUNDS).expect("explores");
        let random = explore(
            &g.module,
            &cfg,
            &Bounds {
                order: Order::Random(seed),
                ..BOUNDS
            },
        )
        .expect("explores");
        if lowest.truncated.is_some() || random.truncated.is_some() {
            continue;
        }
        let what = format!("seed {seed}, W = {width}");
        assert_eq!(lowest.states, random.states, "{what}");
        assert_eq!(outcome_keys(&lowest), outcome_keys(&random), "{what}");
        let pairs = |e: &Exploration| {
            e.concurrent_next_blocks()
                .iter()
                .map(|c| c.blocks)
                .collect::<Vec<_>>()
        };
        assert_eq!(pairs(&lowest), pairs(&random), "{what}");
    }
}

#[test]
fn theorem_1_holds_on_every_explored_state() {
    let configs = [
        ("small", small()),
        (
            "reducible",
            GenConfig {
                irreducible: false,
                max_loop_depth: 3,
                ..small()
            },
        ),
    ];
    let mut loops_seen = 0;
    for (name, config) in &configs {
        for (seed, width, g, cfg) in cases(config) {
            let e = explore(&g.module, &cfg, &BOUNDS).expect("explores");
            loops_seen += e.loops.len();
            let v: Vec<String> = e
                .theorem_1_violations()
                .iter()
                .map(|v| {
                    format!(
                        "{} with {} after {}",
                        e.name(v.header),
                        e.name(v.other),
                        e.schedule_text(&v.witness)
                    )
                })
                .collect();
            assert!(v.is_empty(), "{name}: seed {seed}, W = {width}: {v:?}");
        }
    }
    assert!(
        loops_seen > 0,
        "the generated programs had no loops to check"
    );
}

#[test]
fn legality_agrees_with_the_candidates_it_explains() {
    // In every state of a lowest run, the legal blocks of the explanation are the
    // blocks that make progress and synchronize (§5.3 rules out nothing in these
    // terminating programs), and every illegal block names a definition.
    for (seed, _, g, cfg) in cases(&small()).take(20) {
        let mut m = Machine::new(&g.module, &cfg).expect("setup");
        let facts = GreedyFacts::compute(&m.program);
        while !m.state.all_done() {
            let verdicts = pllvm_interp::greedy::legality(&m.program, &facts, &m.state);
            let legal = pllvm_interp::greedy::legal_blocks(&verdicts);
            assert_eq!(
                legal,
                pllvm_interp::greedy::candidates(&m.program, &facts, &m.state),
                "seed {seed}"
            );
            let Some(b) = Lowest.pick(&m.program, &facts, &m.state, &legal) else {
                panic!("seed {seed}: nothing legal before the end")
            };
            assert!(m.checked_step(b).expect("steps").is_none(), "seed {seed}");
        }
    }
}
