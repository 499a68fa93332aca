//! Every kernel of `corpus/kernels/` diff-executed natively at 1, W, W + 3 and 100
//! threads (docs/native.md), on scalar-c, avx2, avx512 (run where the CPU
//! has it) and neon (under qemu-aarch64), each target's runs in one batch. The
//! inputs are the kernel's first FREEZING `; run:` line with every per-lane
//! argument repeated cyclically to the thread count (so 100 threads run the
//! hand-checked inputs 25 times over, in chunks with a masked tail). A kernel whose
//! original uses a horizontal builtin runs at most W threads (its builtins range
//! over one chunk). `uniform-control.ll` reads `in[t]` from a 4-element array: the
//! test gives `@in` and `@out` 100 elements (the input repeated), the same kernel
//! written for 100 threads. Every run must agree with
//! the interpreter's FREEZING run of the
//! original, lane by lane and byte by byte. The irreducible state machine is left
//! out: the loop-based pipeline refuses it (`pllvm transform --pass reconverge`
//! is its route, and that output keeps divergent branches the native routes do
//! not take).

use crate::native_support;

use native_support::{case, freezing_runs, module, program, transformed_for, verdicts};
use pllvm_analysis::result::AnalysisKind;
use pllvm_codegen::Kernel;
use pllvm_codegen::native::{EmitOptions, Target, WorkDir, emit};
use pllvm_codegen::pipeline::Options;
use pllvm_differential::diff::{Reference, Verdict, uses_horizontal};
use pllvm_interp::RunConfig;
use pllvm_interp::config::ArgValue;
use pllvm_semantics::ir::{FuncId, Module};

const KERNELS: [&str; 8] = [
    "kdtree.ll",
    "logstar.ll",
    "mandelbrot.ll",
    "nab-if-cascade.ll",
    "safelog.ll",
    "tree-search.ll",
    "uniform-control.ll",
    "xsbench-binary-search.ll",
];

/// The arrays of `uniform-control.ll`, grown to this many elements.
const GROWN: usize = 100;

/// `config` for `threads` threads: every per-lane argument repeated cyclically,
/// and with `grow`, every initial memory too (to [`GROWN`] elements).
fn widened(config: &RunConfig, threads: usize, grow: bool) -> RunConfig {
    let mut c = config.clone();
    c.threads = threads;
    if grow {
        for values in c.memory.values_mut() {
            *values = values.iter().cycle().take(GROWN).cloned().collect();
        }
    }
    for value in c.args.values_mut() {
        if let ArgValue::PerLane(lanes) = value
            && !lanes.is_empty()
        {
            *lanes = lanes.iter().cycle().take(threads).cloned().collect();
        }
    }
    c.observe = false;
    c
}

struct Prepared {
    name: String,
    original: Module,
    transformed: Module,
    func: FuncId,
    run: RunConfig,
    grown: bool,
}

fn prepare(target: Target) -> Vec<Prepared> {
    KERNELS
        .iter()
        .map(|file| {
            let path = format!("{}/../corpus/kernels/{file}", env!("CARGO_MANIFEST_DIR"));
            let mut src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let grown = *file == "uniform-control.ll";
            if grown {
                // @in and @out (not the constant @coef, indexed by the loop count).
                for g in [
                    "global [4 x i32]",
                    "[4 x i32], ptr @in",
                    "[4 x i32], ptr @out",
                ] {
                    src = src.replace(g, &g.replace('4', &GROWN.to_string()));
                }
            }
            let original = module(&src);
            let func = original.first_definition().expect("a kernel");
            // Live-outs as `pllvm compile` keeps them for the target.
            let options = Options {
                live_outs: target.live_outs(),
                ..Options::default()
            };
            let transformed = transformed_for(&original, func, &options)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            let (_, run) = freezing_runs(&src)
                .into_iter()
                .next()
                .unwrap_or_else(|| panic!("{file} has no FREEZING run line"));
            Prepared {
                name: file.trim_end_matches(".ll").replace('-', "_"),
                original,
                transformed,
                func,
                run,
                grown,
            }
        })
        .collect()
}

fn check(target: Target) {
    let width = target.default_width();
    let kernels = prepare(target);
    let mut plan: Vec<(usize, usize, String)> = Vec::new();
    for (k, p) in kernels.iter().enumerate() {
        let horizontal = uses_horizontal(&p.original, p.func);
        let mut counts: Vec<usize> = [1, width, width + 3, 100]
            .iter()
            .map(|&n| if horizontal { n.min(width) } else { n })
            .collect();
        counts.dedup();
        for n in counts {
            plan.push((k, n, format!("{}_n{n}", p.name)));
        }
    }
    let cases: Vec<_> = plan
        .iter()
        .map(|(k, n, name)| {
            let p = &kernels[*k];
            case(
                name,
                &p.original,
                &p.transformed,
                p.func,
                widened(&p.run, *n, p.grown),
            )
        })
        .collect();
    let batch: Vec<Kernel<'_>> = cases.iter().map(|c| c.kernel).collect();
    let options = EmitOptions {
        width,
        analysis: AnalysisKind::Best,
        linearized: true,
    };
    let source = emit(target, &batch, &options).unwrap_or_else(|e| panic!("{target}: {e}"));
    let dir = WorkDir::new().expect("a work directory");
    let prog = program(target, &source, &dir);
    let results = verdicts(&prog, &cases, width, Reference::OriginalFreezing);
    let mut agreed = 0;
    for ((_, n, name), v) in plan.iter().zip(&results) {
        match v {
            Verdict::Agree { .. } => agreed += 1,
            other => panic!("{target}: {name} at {n} threads: {other:?}"),
        }
    }
    eprintln!(
        "{target}: {agreed} runs of {} kernels agree (W = {width})",
        kernels.len()
    );
    assert_eq!(agreed, plan.len());
}

#[test]
fn corpus_kernels_agree_as_scalar_lane_c() {
    check(Target::ScalarC);
}

#[test]
fn corpus_kernels_agree_widened_for_avx2() {
    check(Target::Avx2);
}

#[test]
fn corpus_kernels_agree_widened_for_avx512() {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    if !cpu.contains("avx512f") {
        eprintln!(
            "this CPU has no AVX-512 (no avx512f in /proc/cpuinfo): the AVX-512 kernels cannot run here"
        );
        return;
    }
    check(Target::Avx512);
}

#[test]
fn corpus_kernels_agree_widened_for_neon_under_qemu() {
    check(Target::Neon);
}
