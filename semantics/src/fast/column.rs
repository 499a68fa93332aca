//! Column loops: one scalar instruction over all lanes of a thread array at once,
//! for the fast execution of [W-INST-LLVM] (thesis §4.9: "each thread executes it
//! independently according to regular LLVM semantics"; the rule itself is
//! [`crate::rules::llvm::w_inst_llvm`], lane by lane).
//!
//! Each fast form computes, for every active lane τ, exactly what the per-lane
//! operation of [`crate::ops`] computes on lane τ's operands (`out[τ] =
//! binary(op, flags, ty, a[τ], b[τ])`, and so on), and leaves passive lanes of
//! `out` as they are. The fast forms only hoist the dispatch on the opcode and the
//! type out of the lane loop: the frequent (opcode, type) pairs (`double` and
//! `float` arithmetic and `fcmp`, integer arithmetic and `icmp` up to 128 bits)
//! get a loop of their own; every other pair runs the per-lane operation in a loop.
//! The unit tests compare every fast form with the per-lane operation on random
//! columns, ⊤ included.

use crate::column::{BitColumn, BitKind};
use crate::ir::{BinOp, FCmpPred, ICmpPred, IntFlags};
use crate::ops::{LaneUb, float, int};
use crate::types::TypeData;
use crate::value::{Val, low_mask};

/// `op [flags] ty a, b` in every active lane: `out[τ] = binary(op, flags, ty, a[τ],
/// b[τ])` ([`crate::ops::binary`]). The first lane (in lane order) whose operation is
/// undefined behaviour is returned with its reason; lanes after it are not computed.
pub fn binary_column(
    op: BinOp,
    flags: IntFlags,
    ty: &TypeData,
    a: &[Val],
    b: &[Val],
    active: &[bool],
    out: &mut [Val],
) -> Result<(), (usize, LaneUb)> {
    let no_flags = !(flags.nuw || flags.nsw || flags.exact || flags.disjoint);
    match (ty, op) {
        (TypeData::F64, BinOp::FAdd) => f64_lanes(a, b, active, out, |x, y| x + y),
        (TypeData::F64, BinOp::FSub) => f64_lanes(a, b, active, out, |x, y| x - y),
        (TypeData::F64, BinOp::FMul) => f64_lanes(a, b, active, out, |x, y| x * y),
        (TypeData::F64, BinOp::FDiv) => f64_lanes(a, b, active, out, |x, y| x / y),
        (TypeData::F32, BinOp::FAdd) => f32_lanes(a, b, active, out, |x, y| x + y),
        (TypeData::F32, BinOp::FSub) => f32_lanes(a, b, active, out, |x, y| x - y),
        (TypeData::F32, BinOp::FMul) => f32_lanes(a, b, active, out, |x, y| x * y),
        (TypeData::F32, BinOp::FDiv) => f32_lanes(a, b, active, out, |x, y| x / y),
        (&TypeData::Int(width), _) if width <= 128 => {
            let mask = low_mask(width);
            match op {
                BinOp::Add if no_flags => {
                    int_lanes(a, b, active, out, |x, y| Some(x.wrapping_add(y) & mask))
                }
                BinOp::Sub if no_flags => {
                    int_lanes(a, b, active, out, |x, y| Some(x.wrapping_sub(y) & mask))
                }
                BinOp::Mul if no_flags => {
                    int_lanes(a, b, active, out, |x, y| Some(x.wrapping_mul(y) & mask))
                }
                BinOp::And => int_lanes(a, b, active, out, |x, y| Some(x & y)),
                BinOp::Or if no_flags => int_lanes(a, b, active, out, |x, y| Some(x | y)),
                BinOp::Xor => int_lanes(a, b, active, out, |x, y| Some(x ^ y)),
                BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem => {
                    return generic_lanes(op, flags, ty, a, b, active, out);
                }
                _ => int_lanes(a, b, active, out, |x, y| {
                    // Not a division: `small` cannot report undefined behaviour.
                    int::small(op, flags, width, x, y).unwrap_or(None)
                }),
            }
        }
        _ => return generic_lanes(op, flags, ty, a, b, active, out),
    }
    Ok(())
}

/// The per-lane loop every other (opcode, type) pair takes.
fn generic_lanes(
    op: BinOp,
    flags: IntFlags,
    ty: &TypeData,
    a: &[Val],
    b: &[Val],
    active: &[bool],
    out: &mut [Val],
) -> Result<(), (usize, LaneUb)> {
    for (lane, (((o, x), y), &on)) in out.iter_mut().zip(a).zip(b).zip(active).enumerate() {
        if on {
            *o = crate::ops::binary(op, flags, ty, x, y).map_err(|e| (lane, e))?;
        }
    }
    Ok(())
}

/// `double` arithmetic: two `F64` operands give `f64_val(f(x, y))`, anything else ⊤
/// (what `float::binary` does for `ty = double`).
#[inline(always)]
fn f64_lanes(a: &[Val], b: &[Val], active: &[bool], out: &mut [Val], f: impl Fn(f64, f64) -> f64) {
    for (((o, x), y), &on) in out.iter_mut().zip(a).zip(b).zip(active) {
        if on {
            *o = match (x, y) {
                (Val::F64(x), Val::F64(y)) => {
                    float::f64_val(f(f64::from_bits(*x), f64::from_bits(*y)))
                }
                _ => Val::Undef,
            };
        }
    }
}

/// `float` arithmetic, like [`f64_lanes`] for binary32.
#[inline(always)]
fn f32_lanes(a: &[Val], b: &[Val], active: &[bool], out: &mut [Val], f: impl Fn(f32, f32) -> f32) {
    for (((o, x), y), &on) in out.iter_mut().zip(a).zip(b).zip(active) {
        if on {
            *o = match (x, y) {
                (Val::F32(x), Val::F32(y)) => {
                    float::f32_val(f(f32::from_bits(*x), f32::from_bits(*y)))
                }
                _ => Val::Undef,
            };
        }
    }
}

/// Integer operators other than divisions on widths ≤ 128: two `Int` operands give
/// `f(x, y)` (`None` is ⊤), anything else ⊤ (what `int::binary` does there).
#[inline(always)]
fn int_lanes(
    a: &[Val],
    b: &[Val],
    active: &[bool],
    out: &mut [Val],
    f: impl Fn(u128, u128) -> Option<u128>,
) {
    for (((o, x), y), &on) in out.iter_mut().zip(a).zip(b).zip(active) {
        if on {
            *o = match (x, y) {
                (Val::Int(x), Val::Int(y)) => f(*x, *y).map_or(Val::Undef, Val::Int),
                _ => Val::Undef,
            };
        }
    }
}

/// `icmp pred ty a, b` in every active lane: `out[τ] = icmp(pred, ty, a[τ], b[τ])`
/// ([`crate::ops::icmp`]). Two `Int` operands of a type up to 128 bits are compared in
/// the loop; every other lane goes through the per-lane operation.
pub fn icmp_column(
    pred: ICmpPred,
    ty: &TypeData,
    a: &[Val],
    b: &[Val],
    active: &[bool],
    out: &mut [Val],
) {
    let width = match ty {
        &TypeData::Int(w) if w <= 128 => Some(w),
        _ => None,
    };
    for (((o, x), y), &on) in out.iter_mut().zip(a).zip(b).zip(active) {
        if on {
            *o = match (x, y, width) {
                (Val::Int(x), Val::Int(y), Some(w)) => {
                    let signed = int::sext128(w, *x).cmp(&int::sext128(w, *y));
                    Val::bool(int::icmp_holds(pred, x.cmp(y), signed))
                }
                _ => crate::ops::icmp(pred, ty, x, y),
            };
        }
    }
}

/// `fcmp pred ty a, b` in every active lane: `out[τ] = fcmp(pred, ty, a[τ], b[τ])`
/// ([`crate::ops::fcmp`]). Two `F64` operands of a `double` comparison are compared in
/// the loop; every other lane goes through the per-lane operation.
pub fn fcmp_column(
    pred: FCmpPred,
    ty: &TypeData,
    a: &[Val],
    b: &[Val],
    active: &[bool],
    out: &mut [Val],
) {
    let double = matches!(ty, TypeData::F64);
    for (((o, x), y), &on) in out.iter_mut().zip(a).zip(b).zip(active) {
        if on {
            *o = match (x, y) {
                (Val::F64(x), Val::F64(y)) if double => Val::bool(float::fcmp_holds(
                    pred,
                    f64::from_bits(*x),
                    f64::from_bits(*y),
                )),
                _ => crate::ops::fcmp(pred, ty, x, y),
            };
        }
    }
}

/// `select i1 cond, ty t, ty f` in every active lane: `out[τ] = select(cond[τ],
/// t[τ], f[τ])` ([`crate::ops::select`]).
pub fn select_column(cond: &[Val], t: &[Val], f: &[Val], active: &[bool], out: &mut [Val]) {
    for ((((o, c), x), y), &on) in out.iter_mut().zip(cond).zip(t).zip(f).zip(active) {
        if on {
            *o = crate::ops::select(c, x, y);
        }
    }
}

/// The fast forms on unboxed columns ([`BitColumn`]: integers up to 64 bits and
/// floats, each lane a pattern and a ⊤ flag). Each returns `false`, having
/// computed nothing, for an (opcode, type) pair it has no loop for; the caller
/// then runs the [`Val`] loop above. Every active lane gets exactly what the
/// per-lane operation gives it (tested against it below, through
/// [`BitColumn::lane`]). Unlike the [`Val`] loops they compute *every* lane, so
/// that the loops have no branch and vectorize: a passive lane of `out` receives a
/// value that [UPD-ENV] never takes (res^W is unspecified there, see
/// [`crate::rules::cmd::eval_cmd`]). No bit loop can report undefined
/// behaviour: division, the one operator that can, is left to the [`Val`] loop.
pub fn binary_bits(
    op: BinOp,
    flags: IntFlags,
    ty: &TypeData,
    a: &BitColumn,
    b: &BitColumn,
    lanes: usize,
    out: &mut BitColumn,
) -> bool {
    let Some(kind) = BitKind::of(ty).filter(|&k| k == a.kind && k == b.kind) else {
        return false;
    };
    let no_flags = !(flags.nuw || flags.nsw || flags.exact || flags.disjoint);
    match (kind, op) {
        (BitKind::F64, BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv) => {
            out.reshape(kind, lanes);
            match op {
                BinOp::FAdd => f64_bit_lanes(a, b, out, |x, y| x + y),
                BinOp::FSub => f64_bit_lanes(a, b, out, |x, y| x - y),
                BinOp::FMul => f64_bit_lanes(a, b, out, |x, y| x * y),
                _ => f64_bit_lanes(a, b, out, |x, y| x / y),
            }
        }
        (BitKind::F32, BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv) => {
            out.reshape(kind, lanes);
            match op {
                BinOp::FAdd => f32_bit_lanes(a, b, out, |x, y| x + y),
                BinOp::FSub => f32_bit_lanes(a, b, out, |x, y| x - y),
                BinOp::FMul => f32_bit_lanes(a, b, out, |x, y| x * y),
                _ => f32_bit_lanes(a, b, out, |x, y| x / y),
            }
        }
        (BitKind::Int(width), _) if !op.is_float() => {
            if matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem) {
                // Division can be undefined behaviour: the [`Val`] loop reports it.
                return false;
            }
            out.reshape(kind, lanes);
            let mask = low_mask(width) as u64;
            match op {
                BinOp::Add if no_flags => total_lanes(a, b, out, |x, y| x.wrapping_add(y) & mask),
                BinOp::Sub if no_flags => total_lanes(a, b, out, |x, y| x.wrapping_sub(y) & mask),
                BinOp::Mul if no_flags => total_lanes(a, b, out, |x, y| x.wrapping_mul(y) & mask),
                BinOp::And => total_lanes(a, b, out, |x, y| x & y),
                BinOp::Or if no_flags => total_lanes(a, b, out, |x, y| x | y),
                BinOp::Xor => total_lanes(a, b, out, |x, y| x ^ y),
                _ => bit_lanes(a, b, out, |x, y| {
                    // Not a division: `small` cannot report undefined behaviour.
                    int::small(op, flags, width, u128::from(x), u128::from(y))
                        .unwrap_or(None)
                        .map(|v| v as u64)
                }),
            }
        }
        _ => return false,
    }
    true
}

/// The lane loops of a two-operand bit loop whose operation is total:
/// `out[τ] = f(a[τ], b[τ])` in every lane, ⊤ exactly when either operand is ⊤.
/// Patterns and ⊤ flags go in two loops of one element type each, which the
/// compiler vectorizes without packing bytes into words. `f` also runs on the
/// meaningless pattern of a ⊤ lane; the result is ⊤ there whatever it gives.
#[inline(always)]
fn total_lanes(a: &BitColumn, b: &BitColumn, out: &mut BitColumn, f: impl Fn(u64, u64) -> u64) {
    for ((o, &x), &y) in out.bits.iter_mut().zip(&a.bits).zip(&b.bits) {
        *o = f(x, y);
    }
    for ((o, &x), &y) in out.undef.iter_mut().zip(&a.undef).zip(&b.undef) {
        *o = x | y;
    }
}

/// The lane loop of the two-operand bit loops whose operation can give ⊤:
/// `out[τ] = f(a[τ], b[τ])` in every lane, ⊤ when either operand is ⊤ or `f`
/// gives `None`. Like [`total_lanes`], `f` also runs on the patterns of ⊤ lanes.
#[inline(always)]
fn bit_lanes(
    a: &BitColumn,
    b: &BitColumn,
    out: &mut BitColumn,
    f: impl Fn(u64, u64) -> Option<u64>,
) {
    let lanes = out
        .bits
        .iter_mut()
        .zip(out.undef.iter_mut())
        .zip(a.bits.iter().zip(&a.undef))
        .zip(b.bits.iter().zip(&b.undef));
    for (((o, o_undef), (&x, &x_undef)), (&y, &y_undef)) in lanes {
        let r = f(x, y);
        *o = r.unwrap_or(0);
        *o_undef = x_undef | y_undef | r.is_none();
    }
}

#[inline(always)]
fn f64_bit_lanes(a: &BitColumn, b: &BitColumn, out: &mut BitColumn, f: impl Fn(f64, f64) -> f64) {
    total_lanes(a, b, out, |x, y| {
        let r = f(f64::from_bits(x), f64::from_bits(y));
        if r.is_nan() {
            float::PREFERRED_NAN_F64
        } else {
            r.to_bits()
        }
    });
}

#[inline(always)]
fn f32_bit_lanes(a: &BitColumn, b: &BitColumn, out: &mut BitColumn, f: impl Fn(f32, f32) -> f32) {
    total_lanes(a, b, out, |x, y| {
        let r = f(f32::from_bits(x as u32), f32::from_bits(y as u32));
        u64::from(if r.is_nan() {
            float::PREFERRED_NAN_F32
        } else {
            r.to_bits()
        })
    });
}

/// The two's-complement value of a `width`-bit pattern (`width` in 1..=64).
#[inline(always)]
fn sext64(width: u32, bits: u64) -> i64 {
    let unused = 64 - width.clamp(1, 64);
    ((bits << unused) as i64) >> unused
}

/// [`icmp_column`] on unboxed integer columns (result `i1`).
pub fn icmp_bits(
    pred: ICmpPred,
    ty: &TypeData,
    a: &BitColumn,
    b: &BitColumn,
    lanes: usize,
    out: &mut BitColumn,
) -> bool {
    let Some(BitKind::Int(width)) = BitKind::of(ty).filter(|&k| k == a.kind && k == b.kind) else {
        return false;
    };
    out.reshape(BitKind::Int(1), lanes);
    total_lanes(a, b, out, |x, y| {
        let signed = sext64(width, x).cmp(&sext64(width, y));
        u64::from(int::icmp_holds(pred, x.cmp(&y), signed))
    });
    true
}

/// [`fcmp_column`] on unboxed float columns (result `i1`).
pub fn fcmp_bits(
    pred: FCmpPred,
    ty: &TypeData,
    a: &BitColumn,
    b: &BitColumn,
    lanes: usize,
    out: &mut BitColumn,
) -> bool {
    let Some(kind) = BitKind::of(ty).filter(|&k| k == a.kind && k == b.kind) else {
        return false;
    };
    out.reshape(BitKind::Int(1), lanes);
    // Widening binary32 to binary64 is exact and keeps the order and NaN-ness.
    // The predicate is matched once, outside the lane loop, for the frequent ones.
    match kind {
        BitKind::F64 => fcmp_lanes(pred, a, b, out, f64::from_bits),
        BitKind::F32 => fcmp_lanes(pred, a, b, out, |bits| {
            f64::from(f32::from_bits(bits as u32))
        }),
        BitKind::Int(_) => return false,
    }
    true
}

/// The lane loop of [`fcmp_bits`], with a loop of its own for each frequent
/// predicate (each is [`float::fcmp_holds`] with the predicate fixed).
#[inline(always)]
fn fcmp_lanes(
    pred: FCmpPred,
    a: &BitColumn,
    b: &BitColumn,
    out: &mut BitColumn,
    decode: impl Fn(u64) -> f64,
) {
    let holds = |p: FCmpPred, x: u64, y: u64| u64::from(float::fcmp_holds(p, decode(x), decode(y)));
    match pred {
        FCmpPred::Olt => total_lanes(a, b, out, |x, y| holds(FCmpPred::Olt, x, y)),
        FCmpPred::Ole => total_lanes(a, b, out, |x, y| holds(FCmpPred::Ole, x, y)),
        FCmpPred::Ogt => total_lanes(a, b, out, |x, y| holds(FCmpPred::Ogt, x, y)),
        FCmpPred::Oge => total_lanes(a, b, out, |x, y| holds(FCmpPred::Oge, x, y)),
        FCmpPred::Oeq => total_lanes(a, b, out, |x, y| holds(FCmpPred::Oeq, x, y)),
        FCmpPred::Une => total_lanes(a, b, out, |x, y| holds(FCmpPred::Une, x, y)),
        other => total_lanes(a, b, out, |x, y| holds(other, x, y)),
    }
}

/// [`select_column`] on unboxed columns: an `i1` condition, both operands of one kind.
pub fn select_bits(
    cond: &BitColumn,
    t: &BitColumn,
    f: &BitColumn,
    lanes: usize,
    out: &mut BitColumn,
) -> bool {
    if cond.kind != BitKind::Int(1) || t.kind != f.kind {
        return false;
    }
    out.reshape(t.kind, lanes);
    // Branch-free (conditions vary by lane), patterns and ⊤ flags in loops of their own.
    let patterns = out
        .bits
        .iter_mut()
        .zip(&cond.bits)
        .zip(&t.bits)
        .zip(&f.bits);
    for (((o, &c), &x), &y) in patterns {
        let take = (c & 1).wrapping_neg();
        *o = (x & take) | (y & !take);
    }
    let flags = (out.undef.iter_mut())
        .zip(cond.bits.iter().zip(&cond.undef))
        .zip(t.undef.iter().zip(&f.undef));
    for ((o, (&c, &c_undef)), (&x_undef, &y_undef)) in flags {
        let take = c & 1 == 1;
        *o = c_undef | (take & x_undef) | (!take & y_undef);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Pointer;
    use proptest::prelude::*;
    use std::sync::Arc;

    const WIDTH: usize = 8;

    /// A lane value of roughly type `ty`: mostly well-typed, sometimes ⊤, sometimes
    /// of another shape (which a verified program cannot produce, but the fast forms
    /// must still agree with the per-lane operation on).
    fn lane(ty: TypeData) -> impl Strategy<Value = Val> {
        // Integers are always reduced modulo 2^N of the static type when it is
        // one (an invariant of `Val`, which the per-lane operations rely on).
        let reduce = match ty {
            TypeData::Int(w) => low_mask(w),
            _ => u128::MAX,
        };
        prop_oneof![
            6 => typed_lane(ty),
            2 => Just(Val::Undef),
            1 => any::<u64>().prop_map(Val::F64),
            1 => any::<u8>().prop_map(move |v| Val::Int(u128::from(v) & reduce)),
            1 => Just(Val::Ptr(Pointer { object: None, offset: 8 })),
            1 => Just(Val::Wide(Arc::new(num_bigint::BigUint::from(3u8)))),
        ]
    }

    fn column(ty: TypeData) -> impl Strategy<Value = Vec<Val>> {
        prop::collection::vec(lane(ty), WIDTH)
    }

    fn types() -> impl Strategy<Value = TypeData> {
        prop::sample::select(vec![
            TypeData::F64,
            TypeData::F32,
            TypeData::Int(1),
            TypeData::Int(8),
            TypeData::Int(32),
            TypeData::Int(64),
            TypeData::Int(128),
            TypeData::Int(200),
        ])
    }

    fn flags() -> impl Strategy<Value = IntFlags> {
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
            |(nuw, nsw, exact, disjoint)| IntFlags {
                nuw,
                nsw,
                exact,
                disjoint,
            },
        )
    }

    /// Operands, activation and the prior contents of `out` for one fast form call.
    fn case() -> impl Strategy<Value = (TypeData, Vec<Val>, Vec<Val>, Vec<bool>, Vec<Val>)> {
        types().prop_flat_map(|ty| {
            (
                Just(ty.clone()),
                column(ty.clone()),
                column(ty.clone()),
                prop::collection::vec(any::<bool>(), WIDTH),
                column(ty),
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        #[test]
        fn binary_column_is_the_per_lane_binary(
            op in prop::sample::select(BinOp::ALL.to_vec()),
            flags in flags(),
            (ty, a, b, active, before) in case(),
        ) {
            let mut out = before.clone();
            let got = binary_column(op, flags, &ty, &a, &b, &active, &mut out);
            let mut expect = before.clone();
            let mut first_ub = None;
            for lane in 0..WIDTH {
                if !active[lane] {
                    continue;
                }
                match crate::ops::binary(op, flags, &ty, &a[lane], &b[lane]) {
                    Ok(v) => expect[lane] = v,
                    Err(e) => {
                        first_ub = Some((lane, e));
                        break;
                    }
                }
            }
            match first_ub {
                Some(ub) => prop_assert_eq!(got, Err(ub)),
                None => {
                    prop_assert_eq!(got, Ok(()));
                    prop_assert_eq!(out, expect);
                }
            }
        }

        #[test]
        fn icmp_column_is_the_per_lane_icmp(
            pred in prop::sample::select(ICmpPred::ALL.to_vec()),
            (ty, a, b, active, before) in case(),
        ) {
            let mut out = before.clone();
            icmp_column(pred, &ty, &a, &b, &active, &mut out);
            for lane in 0..WIDTH {
                let expect = if active[lane] {
                    crate::ops::icmp(pred, &ty, &a[lane], &b[lane])
                } else {
                    before[lane].clone()
                };
                prop_assert_eq!(&out[lane], &expect, "lane {}", lane);
            }
        }

        #[test]
        fn fcmp_column_is_the_per_lane_fcmp(
            pred in prop::sample::select(FCmpPred::ALL.to_vec()),
            (ty, a, b, active, before) in case(),
        ) {
            let mut out = before.clone();
            fcmp_column(pred, &ty, &a, &b, &active, &mut out);
            for lane in 0..WIDTH {
                let expect = if active[lane] {
                    crate::ops::fcmp(pred, &ty, &a[lane], &b[lane])
                } else {
                    before[lane].clone()
                };
                prop_assert_eq!(&out[lane], &expect, "lane {}", lane);
            }
        }

        #[test]
        fn select_column_is_the_per_lane_select(
            cond in column(TypeData::Int(1)),
            (_, t, f, active, before) in case(),
        ) {
            let mut out = before.clone();
            select_column(&cond, &t, &f, &active, &mut out);
            for lane in 0..WIDTH {
                let expect = if active[lane] {
                    crate::ops::select(&cond[lane], &t[lane], &f[lane])
                } else {
                    before[lane].clone()
                };
                prop_assert_eq!(&out[lane], &expect, "lane {}", lane);
            }
        }
    }

    /// A lane value that fits the bit column of `ty`: a value of the type or ⊤.
    fn fitting_lane(ty: TypeData) -> BoxedStrategy<Val> {
        prop_oneof![4 => typed_lane(ty), 1 => Just(Val::Undef)].boxed()
    }

    /// A value of type `ty` (any bits, and the edge cases: zeros, NaN, infinity,
    /// all ones, the sign bit alone); ⊤ for types without a lane strategy.
    fn typed_lane(ty: TypeData) -> BoxedStrategy<Val> {
        match ty {
            TypeData::F64 => prop_oneof![
                any::<u64>().prop_map(Val::F64),
                prop::sample::select(vec![0.0f64, -0.0, 1.0, 4.0, f64::NAN, f64::INFINITY])
                    .prop_map(|f| Val::F64(f.to_bits())),
            ]
            .boxed(),
            TypeData::F32 => prop_oneof![
                any::<u32>().prop_map(Val::F32),
                prop::sample::select(vec![0.0f32, -0.0, 1.0, f32::NAN, f32::INFINITY])
                    .prop_map(|f| Val::F32(f.to_bits())),
            ]
            .boxed(),
            TypeData::Int(w) => prop_oneof![
                any::<u128>().prop_map(move |v| Val::Int(v & low_mask(w))),
                (0u128..4).prop_map(move |v| Val::Int(v & low_mask(w))),
                Just(Val::Int(low_mask(w))),
                Just(Val::Int(1u128 << (w.min(128) - 1))),
            ]
            .boxed(),
            _ => Just(Val::Undef).boxed(),
        }
    }

    fn bit_types() -> impl Strategy<Value = TypeData> {
        prop::sample::select(vec![
            TypeData::F64,
            TypeData::F32,
            TypeData::Int(1),
            TypeData::Int(7),
            TypeData::Int(8),
            TypeData::Int(32),
            TypeData::Int(63),
            TypeData::Int(64),
        ])
    }

    /// Two operand columns of one bit type, as bit columns and as the [`Val`]s
    /// they hold, and a bit column of garbage for `out` (its kind and lanes must
    /// not matter).
    #[allow(clippy::type_complexity, reason = "a proptest case")]
    fn bit_case() -> impl Strategy<Value = (TypeData, Vec<Val>, Vec<Val>, BitColumn)> {
        bit_types().prop_flat_map(|ty| {
            (
                Just(ty.clone()),
                prop::collection::vec(fitting_lane(ty.clone()), WIDTH),
                prop::collection::vec(fitting_lane(ty), WIDTH),
                (
                    prop::collection::vec(any::<u64>(), WIDTH),
                    prop::collection::vec(any::<bool>(), WIDTH),
                )
                    .prop_map(|(bits, undef)| BitColumn {
                        kind: BitKind::F32,
                        bits,
                        undef,
                    }),
            )
        })
    }

    fn bits(ty: &TypeData, lanes: &[Val]) -> BitColumn {
        let kind = BitKind::of(ty).expect("a bit type");
        BitColumn::from_vals(kind, lanes).expect("the lanes fit")
    }

    /// The bit loops cover the pairs the interpreter's hot loops use, so the
    /// properties below do not hold vacuously.
    #[test]
    fn bit_kernels_cover_the_common_pairs() {
        let int = |w| BitColumn::from_vals(BitKind::Int(w), &[Val::Int(1)]).expect("fits");
        let f64s = BitColumn::from_vals(BitKind::F64, &[Val::F64(0)]).expect("fits");
        let mut out = BitColumn::undef(BitKind::Int(1), 1);
        let none = IntFlags::default();
        for op in [BinOp::FAdd, BinOp::FSub, BinOp::FMul, BinOp::FDiv] {
            assert!(binary_bits(
                op,
                none,
                &TypeData::F64,
                &f64s,
                &f64s,
                1,
                &mut out
            ));
        }
        for op in [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::And,
            BinOp::Or,
            BinOp::Xor,
            BinOp::Shl,
        ] {
            assert!(binary_bits(
                op,
                none,
                &TypeData::Int(32),
                &int(32),
                &int(32),
                1,
                &mut out
            ));
        }
        assert!(!binary_bits(
            BinOp::SDiv,
            none,
            &TypeData::Int(32),
            &int(32),
            &int(32),
            1,
            &mut out
        ));
        assert!(icmp_bits(
            ICmpPred::Slt,
            &TypeData::Int(32),
            &int(32),
            &int(32),
            1,
            &mut out
        ));
        assert!(fcmp_bits(
            FCmpPred::Olt,
            &TypeData::F64,
            &f64s,
            &f64s,
            1,
            &mut out
        ));
        assert!(select_bits(&int(1), &f64s, &f64s, 1, &mut out));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        #[test]
        fn binary_bits_is_the_per_lane_binary(
            op in prop::sample::select(BinOp::ALL.to_vec()),
            flags in flags(),
            (ty, a, b, mut out) in bit_case(),
        ) {
            if binary_bits(op, flags, &ty, &bits(&ty, &a), &bits(&ty, &b), WIDTH, &mut out) {
                for lane in 0..WIDTH {
                    let expect = crate::ops::binary(op, flags, &ty, &a[lane], &b[lane]);
                    prop_assert_eq!(Ok(out.lane(lane)), expect, "lane {}", lane);
                }
            } else {
                // Only division (which can be undefined) and pairs of a float
                // operator with an integer type or the reverse, or `frem`, are left out.
                let division = matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem);
                let float_type = !matches!(ty, TypeData::Int(_));
                prop_assert!(division || op == BinOp::FRem || op.is_float() != float_type);
            }
        }

        #[test]
        fn icmp_bits_is_the_per_lane_icmp(
            pred in prop::sample::select(ICmpPred::ALL.to_vec()),
            (ty, a, b, mut out) in bit_case(),
        ) {
            let handled = icmp_bits(pred, &ty, &bits(&ty, &a), &bits(&ty, &b), WIDTH, &mut out);
            prop_assert_eq!(handled, matches!(ty, TypeData::Int(_)));
            if handled {
                for lane in 0..WIDTH {
                    let expect = crate::ops::icmp(pred, &ty, &a[lane], &b[lane]);
                    prop_assert_eq!(out.lane(lane), expect, "lane {}", lane);
                }
            }
        }

        #[test]
        fn fcmp_bits_is_the_per_lane_fcmp(
            pred in prop::sample::select(FCmpPred::ALL.to_vec()),
            (ty, a, b, mut out) in bit_case(),
        ) {
            let handled = fcmp_bits(pred, &ty, &bits(&ty, &a), &bits(&ty, &b), WIDTH, &mut out);
            prop_assert_eq!(handled, !matches!(ty, TypeData::Int(_)));
            if handled {
                for lane in 0..WIDTH {
                    let expect = crate::ops::fcmp(pred, &ty, &a[lane], &b[lane]);
                    prop_assert_eq!(out.lane(lane), expect, "lane {}", lane);
                }
            }
        }

        #[test]
        fn select_bits_is_the_per_lane_select(
            cond in prop::collection::vec(fitting_lane(TypeData::Int(1)), WIDTH),
            (ty, t, f, mut out) in bit_case(),
        ) {
            let c = bits(&TypeData::Int(1), &cond);
            prop_assert!(select_bits(&c, &bits(&ty, &t), &bits(&ty, &f), WIDTH, &mut out));
            for lane in 0..WIDTH {
                let expect = crate::ops::select(&cond[lane], &t[lane], &f[lane]);
                prop_assert_eq!(out.lane(lane), expect, "lane {}", lane);
            }
        }
    }
}
