//! Cast operators of one lane (`castop`, thesis §4.9: "regular LLVM semantics";
//! LangRef "Conversion Operations").
//!
//! Integer casts work at any width (a `u128` fast path when both widths are ≤ 128).
//! Integer → float conversions round to nearest, ties to even, exactly for every
//! width: widths ≤ 128 use Rust's `as` (which rounds that way), wider ones round the
//! `BigUint` by hand (`int_to_float_bits`). Float → integer conversions truncate
//! toward zero and give ⊤ (LangRef: poison) for NaN, infinities and values out of
//! the destination's range. Pointers convert through [`Pointer::address`] and
//! [`Pointer::from_address`], so `inttoptr (ptrtoint p)` keeps provenance.

use super::float::{f32_val, f64_val};
use super::int::{int_val, sext128, signed_big, wrap_signed_big};
use crate::ir::{CastOp, IntFlags};
use crate::types::TypeData;
use crate::value::{Pointer, Val, low_mask, wrap_biguint};
use num_bigint::{BigInt, BigUint};
use num_traits::{FromPrimitive, One, Zero};

/// One lane's `op [flags] from a to to`; a ⊤ operand gives ⊤. `flags.nuw`/`nsw`
/// are `trunc nuw`/`nsw`; `flags.nsw` on `zext`/`uitofp` is `nneg`.
pub fn cast(op: CastOp, flags: IntFlags, from: &TypeData, to: &TypeData, a: &Val) -> Val {
    if a.is_undef() {
        return Val::Undef;
    }
    if let Some(v) = small_cast(op, flags, from, to, a) {
        return v;
    }
    let converted = match (op, from, to) {
        (CastOp::ZExt, TypeData::Int(wf), TypeData::Int(wt)) => zext(flags, *wf, *wt, a),
        (CastOp::SExt, TypeData::Int(wf), TypeData::Int(wt)) => sext(*wf, *wt, a),
        (CastOp::Trunc, TypeData::Int(wf), TypeData::Int(wt)) => trunc(flags, *wf, *wt, a),
        (CastOp::FpToSi, _, TypeData::Int(wt)) => float_to_int(true, *wt, a),
        (CastOp::FpToUi, _, TypeData::Int(wt)) => float_to_int(false, *wt, a),
        (CastOp::SiToFp, TypeData::Int(wf), _) => int_to_float(true, *wf, to, a),
        (CastOp::UiToFp, TypeData::Int(wf), _) => uint_to_float(flags, *wf, to, a),
        (CastOp::FpExt | CastOp::FpTrunc, _, _) => float_to_float(to, a),
        (CastOp::Bitcast, _, _) => bitcast(from, to, a),
        (CastOp::PtrToInt, TypeData::Ptr(_), TypeData::Int(wt)) => match a {
            Val::Ptr(p) => Some(int_val(*wt, wrap_biguint(*wt, &BigUint::from(p.address())))),
            _ => None,
        },
        (CastOp::IntToPtr, TypeData::Int(_), TypeData::Ptr(_)) => int_to_ptr(a),
        (CastOp::AddrSpaceCast, TypeData::Ptr(_), TypeData::Ptr(_)) => match a {
            Val::Ptr(_) => Some(a.clone()),
            _ => None,
        },
        _ => None,
    };
    converted.unwrap_or(Val::Undef)
}

/// The 16-bit format of `ty`, if it is `half` or `bfloat`.
fn small_of(ty: &TypeData) -> Option<crate::half::Small> {
    match ty {
        TypeData::F16 => Some(crate::half::Small::Half),
        TypeData::BF16 => Some(crate::half::Small::BFloat),
        _ => None,
    }
}

/// Casts to or from `half` / `bfloat`: through the exact `f64` value, rounded
/// once to the destination (`super::half`); `None` when neither side is 16-bit.
/// Float → integer takes the common path ([`float_to_int`] decodes any float).
fn small_cast(op: CastOp, flags: IntFlags, from: &TypeData, to: &TypeData, a: &Val) -> Option<Val> {
    let (sf, st) = (small_of(from), small_of(to));
    if sf.is_none() && st.is_none() {
        return None;
    }
    let out = match (op, st) {
        (CastOp::FpExt | CastOp::FpTrunc, Some(t)) => {
            a.as_f64().map(|x| t.val(crate::half::round_f64(t, x)))
        }
        (CastOp::FpExt | CastOp::FpTrunc, None) => a.as_f64().and_then(|x| match to {
            TypeData::F32 => Some(f32_val(x as f32)),
            TypeData::F64 => Some(f64_val(x)),
            _ => None,
        }),
        (CastOp::SiToFp | CastOp::UiToFp, Some(t)) => {
            let TypeData::Int(width) = from else {
                return Some(Val::Undef);
            };
            let signed = op == CastOp::SiToFp;
            if !signed && flags.nsw && sign_bit(*width, a) != Some(false) {
                return Some(Val::Undef);
            }
            a.as_biguint().map(|bits| {
                let (negative, magnitude) = if signed {
                    let value = signed_big(*width, &bits);
                    (
                        value.sign() == num_bigint::Sign::Minus,
                        value.magnitude().clone(),
                    )
                } else {
                    (false, bits)
                };
                t.val(crate::half::from_int(t, negative, &magnitude))
            })
        }
        (CastOp::Bitcast, Some(t)) => match a {
            Val::Int(x) => Some(t.val(*x as u16)),
            Val::F16(_) | Val::BF16(_) if sf == Some(t) => Some(a.clone()),
            _ => None,
        },
        (CastOp::Bitcast, None) => match a {
            Val::F16(x) | Val::BF16(x) => Some(Val::Int(u128::from(*x))),
            _ => None,
        },
        (CastOp::FpToSi, _) | (CastOp::FpToUi, _) => return None,
        _ => None,
    };
    Some(out.unwrap_or(Val::Undef))
}

/// Whether the sign bit (bit `width - 1`) of an integer lane value is set.
fn sign_bit(width: u32, a: &Val) -> Option<bool> {
    match a {
        Val::Int(x) => Some((x >> (width.clamp(1, 128) - 1)) & 1 == 1),
        _ => Some(a.as_biguint()?.bit(u64::from(width) - 1)),
    }
}

/// `zext [nneg]`: the same number in more bits; `nneg` with the sign bit set is ⊤.
fn zext(flags: IntFlags, wf: u32, wt: u32, a: &Val) -> Option<Val> {
    if flags.nsw && sign_bit(wf, a)? {
        return None;
    }
    match a {
        Val::Int(x) if wt <= 128 => Some(Val::Int(*x)),
        _ => Some(int_val(wt, a.as_biguint()?)),
    }
}

/// `sext`: the same two's-complement number in more bits.
fn sext(wf: u32, wt: u32, a: &Val) -> Option<Val> {
    match a {
        Val::Int(x) if wf <= 128 && wt <= 128 => {
            Some(Val::Int(sext128(wf, *x) as u128 & low_mask(wt)))
        }
        _ => {
            let value = signed_big(wf, &a.as_biguint()?);
            Some(int_val(wt, wrap_signed_big(wt, &value)))
        }
    }
}

/// `trunc [nuw] [nsw]`: the low bits; `nuw` (`nsw`) is ⊤ when the unsigned (signed)
/// value changes (LangRef: "any of the truncated bits are non-zero" / "not the same
/// as the top bit of the truncation result").
fn trunc(flags: IntFlags, wf: u32, wt: u32, a: &Val) -> Option<Val> {
    if let Val::Int(x) = a
        && wf <= 128
    {
        let r = x & low_mask(wt);
        let unsigned_changed = r != *x;
        let signed_changed = sext128(wt, r) != sext128(wf, *x);
        if flags.nuw && unsigned_changed || flags.nsw && signed_changed {
            return None;
        }
        return Some(Val::Int(r));
    }
    let bits = a.as_biguint()?;
    let r = wrap_biguint(wt, &bits);
    let unsigned_changed = r != bits;
    let signed_changed = signed_big(wt, &r) != signed_big(wf, &bits);
    if flags.nuw && unsigned_changed || flags.nsw && signed_changed {
        return None;
    }
    Some(int_val(wt, r))
}

/// 2^k as an `f64` (exact), or +∞ when 2^k exceeds the binary64 range.
fn pow2(k: u32) -> f64 {
    if k > 1023 {
        f64::INFINITY
    } else {
        f64::from_bits(u64::from(k + 1023) << 52)
    }
}

/// `fptosi` / `fptoui` to `iN`: truncation toward zero; ⊤ for NaN, ±∞ and a
/// truncated value outside `[-2^(N-1), 2^(N-1))` (signed) or `[0, 2^N)` (unsigned).
pub(crate) fn float_to_int(signed: bool, width: u32, a: &Val) -> Option<Val> {
    // binary32 → binary64 is exact, so one path serves both types.
    let x = a.as_f64()?.trunc();
    if !x.is_finite() {
        return None;
    }
    // Powers of two are exact in binary64 and the comparisons are exact.
    let (low, high) = if signed {
        (-pow2(width - 1), pow2(width - 1))
    } else {
        (0.0, pow2(width))
    };
    if !(low <= x && x < high) {
        return None;
    }
    if width <= 128 {
        // In range, so Rust's (saturating) `as` is exact here.
        let bits = if signed { x as i128 as u128 } else { x as u128 };
        return Some(Val::Int(bits & low_mask(width)));
    }
    let value = BigInt::from_f64(x)?;
    Some(int_val(width, wrap_signed_big(width, &value)))
}

/// A binary floating-point format: `precision` significand bits (hidden bit
/// included) and exponent `bias`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FloatFormat {
    /// Significand bits including the hidden bit (24 or 53).
    pub precision: u32,
    /// Exponent bias, also the largest exponent (127 or 1023).
    pub bias: u64,
}

/// binary32.
pub(crate) const BINARY32: FloatFormat = FloatFormat {
    precision: 24,
    bias: 127,
};
/// binary64.
pub(crate) const BINARY64: FloatFormat = FloatFormat {
    precision: 53,
    bias: 1023,
};

/// The bit pattern of `±magnitude` rounded to nearest, ties to even, in `format`
/// (+∞ / -∞ when the rounded value exceeds the largest finite number). Exact for
/// any size of `magnitude`. Integers are never subnormal, so the result is zero,
/// normal, or infinite.
pub(crate) fn int_to_float_bits(negative: bool, magnitude: &BigUint, format: FloatFormat) -> u64 {
    let p = u64::from(format.precision);
    let sign_shift = p - 1 + if format.precision == 24 { 8 } else { 11 };
    let sign = u64::from(negative && !magnitude.is_zero()) << sign_shift;
    let n = magnitude.bits();
    if n == 0 {
        return sign;
    }
    // The value is significand · 2^(exponent - p + 1) with significand in [2^(p-1), 2^p).
    let (significand, exponent) = if n <= p {
        let exact = u64::try_from(magnitude).unwrap_or(0);
        (exact << (p - n), n - 1)
    } else {
        let shift = n - p;
        let kept = u64::try_from(&(magnitude >> shift)).unwrap_or(0);
        let dropped = wrap_biguint(shift as u32, magnitude);
        let half = BigUint::one() << (shift - 1);
        let round_up = dropped > half || (dropped == half && kept & 1 == 1);
        let rounded = kept + u64::from(round_up);
        if rounded == 1 << p {
            (rounded >> 1, n)
        } else {
            (rounded, n - 1)
        }
    };
    if exponent > format.bias {
        let infinity = (2 * format.bias + 1) << (p - 1);
        return sign | infinity;
    }
    sign | ((exponent + format.bias) << (p - 1)) | (significand & ((1 << (p - 1)) - 1))
}

/// `sitofp` / `uitofp` from `iN`: the nearest float (ties to even), ±∞ on overflow.
fn int_to_float(signed: bool, width: u32, to: &TypeData, a: &Val) -> Option<Val> {
    if let Val::Int(x) = a
        && width <= 128
    {
        return match (to, signed) {
            (TypeData::F32, true) => Some(f32_val(sext128(width, *x) as f32)),
            (TypeData::F32, false) => Some(f32_val(*x as f32)),
            (TypeData::F64, true) => Some(f64_val(sext128(width, *x) as f64)),
            (TypeData::F64, false) => Some(f64_val(*x as f64)),
            _ => None,
        };
    }
    let bits = a.as_biguint()?;
    let (negative, magnitude) = if signed {
        let value = signed_big(width, &bits);
        (
            value.sign() == num_bigint::Sign::Minus,
            value.magnitude().clone(),
        )
    } else {
        (false, bits)
    };
    match to {
        TypeData::F32 => Some(Val::F32(
            int_to_float_bits(negative, &magnitude, BINARY32) as u32
        )),
        TypeData::F64 => Some(Val::F64(int_to_float_bits(negative, &magnitude, BINARY64))),
        _ => None,
    }
}

/// `uitofp [nneg]`: a set sign bit with `nneg` makes the result ⊤.
fn uint_to_float(flags: IntFlags, width: u32, to: &TypeData, a: &Val) -> Option<Val> {
    if flags.nsw && sign_bit(width, a)? {
        return None;
    }
    int_to_float(false, width, to, a)
}

/// `inttoptr`: the pointer named by the low 64 bits of the integer.
fn int_to_ptr(a: &Val) -> Option<Val> {
    let low = wrap_biguint(64, &a.as_biguint()?);
    let address = u64::try_from(&low).ok()?;
    Some(Val::Ptr(Pointer::from_address(address)))
}

/// `fpext` / `fptrunc`: exact widening, or rounding to nearest even when narrowing.
fn float_to_float(to: &TypeData, a: &Val) -> Option<Val> {
    match (a, to) {
        (Val::F32(x), TypeData::F64) => Some(f64_val(f64::from(f32::from_bits(*x)))),
        (Val::F64(x), TypeData::F32) => Some(f32_val(f64::from_bits(*x) as f32)),
        (Val::F32(_), TypeData::F32) | (Val::F64(_), TypeData::F64) => Some(a.clone()),
        _ => None,
    }
}

/// `bitcast`: reinterpretation between an integer and a float of the same size,
/// or the identity (same type, pointer to pointer).
fn bitcast(from: &TypeData, to: &TypeData, a: &Val) -> Option<Val> {
    match (from, to, a) {
        (TypeData::Int(32), TypeData::F32, Val::Int(x)) => Some(Val::F32(*x as u32)),
        (TypeData::Int(64), TypeData::F64, Val::Int(x)) => Some(Val::F64(*x as u64)),
        (TypeData::F32, TypeData::Int(32), Val::F32(x)) => Some(Val::Int(u128::from(*x))),
        (TypeData::F64, TypeData::Int(64), Val::F64(x)) => Some(Val::Int(u128::from(*x))),
        (TypeData::Ptr(_), TypeData::Ptr(_), Val::Ptr(_)) => Some(a.clone()),
        _ if from == to => Some(a.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::ObjectId;

    fn flags(word: &str) -> IntFlags {
        IntFlags {
            nuw: word.contains("nuw"),
            nsw: word.contains("nsw") || word.contains("nneg"),
            exact: false,
            disjoint: false,
        }
    }

    /// `op [flags] from a to to` evaluates to `expect`.
    fn check(op: CastOp, flag_words: &str, from: TypeData, to: TypeData, a: Val, expect: Val) {
        let got = cast(op, flags(flag_words), &from, &to, &a);
        assert_eq!(
            got,
            expect,
            "{} {flag_words} {from:?} {a} to {to:?}",
            op.name()
        );
    }

    fn wide(width: u32, v: i64) -> Val {
        int_val(width, wrap_signed_big(width, &BigInt::from(v)))
    }

    #[test]
    fn integer_casts_at_many_widths() {
        use TypeData::Int;
        check(
            CastOp::ZExt,
            "",
            Int(8),
            Int(32),
            Val::Int(0xff),
            Val::Int(0xff),
        );
        check(
            CastOp::ZExt,
            "nneg",
            Int(8),
            Int(32),
            Val::Int(0xff),
            Val::Undef,
        );
        check(
            CastOp::ZExt,
            "nneg",
            Int(8),
            Int(32),
            Val::Int(0x7f),
            Val::Int(0x7f),
        );
        check(
            CastOp::SExt,
            "",
            Int(8),
            Int(32),
            Val::Int(0xff),
            Val::Int(0xffff_ffff),
        );
        check(
            CastOp::SExt,
            "",
            Int(1),
            Int(128),
            Val::Int(1),
            Val::Int(u128::MAX),
        );
        check(
            CastOp::SExt,
            "",
            Int(8),
            Int(4096),
            Val::Int(0xfe),
            wide(4096, -2),
        );
        check(
            CastOp::SExt,
            "",
            Int(129),
            Int(256),
            wide(129, -3),
            wide(256, -3),
        );
        check(
            CastOp::ZExt,
            "",
            Int(64),
            Int(129),
            Val::Int(5),
            wide(129, 5),
        );
        check(
            CastOp::Trunc,
            "",
            Int(4096),
            Int(8),
            wide(4096, -2),
            Val::Int(0xfe),
        );
        check(
            CastOp::Trunc,
            "nuw",
            Int(4096),
            Int(8),
            wide(4096, -2),
            Val::Undef,
        );
        check(
            CastOp::Trunc,
            "nsw",
            Int(4096),
            Int(8),
            wide(4096, -2),
            Val::Int(0xfe),
        );
        check(
            CastOp::Trunc,
            "nsw",
            Int(256),
            Int(129),
            wide(256, -2),
            wide(129, -2),
        );
        check(
            CastOp::Trunc,
            "",
            Int(32),
            Int(8),
            Val::Int(0x1ff),
            Val::Int(0xff),
        );
        check(
            CastOp::Trunc,
            "nuw",
            Int(32),
            Int(8),
            Val::Int(0x1ff),
            Val::Undef,
        );
        check(
            CastOp::Trunc,
            "nsw",
            Int(32),
            Int(8),
            Val::Int(0x80),
            Val::Undef,
        );
        check(
            CastOp::Trunc,
            "nsw",
            Int(32),
            Int(8),
            Val::Int(0xffff_ff80),
            Val::Int(0x80),
        );
        check(
            CastOp::Trunc,
            "nuw",
            Int(32),
            Int(8),
            Val::Int(0x80),
            Val::Int(0x80),
        );
        check(CastOp::ZExt, "", Int(8), Int(32), Val::Undef, Val::Undef);
    }

    #[test]
    fn float_to_int_truncates_and_poisons_out_of_range() {
        use TypeData::{F32, F64, Int};
        let d = |x: f64| Val::F64(x.to_bits());
        check(
            CastOp::FpToSi,
            "",
            F64,
            Int(32),
            d(-2.9),
            Val::Int(0xffff_fffe),
        );
        check(CastOp::FpToUi, "", F64, Int(32), d(2.9), Val::Int(2));
        check(CastOp::FpToUi, "", F64, Int(32), d(-0.9), Val::Int(0));
        check(CastOp::FpToUi, "", F64, Int(32), d(-1.0), Val::Undef);
        check(CastOp::FpToUi, "", F64, Int(8), d(256.0), Val::Undef);
        check(CastOp::FpToUi, "", F64, Int(8), d(255.9), Val::Int(255));
        check(CastOp::FpToSi, "", F64, Int(8), d(127.5), Val::Int(127));
        check(CastOp::FpToSi, "", F64, Int(8), d(128.0), Val::Undef);
        check(CastOp::FpToSi, "", F64, Int(8), d(-128.9), Val::Int(0x80));
        check(CastOp::FpToSi, "", F64, Int(8), d(-129.0), Val::Undef);
        check(CastOp::FpToSi, "", F64, Int(1), d(-1.0), Val::Int(1));
        check(CastOp::FpToSi, "", F64, Int(1), d(1.0), Val::Undef);
        check(CastOp::FpToSi, "", F64, Int(32), d(f64::NAN), Val::Undef);
        check(
            CastOp::FpToSi,
            "",
            F64,
            Int(32),
            d(f64::INFINITY),
            Val::Undef,
        );
        check(
            CastOp::FpToSi,
            "",
            F32,
            Int(32),
            Val::F32((-3.5f32).to_bits()),
            Val::Int(0xffff_fffd),
        );
        check(
            CastOp::FpToSi,
            "",
            F64,
            Int(200),
            d(-1e30),
            wide_from_f64(200, -1e30),
        );
        check(
            CastOp::FpToUi,
            "",
            F64,
            Int(4096),
            d(f64::MAX),
            wide_from_f64(4096, f64::MAX),
        );
        check(CastOp::FpToSi, "", F64, Int(1024), d(f64::MAX), Val::Undef);
        check(
            CastOp::FpToSi,
            "",
            F64,
            Int(1025),
            d(-f64::MAX),
            wide_from_f64(1025, -f64::MAX),
        );
        check(
            CastOp::FpToUi,
            "",
            F64,
            Int(128),
            d(2f64.powi(128)),
            Val::Undef,
        );
        check(
            CastOp::FpToUi,
            "",
            F64,
            Int(128),
            d(2f64.powi(127)),
            Val::Int(1 << 127),
        );
    }

    fn wide_from_f64(width: u32, x: f64) -> Val {
        let v = BigInt::from_f64(x).unwrap_or_default();
        int_val(width, wrap_signed_big(width, &v))
    }

    #[test]
    fn int_to_float_rounds_to_nearest_even_at_any_width() {
        use TypeData::{F32, F64, Int};
        let f = |x: f32| Val::F32(x.to_bits());
        check(
            CastOp::SiToFp,
            "",
            Int(32),
            F32,
            Val::Int(0xffff_ffff),
            f(-1.0),
        );
        check(
            CastOp::UiToFp,
            "",
            Int(32),
            F32,
            Val::Int(0xffff_ffff),
            f(4294967296.0),
        );
        check(
            CastOp::UiToFp,
            "nneg",
            Int(32),
            F32,
            Val::Int(0xffff_ffff),
            Val::Undef,
        );
        // 2^24 + 1 is a tie between 2^24 and 2^24 + 2: even wins.
        check(
            CastOp::UiToFp,
            "",
            Int(256),
            F32,
            wide(256, (1 << 24) + 1),
            f(16777216.0),
        );
        check(
            CastOp::UiToFp,
            "",
            Int(256),
            F32,
            wide(256, (1 << 24) + 3),
            f(16777220.0),
        );
        check(
            CastOp::SiToFp,
            "",
            Int(256),
            F32,
            wide(256, -(1 << 24) - 3),
            f(-16777220.0),
        );
        check(CastOp::SiToFp, "", Int(256), F64, wide(256, 0), Val::F64(0));
        check(
            CastOp::UiToFp,
            "",
            Int(256),
            F32,
            int_val(256, (BigUint::one() << 200u32) - 1u8),
            f(f32::INFINITY),
        );
        check(
            CastOp::SiToFp,
            "",
            Int(256),
            F32,
            int_val(256, BigUint::one() << 255u32),
            f(f32::NEG_INFINITY),
        );
        let below_max = int_val(4096, (BigUint::one() << 1024u32) - 1u8);
        check(
            CastOp::UiToFp,
            "",
            Int(4096),
            F64,
            below_max,
            Val::F64(f64::INFINITY.to_bits()),
        );
        let exact = int_val(4096, BigUint::from(3u8) << 1000u32);
        check(
            CastOp::UiToFp,
            "",
            Int(4096),
            F64,
            exact,
            Val::F64((3.0 * 2f64.powi(1000)).to_bits()),
        );
    }

    #[test]
    fn wide_rounding_agrees_with_rust_on_u128() {
        let samples = [
            1u128,
            3,
            (1 << 24) + 1,
            (1 << 53) + 1,
            (1 << 53) + 3,
            u128::MAX,
            u128::MAX >> 1,
            0x8000_0000_0000_0400_0000_0000_0000_0000,
            0xffff_ff80_0000_0000_0000_0000_0000_0000,
            0xffff_ff7f_ffff_ffff_ffff_ffff_ffff_ffff,
        ];
        for x in samples {
            let m = BigUint::from(x);
            assert_eq!(
                int_to_float_bits(false, &m, BINARY64),
                (x as f64).to_bits(),
                "{x}"
            );
            assert_eq!(
                int_to_float_bits(true, &m, BINARY64),
                (-(x as f64)).to_bits(),
                "-{x}"
            );
            assert_eq!(
                int_to_float_bits(false, &m, BINARY32),
                u64::from((x as f32).to_bits()),
                "{x}"
            );
        }
    }

    #[test]
    fn float_float_bit_and_pointer_casts() {
        use TypeData::{F32, F64, Int, Ptr};
        check(
            CastOp::FpExt,
            "",
            F32,
            F64,
            Val::F32(1.5f32.to_bits()),
            Val::F64(1.5f64.to_bits()),
        );
        check(
            CastOp::FpTrunc,
            "",
            F64,
            F32,
            Val::F64(0.1f64.to_bits()),
            Val::F32(0.1f32.to_bits()),
        );
        check(
            CastOp::FpTrunc,
            "",
            F64,
            F32,
            Val::F64(1e300f64.to_bits()),
            Val::F32(f32::INFINITY.to_bits()),
        );
        check(
            CastOp::Bitcast,
            "",
            F32,
            Int(32),
            Val::F32(0x3f80_0000),
            Val::Int(0x3f80_0000),
        );
        check(
            CastOp::Bitcast,
            "",
            Int(64),
            F64,
            Val::Int(0x7ff8_0000_0000_0001),
            Val::F64(0x7ff8_0000_0000_0001),
        );
        let p = Val::Ptr(Pointer {
            object: Some(ObjectId(2)),
            offset: 12,
        });
        let address = (3u128 << 40) + 12;
        check(
            CastOp::PtrToInt,
            "",
            Ptr(0),
            Int(64),
            p.clone(),
            Val::Int(address),
        );
        check(
            CastOp::PtrToInt,
            "",
            Ptr(0),
            Int(8),
            p.clone(),
            Val::Int(12),
        );
        check(
            CastOp::PtrToInt,
            "",
            Ptr(0),
            Int(200),
            p.clone(),
            int_val(200, BigUint::from(address)),
        );
        check(
            CastOp::IntToPtr,
            "",
            Int(64),
            Ptr(0),
            Val::Int(address),
            p.clone(),
        );
        check(
            CastOp::IntToPtr,
            "",
            Int(200),
            Ptr(0),
            int_val(200, (BigUint::one() << 150u32) + address),
            p.clone(),
        );
        check(
            CastOp::AddrSpaceCast,
            "",
            Ptr(0),
            Ptr(3),
            p.clone(),
            p.clone(),
        );
        check(CastOp::Bitcast, "", Ptr(0), Ptr(0), p.clone(), p);
    }
}
