//! The divergent loop transform (thesis §9.1). Being written (issue 16).

use crate::error::{Site, TransformError};
use crate::pipeline::PassContext;
use pllvm_semantics::ir::{FuncId, Module};

/// [§9.1] Makes every divergent loop of `func` uniform.
pub fn divergent_loop_transform(
    _module: &Module,
    func: FuncId,
    _cx: &PassContext<'_>,
) -> Result<(Module, Vec<String>), TransformError> {
    Err(TransformError::new(
        "dlt",
        Site::Function(func),
        "not built yet",
    ))
}
