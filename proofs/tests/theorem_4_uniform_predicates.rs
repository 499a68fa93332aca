//! Theorem 4 (thesis §8.6, preservation of uniform control dependence): if the
//! predicate of a block `b` is uniform (`uni(b)`), execution reaches `b` in the
//! partially linearized CFG `G_ℓ` iff the predicate of `b` is true.
//!
//! The checkable form: linearize with every block predicated (Theorem 4's elision
//! switched off, `Settings::elide_uniform_predicates = false`), run the output
//! under OBLIVIOUS, and for every block whose activation the pass's analysis
//! calls uniform, every time the run schedules it the block's predicate is true
//! in every lane whose control mask is set (so every lane that has not returned
//! is active), and the run schedules it exactly as often as the FREEZING run of
//! the original executes it. This is what licenses `pl` to drop those blocks'
//! predicates (`Settings::partial`), whose output Theorem 3's test runs against
//! the original.

use pllvm_codegen::linearize::{Branches, Settings, linearize};
use pllvm_codegen::pipeline::{Options, Pass, PassContext};
use pllvm_codegen::uniform;
use pllvm_fuzz::{GenConfig, Generated, generate};
use pllvm_proofs::linearization::{observe, transformable};
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::{Block, Module};
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::{parse_module, print_module};
use pllvm_semantics::verify::verify_module;
use std::collections::HashMap;

/// Every block predicated: Listing 8 as `pl` runs it, without the elision.
const ALL_PREDICATED: Settings = Settings {
    branches: Branches::Uniform,
    elide_uniform_predicates: false,
};

/// The names of the blocks of `module`'s `@name` whose activation `options`'
/// analysis calls uniform.
fn uniform_blocks(module: &Module, name: &str, options: &Options) -> Result<Vec<String>, String> {
    let func = module.function_by_name(name).ok_or("no function")?;
    let u = uniform::analyze(
        module,
        func,
        options.analysis,
        &options.uniform_args,
        "theorem 4",
    )
    .map_err(|e| e.to_string())?;
    let body = module.functions[func].body.as_ref().ok_or("no body")?;
    Ok(body
        .layout
        .iter()
        .filter(|&&b| u.activation[b].is_uniform())
        .map(|&b| body.blocks[b].name.clone())
        .collect())
}

/// How often each block name is scheduled in a trace, and whether each of those
/// steps had every control-mask lane active.
fn schedule_counts(
    module: &Module,
    name: &str,
    trace: &[pllvm_interp::trace::TraceRow],
) -> HashMap<String, (usize, bool)> {
    let body = module
        .function_by_name(name)
        .and_then(|f| module.functions[f].body.as_ref());
    let block_name = |b: Block| body.map_or_else(String::new, |body| body.blocks[b].name.clone());
    let mut counts: HashMap<String, (usize, bool)> = HashMap::new();
    for row in trace {
        let entry = counts.entry(block_name(row.scheduled)).or_insert((0, true));
        entry.0 += 1;
        entry.1 &= row.cmask == row.active;
    }
    counts
}

/// Theorem 4 on `g` with `widths`; returns the number of (block, run) pairs checked.
fn check(seed: u64, g: &Generated, widths: &[usize]) -> Result<Option<usize>, String> {
    let options = Options {
        uniform_args: g.uniform_args(),
        ..Options::default()
    };
    let cx = PassContext {
        options: &options,
        pass: Pass::Pl,
    };
    let out = match linearize(&g.module, g.func, &cx, ALL_PREDICATED) {
        Ok(out) => out.module,
        Err(e) if e.message.contains("is divergent") => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let report = verify_module(&out, &SourceMap::default());
    if !report.is_ok() {
        return Err(format!("does not verify: {:?}", report.errors));
    }
    let name = g.module.functions[g.func].name.clone();
    let uniform = uniform_blocks(&g.module, &name, &options)?;
    let mut checked = 0;
    for &width in widths {
        let columns = g.inputs(seed.wrapping_mul(31).wrapping_add(width as u64), width);
        let original = observe(&g.module, g, &columns, Interp::Freezing)?;
        if original.outcome != pllvm_interp::Outcome::Returned {
            continue;
        }
        let linear = observe(&out, g, &columns, Interp::Oblivious)?;
        let before = schedule_counts(&g.module, &name, &original.trace);
        let after = schedule_counts(&out, &name, &linear.trace);
        for b in &uniform {
            let (n_before, _) = before.get(b).copied().unwrap_or((0, true));
            let (n_after, all_active) = after.get(b).copied().unwrap_or((0, true));
            if !all_active {
                return Err(format!(
                    "W = {width}: %{b} (uniform activation) was scheduled with an inactive lane\n{}",
                    print_module(&out)
                ));
            }
            if n_before != n_after {
                return Err(format!(
                    "W = {width}: %{b} (uniform activation) ran {n_before} times in G, {n_after} in G_l\n{}",
                    print_module(&out)
                ));
            }
            checked += 1;
        }
    }
    Ok(Some(checked))
}

fn sweep(label: &str, config: &GenConfig, seeds: std::ops::Range<u64>) -> usize {
    let mut failures = Vec::new();
    let (mut checked, mut programs, mut refused) = (0, 0, 0);
    for seed in seeds {
        let g = generate(seed, config);
        match check(seed, &g, &[1, 4]) {
            Ok(Some(n)) => {
                programs += 1;
                checked += n;
            }
            Ok(None) => refused += 1,
            Err(why) => failures.push(format!("seed {seed}: {why}")),
        }
    }
    eprintln!(
        "theorem 4 ({label}): {programs} programs, {checked} (uniform block, run) pairs checked, {refused} refused (divergent loops)"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    checked
}

#[test]
fn theorem_4_on_generated_acyclic_programs() {
    let checked = sweep("acyclic", &transformable(GenConfig::acyclic()), 0..300);
    assert!(checked > 1000, "{checked}");
}

#[test]
fn theorem_4_on_generated_programs_with_loops() {
    let checked = sweep("loops", &transformable(GenConfig::reducible()), 0..500);
    assert!(checked > 200, "{checked}");
}

/// Fig. 8.1: B is control dependent only on the uniform branch in A, so with
/// every block predicated B's predicate is `%p`, and B runs iff `%p` holds, with
/// every lane active.
#[test]
fn theorem_4_on_fig_8_1() {
    let src = "
define i32 @foo(i1 %p, i32 %tid) {
A:
  br i1 %p, label %B, label %E
B:
  %c = icmp slt i32 %tid, 2
  br i1 %c, label %C, label %D
C:
  %vc = mul i32 %tid, 10
  br label %E
D:
  %vd = add i32 %tid, 100
  br label %E
E:
  %v = phi i32 [0, %A], [%vc, %C], [%vd, %D]
  ret i32 %v
}
";
    let (module, _) = parse_module(src).expect("parses");
    let func = module.first_definition().expect("foo");
    let options = Options {
        uniform_args: vec!["p".into()],
        ..Options::default()
    };
    let cx = PassContext {
        options: &options,
        pass: Pass::Pl,
    };
    let out = linearize(&module, func, &cx, ALL_PREDICATED)
        .expect("linearizes")
        .module;
    let body = out.functions[func].body.as_ref().expect("body");
    let b = body.block_by_name("B").expect("B");
    let p = body.value_by_name("p").expect("%p");
    assert_eq!(body.blocks[b].predicate, Some(p), "{}", print_module(&out));
    for (p, runs_b) in [(1, true), (0, false)] {
        let mut config = pllvm_interp::RunConfig {
            threads: 4,
            interp: Interp::Oblivious,
            ..Default::default()
        };
        use pllvm_interp::config::{ArgValue, Scalar};
        config
            .args
            .insert("p".into(), ArgValue::Uniform(Scalar::Int(p)));
        config.args.insert(
            "tid".into(),
            ArgValue::PerLane((0..4).map(Scalar::Int).collect()),
        );
        let mut m = pllvm_interp::Machine::new(&out, &config).expect("sets up");
        m.record_trace = true;
        m.trace_limit = None;
        m.run_to_end().expect("runs");
        let rows: Vec<_> = m.trace.iter().filter(|r| r.scheduled == b).collect();
        assert_eq!(!rows.is_empty(), runs_b);
        assert!(rows.iter().all(|r| r.active.iter().all(|&a| a)));
    }
}
