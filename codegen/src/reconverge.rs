//! The reconverging-CFG transform. Being written (issue 16).

use crate::error::{Site, TransformError};
use crate::pipeline::PassContext;
use pllvm_semantics::ir::{FuncId, Module};

/// Makes `func` reconverging.
pub fn reconverge(
    _module: &Module,
    func: FuncId,
    _cx: &PassContext<'_>,
) -> Result<(Module, Vec<String>), TransformError> {
    Err(TransformError::new(
        "reconverge",
        Site::Function(func),
        "not built yet",
    ))
}
