//! `half` (IEEE 754 binary16) and `bfloat` (bfloat16): decoding, and rounding
//! an exact value to them (ties to even, subnormals, overflow to ∞).
//!
//! Arithmetic on these types is computed in `f32` and rounded once to the 16-bit
//! type. That gives the exactly rounded IEEE result for `+ - * /` (and `sqrt`):
//! a format of p' ≥ 2p + 2 significand bits makes the double rounding innocuous
//! (binary32 has 24 bits; half needs 2·11 + 2 = 24, bfloat 2·8 + 2 = 18), and
//! `frem` is exact in every format. A NaN result is the positive preferred NaN.
//!
//! Bit patterns only: the lane value of a pattern, [`Small::val`], is defined
//! beside [`crate::value::Val`], so that [`crate::value`] and [`crate::ops`] both
//! import this module and it imports neither.

use num_bigint::BigUint;

/// Which 16-bit format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Small {
    /// `half`: 5 exponent bits, 10 fraction bits.
    Half,
    /// `bfloat`: 8 exponent bits, 7 fraction bits.
    BFloat,
}

impl Small {
    /// (exponent bits, fraction bits).
    fn bits(self) -> (u32, u32) {
        match self {
            Small::Half => (5, 10),
            Small::BFloat => (8, 7),
        }
    }

    /// The positive preferred (quiet, payload 0) NaN.
    pub fn nan(self) -> u16 {
        let (e, m) = self.bits();
        ((((1u32 << e) - 1) << m) | (1 << (m - 1))) as u16
    }
}

/// The exact value of `bits` in format `f`.
pub fn to_f64(f: Small, bits: u16) -> f64 {
    let (ebits, mbits) = f.bits();
    let bias = (1i32 << (ebits - 1)) - 1;
    let sign = if bits >> (ebits + mbits) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let exp = i32::from(bits >> mbits) & ((1 << ebits) - 1);
    let frac = f64::from(bits & ((1 << mbits) - 1));
    let scale = |e: i32| 2f64.powi(e);
    if exp == (1 << ebits) - 1 {
        return if frac == 0.0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    if exp == 0 {
        return sign * frac * scale(1 - bias - mbits as i32);
    }
    sign * (frac + scale(mbits as i32)) * scale(exp - bias - mbits as i32)
}

/// `x` rounded to format `f`: to nearest, ties to even, with subnormals; beyond
/// the largest finite number ±∞; a NaN gives the positive preferred NaN.
pub fn round_f64(f: Small, x: f64) -> u16 {
    let (ebits, mbits) = f.bits();
    if x.is_nan() {
        return f.nan();
    }
    let sign: u64 = if x.is_sign_negative() {
        1 << (ebits + mbits)
    } else {
        0
    };
    let inf = (((1u64 << ebits) - 1) << mbits) | sign;
    let a = x.abs();
    if a.is_infinite() {
        return inf as u16;
    }
    if a == 0.0 {
        return sign as u16;
    }
    // a = m · 2^e exactly, m < 2^53.
    let raw = a.to_bits();
    let e64 = ((raw >> 52) & 0x7ff) as i32;
    let frac = raw & ((1 << 52) - 1);
    let (m, e) = if e64 == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), e64 - 1075)
    };
    let bias = (1i32 << (ebits - 1)) - 1;
    let top = 63 - m.leading_zeros() as i32 + e; // a ∈ [2^top, 2^(top+1))
    let min_exp = 1 - bias;
    // The quantum of the target at a's magnitude: 2^q.
    let q = top.max(min_exp) - mbits as i32;
    let shift = q - e;
    let big: u64 = if shift <= 0 {
        m << (-shift)
    } else if shift >= 64 {
        0 // below half the quantum
    } else {
        let kept = m >> shift;
        let rest = m & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        if rest > half || (rest == half && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    // Subnormal (top < min_exp): the field is the significand itself (a carry to
    // 2^mbits is the smallest normal, encoded the same way). Normal: the biased
    // exponent above the fraction (a carry to 2^(mbits+1) bumps the exponent).
    let encoded = if top < min_exp {
        big
    } else {
        ((top + bias) as u64) * (1 << mbits) + big - (1 << mbits)
    };
    if encoded >= ((1 << ebits) - 1) << mbits {
        inf as u16
    } else {
        (encoded | sign) as u16
    }
}

/// The integer `±magnitude` rounded to format `f` (ties to even). Magnitudes up
/// to 2^53 are exact in `f64`; above, the top 53 bits are rounded to odd first,
/// which keeps the final rounding to ≤ 24 bits exact.
pub fn from_int(f: Small, negative: bool, magnitude: &BigUint) -> u16 {
    let n = magnitude.bits();
    let value = if n <= 53 {
        u64::try_from(magnitude).unwrap_or(0) as f64
    } else if n > 1024 {
        f64::INFINITY
    } else {
        let shift = n - 53;
        let kept = magnitude >> shift;
        let sticky = (magnitude & ((BigUint::from(1u8) << shift) - 1u8)) != BigUint::default();
        let odd = u64::try_from(&kept).unwrap_or(0) | u64::from(sticky);
        odd as f64 * 2f64.powi(shift as i32)
    };
    round_f64(f, if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_patterns() {
        let h = Small::Half;
        assert_eq!(round_f64(h, 1.0), 0x3c00);
        assert_eq!(round_f64(h, -2.0), 0xc000);
        assert_eq!(round_f64(h, 65504.0), 0x7bff);
        assert_eq!(round_f64(h, 65520.0), 0x7c00); // ties away to ∞ (even)
        assert_eq!(round_f64(h, 65519.0), 0x7bff);
        assert_eq!(round_f64(h, 2f64.powi(-24)), 0x0001); // smallest subnormal
        assert_eq!(round_f64(h, 2f64.powi(-25)), 0x0000); // tie to even: 0
        assert_eq!(round_f64(h, 1.5 * 2f64.powi(-25)), 0x0001);
        assert_eq!(round_f64(h, 1.0 + 2f64.powi(-11)), 0x3c00); // tie to even
        assert_eq!(round_f64(h, 1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        assert_eq!(round_f64(h, f64::NAN), 0x7e00);
        let b = Small::BFloat;
        assert_eq!(round_f64(b, 1.0), 0x3f80);
        assert_eq!(round_f64(b, 3.0e38), 0x7f62);
        assert_eq!(round_f64(b, f64::NAN), 0x7fc0);
        assert_eq!(round_f64(b, 1e39), 0x7f80);
    }

    #[test]
    fn every_half_and_bfloat_round_trips() {
        for f in [Small::Half, Small::BFloat] {
            for bits in 0..=u16::MAX {
                let x = to_f64(f, bits);
                if x.is_nan() {
                    continue;
                }
                assert_eq!(round_f64(f, x), bits, "{f:?} {bits:#06x}");
            }
        }
    }

    #[test]
    fn rounding_agrees_with_f32_for_bfloat_midpoints() {
        // bfloat is the top half of binary32: rounding an f32 to it by hand
        // (round to nearest even on the low 16 bits) is an independent oracle.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f32::from_bits(state as u32);
            if x.is_nan() {
                continue;
            }
            let bits = x.to_bits();
            let low = bits & 0xffff;
            let mut high = bits >> 16;
            if low > 0x8000 || (low == 0x8000 && high & 1 == 1) {
                high += 1;
            }
            assert_eq!(
                u32::from(round_f64(Small::BFloat, f64::from(x))),
                high,
                "{x:e}"
            );
        }
    }

    #[test]
    fn integers() {
        let big = |n: u64| BigUint::from(n);
        assert_eq!(from_int(Small::Half, false, &big(2049)), 0x6800); // 2048 (tie to even)
        assert_eq!(from_int(Small::Half, true, &big(3)), 0xc200);
        assert_eq!(from_int(Small::Half, false, &big(70000)), 0x7c00);
        let huge = (BigUint::from(1u8) << 100u32) + 1u8;
        assert_eq!(
            from_int(Small::BFloat, false, &huge),
            round_f64(Small::BFloat, 2f64.powi(100))
        );
    }
}
