//! Schedule independence of loop-free programs (thesis Ch. 5, Def. 12-18; the
//! reading of Def. 17 in semantics/RULES.md, "Readings", 3): on every generated
//! acyclic program ([`GenConfig::acyclic`]: no cycles, predicated blocks that may
//! branch, no lane reading another lane's writes), exhaustive exploration of the
//! greedy schedules (`pllvm_interp::explore`) finds exactly one outcome, and it is
//! `returned` (the generator's programs have no undefined behaviour under FR).
//!
//! Why one outcome is owed: without cycles, a synchronizing schedule runs each
//! block at most once, with every lane whose path passes it (a lane waiting at a
//! block that reaches the scheduled one blocks it, Def. 17), so each block sees
//! the same activation, the same operands and the same memory in every greedy
//! order. The one choice left is [PC-ND-BRANCH]'s: a lane with ℓ_next = ⊤
//! accepts every successor of its ℓ_in. The generated predicated branches are
//! if-thens (`%then -> %join`), where Def. 17 read over every lane leaves only
//! `%then`; the reading in force before (only the lanes left behind count) also
//! accepted `%join` and gave two outcomes. The test counts the explored states in
//! which an unguided ⊤ lane accepts two blocks, and fails if none is met, so the
//! case stays covered.
//!
//! Widths 2-4 by seed, FR; the case count keeps the test to seconds on 2 cores.

use pllvm_fuzz::{GenConfig, generate};
use pllvm_interp::explore::{Bounds, Order, explore_with};
use pllvm_interp::greedy::guides;
use pllvm_semantics::ir::Terminator;
use pllvm_semantics::rules::{Interp, Next};

const SEEDS: u64 = 1500;

const BOUNDS: Bounds = Bounds {
    max_states: 20_000,
    max_steps: 200,
    order: Order::Lowest,
};

/// What the sweep met.
#[derive(Debug, Default)]
struct Counts {
    explorations: usize,
    /// Explorations in which some state had two or more legal steps.
    with_choice: usize,
    /// Programs with a predicated block that ends in a conditional branch.
    predicated_branches: usize,
    /// Explored states where a lane with ℓ_next = ⊤ and an empty guide set
    /// (Def. 13) accepts two or more blocks: where Def. 17's reading decides.
    undecided_top_lanes: usize,
    transitions: usize,
}

#[test]
fn every_acyclic_program_has_one_greedy_outcome() {
    let config = GenConfig::acyclic();
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    for seed in 0..SEEDS {
        let g = generate(seed, &config);
        let body = g.module.functions[g.func]
            .body
            .as_ref()
            .expect("generated functions have bodies");
        assert!(
            pllvm_semantics::cfg::Cfg::new(body)
                .retreating_edges()
                .is_empty(),
            "seed {seed}: the acyclic configuration made a cycle"
        );
        if body
            .blocks
            .iter()
            .any(|(_, b)| b.predicate.is_some() && matches!(b.term, Terminator::CondBr { .. }))
        {
            counts.predicated_branches += 1;
        }
        let width = 2 + (seed % 3) as usize;
        let run = g.run_config(&g.inputs(seed ^ 0x5eed, width), Interp::Freezing);
        let mut undecided = 0usize;
        let mut transitions = 0usize;
        let mut out_degree = std::collections::BTreeMap::<u32, usize>::new();
        let explored = explore_with(&g.module, &run, &BOUNDS, &mut |t| {
            transitions += 1;
            *out_degree.entry(t.from).or_default() += 1;
            if !t.first_visit {
                return;
            }
            let s = t.after;
            let open = (0..s.next.len()).any(|lane| match (&s.next[lane], s.incoming[lane]) {
                (Next::Any, Some(from)) => {
                    let mut succs = t.program.succs[from].clone();
                    succs.sort_unstable();
                    succs.dedup();
                    succs.len() >= 2 && guides(s, lane).is_empty()
                }
                _ => false,
            });
            undecided += usize::from(open);
        });
        counts.explorations += 1;
        counts.transitions += transitions;
        counts.undecided_top_lanes += undecided;
        counts.with_choice += usize::from(out_degree.values().any(|&d| d >= 2));
        let e = match explored {
            Ok(e) => e,
            Err(e) => {
                failures.push(format!("seed {seed}, W = {width}: {e}"));
                continue;
            }
        };
        let endings: Vec<String> = e.outcome_lines();
        let one_return = e.truncated.is_none()
            && e.outcomes.len() == 1
            && e.outcomes[0].ending == "returned"
            && e.schedule_independent();
        if !one_return {
            failures.push(format!(
                "seed {seed}, W = {width}: truncated {:?}, outcomes {endings:?}\n{}",
                e.truncated,
                pllvm_semantics::text::print_module(&g.module)
            ));
        }
    }
    eprintln!("{counts:?}");
    assert!(
        failures.is_empty(),
        "{} of {} programs have other than one greedy outcome; the first:\n{}",
        failures.len(),
        SEEDS,
        failures.first().map_or("", String::as_str)
    );
    // The sweep must meet the cases it is about.
    assert!(
        counts.predicated_branches > SEEDS as usize / 10,
        "{counts:?}"
    );
    assert!(counts.undecided_top_lanes > 10, "{counts:?}");
    assert!(counts.with_choice > SEEDS as usize / 10, "{counts:?}");
}
