//! Generated programs through the native backend (docs/native.md): each program goes
//! through the transform pipeline (`nonneg-div,dlt,boscc,pl`), a whole batch is emitted for
//! one target as one translation unit, built and linked once, run once (the
//! runner forks per kernel), and every run is compared lane by lane with the
//! original program under FREEZING (`pllvm_differential::diff`).
//!
//! The programs are the generator's unpredicated SPMD code (what a front end
//! hands the transforms) without integers wider than 64 bits (the native ABI's
//! words), with a written buffer slice per thread for up to [`MAX_THREADS`]
//! threads: chunks of a launch run one after the other natively and interleaved
//! by the interpreter, so lanes of different chunks must not share a slice. A
//! program with horizontal builtins runs at most W threads: its builtins range
//! over one chunk (`docs/native.md`).

use crate::{GenConfig, Generated, generate};
use pllvm_codegen::native::{EmitOptions, Target, WorkDir, build, emit};
use pllvm_codegen::pipeline::native_passes;
use pllvm_codegen::widen::CONTIGUOUS;
use pllvm_codegen::{Kernel, Options, run_passes};
use pllvm_differential::diff::{DiffCase, Reference, Verdict, diff_batch};
use pllvm_semantics::ir::Module;
use pllvm_semantics::rules::Interp;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// The most threads of one run: the generator gives every written buffer this
/// many disjoint slices.
pub const MAX_THREADS: u32 = 128;

/// The generator configuration for native batches (see the module doc).
pub fn native_config() -> GenConfig {
    GenConfig {
        max_blocks: 20,
        max_loop_depth: 2,
        max_trip_count: 3,
        max_insts_per_block: 4,
        irreducible: false,
        predicates: false,
        self_predicates: false,
        predicated_branches: false,
        shadow_phis: false,
        total: false,
        mask: false,
        wide_ints: false,
        own_slice_reads: true,
        thread_indexed: true,
        max_threads: MAX_THREADS,
        ..GenConfig::full()
    }
}

/// What one batch did.
#[derive(Clone, Debug, Default)]
pub struct BatchReport {
    /// Programs generated.
    pub programs: usize,
    /// Runs compared (program × thread count).
    pub runs: usize,
    /// Runs that agree lane by lane.
    pub agreed: usize,
    /// Programs with a load or store the widening made contiguous (the `sa`
    /// analysis proved stride 1: [`pllvm_codegen::widen::CONTIGUOUS`] in the
    /// emitted IR; always 0 for scalar C).
    pub contiguous: usize,
    /// Runs not compared because the original has undefined behaviour (or ran
    /// out of steps).
    pub skipped: usize,
    /// Everything else, one line each naming the seed, the thread count and
    /// the verdict: a difference, a native failure, a refusal (by a transform,
    /// an emitter, or of the inputs).
    pub failures: Vec<String>,
    /// Time spent generating, transforming and emitting.
    pub prepare: Duration,
    /// Time spent building (llc-19 or gcc, and the link).
    pub build: Duration,
    /// Time spent running the interpreter and the native program, and comparing.
    pub run: Duration,
}

impl BatchReport {
    /// Adds another batch's counts and times.
    pub fn absorb(&mut self, other: BatchReport) {
        self.programs += other.programs;
        self.runs += other.runs;
        self.agreed += other.agreed;
        self.contiguous += other.contiguous;
        self.skipped += other.skipped;
        self.failures.extend(other.failures);
        self.prepare += other.prepare;
        self.build += other.build;
        self.run += other.run;
    }
}

/// One generated and transformed program.
struct Prepared {
    seed: u64,
    generated: Generated,
    options: Options,
    transformed: Module,
    name: String,
}

/// Generates the programs of `seeds` under `cfg`, transforms them, and diff-executes
/// each at every thread count of `threads` on `target`, in one native batch. A
/// program with horizontal builtins runs at most `width` threads (a count above
/// is lowered to `width`, repeats dropped): its builtins range over one chunk.
pub fn diff_generated(
    seeds: impl IntoIterator<Item = u64>,
    cfg: &GenConfig,
    target: Target,
    width: usize,
    threads: &[usize],
) -> Result<BatchReport, String> {
    let mut report = BatchReport::default();
    let start = Instant::now();
    let mut prepared: Vec<Prepared> = Vec::new();
    for seed in seeds {
        report.programs += 1;
        let generated = generate(seed, cfg);
        let options = uniform_options(&generated, target);
        match run_passes(
            &generated.module,
            generated.func,
            &native_passes(),
            &options,
        ) {
            Ok(stages) => {
                let Some(last) = stages.into_iter().last() else {
                    report.failures.push(format!("seed {seed}: no stage"));
                    continue;
                };
                prepared.push(Prepared {
                    seed,
                    generated,
                    options,
                    transformed: last.module,
                    name: format!("g{seed}"),
                });
            }
            Err(e) => report
                .failures
                .push(format!("seed {seed}: the transforms refused it: {e}")),
        }
    }
    // One case per program and thread count; one kernel per case.
    let mut names: Vec<String> = Vec::new();
    let mut plan: Vec<(usize, usize)> = Vec::new();
    for (p, prog) in prepared.iter().enumerate() {
        let horizontal =
            pllvm_differential::diff::uses_horizontal(&prog.generated.module, prog.generated.func);
        let mut counts: Vec<usize> = threads
            .iter()
            .map(|&n| if horizontal { n.min(width) } else { n })
            .collect();
        counts.dedup();
        for n in counts {
            plan.push((p, n));
            names.push(format!("{}_n{n}", prog.name));
        }
    }
    let cases: Vec<DiffCase<'_>> = plan
        .iter()
        .zip(&names)
        .map(|(&(p, n), name)| {
            let prog = &prepared[p];
            let mut config = prog
                .generated
                .run_config(&prog.generated.inputs(prog.seed, n), Interp::Freezing);
            config.observe = false;
            config.max_steps = 100_000;
            DiffCase {
                kernel: Kernel {
                    name,
                    module: &prog.transformed,
                    function: prog.generated.func,
                    uniform_args: &prog.options.uniform_args,
                },
                original: &prog.generated.module,
                original_function: prog.generated.func,
                config,
            }
        })
        .collect();
    let emit_options = EmitOptions {
        width,
        analysis: Options::default().analysis,
        linearized: true,
    };
    let kernels: Vec<Kernel<'_>> = cases.iter().map(|c| c.kernel).collect();
    // An emitter's refusal names one kernel: find it, report it, emit the rest.
    let mut kept: Vec<usize> = (0..cases.len()).collect();
    let source = loop {
        let batch: Vec<Kernel<'_>> = kept.iter().map(|&k| kernels[k]).collect();
        match emit(target, &batch, &emit_options) {
            Ok(source) => break source,
            Err(e) => {
                let Some(at) = kept
                    .iter()
                    .position(|&k| emit(target, &[kernels[k]], &emit_options).is_err())
                else {
                    return Err(format!("the batch does not emit: {e}"));
                };
                let k = kept.remove(at);
                report.failures.push(format!(
                    "seed {} at {} threads: the {target} emitter refused it: {e}",
                    prepared[plan[k].0].seed, plan[k].1
                ));
            }
        }
    };
    report.prepare += start.elapsed();
    let contiguous = contiguous_kernels(source.text());
    let programs: BTreeSet<usize> = kept
        .iter()
        .filter(|&&k| contiguous.contains(names[k].as_str()))
        .map(|&k| plan[k].0)
        .collect();
    report.contiguous += programs.len();
    let start = Instant::now();
    let dir = WorkDir::new().map_err(|e| e.to_string())?;
    let program = build(target, &source, dir.path()).map_err(|e| e.to_string())?;
    report.build += start.elapsed();
    let start = Instant::now();
    let kept_cases: Vec<DiffCase<'_>> = kept.iter().map(|&k| cases[k].clone()).collect();
    let verdicts = diff_batch(
        &program,
        &kept_cases,
        width,
        Reference::OriginalFreezing,
        10,
        Duration::from_secs(300),
    )
    .map_err(|e| e.to_string())?;
    report.run += start.elapsed();
    for (&k, verdict) in kept.iter().zip(&verdicts) {
        report.runs += 1;
        let (p, n) = plan[k];
        match verdict {
            Verdict::Agree { .. } => report.agreed += 1,
            Verdict::Skipped(_) => report.skipped += 1,
            other => report.failures.push(format!(
                "seed {} at {n} threads on {target}: {other:?}",
                prepared[p].seed
            )),
        }
    }
    Ok(report)
}

/// The pipeline options for `g`: the parameters it feeds uniformly are uniform
/// (so uniform branches and loops are kept, as `pllvm compile --uniform-args`);
/// the kernel tells the widening the same; live-outs kept as `pllvm compile`
/// keeps them for `target`.
fn uniform_options(g: &Generated, target: Target) -> Options {
    Options {
        uniform_args: g.uniform_args(),
        live_outs: target.live_outs(),
        ..Options::default()
    }
}

/// The kernels of a widened batch with a contiguous load or store: the names
/// after the `pllvm_full_`, `pllvm_part_` or `pllvm_chunk_` of the chunk
/// functions whose body has a line ending in [`CONTIGUOUS`].
fn contiguous_kernels(ir: &str) -> BTreeSet<&str> {
    let mut current = None;
    let mut found = BTreeSet::new();
    for line in ir.lines() {
        if let Some(rest) = line.strip_prefix("define internal void @") {
            let name = rest.split('(').next().unwrap_or("");
            current = ["pllvm_full_", "pllvm_part_", "pllvm_chunk_"]
                .iter()
                .find_map(|p| name.strip_prefix(p));
        } else if line.ends_with(CONTIGUOUS)
            && let Some(kernel) = current
        {
            found.insert(kernel);
        }
    }
    found
}
