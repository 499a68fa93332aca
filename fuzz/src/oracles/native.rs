//! `avx2`, `avx512`, `neon`, `scalar-c`: native code against the interpreter
//! (the native backend, `docs/native.md`; `fuzz/src/native.rs`). Each case goes through
//! the transform pipeline `nonneg-div,dlt,boscc,pl`, is emitted for the target (the
//! widening to vector LLVM IR and `llc-19`, or the scalar-lane C and gcc), run
//! natively and compared lane by lane and byte by byte with the original under
//! FREEZING (`pllvm_differential::diff`). A batch of cases is emitted, built
//! and run at once ([`Oracle::check_batch`]): one build for many programs. When
//! a batch does not build, its cases are checked one by one, so the build
//! failure is charged to the program that causes it.

use super::case::Case;
use super::oracle::{Host, Oracle, Verdict};
use crate::GenConfig;
use pllvm_codegen::native::{EmitOptions, Source, Target, WorkDir, build, emit};
use pllvm_codegen::pipeline::native_passes;
use pllvm_codegen::{Kernel, Options, run_passes};
use pllvm_differential::diff::{
    DiffCase, Difference, Reference, Verdict as NativeVerdict, diff_batch,
};
use pllvm_semantics::ir::Module;
use pllvm_semantics::rules::Interp;
use std::time::Duration;

/// One native oracle.
pub struct Native {
    target: Target,
}

impl Native {
    /// The oracle of `target`.
    pub fn new(target: Target) -> Native {
        Native { target }
    }
}

/// A case after the transforms.
struct Prepared {
    options: Options,
    transformed: Module,
    name: String,
}

impl Oracle for Native {
    fn name(&self) -> &'static str {
        self.target.name()
    }

    fn available(&self, host: &Host) -> Result<(), String> {
        match self.target {
            Target::Avx2 if !host.llc19 => Err("llc-19 does not run (apt-get install llvm-19)".into()),
            Target::Avx512 if !host.llc19 => {
                Err("llc-19 does not run (apt-get install llvm-19)".into())
            }
            Target::Avx2 | Target::Avx512 if let Some(why) = self.target.host_cannot_run() => {
                Err(why)
            }
            Target::Neon if !(host.llc19 && host.aarch64) => Err(
                "NEON needs llc-19, aarch64-linux-gnu-gcc and qemu-aarch64 (apt-get install llvm-19 gcc-aarch64-linux-gnu qemu-user)"
                    .into(),
            ),
            Target::ScalarC if !host.gcc => Err("gcc does not run".into()),
            _ => Ok(()),
        }
    }

    fn gen_config(&self) -> GenConfig {
        crate::native::native_config()
    }

    fn width(&self, seed: u64) -> usize {
        let w = self.target.default_width();
        [1, 3, w, w + 3][(seed % 4) as usize]
    }

    fn check(&self, case: &Case) -> Verdict {
        self.check_batch(std::slice::from_ref(case))
            .pop()
            .unwrap_or(Verdict::Skip("no verdict".into()))
    }

    fn check_batch(&self, cases: &[Case]) -> Vec<Verdict> {
        let width = self.target.default_width();
        let mut verdicts: Vec<Option<Verdict>> = vec![None; cases.len()];
        let prepared = self.prepare(cases, width, &mut verdicts);
        let kernels: Vec<(usize, Kernel<'_>)> = prepared
            .iter()
            .enumerate()
            .filter_map(|(k, p)| {
                let p = p.as_ref()?;
                Some((
                    k,
                    Kernel {
                        name: &p.name,
                        module: &p.transformed,
                        function: cases[k].func(),
                        uniform_args: &p.options.uniform_args,
                    },
                ))
            })
            .collect();
        let emit_options = EmitOptions {
            width,
            analysis: Options::default().analysis,
            linearized: true,
        };
        let (kept, emitted) = self.emit_kept(kernels, &emit_options, &mut verdicts);
        if !kept.is_empty() {
            self.run_kept(cases, &kept, emitted, &emit_options, &mut verdicts);
        }
        verdicts
            .into_iter()
            .map(|v| v.unwrap_or(Verdict::Skip("not checked".into())))
            .collect()
    }
}

impl Native {
    /// Each case through the transform pipeline (`None` where it gets its verdict
    /// here: horizontal builtins over more than one chunk, or a refusal).
    fn prepare(
        &self,
        cases: &[Case],
        width: usize,
        verdicts: &mut [Option<Verdict>],
    ) -> Vec<Option<Prepared>> {
        let mut prepared: Vec<Option<Prepared>> = Vec::new();
        for (k, case) in cases.iter().enumerate() {
            let options = Options {
                uniform_args: case.program.uniform_args(),
                live_outs: self.target.live_outs(),
                ..Options::default()
            };
            let horizontal = pllvm_differential::diff::uses_horizontal(case.module(), case.func());
            if horizontal && case.width > width {
                verdicts[k] = Some(Verdict::Skip(format!(
                    "{} threads with horizontal builtins need one chunk",
                    case.width
                )));
                prepared.push(None);
                continue;
            }
            match run_passes(case.module(), case.func(), &native_passes(), &options) {
                Ok(stages) => match stages.into_iter().last() {
                    Some(last) => prepared.push(Some(Prepared {
                        options,
                        transformed: last.module,
                        name: format!("k{k}"),
                    })),
                    None => {
                        verdicts[k] = Some(Verdict::fail("no stage", "the pipeline gave no stage"));
                        prepared.push(None);
                    }
                },
                Err(e) => {
                    verdicts[k] = Some(Verdict::fail("transforms refuse", e.to_string()));
                    prepared.push(None);
                }
            }
        }
        prepared
    }

    /// The kernels the emitter takes, and the batch's source when all of them
    /// emit together. Kernels the emitter refuses are charged to their cases
    /// (looked for one by one only when the whole batch does not emit).
    fn emit_kept<'k>(
        &self,
        kernels: Vec<(usize, Kernel<'k>)>,
        emit_options: &EmitOptions,
        verdicts: &mut [Option<Verdict>],
    ) -> (Vec<(usize, Kernel<'k>)>, Option<Source>) {
        let all: Vec<Kernel<'_>> = kernels.iter().map(|(_, k)| *k).collect();
        if let Ok(source) = emit(self.target, &all, emit_options) {
            return (kernels, Some(source));
        }
        let mut kept = Vec::new();
        for (k, kernel) in kernels {
            match emit(self.target, &[kernel], emit_options) {
                Ok(_) => kept.push((k, kernel)),
                Err(e) => {
                    verdicts[k] = Some(Verdict::fail(
                        format!("{} emitter refuses", self.target),
                        e.to_string(),
                    ));
                }
            }
        }
        (kept, None)
    }

    /// Builds the kept kernels as one program, runs it and compares every case
    /// with the original under FREEZING. A batch that does not build is checked
    /// case by case, so the failure is charged to the program that causes it.
    fn run_kept(
        &self,
        cases: &[Case],
        kept: &[(usize, Kernel<'_>)],
        emitted: Option<Source>,
        emit_options: &EmitOptions,
        verdicts: &mut [Option<Verdict>],
    ) {
        let width = emit_options.width;
        let batch: Vec<Kernel<'_>> = kept.iter().map(|(_, k)| *k).collect();
        let outcome = match emitted {
            Some(source) => Ok(source),
            None => emit(self.target, &batch, emit_options).map_err(|e| e.to_string()),
        }
        .and_then(|source| {
            let dir = WorkDir::new().map_err(|e| e.to_string())?;
            let program = build(self.target, &source, dir.path()).map_err(|e| e.to_string())?;
            let diff_cases: Vec<DiffCase<'_>> = kept
                .iter()
                .map(|(k, kernel)| {
                    let mut config = cases[*k].run_config(Interp::Freezing);
                    config.observe = false;
                    DiffCase {
                        kernel: *kernel,
                        original: cases[*k].module(),
                        original_function: cases[*k].func(),
                        config,
                    }
                })
                .collect();
            diff_batch(
                &program,
                &diff_cases,
                width,
                Reference::OriginalFreezing,
                10,
                Duration::from_secs(300),
            )
            .map_err(|e| e.to_string())
        });
        match outcome {
            Ok(native) => {
                for ((k, _), v) in kept.iter().zip(native) {
                    verdicts[*k] = Some(self.verdict_of(v));
                }
            }
            Err(e) if kept.len() == 1 => {
                verdicts[kept[0].0] =
                    Some(Verdict::fail(format!("{} build fails", self.target), e));
            }
            Err(_) => {
                for (k, _) in kept {
                    verdicts[*k] = Some(self.check(&cases[*k]));
                }
            }
        }
    }

    /// The oracle's verdict on one native comparison.
    fn verdict_of(&self, v: NativeVerdict) -> Verdict {
        match v {
            NativeVerdict::Agree { .. } => Verdict::Pass,
            // The oracle gives no deadline: a cut-off comes only from one, and
            // would be a check not made.
            NativeVerdict::Skipped(why)
            | NativeVerdict::Refused(why)
            | NativeVerdict::CutOff(why) => Verdict::Skip(why),
            NativeVerdict::Differ(d) => Verdict::fail(
                format!(
                    "{} differs: {}",
                    self.target,
                    match d {
                        Difference::Ret { .. } => "result",
                        Difference::Global { .. } => "memory",
                    }
                ),
                d.to_string(),
            ),
            NativeVerdict::NativeFailed(status) => {
                Verdict::fail(format!("{} run fails", self.target), format!("{status:?}"))
            }
        }
    }
}
