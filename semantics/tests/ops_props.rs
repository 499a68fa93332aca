//! Property tests of the per-lane instruction semantics (thesis §4.9, "regular
//! LLVM semantics"): integer operators, `icmp` and casts at widths 8/16/32/64
//! against Rust's native `u8`..`u64` / `i8`..`i64` arithmetic, float operators
//! against Rust's `f32` / `f64`, wide (> 128 bit) operators against reference
//! arithmetic on `num-bigint` written independently of the implementation, and
//! round trips of casts at many widths.

use num_bigint::{BigInt, BigUint};
use num_traits::{One, Zero};
use pllvm_semantics::ir::{BinOp, CastOp, FCmpPred, ICmpPred, IntFlags};
use pllvm_semantics::ops::{LaneUb, binary, cast, fcmp, icmp};
use pllvm_semantics::types::TypeData;
use pllvm_semantics::value::Val;
use proptest::prelude::*;

const CASES: u32 = 2000;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: CASES,
        ..ProptestConfig::default()
    }
}

const INT_OPS: [BinOp; 13] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::UDiv,
    BinOp::SDiv,
    BinOp::URem,
    BinOp::SRem,
    BinOp::Shl,
    BinOp::LShr,
    BinOp::AShr,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
];

fn flags_strategy() -> impl Strategy<Value = IntFlags> {
    (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(nuw, nsw, exact, disjoint)| IntFlags {
            nuw,
            nsw,
            exact,
            disjoint,
        },
    )
}

/// Operands that hit the corner cases often: small numbers (shift amounts,
/// divisors 0 and ±1), the extremes, and arbitrary bits.
fn operand() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..70,
        Just(u64::MAX),
        Just(1 << 63),
        Just(1 << 31),
        Just(1 << 15),
        Just(1 << 7),
        any::<u64>(),
        any::<u64>(),
    ]
}

/// What Rust's native arithmetic says `op flags iN a, b` is (`Ok(None)` = ⊤),
/// for `$u`/`$s` the unsigned/signed Rust types of width N.
macro_rules! native_reference {
    ($name:ident, $u:ty, $s:ty) => {
        fn $name(op: BinOp, f: IntFlags, a: $u, b: $u) -> Result<Option<$u>, LaneUb> {
            let (sa, sb) = (a as $s, b as $s);
            let poison_if = |poison: bool, r: $u| Ok(if poison { None } else { Some(r) });
            let bits = <$u>::BITS as $u;
            match op {
                BinOp::Add => {
                    let (r, uo) = a.overflowing_add(b);
                    poison_if(f.nuw && uo || f.nsw && sa.overflowing_add(sb).1, r)
                }
                BinOp::Sub => {
                    let (r, uo) = a.overflowing_sub(b);
                    poison_if(f.nuw && uo || f.nsw && sa.overflowing_sub(sb).1, r)
                }
                BinOp::Mul => {
                    let (r, uo) = a.overflowing_mul(b);
                    poison_if(f.nuw && uo || f.nsw && sa.overflowing_mul(sb).1, r)
                }
                BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem if b == 0 => {
                    Err(LaneUb::DivisionByZero)
                }
                BinOp::UDiv => poison_if(f.exact && a % b != 0, a / b),
                BinOp::URem => Ok(Some(a % b)),
                BinOp::SDiv => match sa.checked_div(sb) {
                    None => Err(LaneUb::SignedDivisionOverflow),
                    Some(q) => poison_if(f.exact && sa.wrapping_rem(sb) != 0, q as $u),
                },
                BinOp::SRem => match sa.checked_rem(sb) {
                    None => Err(LaneUb::SignedDivisionOverflow),
                    Some(r) => Ok(Some(r as $u)),
                },
                BinOp::Shl | BinOp::LShr | BinOp::AShr if b >= bits => Ok(None),
                BinOp::Shl => {
                    let r = a << b;
                    let nuw_lost = r >> b != a;
                    let nsw_lost = (r as $s) >> b != sa;
                    poison_if(f.nuw && nuw_lost || f.nsw && nsw_lost, r)
                }
                BinOp::LShr => {
                    poison_if(f.exact && a != 0 && a.trailing_zeros() < b as u32, a >> b)
                }
                BinOp::AShr => poison_if(
                    f.exact && a != 0 && a.trailing_zeros() < b as u32,
                    (sa >> b) as $u,
                ),
                BinOp::And => Ok(Some(a & b)),
                BinOp::Or => poison_if(f.disjoint && a & b != 0, a | b),
                BinOp::Xor => Ok(Some(a ^ b)),
                _ => Ok(None),
            }
        }
    };
}

native_reference!(native_8, u8, i8);
native_reference!(native_16, u16, i16);
native_reference!(native_32, u32, i32);
native_reference!(native_64, u64, i64);

fn native(op: BinOp, f: IntFlags, width: u32, a: u64, b: u64) -> Result<Option<u64>, LaneUb> {
    match width {
        8 => native_8(op, f, a as u8, b as u8).map(|r| r.map(u64::from)),
        16 => native_16(op, f, a as u16, b as u16).map(|r| r.map(u64::from)),
        32 => native_32(op, f, a as u32, b as u32).map(|r| r.map(u64::from)),
        _ => native_64(op, f, a, b),
    }
}

fn mask(width: u32) -> u64 {
    if width == 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    }
}

fn signed(width: u32, v: u64) -> i64 {
    let unused = 64 - width;
    ((v << unused) as i64) >> unused
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn int_binops_match_rust(
        op in proptest::sample::select(INT_OPS.to_vec()),
        f in flags_strategy(),
        width in proptest::sample::select(vec![8u32, 16, 32, 64]),
        a in operand(),
        b in operand(),
    ) {
        let (a, b) = (a & mask(width), b & mask(width));
        let got = binary(op, f, &TypeData::Int(width), &Val::Int(a.into()), &Val::Int(b.into()));
        let expect = native(op, f, width, a, b).map(|r| r.map_or(Val::Undef, |v| Val::Int(v.into())));
        prop_assert_eq!(got, expect, "{} {:?} i{} {}, {}", op.name(), f, width, a, b);
    }

    #[test]
    fn icmp_matches_rust(
        pred in proptest::sample::select(ICmpPred::ALL.to_vec()),
        width in proptest::sample::select(vec![8u32, 16, 32, 64]),
        a in operand(),
        b in operand(),
    ) {
        let (a, b) = (a & mask(width), b & mask(width));
        let (sa, sb) = (signed(width, a), signed(width, b));
        let expect = match pred {
            ICmpPred::Eq => a == b,
            ICmpPred::Ne => a != b,
            ICmpPred::Ugt => a > b,
            ICmpPred::Uge => a >= b,
            ICmpPred::Ult => a < b,
            ICmpPred::Ule => a <= b,
            ICmpPred::Sgt => sa > sb,
            ICmpPred::Sge => sa >= sb,
            ICmpPred::Slt => sa < sb,
            ICmpPred::Sle => sa <= sb,
        };
        let got = icmp(pred, &TypeData::Int(width), &Val::Int(a.into()), &Val::Int(b.into()));
        prop_assert_eq!(got, Val::bool(expect));
    }

    #[test]
    fn integer_casts_match_rust(
        from in proptest::sample::select(vec![8u32, 16, 32, 64]),
        to in proptest::sample::select(vec![8u32, 16, 32, 64]),
        a in operand(),
        nuw in any::<bool>(),
        nsw in any::<bool>(),
    ) {
        let a = a & mask(from);
        let f = IntFlags { nuw, nsw, exact: false, disjoint: false };
        let (fty, tty) = (TypeData::Int(from), TypeData::Int(to));
        let run = |op| cast(op, f, &fty, &tty, &Val::Int(a.into()));
        let int = |v: u64| Val::Int(v.into());
        if from < to {
            let zext = if nsw && signed(from, a) < 0 { Val::Undef } else { int(a) };
            prop_assert_eq!(run(CastOp::ZExt), zext);
            prop_assert_eq!(run(CastOp::SExt), int(signed(from, a) as u64 & mask(to)));
        }
        if from > to {
            let r = a & mask(to);
            let unsigned_changed = r != a;
            let signed_changed = signed(to, r) != signed(from, a);
            let trunc = if nuw && unsigned_changed || nsw && signed_changed { Val::Undef } else { int(r) };
            prop_assert_eq!(run(CastOp::Trunc), trunc);
        }
    }

    #[test]
    fn float_to_int_matches_rust(
        x in prop_oneof![any::<f64>(), -1e20f64..1e20, -300f64..300.0, Just(f64::NAN), Just(-0.0)],
        width in proptest::sample::select(vec![8u32, 16, 32, 64]),
    ) {
        let t = x.trunc();
        let (lo_s, hi_s) = (-(2f64.powi(width as i32 - 1)), 2f64.powi(width as i32 - 1));
        let hi_u = 2f64.powi(width as i32);
        let signed_ok = t.is_finite() && lo_s <= t && t < hi_s;
        let unsigned_ok = t.is_finite() && 0.0 <= t && t < hi_u;
        let to = TypeData::Int(width);
        let expect_s = if signed_ok { Val::Int(((x as i64) as u64 & mask(width)).into()) } else { Val::Undef };
        let expect_u = if unsigned_ok { Val::Int((x as u64).into()) } else { Val::Undef };
        let v = Val::F64(x.to_bits());
        prop_assert_eq!(cast(CastOp::FpToSi, IntFlags::default(), &TypeData::F64, &to, &v), expect_s);
        prop_assert_eq!(cast(CastOp::FpToUi, IntFlags::default(), &TypeData::F64, &to, &v), expect_u);
    }

    #[test]
    fn int_to_float_matches_rust(a in operand(), width in proptest::sample::select(vec![8u32, 16, 32, 64])) {
        let a = a & mask(width);
        let s = signed(width, a);
        let from = TypeData::Int(width);
        let v = Val::Int(a.into());
        let run = |op, to: &TypeData| cast(op, IntFlags::default(), &from, to, &v);
        prop_assert_eq!(run(CastOp::SiToFp, &TypeData::F64), Val::F64((s as f64).to_bits()));
        prop_assert_eq!(run(CastOp::UiToFp, &TypeData::F64), Val::F64((a as f64).to_bits()));
        prop_assert_eq!(run(CastOp::SiToFp, &TypeData::F32), Val::F32((s as f32).to_bits()));
        prop_assert_eq!(run(CastOp::UiToFp, &TypeData::F32), Val::F32((a as f32).to_bits()));
    }
}

/// The expected lane value of an `f32` / `f64` arithmetic result (any NaN is the
/// positive preferred NaN).
fn expect_f64(x: f64) -> Val {
    Val::F64(if x.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        x.to_bits()
    })
}
fn expect_f32(x: f32) -> Val {
    Val::F32(if x.is_nan() { 0x7fc0_0000 } else { x.to_bits() })
}

fn float_operand() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        -10f64..10.0,
        Just(0.0),
        Just(-0.0),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::NAN),
        Just(f64::MIN_POSITIVE / 4.0),
    ]
}

fn fcmp_reference(pred: FCmpPred, x: f64, y: f64) -> bool {
    let ord = x.partial_cmp(&y);
    use std::cmp::Ordering::*;
    match pred {
        FCmpPred::False => false,
        FCmpPred::True => true,
        FCmpPred::Oeq => ord == Some(Equal),
        FCmpPred::Ogt => ord == Some(Greater),
        FCmpPred::Oge => matches!(ord, Some(Greater | Equal)),
        FCmpPred::Olt => ord == Some(Less),
        FCmpPred::Ole => matches!(ord, Some(Less | Equal)),
        FCmpPred::One => matches!(ord, Some(Less | Greater)),
        FCmpPred::Ord => ord.is_some(),
        FCmpPred::Ueq => matches!(ord, None | Some(Equal)),
        FCmpPred::Ugt => matches!(ord, None | Some(Greater)),
        FCmpPred::Uge => matches!(ord, None | Some(Greater | Equal)),
        FCmpPred::Ult => matches!(ord, None | Some(Less)),
        FCmpPred::Ule => matches!(ord, None | Some(Less | Equal)),
        FCmpPred::Une => ord != Some(Equal),
        FCmpPred::Uno => ord.is_none(),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn float_ops_match_rust(
        op in proptest::sample::select(vec![BinOp::FAdd, BinOp::FSub, BinOp::FMul, BinOp::FDiv, BinOp::FRem]),
        x in float_operand(),
        y in float_operand(),
    ) {
        let none = IntFlags::default();
        let r64 = match op {
            BinOp::FAdd => x + y,
            BinOp::FSub => x - y,
            BinOp::FMul => x * y,
            BinOp::FDiv => x / y,
            _ => x % y,
        };
        let got = binary(op, none, &TypeData::F64, &Val::F64(x.to_bits()), &Val::F64(y.to_bits()));
        prop_assert_eq!(got, Ok(expect_f64(r64)));
        let (a, b) = (x as f32, y as f32);
        let r32 = match op {
            BinOp::FAdd => a + b,
            BinOp::FSub => a - b,
            BinOp::FMul => a * b,
            BinOp::FDiv => a / b,
            _ => a % b,
        };
        let got = binary(op, none, &TypeData::F32, &Val::F32(a.to_bits()), &Val::F32(b.to_bits()));
        prop_assert_eq!(got, Ok(expect_f32(r32)));
    }

    #[test]
    fn fcmp_matches_rust(
        pred in proptest::sample::select(FCmpPred::ALL.to_vec()),
        x in float_operand(),
        y in float_operand(),
    ) {
        let got = fcmp(pred, &TypeData::F64, &Val::F64(x.to_bits()), &Val::F64(y.to_bits()));
        prop_assert_eq!(got, Val::bool(fcmp_reference(pred, x, y)));
        let (a, b) = (x as f32, y as f32);
        let got = fcmp(pred, &TypeData::F32, &Val::F32(a.to_bits()), &Val::F32(b.to_bits()));
        prop_assert_eq!(got, Val::bool(fcmp_reference(pred, f64::from(a), f64::from(b))));
    }

    #[test]
    fn float_casts_match_rust(x in float_operand()) {
        let none = IntFlags::default();
        let narrowed = cast(CastOp::FpTrunc, none, &TypeData::F64, &TypeData::F32, &Val::F64(x.to_bits()));
        prop_assert_eq!(narrowed, expect_f32(x as f32));
        let a = x as f32;
        let widened = cast(CastOp::FpExt, none, &TypeData::F32, &TypeData::F64, &Val::F32(a.to_bits()));
        prop_assert_eq!(widened, expect_f64(f64::from(a)));
    }
}

// ---- wide integers: reference arithmetic on num-bigint -----------------------

/// A `width`-bit pattern with corner values likely: 0, 1, all ones, the sign bit
/// alone, small numbers, and random limbs.
fn wide_operand(width: u32) -> impl Strategy<Value = BigUint> {
    let limbs = width.div_ceil(64) as usize;
    let modulus = BigUint::one() << width;
    let all_ones = &modulus - 1u8;
    let sign = BigUint::one() << (width - 1);
    prop_oneof![
        Just(BigUint::zero()),
        Just(BigUint::one()),
        Just(all_ones),
        Just(sign),
        (0u64..(u64::from(width) + 3)).prop_map(BigUint::from),
        proptest::collection::vec(any::<u64>(), limbs).prop_map(move |v| {
            let mut x = BigUint::zero();
            for limb in v {
                x = (x << 64u32) + limb;
            }
            x % &modulus
        }),
        proptest::collection::vec(any::<u64>(), limbs).prop_map(move |v| {
            // Small negative numbers: all high bits set.
            let m = (BigUint::one() << width) - 1u8;
            &m - BigUint::from(v[0] % 1000)
        }),
    ]
}

fn wide_case() -> impl Strategy<Value = (u32, BigUint, BigUint)> {
    proptest::sample::select(vec![129u32, 130, 192, 255, 256, 300, 4096])
        .prop_flat_map(|w| (Just(w), wide_operand(w), wide_operand(w)))
}

fn to_signed(width: u32, v: &BigUint) -> BigInt {
    if v.bit(u64::from(width) - 1) {
        BigInt::from(v.clone()) - (BigInt::one() << width)
    } else {
        BigInt::from(v.clone())
    }
}

fn reduce(width: u32, v: BigInt) -> BigUint {
    let m = BigInt::one() << width;
    let r = ((v % &m) + &m) % &m;
    r.to_biguint().unwrap_or_default()
}

/// The reference: LangRef's rules stated as textbook tests (sign rules for
/// add/sub overflow, the top bits of the operand for `shl nsw`, trailing zeros for
/// `exact` shifts).
fn wide_reference(
    op: BinOp,
    f: IntFlags,
    width: u32,
    a: &BigUint,
    b: &BigUint,
) -> Result<Option<BigUint>, LaneUb> {
    let (sa, sb) = (to_signed(width, a), to_signed(width, b));
    let neg = |v: &BigInt| v < &BigInt::zero();
    let poison_if = |p: bool, r: BigUint| Ok(if p { None } else { Some(r) });
    let modulus = BigUint::one() << width;
    match op {
        BinOp::Add => {
            let r = (a + b) % &modulus;
            let sr = to_signed(width, &r);
            let signed_overflow = neg(&sa) == neg(&sb) && neg(&sr) != neg(&sa);
            poison_if(f.nuw && r < *a || f.nsw && signed_overflow, r)
        }
        BinOp::Sub => {
            let r = reduce(width, BigInt::from(a.clone()) - BigInt::from(b.clone()));
            let sr = to_signed(width, &r);
            let signed_overflow = neg(&sa) != neg(&sb) && neg(&sr) != neg(&sa);
            poison_if(f.nuw && a < b || f.nsw && signed_overflow, r)
        }
        BinOp::Mul => {
            let exact = a * b;
            let r = &exact % &modulus;
            let signed_overflow = to_signed(width, &r) != &sa * &sb;
            poison_if(f.nuw && exact != r || f.nsw && signed_overflow, r)
        }
        BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem if b.is_zero() => {
            Err(LaneUb::DivisionByZero)
        }
        BinOp::SDiv | BinOp::SRem
            if *a == BigUint::one() << (width - 1) && *b == &modulus - 1u8 =>
        {
            Err(LaneUb::SignedDivisionOverflow)
        }
        BinOp::UDiv => poison_if(f.exact && !(a % b).is_zero(), a / b),
        BinOp::URem => Ok(Some(a % b)),
        BinOp::SDiv => poison_if(f.exact && !(&sa % &sb).is_zero(), reduce(width, &sa / &sb)),
        BinOp::SRem => Ok(Some(reduce(width, &sa % &sb))),
        BinOp::Shl | BinOp::LShr | BinOp::AShr if *b >= BigUint::from(width) => Ok(None),
        BinOp::Shl | BinOp::LShr | BinOp::AShr => {
            let s = u32::try_from(b).unwrap_or(0);
            let inexact = !a.is_zero() && a.trailing_zeros().unwrap_or(0) < u64::from(s);
            match op {
                BinOp::Shl => {
                    let r = (a << s) % &modulus;
                    // nsw: the top s + 1 bits of a are all equal.
                    let top: Vec<bool> = (0..=u64::from(s))
                        .map(|i| a.bit(u64::from(width) - 1 - i))
                        .collect();
                    let nsw_lost = top.iter().any(|&t| t != top[0]);
                    let nuw_lost = (a >> (width - s)) != BigUint::zero();
                    poison_if(f.nuw && nuw_lost || f.nsw && nsw_lost, r)
                }
                BinOp::LShr => poison_if(f.exact && inexact, a >> s),
                _ => {
                    // Arithmetic shift as floor division by 2^s.
                    let q = num_integer::Integer::div_floor(&sa, &(BigInt::one() << s));
                    poison_if(f.exact && inexact, reduce(width, q))
                }
            }
        }
        BinOp::And => Ok(Some(a & b)),
        BinOp::Or => poison_if(f.disjoint && !(a & b).is_zero(), a | b),
        BinOp::Xor => Ok(Some(a ^ b)),
        _ => Ok(None),
    }
}

fn wide_val(v: BigUint) -> Val {
    Val::from_biguint(300, v)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn wide_binops_match_reference(
        op in proptest::sample::select(INT_OPS.to_vec()),
        f in flags_strategy(),
        (width, a, b) in wide_case(),
    ) {
        let got = binary(op, f, &TypeData::Int(width), &wide_val(a.clone()), &wide_val(b.clone()));
        let expect = wide_reference(op, f, width, &a, &b).map(|r| r.map_or(Val::Undef, wide_val));
        prop_assert_eq!(got, expect, "{} {:?} i{} {}, {}", op.name(), f, width, a, b);
    }

    #[test]
    fn wide_icmp_matches_reference(
        pred in proptest::sample::select(ICmpPred::ALL.to_vec()),
        (width, a, b) in wide_case(),
    ) {
        let (sa, sb) = (to_signed(width, &a), to_signed(width, &b));
        let expect = match pred {
            ICmpPred::Eq => a == b,
            ICmpPred::Ne => a != b,
            ICmpPred::Ugt => a > b,
            ICmpPred::Uge => a >= b,
            ICmpPred::Ult => a < b,
            ICmpPred::Ule => a <= b,
            ICmpPred::Sgt => sa > sb,
            ICmpPred::Sge => sa >= sb,
            ICmpPred::Slt => sa < sb,
            ICmpPred::Sle => sa <= sb,
        };
        let got = icmp(pred, &TypeData::Int(width), &wide_val(a), &wide_val(b));
        prop_assert_eq!(got, Val::bool(expect));
    }

    /// trunc(zext x) == x and trunc(sext x) == x, with `nuw` / `nsw` respectively
    /// never firing, for any pair of widths.
    #[test]
    fn extension_then_truncation_round_trips(
        (from, to) in (1u32..300).prop_flat_map(|f| (Just(f), (f + 1)..(f + 300))),
        seed in proptest::collection::vec(any::<u64>(), 5),
    ) {
        let mut x = BigUint::zero();
        for limb in seed {
            x = (x << 64u32) + limb;
        }
        let x = x % (BigUint::one() << from);
        let (fty, tty) = (TypeData::Int(from), TypeData::Int(to));
        let v = Val::from_biguint(from, x.clone());
        let nuw = IntFlags { nuw: true, ..IntFlags::default() };
        let nsw = IntFlags { nsw: true, ..IntFlags::default() };
        let zext = cast(CastOp::ZExt, IntFlags::default(), &fty, &tty, &v);
        let sext = cast(CastOp::SExt, IntFlags::default(), &fty, &tty, &v);
        prop_assert_eq!(zext.as_biguint(), Some(x.clone()));
        prop_assert_eq!(to_signed(to, &sext.as_biguint().unwrap_or_default()), to_signed(from, &x));
        prop_assert_eq!(cast(CastOp::Trunc, nuw, &tty, &fty, &zext), v.clone());
        prop_assert_eq!(cast(CastOp::Trunc, nsw, &tty, &fty, &sext), v.clone());
        // zext nneg is ⊤ exactly when the sign bit is set.
        let nneg = cast(CastOp::ZExt, nsw, &fty, &tty, &v);
        prop_assert_eq!(nneg.is_undef(), x.bit(u64::from(from) - 1));
    }

    /// Wide integer → float conversion: exact for values that fit `i64` (compared
    /// with Rust's `as`), and scaling by 2^k commutes with rounding.
    #[test]
    fn wide_int_to_float_rounds_like_rust(
        x in any::<i64>(),
        k in 0u32..1100,
        width in proptest::sample::select(vec![129u32, 200, 1200, 4096]),
    ) {
        let none = IntFlags::default();
        let from = TypeData::Int(width);
        let v = Val::from_biguint(width, reduce(width, BigInt::from(x)));
        prop_assert_eq!(cast(CastOp::SiToFp, none, &from, &TypeData::F64, &v), Val::F64((x as f64).to_bits()));
        prop_assert_eq!(cast(CastOp::SiToFp, none, &from, &TypeData::F32, &v), Val::F32((x as f32).to_bits()));
        let magnitude = x.unsigned_abs();
        let shifted = BigUint::from(magnitude) << k;
        if magnitude != 0 && shifted.bits() < u64::from(width) {
            let v = Val::from_biguint(width, shifted);
            let scaled = (magnitude as f64) * 2f64.powi(k as i32);
            prop_assert_eq!(cast(CastOp::UiToFp, none, &from, &TypeData::F64, &v), Val::F64(scaled.to_bits()));
            let scaled32 = f64::from(magnitude as f32) * 2f64.powi(k as i32);
            let expect32 = if scaled32 > f64::from(f32::MAX) { f32::INFINITY } else { scaled32 as f32 };
            prop_assert_eq!(cast(CastOp::UiToFp, none, &from, &TypeData::F32, &v), Val::F32(expect32.to_bits()));
        }
    }
}
