//! Full if-conversion. Being written (issue 16).

use crate::error::{Site, TransformError};
use crate::pipeline::PassContext;
use pllvm_semantics::ir::{FuncId, Module};

/// Fully if-converts `func`.
pub fn if_convert(
    _module: &Module,
    func: FuncId,
    _cx: &PassContext<'_>,
) -> Result<(Module, Vec<String>), TransformError> {
    Err(TransformError::new(
        "ifconv",
        Site::Function(func),
        "not built yet",
    ))
}
