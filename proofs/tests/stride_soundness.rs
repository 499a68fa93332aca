//! Soundness of the stride-alignment analysis `sa` (thesis Ch. 10) against the
//! interpreter, over generated reducible programs (`GenConfig::reducible()` and
//! `small()` without irreducible cycles), widths W = 2..4, random inputs, FR runs
//! along the greedy schedules (Def. 12) of several schedulers:
//! - whenever `sa` gives an integer or pointer value the shape `(s, a)`, the lanes
//!   executing each dynamic instance of it hold `a·k + s·t` (lane `t`, one `k`,
//!   modulo 2^N; pointers into stack objects up to the object), and for a varying
//!   shape `a` each lane holds a multiple of `a` (γ_sa of Fig. 10.4 read in the
//!   native bit width, §10.1; `pllvm_interp::soundness::stride_violations`);
//! - its basic claims (uniform values, terminators, activation, stack objects)
//!   hold as for the other analyses (`unsound_claims`);
//! - `sa` is at least as precise as `thesis` (§10.2.1: the sa-lattice refines the
//!   basic one): whatever `thesis` calls uniform, `sa` does too.
//!
//! `sa` runs three times per program: for any width and for the run's W (the
//! comparison transformer of Fig. 10.12 depends on W), both for a thread array
//! alone (lane `t`'s thread id is `t`, §10.4.3), and for one chunk of W lanes of a
//! larger array (`ThreadIds::Chunk`, lane `t`'s id `c·W + t`, what the native backend
//! runs), checked on runs whose first thread id is `c·W`. The general generator rarely chains the
//! operations where the sa-lattice reasons about bits and order, so
//! `sa_is_sound_on_arithmetic_chains` adds straight-line chains of them (shifts,
//! masks, divisions, comparisons, extensions, flags) on the thread id and uniform
//! inputs near the wrap-around points, W = 1..=8. A control test perturbs every
//! strided claim and checks that the runs refute the perturbed claims, so the
//! check can fail. A counterexample is a bug of `sa` (or of the check) to fix.

use pllvm_analysis::result::{AnalysisKind, InitShapes, Uniformity};
use pllvm_analysis::sa_shape::SaShape;
use pllvm_analysis::stride::ThreadIds;
use pllvm_analysis::uniformity::{analyze_for_width, analyze_sa};
use pllvm_fuzz::{GenConfig, Generated, generate};
use pllvm_interp::RunConfig;
use pllvm_interp::sched::{Highest, Lowest, Random, Scheduler};
use pllvm_interp::soundness::{
    observe_run, observe_run_from, stride_violations, stride_violations_from, unsound_claims,
};
use pllvm_semantics::rules::Interp;

/// The reducible variant of the small configuration.
fn small_reducible() -> GenConfig {
    GenConfig {
        irreducible: false,
        ..GenConfig::small()
    }
}

/// What the sweeps saw, to show they test something.
#[derive(Default, Debug)]
struct Tally {
    programs: usize,
    /// Values `sa` gave a non-zero stride.
    strided: usize,
    /// Values `sa` calls uniform and `thesis` varying.
    more_uniform: usize,
    /// Branches `sa` calls uniform and `thesis` divergent.
    more_uniform_branches: usize,
    /// Values `sa` for a chunk gave a non-zero stride, checked on a chunk run.
    chunk_strided: usize,
}

/// `sa` is at least as precise as `thesis` on every value, terminator and block.
fn at_least_as_precise(thesis: &Uniformity, sa: &Uniformity, g: &Generated) -> Result<(), String> {
    let body = g.module.functions[g.func]
        .body
        .as_ref()
        .ok_or("@kernel has no body")?;
    for (v, _) in body.values.iter() {
        if thesis.values[v].is_uniform() && !sa.values[v].is_uniform() {
            return Err(format!(
                "thesis calls %{} uniform, sa {}",
                body.value_name(v).unwrap_or("?"),
                sa.values[v]
            ));
        }
    }
    for &b in &body.layout {
        if thesis.terminators[b].is_uniform() && !sa.terminators[b].is_uniform() {
            return Err(format!(
                "thesis calls the terminator of {} uniform, sa does not",
                body.blocks[b].name
            ));
        }
        if thesis.activation[b].is_uniform() && !sa.activation[b].is_uniform() {
            return Err(format!(
                "thesis calls the activation of {} uniform, sa does not",
                body.blocks[b].name
            ));
        }
    }
    Ok(())
}

/// The property for one program, width, input seed and scheduler.
fn check(
    config: &GenConfig,
    seed: u64,
    width: usize,
    input_seed: u64,
    policy: Option<&mut dyn Scheduler>,
    tally: &mut Tally,
) -> Result<(), String> {
    let g = generate(seed, config);
    let init = g.init_shapes();
    let analyze = |kind, w| {
        analyze_for_width(&g.module, g.func, kind, &init, w).map_err(|e| format!("{kind}: {e}"))
    };
    let thesis = analyze(AnalysisKind::Thesis, None)?;
    let sa_any = analyze(AnalysisKind::Sa, None)?;
    let sa_w = analyze(AnalysisKind::Sa, Some(width as u32))?;
    let sa_chunk = analyze_sa(&g.module, g.func, &init, ThreadIds::Chunk(width as u32))
        .map_err(|e| format!("sa in chunks: {e}"))?;
    let body = g.module.functions[g.func]
        .body
        .as_ref()
        .ok_or("@kernel has no body")?;
    tally.programs += 1;
    tally.strided += sa_w
        .strides
        .values()
        .filter(|s| matches!(s, SaShape::Strided { stride, .. } if *stride != 0))
        .count();
    tally.more_uniform += body
        .values
        .iter()
        .filter(|(v, _)| sa_w.values[*v].is_uniform() && thesis.values[*v].is_varying())
        .count();
    tally.more_uniform_branches += body
        .layout
        .iter()
        .filter(|&&b| sa_w.terminators[b].is_uniform() && thesis.terminators[b].is_varying())
        .count();
    let mut problems = Vec::new();
    for (name, sa) in [
        ("sa", &sa_any),
        ("sa --width", &sa_w),
        ("sa in chunks", &sa_chunk),
    ] {
        if let Err(e) = at_least_as_precise(&thesis, sa, &g) {
            problems.push(format!("{name}: {e}"));
        }
    }
    let run = g.scheduled_run(width, input_seed, policy)?;
    let obs = observe_run(&g.module, &run)?;
    for (name, sa) in [("sa", &sa_any), ("sa --width", &sa_w)] {
        for v in stride_violations(&g.module, sa, &run)? {
            problems.push(format!("{name} {v}"));
        }
        for claim in unsound_claims(sa, body, &obs) {
            problems.push(format!("{name} calls {claim} uniform"));
        }
    }
    // One chunk c = 1..=3 of a larger thread array, along the default schedule
    // (a scheduler's schedule was taken with the thread ids from 0).
    let first = (1 + input_seed % 3) * width as u64;
    let plain = g.run_config(&g.inputs(input_seed, width), Interp::Freezing);
    let chunk_obs = observe_run_from(&g.module, &plain, first, &mut |_, _| {})?;
    for v in stride_violations_from(&g.module, &sa_chunk, &plain, first)? {
        problems.push(format!("sa in chunks, first thread {first}: {v}"));
    }
    for claim in unsound_claims(&sa_chunk, body, &chunk_obs) {
        problems.push(format!(
            "sa in chunks, first thread {first}: calls {claim} uniform"
        ));
    }
    tally.chunk_strided += sa_chunk
        .strides
        .values()
        .filter(|s| matches!(s, SaShape::Strided { stride, .. } if *stride != 0))
        .count();
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

fn sweep(config: &GenConfig, seeds: std::ops::Range<u64>) -> Tally {
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for seed in seeds {
        let width = 2 + (seed % 3) as usize;
        for input in 0..2u64 {
            if let Err(why) = check(
                config,
                seed,
                width,
                seed.wrapping_mul(7919) ^ input,
                None,
                &mut tally,
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
    tally
}

#[test]
fn sa_is_sound_on_small_reducible_programs() {
    let tally = sweep(&small_reducible(), 0..1500);
    eprintln!("small reducible: {tally:?}");
    // The sweep meets strided values and values only the sa-lattice proves uniform.
    assert!(tally.strided > tally.programs, "{tally:?}");
    assert!(tally.chunk_strided > tally.programs, "{tally:?}");
    assert!(tally.more_uniform > 0, "{tally:?}");
}

#[test]
fn sa_is_sound_on_reducible_programs() {
    let tally = sweep(&GenConfig::reducible(), 0..800);
    eprintln!("reducible: {tally:?}");
    assert!(tally.strided > tally.programs, "{tally:?}");
}

/// The same property along the greedy schedules of three schedulers (thesis Ch. 5).
#[test]
fn sa_is_sound_under_several_greedy_schedulers() {
    let config = small_reducible();
    let mut tally = Tally::default();
    for seed in 0..300u64 {
        let width = 2 + (seed % 3) as usize;
        let mut policies: [Box<dyn Scheduler>; 3] = [
            Box::new(Lowest),
            Box::new(Highest),
            Box::new(Random::new(seed)),
        ];
        for policy in &mut policies {
            let name = policy.name();
            if let Err(why) = check(
                &config,
                seed,
                width,
                seed ^ 0x5eed,
                Some(policy.as_mut()),
                &mut tally,
            ) {
                panic!("seed {seed}, W = {width}, {name} schedule: {why}");
            }
        }
    }
}

/// Control: the check refutes wrong strides. Every non-zero stride claim is
/// replaced by the stride plus one; the runs must refute such claims on most
/// programs that execute a strided value in more than one lane.
#[test]
fn the_check_refutes_perturbed_strides() {
    let config = small_reducible();
    let (mut perturbed, mut refuted) = (0, 0);
    for seed in 0..200u64 {
        let width = 2 + (seed % 3) as usize;
        let g = generate(seed, &config);
        let init = g.init_shapes();
        let Ok(mut sa) = analyze_for_width(&g.module, g.func, AnalysisKind::Sa, &init, None) else {
            continue;
        };
        let mut any = false;
        for s in sa.strides.values_mut() {
            if let SaShape::Strided { stride, align } = *s
                && stride != 0
            {
                *s = SaShape::Strided {
                    stride: stride + 1,
                    align,
                };
                any = true;
            }
        }
        if !any {
            continue;
        }
        perturbed += 1;
        let run = g.run_config(&g.inputs(seed, width), Interp::Freezing);
        if stride_violations(&g.module, &sa, &run).is_ok_and(|v| !v.is_empty()) {
            refuted += 1;
        }
    }
    assert!(perturbed > 50, "only {perturbed} programs with strides");
    assert!(
        refuted * 10 >= perturbed * 9,
        "only {refuted} of {perturbed} perturbed analyses refuted"
    );
}

/// A straight-line program of integer arithmetic on the thread id and uniform
/// parameters, with the constants and operators where the sa-lattice reasons
/// about bits and order (shifts, masks, divisions by powers of two, comparisons,
/// extensions, flags): the general generator rarely builds these chains.
fn arithmetic_program(seed: u64) -> String {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    const CONSTS: [i64; 18] = [
        0,
        1,
        2,
        3,
        4,
        7,
        8,
        9,
        15,
        16,
        31,
        36,
        -1,
        -4,
        -16,
        64,
        1 << 30,
        255,
    ];
    let mut i32s: Vec<String> = vec!["%t".into(), "%n".into(), "%m".into()];
    let mut i64s: Vec<String> = vec!["%q".into()];
    let mut lines = vec!["  %t = call i32 @pllvm.thread_id()".to_string()];
    for k in 0..14 {
        let a = i32s[next(i32s.len())].clone();
        let b = i32s[next(i32s.len())].clone();
        let c = CONSTS[next(CONSTS.len())];
        let flag = ["", "", "", "nsw ", "nuw "][next(5)];
        let name = format!("%v{k}");
        let line = match next(12) {
            0 => format!("{name} = add {flag}i32 {a}, {b}"),
            1 => format!("{name} = sub {flag}i32 {a}, {b}"),
            2 => format!("{name} = mul {flag}i32 {a}, {c}"),
            3 => format!("{name} = shl i32 {a}, {}", next(32)),
            4 => format!(
                "{name} = {} i32 {a}, {}",
                ["lshr", "ashr"][next(2)],
                next(8)
            ),
            5 => format!(
                "{name} = {} i32 {a}, {c}",
                ["udiv", "sdiv", "urem"][next(3)]
            )
            .replace(", 0", ", 2"),
            6 => format!("{name} = {} i32 {a}, {c}", ["and", "or", "xor"][next(3)]),
            7 => {
                let pred = [
                    "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
                ][next(10)];
                lines.push(format!("  %c{k} = icmp {pred} i32 {a}, {b}"));
                format!("{name} = zext i1 %c{k} to i32")
            }
            8 => {
                let ext = ["zext", "sext"][next(2)];
                lines.push(format!("  %w{k} = {ext} i32 {a} to i64"));
                i64s.push(format!("%w{k}"));
                let other = i64s[next(i64s.len())].clone();
                lines.push(format!("  %s{k} = add i64 %w{k}, {other}"));
                i64s.push(format!("%s{k}"));
                format!("{name} = trunc i64 %s{k} to i32")
            }
            9 => {
                lines.push(format!("  %c{k} = icmp ult i32 {a}, {b}"));
                format!("{name} = select i1 %c{k}, i32 {a}, i32 {b}")
            }
            10 => format!("{name} = add i32 {a}, {c}"),
            _ => format!(
                "{name} = {} i32 {a}, {b}",
                ["and", "or", "xor", "mul"][next(4)]
            ),
        };
        lines.push(format!("  {line}"));
        i32s.push(name);
    }
    let last = i32s.last().cloned().unwrap_or_else(|| "%t".into());
    format!(
        "declare i32 @pllvm.thread_id()\n\ndefine i32 @f(i32 %n, i32 %m, i64 %q) {{\nA:\n{}\n  ret i32 {last}\n}}\n",
        lines.join("\n")
    )
}

/// The arithmetic chains: every stride-alignment claim holds in every lane, for
/// W = 1..=8 and uniform inputs near the wrap-around points.
#[test]
fn sa_is_sound_on_arithmetic_chains() {
    const INPUTS: [i64; 8] = [0, 1, 5, -3, 2147483640, -2147483648, 715827883, 1 << 20];
    let (mut strided, mut checked) = (0, 0);
    let (mut chunk_checked, mut array_refuted) = (0, 0);
    for seed in 0..3000u64 {
        let src = arithmetic_program(seed);
        let module = match pllvm_semantics::text::parse_module(&src) {
            Ok((m, _)) => m,
            Err(e) => panic!("seed {seed}: {e:?}\n{src}"),
        };
        let Some(func) = module.first_definition() else {
            panic!("seed {seed}: no function")
        };
        let names = ["n".to_string(), "m".to_string(), "q".to_string()];
        let init = match InitShapes::with_uniform(&module.functions[func], &names) {
            Ok(i) => i,
            Err(e) => panic!("{e}"),
        };
        let width = 1 + (seed % 8) as usize;
        for sa_width in [None, Some(width as u32)] {
            let sa = match analyze_for_width(&module, func, AnalysisKind::Sa, &init, sa_width) {
                Ok(r) => r,
                Err(e) => panic!("seed {seed}: {e}"),
            };
            strided += sa
                .strides
                .values()
                .filter(|s| matches!(s, SaShape::Strided { stride, .. } if *stride != 0))
                .count();
            let mut run = RunConfig {
                threads: width,
                ..RunConfig::default()
            };
            let pick = |k: u64| INPUTS[((seed >> k) % INPUTS.len() as u64) as usize];
            for spec in [
                format!("n={}", pick(1)),
                format!("m={}", pick(4)),
                format!("q={}", pick(7)),
            ] {
                if let Err(e) = run.add_arg(&spec) {
                    panic!("{e}");
                }
            }
            match stride_violations(&module, &sa, &run) {
                Ok(v) if v.is_empty() => checked += 1,
                Ok(v) => panic!(
                    "seed {seed}, W = {width}, sa width {sa_width:?}: {}\n{src}",
                    v.join("; ")
                ),
                Err(e) => panic!("seed {seed}: {e}\n{src}"),
            }
            // The same run as a chunk of a larger thread array: lane 0's thread
            // id c·W with c small and next to 2^31 and 2^32 (where `sext` and
            // `zext` wrap), for `sa` in chunks; the thread-array claims (lane
            // t's id is t) must fail on some of them, or the chunk runs would
            // test nothing new.
            if sa_width.is_none() {
                continue;
            }
            let chunk = match analyze_sa(&module, func, &init, ThreadIds::Chunk(width as u32)) {
                Ok(r) => r,
                Err(e) => panic!("seed {seed}: {e}"),
            };
            let w = width as u64;
            for c in [1, 5, (1 << 31) / w - 1, (1 << 31) / w, (1 << 32) / w - 1] {
                let first = c * w;
                match stride_violations_from(&module, &chunk, &run, first) {
                    Ok(v) if v.is_empty() => chunk_checked += 1,
                    Ok(v) => panic!(
                        "seed {seed}, W = {width}, chunk from thread {first}: {}\n{src}",
                        v.join("; ")
                    ),
                    Err(e) => panic!("seed {seed}: {e}\n{src}"),
                }
                if stride_violations_from(&module, &sa, &run, first).is_ok_and(|v| !v.is_empty()) {
                    array_refuted += 1;
                }
            }
        }
    }
    eprintln!(
        "arithmetic chains: {checked} runs checked, {strided} strided claims; \
         {chunk_checked} chunk runs checked, thread-array claims refuted in {array_refuted}"
    );
    assert!(strided > 3000, "only {strided} strided claims");
    assert!(chunk_checked >= 5 * 3000, "only {chunk_checked} chunk runs");
    assert!(
        array_refuted > 1000,
        "the thread-array claims failed in only {array_refuted} chunk runs"
    );
}
