//! Float binary operators, `fneg` and `fcmp` of one lane (thesis §4.9: "regular
//! LLVM semantics"; LangRef `fadd` … `frem`, `fneg`, `fcmp`, NaN behaviour).
//!
//! Arithmetic is IEEE 754 in the operand type, round to nearest even, computed with
//! Rust's `f32` / `f64`. A NaN result is always the positive preferred NaN (see the
//! module documentation of [`crate::ops`]). `frem` is C's `fmod` (LangRef: "the
//! remainder has the same sign as the dividend"), which is Rust's `%` on floats.

use crate::ir::{BinOp, FCmpPred};
use crate::types::TypeData;
use crate::value::Val;

/// The positive quiet NaN with payload zero of binary32 (LangRef's preferred NaN).
pub const PREFERRED_NAN_F32: u32 = 0x7fc0_0000;
/// The positive quiet NaN with payload zero of binary64 (LangRef's preferred NaN).
pub const PREFERRED_NAN_F64: u64 = 0x7ff8_0000_0000_0000;

/// The lane value of an `f32` arithmetic result: its bits, NaNs made preferred.
pub fn f32_val(x: f32) -> Val {
    Val::F32(if x.is_nan() {
        PREFERRED_NAN_F32
    } else {
        x.to_bits()
    })
}

/// The lane value of an `f64` arithmetic result: its bits, NaNs made preferred.
pub fn f64_val(x: f64) -> Val {
    Val::F64(if x.is_nan() {
        PREFERRED_NAN_F64
    } else {
        x.to_bits()
    })
}

/// `x op y` in the host's IEEE arithmetic of `T` (`f32` or `f64`), for the five
/// floating-point binary operations; `None` for any other operation.
fn arith<T>(op: BinOp, x: T, y: T) -> Option<T>
where
    T: std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>
        + std::ops::Div<Output = T>
        + std::ops::Rem<Output = T>,
{
    Some(match op {
        BinOp::FAdd => x + y,
        BinOp::FSub => x - y,
        BinOp::FMul => x * y,
        BinOp::FDiv => x / y,
        BinOp::FRem => x % y,
        _ => return None,
    })
}

/// One lane's `fadd`/`fsub`/`fmul`/`fdiv`/`frem` on `float` or `double`; ⊤ operands give ⊤.
pub(crate) fn binary(op: BinOp, ty: &TypeData, a: &Val, b: &Val) -> Val {
    match (ty, a, b) {
        (TypeData::F32, Val::F32(x), Val::F32(y)) => {
            let (x, y) = (f32::from_bits(*x), f32::from_bits(*y));
            arith(op, x, y).map_or(Val::Undef, f32_val)
        }
        (TypeData::F64, Val::F64(x), Val::F64(y)) => {
            let (x, y) = (f64::from_bits(*x), f64::from_bits(*y));
            arith(op, x, y).map_or(Val::Undef, f64_val)
        }
        (
            TypeData::F16 | TypeData::BF16,
            Val::F16(_) | Val::BF16(_),
            Val::F16(_) | Val::BF16(_),
        ) => {
            // Computed in binary32 and rounded once (exact: see `crate::half`).
            let small = if matches!(ty, TypeData::F16) {
                crate::half::Small::Half
            } else {
                crate::half::Small::BFloat
            };
            let (Some(x), Some(y)) = (a.as_f64(), b.as_f64()) else {
                return Val::Undef;
            };
            let Some(r) = arith(op, x as f32, y as f32) else {
                return Val::Undef;
            };
            small.val(crate::half::round_f64(small, f64::from(r)))
        }
        _ => Val::Undef,
    }
}

/// One lane's `fneg ty a`: flips the sign bit, NaNs included (LangRef: "a copy of
/// the operand with its sign bit flipped"); ⊤ gives ⊤.
pub fn fneg(ty: &TypeData, a: &Val) -> Val {
    match (ty, a) {
        (TypeData::F32, Val::F32(x)) => Val::F32(x ^ (1 << 31)),
        (TypeData::F64, Val::F64(x)) => Val::F64(x ^ (1 << 63)),
        (TypeData::F16, Val::F16(x)) => Val::F16(x ^ (1 << 15)),
        (TypeData::BF16, Val::BF16(x)) => Val::BF16(x ^ (1 << 15)),
        _ => Val::Undef,
    }
}

/// Whether `pred` holds for two decoded floats (LangRef `fcmp`): an *ordered*
/// predicate is false when either operand is NaN, an *unordered* one is true.
pub(crate) fn fcmp_holds(pred: FCmpPred, x: f64, y: f64) -> bool {
    let unordered = x.is_nan() || y.is_nan();
    match pred {
        FCmpPred::False => false,
        FCmpPred::True => true,
        FCmpPred::Ord => !unordered,
        FCmpPred::Uno => unordered,
        FCmpPred::Oeq => !unordered && x == y,
        FCmpPred::Ogt => !unordered && x > y,
        FCmpPred::Oge => !unordered && x >= y,
        FCmpPred::Olt => !unordered && x < y,
        FCmpPred::Ole => !unordered && x <= y,
        FCmpPred::One => !unordered && x != y,
        FCmpPred::Ueq => unordered || x == y,
        FCmpPred::Ugt => unordered || x > y,
        FCmpPred::Uge => unordered || x >= y,
        FCmpPred::Ult => unordered || x < y,
        FCmpPred::Ule => unordered || x <= y,
        FCmpPred::Une => unordered || x != y,
    }
}

/// One lane's `fcmp pred ty a, b` (result `i1`). Floats are compared as numbers
/// (`-0 == +0`, NaN unordered), never by bits; ⊤ operands give ⊤, even for the
/// constant predicates, since poison propagates through every instruction but
/// `select`, `phi` and `freeze`.
pub fn fcmp(pred: FCmpPred, ty: &TypeData, a: &Val, b: &Val) -> Val {
    match (ty, a, b) {
        // Widening binary32 to binary64 is exact and keeps the order and NaN-ness.
        (TypeData::F32, Val::F32(_), Val::F32(_))
        | (TypeData::F64, Val::F64(_), Val::F64(_))
        | (TypeData::F16, Val::F16(_), Val::F16(_))
        | (TypeData::BF16, Val::BF16(_), Val::BF16(_)) => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => Val::bool(fcmp_holds(pred, x, y)),
            _ => Val::Undef,
        },
        _ => Val::Undef,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates `op double a, b` and compares the result with `expect` (by bits).
    fn check(op: BinOp, a: f64, b: f64, expect: f64) {
        let got = binary(
            op,
            &TypeData::F64,
            &Val::F64(a.to_bits()),
            &Val::F64(b.to_bits()),
        );
        assert_eq!(got, f64_val(expect), "{} {a}, {b}", op.name());
        let got32 = binary(
            op,
            &TypeData::F32,
            &Val::F32((a as f32).to_bits()),
            &Val::F32((b as f32).to_bits()),
        );
        assert_eq!(
            got32,
            f32_val(expect as f32),
            "{} float {a}, {b}",
            op.name()
        );
    }

    #[test]
    fn arithmetic() {
        check(BinOp::FAdd, 1.5, 2.25, 3.75);
        check(BinOp::FSub, 1.0, 3.0, -2.0);
        check(BinOp::FMul, -2.0, 0.0, -0.0);
        check(BinOp::FDiv, 1.0, 0.0, f64::INFINITY);
        check(BinOp::FDiv, 0.0, 0.0, f64::NAN);
        check(BinOp::FRem, -7.0, 2.0, -1.0);
        check(BinOp::FRem, 7.0, -2.0, 1.0);
        check(BinOp::FRem, 1.0, 0.0, f64::NAN);
        check(BinOp::FAdd, f64::INFINITY, f64::NEG_INFINITY, f64::NAN);
    }

    #[test]
    fn nan_results_are_the_preferred_nan() {
        let negative_nan = Val::F32(0xffc0_0001);
        let got = binary(BinOp::FAdd, &TypeData::F32, &negative_nan, &Val::F32(0));
        assert_eq!(got, Val::F32(PREFERRED_NAN_F32));
    }

    #[test]
    fn fneg_flips_the_sign_bit_only() {
        assert_eq!(fneg(&TypeData::F32, &Val::F32(0)), Val::F32(0x8000_0000));
        assert_eq!(
            fneg(&TypeData::F32, &Val::F32(0x7fc0_0001)),
            Val::F32(0xffc0_0001)
        );
        assert_eq!(
            fneg(&TypeData::F64, &Val::F64(1.0f64.to_bits())),
            Val::F64((-1.0f64).to_bits())
        );
        assert_eq!(fneg(&TypeData::F64, &Val::Undef), Val::Undef);
    }

    #[test]
    fn fcmp_ordered_and_unordered() {
        let nan = Val::F64(f64::NAN.to_bits());
        let one = Val::F64(1.0f64.to_bits());
        let ty = TypeData::F64;
        assert_eq!(fcmp(FCmpPred::Oeq, &ty, &nan, &nan), Val::bool(false));
        assert_eq!(fcmp(FCmpPred::Ueq, &ty, &nan, &one), Val::bool(true));
        assert_eq!(fcmp(FCmpPred::One, &ty, &nan, &one), Val::bool(false));
        assert_eq!(fcmp(FCmpPred::Une, &ty, &nan, &nan), Val::bool(true));
        assert_eq!(fcmp(FCmpPred::Uno, &ty, &one, &one), Val::bool(false));
        assert_eq!(fcmp(FCmpPred::Ord, &ty, &one, &one), Val::bool(true));
        let (zero, minus_zero) = (Val::F64(0), Val::F64(1 << 63));
        assert_eq!(
            fcmp(FCmpPred::Oeq, &ty, &zero, &minus_zero),
            Val::bool(true)
        );
        assert_eq!(fcmp(FCmpPred::True, &ty, &Val::Undef, &one), Val::Undef);
        let f = TypeData::F32;
        let (a, b) = (Val::F32(1.0f32.to_bits()), Val::F32(2.0f32.to_bits()));
        assert_eq!(fcmp(FCmpPred::Olt, &f, &a, &b), Val::bool(true));
        assert_eq!(fcmp(FCmpPred::Uge, &f, &a, &b), Val::bool(false));
    }
}
