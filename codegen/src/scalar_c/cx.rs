//! What every part of the scalar-lane C route shares: the emitter's name in its
//! errors ([`PASS`]), a value's C storage ([`CType`], [`c_type`]), the fixed
//! context of one kernel's emission ([`Cx`]) with the C expression of an operand,
//! and the C literal of a constant.

use crate::error::{Site, TransformError};
use pllvm_semantics::entity::EntityRef;
use pllvm_semantics::ir::{Body, ConstData, FuncId, Module, Value, ValueDef};
use pllvm_semantics::types::{Ty, TypeData, TypeTable};

/// The name errors of this emitter carry in [`TransformError::pass`].
pub const PASS: &str = "scalar-c";

/// A value's C storage: the element type of its array of W.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CType {
    /// `iN`, N ≤ 64, zero-extended in a `uintM_t` (M the smallest of 8, 16,
    /// 32, 64 that holds N).
    Int(u32),
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// A pointer, as its address in a `uint64_t`.
    Ptr,
}

impl CType {
    /// The C type name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CType::Int(w) if w <= 8 => "uint8_t",
            CType::Int(w) if w <= 16 => "uint16_t",
            CType::Int(w) if w <= 32 => "uint32_t",
            CType::Int(_) | CType::Ptr => "uint64_t",
            CType::F32 => "float",
            CType::F64 => "double",
        }
    }
}

/// The C storage of `ty`, or `None` for types the C route does not hold in a
/// value (aggregates, integers wider than 64 bits, void, label).
pub(crate) fn c_type(types: &TypeTable, ty: Ty) -> Option<CType> {
    match types.get(ty) {
        TypeData::Int(w) if *w <= 64 => Some(CType::Int(*w)),
        TypeData::F32 => Some(CType::F32),
        TypeData::F64 => Some(CType::F64),
        TypeData::Ptr(_) => Some(CType::Ptr),
        _ => None,
    }
}

/// The fixed context of one kernel's emission.
pub(crate) struct Cx<'m> {
    /// The module.
    pub(crate) module: &'m Module,
    /// The kernel function.
    pub(crate) func: FuncId,
    /// Its body.
    pub(crate) body: &'m Body,
    /// W, the lanes of a chunk.
    pub(crate) width: usize,
}

impl Cx<'_> {
    /// The type table.
    pub(crate) fn types(&self) -> &TypeTable {
        &self.module.types
    }

    /// The C storage of value `v`, or an error at `site`.
    pub(crate) fn ctype_of(&self, v: Value, site: Site) -> Result<CType, TransformError> {
        let ty = self.body.values[v].ty;
        c_type(self.types(), ty).ok_or_else(|| {
            TransformError::new(
                PASS,
                site,
                format!(
                    "a value of type {} (the C route holds integers up to 64 bits, float, double and ptr)",
                    self.types().display(ty)
                ),
            )
        })
    }

    /// The C expression of lane `l` of operand `v`, as a `uint64_t` (integers,
    /// pointers) or a `float`/`double`.
    pub(crate) fn operand(&self, v: Value, site: Site) -> Result<String, TransformError> {
        let ctype = self.ctype_of(v, site)?;
        Ok(match &self.body.values[v].def {
            ValueDef::Param(k) => format!("p{k}[l]"),
            ValueDef::Inst(_) => format!("v{}[l]", v.index()),
            ValueDef::Const(c) => constant(self, c, ctype, site)?,
        })
    }

    /// The operand as a `uint64_t` (integers and pointers as they are; floats
    /// never reach here).
    pub(crate) fn int_operand(&self, v: Value, site: Site) -> Result<String, TransformError> {
        Ok(format!("((uint64_t){})", self.operand(v, site)?))
    }
}

/// The C literal of a constant operand of storage `ctype`. `undef` and `poison`
/// are 0 (a choice of ⊤; what `freeze` picks).
pub(crate) fn constant(
    cx: &Cx<'_>,
    c: &ConstData,
    ctype: CType,
    site: Site,
) -> Result<String, TransformError> {
    Ok(match (c, ctype) {
        (ConstData::Int(bits), _) => {
            let v: u64 = bits.try_into().map_err(|_| {
                TransformError::new(PASS, site, "an integer constant wider than 64 bits")
            })?;
            format!("UINT64_C({v})")
        }
        (ConstData::Float(bits), CType::F32) => format!("pllvm_f32(0x{:08x}u)", *bits as u32),
        (ConstData::Float(bits), _) => format!("pllvm_f64(UINT64_C(0x{bits:016x}))"),
        (ConstData::Null | ConstData::Undef | ConstData::Poison | ConstData::Zero, CType::F32) => {
            "0.0f".into()
        }
        (ConstData::Null | ConstData::Undef | ConstData::Poison | ConstData::Zero, CType::F64) => {
            "0.0".into()
        }
        (ConstData::Null | ConstData::Undef | ConstData::Poison | ConstData::Zero, _) => {
            "UINT64_C(0)".into()
        }
        (ConstData::Elems(_) | ConstData::Splat(_), _) => {
            return Err(TransformError::new(
                PASS,
                site,
                "a vector or aggregate constant (the C route holds scalars only)",
            ));
        }
        (ConstData::Global(g), _) => format!("G{}", g.index()),
        (ConstData::Function(f), _) => {
            return Err(TransformError::new(
                PASS,
                site,
                format!(
                    "@{} used as a value (the C route has no function pointers)",
                    cx.module.functions[*f].name
                ),
            ));
        }
    })
}
