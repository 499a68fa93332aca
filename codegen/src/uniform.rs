//! Which branches the transforms may keep: the divergence analysis a pipeline runs
//! before each pass, an [`AnalysisKind`], by default [`AnalysisKind::Best`], the
//! most precise sound one (the meet of `thesis`, `popl` and `sa`; `llvm` on an
//! irreducible CFG), which the analysis crate's dispatcher
//! ([`pllvm_analysis::uniformity`]) computes as it computes the others.

use crate::error::{Site, TransformError};
use pllvm_analysis::result::{AnalysisKind, InitShapes, Uniformity};
use pllvm_analysis::uniformity;
use pllvm_semantics::ir::{FuncId, Module};

/// Runs `kind` on `func` with the parameters named in `uniform_args` uniform; an
/// analysis error is a refusal of `pass`.
pub fn analyze(
    module: &Module,
    func: FuncId,
    kind: AnalysisKind,
    uniform_args: &[String],
    pass: &'static str,
) -> Result<Uniformity, TransformError> {
    let err = |e: pllvm_analysis::result::AnalysisError| {
        TransformError::new(pass, Site::Function(func), e.to_string())
    };
    let init = InitShapes::for_function(module, func, uniform_args).map_err(err)?;
    uniformity::analyze(module, func, kind, &init).map_err(err)
}
