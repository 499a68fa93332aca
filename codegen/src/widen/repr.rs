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

use pllvm_analysis::result::Uniformity;
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{Body, InstKind, Module, Value, ValueDef};
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
