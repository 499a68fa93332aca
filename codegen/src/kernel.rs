//! One kernel of a native batch: a function of a transformed module, the unit the
//! native routes (the widening to vector LLVM IR and the scalar-lane C emitter)
//! compile. Both routes emit one translation unit for a batch of kernels, under the
//! ABI documented in `docs/native.md`.

use crate::error::Site;
use pllvm_semantics::ir::{FuncId, InstKind, Module};

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

impl Kernel<'_> {
    /// The first construct of the kernel that neither native route compiles:
    /// vector and aggregate values and their instructions (`extractelement`,
    /// `insertelement`, `shufflevector`, `extractvalue`, `insertvalue`, element-wise
    /// operations on `<N x T>`), and the atomics (`atomicrmw`, `cmpxchg`, `fence`).
    /// The interpreter runs all of them; the native routes refuse before emitting
    /// anything, naming the instruction and the construct.
    pub fn unsupported_construct(&self) -> Option<(Site, String)> {
        let body = self.module.functions[self.function].body.as_ref()?;
        let types = &self.module.types;
        let composite = |t| {
            types.vector(t).is_some()
                || types.is_aggregate(t)
                || matches!(
                    types.get(t),
                    pllvm_semantics::types::TypeData::F16 | pllvm_semantics::types::TypeData::BF16
                )
        };
        for &block in &body.layout {
            let data = &body.blocks[block];
            for &inst in data.phis.iter().chain(&data.body) {
                let kind = &body.insts[inst].kind;
                let site = Site::Inst(self.function, inst);
                let opcode = kind.opcode();
                let what = match kind {
                    InstKind::AtomicRmw { .. }
                    | InstKind::CmpXchg { .. }
                    | InstKind::Fence { .. } => Some(format!(
                        "{opcode}: the native backend does not compile atomics"
                    )),
                    InstKind::ExtractElement { .. }
                    | InstKind::InsertElement { .. }
                    | InstKind::ShuffleVector { .. }
                    | InstKind::ExtractValue { .. }
                    | InstKind::InsertValue { .. } => Some(format!(
                        "{opcode}: the native backend does not compile vector or aggregate values"
                    )),
                    _ => {
                        let result = body.insts[inst].result.map(|r| body.values[r].ty);
                        let typed = kind
                            .operands()
                            .into_iter()
                            .map(|v| body.values[v].ty)
                            .chain(result)
                            .find(|&t| composite(t));
                        typed.map(|t| {
                            format!(
                                "{opcode} on a value of type {}: the native backend does not compile vector, aggregate, half or bfloat values",
                                types.display(t)
                            )
                        })
                    }
                };
                if let Some(what) = what {
                    return Some((site, what));
                }
            }
        }
        None
    }
}
