//! One kernel of a native batch: a function of a transformed module, the unit the
//! native routes (the widening to vector LLVM IR and the scalar-lane C emitter)
//! compile. Both routes emit one translation unit for a batch of kernels, under the
//! ABI documented in `docs/native.md`.

use pllvm_semantics::ir::{FuncId, Module};

/// A function of a module after the transform pipeline, named for the batch.
#[derive(Clone, Copy, Debug)]
pub struct Kernel<'m> {
    /// The kernel's name in the batch: unique, `[A-Za-z0-9_]+`.
    pub name: &'m str,
    /// The transformed module (every branch uniform, or a BOSCC branch on `any`).
    pub module: &'m Module,
    /// The kernel function in `module`.
    pub function: FuncId,
    /// Parameters (by name or number) the transforms treated as uniform
    /// (`--uniform-args`): the widening reads each once per chunk (lane 0's word)
    /// and keeps it scalar, so the branches the transforms kept on it stay
    /// uniform branches.
    pub uniform_args: &'m [String],
}
