//! Pure per-lane math (the "common mathematical functions" thesis §4.9.2 expects
//! in θ): [`MathFn`], the C library functions clang emits and LLVM's math and bit
//! intrinsics (LangRef "Standard C/C++ Library Intrinsics", "Bit Manipulation
//! Intrinsics"), one lane at a time ([`apply_math`]). Results follow
//! [`crate::ops`]: ⊤ arguments give ⊤, a NaN result is the positive preferred NaN.

use crate::ops::cast::float_to_int;
use crate::ops::float::{PREFERRED_NAN_F32, PREFERRED_NAN_F64, f32_val, f64_val};
use crate::ops::int::{int_val, signed_big, wrap_signed_big};
use crate::ops::zero_of_data;
use crate::types::TypeData;
use crate::value::{Val, wrap_biguint};
use num_bigint::{BigInt, BigUint};
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;

/// Pure per-lane math functions: C library functions and LLVM intrinsics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    /// `sqrt`.
    Sqrt,
    /// `fabs` (clears the sign bit, NaN payload kept).
    Fabs,
    /// `floor`.
    Floor,
    /// `ceil`.
    Ceil,
    /// `trunc`.
    Trunc,
    /// `round`: to nearest, ties away from zero.
    Round,
    /// `roundeven`: to nearest, ties to even.
    RoundEven,
    /// `rint`: to nearest in the default rounding mode (ties to even).
    Rint,
    /// `nearbyint`: as `rint`.
    NearbyInt,
    /// `exp`.
    Exp,
    /// `exp2`.
    Exp2,
    /// `exp10`.
    Exp10,
    /// `expm1`.
    Expm1,
    /// `log`.
    Log,
    /// `log2`.
    Log2,
    /// `log10`.
    Log10,
    /// `log1p`.
    Log1p,
    /// `sin`.
    Sin,
    /// `cos`.
    Cos,
    /// `tan`.
    Tan,
    /// `asin`.
    Asin,
    /// `acos`.
    Acos,
    /// `atan`.
    Atan,
    /// `sinh`.
    Sinh,
    /// `cosh`.
    Cosh,
    /// `tanh`.
    Tanh,
    /// `cbrt`.
    Cbrt,
    /// `llvm.canonicalize`: NaN becomes the preferred NaN.
    Canonicalize,
    /// `pow`.
    Pow,
    /// `atan2`.
    Atan2,
    /// `hypot`.
    Hypot,
    /// C `fmod` (as `frem`).
    Fmod,
    /// `minnum` / C `fmin`: one NaN operand yields the other operand.
    MinNum,
    /// `maxnum` / C `fmax`.
    MaxNum,
    /// `minimum`: NaN propagates, -0 < +0.
    Minimum,
    /// `maximum`: NaN propagates, -0 < +0.
    Maximum,
    /// `minimumnum`: like `minnum`, -0 < +0.
    MinimumNum,
    /// `maximumnum`: like `maxnum`, -0 < +0.
    MaximumNum,
    /// `copysign` (bit operation).
    CopySign,
    /// `powi(x, i32 n)`.
    Powi,
    /// `ldexp(x, iN e)`: x · 2^e.
    Ldexp,
    /// `fma`: fused multiply-add, one rounding.
    Fma,
    /// `fmuladd`: LLVM allows fused or unfused; pllvm computes it unfused.
    FMulAdd,
    /// `lround` / `llround`: round half away from zero to an integer.
    LRound,
    /// `lrint` / `llrint`: round to nearest even to an integer.
    LRint,
    /// `smin`.
    SMin,
    /// `smax`.
    SMax,
    /// `umin`.
    UMin,
    /// `umax`.
    UMax,
    /// `abs(x, i1 int_min_poison)`.
    Abs,
    /// `ctpop`.
    Ctpop,
    /// `ctlz(x, i1 is_zero_poison)`.
    Ctlz,
    /// `cttz(x, i1 is_zero_poison)`.
    Cttz,
    /// `bswap` (widths a multiple of 16).
    Bswap,
    /// `bitreverse`.
    Bitreverse,
    /// `fshl(a, b, c)`: funnel shift left.
    FShl,
    /// `fshr(a, b, c)`: funnel shift right.
    FShr,
    /// `sadd.sat`.
    SAddSat,
    /// `uadd.sat`.
    UAddSat,
    /// `ssub.sat`.
    SSubSat,
    /// `usub.sat`.
    USubSat,
    /// `scmp`: signed three-way comparison (-1, 0, 1).
    SCmp,
    /// `ucmp`: unsigned three-way comparison (-1, 0, 1).
    UCmp,
    /// CUDA's `__mul24` / `__umul24` (`llvm.nvvm.mul24.i`, `.ui`), OpenCL's
    /// `mul24`, amdgcn's `mul.i24` / `mul.u24`: the low bits of the product of
    /// the operands' low 24 bits, sign-extended when `true` (PTX ISA `mul24.lo`).
    Mul24(bool),
    /// CUDA's `__mulhi` / `__umulhi` / `__mul64hi` / `__umul64hi`
    /// (`llvm.nvvm.mulhi.*`), OpenCL's `mul_hi`: the high half of the double-width
    /// product, signed when `true` (PTX ISA `mul.hi`).
    MulHi(bool),
}

/// The signature shape of a math function (checked by [`signature_ok`](super::signature_ok)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// `(F) -> F`.
    FloatUnary,
    /// `(F, F) -> F`.
    FloatBinary,
    /// `(F, iN) -> F`.
    FloatInt,
    /// `(F, F, F) -> F`.
    FloatTernary,
    /// `(F) -> iN`.
    FloatToInt,
    /// `(iN) -> iN`.
    IntUnary,
    /// `(iN, i1) -> iN`.
    IntWithFlag,
    /// `(iN, iN) -> iN`.
    IntBinary,
    /// `(iN, iN, iN) -> iN`.
    IntTernary,
    /// `(iN, iN) -> iM`, M ≥ 2.
    IntCompare,
}

impl MathFn {
    /// The signature shape.
    pub(super) fn shape(self) -> Shape {
        use MathFn::*;
        match self {
            Sqrt | Fabs | Floor | Ceil | Trunc | Round | RoundEven | Rint | NearbyInt | Exp
            | Exp2 | Exp10 | Expm1 | Log | Log2 | Log10 | Log1p | Sin | Cos | Tan | Asin | Acos
            | Atan | Sinh | Cosh | Tanh | Cbrt | Canonicalize => Shape::FloatUnary,
            Pow | Atan2 | Hypot | Fmod | MinNum | MaxNum | Minimum | Maximum | MinimumNum
            | MaximumNum | CopySign => Shape::FloatBinary,
            Powi | Ldexp => Shape::FloatInt,
            Fma | FMulAdd => Shape::FloatTernary,
            LRound | LRint => Shape::FloatToInt,
            Ctpop | Bswap | Bitreverse => Shape::IntUnary,
            Abs | Ctlz | Cttz => Shape::IntWithFlag,
            SMin | SMax | UMin | UMax | SAddSat | UAddSat | SSubSat | USubSat | Mul24(_)
            | MulHi(_) => Shape::IntBinary,
            FShl | FShr => Shape::IntTernary,
            SCmp | UCmp => Shape::IntCompare,
        }
    }
}

/// One lane of a pure math function: `args` are this lane's arguments, of types
/// `arg_tys`, and `ret` is the result type. ⊤ in any argument gives ⊤. Ill-typed
/// calls (ruled out by [`signature_ok`](super::signature_ok)) give ⊤.
///
/// `float` functions are computed in binary64 and rounded once to binary32. For the
/// correctly rounded functions (sqrt, the rounding functions, min/max, ldexp) this
/// is exactly the binary32 result, since binary64 has more than 2·24 + 2 bits; the
/// transcendental ones have no exact result in LangRef and are computed with Rust's
/// `f64` functions. `fma` is fused in the operand type; `fmuladd` is unfused (LLVM
/// allows either).
pub fn apply_math(f: MathFn, args: &[Val], arg_tys: &[&TypeData], ret: &TypeData) -> Val {
    if args.iter().any(Val::is_undef) {
        return Val::Undef;
    }
    match f.shape() {
        Shape::FloatUnary | Shape::FloatBinary | Shape::FloatInt | Shape::FloatTernary => {
            float_math(f, args, arg_tys, ret)
        }
        Shape::FloatToInt => float_to_int_math(f, args, ret),
        _ => match arg_tys.first() {
            Some(TypeData::Int(width)) => int_math(f, args, *width, ret).unwrap_or(Val::Undef),
            _ => Val::Undef,
        },
    }
}

/// Binary64 bit pattern of the sign.
const SIGN_F64: u64 = 1 << 63;
/// Binary32 bit pattern of the sign.
const SIGN_F32: u32 = 1 << 31;

/// `minnum`-style selection: a NaN operand yields the other one; equal operands
/// order -0 < +0 (LangRef allows either zero for `minnum`; pllvm fixes one).
fn min_max_num(x: f64, y: f64, want_max: bool) -> f64 {
    if x.is_nan() {
        return y;
    }
    if y.is_nan() {
        return x;
    }
    min_max_ordered(x, y, want_max)
}

/// The smaller (larger) of two non-NaN floats, with -0 < +0.
fn min_max_ordered(x: f64, y: f64, want_max: bool) -> f64 {
    let order = x
        .partial_cmp(&y)
        .unwrap_or(Ordering::Equal)
        .then_with(|| y.is_sign_negative().cmp(&x.is_sign_negative()));
    let x_first = if want_max {
        order.is_ge()
    } else {
        order.is_le()
    };
    if x_first { x } else { y }
}

/// x · 2^e with one rounding (binary64 `ldexp`).
fn ldexp(x: f64, e: i64) -> f64 {
    let mut x = x;
    let mut e = e.clamp(-2300, 2300);
    let two_to = |k: i64| f64::from_bits(((k + 1023) as u64) << 52);
    while e > 1023 {
        x *= two_to(1023);
        e -= 1023;
    }
    // Steps of 2^-969 keep a normal x normal until the last multiplication.
    while e < -1022 {
        x *= two_to(-969);
        e += 969;
    }
    x * two_to(e)
}

/// The float math functions; the operand type is `ret` (Fig. 4.2 `fpN`).
fn float_math(f: MathFn, args: &[Val], arg_tys: &[&TypeData], ret: &TypeData) -> Val {
    // Bit operations keep NaN payloads (LangRef: fabs/copysign touch only the sign).
    match (f, args) {
        (MathFn::Fabs, [Val::F32(x)]) => return Val::F32(x & !SIGN_F32),
        (MathFn::Fabs, [Val::F64(x)]) => return Val::F64(x & !SIGN_F64),
        (MathFn::CopySign, [Val::F32(x), Val::F32(y)]) => {
            return Val::F32((x & !SIGN_F32) | (y & SIGN_F32));
        }
        (MathFn::CopySign, [Val::F64(x), Val::F64(y)]) => {
            return Val::F64((x & !SIGN_F64) | (y & SIGN_F64));
        }
        (MathFn::Fma, [Val::F32(x), Val::F32(y), Val::F32(z)]) => {
            let [x, y, z] = [x, y, z].map(|b| f32::from_bits(*b));
            return f32_val(x.mul_add(y, z));
        }
        (MathFn::FMulAdd, [Val::F32(x), Val::F32(y), Val::F32(z)]) => {
            let [x, y, z] = [x, y, z].map(|b| f32::from_bits(*b));
            return f32_val(x * y + z);
        }
        _ => {}
    }
    let float_args = args
        .iter()
        .zip(arg_tys)
        .filter(|(_, t)| matches!(t, TypeData::F32 | TypeData::F64))
        .map(|(v, _)| v.as_f64())
        .collect::<Option<Vec<f64>>>();
    let Some(xs) = float_args else {
        return Val::Undef;
    };
    let x = xs.first().copied().unwrap_or(f64::NAN);
    let y = xs.get(1).copied().unwrap_or(f64::NAN);
    let z = xs.get(2).copied().unwrap_or(f64::NAN);
    // The integer argument of powi / ldexp, as a signed number.
    let n = match (args.get(1), arg_tys.get(1)) {
        (Some(v), Some(TypeData::Int(w))) => v
            .as_biguint()
            .map(|bits| signed_big(*w, &bits))
            .and_then(|s| {
                s.clamp(BigInt::from(-100_000), BigInt::from(100_000))
                    .to_i64()
            })
            .unwrap_or(0),
        _ => 0,
    };
    let r = match f {
        MathFn::Sqrt => x.sqrt(),
        MathFn::Floor => x.floor(),
        MathFn::Ceil => x.ceil(),
        MathFn::Trunc => x.trunc(),
        MathFn::Round => x.round(),
        MathFn::RoundEven | MathFn::Rint | MathFn::NearbyInt => x.round_ties_even(),
        MathFn::Exp => x.exp(),
        MathFn::Exp2 => x.exp2(),
        MathFn::Exp10 => 10f64.powf(x),
        MathFn::Expm1 => x.exp_m1(),
        MathFn::Log => x.ln(),
        MathFn::Log2 => x.log2(),
        MathFn::Log10 => x.log10(),
        MathFn::Log1p => x.ln_1p(),
        MathFn::Sin => x.sin(),
        MathFn::Cos => x.cos(),
        MathFn::Tan => x.tan(),
        MathFn::Asin => x.asin(),
        MathFn::Acos => x.acos(),
        MathFn::Atan => x.atan(),
        MathFn::Sinh => x.sinh(),
        MathFn::Cosh => x.cosh(),
        MathFn::Tanh => x.tanh(),
        MathFn::Cbrt => x.cbrt(),
        MathFn::Canonicalize => x,
        MathFn::Pow => x.powf(y),
        MathFn::Atan2 => x.atan2(y),
        MathFn::Hypot => x.hypot(y),
        MathFn::Fmod => x % y,
        MathFn::MinNum | MathFn::MinimumNum => min_max_num(x, y, false),
        MathFn::MaxNum | MathFn::MaximumNum => min_max_num(x, y, true),
        MathFn::Minimum | MathFn::Maximum if x.is_nan() || y.is_nan() => f64::NAN,
        MathFn::Minimum => min_max_ordered(x, y, false),
        MathFn::Maximum => min_max_ordered(x, y, true),
        MathFn::Powi => x.powi(n as i32),
        MathFn::Ldexp => ldexp(x, n),
        MathFn::Fma => x.mul_add(y, z),
        MathFn::FMulAdd => x * y + z,
        _ => return Val::Undef,
    };
    match ret {
        TypeData::F32 if r.is_nan() => Val::F32(PREFERRED_NAN_F32),
        TypeData::F32 => f32_val(r as f32),
        TypeData::F64 if r.is_nan() => Val::F64(PREFERRED_NAN_F64),
        TypeData::F64 => f64_val(r),
        _ => Val::Undef,
    }
}

/// `lround` / `lrint`: round, then convert like `fptosi`. An out-of-range result is
/// "a non-deterministic value" (LangRef, i.e. `freeze poison`), and pllvm picks
/// zero, as it does for `freeze`.
fn float_to_int_math(f: MathFn, args: &[Val], ret: &TypeData) -> Val {
    let (Some(x), TypeData::Int(width)) = (args.first().and_then(Val::as_f64), ret) else {
        return Val::Undef;
    };
    let rounded = if f == MathFn::LRound {
        x.round()
    } else {
        x.round_ties_even()
    };
    float_to_int(true, *width, &Val::F64(rounded.to_bits())).unwrap_or_else(|| zero_of_data(ret))
}

/// The integer intrinsics at any `width`, as LangRef defines them on ℤ; `None` is
/// ⊤ (a poison result, or operands that are not integers).
fn int_math(f: MathFn, args: &[Val], width: u32, ret: &TypeData) -> Option<Val> {
    let operands = args
        .iter()
        .map(Val::as_biguint)
        .collect::<Option<Vec<BigUint>>>()?;
    let a = operands.first()?;
    let b = operands.get(1);
    let flag = || b.is_some_and(|v| !v.is_zero());
    let signed = |v: &BigUint| signed_big(width, v);
    let half = BigInt::one() << (width - 1);
    let from_signed = |v: &BigInt| int_val(width, wrap_signed_big(width, v));
    let from_unsigned = |v: BigUint| int_val(width, wrap_biguint(width, &v));
    let result = match f {
        MathFn::SMin => from_signed(&signed(a).min(signed(b?))),
        MathFn::SMax => from_signed(&signed(a).max(signed(b?))),
        MathFn::UMin => from_unsigned(a.min(b?).clone()),
        MathFn::UMax => from_unsigned(a.max(b?).clone()),
        MathFn::Mul24(sign) => {
            let low24 = |v: &BigUint| {
                let bits = v.iter_u64_digits().next().unwrap_or(0) & 0xff_ffff;
                if sign && bits & 0x80_0000 != 0 {
                    BigInt::from(bits) - (BigInt::one() << 24)
                } else {
                    BigInt::from(bits)
                }
            };
            from_signed(&(low24(a) * low24(b?)))
        }
        MathFn::MulHi(sign) => {
            let product = if sign {
                signed(a) * signed(b?)
            } else {
                BigInt::from(a * b?)
            };
            from_signed(&(product >> width))
        }
        MathFn::Abs => {
            let value = signed(a);
            // |INT_MIN| wraps to INT_MIN, or is poison with `int_min_poison`.
            if value == -&half && flag() {
                return None;
            }
            from_signed(&value.abs())
        }
        MathFn::Ctpop => from_unsigned(BigUint::from(a.count_ones())),
        MathFn::Ctlz | MathFn::Cttz if a.is_zero() => {
            if flag() {
                return None;
            }
            from_unsigned(BigUint::from(width))
        }
        MathFn::Ctlz => from_unsigned(BigUint::from(u64::from(width) - a.bits())),
        MathFn::Cttz => from_unsigned(BigUint::from(a.trailing_zeros().unwrap_or(0))),
        MathFn::Bswap => {
            if !width.is_multiple_of(16) {
                return None;
            }
            let mut bytes = a.to_bytes_le();
            bytes.resize((width / 8) as usize, 0);
            bytes.reverse();
            from_unsigned(BigUint::from_bytes_le(&bytes))
        }
        MathFn::Bitreverse => {
            let mut reversed = BigUint::zero();
            for bit in 0..u64::from(width) {
                if a.bit(bit) {
                    reversed.set_bit(u64::from(width) - 1 - bit, true);
                }
            }
            from_unsigned(reversed)
        }
        MathFn::FShl | MathFn::FShr => {
            let (b, c) = (b?, operands.get(2)?);
            // The shift amount is taken modulo the width, so it fits a `u32`.
            let shift = (c % width).to_u32().unwrap_or(0);
            if shift == 0 {
                return Some(from_unsigned(if f == MathFn::FShl { a } else { b }.clone()));
            }
            let combined = if f == MathFn::FShl {
                (a << shift) | (b >> (width - shift))
            } else {
                (b >> shift) | (a << (width - shift))
            };
            from_unsigned(combined)
        }
        MathFn::UAddSat => {
            let max = (BigUint::one() << width) - 1u8;
            from_unsigned((a + b?).min(max))
        }
        MathFn::USubSat => {
            let b = b?;
            from_unsigned(if a > b { a - b } else { BigUint::zero() })
        }
        MathFn::SAddSat | MathFn::SSubSat => {
            let exact = if f == MathFn::SAddSat {
                signed(a) + signed(b?)
            } else {
                signed(a) - signed(b?)
            };
            from_signed(&exact.clamp(-&half, &half - 1))
        }
        MathFn::SCmp | MathFn::UCmp => {
            let b = b?;
            let order = if f == MathFn::SCmp {
                signed(a).cmp(&signed(b))
            } else {
                a.cmp(b)
            };
            let TypeData::Int(ret_width) = ret else {
                return None;
            };
            let value = BigInt::from(order as i8);
            int_val(*ret_width, wrap_signed_big(*ret_width, &value))
        }
        _ => return None,
    };
    Some(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32v(x: f32) -> Val {
        Val::F32(x.to_bits())
    }
    fn f64v(x: f64) -> Val {
        Val::F64(x.to_bits())
    }

    /// One lane of a math function on `double`s.
    fn math64(f: MathFn, args: &[f64]) -> Val {
        let vals: Vec<Val> = args.iter().map(|&x| f64v(x)).collect();
        let tys = vec![&TypeData::F64; args.len()];
        apply_math(f, &vals, &tys, &TypeData::F64)
    }

    #[test]
    fn float_math() {
        assert_eq!(math64(MathFn::Sqrt, &[9.0]), f64v(3.0));
        assert_eq!(math64(MathFn::Sqrt, &[-1.0]), Val::F64(PREFERRED_NAN_F64));
        assert_eq!(math64(MathFn::Round, &[-2.5]), f64v(-3.0));
        assert_eq!(math64(MathFn::RoundEven, &[-2.5]), f64v(-2.0));
        assert_eq!(math64(MathFn::Rint, &[3.5]), f64v(4.0));
        assert_eq!(math64(MathFn::Floor, &[-0.5]), f64v(-1.0));
        assert_eq!(math64(MathFn::Fabs, &[-0.0]), f64v(0.0));
        assert_eq!(math64(MathFn::MinNum, &[f64::NAN, 2.0]), f64v(2.0));
        assert_eq!(math64(MathFn::MaxNum, &[1.0, f64::NAN]), f64v(1.0));
        assert_eq!(
            math64(MathFn::Minimum, &[f64::NAN, 2.0]),
            Val::F64(PREFERRED_NAN_F64)
        );
        assert_eq!(math64(MathFn::Minimum, &[0.0, -0.0]), f64v(-0.0));
        assert_eq!(math64(MathFn::Maximum, &[-0.0, 0.0]), f64v(0.0));
        assert_eq!(math64(MathFn::MinNum, &[0.0, -0.0]), f64v(-0.0));
        assert_eq!(math64(MathFn::CopySign, &[2.0, -0.0]), f64v(-2.0));
        assert_eq!(math64(MathFn::Fmod, &[-7.0, 2.0]), f64v(-1.0));
        // fma rounds once: (1 + 2^-52)(1 - 2^-52) - 1 = -2^-104 exactly.
        let e = f64::EPSILON;
        assert_eq!(
            math64(MathFn::Fma, &[1.0 + e, 1.0 - e, -1.0]),
            f64v(-(e * e))
        );
        assert_eq!(
            math64(MathFn::FMulAdd, &[1.0 + e, 1.0 - e, -1.0]),
            f64v(0.0)
        );
        let single = apply_math(
            MathFn::Sqrt,
            &[f32v(2.0)],
            &[&TypeData::F32],
            &TypeData::F32,
        );
        assert_eq!(single, f32v(2f32.sqrt()));
        let fma32 = apply_math(
            MathFn::Fma,
            &[
                f32v(1.0 + f32::EPSILON),
                f32v(1.0 - f32::EPSILON),
                f32v(-1.0),
            ],
            &[&TypeData::F32; 3],
            &TypeData::F32,
        );
        assert_eq!(fma32, f32v(-(f32::EPSILON * f32::EPSILON)));
        let powi = apply_math(
            MathFn::Powi,
            &[f64v(2.0), Val::Int(0xffff_fffe)],
            &[&TypeData::F64, &TypeData::Int(32)],
            &TypeData::F64,
        );
        assert_eq!(powi, f64v(0.25));
        let ldexp = apply_math(
            MathFn::Ldexp,
            &[f64v(1.0), Val::Int(0xffff_fbce)],
            &[&TypeData::F64, &TypeData::Int(32)],
            &TypeData::F64,
        );
        assert_eq!(ldexp, Val::F64(1), "2^-1074 is the least subnormal");
        let lround = apply_math(
            MathFn::LRound,
            &[f64v(-2.5)],
            &[&TypeData::F64],
            &TypeData::Int(64),
        );
        assert_eq!(lround, Val::Int((-3i64) as u64 as u128));
        let lrint = apply_math(
            MathFn::LRint,
            &[f64v(1e300)],
            &[&TypeData::F64],
            &TypeData::Int(64),
        );
        assert_eq!(lrint, Val::Int(0));
        assert_eq!(math64(MathFn::Exp, &[0.0]), f64v(1.0));
        assert_eq!(
            apply_math(
                MathFn::Exp,
                &[Val::Undef],
                &[&TypeData::F64],
                &TypeData::F64
            ),
            Val::Undef
        );
    }

    /// One lane of an integer intrinsic at `width`; operands are signed numbers.
    fn int_fn(f: MathFn, width: u32, args: &[i64]) -> Val {
        let ty = TypeData::Int(width);
        let vals: Vec<Val> = args
            .iter()
            .map(|&a| int_val(width, wrap_signed_big(width, &BigInt::from(a))))
            .collect();
        let tys = vec![&ty; args.len()];
        apply_math(f, &vals, &tys, &ty)
    }

    fn int(width: u32, v: i64) -> Val {
        int_val(width, wrap_signed_big(width, &BigInt::from(v)))
    }

    #[test]
    fn integer_intrinsics_at_many_widths() {
        for w in [8u32, 32, 64, 128, 129, 4096] {
            assert_eq!(int_fn(MathFn::SMax, w, &[-1, 1]), int(w, 1));
            assert_eq!(int_fn(MathFn::UMax, w, &[-1, 1]), int(w, -1));
            assert_eq!(int_fn(MathFn::SMin, w, &[-1, 1]), int(w, -1));
            assert_eq!(int_fn(MathFn::UMin, w, &[-1, 1]), int(w, 1));
            assert_eq!(int_fn(MathFn::Ctpop, w, &[-1]), int(w, i64::from(w)));
            assert_eq!(int_fn(MathFn::Ctlz, w, &[1, 0]), int(w, i64::from(w) - 1));
            assert_eq!(int_fn(MathFn::Ctlz, w, &[0, 0]), int(w, i64::from(w)));
            assert_eq!(int_fn(MathFn::Ctlz, w, &[0, 1]), Val::Undef);
            assert_eq!(int_fn(MathFn::Cttz, w, &[8, 1]), int(w, 3));
            assert_eq!(int_fn(MathFn::Cttz, w, &[0, 1]), Val::Undef);
            assert_eq!(int_fn(MathFn::Abs, w, &[-5, 1]), int(w, 5));
            assert_eq!(int_fn(MathFn::UAddSat, w, &[-2, 5]), int(w, -1));
            assert_eq!(int_fn(MathFn::USubSat, w, &[2, 5]), int(w, 0));
            assert_eq!(int_fn(MathFn::SSubSat, w, &[-2, 5]), int(w, -7));
            assert_eq!(
                int_fn(MathFn::Bitreverse, w, &[1]),
                int_val(w, BigUint::one() << (w - 1))
            );
            assert_eq!(
                int_fn(MathFn::FShl, w, &[1, -1, i64::from(w) + 1]),
                int(w, 3)
            );
            assert_eq!(
                int_fn(MathFn::FShr, w, &[1, 2, 1]),
                int_val(w, (BigUint::one() << (w - 1)) + 1u8)
            );
            assert_eq!(int_fn(MathFn::FShr, w, &[1, 2, 0]), int(w, 2));
        }
        let min8 = int(8, -128);
        assert_eq!(int_fn(MathFn::Abs, 8, &[-128, 0]), min8);
        assert_eq!(int_fn(MathFn::Abs, 8, &[-128, 1]), Val::Undef);
        assert_eq!(int_fn(MathFn::SAddSat, 8, &[100, 100]), int(8, 127));
        // mul24 (PTX mul24.lo): only the low 24 bits take part; 0x1000003 is 3,
        // and signed 0xffffff is -1. mul.hi: the high half of the product.
        assert_eq!(
            int_fn(MathFn::Mul24(false), 32, &[0x100_0003, 5]),
            int(32, 15)
        );
        assert_eq!(
            int_fn(MathFn::Mul24(true), 32, &[0xff_ffff, 7]),
            int(32, -7)
        );
        assert_eq!(
            int_fn(MathFn::Mul24(false), 32, &[0xff_ffff, 7]),
            int(32, 0x6ff_fff9)
        );
        assert_eq!(int_fn(MathFn::MulHi(false), 32, &[-1, -1]), int(32, -2));
        assert_eq!(int_fn(MathFn::MulHi(true), 32, &[-1, -1]), int(32, 0));
        assert_eq!(
            int_fn(MathFn::MulHi(true), 32, &[-2, 0x4000_0000]),
            int(32, -1)
        );
        assert_eq!(int_fn(MathFn::SAddSat, 8, &[-100, -100]), int(8, -128));
        assert_eq!(
            int_fn(MathFn::Bswap, 32, &[0x1122_3344]),
            int(32, 0x4433_2211)
        );
        assert_eq!(
            int_fn(MathFn::Bswap, 48, &[0x1122_3344]),
            int(48, 0x4433_2211_0000)
        );
        assert_eq!(int_fn(MathFn::Bswap, 8, &[1]), Val::Undef);
        assert_eq!(int_fn(MathFn::FShl, 8, &[0x12, 0x34, 4]), int(8, 0x23));
        assert_eq!(int_fn(MathFn::FShr, 8, &[0x12, 0x34, 4]), int(8, 0x23));
        let scmp = apply_math(
            MathFn::SCmp,
            &[int(32, -1), int(32, 1)],
            &[&TypeData::Int(32), &TypeData::Int(32)],
            &TypeData::Int(8),
        );
        assert_eq!(scmp, int(8, -1));
        let ucmp = apply_math(
            MathFn::UCmp,
            &[int(32, -1), int(32, 1)],
            &[&TypeData::Int(32), &TypeData::Int(32)],
            &TypeData::Int(2),
        );
        assert_eq!(ucmp, int(2, 1));
    }
}
