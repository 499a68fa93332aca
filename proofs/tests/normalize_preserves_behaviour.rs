//! The loop normalizations of thesis §2.4 keep behaviour: generated reducible,
//! lane-local programs (`GenConfig::lane_local` without irreducible cycles) return
//! the same results and leave the same memory before and after
//! `pllvm_analysis::normalize::normalize_loops`, run by the interpreter under FREEZING
//! with 1, 3 and 4 lanes. The normalized program verifies (§4.10) and is in the
//! normal form the analyses assume (`violations` is empty).

use pllvm_analysis::normalize::{NormalizeStats, normalize_loops, violations};
use pllvm_fuzz::{GenConfig, Generated, InputScalar, generate};
use pllvm_interp::config::{ArgValue, Scalar};
use pllvm_interp::{Machine, Outcome, RunConfig};
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::Module;
use pllvm_semantics::rules::Interp;
use pllvm_semantics::value::Val;
use pllvm_semantics::verify::verify_module;

/// What a run leaves: the outcome, each lane's return value, and the bytes of
/// every global buffer as the interpreter reads them back.
#[derive(Debug, PartialEq)]
struct RunResult {
    outcome: String,
    results: Vec<Option<Val>>,
    buffers: Vec<Vec<Val>>,
}

/// Runs `module` (the program of `g`, possibly transformed) with `columns`.
fn run(
    module: &Module,
    g: &Generated,
    columns: &[(String, Vec<InputScalar>)],
) -> Result<RunResult, String> {
    let cfg = g.run_config(columns, Interp::Freezing);
    let mut m = Machine::new(module, &cfg).map_err(|e| format!("setup: {e}"))?;
    let outcome = m.run_to_end().map_err(|e| format!("run: {e}"))?;
    // Every global, scalar by scalar (arrays flattened), as the checker of
    // `pllvm_interp::equiv` reads them.
    let buffers: Vec<Vec<Val>> = m
        .global_contents()
        .into_iter()
        .map(|g| g.cells.into_iter().map(|c| c.value).collect())
        .collect();
    Ok(RunResult {
        outcome: format!("{outcome:?}"),
        results: m.results(),
        buffers,
    })
}

/// The property for one program seed; returns what normalization changed.
fn check(seed: u64) -> Result<NormalizeStats, String> {
    let config = GenConfig {
        irreducible: false,
        ..GenConfig::lane_local()
    };
    let g = generate(seed, &config);
    let mut normalized = g.module.clone();
    let body = normalized.functions[g.func]
        .body
        .as_mut()
        .ok_or("generated kernel without a body")?;
    let stats = normalize_loops(body).map_err(|e| e.to_string())?;
    let left = violations(body).map_err(|e| e.to_string())?;
    if !left.is_empty() {
        return Err(format!("not normalized: {left:?}"));
    }
    let printed = pllvm_semantics::text::print_module(&normalized);
    let report = verify_module(&normalized, &SourceMap::default());
    if !report.errors.is_empty() {
        return Err(format!(
            "normalized program does not verify: {:?}\n{printed}",
            report.errors
        ));
    }
    for width in [1usize, 3, 4] {
        let columns = g.inputs(seed.wrapping_mul(7919), width);
        let before = run(&g.module, &g, &columns)?;
        if before.outcome != format!("{:?}", Outcome::Returned) {
            // Fuel or undefined behaviour: the property is about returned runs.
            continue;
        }
        let after = run(&normalized, &g, &columns)?;
        if before != after {
            return Err(format!(
                "W = {width}: before {before:?}\nafter {after:?}\n{printed}"
            ));
        }
    }
    Ok(stats)
}

#[test]
fn normalizations_keep_behaviour() {
    let mut failures = Vec::new();
    let mut total = NormalizeStats::default();
    for seed in 0..400u64 {
        match check(seed) {
            Ok(stats) => {
                total.preheaders += stats.preheaders;
                total.latches += stats.latches;
                total.exit_blocks += stats.exit_blocks;
                total.lcssa_phis += stats.lcssa_phis;
            }
            Err(why) => failures.push(format!("seed {seed}: {why}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    eprintln!("{total:?}");
    // The generator emits loops with a preheader and one latch already; the
    // hand-written programs below cover those two transforms.
    assert!(total.exit_blocks > 0 && total.lcssa_phis > 0, "{total:?}");
}

/// Loops the generator does not make: two outside entries with different phi
/// values, three latches (one a `switch` with two cases to the header), an exit
/// with two exiting predecessors, and a value used after the loop
/// through two exits. Each `(program, inputs)` runs with the lanes given.
const HAND_WRITTEN: &[(&str, &[i64])] = &[
    (
        "define i32 @f(i32 %n) {
entry:
  %odd = and i32 %n, 1
  %c = icmp eq i32 %odd, 0
  br i1 %c, label %h, label %other
other:
  %m = mul i32 %n, 3
  %c2 = icmp sgt i32 %m, 20
  br i1 %c2, label %early, label %h
early:
  ret i32 %m
h:
  %i = phi i32 [ 0, %entry ], [ %m, %other ], [ %i1, %a ], [ %i2, %b ], [ %i2, %b ], [ %i3, %d ]
  %s = phi i32 [ 1, %entry ], [ 2, %other ], [ %s1, %a ], [ %s1, %b ], [ %s1, %b ], [ %s1, %d ]
  %i1 = add i32 %i, 1
  %s1 = add i32 %s, %i
  %t = icmp slt i32 %i1, %n
  br i1 %t, label %a, label %x
a:
  %i2 = add i32 %i1, 2
  %k = urem i32 %i2, 4
  switch i32 %k, label %h [ i32 1, label %b i32 2, label %d i32 3, label %x ]
b:
  %k2 = urem i32 %i2, 3
  switch i32 %k2, label %h [ i32 1, label %h i32 2, label %y ]
d:
  %i3 = add i32 %i2, 5
  br label %h
x:
  %r = add i32 %s1, 4
  br label %join
y:
  br label %join
join:
  %q = phi i32 [ %r, %x ], [ 7, %y ]
  %z = add i32 %q, %i1
  ret i32 %z
}
",
        &[0, 1, 2, 3, 5, 8, 9, 13, 21, 30],
    ),
    (
        "define i32 @g(i32 %n) {
entry:
  br label %outer
outer:
  %o = phi i32 [ 0, %entry ], [ %o1, %olatch ], [ %o1, %skip ]
  %acc = phi i32 [ 0, %entry ], [ %v, %olatch ], [ %acc, %skip ]
  %o1 = add i32 %o, 1
  %e = icmp sgt i32 %o1, %n
  br i1 %e, label %done, label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j1, %inner ]
  %j1 = add i32 %j, %o1
  %v = add i32 %j1, %acc
  %f = icmp slt i32 %j1, 10
  br i1 %f, label %inner, label %after
after:
  %w = urem i32 %v, 2
  %g = icmp eq i32 %w, 0
  br i1 %g, label %olatch, label %skip
olatch:
  br label %outer
skip:
  br label %outer
done:
  %res = add i32 %acc, %o1
  ret i32 %res
}
",
        &[0, 1, 2, 4, 6],
    ),
];

#[test]
fn hand_written_loops_keep_behaviour() {
    let mut total = NormalizeStats::default();
    for (src, inputs) in HAND_WRITTEN {
        let (module, spans) =
            pllvm_semantics::text::parse_module(src).unwrap_or_else(|e| panic!("{e:?}"));
        let report = verify_module(&module, &spans);
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        let mut normalized = module.clone();
        let func = normalized.first_definition().expect("a definition");
        let body = normalized.functions[func].body.as_mut().expect("a body");
        let stats = normalize_loops(body).expect("reducible");
        total.preheaders += stats.preheaders;
        total.latches += stats.latches;
        total.exit_blocks += stats.exit_blocks;
        total.lcssa_phis += stats.lcssa_phis;
        assert_eq!(violations(body).expect("reducible"), Vec::<String>::new());
        let printed = pllvm_semantics::text::print_module(&normalized);
        let report = verify_module(&normalized, &SourceMap::default());
        assert!(report.errors.is_empty(), "{:?}\n{printed}", report.errors);
        for width in [1usize, inputs.len()] {
            let lanes = &inputs[..width];
            let run_one = |m: &Module| {
                let mut cfg = RunConfig {
                    threads: width,
                    interp: Interp::Freezing,
                    ..Default::default()
                };
                cfg.args.insert(
                    "n".to_string(),
                    ArgValue::PerLane(lanes.iter().map(|&v| Scalar::Int(v)).collect()),
                );
                let mut machine = Machine::new(m, &cfg).unwrap_or_else(|e| panic!("setup: {e}"));
                let outcome = machine.run_to_end().unwrap_or_else(|e| panic!("run: {e}"));
                (format!("{outcome:?}"), machine.results())
            };
            let (before, after) = (run_one(&module), run_one(&normalized));
            assert_eq!(before.0, format!("{:?}", Outcome::Returned));
            assert_eq!(before, after, "W = {width}\n{printed}");
        }
    }
    assert!(
        total.preheaders > 0 && total.latches > 0 && total.exit_blocks > 0 && total.lcssa_phis > 0,
        "{total:?}"
    );
}
