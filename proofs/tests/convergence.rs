//! m-converged static instances behave converged (LLVM "Convergence and
//! Uniformity", "m-converged static instances" and "Static Uniformity Analysis"):
//! over generated reducible and irreducible programs, for every cycle hierarchy a
//! DFS can produce (`pllvm_analysis::cycles::all_hierarchies`) and every greedy
//! schedule (thesis Def. 12) of a bounded search, every block that the `llvm`
//! analysis calls m-converged for that hierarchy behaved m-converged: the maximal
//! converged-with relation of its dynamic instances is the same in every
//! hierarchy (`pllvm_interp::convergence`). The document: "The convergence
//! inferred using these criteria is a safe subset of the maximal converged-with
//! relation for any cycle hierarchy."
//!
//! Along the way every computed relation is checked against the definition of
//! maximal converged-with itself (`check_maximal_definition`: convergence-before is
//! a strict partial order and the relation is its own fixed point), and lock step
//! is compared with the relation of the documented DFS's hierarchy, whose
//! retreating edges are the back edges the greedy constraints use (Def. 15): in a
//! block `llvm` calls m-converged, lock step never ran instances together that the
//! relation keeps apart (what makes the analysis's uniform claims checkable
//! against lock-step runs, as `soundness.rs` does). It may run converged instances
//! apart: a greedy schedule can execute a loop exit for the lanes that left while
//! another lane is still in the loop (`cli/tests/convergence.rs` shows one), so
//! that direction is only counted.
//!
//! Since lock step groups the instances of those blocks as the relation does (in
//! every run here), the lanes of one lock-step instance are its converged
//! instances, and the observer of `soundness.rs` checks the document's uniformity
//! ("Uniformity": uniform iff equal for every pair of converged dynamic instances):
//! every value `llvm` calls uniform, for every hierarchy, is checked along every
//! explored schedule.
//!
//! A counterexample is a bug of `llvm`'s m-converged criterion or of the dynamic
//! computation, to understand and fix.

use pllvm_analysis::cycles::{CycleInfo, all_hierarchies};
use pllvm_analysis::llvm::analyze_with;
use pllvm_fuzz::{GenConfig, generate};
use pllvm_interp::convergence::{
    Threads, behaved_m_converged, check_maximal_definition, compare, convergence_before,
    llvm_m_converged, maximal_converged_with, relations,
};
use pllvm_interp::greedy::{GreedyFacts, legal_blocks, legality};
use pllvm_interp::soundness::{observe_run, unsound_claims};
use pllvm_interp::{Machine, RunConfig};
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::{Block, Module};
use pllvm_semantics::rules::step::lss_w_step;
use pllvm_semantics::rules::{Interp, Scratch, State};
use std::collections::BTreeSet;

/// One lock-step execution: the block and control mask of every step.
type Execution = Vec<(Block, Vec<bool>)>;

/// Every greedy schedule (Def. 12, with the termination-preservation search of
/// `pllvm_interp::greedy::legality`) from the initial state, depth first, lowest
/// legal block first; at most `max_runs` executions of at most `max_steps` steps
/// (a longer one is kept as its prefix: the relation of a prefix is the relation
/// restricted to it, since it only looks back). A step that ends the run
/// (undefined behaviour, a limit) ends the execution. The second result says
/// whether the search was exhaustive.
fn greedy_executions(
    module: &Module,
    config: &RunConfig,
    max_runs: usize,
    max_steps: usize,
) -> Result<(Vec<Execution>, bool), String> {
    let machine = Machine::new(module, config).map_err(|e| e.to_string())?;
    let program = &machine.program;
    let facts = GreedyFacts::compute(program)
        .with_interp(config.interp)
        .with_termination_budget(64);
    let mut out = Vec::new();
    let mut complete = true;
    let mut stack: Vec<(State, Execution)> = vec![(machine.state.clone(), Vec::new())];
    while let Some((state, path)) = stack.pop() {
        if out.len() >= max_runs {
            complete = false;
            break;
        }
        if state.all_done() {
            out.push(path);
            continue;
        }
        if path.len() >= max_steps {
            complete = false;
            out.push(path);
            continue;
        }
        let legal = legal_blocks(&legality(program, &facts, &state));
        if legal.is_empty() {
            out.push(path);
            continue;
        }
        for &b in legal.iter().rev() {
            let mut next = state.clone();
            let mut longer = path.clone();
            let mut scratch = Scratch::default();
            let step = lss_w_step(
                program,
                config.interp,
                config.exec,
                b,
                &mut next,
                &mut scratch,
                false,
            );
            match step {
                Ok(step) => {
                    longer.push((b, step.cmask));
                    stack.push((next, longer));
                }
                Err(_) => out.push(longer),
            }
        }
    }
    Ok((out, complete))
}

/// What the sweep saw.
#[derive(Debug, Default)]
struct Tally {
    programs: usize,
    irreducible: usize,
    hierarchies: usize,
    executions: usize,
    exhaustive: usize,
    /// (block, execution) pairs `llvm` calls m-converged for some hierarchy.
    claims: usize,
    /// Executed blocks that did not behave m-converged.
    not_m_converged: usize,
    /// m-converged claims where lock step ran exactly the converged instances
    /// together / joined non-converged ones / split converged ones.
    lock_step_same: usize,
    lock_step_joined: usize,
    lock_step_split: usize,
    /// Blocks (any) where lock step joined instances the documented hierarchy
    /// does not converge.
    joined_anywhere: usize,
    /// (execution, hierarchy) pairs whose `llvm` uniform claims were observed.
    observed: usize,
    /// Executed blocks that did not behave m-converged, by which hierarchy's
    /// relation lock step realized on them: the documented DFS's, only another
    /// one, none.
    realized_documented: usize,
    realized_other: usize,
    realized_none: usize,
}

/// The property for one program and one input; adds to `tally`.
fn check(config: &GenConfig, seed: u64, width: usize, tally: &mut Tally) -> Result<(), String> {
    let g = generate(seed, config);
    let Some(body) = g.module.functions[g.func].body.as_ref() else {
        return Err("@kernel has no body".into());
    };
    let cfg = Cfg::new(body);
    tally.programs += 1;
    tally.irreducible += usize::from(!cfg.is_reducible());
    let (all, _) = all_hierarchies(cfg.graph(), cfg.entry().as_u32(), 200);
    tally.hierarchies += all.len();
    let init = g.init_shapes();
    let claims: Vec<BTreeSet<Block>> = all
        .iter()
        .map(|h: &CycleInfo| llvm_m_converged(&g.module, g.func, &init, h.clone()))
        .collect::<Result<_, _>>()?;
    let analyses: Vec<_> = all
        .iter()
        .map(|h| analyze_with(&g.module, g.func, body, &init, h.clone()))
        .collect();
    let run = g.run_config(&g.inputs(seed, width), Interp::Freezing);
    let (executions, complete) = greedy_executions(&g.module, &run, 24, 400)?;
    tally.exhaustive += usize::from(complete);
    for (k, execution) in executions.iter().enumerate() {
        tally.executions += 1;
        let threads = Threads::from_steps(width, execution.iter().map(|(b, m)| (*b, m.as_slice())));
        let rels = relations(&threads, &all);
        for (h, rel) in all.iter().zip(&rels) {
            let order = convergence_before(&threads, rel);
            check_maximal_definition(&threads, h, rel, &order)
                .map_err(|e| format!("execution {k}: {e}"))?;
        }
        // The values: every uniform claim, along this schedule.
        let mut replay = run.clone();
        replay.schedule = Some(
            execution
                .iter()
                .map(|(b, _)| body.blocks[*b].name.clone())
                .collect(),
        );
        let obs = observe_run(&g.module, &replay)?;
        for (h, r) in analyses.iter().enumerate() {
            tally.observed += 1;
            let wrong = unsound_claims(r, body, &obs);
            if !wrong.is_empty() {
                return Err(format!(
                    "execution {k}, hierarchy {h}: llvm calls {} uniform\n{}",
                    wrong.join("; "),
                    pllvm_semantics::text::print_module(&g.module)
                ));
            }
        }
        let behaved = behaved_m_converged(&threads, &rels);
        tally.not_m_converged += behaved.values().filter(|m| !**m).count();
        for (h, claimed) in claims.iter().enumerate() {
            for b in claimed {
                if behaved.get(b) == Some(&false) {
                    let names: Vec<String> = all
                        .iter()
                        .map(|h| pllvm_interp::convergence::header_names(body, h).join(","))
                        .collect();
                    return Err(format!(
                        "execution {k}: llvm calls {} m-converged for the hierarchy with headers [{}], but its instances are related differently by the hierarchies [{}]\n{}",
                        body.blocks[*b].name,
                        names[h],
                        names.join("] ["),
                        pllvm_semantics::text::print_module(&g.module)
                    ));
                }
            }
        }
        let per_hierarchy: Vec<Vec<bool>> = (0..rels.len())
            .map(|at| {
                compare(&threads, &rels, at, None)
                    .iter()
                    .map(|r| r.lock_step_agrees())
                    .collect()
            })
            .collect();
        for (i, (_, m)) in behaved.iter().enumerate() {
            if *m {
                continue;
            }
            if per_hierarchy[0][i] {
                tally.realized_documented += 1;
            } else if per_hierarchy.iter().any(|row| row[i]) {
                tally.realized_other += 1;
            } else {
                tally.realized_none += 1;
            }
        }
        let documented = &claims[0];
        for row in compare(&threads, &rels, 0, Some(documented)) {
            tally.joined_anywhere += usize::from(row.joined_not_converged.is_some());
            if row.llvm_m_converged != Some(true) {
                continue;
            }
            tally.claims += 1;
            match (row.joined_not_converged, row.converged_not_joined) {
                (None, None) => tally.lock_step_same += 1,
                (Some(_), _) => tally.lock_step_joined += 1,
                (None, Some(_)) => tally.lock_step_split += 1,
            }
        }
    }
    Ok(())
}

fn sweep(config: &GenConfig, seeds: std::ops::Range<u64>) -> Tally {
    let mut tally = Tally::default();
    for seed in seeds {
        let width = 2 + (seed % 2) as usize;
        if let Err(why) = check(config, seed, width, &mut tally) {
            panic!("seed {seed}, W = {width}: {why}");
        }
    }
    eprintln!("{tally:?}");
    assert_eq!(
        tally.lock_step_joined, 0,
        "lock step joined non-converged instances of an m-converged block: {tally:?}"
    );
    tally
}

#[test]
fn m_converged_blocks_behave_converged_on_small_irreducible_programs() {
    let tally = sweep(&GenConfig::small(), 0..200);
    assert!(tally.irreducible >= 5, "{tally:?}");
    assert!(tally.hierarchies > tally.programs, "{tally:?}");
    assert!(tally.claims > 1000, "{tally:?}");
    // The property can fail: some executed blocks did not behave m-converged.
    assert!(tally.not_m_converged > 0, "{tally:?}");
}

#[test]
fn m_converged_blocks_behave_converged_on_small_reducible_programs() {
    let config = GenConfig {
        irreducible: false,
        ..GenConfig::small()
    };
    let tally = sweep(&config, 0..150);
    assert_eq!(tally.irreducible, 0);
    assert!(tally.claims > 1000, "{tally:?}");
}

/// The irreducible programs of the sweep, on their own, with every hierarchy.
#[test]
fn m_converged_blocks_behave_converged_on_irreducible_programs_only() {
    let mut tally = Tally::default();
    let mut seed = 0u64;
    while tally.irreducible < 80 && seed < 5000 {
        let config = if seed.is_multiple_of(2) {
            GenConfig::small()
        } else {
            GenConfig::full()
        };
        let g = generate(seed, &config);
        let irreducible = g.module.functions[g.func]
            .body
            .as_ref()
            .is_some_and(|b| !Cfg::new(b).is_reducible());
        if irreducible {
            let width = 2 + (seed % 2) as usize;
            if let Err(why) = check(&config, seed, width, &mut tally) {
                panic!("seed {seed}, W = {width}: {why}");
            }
        }
        seed += 1;
    }
    eprintln!("{tally:?}");
    assert_eq!(tally.lock_step_joined, 0, "{tally:?}");
    // Outside m-converged blocks lock step does join instances the documented
    // hierarchy keeps apart (corpus/divergence/llvm-diverged-paths-reaching-cycle.ll).
    assert!(tally.joined_anywhere > 0, "{tally:?}");
    assert!(tally.irreducible >= 80, "{tally:?}");
    assert!(tally.hierarchies > tally.programs, "{tally:?}");
}

/// The maximal converged-with relation of the document's closed-path example,
/// computed from a greedy lock-step run: the search above reaches it.
#[test]
fn the_search_enumerates_greedy_schedules() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../corpus/divergence/llvm-diverged-paths-reaching-cycle.ll"
    ))
    .unwrap_or_default();
    let Ok((module, _)) = pllvm_semantics::text::parse_module(&src) else {
        panic!("the corpus file parses");
    };
    let config = RunConfig {
        threads: 2,
        ..RunConfig::default()
    };
    let (runs, complete) = greedy_executions(&module, &config, 100, 100).unwrap_or_default();
    assert!(complete);
    assert!(!runs.is_empty());
    let func = module
        .first_definition()
        .unwrap_or_else(|| panic!("a function"));
    let Some(body) = module.functions[func].body.as_ref() else {
        panic!("a body");
    };
    for run in &runs {
        let threads = Threads::from_steps(2, run.iter().map(|(b, m)| (*b, m.as_slice())));
        let names: Vec<Vec<&str>> = threads
            .blocks
            .iter()
            .map(|s| s.iter().map(|&b| body.blocks[b].name.as_str()).collect())
            .collect();
        // FR, no horizontal operation: the lanes' paths do not depend on the
        // schedule.
        assert_eq!(
            names[0],
            ["Entry", "P", "Q", "R", "S", "P", "Q", "S", "Exit"]
        );
        let h = CycleInfo::compute(body);
        let rel = maximal_converged_with(&threads, &h);
        let order = convergence_before(&threads, &rel);
        assert!(check_maximal_definition(&threads, &h, &rel, &order).is_ok());
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// The same property for random seeds and up to four lanes.
    #[test]
    fn m_converged_blocks_behave_converged_on_random_programs(
        seed in proptest::prelude::any::<u64>(),
        width in 2usize..=4,
        full in proptest::prelude::any::<bool>(),
    ) {
        let config = if full { GenConfig::full() } else { GenConfig::small() };
        let mut tally = Tally::default();
        if let Err(why) = check(&config, seed, width, &mut tally) {
            proptest::prop_assert!(false, "seed {seed}, W = {width}: {why}");
        }
        proptest::prop_assert_eq!(tally.lock_step_joined, 0, "seed {}: {:?}", seed, tally);
    }
}
