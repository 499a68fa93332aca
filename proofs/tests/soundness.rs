//! Soundness of the divergence analyses against the interpreter (thesis Ch. 6-7,
//! POPL'21 Theorem 4.8 / 6.7): over generated reducible programs
//! (`GenConfig::reducible()` and `small()` without irreducible cycles), widths
//! W = 2..4 and random argument values, run under FREEZING by the checked greedy
//! `lowest` policy (the lowest block index among the legal blocks, §2.5, Ch. 5),
//! which `observe_run` takes when a run has no schedule of its own:
//! - whatever `thesis` or `popl` calls uniform, the lanes executing one dynamic
//!   instance of it never disagree (`pllvm_interp::observe::DivergenceRecord`,
//!   refined for stack addresses in `pllvm_corpus::analysis_expect`);
//! - a terminator it calls uniform never sends active lanes apart;
//! - a block whose activation it calls uniform never runs with only some lanes;
//! - a stack object it calls uniform holds equal contents in the lanes' copies
//!   made together, after every step.
//!
//! `llvm` (LLVM's "Convergence and Uniformity") is checked the same way over those
//! programs and over programs with irreducible cycles (`GenConfig::small()` and
//! `full()`, `irreducible: true`), which `thesis` and `popl` do not analyse, and
//! for every cycle hierarchy a DFS can produce on those programs.
//!
//! The arguments the generator feeds uniformly are the uniform `InitShapes`.
//! `analyses_are_sound_under_several_greedy_schedulers` repeats the check along
//! the greedy schedules of `lowest`, `highest` and `random` (thesis Ch. 5).
//! A counterexample is a bug of an analysis (or of the observer) to fix.

use pllvm_analysis::result::{AnalysisKind, InitShapes};
use pllvm_analysis::shape::Shape;
use pllvm_analysis::uniformity::analyze;
use pllvm_fuzz::{GenConfig, generate};
use pllvm_interp::sched::{Highest, Lowest, Random, Scheduler};
use pllvm_interp::soundness::{observe_run, unsound_claims};
use pllvm_semantics::rules::Interp;
use proptest::prelude::*;

/// The reducible variant of the small configuration.
fn small_reducible() -> GenConfig {
    GenConfig {
        irreducible: false,
        ..GenConfig::small()
    }
}

/// The property for one program, one width and one input seed.
fn check(config: &GenConfig, seed: u64, width: usize, input_seed: u64) -> Result<(), String> {
    check_kinds(&AnalysisKind::ALL, config, seed, width, input_seed, None)
}

/// The property for the analyses `kinds`.
fn check_kinds(
    kinds: &[AnalysisKind],
    config: &GenConfig,
    seed: u64,
    width: usize,
    input_seed: u64,
    policy: Option<&mut dyn Scheduler>,
) -> Result<(), String> {
    check_generated(
        kinds,
        generate(seed, config),
        None,
        width,
        input_seed,
        policy,
    )
}

/// [`check_kinds`] for the program `g`; with `init` the parameter shapes to
/// check with, else the generator's (its uniformly fed arguments uniform).
fn check_generated(
    kinds: &[AnalysisKind],
    g: pllvm_fuzz::Generated,
    init: Option<InitShapes>,
    width: usize,
    input_seed: u64,
    policy: Option<&mut dyn Scheduler>,
) -> Result<(), String> {
    let func = &g.module.functions[g.func];
    let init = init.unwrap_or_else(|| g.init_shapes());
    if init.params.len() != func.params.len() {
        return Err("the generator's argument list does not match @kernel".into());
    }
    let mut results = Vec::new();
    for &kind in kinds {
        results.push(analyze(&g.module, g.func, kind, &init).map_err(|e| format!("{kind}: {e}"))?);
    }
    let Some(body) = func.body.as_ref() else {
        return Err("@kernel has no body".into());
    };
    // Observed along the greedy schedule (Def. 12) the policy takes, if any.
    let run = g.scheduled_run(width, input_seed, policy)?;
    let obs = observe_run(&g.module, &run)?;
    let mut problems = Vec::new();
    for r in &results {
        for claim in unsound_claims(r, body, &obs) {
            problems.push(format!("{} calls {claim} uniform", r.analysis));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} (outcome: {})\n{}",
            problems.join("; "),
            obs.outcome,
            pllvm_semantics::text::print_module(&g.module)
        ))
    }
}

fn sweep(config: &GenConfig, seeds: std::ops::Range<u64>) {
    sweep_kinds(&AnalysisKind::ALL, config, seeds);
}

fn sweep_kinds(kinds: &[AnalysisKind], config: &GenConfig, seeds: std::ops::Range<u64>) {
    let mut failures = Vec::new();
    for seed in seeds {
        let width = 2 + (seed % 3) as usize;
        for input in 0..2u64 {
            if let Err(why) = check_kinds(
                kinds,
                config,
                seed,
                width,
                seed.wrapping_mul(7919) ^ input,
                None,
            ) {
                failures.push(format!("seed {seed}, W = {width}, inputs {input}: {why}"));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} counterexamples; the first:\n{}",
        failures.len(),
        failures.first().map_or("", String::as_str)
    );
}

/// The same property along the greedy schedules of three schedulers (lowest and
/// highest block index, §2.5, and a seeded random choice among the legal blocks):
/// the analyses' claims do not depend on which greedy schedule runs.
#[test]
fn analyses_are_sound_under_several_greedy_schedulers() {
    let config = small_reducible();
    for seed in 0..400u64 {
        let width = 2 + (seed % 3) as usize;
        let mut policies: [Box<dyn Scheduler>; 3] = [
            Box::new(Lowest),
            Box::new(Highest),
            Box::new(Random::new(seed)),
        ];
        for policy in &mut policies {
            let name = policy.name();
            if let Err(why) = check_kinds(
                &AnalysisKind::ALL,
                &config,
                seed,
                width,
                seed ^ 0x5eed,
                Some(policy.as_mut()),
            ) {
                panic!("seed {seed}, W = {width}, {name} schedule: {why}");
            }
        }
    }
}

#[test]
fn analyses_are_sound_on_small_reducible_programs() {
    sweep(&small_reducible(), 0..3000);
}

#[test]
fn analyses_are_sound_on_reducible_programs() {
    sweep(&GenConfig::reducible(), 0..1500);
}

#[test]
fn llvm_is_sound_on_small_programs_with_irreducible_cycles() {
    sweep_kinds(&[AnalysisKind::Llvm], &GenConfig::small(), 0..3000);
}

#[test]
fn llvm_is_sound_on_programs_with_irreducible_cycles() {
    sweep_kinds(&[AnalysisKind::Llvm], &GenConfig::full(), 0..1500);
}

/// The target's parameter rules (`pllvm_analysis::target::ARG_RULES`) are
/// sound: `@kernel` becomes an `amdgpu_ps` function whose uniformly fed
/// arguments are `inreg` and the others (per-lane values, the thread id) plain,
/// and every analysis starts from what the rules give with no `--uniform-args`
/// (LLVM 22: only `inreg` and `byval` arguments of `amdgpu_ps` are uniform),
/// which must be the generator's shapes; the runs then check every claim.
#[test]
fn target_rules_are_sound_on_amdgpu_ps_programs() {
    let config = small_reducible();
    let mut varying_args = 0;
    for seed in 0..300u64 {
        let mut g = generate(seed, &config);
        let uniform = g.uniform_args();
        let body_names: Vec<Option<String>> = {
            let f = &g.module.functions[g.func];
            let body = f.body.as_ref().expect("@kernel has a body");
            f.params
                .iter()
                .map(|p| body.value_name(p.value).map(str::to_string))
                .collect()
        };
        let f = &mut g.module.functions[g.func];
        f.cconv = Some("amdgpu_ps".to_string());
        for (p, name) in f.params.iter_mut().zip(&body_names) {
            if name.as_ref().is_some_and(|n| uniform.contains(n)) {
                p.attrs.push("inreg".to_string());
            }
        }
        let init = InitShapes::for_function(&g.module, g.func, &[]).expect("shapes");
        assert_eq!(
            init,
            g.init_shapes(),
            "seed {seed}: the rules and the generator"
        );
        varying_args += init.params.iter().filter(|s| s.is_varying()).count();
        let width = 2 + (seed % 3) as usize;
        if let Err(why) =
            check_generated(&AnalysisKind::ALL, g, Some(init), width, seed ^ 0xa5, None)
        {
            panic!("seed {seed}, W = {width}, amdgpu_ps: {why}");
        }
    }
    assert!(
        varying_args > 0,
        "no plain (per-lane) argument was generated"
    );
}

/// The irreducible sweeps do meet irreducible programs.
#[test]
fn the_irreducible_sweeps_meet_irreducible_programs() {
    let irreducible = (0..300u64)
        .filter(|&seed| {
            let g = generate(seed, &GenConfig::small());
            g.module.functions[g.func]
                .body
                .as_ref()
                .is_some_and(|b| !pllvm_semantics::cfg::Cfg::new(b).is_reducible())
        })
        .count();
    assert!(
        irreducible >= 10,
        "only {irreducible} of 300 small programs are irreducible"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn analyses_are_sound_on_random_programs(
        seed in any::<u64>(),
        width in 2usize..=4,
        input_seed in any::<u64>(),
        small in any::<bool>(),
    ) {
        let config = if small { small_reducible() } else { GenConfig::reducible() };
        if let Err(why) = check(&config, seed, width, input_seed) {
            prop_assert!(false, "program seed {seed}, W = {width}, inputs {input_seed}: {why}");
        }
    }
}

/// The check can fail: calling everything uniform is refuted on most programs,
/// and the analyses' own claims cover a fair share of what ran.
#[test]
fn the_observer_refutes_an_analysis_that_calls_everything_uniform() {
    let config = small_reducible();
    let (mut refuted, mut claims, mut refuted_runs) = (0usize, 0usize, 0usize);
    for seed in 0..60u64 {
        let g = generate(seed, &config);
        let func = &g.module.functions[g.func];
        let Some(body) = func.body.as_ref() else {
            continue;
        };
        let init = InitShapes::all_varying(func);
        let Ok(mut r) = analyze(&g.module, g.func, AnalysisKind::Thesis, &init) else {
            continue;
        };
        claims += r.values.iter().filter(|(_, s)| s.is_uniform()).count();
        for (v, _) in body.values.iter() {
            r.values[v] = Shape::Uniform;
        }
        for &b in &body.layout {
            r.terminators[b] = Shape::Uniform;
            r.activation[b] = Shape::Uniform;
        }
        let run = g.run_config(&g.inputs(seed, 4), Interp::Freezing);
        let Ok(obs) = observe_run(&g.module, &run) else {
            continue;
        };
        let wrong = unsound_claims(&r, body, &obs).len();
        refuted += wrong;
        refuted_runs += usize::from(wrong > 0);
    }
    assert!(
        refuted_runs >= 50,
        "only {refuted_runs} of 60 runs refute 'all uniform'"
    );
    assert!(refuted > 500, "only {refuted} refuted claims");
    assert!(
        claims > 600,
        "the analysis made only {claims} uniform claims"
    );
}

/// Where the two analyses differ on generated programs, `popl` is the more
/// precise one: every value, terminator, activation and stack object `popl`
/// calls varying, `thesis` calls varying too (their joins agree; `popl`'s §6
/// rule for uses outside a loop looks only at the exits that reach the use).
#[test]
fn popl_is_at_least_as_precise_as_thesis_on_generated_programs() {
    let mut differing = 0usize;
    for (config, seeds) in [
        (small_reducible(), 0..1500u64),
        (GenConfig::reducible(), 0..800),
    ] {
        for seed in seeds {
            let g = generate(seed, &config);
            let func = &g.module.functions[g.func];
            let Some(body) = func.body.as_ref() else {
                continue;
            };
            let init = g.init_shapes();
            let (Ok(t), Ok(p)) = (
                analyze(&g.module, g.func, AnalysisKind::Thesis, &init),
                analyze(&g.module, g.func, AnalysisKind::Popl, &init),
            ) else {
                panic!("seed {seed}: an analysis refused a reducible program");
            };
            let mut differs = false;
            for (v, _) in body.values.iter() {
                assert!(
                    p.values[v] <= t.values[v],
                    "seed {seed}: popl {} but thesis {} for {v:?}",
                    p.values[v],
                    t.values[v]
                );
                differs |= p.values[v] != t.values[v];
            }
            for &b in &body.layout {
                assert!(
                    p.terminators[b] <= t.terminators[b],
                    "seed {seed}: terminator {b:?}"
                );
                assert!(
                    p.activation[b] <= t.activation[b],
                    "seed {seed}: activation {b:?}"
                );
                differs |=
                    p.terminators[b] != t.terminators[b] || p.activation[b] != t.activation[b];
            }
            for (a, s) in &p.allocas {
                assert!(Some(s) <= t.allocas.get(a), "seed {seed}: alloca {a:?}");
            }
            differing += usize::from(differs);
        }
    }
    eprintln!("popl more precise than thesis on {differing} of 2300 programs");
}

/// The document: "The convergence inferred using these criteria is a safe subset of
/// the maximal converged-with relation for any cycle hierarchy." Every hierarchy a
/// DFS can produce (successor orders varied, up to 200 orders per program) gives an
/// `llvm` result the execution does not refute.
#[test]
fn llvm_is_sound_for_every_dfs_hierarchy() {
    use pllvm_analysis::cycles::all_hierarchies;
    use pllvm_analysis::llvm::analyze_with;
    let configs = [GenConfig::small(), GenConfig::full()];
    let (mut programs, mut hierarchies) = (0usize, 0usize);
    let mut failures = Vec::new();
    for seed in 0..1500u64 {
        let g = generate(seed, &configs[(seed % 2) as usize]);
        let func = &g.module.functions[g.func];
        let Some(body) = func.body.as_ref() else {
            continue;
        };
        let cfg = pllvm_semantics::cfg::Cfg::new(body);
        if cfg.is_reducible() {
            continue;
        }
        programs += 1;
        let init = g.init_shapes();
        let width = 2 + (seed % 3) as usize;
        let run = g.run_config(&g.inputs(seed, width), Interp::Freezing);
        let Ok(obs) = observe_run(&g.module, &run) else {
            continue;
        };
        let (all, _) = all_hierarchies(cfg.graph(), cfg.entry().as_u32(), 200);
        for h in all {
            hierarchies += 1;
            let r = analyze_with(&g.module, g.func, body, &init, h);
            let claims = unsound_claims(&r, body, &obs);
            if !claims.is_empty() {
                failures.push(format!("seed {seed}: {}", claims.join("; ")));
                break;
            }
        }
    }
    assert!(programs >= 10, "only {programs} irreducible programs");
    assert!(hierarchies > programs, "no program had a second hierarchy");
    assert!(
        failures.is_empty(),
        "{} counterexamples; the first: {}",
        failures.len(),
        failures[0]
    );
}
