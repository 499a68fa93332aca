//! Per-lane instruction semantics: what one thread computes for an instruction
//! that P-LLVM does not specify itself.
//!
//! Thesis §4.9 (before Fig. 4.13): "If an instruction is not explicitly specified
//! in the following, each thread executes it independently according to regular
//! LLVM semantics." This module is that "regular LLVM semantics" for the scalar
//! instructions of Fig. 4.2 (`bop`, `cmpop`, `castop`, `terop`) plus LLVM's `fneg`
//! and `freeze`, one lane at a time, as the LLVM Language Reference defines them.
//!
//! ## Undefined values and undefined behaviour
//! P-LLVM has one undefined value ⊤ ([`Val::Undef`]); LLVM's `poison` and `undef`
//! both become it. Whenever LangRef says an operation "produces a poison value"
//! (an `nsw` overflow, an over-wide shift, an inexact `exact` division, ...) the
//! result here is ⊤. A ⊤ operand makes the result ⊤, except that
//! - `select` with a defined condition returns the chosen operand whatever the other
//!   one holds (LangRef: poison in the unselected arm does not propagate), and
//! - a division or remainder whose *divisor* is ⊤ is undefined behaviour, because
//!   LLVM makes `udiv x, undef` immediate UB (⊤ may be zero).
//!
//! Where LangRef says "undefined behaviour" (division by zero, `INT_MIN / -1`) the
//! operation returns `Err(`[`LaneUb`]`)`: an outcome of the run, not ⊤.
//!
//! ## Widths
//! Integers of any width 1..=65536 are supported. Widths up to 128 bits take a
//! `u128` fast path ([`int`]); wider ones use `num-bigint`, written as the
//! mathematical definition (compute in ℤ, check the range, reduce modulo 2^N).
//!
//! ## Floats and NaN
//! `float` and `double` are IEEE binary32 / binary64, computed with Rust's `f32` /
//! `f64` (correctly rounded, ties to even, no fused multiply-add). LangRef
//! (§"Floating-Point Semantics", NaN behaviour) lets an operation that returns a NaN
//! return either the preferred NaN (quiet, payload zero, any sign) or a quieted
//! input NaN. pllvm always returns the *positive* preferred NaN (`0x7fc00000`,
//! `0x7ff8000000000000`), so that results do not depend on the host's FPU. The
//! sign-bit operations `fneg`, `fabs` and `copysign` are bit manipulations and keep
//! NaN payloads, as LangRef requires.
//!
//! Operands whose shape does not match the static type (an `F32` where `ty` says
//! `i32`) cannot occur in a verified program (§4.10); the functions return ⊤ for
//! them rather than panic.

pub mod cast;
pub mod constant;
pub mod elems;
pub mod float;
pub mod int;

pub use cast::cast;
pub use constant::{ConstPlaces, const_value};
pub use float::{fcmp, fneg};
pub use int::{LaneUb, icmp};

use crate::ir::{BinOp, IntFlags};
use crate::types::TypeData;
use crate::value::Val;

/// One lane's `op [flags] ty a, b` (`bop` of Fig. 4.2) with LLVM's semantics.
///
/// Integer operators wrap modulo 2^N; the poison-generating flags (`nuw`, `nsw`,
/// `exact`, `disjoint`) turn a violated promise into ⊤. Float operators ignore
/// `flags` (fast-math flags are dropped by the parser).
pub fn binary(op: BinOp, flags: IntFlags, ty: &TypeData, a: &Val, b: &Val) -> Result<Val, LaneUb> {
    if op.is_float() {
        return Ok(float::binary(op, ty, a, b));
    }
    int::binary(op, flags, ty, a, b)
}

/// One lane's `select i1 cond, ty t, ty f` (`terop`): a ⊤ condition gives ⊤; a
/// defined one returns the chosen operand even when the other is ⊤ (LangRef).
pub fn select(cond: &Val, t: &Val, f: &Val) -> Val {
    match cond.as_bool() {
        Some(true) => t.clone(),
        Some(false) => f.clone(),
        None => Val::Undef,
    }
}

/// One lane's `freeze ty a`: a defined value passes through; ⊤ becomes "an arbitrary
/// but fixed value" (LangRef), and pllvm picks the zero of `ty` (as
/// [`crate::value::zero_of`] does), so runs are reproducible.
pub fn freeze(ty: &TypeData, a: &Val) -> Val {
    match a {
        Val::Undef => zero_of_data(ty),
        defined => defined.clone(),
    }
}

pub use crate::value::zero_of_data;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Pointer;
    use num_bigint::BigUint;
    use std::sync::Arc;

    /// Compares one `select` / `freeze` evaluation with the expected lane value.
    fn check(got: Val, expect: Val) {
        assert_eq!(got, expect);
    }

    #[test]
    fn select_picks_the_chosen_operand_even_next_to_undef() {
        check(
            select(&Val::bool(true), &Val::Int(1), &Val::Undef),
            Val::Int(1),
        );
        check(
            select(&Val::bool(false), &Val::Undef, &Val::Int(2)),
            Val::Int(2),
        );
        check(select(&Val::Undef, &Val::Int(1), &Val::Int(1)), Val::Undef);
    }

    #[test]
    fn freeze_picks_zero_for_undef() {
        check(freeze(&TypeData::Int(32), &Val::Undef), Val::Int(0));
        check(freeze(&TypeData::Int(32), &Val::Int(7)), Val::Int(7));
        check(
            freeze(&TypeData::Int(200), &Val::Undef),
            Val::Wide(Arc::new(BigUint::default())),
        );
        check(freeze(&TypeData::F64, &Val::Undef), Val::F64(0));
        check(
            freeze(&TypeData::Ptr(0), &Val::Undef),
            Val::Ptr(Pointer {
                object: None,
                offset: 0,
            }),
        );
    }

    #[test]
    fn lane_ub_messages_are_lowercase() {
        assert_eq!(LaneUb::DivisionByZero.to_string(), "division by zero");
        assert_eq!(
            LaneUb::DivisionByUndef.to_string(),
            "division by an undefined divisor"
        );
    }
}
