//! Column kernels: one scalar instruction over all lanes of a thread array at once,
//! for [W-INST-LLVM] (thesis §4.9: "each thread executes it independently according
//! to regular LLVM semantics").
//!
//! Each kernel computes, for every active lane τ, exactly what the per-lane
//! operation of this module's parent computes on lane τ's operands (`out[τ] =
//! binary(op, flags, ty, a[τ], b[τ])`, and so on), and leaves passive lanes of
//! `out` as they are. The kernels only hoist the dispatch on the opcode and the
//! type out of the lane loop: the frequent (opcode, type) pairs (`double` and
//! `float` arithmetic and `fcmp`, integer arithmetic and `icmp` up to 128 bits)
//! get a loop of their own; every other pair runs the per-lane operation in a loop.
//! The unit tests compare every kernel with the per-lane operation on random
//! columns, ⊤ included.

use super::{LaneUb, float, int};
use crate::ir::{BinOp, FCmpPred, ICmpPred, IntFlags};
use crate::types::TypeData;
use crate::value::{Val, low_mask};

/// `op [flags] ty a, b` in every active lane: `out[τ] = binary(op, flags, ty, a[τ],
/// b[τ])` ([`super::binary`]). The first lane (in lane order) whose operation is
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
            *o = super::binary(op, flags, ty, x, y).map_err(|e| (lane, e))?;
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
/// ([`super::icmp`]). Two `Int` operands of a type up to 128 bits are compared in
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
                _ => super::icmp(pred, ty, x, y),
            };
        }
    }
}

/// `fcmp pred ty a, b` in every active lane: `out[τ] = fcmp(pred, ty, a[τ], b[τ])`
/// ([`super::fcmp`]). Two `F64` operands of a `double` comparison are compared in
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
                _ => super::fcmp(pred, ty, x, y),
            };
        }
    }
}

/// `select i1 cond, ty t, ty f` in every active lane: `out[τ] = select(cond[τ],
/// t[τ], f[τ])` ([`super::select`]).
pub fn select_column(cond: &[Val], t: &[Val], f: &[Val], active: &[bool], out: &mut [Val]) {
    for ((((o, c), x), y), &on) in out.iter_mut().zip(cond).zip(t).zip(f).zip(active) {
        if on {
            *o = super::select(c, x, y);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Pointer;
    use proptest::prelude::*;
    use std::sync::Arc;

    const WIDTH: usize = 8;

    /// A lane value of roughly type `ty`: mostly well-typed, sometimes ⊤, sometimes
    /// of another shape (which a verified program cannot produce, but the kernels
    /// must still agree with the per-lane operation on).
    fn lane(ty: TypeData) -> impl Strategy<Value = Val> {
        // Integers are always reduced modulo 2^N of the static type when it is
        // one (an invariant of `Val`, which the per-lane operations rely on).
        let reduce = match ty {
            TypeData::Int(w) => low_mask(w),
            _ => u128::MAX,
        };
        let typed: BoxedStrategy<Val> = match ty {
            TypeData::F64 => prop_oneof![
                any::<u64>().prop_map(Val::F64),
                prop::sample::select(vec![0.0f64, -0.0, 1.0, 4.0, f64::NAN, f64::INFINITY])
                    .prop_map(|f| Val::F64(f.to_bits())),
            ]
            .boxed(),
            TypeData::F32 => any::<u32>().prop_map(Val::F32).boxed(),
            TypeData::Int(w) => prop_oneof![
                any::<u128>().prop_map(move |v| Val::Int(v & low_mask(w))),
                (0u128..4).prop_map(move |v| Val::Int(v & low_mask(w))),
                Just(Val::Int(low_mask(w))),
            ]
            .boxed(),
            _ => Just(Val::Undef).boxed(),
        };
        prop_oneof![
            6 => typed,
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

    /// Operands, activation and the prior contents of `out` for one kernel call.
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
}
