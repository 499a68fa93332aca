//! Partial linearization (thesis Ch. 8). Being written (issue 16).

use crate::error::{Site, TransformError};
use crate::pipeline::PassContext;
use pllvm_semantics::ir::{FuncId, Module};

/// [Listing 8] Partially linearizes `func`.
pub fn partial_linearization(
    _module: &Module,
    func: FuncId,
    _cx: &PassContext<'_>,
) -> Result<(Module, Vec<String>), TransformError> {
    Err(TransformError::new(
        "pl",
        Site::Function(func),
        "not built yet",
    ))
}
