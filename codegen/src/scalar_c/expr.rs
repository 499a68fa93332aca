//! The commands of the scalar-lane C route (thesis §4.9): one loop over the
//! lanes per command, the lanes it runs in chosen by [W-CMD-INST] (active
//! lanes; the passive ones get 0 for ⊤), [W-CMD-TOTAL] (every existing lane)
//! or [W-CMD-MASK]; the per-lane C of each LLVM instruction ([W-INST-LLVM]),
//! memory ([W-INST-LOAD], [W-INST-STORE], [W-INST-ALLOCA]) and θ (§4.9.2).
//!
//! Below the kernel emitter of [`super`], it also holds what both use: the C
//! storage of a value ([`CType`]), the context of one kernel ([`Cx`]) and the
//! pass name of errors ([`PASS`], re-exported by [`super`]).
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "rule citations of the thesis, not links"
)]

use crate::error::{Site, TransformError};
use pllvm_semantics::entity::EntityRef;
use pllvm_semantics::ir::{
    BinOp, Body, CastOp, ConstData, FCmpPred, FuncId, ICmpPred, Inst, InstKind, Module, Value,
    ValueDef,
};
use pllvm_semantics::theta::{self, Builtin, MathFn};
use pllvm_semantics::types::{Ty, TypeData, TypeTable};
use std::fmt::Write;

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
        (ConstData::Expr(_), _) => {
            return Err(TransformError::new(
                PASS,
                site,
                "a constant expression (the C route does not fold them)",
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

/// The value of storage `ctype` held in the 64-bit ABI word `word`.
pub(crate) fn from_word(ctype: CType, word: &str) -> String {
    match ctype {
        CType::Int(w) => format!("pllvm_mask({word}, {w})"),
        CType::F32 => format!("pllvm_f32((uint32_t){word})"),
        CType::F64 => format!("pllvm_f64({word})"),
        CType::Ptr => word.to_string(),
    }
}

/// The 64-bit ABI word of `value` of storage `ctype`.
pub(crate) fn to_word(ctype: CType, value: &str) -> String {
    match ctype {
        CType::Int(_) | CType::Ptr => format!("(uint64_t){value}"),
        CType::F32 => format!("pllvm_bits32({value})"),
        CType::F64 => format!("pllvm_bits64({value})"),
    }
}

/// The bytes one lane's `alloca T, count` takes; the count must be a constant.
pub(crate) fn alloca_size(
    cx: &Cx<'_>,
    ty: Ty,
    count: Option<Value>,
    site: Site,
) -> Result<u64, TransformError> {
    let elem = cx.types().size_of(ty);
    let n = match count {
        None => 1,
        Some(v) => match cx.body.as_const(v) {
            Some(ConstData::Int(n)) => u64::try_from(n).unwrap_or(u64::MAX),
            _ => {
                return Err(TransformError::new(
                    PASS,
                    site,
                    "an alloca with a non-constant element count (the C route gives each lane a fixed slot)",
                ));
            }
        },
    };
    let size = elem.saturating_mul(n);
    if size > 1 << 20 {
        return Err(TransformError::new(
            PASS,
            site,
            format!("an alloca of {size} bytes per lane (the C route takes at most 1 MiB)"),
        ));
    }
    Ok(size)
}

/// One command: `for` the lanes it runs in, the lane's C.
pub(crate) fn command(out: &mut String, cx: &Cx<'_>, i: Inst) -> Result<(), TransformError> {
    let site = Site::Inst(cx.func, i);
    let inst = &cx.body.insts[i];
    // The lanes the command runs in: active lanes ([W-CMD-INST]) or every
    // existing lane ([W-CMD-TOTAL]).
    let guard = if inst.total { "1" } else { "act[l]" };
    let assign = |out: &mut String, expr: String| -> Result<(), TransformError> {
        let Some(v) = inst.result else {
            return Ok(());
        };
        let ctype = cx.ctype_of(v, site)?;
        let zero = match ctype {
            CType::F32 => "0.0f",
            CType::F64 => "0.0",
            _ => "0",
        };
        let _ = writeln!(
            out,
            "    for (uint64_t l = 0; l < L; l++) v{}[l] = {guard} ? ({})({expr}) : {zero};",
            v.index(),
            ctype.name()
        );
        Ok(())
    };
    match &inst.kind {
        InstKind::ExtractElement { .. }
        | InstKind::InsertElement { .. }
        | InstKind::ShuffleVector { .. }
        | InstKind::ExtractValue { .. }
        | InstKind::InsertValue { .. }
        | InstKind::AtomicRmw { .. }
        | InstKind::CmpXchg { .. }
        | InstKind::Fence { .. } => Err(TransformError::new(
            PASS,
            site,
            format!(
                "{}: the C route does not compile vector or aggregate values or atomics",
                inst.kind.opcode()
            ),
        )),
        InstKind::Mask => {
            if let Some(v) = inst.result {
                let _ = writeln!(
                    out,
                    "    for (uint64_t l = 0; l < L; l++) v{}[l] = act[l];",
                    v.index()
                );
            }
            Ok(())
        }
        InstKind::Phi { .. } => Err(TransformError::new(PASS, site, "a phi among the commands")),
        InstKind::Binary {
            op, ty, lhs, rhs, ..
        } => assign(out, binary(cx, *op, *ty, *lhs, *rhs, site)?),
        InstKind::FNeg { arg, .. } => assign(out, format!("-({})", cx.operand(*arg, site)?)),
        InstKind::ICmp { pred, ty, lhs, rhs } => {
            assign(out, icmp(cx, *pred, *ty, *lhs, *rhs, site)?)
        }
        InstKind::FCmp { pred, lhs, rhs, .. } => assign(out, fcmp(cx, *pred, *lhs, *rhs, site)?),
        InstKind::Cast {
            op, from, arg, to, ..
        } => assign(out, cast(cx, *op, *from, *arg, *to, site)?),
        InstKind::Select {
            cond,
            if_true,
            if_false,
            ..
        } => assign(
            out,
            format!(
                "({} & 1) ? {} : {}",
                cx.int_operand(*cond, site)?,
                cx.operand(*if_true, site)?,
                cx.operand(*if_false, site)?
            ),
        ),
        // ⊤ is 0 in this route (undef constants, passive lanes, missing
        // bytes), which is what pllvm's `freeze` picks: the identity here.
        InstKind::Freeze { arg, .. } => assign(out, cx.operand(*arg, site)?),
        InstKind::Gep {
            source_ty,
            base,
            indices,
            ..
        } => assign(out, gep(cx, *source_ty, *base, indices, site)?),
        // The slot was sized and aligned at entry (`emit_kernel`).
        InstKind::Alloca { .. } => assign(out, format!("pllvm_addr(a{}[l])", i.index())),
        InstKind::Load { ty, ptr, .. } => {
            let ctype = scalar_mem_type(cx, *ty, site)?;
            let bytes = cx.types().store_size(*ty);
            let v = inst.result.map_or(0, |v| v.index());
            let load = match ctype {
                CType::F32 => format!(
                    "{{ float x; memcpy(&x, pllvm_ptr({}), 4); v{v}[l] = x; }}",
                    cx.operand(*ptr, site)?
                ),
                CType::F64 => format!(
                    "{{ double x; memcpy(&x, pllvm_ptr({}), 8); v{v}[l] = x; }}",
                    cx.operand(*ptr, site)?
                ),
                CType::Int(w) => format!(
                    "{{ uint64_t x = 0; memcpy(&x, pllvm_ptr({}), {bytes}); v{v}[l] = ({})pllvm_mask(x, {w}); }}",
                    cx.operand(*ptr, site)?,
                    ctype.name()
                ),
                CType::Ptr => format!(
                    "{{ uint64_t x = 0; memcpy(&x, pllvm_ptr({}), 8); v{v}[l] = x; }}",
                    cx.operand(*ptr, site)?
                ),
            };
            // Only lanes that run the load touch memory: a passive lane's
            // address may be anything (a guard page, null).
            let _ = writeln!(
                out,
                "    for (uint64_t l = 0; l < L; l++) {{ if ({guard}) {load} else v{v}[l] = 0; }}"
            );
            Ok(())
        }
        InstKind::Store { ty, value, ptr, .. } => {
            let ctype = scalar_mem_type(cx, *ty, site)?;
            let bytes = cx.types().store_size(*ty);
            let x = match ctype {
                CType::F32 => format!("float x = {};", cx.operand(*value, site)?),
                CType::F64 => format!("double x = {};", cx.operand(*value, site)?),
                _ => format!("uint64_t x = {};", cx.int_operand(*value, site)?),
            };
            let _ = writeln!(
                out,
                "    for (uint64_t l = 0; l < L; l++) if ({guard}) {{ {x} memcpy(pllvm_ptr({}), &x, {bytes}); }}",
                cx.operand(*ptr, site)?
            );
            Ok(())
        }
        InstKind::Call {
            callee,
            ret_ty,
            args,
            ..
        } => call(out, cx, i, *callee, *ret_ty, args, guard, &assign),
    }
}

/// The C storage of a loaded or stored type: scalars only.
fn scalar_mem_type(cx: &Cx<'_>, ty: Ty, site: Site) -> Result<CType, TransformError> {
    c_type(cx.types(), ty).ok_or_else(|| {
        TransformError::new(
            PASS,
            site,
            format!(
                "a load or store of {} (the C route moves integers up to 64 bits, float, double and ptr)",
                cx.types().display(ty)
            ),
        )
    })
}

/// The integer width of `ty`, or an error.
fn int_width(cx: &Cx<'_>, ty: Ty, site: Site) -> Result<u32, TransformError> {
    match cx.types().get(ty) {
        TypeData::Int(w) if *w <= 64 => Ok(*w),
        TypeData::Ptr(_) => Ok(64),
        _ => Err(TransformError::new(
            PASS,
            site,
            format!(
                "an integer operation on {} (the C route takes up to 64 bits)",
                cx.types().display(ty)
            ),
        )),
    }
}

/// `op ty a, b` in one lane ([W-INST-LLVM]); flags are ignored (their poison is
/// some value here).
fn binary(
    cx: &Cx<'_>,
    op: BinOp,
    ty: Ty,
    lhs: Value,
    rhs: Value,
    site: Site,
) -> Result<String, TransformError> {
    if op.is_float() {
        let (a, b) = (cx.operand(lhs, site)?, cx.operand(rhs, site)?);
        let single = matches!(cx.types().get(ty), TypeData::F32);
        let expr = match op {
            BinOp::FAdd => format!("{a} + {b}"),
            BinOp::FSub => format!("{a} - {b}"),
            BinOp::FMul => format!("{a} * {b}"),
            BinOp::FDiv => format!("{a} / {b}"),
            _ if single => format!("fmodf({a}, {b})"),
            _ => format!("fmod({a}, {b})"),
        };
        return Ok(canonical_nan(single, &expr));
    }
    let w = int_width(cx, ty, site)?;
    let (a, b) = (cx.int_operand(lhs, site)?, cx.int_operand(rhs, site)?);
    Ok(match op {
        BinOp::Add => format!("pllvm_mask({a} + {b}, {w})"),
        BinOp::Sub => format!("pllvm_mask({a} - {b}, {w})"),
        BinOp::Mul => format!("pllvm_mask({a} * {b}, {w})"),
        BinOp::UDiv => format!("pllvm_udiv({a}, {b})"),
        BinOp::URem => format!("pllvm_urem({a}, {b})"),
        BinOp::SDiv => format!("pllvm_sdiv({a}, {b}, {w})"),
        BinOp::SRem => format!("pllvm_srem({a}, {b}, {w})"),
        BinOp::Shl => format!("pllvm_shl({a}, {b}, {w})"),
        BinOp::LShr => format!("pllvm_lshr({a}, {b}, {w})"),
        BinOp::AShr => format!("pllvm_ashr({a}, {b}, {w})"),
        BinOp::And => format!("{a} & {b}"),
        BinOp::Or => format!("{a} | {b}"),
        BinOp::Xor => format!("{a} ^ {b}"),
        _ => unreachable_float(op),
    })
}

/// `expr`, a `float` (`single`) or `double`, with a NaN made the preferred NaN
/// (positive, quiet, payload 0), the one pllvm's float operations return
/// (`semantics/src/ops/float.rs`). LLVM leaves a NaN result's sign and payload
/// open; x86 gives a negative NaN, which a bitcast to an integer would show.
fn canonical_nan(single: bool, expr: &str) -> String {
    if single {
        format!("pllvm_canon_f32({expr})")
    } else {
        format!("pllvm_canon_f64({expr})")
    }
}

/// The float operators were handled above; this keeps the match exhaustive
/// without a panic (an `fadd` on integers does not verify).
fn unreachable_float(op: BinOp) -> String {
    format!("0 /* {} on integers does not verify */", op.name())
}

/// `icmp pred ty a, b`: unsigned on the zero-extended words, signed on the
/// sign-extended ones.
fn icmp(
    cx: &Cx<'_>,
    pred: ICmpPred,
    ty: Ty,
    lhs: Value,
    rhs: Value,
    site: Site,
) -> Result<String, TransformError> {
    let w = int_width(cx, ty, site)?;
    let (a, b) = (cx.int_operand(lhs, site)?, cx.int_operand(rhs, site)?);
    let (sa, sb) = (format!("pllvm_sx({a}, {w})"), format!("pllvm_sx({b}, {w})"));
    Ok(match pred {
        ICmpPred::Eq => format!("{a} == {b}"),
        ICmpPred::Ne => format!("{a} != {b}"),
        ICmpPred::Ugt => format!("{a} > {b}"),
        ICmpPred::Uge => format!("{a} >= {b}"),
        ICmpPred::Ult => format!("{a} < {b}"),
        ICmpPred::Ule => format!("{a} <= {b}"),
        ICmpPred::Sgt => format!("{sa} > {sb}"),
        ICmpPred::Sge => format!("{sa} >= {sb}"),
        ICmpPred::Slt => format!("{sa} < {sb}"),
        ICmpPred::Sle => format!("{sa} <= {sb}"),
    })
}

/// `fcmp pred a, b`: ordered predicates are false on a NaN operand, unordered
/// ones true.
fn fcmp(
    cx: &Cx<'_>,
    pred: FCmpPred,
    lhs: Value,
    rhs: Value,
    site: Site,
) -> Result<String, TransformError> {
    let (a, b) = (cx.operand(lhs, site)?, cx.operand(rhs, site)?);
    let uno = format!("(isnan({a}) || isnan({b}))");
    let ord = format!("!{uno}");
    Ok(match pred {
        FCmpPred::False => "0".into(),
        FCmpPred::True => "1".into(),
        FCmpPred::Ord => ord,
        FCmpPred::Uno => uno,
        FCmpPred::Oeq => format!("{ord} && {a} == {b}"),
        FCmpPred::Ogt => format!("{ord} && {a} > {b}"),
        FCmpPred::Oge => format!("{ord} && {a} >= {b}"),
        FCmpPred::Olt => format!("{ord} && {a} < {b}"),
        FCmpPred::Ole => format!("{ord} && {a} <= {b}"),
        FCmpPred::One => format!("{ord} && {a} != {b}"),
        FCmpPred::Ueq => format!("{uno} || {a} == {b}"),
        FCmpPred::Ugt => format!("{uno} || {a} > {b}"),
        FCmpPred::Uge => format!("{uno} || {a} >= {b}"),
        FCmpPred::Ult => format!("{uno} || {a} < {b}"),
        FCmpPred::Ule => format!("{uno} || {a} <= {b}"),
        FCmpPred::Une => format!("{uno} || {a} != {b}"),
    })
}

/// A cast in one lane.
fn cast(
    cx: &Cx<'_>,
    op: CastOp,
    from: Ty,
    arg: Value,
    to: Ty,
    site: Site,
) -> Result<String, TransformError> {
    let types = cx.types();
    let a = cx.operand(arg, site)?;
    let from_ty = cx.ctype_of(arg, site)?;
    let to_ty = c_type(types, to).ok_or_else(|| {
        TransformError::new(
            PASS,
            site,
            format!(
                "a cast to {} (the C route holds scalars up to 64 bits)",
                types.display(to)
            ),
        )
    })?;
    let wf = types.int_width(from).unwrap_or(64);
    let wt = types.int_width(to).unwrap_or(64);
    let double = |x: &str| format!("(double){x}");
    Ok(match op {
        CastOp::ZExt | CastOp::PtrToInt | CastOp::IntToPtr | CastOp::Trunc => {
            format!("pllvm_mask((uint64_t){a}, {wt})")
        }
        CastOp::SExt => format!("pllvm_mask((uint64_t)pllvm_sx((uint64_t){a}, {wf}), {wt})"),
        CastOp::FpToSi => format!("pllvm_fptosi({}, {wt})", double(&a)),
        CastOp::FpToUi => format!("pllvm_fptoui({}, {wt})", double(&a)),
        CastOp::SiToFp => format!("({})pllvm_sx((uint64_t){a}, {wf})", to_ty.name()),
        CastOp::UiToFp => format!("({})(uint64_t){a}", to_ty.name()),
        CastOp::FpExt | CastOp::FpTrunc => {
            canonical_nan(to_ty == CType::F32, &format!("({}){a}", to_ty.name()))
        }
        CastOp::AddrSpaceCast => a,
        CastOp::Bitcast => match (from_ty, to_ty) {
            (CType::F32, CType::Int(_)) => format!("pllvm_bits32({a})"),
            (CType::F64, CType::Int(_)) => format!("pllvm_bits64({a})"),
            (CType::Int(_), CType::F32) => format!("pllvm_f32((uint32_t){a})"),
            (CType::Int(_), CType::F64) => format!("pllvm_f64((uint64_t){a})"),
            _ => a,
        },
    })
}

/// `getelementptr T, ptr p, idx...`: the address plus the indices (sign-extended
/// from their widths) times the sizes of the interpreter's layout, wrapping.
/// `inbounds` is not checked: an out-of-bounds result is ⊤ in the interpreter
/// and only its use could differ.
fn gep(
    cx: &Cx<'_>,
    source_ty: Ty,
    base: Value,
    indices: &[pllvm_semantics::ir::GepIndex],
    site: Site,
) -> Result<String, TransformError> {
    let types = cx.types();
    let mut expr = format!("(uint64_t){}", cx.operand(base, site)?);
    let mut current = source_ty;
    for (k, index) in indices.iter().enumerate() {
        let w = int_width(cx, cx.body.values[index.value].ty, site)?;
        let i = format!(
            "(uint64_t)pllvm_sx({}, {w})",
            cx.int_operand(index.value, site)?
        );
        if k == 0 {
            let _ = write!(expr, " + {i} * UINT64_C({})", types.size_of(current));
            continue;
        }
        match types.get(current).clone() {
            TypeData::Array(_, elem) => {
                let _ = write!(expr, " + {i} * UINT64_C({})", types.size_of(elem));
                current = elem;
            }
            TypeData::Struct { fields, .. } => {
                let field = match cx.body.as_const(index.value) {
                    Some(ConstData::Int(f)) => usize::try_from(f).ok(),
                    _ => None,
                }
                .filter(|&f| f < fields.len())
                .ok_or_else(|| {
                    TransformError::new(
                        PASS,
                        site,
                        "a struct index that is not a constant field number",
                    )
                })?;
                let (offsets, _) = types.struct_layout(current);
                let _ = write!(expr, " + UINT64_C({})", offsets[field]);
                current = fields[field];
            }
            _ => {
                return Err(TransformError::new(
                    PASS,
                    site,
                    format!("a getelementptr index into {}", types.display(current)),
                ));
            }
        }
    }
    Ok(expr)
}

/// A call: the builtins of Fig. 4.15 over the chunk's lanes, the math library
/// per lane, the memory intrinsics per active lane; anything else is refused.
#[allow(clippy::too_many_arguments, reason = "the parts of one call command")]
fn call(
    out: &mut String,
    cx: &Cx<'_>,
    i: Inst,
    callee: pllvm_semantics::ir::FuncId,
    ret_ty: Ty,
    args: &[Value],
    guard: &str,
    assign: &dyn Fn(&mut String, String) -> Result<(), TransformError>,
) -> Result<(), TransformError> {
    let site = Site::Inst(cx.func, i);
    let name = &cx.module.functions[callee].name;
    let refuse = |why: &str| TransformError::new(PASS, site, format!("a call to @{name}: {why}"));
    let builtin = theta::resolve(name)
        .ok_or_else(|| refuse("the C route compiles the builtins and the math library only"))?;
    let arg = |k: usize| -> Result<String, TransformError> {
        let v = *args
            .get(k)
            .ok_or_else(|| refuse(&format!("argument {k} is missing")))?;
        cx.operand(v, site)
    };
    let ret_w = cx.types().int_width(ret_ty).unwrap_or(64).min(64);
    match builtin {
        Builtin::ThreadId => assign(out, format!("pllvm_mask(base + l, {ret_w})")),
        Builtin::Any | Builtin::All | Builtin::Popcount | Builtin::Ballot => {
            // Fig. 4.15: every lane's argument, active or not, of the lanes that
            // exist in the chunk.
            let a = arg(0)?;
            let (init, step) = match builtin {
                Builtin::Any => ("0", format!("h |= ({a} & 1);")),
                Builtin::All => ("1", format!("h &= ({a} & 1);")),
                Builtin::Popcount => ("0", format!("h += ({a} & 1);")),
                _ => ("0", format!("h |= (uint64_t)({a} & 1) << l;")),
            };
            if builtin == Builtin::Ballot && (cx.width > 64 || (ret_w as usize) < cx.width) {
                return Err(refuse(&format!(
                    "ballot of a chunk of {} lanes needs an integer of at least {} bits, at most 64 here (Fig. 4.15)",
                    cx.width, cx.width
                )));
            }
            let _ = writeln!(
                out,
                "    {{ uint64_t h = {init};\n      for (uint64_t l = 0; l < L; l++) {{ {step} }}"
            );
            if let Some(v) = cx.body.insts[i].result {
                let ctype = cx.ctype_of(v, site)?;
                let _ = writeln!(
                    out,
                    "      for (uint64_t l = 0; l < L; l++) v{}[l] = {guard} ? ({})pllvm_mask(h, {ret_w}) : 0; }}",
                    v.index(),
                    ctype.name()
                );
            } else {
                out.push_str("      (void)h; }\n");
            }
            Ok(())
        }
        Builtin::Math(f) => {
            let single = matches!(cx.types().get(ret_ty), TypeData::F32);
            let expr = math(cx, f, args, single, ret_w, site)?
                .ok_or_else(|| refuse("the C route has no lane code for this intrinsic"))?;
            // The bit operations keep a NaN's payload (θ: `fabs`, `copysign`);
            // every other float result's NaN is the preferred one.
            let float_result = matches!(cx.types().get(ret_ty), TypeData::F32 | TypeData::F64);
            if float_result && !matches!(f, MathFn::Fabs | MathFn::CopySign) {
                assign(out, canonical_nan(single, &expr))
            } else {
                assign(out, expr)
            }
        }
        Builtin::Memset => {
            let _ = writeln!(
                out,
                "    for (uint64_t l = 0; l < L; l++) if ({guard}) memset(pllvm_ptr({}), (int)({} & 255), (size_t){});",
                arg(0)?,
                arg(1)?,
                arg(2)?
            );
            Ok(())
        }
        Builtin::Memcpy | Builtin::Memmove => {
            let f = if builtin == Builtin::Memcpy {
                "memcpy"
            } else {
                "memmove"
            };
            let _ = writeln!(
                out,
                "    for (uint64_t l = 0; l < L; l++) if ({guard}) {f}(pllvm_ptr({}), pllvm_ptr({}), (size_t){});",
                arg(0)?,
                arg(1)?,
                arg(2)?
            );
            Ok(())
        }
        // No effect natively: assume's false case is undefined behaviour, and
        // lifetimes only make contents undefined.
        Builtin::Assume | Builtin::LifetimeStart | Builtin::LifetimeEnd | Builtin::NoOp => Ok(()),
        Builtin::GroupId | Builtin::GroupSize => {
            Err(refuse("work-groups exist only in `pllvm run --grid`"))
        }
        Builtin::MbcntLo
        | Builtin::MbcntHi
        | Builtin::ReadFirstLane
        | Builtin::ReadLane
        | Builtin::WaveBallot
        | Builtin::LaneId
        | Builtin::WaveSize
        | Builtin::Shuffle(_)
        | Builtin::Vote(_)
        | Builtin::ActiveMask
        | Builtin::MatchAny
        | Builtin::Barrier
        | Builtin::WorkItem(_)
        | Builtin::GridDim(..)
        | Builtin::ConvergenceControl => Err(refuse(
            "the C route has no wave operations, barriers or work-item functions",
        )),
    }
}

/// The lane C of a math function, `None` for the ones this route lacks. Float
/// functions of `float` compute in `double` and round once, as θ does
/// (`theta::apply_math`); the bit operations and `fma`/`fmuladd` stay in the type.
fn math(
    cx: &Cx<'_>,
    f: MathFn,
    args: &[Value],
    single: bool,
    ret_w: u32,
    site: Site,
) -> Result<Option<String>, TransformError> {
    let a: Vec<String> = args
        .iter()
        .map(|&v| cx.operand(v, site))
        .collect::<Result<_, _>>()?;
    let x = |k: usize| a.get(k).cloned().unwrap_or_else(|| "0".into());
    let d = |k: usize| format!("(double){}", x(k));
    let fty = if single { "float" } else { "double" };
    let unary = |c: &str| Some(format!("({fty}){c}({})", d(0)));
    let binary = |c: &str| Some(format!("({fty}){c}({}, {})", d(0), d(1)));
    let int_arg = |k: usize| -> Result<(String, u32), TransformError> {
        let v = args
            .get(k)
            .copied()
            .ok_or_else(|| TransformError::new(PASS, site, "a math call without its argument"))?;
        let w = int_width(cx, cx.body.values[v].ty, site)?;
        Ok((cx.int_operand(v, site)?, w))
    };
    Ok(match f {
        MathFn::Sqrt => unary("sqrt"),
        MathFn::Floor => unary("floor"),
        MathFn::Ceil => unary("ceil"),
        MathFn::Trunc => unary("trunc"),
        MathFn::Round => unary("round"),
        MathFn::RoundEven | MathFn::Rint | MathFn::NearbyInt => unary("rint"),
        MathFn::Exp => unary("exp"),
        MathFn::Exp2 => unary("exp2"),
        MathFn::Expm1 => unary("expm1"),
        MathFn::Log => unary("log"),
        MathFn::Log2 => unary("log2"),
        MathFn::Log10 => unary("log10"),
        MathFn::Log1p => unary("log1p"),
        MathFn::Sin => unary("sin"),
        MathFn::Cos => unary("cos"),
        MathFn::Tan => unary("tan"),
        MathFn::Asin => unary("asin"),
        MathFn::Acos => unary("acos"),
        MathFn::Atan => unary("atan"),
        MathFn::Sinh => unary("sinh"),
        MathFn::Cosh => unary("cosh"),
        MathFn::Tanh => unary("tanh"),
        MathFn::Cbrt => unary("cbrt"),
        MathFn::Exp10 => Some(format!("({fty})pow(10.0, {})", d(0))),
        MathFn::Canonicalize => Some(x(0)),
        MathFn::Pow => binary("pow"),
        MathFn::Atan2 => binary("atan2"),
        MathFn::Hypot => binary("hypot"),
        MathFn::Fmod => binary("fmod"),
        MathFn::Fabs if single => Some(format!("fabsf({})", x(0))),
        MathFn::Fabs => Some(format!("fabs({})", x(0))),
        MathFn::CopySign if single => Some(format!("copysignf({}, {})", x(0), x(1))),
        MathFn::CopySign => Some(format!("copysign({}, {})", x(0), x(1))),
        MathFn::MinNum | MathFn::MinimumNum => {
            Some(format!("({fty})pllvm_minmax({}, {}, 0)", d(0), d(1)))
        }
        MathFn::MaxNum | MathFn::MaximumNum => {
            Some(format!("({fty})pllvm_minmax({}, {}, 1)", d(0), d(1)))
        }
        MathFn::Minimum => Some(format!("({fty})pllvm_minmax_nan({}, {}, 0)", d(0), d(1))),
        MathFn::Maximum => Some(format!("({fty})pllvm_minmax_nan({}, {}, 1)", d(0), d(1))),
        MathFn::Fma if single => Some(format!("fmaf({}, {}, {})", x(0), x(1), x(2))),
        MathFn::Fma => Some(format!("fma({}, {}, {})", x(0), x(1), x(2))),
        MathFn::FMulAdd => Some(format!("{} * {} + {}", x(0), x(1), x(2))),
        MathFn::Ldexp => {
            let (n, w) = int_arg(1)?;
            Some(format!(
                "({fty})ldexp({}, (int)(pllvm_sx({n}, {w}) < -2300 ? -2300 : pllvm_sx({n}, {w}) > 2300 ? 2300 : pllvm_sx({n}, {w})))",
                d(0)
            ))
        }
        MathFn::SMin | MathFn::SMax | MathFn::UMin | MathFn::UMax => {
            let (p, w) = int_arg(0)?;
            let (q, _) = int_arg(1)?;
            let (sp, sq) = (format!("pllvm_sx({p}, {w})"), format!("pllvm_sx({q}, {w})"));
            Some(match f {
                MathFn::SMin => format!("({sp} <= {sq}) ? {p} : {q}"),
                MathFn::SMax => format!("({sp} >= {sq}) ? {p} : {q}"),
                MathFn::UMin => format!("({p} <= {q}) ? {p} : {q}"),
                _ => format!("({p} >= {q}) ? {p} : {q}"),
            })
        }
        MathFn::Abs => {
            let (p, w) = int_arg(0)?;
            Some(format!(
                "pllvm_mask(pllvm_sx({p}, {w}) < 0 ? UINT64_C(0) - {p} : {p}, {w})"
            ))
        }
        MathFn::Ctpop => {
            let (p, _) = int_arg(0)?;
            Some(format!("pllvm_popcount({p})"))
        }
        MathFn::Ctlz => {
            let (p, w) = int_arg(0)?;
            Some(format!("pllvm_mask(pllvm_ctlz({p}, {w}), {ret_w})"))
        }
        MathFn::Cttz => {
            let (p, w) = int_arg(0)?;
            Some(format!("pllvm_mask(pllvm_cttz({p}, {w}), {ret_w})"))
        }
        _ => None,
    })
}
