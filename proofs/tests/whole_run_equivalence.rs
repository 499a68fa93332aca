//! Fast execution is the definition (docs/design/overview.md "Oracles: what checks
//! what"): a run with
//! `Exec::Fast` (the fast forms of `semantics/src/fast/`) and a run with
//! `Exec::Reference` (every rule lane by lane, as thesis Ch. 4 states it) of the
//! same program on the same inputs and the same schedule are the same run: the
//! same trace (every row: ℓ_in^W, ℓ_next^W, cmsk^W, pmsk^W, amsk^W, i^W and every
//! value assigned), the same outcome, results, memory 𝕄, final Δ^W (values and
//! definition masks) and divergence record.
//!
//! The programs are the generator's (`fuzz/src/gen/`): reducible and
//! irreducible CFGs, loops, switches, predicates, shadow phis, `total`, `mask()`,
//! horizontal builtins (calls through θ), memory (globals, allocas, gathers,
//! scatters), integers of 1-128 bits and floats. Each case picks FR or OBL,
//! strict mode or not, and W from 1 to 64 (including non-powers of two); a W above
//! the generator's 8 disjoint slices makes scatters conflict, and OBL makes
//! divergent loops' values ⊤, so some runs end in undefined behaviour (the fixed
//! sweep below checks that both kinds of end occur). Each case runs three ways on
//! the interpreter's own paths: a random greedy schedule (`Machine::run_with`
//! with `sched::Random`), the runtime-schedule path (`Machine::run_schedule`)
//! replaying a prefix of that schedule, and a runtime schedule of random blocks
//! (Def. 5 allows any block list).
//!
//! # Case counts
//! By default the property runs 24 random cases and the fixed sweep 40 seeds
//! (a few seconds in a debug build). `PLLVM_LONG=1` runs 1000 random cases and
//! 400 seeds; `PROPTEST_CASES=N` sets the random cases directly.
//!
//! # Does it catch a broken kernel?
//! `a_broken_kernel_is_caught` passes a mutated fast executor to the same
//! comparison and asserts that it reports a difference, while the unmutated fast
//! executor passes it. The mutant (`mutated_fast`) is `Exec::Fast` with a broken
//! evalterm^W kernel: it runs [BLS-W-STEP] and then loses the ⊤ of i^W, the
//! kernel's output (a passive lane's successor index becomes 0 instead of ⊤),
//! before [PC-WSTEP] consumes it. (`Exec` has no slot for a foreign kernel, so
//! the mutant is injected at the step, not inside the hook.)
//!
//! A manual mutation was also run (2026-11-25): in
//! `semantics/src/fast/env.rs`, `update_bit_lanes`, the ⊤ flag line
//! `*slot = (a & n) | (!a & (*slot | oblivious));` changed to
//! `*slot = (a & n) | (!a & *slot);` (the [UPD-ENV] kernel forgets that OBL
//! makes a passive lane ⊤). `cargo test -p pllvm-proofs --test
//! whole_run_equivalence` then failed both tests: the fixed sweep, and the
//! property with the minimal failing input `seed = 53419781787212312, width = 1,
//! oblivious = true, strict = false, sched_seed = 11407072225319848887`, on its
//! random-blocks schedule: "trace row 25 differs", the reference assigning ⊤ to
//! `v8`, `v10`, `v35` and `v41` of a passive lane where the fast run kept 0, 0, 1
//! and 3.

use pllvm_fuzz::{GenConfig, Generated, generate};
use pllvm_interp::observe::DivergenceRecord;
use pllvm_interp::sched::Random;
use pllvm_interp::trace::TraceRow;
use pllvm_interp::{Machine, Outcome, RunConfig};
use pllvm_semantics::ir::{Block, Value};
use pllvm_semantics::memory::Memory;
use pllvm_semantics::rules::step::{BlockStep, bls_w_step, lss_w_step, pc_wstep};
use pllvm_semantics::rules::{
    Applied, Exec, Interp, Next, Program, Rule, RuleSet, Scratch, State, StepError, Succ,
};
use pllvm_semantics::value::Val;
use proptest::prelude::*;

/// One row of a trace, whichever way it was recorded.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    scheduled: Block,
    incoming: Vec<Option<Block>>,
    next: Vec<Next>,
    cmask: Vec<bool>,
    pmask: Vec<Option<bool>>,
    active: Vec<bool>,
    succ: Vec<Succ>,
    written: Option<Vec<(Value, Vec<Val>)>>,
    /// The rules the step applied, as its dispatchers recorded them.
    rules: RuleSet,
}

impl Row {
    fn of_trace(row: &TraceRow) -> Row {
        Row {
            scheduled: row.scheduled,
            incoming: row.incoming.clone(),
            next: row.next.clone(),
            cmask: row.cmask.clone(),
            pmask: row.pmask.clone(),
            active: row.active.clone(),
            succ: row.succ.clone(),
            written: row.written.clone(),
            rules: row.rules,
        }
    }

    fn of_step(before: &State, step: &BlockStep) -> Row {
        Row {
            scheduled: step.scheduled,
            incoming: before.incoming.clone(),
            next: before.next.clone(),
            cmask: step.cmask.clone(),
            pmask: step.pmask.clone(),
            active: step.active.clone(),
            succ: step.succ.clone(),
            written: step.written.clone(),
            rules: step.rules,
        }
    }
}

/// Everything a whole run shows.
#[derive(Clone, Debug, PartialEq)]
struct WholeRun {
    /// The outcome, or the machinery's error, as text.
    outcome: String,
    /// The blocks scheduled.
    schedule: Vec<Block>,
    /// Steps that were not greedy (for the scheduler runs), as text.
    violations: Vec<String>,
    trace: Vec<Row>,
    results: Vec<Option<Val>>,
    memory: Memory,
    /// Every value's lanes in the final Δ^W.
    env: Vec<Vec<Val>>,
    /// Every value's definition mask in the final Δ^W (when tracked).
    defined: Vec<Option<Vec<bool>>>,
    divergence: DivergenceRecord,
}

/// How a case schedules its blocks.
#[derive(Clone, Debug)]
enum How {
    /// A random greedy schedule of this seed (`Machine::run_with`).
    Greedy(u64),
    /// A runtime schedule (`Machine::run_schedule`).
    Schedule(Vec<Block>),
}

/// The final state of a machine as a [`WholeRun`].
fn finish(
    m: &Machine<'_>,
    outcome: String,
    schedule: Vec<Block>,
    violations: Vec<String>,
    trace: Vec<Row>,
) -> WholeRun {
    let values: Vec<Value> = m.program.body.values.keys().collect();
    WholeRun {
        outcome,
        schedule,
        violations,
        trace,
        results: m.results(),
        memory: m.state.mem.clone(),
        env: values
            .iter()
            .map(|&v| m.state.env.get(v).into_owned())
            .collect(),
        defined: values
            .iter()
            .map(|&v| m.state.env.defined(v).map(<[bool]>::to_vec))
            .collect(),
        divergence: m.divergence.clone(),
    }
}

/// A machine for `config` executed by `exec`, recording everything.
fn machine<'m>(g: &'m Generated, config: &RunConfig, exec: Exec) -> Result<Machine<'m>, String> {
    let config = RunConfig {
        exec,
        ..config.clone()
    };
    let mut m = Machine::new(&g.module, &config).map_err(|e| format!("setup: {e}"))?;
    m.record_trace = true;
    m.record_writes = true;
    Ok(m)
}

/// A whole run of the interpreter on its own paths.
fn run(g: &Generated, config: &RunConfig, exec: Exec, how: &How) -> Result<WholeRun, String> {
    let mut m = machine(g, config, exec)?;
    let (outcome, schedule, violations) = match how {
        How::Greedy(seed) => match m.run_with(&mut Random::new(*seed)) {
            Ok(run) => (
                run.outcome.to_string(),
                run.schedule,
                run.violations.iter().map(|v| format!("{v:?}")).collect(),
            ),
            Err(e) => (format!("error: {e}"), Vec::new(), Vec::new()),
        },
        How::Schedule(blocks) => {
            let names: Vec<String> = blocks
                .iter()
                .map(|&b| m.program.block_name(b).to_string())
                .collect();
            let outcome = match m.run_schedule(&names) {
                Ok(o) => o.to_string(),
                Err(e) => format!("error: {e}"),
            };
            (outcome, blocks.clone(), Vec::new())
        }
    };
    let trace = m.trace.iter().map(Row::of_trace).collect();
    Ok(finish(&m, outcome, schedule, violations, trace))
}

/// One step of some execution of the rules: the executor under test.
type Stepper<'a> = dyn FnMut(&Program<'_>, Interp, Block, &mut State, &mut Scratch) -> Result<BlockStep, StepError>
    + 'a;

/// A whole run of `schedule` with `step` doing each step (setup, outcomes and the
/// divergence record as the machine does them).
fn drive(
    g: &Generated,
    config: &RunConfig,
    schedule: &[Block],
    step: &mut Stepper<'_>,
) -> Result<WholeRun, String> {
    let mut m = machine(g, config, Exec::Reference)?;
    let mut trace = Vec::new();
    let mut outcome = None;
    for &b in schedule {
        let before = m.state.clone();
        match step(&m.program, m.interp, b, &mut m.state, &mut m.scratch) {
            Ok(s) => {
                m.divergence
                    .observe(m.program.body, &m.state.env, &m.state.mem, &s);
                trace.push(Row::of_step(&before, &s));
            }
            Err(StepError::Undefined(ub)) => {
                outcome = Some(Outcome::Undefined(ub).to_string());
                break;
            }
            Err(StepError::Limit(why)) => {
                outcome = Some(Outcome::Limit(why).to_string());
                break;
            }
            Err(StepError::Stuck(s)) => {
                outcome = Some(format!("error: {s}"));
                break;
            }
        }
    }
    let outcome = outcome.unwrap_or_else(|| {
        if m.state.all_done() {
            Outcome::Returned.to_string()
        } else {
            Outcome::Incomplete.to_string()
        }
    });
    Ok(finish(&m, outcome, schedule.to_vec(), Vec::new(), trace))
}

/// The first difference between a reference run and a fast run, if any.
fn compare(reference: &WholeRun, fast: &WholeRun) -> Result<(), String> {
    if reference == fast {
        return Ok(());
    }
    if let Some(k) = (0..reference.trace.len().min(fast.trace.len()))
        .find(|&k| reference.trace[k] != fast.trace[k])
    {
        return Err(format!(
            "trace row {k} differs:\n  reference {:?}\n  fast      {:?}",
            reference.trace[k], fast.trace[k]
        ));
    }
    let fields: [(&str, bool); 9] = [
        ("outcome", reference.outcome == fast.outcome),
        ("schedule", reference.schedule == fast.schedule),
        ("violations", reference.violations == fast.violations),
        ("trace length", reference.trace.len() == fast.trace.len()),
        ("results", reference.results == fast.results),
        ("memory", reference.memory == fast.memory),
        ("final Δ^W", reference.env == fast.env),
        ("definition masks", reference.defined == fast.defined),
        ("divergence record", reference.divergence == fast.divergence),
    ];
    let differ: Vec<&str> = fields.iter().filter(|f| !f.1).map(|f| f.0).collect();
    Err(format!(
        "{} differ (outcomes: reference {}, fast {})",
        differ.join(", "),
        reference.outcome,
        fast.outcome
    ))
}

/// One case of the property.
#[derive(Clone, Debug)]
struct Case {
    seed: u64,
    width: usize,
    interp: Interp,
    strict: bool,
    sched_seed: u64,
}

/// The widths the cases draw from: 1 to 64, powers of two and others.
const WIDTHS: [usize; 12] = [1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 33, 64];

impl Case {
    /// The generator configuration: small or larger programs, with or without
    /// irreducible cycles.
    fn gen_config(&self) -> GenConfig {
        match self.seed % 3 {
            0 => GenConfig::small(),
            1 => GenConfig::reducible(),
            _ => GenConfig::full(),
        }
    }

    /// The program and its run configuration.
    fn setup(&self) -> (Generated, RunConfig) {
        let g = generate(self.seed, &self.gen_config());
        let columns = g.inputs(self.seed.wrapping_mul(0x9e37_79b9), self.width);
        let mut config = g.run_config(&columns, self.interp);
        config.strict = self.strict;
        config.max_steps = 2_000;
        (g, config)
    }
}

/// Reference against fast on the three schedules of a case; returns the
/// outcome of the greedy run.
fn check(case: &Case) -> Result<String, String> {
    let (g, config) = case.setup();
    let greedy = How::Greedy(case.sched_seed);
    let reference = run(&g, &config, Exec::Reference, &greedy)?;
    let fast = run(&g, &config, Exec::Fast, &greedy)?;
    compare(&reference, &fast).map_err(|e| format!("greedy schedule: {e}"))?;
    // The runtime-schedule path: a prefix of the greedy schedule (possibly all
    // of it), and a list of random blocks.
    let schedule = &reference.schedule;
    let cut = (case.sched_seed as usize) % (schedule.len() + 1);
    let prefix = How::Schedule(schedule[..cut.max(schedule.len() / 2)].to_vec());
    let layout: &[Block] = g.module.functions[g.func]
        .body
        .as_ref()
        .map_or(&[], |body| &body.layout);
    if layout.is_empty() {
        return Err("the generated function has no blocks".into());
    }
    let mut rng = Random::new(case.sched_seed ^ 0x5eed);
    let random = How::Schedule(
        (0..40)
            .map(|_| layout[(rng.next_u64() % layout.len() as u64) as usize])
            .collect(),
    );
    for (name, how) in [("replayed prefix", prefix), ("random blocks", random)] {
        let reference = run(&g, &config, Exec::Reference, &how)?;
        let fast = run(&g, &config, Exec::Fast, &how)?;
        compare(&reference, &fast).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(reference.outcome)
}

/// Whether the long mode is on (`PLLVM_LONG=1`).
fn long() -> bool {
    std::env::var("PLLVM_LONG").is_ok_and(|v| v != "0" && !v.is_empty())
}

/// The number of random cases: `PROPTEST_CASES`, else 1000 in the long mode and
/// 24 otherwise.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if long() { 1000 } else { 24 })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn fast_and_reference_runs_are_identical(
        seed in any::<u64>(),
        width in prop::sample::select(WIDTHS.to_vec()),
        oblivious in any::<bool>(),
        strict in any::<bool>(),
        sched_seed in any::<u64>(),
    ) {
        let interp = if oblivious { Interp::Oblivious } else { Interp::Freezing };
        let case = Case { seed, width, interp, strict, sched_seed };
        if let Err(why) = check(&case) {
            prop_assert!(false, "{case:?}: {why}");
        }
    }
}

/// A fixed sweep over seeds, widths, both interpretations and strict mode, so
/// that every run covers the same cases too; it also checks that the sweep
/// reaches both ends of a run (return and undefined behaviour).
#[test]
fn fast_and_reference_runs_are_identical_fixed_seeds() {
    let seeds = if long() { 400 } else { 40 };
    let mut failures = Vec::new();
    let (mut returned, mut undefined) = (0, 0);
    for seed in 0..seeds {
        let case = Case {
            seed,
            width: WIDTHS[(seed as usize * 7) % WIDTHS.len()],
            interp: if seed % 2 == 0 {
                Interp::Freezing
            } else {
                Interp::Oblivious
            },
            strict: seed % 4 >= 2,
            sched_seed: seed.wrapping_mul(0x2545_f491),
        };
        match check(&case) {
            Ok(outcome) if outcome.starts_with("returned") => returned += 1,
            Ok(outcome) if outcome.starts_with("undefined") => undefined += 1,
            Ok(_) => {}
            Err(why) => failures.push(format!("{case:?}: {why}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        returned > 0 && undefined > 0,
        "returned {returned}, undefined {undefined}"
    );
}

/// The fast executor with a broken evalterm^W kernel: a passive lane's successor
/// index is 0 instead of ⊤ (its ⊤ flag lost). Everything else is `Exec::Fast`.
fn mutated_fast(
    program: &Program<'_>,
    interp: Interp,
    b: Block,
    state: &mut State,
    scratch: &mut Scratch,
) -> Result<BlockStep, StepError> {
    let mut step = bls_w_step(program, interp, Exec::Fast, b, state, scratch, true)?;
    for (i, &a) in step.succ.iter_mut().zip(&step.active) {
        if !a && *i == Succ::Any {
            *i = Succ::Index(0);
        }
    }
    let applied = Applied::default();
    pc_wstep(
        program,
        &step.succ,
        &step.cmask,
        &mut state.incoming,
        &mut state.next,
        b,
        &applied,
    )?;
    applied.record(Rule::LssWStep);
    step.rules.extend(applied.rules());
    Ok(step)
}

/// The executor of `exec`, as a [`Stepper`].
fn stepper(
    exec: Exec,
) -> impl FnMut(&Program<'_>, Interp, Block, &mut State, &mut Scratch) -> Result<BlockStep, StepError>
{
    move |program, interp, b, state, scratch| {
        lss_w_step(program, interp, exec, b, state, scratch, true)
    }
}

/// The comparison catches a broken kernel, and only a broken one: over the
/// fixed seeds, the unmutated fast executor driven through the same loop
/// matches the reference (and the reference driven so matches the machine's
/// own run), while the mutated one differs on some seed.
#[test]
fn a_broken_kernel_is_caught() {
    let mut caught = Vec::new();
    for seed in 0..40u64 {
        let case = Case {
            seed,
            width: WIDTHS[(seed as usize * 5) % WIDTHS.len()],
            interp: Interp::Freezing,
            strict: false,
            sched_seed: seed,
        };
        let (g, config) = case.setup();
        let machine_run = run(&g, &config, Exec::Reference, &How::Greedy(seed)).expect("runs");
        let schedule = machine_run.schedule.clone();
        let reference = drive(&g, &config, &schedule, &mut stepper(Exec::Reference)).expect("runs");
        let fast = drive(&g, &config, &schedule, &mut stepper(Exec::Fast)).expect("runs");
        let mutated = drive(&g, &config, &schedule, &mut mutated_fast).expect("runs");
        // The driver records what the machine records.
        assert_eq!(
            (&reference.outcome, &reference.trace, &reference.memory),
            (
                &machine_run.outcome,
                &machine_run.trace,
                &machine_run.memory
            ),
            "seed {seed}: the driver is not the machine"
        );
        assert_eq!(compare(&reference, &fast), Ok(()), "seed {seed}");
        if let Err(why) = compare(&reference, &mutated) {
            caught.push((seed, why));
        }
    }
    assert!(
        !caught.is_empty(),
        "the mutated kernel was not caught on any seed"
    );
}
