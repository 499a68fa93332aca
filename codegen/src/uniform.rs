//! Which branches the transforms may keep: the divergence analysis a pipeline runs
//! before each pass ([`AnalysisChoice`]), by default the most precise sound one.
//!
//! The thesis analysis (Ch. 6-7), the POPL'21 analysis and the stride-alignment
//! analysis (Ch. 10) are each sound (every `u` they report holds in every run,
//! which `proofs/tests/soundness_explore.rs` checks against the interpreter), and
//! none is more precise than the others on every program. Their meet — a value,
//! terminator or block activation is uniform if one of them proves it — is
//! therefore sound too and at least as precise as each: that is [`AnalysisChoice::Best`],
//! the default. On an irreducible CFG only LLVM's analysis applies, and `Best`
//! falls back to it.

use crate::error::{Site, TransformError};
use pllvm_analysis::result::{AnalysisKind, InitShapes, Uniformity};
use pllvm_analysis::uniformity;
use pllvm_semantics::ir::{FuncId, Module};

/// The analysis that decides what is uniform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AnalysisChoice {
    /// One analysis (`--analysis thesis|popl|llvm|sa`).
    Kind(AnalysisKind),
    /// The meet of `thesis`, `popl` and `sa` (see the module doc); `llvm` on an
    /// irreducible CFG.
    #[default]
    Best,
}

impl AnalysisChoice {
    /// `best` or an analysis name.
    pub fn parse(name: &str) -> Option<AnalysisChoice> {
        match name {
            "best" => Some(AnalysisChoice::Best),
            other => AnalysisKind::parse(other).map(AnalysisChoice::Kind),
        }
    }

    /// The name `--analysis` takes.
    pub fn name(self) -> &'static str {
        match self {
            AnalysisChoice::Kind(k) => k.name(),
            AnalysisChoice::Best => "best",
        }
    }
}

/// Runs `choice` on `func` with the parameters named in `uniform_args` uniform.
pub fn analyze(
    module: &Module,
    func: FuncId,
    choice: AnalysisChoice,
    uniform_args: &[String],
    pass: &'static str,
) -> Result<Uniformity, TransformError> {
    let err = |e: pllvm_analysis::result::AnalysisError| {
        TransformError::new(pass, Site::Function(func), e.to_string())
    };
    let init = InitShapes::for_function(module, func, uniform_args).map_err(err)?;
    match choice {
        AnalysisChoice::Kind(kind) => uniformity::analyze(module, func, kind, &init).map_err(err),
        AnalysisChoice::Best => {
            let thesis = uniformity::analyze(module, func, AnalysisKind::Thesis, &init);
            let Ok(mut best) = thesis else {
                // Irreducible: only LLVM's analysis handles it.
                return uniformity::analyze(module, func, AnalysisKind::Llvm, &init).map_err(err);
            };
            for kind in [AnalysisKind::Popl, AnalysisKind::Sa] {
                let other = uniformity::analyze(module, func, kind, &init).map_err(err)?;
                meet_into(&mut best, &other);
            }
            Ok(best)
        }
    }
}

/// `best ⊓= other`, entry by entry: what either analysis proves uniform is uniform.
fn meet_into(best: &mut Uniformity, other: &Uniformity) {
    let values: Vec<_> = other.values.iter().map(|(k, &s)| (k, s)).collect();
    for (k, s) in values {
        best.values[k] = best.values[k].min(s);
    }
    let terms: Vec<_> = other.terminators.iter().map(|(k, &s)| (k, s)).collect();
    for (k, s) in terms {
        best.terminators[k] = best.terminators[k].min(s);
    }
    let acts: Vec<_> = other.activation.iter().map(|(k, &s)| (k, s)).collect();
    for (k, s) in acts {
        best.activation[k] = best.activation[k].min(s);
    }
    for (inst, s) in best.allocas.iter_mut() {
        if let Some(o) = other.allocas.get(inst) {
            *s = (*s).min(*o);
        }
    }
    for (b, s) in best.loop_exits.iter_mut() {
        if let Some(o) = other.loop_exits.get(b) {
            *s = (*s).min(*o);
        }
    }
    best.sync_joins.retain(|b| other.sync_joins.contains(b));
    best.temporal_joins
        .retain(|b| other.temporal_joins.contains(b));
    best.divergent_loops
        .retain(|b| other.divergent_loops.contains(b));
}
