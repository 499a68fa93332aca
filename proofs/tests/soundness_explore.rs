//! Soundness of the divergence analyses over *every* greedy schedule (thesis
//! Def. 12, Ch. 5; thesis Ch. 6-7, POPL'21 Theorem 4.8 / 6.7, LLVM's "Convergence
//! and Uniformity"): `proofs/tests/soundness.rs` checks the analyses along the
//! schedules of three schedulers; here small generated programs (W = 2..4) are
//! explored exhaustively (`pllvm_interp::explore::explore_with`) and every
//! transition the exploration follows is checked:
//! - whatever an analysis calls uniform, the lanes that execute its dynamic
//!   instance (the control mask for a phi, every lane for `total` and `mask()`,
//!   the activation otherwise, of those the lanes whose definition mask is set:
//!   γ', thesis §6.2) hold one value, pointers into stack objects compared up to
//!   the object (the copies one `alloca` made in one step, Fig. 6.11);
//! - a terminator it calls uniform never sends the active lanes apart;
//! - a block whose activation it calls uniform never runs with only some lanes;
//! - a stack object it calls uniform: the lanes' copies made together hold equal
//!   contents after every transition.
//!
//! What a transition showed is decided by the interpreter's observer
//! (`pllvm_interp::observe::observe_step`, the one the machine and the corpus
//! runner use), per transition: a state of the explored graph is reached by many
//! schedules, so what one schedule learnt (which objects one `alloca` made
//! together, the copy groups) travels with the state along the transition that
//! first met it.
//!
//! The transitions checked are those the search follows, a superset of the
//! greedy ones: termination preservation (§5.3) rules some out only once the
//! whole graph is known, and they are checked too.
//!
//! Every program is counted: an exploration that hits its bounds is reported
//! (its visited transitions are still checked) and the test fails when more than
//! a tenth do. A counterexample is a bug of an analysis to fix, never a case to
//! skip.

use pllvm_analysis::result::{AnalysisKind, Uniformity};
use pllvm_analysis::shape::Shape;
use pllvm_analysis::uniformity::analyze;
use pllvm_fuzz::{GenConfig, Generated, generate};
use pllvm_interp::explore::{Bounds, Order, Transition, explore_with};
use pllvm_interp::observe::{CopyGroups, observe_step};
use pllvm_semantics::ir::{Block, Body, Inst};
use pllvm_semantics::rules::Interp;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// Programs small enough to explore for four lanes: the generator's small
/// configuration with fewer commands per block.
fn small(irreducible: bool) -> GenConfig {
    GenConfig {
        max_blocks: 12,
        max_loop_depth: 2,
        max_trip_count: 3,
        max_insts_per_block: 2,
        irreducible,
        ..GenConfig::small()
    }
}

const BOUNDS: Bounds = Bounds {
    max_states: 4_000,
    max_steps: 300,
    order: Order::Lowest,
};

/// The counts of one sweep.
#[derive(Default, Debug)]
struct Counts {
    /// Explorations (one program, one width, one input vector).
    explorations: usize,
    exhaustive: usize,
    truncated: usize,
    /// Why each truncated exploration stopped (the sweep adds seed, W and inputs).
    truncated_why: Vec<String>,
    transitions: usize,
    states: usize,
    /// States with more than one greedy successor (a choice of schedule).
    choice_states: usize,
    /// Explorations with at least one such state (more than one greedy schedule).
    programs_with_choice: usize,
    /// Value claims (analysis, instruction) some transition exercised: the value
    /// is uniform in the analysis and was computed by the transition.
    claims_checked: usize,
}

/// Explores one program at one width and checks the analyses `kinds` in every
/// transition. Returns the problems (analysis claims refuted, with a schedule
/// that leads to the refuting transition) and adds to `counts`.
fn check_program(
    kinds: &[AnalysisKind],
    g: &Generated,
    results: Option<Vec<Uniformity>>,
    width: usize,
    input_seed: u64,
    counts: &mut Counts,
) -> Result<Vec<String>, String> {
    let func = &g.module.functions[g.func];
    let body: &Body = func.body.as_ref().ok_or("@kernel has no body")?;
    let init = g.init_shapes();
    let results = match results {
        Some(r) => r,
        None => kinds
            .iter()
            .map(|&k| analyze(&g.module, g.func, k, &init).map_err(|e| format!("{k}: {e}")))
            .collect::<Result<Vec<_>, _>>()?,
    };
    let mut config = g.run_config(&g.inputs(input_seed, width), Interp::Freezing);
    config.max_steps = 100_000;

    // Per explored state: the copy groups of its stack objects, and how it was
    // first reached (for witness schedules).
    let mut classes: Vec<Option<Rc<CopyGroups>>> = vec![Some(Rc::new(CopyGroups::new()))];
    let mut parent: Vec<Option<(u32, Block)>> = vec![None];
    let mut problems: BTreeMap<String, String> = BTreeMap::new();
    let mut transitions = 0usize;
    let mut claims: BTreeSet<(AnalysisKind, Inst)> = BTreeSet::new();
    let mut failure: Option<String> = None;

    let mut out_degree: BTreeMap<u32, usize> = BTreeMap::new();
    let mut visit = |t: &Transition<'_>| {
        transitions += 1;
        *out_degree.entry(t.from).or_default() += 1;
        let tag = transitions;
        let Some(before) = classes.get(t.from as usize).cloned().flatten() else {
            failure.get_or_insert_with(|| format!("state {} expanded before it was met", t.from));
            return;
        };
        let step = t.step;
        let block = &body.blocks[step.scheduled];
        // The copy groups travel with the state: the objects this transition's
        // `alloca`s made join them under its tag.
        let mut after = (*before).clone();
        let seen = observe_step(
            body,
            &t.after.env,
            &t.after.mem,
            step,
            &mut after,
            tag as u64,
            true,
            // Generated programs define no token: every executing lane compared.
            None,
            &mut |_, _, _| {},
        );
        for &(i, _) in &seen.values {
            if let Some(v) = body.insts[i].result {
                for r in &results {
                    if r.values[v].is_uniform() {
                        claims.insert((r.analysis, i));
                    }
                }
            }
        }
        // The analyses' claims against what this transition showed.
        let refute = |what: String, problems: &mut BTreeMap<String, String>| {
            problems.entry(what).or_insert_with(|| {
                let mut schedule = vec![step.scheduled];
                let mut at = t.from;
                while let Some(Some((p, b))) = parent.get(at as usize) {
                    schedule.push(*b);
                    at = *p;
                }
                schedule.reverse();
                schedule
                    .iter()
                    .map(|&b| body.blocks[b].name.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            });
        };
        for r in &results {
            for &(i, _) in seen.values.iter().filter(|(_, diverged)| *diverged) {
                if let Some(v) = body.insts[i].result
                    && r.values[v].is_uniform()
                {
                    refute(
                        format!(
                            "{} calls %{} (in {}) uniform",
                            r.analysis,
                            body.value_name(v).unwrap_or("?"),
                            block.name
                        ),
                        &mut problems,
                    );
                }
            }
            if seen.branch == Some(true) && r.terminators[step.scheduled].is_uniform() {
                refute(
                    format!(
                        "{} calls the terminator of {} uniform",
                        r.analysis, block.name
                    ),
                    &mut problems,
                );
            }
            if seen.partial_activation && r.activation[step.scheduled].is_uniform() {
                refute(
                    format!(
                        "{} calls the activation of {} uniform",
                        r.analysis, block.name
                    ),
                    &mut problems,
                );
            }
            for a in &seen.objects_differ {
                if r.allocas.get(a).is_some_and(|s| s.is_uniform()) {
                    refute(
                        format!("{} calls the stack object of {a:?} uniform", r.analysis),
                        &mut problems,
                    );
                }
            }
        }
        if t.first_visit
            && let Some(to) = t.to
        {
            let to = to as usize;
            if classes.len() <= to {
                classes.resize(to + 1, None);
                parent.resize(to + 1, None);
            }
            classes[to] = Some(Rc::new(after));
            parent[to] = Some((t.from, step.scheduled));
        }
    };
    let explored =
        explore_with(&g.module, &config, &BOUNDS, &mut visit).map_err(|e| e.to_string())?;
    if let Some(f) = failure {
        return Err(f);
    }
    counts.explorations += 1;
    counts.transitions += transitions;
    counts.states += explored.states;
    counts.claims_checked += claims.len();
    let choices = out_degree.values().filter(|&&d| d > 1).count();
    counts.choice_states += choices;
    counts.programs_with_choice += usize::from(choices > 0);
    if let Some(why) = &explored.truncated {
        counts.truncated += 1;
        counts.truncated_why.push(why.clone());
    } else {
        counts.exhaustive += 1;
    }
    Ok(problems
        .into_iter()
        .map(|(what, schedule)| format!("{what}; refuted after the schedule {schedule}"))
        .collect())
}

/// Explores `seeds` of `config` and checks `kinds`; fails on any counterexample
/// and when more than a tenth of the explorations hit their bounds.
fn sweep(
    kinds: &[AnalysisKind],
    config: &GenConfig,
    seeds: std::ops::Range<u64>,
    only_irreducible: bool,
) -> Counts {
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    let mut skipped_reducible = 0usize;
    for seed in seeds {
        let g = generate(seed, config);
        if only_irreducible {
            let Some(body) = g.module.functions[g.func].body.as_ref() else {
                continue;
            };
            if pllvm_semantics::cfg::Cfg::new(body).is_reducible() {
                skipped_reducible += 1;
                continue;
            }
        }
        // W = 2, 3, 4 by seed, and two input vectors: more ways for the lanes to
        // part, so more states with a choice of schedule.
        let width = 2 + (seed % 3) as usize;
        for input in 0..2u64 {
            let input_seed = (seed ^ 0xe4910e).wrapping_mul(31).wrapping_add(input);
            let cut = counts.truncated;
            let result = check_program(kinds, &g, None, width, input_seed, &mut counts);
            if counts.truncated > cut
                && let Some(why) = counts.truncated_why.last_mut()
            {
                *why = format!("seed {seed}, W = {width}, inputs {input}: {why}");
            }
            match result {
                Ok(problems) if problems.is_empty() => {}
                Ok(problems) => failures.push(format!(
                    "seed {seed}, W = {width}, inputs {input}: {}\n{}",
                    problems.join("\n"),
                    pllvm_semantics::text::print_module(&g.module)
                )),
                Err(e) => failures.push(format!("seed {seed}, W = {width}, inputs {input}: {e}")),
            }
        }
    }
    eprintln!("{counts:?} (reducible programs passed over: {skipped_reducible})");
    assert!(
        failures.is_empty(),
        "{} counterexamples; the first:\n{}",
        failures.len(),
        failures.first().map_or("", String::as_str)
    );
    assert!(
        counts.truncated * 10 <= counts.explorations,
        "{} of {} explorations hit their bounds",
        counts.truncated,
        counts.explorations
    );
    counts
}

/// `thesis`, `popl` and `llvm` on small reducible programs, every greedy schedule.
#[test]
fn analyses_are_sound_in_every_explored_transition() {
    let counts = sweep(&AnalysisKind::ALL, &small(false), 0..2000, false);
    assert!(
        counts.explorations == 4000
            && counts.transitions > 50_000
            && counts.programs_with_choice > 500,
        "{counts:?}"
    );
}

/// The same on larger reducible programs (up to 40 blocks, loop nests of 3).
#[test]
fn analyses_are_sound_in_every_explored_transition_of_larger_programs() {
    let config = GenConfig {
        max_insts_per_block: 2,
        ..GenConfig::reducible()
    };
    let counts = sweep(&AnalysisKind::ALL, &config, 0..500, false);
    assert!(
        counts.explorations == 1000 && counts.programs_with_choice > 100,
        "{counts:?}"
    );
}

/// `llvm` on small programs with irreducible cycles (which `thesis` and `popl`
/// refuse), every greedy schedule.
#[test]
fn llvm_is_sound_in_every_explored_transition_of_irreducible_programs() {
    let counts = sweep(&[AnalysisKind::Llvm], &small(true), 0..900, true);
    assert!(
        counts.explorations >= 60 && counts.programs_with_choice > 20,
        "{counts:?}"
    );
}

/// The check can fail: an analysis that calls everything uniform is refuted in
/// some explored transition of almost every program.
#[test]
fn exploration_refutes_an_analysis_that_calls_everything_uniform() {
    let config = small(false);
    let (mut refuted, mut programs) = (0usize, 0usize);
    for seed in 0..40u64 {
        let g = generate(seed, &config);
        let Some(body) = g.module.functions[g.func].body.as_ref() else {
            continue;
        };
        let Ok(mut r) = analyze(&g.module, g.func, AnalysisKind::Thesis, &g.init_shapes()) else {
            continue;
        };
        for (v, _) in body.values.iter() {
            r.values[v] = Shape::Uniform;
        }
        for &b in &body.layout {
            r.terminators[b] = Shape::Uniform;
            r.activation[b] = Shape::Uniform;
        }
        for s in r.allocas.values_mut() {
            *s = Shape::Uniform;
        }
        let mut counts = Counts::default();
        let problems = check_program(&[], &g, Some(vec![r]), 4, seed, &mut counts)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        programs += 1;
        refuted += usize::from(!problems.is_empty());
    }
    assert!(
        programs == 40 && refuted >= 35,
        "only {refuted} of {programs} refuted"
    );
}
