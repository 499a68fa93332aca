//! The dispatcher of the divergence analyses: [`analyze`] runs the analysis an
//! [`AnalysisKind`] names and returns its [`Uniformity`] ([`crate::result`]). Each
//! analysis has one entry point, `analyze`, in its own module:
//! - `thesis`: the divergence analysis of thesis Ch. 6 (Listings 1-3, the [DA-*]
//!   transformers, Alloca SSA of §6.6) with the control-divergence algorithms of
//!   Ch. 7 (`global_joins`), [`crate::thesis::analyze`];
//! - `popl`: the uniformity abstract interpretation of POPL'21 §4.3 (relevant splits
//!   on the head-rewired CFG, §4.6, found with `labelDisj`, §5) with the definite
//!   reaching definitions refinement of §6, [`crate::popl::analyze`];
//! - `llvm`: the static uniformity analysis of LLVM's "Convergence and Uniformity",
//!   [`crate::llvm::analyze`];
//! - `sa`: the thesis analysis with the stride-alignment lattice of thesis Ch. 10
//!   for integer and pointer values, [`crate::stride::analyze`];
//! - `best`: the meet of `thesis`, `popl` and `sa` ([`Uniformity::meet_with`]),
//!   `llvm` on an irreducible CFG, [`analyze_best`].
//!
//! `thesis` and `popl` assume a reducible CFG (thesis §2.4, POPL'21 §3.1); they
//! report an irreducible function as [`AnalysisError::Irreducible`], never analysed.
//! `llvm` analyses any CFG.

use crate::facts::CfgFacts;
use crate::result::{AnalysisError, AnalysisKind, InitShapes, Uniformity};
use crate::stride::ThreadIds;
use crate::{llvm, popl, stride, thesis};
use pllvm_semantics::ir::{Body, FuncId, Module};

/// Runs `kind` on `func` of `module` (for `sa`: a thread array of any width).
pub fn analyze(
    module: &Module,
    func: FuncId,
    kind: AnalysisKind,
    init: &InitShapes,
) -> Result<Uniformity, AnalysisError> {
    analyze_for_width(module, func, kind, init, None)
}

/// Runs `kind` on `func` of `module` for a thread array of at most `width` lanes
/// (`None`: any width). Only `sa` (and `best` through it) depends on the width
/// (thesis Fig. 10.12).
pub fn analyze_for_width(
    module: &Module,
    func: FuncId,
    kind: AnalysisKind,
    init: &InitShapes,
    width: Option<u32>,
) -> Result<Uniformity, AnalysisError> {
    let body = body_of(module, func)?;
    if kind == AnalysisKind::Llvm {
        return Ok(llvm::analyze(module, func, body, init));
    }
    if kind == AnalysisKind::Best {
        return analyze_best(module, func, init, ThreadIds::Array(width));
    }
    let facts = facts_of(module, func, body)?;
    match kind {
        AnalysisKind::Thesis => Ok(thesis::analyze(module, func, body, &facts, init)),
        AnalysisKind::Popl => Ok(popl::analyze(module, func, body, &facts, init)),
        AnalysisKind::Llvm => Ok(llvm::analyze(module, func, body, init)),
        AnalysisKind::Sa => Ok(stride::analyze(
            module,
            func,
            body,
            &facts,
            init,
            ThreadIds::Array(width),
        )),
        AnalysisKind::Best => analyze_best(module, func, init, ThreadIds::Array(width)),
    }
}

/// [`AnalysisKind::Best`] on `func` of `module`, `sa` for the thread ids `ids`:
/// the meet of `thesis`, `popl` and `sa` (each sound, none more precise than the
/// others on every program, so their meet is sound and at least as precise as
/// each); on an irreducible CFG, which those three do not analyse, `llvm`'s
/// result. Either way the result is labelled `best`.
pub fn analyze_best(
    module: &Module,
    func: FuncId,
    init: &InitShapes,
    ids: ThreadIds,
) -> Result<Uniformity, AnalysisError> {
    let body = body_of(module, func)?;
    let mut best = match facts_of(module, func, body) {
        Ok(facts) => {
            let mut best = thesis::analyze(module, func, body, &facts, init);
            best.meet_with(&popl::analyze(module, func, body, &facts, init));
            best.meet_with(&stride::analyze(module, func, body, &facts, init, ids));
            best
        }
        Err(AnalysisError::Irreducible(_)) => llvm::analyze(module, func, body, init),
        Err(e) => return Err(e),
    };
    best.analysis = AnalysisKind::Best;
    Ok(best)
}

/// Runs `sa` on `func` of `module` for the thread ids `ids` describes: a thread
/// array alone (what [`analyze_for_width`] runs) or one chunk of W lanes of a
/// larger one, whose thread ids start at a multiple of W (the native backend).
pub fn analyze_sa(
    module: &Module,
    func: FuncId,
    init: &InitShapes,
    ids: ThreadIds,
) -> Result<Uniformity, AnalysisError> {
    let body = body_of(module, func)?;
    let facts = facts_of(module, func, body)?;
    Ok(stride::analyze(module, func, body, &facts, init, ids))
}

/// `func`'s body, or [`AnalysisError::NoBody`] for a declaration.
fn body_of(module: &Module, func: FuncId) -> Result<&Body, AnalysisError> {
    let data = &module.functions[func];
    data.body
        .as_ref()
        .ok_or_else(|| AnalysisError::NoBody(data.name.clone()))
}

/// The CFG facts the reducible analyses need, or [`AnalysisError::Irreducible`].
fn facts_of(module: &Module, func: FuncId, body: &Body) -> Result<CfgFacts, AnalysisError> {
    CfgFacts::for_function(&module.functions[func].name, body)
        .map_err(|e| AnalysisError::Irreducible(e.to_string()))
}

/// Runs `kind` on the function called `name` (or the first definition).
pub fn analyze_named(
    module: &Module,
    name: Option<&str>,
    kind: AnalysisKind,
    uniform_args: &[String],
) -> Result<Uniformity, AnalysisError> {
    let func = match name {
        Some(n) => {
            let n = n.trim_start_matches('@');
            module
                .function_by_name(n)
                .ok_or_else(|| AnalysisError::NoFunction(n.to_string()))?
        }
        None => module
            .first_definition()
            .ok_or_else(|| AnalysisError::NoFunction("(any definition)".into()))?,
    };
    let init = InitShapes::with_uniform(&module.functions[func], uniform_args)?;
    analyze(module, func, kind, &init)
}
