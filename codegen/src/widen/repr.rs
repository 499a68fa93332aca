//! Which values of a kernel stay scalar and which become `<W x T>` vectors.
//!
//! A value the divergence analysis proves uniform (thesis §6.1: "all threads that
//! actively execute its definition see the same value") is kept as one scalar.
//! Under OBLIVIOUS (§4.5, [UPD-ENV]) a lane that did not execute the definition
//! holds ⊤ there, and ⊤ may be refined to any value, so one scalar stands for every
//! lane. Every other value is a vector. The representation is closed upwards:
//! an instruction with a vector operand is a vector too (so no vector ever has to
//! be narrowed to a scalar except at a uniform branch, where the first active
//! lane speaks for all), and the lane-dependent commands (`mask()`,
//! `thread_id`, `alloca`, whose objects are private per lane) are vectors
//! whatever the analysis says.
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "[RULE] names the thesis's rules, not items"
)]

use num_bigint::BigUint;
use pllvm_analysis::result::Uniformity;
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{BinOp, Body, CastOp, ConstData, InstKind, Module, Value, ValueDef};
use pllvm_semantics::theta::{self, Builtin};

/// Whether a value is one scalar or a `<W x T>` vector.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Repr {
    /// One value for every lane (uniform, §6.1).
    #[default]
    Scalar,
    /// One value per lane.
    Vector,
}

/// The representation of every value of `body`: the analysis's shapes, closed
/// under "a vector operand makes a vector result", to a fixpoint over phis.
pub fn decide(module: &Module, body: &Body, uniformity: &Uniformity) -> SecondaryMap<Value, Repr> {
    let mut repr: SecondaryMap<Value, Repr> = SecondaryMap::default();
    for (value, data) in body.values.iter() {
        let vector = match &data.def {
            ValueDef::Const(_) => false,
            ValueDef::Param(_) => !uniformity.value(value).is_uniform(),
            ValueDef::Inst(inst) => {
                !uniformity.value(value).is_uniform()
                    || inherently_varying(module, &body.insts[*inst].kind)
            }
        };
        repr[value] = if vector { Repr::Vector } else { Repr::Scalar };
    }
    // Close upwards: an instruction reading a vector is a vector, except the
    // horizontal builtins, which reduce the lanes to one value (Fig. 4.15).
    let mut changed = true;
    while changed {
        changed = false;
        for (_, data) in body.insts.iter() {
            let Some(result) = data.result else { continue };
            if repr[result] == Repr::Vector || is_reduction(module, &data.kind) {
                continue;
            }
            let reads_vector = match &data.kind {
                // A scalar address reads one location, the same for every lane.
                InstKind::Load { .. } => false,
                kind => kind.operands().iter().any(|&v| repr[v] == Repr::Vector),
            };
            if reads_vector {
                repr[result] = Repr::Vector;
                changed = true;
            }
        }
    }
    repr
}

/// Commands whose result differs between lanes whatever the analysis says:
/// `mask()` ([W-CMD-MASK]), `thread_id` (Fig. 4.15) and `alloca` ([W-INST-ALLOCA]:
/// one private object per lane).
fn inherently_varying(module: &Module, kind: &InstKind) -> bool {
    match kind {
        InstKind::Mask | InstKind::Alloca { .. } => true,
        InstKind::Call { callee, .. } => {
            theta::resolve(&module.functions[*callee].name) == Some(Builtin::ThreadId)
        }
        _ => false,
    }
}

/// The horizontal builtins `any`, `all`, `popcount`, `ballot` (Fig. 4.15): their
/// result is the same in every lane (θ broadcasts it).
pub fn is_reduction(module: &Module, kind: &InstKind) -> bool {
    match kind {
        InstKind::Call { callee, .. } => {
            theta::resolve(&module.functions[*callee].name).is_some_and(theta::is_horizontal)
        }
        _ => false,
    }
}

/// Whether `value` is the result of a call to `@pllvm.any` or `@pllvm.all` (the
/// BOSCC branch conditions of thesis §9.2).
pub fn is_any_or_all(module: &Module, body: &Body, value: Value) -> bool {
    let Some(inst) = body.def_inst(value) else {
        return false;
    };
    match &body.insts[inst].kind {
        InstKind::Call { callee, .. } => matches!(
            theta::resolve(&module.functions[*callee].name),
            Some(Builtin::Any | Builtin::All)
        ),
        _ => false,
    }
}

/// The values whose widened form may be LLVM `poison` or `undef` (so that a
/// branch condition, a reduction input, a predicate or a divisor built from them
/// needs `freeze`). The emitted code makes no poison of its own except where
/// LLVM's operators do: shifts by an amount that is not a constant below the
/// width, `fptosi`/`fptoui` out of range, and intrinsic math calls; a load may
/// read an uninitialized stack object (`undef`) when the kernel has an `alloca`.
/// Everything else (arguments, constants, whose `undef` is emitted as zero, the
/// builtins, frozen values) is defined, and an operator of defined operands is
/// defined. The least fixpoint over phis.
pub fn may_be_poison(module: &Module, body: &Body) -> SecondaryMap<Value, bool> {
    let has_alloca = body
        .insts
        .iter()
        .any(|(_, data)| matches!(data.kind, InstKind::Alloca { .. }));
    let mut poison: SecondaryMap<Value, bool> = SecondaryMap::default();
    let mut changed = true;
    while changed {
        changed = false;
        for (_, data) in body.insts.iter() {
            let Some(result) = data.result else { continue };
            if poison[result] {
                continue;
            }
            let source = match &data.kind {
                InstKind::Freeze { .. } | InstKind::Mask | InstKind::Alloca { .. } => false,
                InstKind::Binary {
                    op: BinOp::Shl | BinOp::LShr | BinOp::AShr,
                    ty,
                    rhs,
                    ..
                } => {
                    let width = module.types.int_width(*ty).unwrap_or(64);
                    !matches!(body.as_const(*rhs), Some(ConstData::Int(k)) if *k < BigUint::from(width))
                }
                InstKind::Cast { op, .. } => matches!(op, CastOp::FpToSi | CastOp::FpToUi),
                InstKind::Load { .. } => has_alloca,
                InstKind::Call { callee, .. } => {
                    match theta::resolve(&module.functions[*callee].name) {
                        Some(Builtin::Math(_)) | None => true,
                        Some(_) => false,
                    }
                }
                _ => false,
            };
            let propagates = !matches!(
                data.kind,
                InstKind::Freeze { .. } | InstKind::Call { .. } | InstKind::Alloca { .. }
            );
            if source || (propagates && data.kind.operands().iter().any(|&v| poison[v])) {
                poison[result] = true;
                changed = true;
            }
        }
    }
    poison
}

/// The `i1` vector values that are false in every lane that does not exist
/// (lanes `count..W` of a chunk), so that a reduction or an activation built
/// from them needs no `and` with the existing lanes: `mask()` (the activation
/// includes existence), the constant false, and what `and`, `or`, `xor`,
/// `select` and phis keep false there. A scalar is never confined: its splat
/// holds it in every lane. The greatest fixpoint: a loop-carried
/// phi whose every incoming value is confined when its phis are is confined by
/// induction over the iterations.
pub fn confined(
    module: &Module,
    body: &Body,
    repr: &SecondaryMap<Value, Repr>,
) -> SecondaryMap<Value, bool> {
    let is_false = |v: Value| match body.as_const(v) {
        Some(ConstData::Int(k)) => *k == BigUint::from(0u8),
        Some(ConstData::Zero) => true,
        _ => false,
    };
    let mut confined: SecondaryMap<Value, bool> = SecondaryMap::default();
    for (_, data) in body.insts.iter() {
        if let Some(result) = data.result
            && module.types.int_width(body.values[result].ty) == Some(1)
            && repr[result] == Repr::Vector
        {
            confined[result] = true;
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for (_, data) in body.insts.iter() {
            let Some(result) = data.result else { continue };
            if !confined[result] {
                continue;
            }
            let c = |v: Value| is_false(v) || (confined[v] && body.def_inst(v).is_some());
            let keeps = match &data.kind {
                InstKind::Mask => true,
                InstKind::Binary {
                    op: BinOp::And,
                    lhs,
                    rhs,
                    ..
                } => c(*lhs) || c(*rhs),
                InstKind::Binary {
                    op: BinOp::Or | BinOp::Xor,
                    lhs,
                    rhs,
                    ..
                } => c(*lhs) && c(*rhs),
                InstKind::Select {
                    cond,
                    if_true,
                    if_false,
                    ..
                } => c(*if_false) && (c(*if_true) || c(*cond)),
                InstKind::Freeze { arg, .. } => c(*arg),
                InstKind::Phi { incoming, .. } => incoming.iter().all(|&(v, _)| c(v)),
                _ => false,
            };
            if !keeps {
                confined[result] = false;
                changed = true;
            }
        }
    }
    confined
}
