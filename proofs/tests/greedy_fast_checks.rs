//! The fast greedy checks (thesis Ch. 5) equal their definitions on generated
//! programs:
//!
//! - `fwdreaching` (Def. 16) answered by query (`ForwardReach`: labels and a
//!   pruned search, linear space) equals the all-pairs fixpoint it replaced, for
//!   every pair of blocks, reducible and irreducible CFGs;
//! - termination preservation (§5.3) with its shortcut
//!   (`greedy::termination_preserving`: no search when no lane can reach a back
//!   edge or a predicated block) equals the bounded search of every candidate
//!   (`greedy::termination_preserving_reference`), in every state of runs under
//!   random greedy and non-greedy choices, W = 2..4, FR and OBL;
//! - the legality of the pending blocks (`greedy::pending_legality`) is the
//!   legality of every block (`greedy::legality`) restricted to them, and every
//!   other block is illegal by Def. 14;
//! - the lowest path kept from step to step (`lowest_path::LowestPath`) answers every
//!   question as `greedy::lowest_path_escapes` does afresh, with budgets small
//!   enough for its window to fill and slide;
//! - a run with the `lowest` policy, checked along that path (`run::run_with`),
//!   schedules, ends and reports exactly as the same run with every pending
//!   block checked in full at every step (`run::run_with_reference`), and its
//!   §5.3 work per step does not grow with the length of the run.

use pllvm_analysis::{BlockSet, ForwardReach};
use pllvm_fuzz::{GenConfig, Generated, generate};
use pllvm_interp::greedy::{
    self, GreedyFacts, candidates, legality, lowest_path_escapes, pending_legality,
    termination_preserving, termination_preserving_reference,
};
use pllvm_interp::lowest_path::LowestPath;
use pllvm_interp::run::{run_with, run_with_reference};
use pllvm_interp::sched::Lowest;
use pllvm_interp::{Machine, RunConfig};
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::{Block, Body};
use pllvm_semantics::rules::Interp;
use proptest::prelude::*;

/// `fwdreaching(z)` for every `z` as the fixpoint over predecessors that the
/// all-pairs table computed (Def. 16).
fn all_pairs(body: &Body) -> Vec<BlockSet> {
    let cfg = Cfg::new(body);
    let len = cfg.len();
    let back_edges = cfg.retreating_edges();
    let mut sets = vec![BlockSet::with_capacity(len); len];
    let mut changed = true;
    while changed {
        changed = false;
        for z in (0..len as u32).map(Block::from_u32) {
            for &p in cfg.preds(z) {
                if back_edges.binary_search(&(p, z)).is_ok() {
                    continue;
                }
                let mut incoming = sets[p.as_u32() as usize].clone();
                incoming.insert(p);
                changed |= sets[z.as_u32() as usize].union_with(&incoming);
            }
        }
    }
    sets
}

/// Small programs; without `plain`, every feature (predicates, irreducible
/// cycles), with it no predicates and no loops, where the shortcut answers.
fn small(plain: bool) -> GenConfig {
    let base = GenConfig {
        max_blocks: 12,
        max_trip_count: 2,
        ..GenConfig::small()
    };
    if plain {
        GenConfig {
            predicates: false,
            self_predicates: false,
            max_loop_depth: 0,
            ..base
        }
    } else {
        base
    }
}

fn body_of(g: &Generated) -> &Body {
    g.module.functions[g.func]
        .body
        .as_ref()
        .expect("generated functions have bodies")
}

/// Runs `g` for `width` lanes with seeded choices among all pending blocks (legal
/// or not, so that non-greedy states are checked too, as a replayed schedule
/// reaches them) and compares the fast checks with their definitions in every
/// state. Returns how many states had two or more candidates, and how many of
/// those the shortcut answered (no lane can reach a loop or a predicate).
fn compare_along_a_run(
    g: &Generated,
    width: usize,
    seed: u64,
    interp: Interp,
) -> Result<(usize, usize), String> {
    let mut config: RunConfig = g.run_config(&g.inputs(seed, width), interp);
    config.max_steps = 10_000;
    let mut machine = Machine::new(&g.module, &config).map_err(|e| e.to_string())?;
    let facts = GreedyFacts::compute(&machine.program).with_interp(interp);
    let mut rng = pllvm_interp::sched::Random::new(seed);
    let (mut compared, mut shortcut) = (0, 0);
    for _ in 0..60 {
        if machine.state.all_done() {
            break;
        }
        let program = &machine.program;
        let state = &machine.state;
        let cands = candidates(program, &facts, state);
        let fast = termination_preserving(program, &facts, state, &cands);
        let reference = termination_preserving_reference(program, &facts, state, &cands);
        if fast != reference {
            return Err(format!(
                "§5.3 differs on {:?}: fast {fast:?}, reference {reference:?}",
                cands
            ));
        }
        compared += usize::from(cands.len() >= 2);
        shortcut += usize::from(cands.len() >= 2 && !facts.may_spin(state));
        let all = legality(program, &facts, state);
        let pending = pending_legality(program, &facts, state);
        for l in &all {
            match pending.iter().find(|p| p.block == l.block) {
                Some(p) if p != l => return Err(format!("legality differs: {p:?} vs {l:?}")),
                Some(_) => {}
                None if l.is_legal() => return Err(format!("{l:?} legal but not pending")),
                None => {}
            }
        }
        let legal = greedy::legal_blocks(&all);
        let choices = if legal.is_empty() || rng.next_u64().is_multiple_of(5) {
            pending.iter().map(|l| l.block).collect::<Vec<_>>()
        } else {
            legal
        };
        let Some(&b) = choices.get((rng.next_u64() % choices.len().max(1) as u64) as usize) else {
            break;
        };
        match machine.checked_step(b) {
            Ok(None) => {}
            Ok(Some(_)) | Err(_) => break,
        }
    }
    Ok((compared, shortcut))
}

/// Runs `g` with seeded choices that mostly take the lowest candidate (so the
/// kept path survives) and sometimes another pending block (so it is dropped),
/// asking the kept path and the fresh check about every candidate, the lowest
/// last. Returns how many answers came from a path kept across a step, and how
/// many answers were `false` (the path repeats a state or gets stuck).
fn kept_path_along_a_run(
    g: &Generated,
    width: usize,
    seed: u64,
    budget: usize,
) -> Result<(usize, usize), String> {
    let mut config: RunConfig = g.run_config(&g.inputs(seed, width), Interp::Freezing);
    config.max_steps = 10_000;
    let mut machine = Machine::new(&g.module, &config).map_err(|e| e.to_string())?;
    kept_path_on(&mut machine, seed, budget)
}

/// [`kept_path_along_a_run`] on a machine of any program.
fn kept_path_on(
    machine: &mut Machine<'_>,
    seed: u64,
    budget: usize,
) -> Result<(usize, usize), String> {
    let facts = GreedyFacts::compute(&machine.program).with_termination_budget(budget);
    let mut rng = pllvm_interp::sched::Random::new(seed);
    let mut path = LowestPath::new();
    let (mut kept, mut no) = (0, 0);
    for _ in 0..80 {
        if machine.state.all_done() {
            break;
        }
        let program = &machine.program;
        let state = &machine.state;
        let mut cands = candidates(program, &facts, state);
        cands.sort_by_key(|&b| std::cmp::Reverse(facts.index_of(b)));
        for &b in &cands {
            kept += usize::from(!path.is_empty());
            let fresh = lowest_path_escapes(program, &facts, state, b);
            let from_path = path.escapes(program, &facts, state, b);
            no += usize::from(!fresh);
            if fresh != from_path {
                return Err(format!(
                    "escapes({}) differs: kept path {from_path}, fresh {fresh}",
                    program.block_name(b)
                ));
            }
        }
        let pending = greedy::pending_blocks(program, state);
        let b = match cands.last() {
            Some(&lowest) if !rng.next_u64().is_multiple_of(6) => lowest,
            _ => match pending.get((rng.next_u64() % pending.len().max(1) as u64) as usize) {
                Some(&b) => b,
                None => break,
            },
        };
        path.advance(b);
        match machine.checked_step(b) {
            Ok(None) => {}
            Ok(Some(_)) | Err(_) => break,
        }
    }
    Ok((kept, no))
}

/// Runs `g` with `lowest` checked along the lowest path and with every block
/// checked in full; both must agree on everything a run reports.
fn lowest_run_against_reference(
    g: &Generated,
    width: usize,
    seed: u64,
    budget: usize,
    interp: Interp,
) -> Result<(), String> {
    let mut config: RunConfig = g.run_config(&g.inputs(seed, width), interp);
    config.max_steps = 2_000;
    let mut fast = Machine::new(&g.module, &config).map_err(|e| e.to_string())?;
    let mut reference = Machine::new(&g.module, &config).map_err(|e| e.to_string())?;
    let facts = GreedyFacts::compute(&fast.program)
        .with_interp(interp)
        .with_termination_budget(budget);
    let a = run_with(&mut fast, &facts, &mut Lowest).map_err(|e| e.to_string())?;
    let b = run_with_reference(&mut reference, &facts, &mut Lowest).map_err(|e| e.to_string())?;
    if a != b {
        return Err(format!("fast run {a:?}\nreference run {b:?}"));
    }
    if fast.state != reference.state {
        return Err("the runs end in different states".into());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// `ForwardReach::reaches` and `fwd_reaching` equal the all-pairs fixpoint.
    #[test]
    fn forward_reach_by_query_equals_the_all_pairs_table(
        seed in any::<u64>(),
        full in any::<bool>(),
    ) {
        let config = if full { GenConfig::full() } else { GenConfig::small() };
        let g = generate(seed, &config);
        let body = body_of(&g);
        let reach = ForwardReach::compute(body);
        let table = all_pairs(body);
        for z in (0..table.len() as u32).map(Block::from_u32) {
            let want: Vec<Block> = table[z.as_u32() as usize].iter().collect();
            prop_assert_eq!(reach.fwd_reaching(z), want, "seed {}: fwdreaching({:?})", seed, z);
            for a in (0..table.len() as u32).map(Block::from_u32) {
                prop_assert_eq!(
                    reach.reaches(a, z),
                    table[z.as_u32() as usize].contains(a),
                    "seed {}: reaches({:?}, {:?})", seed, a, z
                );
            }
        }
    }

    /// Termination preservation with the shortcut equals the search of every
    /// candidate, and pending legality equals full legality, along random runs.
    #[test]
    fn fast_greedy_checks_equal_their_definitions(
        seed in any::<u64>(),
        width in 2usize..=4,
        oblivious in any::<bool>(),
        plain in any::<bool>(),
    ) {
        let g = generate(seed, &small(plain));
        let interp = if oblivious { Interp::Oblivious } else { Interp::Freezing };
        if let Err(why) = compare_along_a_run(&g, width, seed, interp) {
            prop_assert!(false, "seed {seed}, W = {width}, {interp:?}: {why}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 192,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The kept lowest path answers as the fresh check in every state of a run.
    #[test]
    fn the_kept_lowest_path_answers_as_a_fresh_one(
        seed in any::<u64>(),
        width in 2usize..=4,
        budget in prop::sample::select(vec![1usize, 2, 5, 16, 256]),
        plain in any::<bool>(),
    ) {
        let g = generate(seed, &small(plain));
        if let Err(why) = kept_path_along_a_run(&g, width, seed, budget).map(drop) {
            prop_assert!(false, "seed {seed}, W = {width}, budget {budget}: {why}");
        }
    }

    /// `lowest` checked along its own path runs as `lowest` checked in full.
    #[test]
    fn a_lowest_run_checked_along_its_path_equals_the_reference_run(
        seed in any::<u64>(),
        width in 2usize..=4,
        budget in prop::sample::select(vec![1usize, 3, 16, 256]),
        oblivious in any::<bool>(),
    ) {
        let g = generate(seed, &small(false));
        let interp = if oblivious { Interp::Oblivious } else { Interp::Freezing };
        if let Err(why) = lowest_run_against_reference(&g, width, seed, budget, interp) {
            prop_assert!(false, "seed {seed}, W = {width}, budget {budget}, {interp:?}: {why}");
        }
    }
}

/// The kept-path comparison is not vacuous: answers come from paths kept
/// across steps, and some answers are "no".
#[test]
fn the_kept_path_is_kept() {
    let (mut kept, mut no) = (0, 0);
    for seed in 0..100u64 {
        let g = generate(seed, &small(false));
        let budget = [2, 16, 256][seed as usize % 3];
        let (k, n) = kept_path_along_a_run(&g, 2 + (seed % 3) as usize, seed, budget)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        kept += k;
        no += n;
    }
    // Generated programs rarely spin; the schedule corpus's spinning programs
    // (a predicated loop whose passive lanes accept it again, Fig. 5.5, and a
    // loop no lane ever leaves) give the answers "no".
    for file in ["fig5.5-termination.ll", "termination-doomed-loop.ll"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus/schedules")
            .join(file);
        let text = std::fs::read_to_string(&path).expect("the schedule corpus is readable");
        let (module, _) = pllvm_semantics::text::parse_module(&text).expect("it parses");
        for (seed, budget) in (0..24u64).zip([1usize, 2, 3, 5, 8, 256].into_iter().cycle()) {
            let width = 2 + (seed % 3) as usize;
            let mut config = RunConfig {
                threads: width,
                max_steps: 10_000,
                ..RunConfig::default()
            };
            config
                .add_arg(&format!("x={}", vec!["0"; width].join(",")))
                .expect("x is the one argument");
            let mut machine = Machine::new(&module, &config).expect("the machine starts");
            let (k, n) = kept_path_on(&mut machine, seed, budget)
                .unwrap_or_else(|e| panic!("{file}, seed {seed}, budget {budget}: {e}"));
            kept += k;
            no += n;
        }
    }
    assert!(kept >= 100, "only {kept} answers from a kept path");
    assert!(no >= 10, "only {no} answers were no");
}

/// The §5.3 comparison sees states with a choice (it is not vacuous), both
/// where the search runs and where the shortcut answers.
#[test]
fn the_comparison_meets_choices_and_the_shortcut() {
    let (mut choices, mut shortcut) = (0, 0);
    for seed in 0..200u64 {
        let g = generate(seed, &small(seed % 2 == 0));
        let width = 2 + (seed % 3) as usize;
        let (c, s) = compare_along_a_run(&g, width, seed, Interp::Freezing)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        choices += c;
        shortcut += s;
    }
    assert!(choices >= 40, "only {choices} states with a choice");
    assert!(
        shortcut >= 10,
        "only {shortcut} choices answered by the shortcut"
    );
    assert!(
        choices - shortcut >= 10,
        "only {} choices searched",
        choices - shortcut
    );
}
