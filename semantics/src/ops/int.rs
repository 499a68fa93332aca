//! Integer binary operators and `icmp` of one lane (thesis §4.9: "regular LLVM
//! semantics"; LangRef "Binary Operations", "Bitwise Binary Operations", `icmp`).
//!
//! Two implementations of the same definition: `small` for widths up to 128
//! bits on `u128` / `i128`, and `wide` for any width on `num-bigint`, written the
//! way LangRef states each rule: compute the exact result in ℤ, make it ⊤ when a
//! flag's promise is broken, reduce it modulo 2^N. `wide` also accepts widths up to
//! 128, so the unit tests run both on the same operands and compare.

use crate::ir::{BinOp, ICmpPred, IntFlags};
use crate::types::TypeData;
use crate::value::{Val, low_mask, wrap_biguint};
use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::{One, Zero};
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

/// Undefined behaviour of one lane's operation: a real UB outcome of the run (LLVM
/// "undefined behavior"), as opposed to the undefined *value* ⊤.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneUb {
    /// `udiv`/`sdiv`/`urem`/`srem` by zero (LangRef: "division by zero is undefined behavior").
    DivisionByZero,
    /// `sdiv`/`srem` of the most negative value by -1 (LangRef: signed overflow of a
    /// division is undefined behaviour).
    SignedDivisionOverflow,
    /// A division or remainder whose divisor is ⊤ (LLVM: an `undef` divisor may be
    /// zero, a `poison` divisor is immediate UB).
    DivisionByUndef,
}

impl fmt::Display for LaneUb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaneUb::DivisionByZero => write!(f, "division by zero"),
            LaneUb::SignedDivisionOverflow => {
                write!(
                    f,
                    "signed division overflow (most negative value divided by -1)"
                )
            }
            LaneUb::DivisionByUndef => write!(f, "division by an undefined divisor"),
        }
    }
}

impl std::error::Error for LaneUb {}

/// The two's-complement value of the low `width` bits of `bits` (`width` in 1..=128).
pub(crate) fn sext128(width: u32, bits: u128) -> i128 {
    let unused = 128 - width.clamp(1, 128);
    ((bits << unused) as i128) >> unused
}

/// The two's-complement value of a `width`-bit pattern, as a `BigInt`.
pub(crate) fn signed_big(width: u32, bits: &BigUint) -> BigInt {
    let unsigned = BigInt::from(bits.clone());
    if width > 0 && bits.bit(u64::from(width) - 1) {
        unsigned - (BigInt::one() << width)
    } else {
        unsigned
    }
}

/// The `width`-bit pattern of an integer in ℤ (reduction modulo 2^width).
pub(crate) fn wrap_signed_big(width: u32, value: &BigInt) -> BigUint {
    let modulus = BigInt::one() << width;
    // `mod_floor` is non-negative for a positive modulus, so the conversion succeeds.
    value.mod_floor(&modulus).to_biguint().unwrap_or_default()
}

/// The lane value of a `width`-bit pattern already reduced modulo 2^width.
pub(crate) fn int_val(width: u32, bits: BigUint) -> Val {
    if width <= 128 {
        Val::from_biguint(width, bits)
    } else {
        Val::Wide(Arc::new(bits))
    }
}

/// The bit pattern of an integer lane value, for any width.
pub(crate) fn big_operand(v: &Val) -> Option<BigUint> {
    v.as_biguint()
}

/// Whether an operator is a division or remainder (its divisor may cause UB).
fn is_division(op: BinOp) -> bool {
    matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem)
}

/// Whether an integer lane value is zero.
fn is_zero(v: &Val) -> bool {
    match v {
        Val::Int(x) => *x == 0,
        Val::Wide(x) => x.is_zero(),
        _ => false,
    }
}

/// `Some(value)` unless a flag's promise is broken, in which case ⊤ (`None`).
fn unless_poison<T>(poison: bool, value: T) -> Option<T> {
    if poison { None } else { Some(value) }
}

/// One lane's integer `op [flags] iN a, b`. Undefined behaviour is checked on the
/// divisor before ⊤ propagates from the dividend: `udiv ⊤, 0` is still UB.
pub(crate) fn binary(
    op: BinOp,
    flags: IntFlags,
    ty: &TypeData,
    a: &Val,
    b: &Val,
) -> Result<Val, LaneUb> {
    let TypeData::Int(width) = *ty else {
        return Ok(Val::Undef);
    };
    if is_division(op) {
        if b.is_undef() {
            return Err(LaneUb::DivisionByUndef);
        }
        if is_zero(b) {
            return Err(LaneUb::DivisionByZero);
        }
    }
    if a.is_undef() || b.is_undef() {
        return Ok(Val::Undef);
    }
    if width <= 128 {
        let (Val::Int(x), Val::Int(y)) = (a, b) else {
            return Ok(Val::Undef);
        };
        return Ok(small(op, flags, width, *x, *y)?.map_or(Val::Undef, Val::Int));
    }
    let (Some(x), Some(y)) = (big_operand(a), big_operand(b)) else {
        return Ok(Val::Undef);
    };
    Ok(wide(op, flags, width, &x, &y)?.map_or(Val::Undef, |r| Val::Wide(Arc::new(r))))
}

/// The `u128` path: `a`, `b` are `width`-bit patterns (`width` ≤ 128); `None` is ⊤.
pub(crate) fn small(
    op: BinOp,
    flags: IntFlags,
    width: u32,
    a: u128,
    b: u128,
) -> Result<Option<u128>, LaneUb> {
    let mask = low_mask(width);
    // Reduce first: a caller holding an unreduced pattern (say 2 in an i1) gets
    // the operation on its low `width` bits instead of a zero divisor after sext.
    let (a, b) = (a & mask, b & mask);
    let (sa, sb) = (sext128(width, a), sext128(width, b));
    // Whether an exact signed result is representable in `width` bits.
    let fits_signed = |v: i128| sext128(width, v as u128 & mask) == v;
    let signed_min = sext128(width, 1u128 << (width - 1));
    let result = match op {
        BinOp::Add => {
            let unsigned_overflow = a.checked_add(b).is_none_or(|s| s > mask);
            let signed_overflow = sa.checked_add(sb).is_none_or(|s| !fits_signed(s));
            let poison = flags.nuw && unsigned_overflow || flags.nsw && signed_overflow;
            unless_poison(poison, a.wrapping_add(b) & mask)
        }
        BinOp::Sub => {
            let unsigned_overflow = a < b;
            let signed_overflow = sa.checked_sub(sb).is_none_or(|s| !fits_signed(s));
            let poison = flags.nuw && unsigned_overflow || flags.nsw && signed_overflow;
            unless_poison(poison, a.wrapping_sub(b) & mask)
        }
        BinOp::Mul => {
            let unsigned_overflow = a.checked_mul(b).is_none_or(|p| p > mask);
            let signed_overflow = sa.checked_mul(sb).is_none_or(|p| !fits_signed(p));
            let poison = flags.nuw && unsigned_overflow || flags.nsw && signed_overflow;
            unless_poison(poison, a.wrapping_mul(b) & mask)
        }
        BinOp::UDiv | BinOp::URem if b == 0 => return Err(LaneUb::DivisionByZero),
        BinOp::SDiv | BinOp::SRem if b == 0 => return Err(LaneUb::DivisionByZero),
        BinOp::SDiv | BinOp::SRem if sa == signed_min && sb == -1 => {
            return Err(LaneUb::SignedDivisionOverflow);
        }
        BinOp::UDiv => unless_poison(flags.exact && !a.is_multiple_of(b), a / b),
        BinOp::URem => Some(a % b),
        // Rust's `/` and `%` on integers truncate toward zero, as `sdiv`/`srem` do.
        BinOp::SDiv => unless_poison(flags.exact && sa % sb != 0, (sa / sb) as u128 & mask),
        BinOp::SRem => Some((sa % sb) as u128 & mask),
        BinOp::Shl | BinOp::LShr | BinOp::AShr if b >= u128::from(width) => None,
        BinOp::Shl => {
            let shift = b as u32;
            let r = (a << shift) & mask;
            let unsigned_lost = r >> shift != a;
            let signed_lost = sext128(width, r) >> shift != sa;
            unless_poison(flags.nuw && unsigned_lost || flags.nsw && signed_lost, r)
        }
        BinOp::LShr => {
            let shift = b as u32;
            unless_poison(flags.exact && a & low_mask(shift) != 0, a >> shift)
        }
        BinOp::AShr => {
            let shift = b as u32;
            let r = (sa >> shift) as u128 & mask;
            unless_poison(flags.exact && a & low_mask(shift) != 0, r)
        }
        BinOp::And => Some(a & b),
        BinOp::Or => unless_poison(flags.disjoint && a & b != 0, a | b),
        BinOp::Xor => Some(a ^ b),
        BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem => None,
    };
    Ok(result)
}

/// The `num-bigint` path, for any `width` ≥ 1: the LangRef rules computed in ℤ.
pub(crate) fn wide(
    op: BinOp,
    flags: IntFlags,
    width: u32,
    a: &BigUint,
    b: &BigUint,
) -> Result<Option<BigUint>, LaneUb> {
    let modulus = BigUint::one() << width;
    let half = BigInt::one() << (width - 1);
    let (sa, sb) = (signed_big(width, a), signed_big(width, b));
    let (ua, ub) = (BigInt::from(a.clone()), BigInt::from(b.clone()));
    // An exact result in ℤ is representable as unsigned / signed `width` bits.
    let fits_unsigned = |v: &BigInt| v.sign() != Sign::Minus && v.magnitude() < &modulus;
    let fits_signed = |v: &BigInt| -&half <= *v && *v < half;
    let arithmetic = |unsigned: BigInt, signed: BigInt| {
        let poison = flags.nuw && !fits_unsigned(&unsigned) || flags.nsw && !fits_signed(&signed);
        unless_poison(poison, wrap_signed_big(width, &unsigned))
    };
    let result = match op {
        BinOp::Add => arithmetic(&ua + &ub, &sa + &sb),
        BinOp::Sub => arithmetic(&ua - &ub, &sa - &sb),
        BinOp::Mul => arithmetic(&ua * &ub, &sa * &sb),
        BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem if b.is_zero() => {
            return Err(LaneUb::DivisionByZero);
        }
        BinOp::SDiv | BinOp::SRem if sa == -&half && sb == -BigInt::one() => {
            return Err(LaneUb::SignedDivisionOverflow);
        }
        BinOp::UDiv => unless_poison(flags.exact && !(a % b).is_zero(), a / b),
        BinOp::URem => Some(a % b),
        // `BigInt` division truncates toward zero and the remainder takes the
        // dividend's sign, exactly like `sdiv` / `srem`.
        BinOp::SDiv => unless_poison(
            flags.exact && !(&sa % &sb).is_zero(),
            wrap_signed_big(width, &(&sa / &sb)),
        ),
        BinOp::SRem => Some(wrap_signed_big(width, &(&sa % &sb))),
        BinOp::Shl | BinOp::LShr | BinOp::AShr if *b >= BigUint::from(width) => None,
        BinOp::Shl | BinOp::LShr | BinOp::AShr => {
            // The amount is below `width` ≤ 65536, so it fits a `u32`.
            let shift = u32::try_from(b).unwrap_or(width);
            let shifted_out_nonzero = !wrap_biguint(shift, a).is_zero();
            match op {
                BinOp::Shl => {
                    let r = wrap_biguint(width, &(a << shift));
                    let unsigned_lost = &r >> shift != *a;
                    let signed_lost = signed_big(width, &r) >> shift != sa;
                    unless_poison(flags.nuw && unsigned_lost || flags.nsw && signed_lost, r)
                }
                BinOp::LShr => unless_poison(flags.exact && shifted_out_nonzero, a >> shift),
                _ => unless_poison(
                    flags.exact && shifted_out_nonzero,
                    // `BigInt >>` rounds toward -∞: an arithmetic shift.
                    wrap_signed_big(width, &(&sa >> shift)),
                ),
            }
        }
        BinOp::And => Some(a & b),
        BinOp::Or => unless_poison(flags.disjoint && !(a & b).is_zero(), a | b),
        BinOp::Xor => Some(a ^ b),
        BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem => None,
    };
    Ok(result)
}

/// Whether `pred` holds, given how the operands compare as unsigned and as signed
/// numbers (LangRef `icmp`).
pub(crate) fn icmp_holds(pred: ICmpPred, unsigned: Ordering, signed: Ordering) -> bool {
    match pred {
        ICmpPred::Eq => unsigned.is_eq(),
        ICmpPred::Ne => unsigned.is_ne(),
        ICmpPred::Ugt => unsigned.is_gt(),
        ICmpPred::Uge => unsigned.is_ge(),
        ICmpPred::Ult => unsigned.is_lt(),
        ICmpPred::Ule => unsigned.is_le(),
        ICmpPred::Sgt => signed.is_gt(),
        ICmpPred::Sge => signed.is_ge(),
        ICmpPred::Slt => signed.is_lt(),
        ICmpPred::Sle => signed.is_le(),
    }
}

/// One lane's `icmp pred ty a, b` (result `i1`). Pointers compare by
/// [`crate::value::Pointer::address`] as 64-bit integers; a ⊤ operand gives ⊤.
pub fn icmp(pred: ICmpPred, ty: &TypeData, a: &Val, b: &Val) -> Val {
    match (a, b, ty) {
        (Val::Undef, _, _) | (_, Val::Undef, _) => Val::Undef,
        (Val::Ptr(p), Val::Ptr(q), _) => {
            let (x, y) = (p.address(), q.address());
            Val::bool(icmp_holds(pred, x.cmp(&y), (x as i64).cmp(&(y as i64))))
        }
        (Val::Int(x), Val::Int(y), TypeData::Int(width)) if *width <= 128 => {
            let signed = sext128(*width, *x).cmp(&sext128(*width, *y));
            Val::bool(icmp_holds(pred, x.cmp(y), signed))
        }
        (_, _, TypeData::Int(width)) => match (big_operand(a), big_operand(b)) {
            (Some(x), Some(y)) => {
                let signed = signed_big(*width, &x).cmp(&signed_big(*width, &y));
                Val::bool(icmp_holds(pred, x.cmp(&y), signed))
            }
            _ => Val::Undef,
        },
        _ => Val::Undef,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: IntFlags = IntFlags {
        nuw: false,
        nsw: false,
        exact: false,
        disjoint: false,
    };

    fn flags(word: &str) -> IntFlags {
        IntFlags {
            nuw: word.contains("nuw"),
            nsw: word.contains("nsw"),
            exact: word.contains("exact"),
            disjoint: word.contains("disjoint"),
        }
    }

    fn int(width: u32, v: i128) -> Val {
        int_val(width, wrap_signed_big(width, &BigInt::from(v)))
    }

    /// `op flags iW a, b` evaluates to `expect` (`Ok(None)` is ⊤); operands and the
    /// expected value are written as signed numbers and wrapped to the width.
    fn check(
        op: BinOp,
        flag_words: &str,
        width: u32,
        a: i128,
        b: i128,
        expect: Result<Option<i128>, LaneUb>,
    ) {
        let got = binary(
            op,
            flags(flag_words),
            &TypeData::Int(width),
            &int(width, a),
            &int(width, b),
        );
        let expect = expect.map(|r| r.map_or(Val::Undef, |v| int(width, v)));
        assert_eq!(got, expect, "{} {flag_words} i{width} {a}, {b}", op.name());
    }

    const WIDTHS: [u32; 14] = [1, 7, 8, 31, 32, 33, 63, 64, 65, 127, 128, 129, 256, 4096];

    #[test]
    fn add_sub_mul_wrap_and_flags_give_undef() {
        // In i1, 1 is -1: -1 + -1 and -1 · -1 overflow the signed range [-1, 0].
        check(BinOp::Add, "nsw", 1, 1, 1, Ok(None));
        check(BinOp::Mul, "nsw", 1, 1, 1, Ok(None));
        check(BinOp::Add, "nuw", 1, 1, 0, Ok(Some(1)));
        for w in WIDTHS.into_iter().filter(|&w| w > 1) {
            let max = (BigInt::one() << (w - 1)) - 1;
            let smax = i128::try_from(&max).unwrap_or(i128::MAX);
            check(BinOp::Add, "", w, -1, 1, Ok(Some(0)));
            check(BinOp::Add, "nuw", w, -1, 1, Ok(None));
            check(BinOp::Add, "nsw", w, -1, 1, Ok(Some(0)));
            if w <= 128 {
                check(BinOp::Add, "nsw", w, smax, 1, Ok(None));
                check(
                    BinOp::Add,
                    "nuw",
                    w,
                    smax,
                    1,
                    Ok(Some(smax.wrapping_add(1))),
                );
            }
            check(BinOp::Sub, "", w, 0, 1, Ok(Some(-1)));
            check(BinOp::Sub, "nuw", w, 0, 1, Ok(None));
            check(BinOp::Sub, "nsw", w, 0, 1, Ok(Some(-1)));
            check(BinOp::Mul, "nuw", w, -1, 2, Ok(None));
            check(BinOp::Mul, "nsw", w, -1, -1, Ok(Some(1)));
        }
        check(BinOp::Mul, "nsw", 8, 16, 8, Ok(None));
        check(BinOp::Mul, "nsw", 8, -16, 8, Ok(Some(-128)));
        check(BinOp::Mul, "nuw", 8, 16, 16, Ok(None));
        check(BinOp::Mul, "", 8, 16, 16, Ok(Some(0)));
    }

    #[test]
    fn division_undefined_behaviour_and_exact() {
        for w in WIDTHS {
            for op in [BinOp::UDiv, BinOp::SDiv, BinOp::URem, BinOp::SRem] {
                check(op, "", w, 5, 0, Err(LaneUb::DivisionByZero));
            }
            let min = if w <= 128 {
                sext128(w, 1u128 << (w - 1))
            } else {
                0
            };
            if w <= 128 {
                check(
                    BinOp::SDiv,
                    "",
                    w,
                    min,
                    -1,
                    Err(LaneUb::SignedDivisionOverflow),
                );
                check(
                    BinOp::SRem,
                    "",
                    w,
                    min,
                    -1,
                    Err(LaneUb::SignedDivisionOverflow),
                );
            }
            if w >= 4 {
                check(BinOp::SDiv, "", w, -7, 2, Ok(Some(-3)));
                check(BinOp::SRem, "", w, -7, 2, Ok(Some(-1)));
                check(BinOp::SDiv, "exact", w, -7, 2, Ok(None));
                check(BinOp::SDiv, "exact", w, -6, 2, Ok(Some(-3)));
                check(BinOp::UDiv, "exact", w, 7, 2, Ok(None));
                check(BinOp::UDiv, "", w, 7, 2, Ok(Some(3)));
                check(BinOp::URem, "", w, 7, 2, Ok(Some(1)));
            }
        }
        // The most negative i4096, divided by -1.
        let w = 4096;
        let min = int_val(w, BigUint::one() << (w - 1));
        let ty = TypeData::Int(w);
        assert_eq!(
            binary(BinOp::SDiv, NONE, &ty, &min, &int(w, -1)),
            Err(LaneUb::SignedDivisionOverflow)
        );
    }

    #[test]
    fn undef_operands() {
        let ty = TypeData::Int(32);
        let one = Val::Int(1);
        assert_eq!(
            binary(BinOp::Add, NONE, &ty, &Val::Undef, &one),
            Ok(Val::Undef)
        );
        assert_eq!(
            binary(BinOp::And, NONE, &ty, &one, &Val::Undef),
            Ok(Val::Undef)
        );
        assert_eq!(
            binary(BinOp::UDiv, NONE, &ty, &Val::Undef, &one),
            Ok(Val::Undef)
        );
        assert_eq!(
            binary(BinOp::UDiv, NONE, &ty, &one, &Val::Undef),
            Err(LaneUb::DivisionByUndef)
        );
        assert_eq!(
            binary(BinOp::SRem, NONE, &ty, &Val::Undef, &Val::Int(0)),
            Err(LaneUb::DivisionByZero)
        );
        assert_eq!(icmp(ICmpPred::Eq, &ty, &Val::Undef, &one), Val::Undef);
    }

    #[test]
    fn shifts() {
        for w in WIDTHS {
            check(BinOp::Shl, "", w, 1, i128::from(w), Ok(None));
            check(BinOp::LShr, "", w, 1, i128::from(w), Ok(None));
            check(BinOp::AShr, "", w, 1, i128::from(w), Ok(None));
            check(BinOp::AShr, "", w, -1, i128::from(w - 1), Ok(Some(-1)));
            if w <= 128 {
                let min = sext128(w, 1u128 << (w - 1));
                check(BinOp::Shl, "nsw", w, -1, i128::from(w - 1), Ok(Some(min)));
                check(BinOp::Shl, "nuw", w, -1, 1, Ok(None));
            }
        }
        check(BinOp::Shl, "", 8, 0x81, 1, Ok(Some(2)));
        check(BinOp::Shl, "nuw", 8, 0x81, 1, Ok(None));
        check(BinOp::Shl, "nsw", 8, 0x40, 1, Ok(None));
        check(BinOp::Shl, "nsw", 8, -64, 1, Ok(Some(-128)));
        check(BinOp::Shl, "nuw", 8, 0x40, 1, Ok(Some(0x80)));
        check(BinOp::LShr, "exact", 8, 5, 1, Ok(None));
        check(BinOp::LShr, "exact", 8, 4, 2, Ok(Some(1)));
        check(BinOp::AShr, "", 8, -8, 2, Ok(Some(-2)));
        check(BinOp::LShr, "", 8, -8, 2, Ok(Some(0x3e)));
        check(BinOp::AShr, "exact", 8, -7, 1, Ok(None));
        check(BinOp::Or, "disjoint", 8, 1, 3, Ok(None));
        check(BinOp::Or, "disjoint", 8, 1, 2, Ok(Some(3)));
        check(BinOp::Xor, "", 8, 0xff, 0x0f, Ok(Some(0xf0)));
    }

    /// `ICmpPred::swapped` and `ICmpPred::inverse` against `icmp` itself, on
    /// every pair of `i4` values.
    #[test]
    fn swapped_and_inverse_predicates_agree_with_icmp() {
        let ty = TypeData::Int(4);
        for pred in ICmpPred::ALL {
            for a in -8..8 {
                for b in -8..8 {
                    let (x, y) = (int(4, a), int(4, b));
                    let holds = icmp(pred, &ty, &x, &y);
                    assert_eq!(icmp(pred.swapped(), &ty, &y, &x), holds, "{pred:?} {a} {b}");
                    let inverse = icmp(pred.inverse(), &ty, &x, &y);
                    assert_ne!(inverse, holds, "{pred:?} {a} {b}");
                }
            }
        }
    }

    #[test]
    fn icmp_signed_and_unsigned_and_pointers() {
        let ty = TypeData::Int(8);
        let (m1, one) = (int(8, -1), int(8, 1));
        assert_eq!(icmp(ICmpPred::Slt, &ty, &m1, &one), Val::bool(true));
        assert_eq!(icmp(ICmpPred::Ult, &ty, &m1, &one), Val::bool(false));
        let wide = TypeData::Int(300);
        let (m1, one) = (int(300, -1), int(300, 1));
        assert_eq!(icmp(ICmpPred::Sle, &wide, &m1, &one), Val::bool(true));
        assert_eq!(icmp(ICmpPred::Uge, &wide, &m1, &one), Val::bool(true));
        assert_eq!(icmp(ICmpPred::Ne, &wide, &m1, &one), Val::bool(true));
        use crate::value::{ObjectId, Pointer};
        let p = Val::Ptr(Pointer {
            object: Some(ObjectId(0)),
            offset: 4,
        });
        let q = Val::Ptr(Pointer {
            object: Some(ObjectId(0)),
            offset: 8,
        });
        assert_eq!(
            icmp(ICmpPred::Ult, &TypeData::Ptr(0), &p, &q),
            Val::bool(true)
        );
        assert_eq!(
            icmp(ICmpPred::Eq, &TypeData::Ptr(0), &p, &p),
            Val::bool(true)
        );
    }

    /// The `u128` path and the `num-bigint` definition agree on every operator,
    /// flag and width up to 128, on operands near the interesting boundaries.
    #[test]
    fn small_and_wide_paths_agree() {
        let flag_sets = ["", "nuw", "nsw", "nuw nsw", "exact", "disjoint"];
        for w in [1u32, 2, 7, 8, 31, 32, 33, 63, 64, 65, 127, 128] {
            let mask = low_mask(w);
            let top = 1u128 << (w - 1);
            let samples: Vec<u128> = [
                0,
                1,
                2,
                3,
                5,
                top,
                top - 1,
                top + 1,
                mask,
                mask - 1,
                mask / 3,
                0x1234_5678_9abc_def0_1357_9bdf_2468_ace0,
            ]
            .iter()
            .map(|v| v & mask)
            .collect();
            let ops = BinOp::ALL.iter().filter(|op| !op.is_float());
            for &op in ops {
                for words in flag_sets {
                    for &a in &samples {
                        for &b in &samples {
                            let f = flags(words);
                            let fast = small(op, f, w, a, b);
                            let slow = wide(op, f, w, &BigUint::from(a), &BigUint::from(b))
                                .map(|r| r.and_then(|r| u128::try_from(&r).ok()));
                            assert_eq!(fast, slow, "{} {words} i{w} {a}, {b}", op.name());
                        }
                    }
                }
            }
        }
    }
}
