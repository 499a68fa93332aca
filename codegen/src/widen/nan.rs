//! Which float results the widening makes the preferred NaN.
//!
//! LLVM leaves the sign and payload of a NaN result open (LangRef, "Behavior of
//! Floating-Point NaN values"); pllvm's float operations always return the
//! preferred NaN (positive, quiet, payload 0: `semantics/src/ops/float.rs`), x86
//! returns its negative default NaN or an operand's payload. The bits show only
//! where a program looks at them: a `bitcast` to a non-float type, a `store`, a
//! call that is not float arithmetic (`fabs` and `copysign` pass the bits on). A
//! result whose NaN reaches such a place through the operations that move bits
//! unchanged (`phi`, `select`, `freeze`, `fneg`, `fabs`, `copysign`) is made the
//! preferred NaN where it is computed: a compare and a select, only there, so the
//! float loops of a kernel whose floats never escape (Mandelbrot) pay nothing.
//!
//! Producers (their NaN is the preferred one in pllvm): `fadd`, `fsub`, `fmul`,
//! `fdiv`, `frem`, `fpext`, `fptrunc`, and math calls other than `fabs` and
//! `copysign`. A loaded value or an argument keeps its bits in pllvm and
//! natively alike and needs nothing.

use pllvm_semantics::ir::{Body, CastOp, FuncId, InstKind, Module, Value, ValueDef};
use pllvm_semantics::theta::{self, Builtin, MathFn};
use pllvm_semantics::types::TypeData;
use std::collections::HashSet;

/// The results of NaN producers whose bits the program can observe (see the
/// module documentation).
pub(crate) fn observed_nan_results(module: &Module, body: &Body) -> HashSet<Value> {
    let is_float = |v: Value| {
        matches!(
            module.types.get(body.values[v].ty),
            TypeData::F32 | TypeData::F64
        )
    };
    let mut observed: HashSet<Value> = HashSet::new();
    let mut work: Vec<Value> = Vec::new();
    let mut observe = |v: Value, work: &mut Vec<Value>| {
        if is_float(v) && observed.insert(v) {
            work.push(v);
        }
    };
    for &b in &body.layout {
        let data = &body.blocks[b];
        for &i in &data.body {
            match &body.insts[i].kind {
                InstKind::Cast {
                    op: CastOp::Bitcast,
                    arg,
                    to,
                    ..
                } if !matches!(module.types.get(*to), TypeData::F32 | TypeData::F64) => {
                    observe(*arg, &mut work)
                }
                InstKind::Store { value, .. } => observe(*value, &mut work),
                InstKind::Call { callee, args, .. }
                    if bit_moving(module, *callee).is_none() && !is_math(module, *callee) =>
                {
                    for &a in args {
                        observe(a, &mut work);
                    }
                }
                _ => {}
            }
        }
        // A returned float needs nothing: it is compared as a float, and a
        // NaN equals any NaN.
    }
    // Back through the operations that move a NaN's bits unchanged.
    let mut producers = HashSet::new();
    while let Some(v) = work.pop() {
        let ValueDef::Inst(i) = body.values[v].def else {
            continue;
        };
        match &body.insts[i].kind {
            InstKind::Phi {
                incoming, shadow, ..
            } => {
                for &(x, _) in incoming {
                    observe(x, &mut work);
                }
                if let Some(s) = shadow {
                    observe(*s, &mut work);
                }
            }
            InstKind::Select {
                if_true, if_false, ..
            } => {
                observe(*if_true, &mut work);
                observe(*if_false, &mut work);
            }
            InstKind::Freeze { arg, .. } | InstKind::FNeg { arg, .. } => observe(*arg, &mut work),
            InstKind::Binary { op, .. } if op.is_float() => {
                producers.insert(v);
            }
            InstKind::Cast {
                op: CastOp::FpExt | CastOp::FpTrunc,
                ..
            } => {
                producers.insert(v);
            }
            InstKind::Call { callee, args, .. } => match bit_moving(module, *callee) {
                // fabs(x) and copysign(x, y) keep x's payload; y's sign shows.
                Some(_) => {
                    for &a in args {
                        observe(a, &mut work);
                    }
                }
                None if is_math(module, *callee) => {
                    producers.insert(v);
                }
                None => {}
            },
            _ => {}
        }
    }
    producers
}

/// `fabs` or `copysign`: math functions that move a NaN's bits.
fn bit_moving(module: &Module, callee: FuncId) -> Option<MathFn> {
    match theta::resolve(&module.functions[callee].name) {
        Some(Builtin::Math(f @ (MathFn::Fabs | MathFn::CopySign))) => Some(f),
        _ => None,
    }
}

/// Whether `callee` is a math function of θ.
fn is_math(module: &Module, callee: FuncId) -> bool {
    matches!(
        theta::resolve(&module.functions[callee].name),
        Some(Builtin::Math(_))
    )
}
