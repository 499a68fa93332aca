//! The BOSCC gadget (thesis §9.2). Being written (issue 16).

use crate::error::{Site, TransformError};
use crate::pipeline::PassContext;
use pllvm_semantics::ir::{FuncId, Module};

/// Where gadgets go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Policy {
    /// The heuristic.
    #[default]
    Heuristic,
}

impl Policy {
    /// Reads `--boscc`.
    pub fn parse(text: &str) -> Result<Policy, String> {
        match text {
            "heuristic" => Ok(Policy::Heuristic),
            other => Err(format!("unknown --boscc policy '{other}'")),
        }
    }
}

/// Inserts BOSCC gadgets into `func`.
pub fn insert_gadgets(
    _module: &Module,
    func: FuncId,
    _cx: &PassContext<'_>,
) -> Result<(Module, Vec<String>), TransformError> {
    Err(TransformError::new(
        "boscc",
        Site::Function(func),
        "not built yet",
    ))
}
