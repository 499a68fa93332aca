//! Per-lane semantics of vector and aggregate values (LLVM LangRef "Vector
//! Operations", "Aggregate Operations") and of `atomicrmw`'s operations.
//!
//! A lane value of type `<N x T>` or of an aggregate type is a [`Val::Agg`] of its
//! elements, each of which may be ⊤ on its own (LLVM's per-element poison); a
//! whole ⊤ ([`Val::Undef`]) stands for N elements that are all ⊤. The element-wise
//! instructions (`bop`, `icmp`, `fcmp`, casts, `select`, `fneg`, `freeze` on
//! vectors) apply the scalar operation of [`super`] to each element in element
//! order; undefined behaviour of one element (a division by zero) is undefined
//! behaviour of the lane. Element indices out of range give ⊤ (LangRef: poison).

use super::int::LaneUb;
use crate::ir::{BinOp, ICmpPred, IntFlags, RmwOp};
use crate::types::{Ty, TypeData, TypeTable};
use crate::value::{Val, elements, low_mask};
use num_bigint::BigUint;

/// The N elements of a vector lane value (⊤ is N times ⊤; a value of another
/// shape, impossible in a verified program, is N times ⊤ too).
pub fn elems(v: &Val, n: u32) -> Vec<Val> {
    elements(v, n as usize).unwrap_or_else(|| vec![Val::Undef; n as usize])
}

/// `f` applied to the elements of one vector: `<f(a0), f(a1), ...>`.
pub fn map1(n: u32, a: &Val, mut f: impl FnMut(&Val) -> Val) -> Val {
    Val::Agg(elems(a, n).iter().map(&mut f).collect())
}

/// `f` applied to the elements of two vectors pairwise; the first element (in
/// element order) whose operation is undefined behaviour ends it.
pub fn map2(
    n: u32,
    a: &Val,
    b: &Val,
    mut f: impl FnMut(&Val, &Val) -> Result<Val, LaneUb>,
) -> Result<Val, LaneUb> {
    let (a, b) = (elems(a, n), elems(b, n));
    let out: Result<Vec<Val>, LaneUb> = a.iter().zip(&b).map(|(x, y)| f(x, y)).collect();
    Ok(Val::Agg(out?.into()))
}

/// `select <N x i1> c, <N x T> t, <N x T> f`: element k is `t[k]` or `f[k]` by
/// `c[k]`, ⊤ where `c[k]` is ⊤.
pub fn select_elems(n: u32, cond: &Val, t: &Val, f: &Val) -> Val {
    let (c, t, f) = (elems(cond, n), elems(t, n), elems(f, n));
    Val::Agg(
        (0..n as usize)
            .map(|k| super::select(&c[k], &t[k], &f[k]))
            .collect(),
    )
}

/// An element index operand as a number (`None` for ⊤).
fn index_of(index: &Val) -> Option<u128> {
    index.as_u128()
}

/// `extractelement <N x T> v, i`: element `i`, ⊤ if `i` is ⊤ or `i ≥ N`.
pub fn extract_element(n: u32, v: &Val, index: &Val) -> Val {
    match index_of(index) {
        Some(i) if i < u128::from(n) => elems(v, n).swap_remove(i as usize),
        _ => Val::Undef,
    }
}

/// `insertelement <N x T> v, e, i`: `v` with element `i` replaced by `e`; the whole
/// result is ⊤ if `i` is ⊤ or `i ≥ N` (LangRef: poison).
pub fn insert_element(n: u32, v: &Val, e: &Val, index: &Val) -> Val {
    match index_of(index) {
        Some(i) if i < u128::from(n) => {
            let mut items = elems(v, n);
            items[i as usize] = e.clone();
            Val::Agg(items.into())
        }
        _ => Val::Undef,
    }
}

/// `shufflevector <N x T> a, <N x T> b, mask`: element k is element `mask[k]` of
/// `a ++ b`; an `undef`/`poison` mask element gives ⊤.
pub fn shuffle(n: u32, a: &Val, b: &Val, mask: &[Option<u32>]) -> Val {
    let both: Vec<Val> = elems(a, n).into_iter().chain(elems(b, n)).collect();
    Val::Agg(
        mask.iter()
            .map(|m| match m {
                Some(k) => both.get(*k as usize).cloned().unwrap_or(Val::Undef),
                None => Val::Undef,
            })
            .collect(),
    )
}

/// `extractvalue T agg, i, j...`: the element at the index path (⊤ if the
/// aggregate, or an aggregate on the way, is ⊤).
pub fn extract_value(types: &TypeTable, ty: Ty, agg: &Val, indices: &[u32]) -> Val {
    let mut current = agg.clone();
    let mut current_ty = ty;
    for &k in indices {
        let count = types.element_count(current_ty) as usize;
        let Some(items) = elements(&current, count) else {
            return Val::Undef;
        };
        let Some(item) = items.get(k as usize) else {
            return Val::Undef;
        };
        current = item.clone();
        current_ty = types
            .element_at(current_ty, u64::from(k))
            .unwrap_or(current_ty);
    }
    current
}

/// `insertvalue T agg, U e, i, j...`: `agg` with the element at the index path
/// replaced by `e` (the other elements are kept, ⊤ ones included).
pub fn insert_value(types: &TypeTable, ty: Ty, agg: &Val, e: &Val, indices: &[u32]) -> Val {
    let Some((&k, rest)) = indices.split_first() else {
        return e.clone();
    };
    let count = types.element_count(ty) as usize;
    let Some(mut items) = elements(agg, count) else {
        return Val::Undef;
    };
    let Some(slot) = items.get_mut(k as usize) else {
        return Val::Undef;
    };
    let elem_ty = types.element_at(ty, u64::from(k)).unwrap_or(ty);
    *slot = insert_value(types, elem_ty, slot, e, rest);
    Val::Agg(items.into())
}

/// `bitcast` where a vector is on either side: the value's bits, element 0 in the
/// lowest bits (LLVM's layout on little-endian targets), reinterpreted as `to`.
/// Elements of the result whose bits overlap a ⊤ element of the operand are ⊤.
/// Pointer elements only cast to pointer elements (the verifier's rule), unchanged.
pub fn bitcast_vector(types: &TypeTable, from: Ty, to: Ty, a: &Val) -> Val {
    let shape = |t: Ty| match types.vector(t) {
        Some((n, elem)) => (n, elem),
        None => (1, t),
    };
    let ((n_from, e_from), (n_to, e_to)) = (shape(from), shape(to));
    if types.is_ptr(e_from) || types.is_ptr(e_to) {
        return a.clone();
    }
    let bits_of = |t: Ty| match types.get(t) {
        TypeData::Int(w) => *w,
        TypeData::F32 => 32,
        TypeData::F64 => 64,
        _ => 0,
    };
    let (w_from, w_to) = (bits_of(e_from), bits_of(e_to));
    let parts: Vec<Val> = match types.vector(from) {
        Some(_) => elems(a, n_from),
        None => vec![a.clone()],
    };
    // The whole bit pattern and which source bit ranges are ⊤.
    let mut bits = BigUint::default();
    let mut undefined: Vec<(u64, u64)> = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        let start = k as u64 * u64::from(w_from);
        let raw = match part {
            Val::Int(v) => Some(BigUint::from(*v)),
            Val::Wide(v) => Some((**v).clone()),
            Val::F32(b) => Some(BigUint::from(*b)),
            Val::F64(b) => Some(BigUint::from(*b)),
            _ => None,
        };
        match raw {
            Some(r) => bits |= r << start,
            None => undefined.push((start, start + u64::from(w_from))),
        }
    }
    let out: Vec<Val> = (0..n_to)
        .map(|k| {
            let start = u64::from(k) * u64::from(w_to);
            let end = start + u64::from(w_to);
            if undefined.iter().any(|&(s, e)| s < end && start < e) {
                return Val::Undef;
            }
            let piece = (&bits >> start) & ((BigUint::from(1u8) << w_to) - 1u8);
            from_bits(types.get(e_to), piece)
        })
        .collect();
    match types.vector(to) {
        Some(_) => Val::Agg(out.into()),
        None => out.into_iter().next().unwrap_or(Val::Undef),
    }
}

/// A scalar of type `ty` from its bit pattern.
fn from_bits(ty: &TypeData, bits: BigUint) -> Val {
    let low = u128::try_from(&bits).unwrap_or(0);
    match ty {
        TypeData::Int(w) => Val::from_biguint(*w, bits),
        TypeData::F32 => Val::F32(low as u32),
        TypeData::F64 => Val::F64(low as u64),
        _ => Val::Undef,
    }
}

/// The value an `atomicrmw op` stores, given the `old` value in memory and the
/// operand `v` (LangRef "atomicrmw Instruction"): `xchg` stores `v`; the integer
/// operations wrap; `max`/`min` compare signed, `umax`/`umin` unsigned; `fmax`/
/// `fmin` are `llvm.maxnum`/`llvm.minnum` (a NaN operand yields the other one);
/// `uinc_wrap` stores `old ≥ v ? 0 : old + 1`, `udec_wrap` stores
/// `old = 0 ∨ old > v ? v : old − 1`. ⊤ in either gives ⊤.
pub fn rmw(op: RmwOp, ty: &TypeData, old: &Val, v: &Val) -> Val {
    if old.is_undef() || v.is_undef() {
        return Val::Undef;
    }
    let bin = |b: BinOp, x: &Val, y: &Val| {
        super::binary(b, IntFlags::default(), ty, x, y).unwrap_or(Val::Undef)
    };
    let holds = |p: ICmpPred, x: &Val, y: &Val| super::icmp(p, ty, x, y).as_bool();
    let pick = |c: Option<bool>, x: &Val, y: &Val| match c {
        Some(true) => x.clone(),
        Some(false) => y.clone(),
        None => Val::Undef,
    };
    let one = || match ty {
        TypeData::Int(w) => Val::from_biguint(*w, BigUint::from(1u8)),
        _ => Val::Undef,
    };
    match op {
        RmwOp::Xchg => v.clone(),
        RmwOp::Add => bin(BinOp::Add, old, v),
        RmwOp::Sub => bin(BinOp::Sub, old, v),
        RmwOp::And => bin(BinOp::And, old, v),
        RmwOp::Or => bin(BinOp::Or, old, v),
        RmwOp::Xor => bin(BinOp::Xor, old, v),
        RmwOp::Nand => {
            let all_ones = match ty {
                TypeData::Int(w) if *w <= 128 => Val::Int(low_mask(*w)),
                TypeData::Int(w) => {
                    Val::from_biguint(*w, (BigUint::from(1u8) << *w) - BigUint::from(1u8))
                }
                _ => Val::Undef,
            };
            bin(BinOp::Xor, &bin(BinOp::And, old, v), &all_ones)
        }
        RmwOp::Max => pick(holds(ICmpPred::Sgt, old, v), old, v),
        RmwOp::Min => pick(holds(ICmpPred::Slt, old, v), old, v),
        RmwOp::UMax => pick(holds(ICmpPred::Ugt, old, v), old, v),
        RmwOp::UMin => pick(holds(ICmpPred::Ult, old, v), old, v),
        RmwOp::FAdd => bin(BinOp::FAdd, old, v),
        RmwOp::FSub => bin(BinOp::FSub, old, v),
        RmwOp::FMax | RmwOp::FMin => {
            let (Some(x), Some(y)) = (old.as_f64(), v.as_f64()) else {
                return Val::Undef;
            };
            if x.is_nan() {
                return v.clone();
            }
            if y.is_nan() {
                return old.clone();
            }
            // maxnum/minnum may order -0 and +0 either way; pllvm takes +0 for
            // max and -0 for min (what IEEE 754-2019 maximumNumber does).
            let first = if op == RmwOp::FMax {
                x > y || (x == y && x.is_sign_positive())
            } else {
                x < y || (x == y && x.is_sign_negative())
            };
            if first { old.clone() } else { v.clone() }
        }
        RmwOp::UIncWrap => match holds(ICmpPred::Uge, old, v) {
            Some(true) => crate::value::zero_of_data(ty),
            Some(false) => bin(BinOp::Add, old, &one()),
            None => Val::Undef,
        },
        RmwOp::UDecWrap => {
            let zero = crate::value::zero_of_data(ty);
            match (
                holds(ICmpPred::Eq, old, &zero),
                holds(ICmpPred::Ugt, old, v),
            ) {
                (Some(a), Some(b)) if a || b => v.clone(),
                (Some(_), Some(_)) => bin(BinOp::Sub, old, &one()),
                _ => Val::Undef,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(xs: &[u128]) -> Val {
        Val::Agg(xs.iter().map(|&x| Val::Int(x)).collect())
    }

    #[test]
    fn element_access_and_shuffles() {
        let v = ints(&[10, 20, 30, 40]);
        assert_eq!(extract_element(4, &v, &Val::Int(2)), Val::Int(30));
        assert_eq!(extract_element(4, &v, &Val::Int(4)), Val::Undef);
        assert_eq!(extract_element(4, &v, &Val::Undef), Val::Undef);
        assert_eq!(
            insert_element(4, &v, &Val::Int(7), &Val::Int(0)),
            ints(&[7, 20, 30, 40])
        );
        assert_eq!(
            insert_element(4, &v, &Val::Int(7), &Val::Int(9)),
            Val::Undef
        );
        let w = ints(&[1, 2, 3, 4]);
        assert_eq!(
            shuffle(4, &v, &w, &[Some(7), Some(0), None]),
            Val::Agg(vec![Val::Int(4), Val::Int(10), Val::Undef].into())
        );
        // ⊤ as a whole is ⊤ per element.
        assert_eq!(
            insert_element(2, &Val::Undef, &Val::Int(1), &Val::Int(1)),
            Val::Agg(vec![Val::Undef, Val::Int(1)].into())
        );
    }

    #[test]
    fn aggregates() {
        let mut t = TypeTable::new();
        let inner = t.intern(TypeData::Array(2, TypeTable::I32));
        let s = t.intern(TypeData::Struct {
            fields: vec![TypeTable::I8, inner],
            packed: false,
        });
        let v = Val::Agg(vec![Val::Int(1), ints(&[2, 3])].into());
        assert_eq!(extract_value(&t, s, &v, &[1, 1]), Val::Int(3));
        assert_eq!(
            insert_value(&t, s, &v, &Val::Int(9), &[1, 0]),
            Val::Agg(vec![Val::Int(1), ints(&[9, 3])].into())
        );
        assert_eq!(
            insert_value(&t, s, &Val::Undef, &Val::Int(5), &[0]),
            Val::Agg(vec![Val::Int(5), Val::Undef].into())
        );
    }

    #[test]
    fn bitcasts_keep_bits_and_track_undefined_elements() {
        let mut t = TypeTable::new();
        let v4i8 = t.intern(TypeData::Vector(4, TypeTable::I8));
        let x = ints(&[0x01, 0x02, 0x03, 0x04]);
        assert_eq!(
            bitcast_vector(&t, v4i8, TypeTable::I32, &x),
            Val::Int(0x0403_0201)
        );
        let back = bitcast_vector(&t, TypeTable::I32, v4i8, &Val::Int(0x0403_0201));
        assert_eq!(back, x);
        let partly = Val::Agg(vec![Val::Int(1), Val::Undef, Val::Int(3), Val::Int(4)].into());
        let i16t = t.int(16);
        let v2i16 = t.intern(TypeData::Vector(2, i16t));
        assert_eq!(
            bitcast_vector(&t, v4i8, v2i16, &partly),
            Val::Agg(vec![Val::Undef, Val::Int(0x0403)].into())
        );
    }

    #[test]
    fn atomic_operations() {
        let i8t = TypeData::Int(8);
        let r = |op, old: u128, v: u128| rmw(op, &i8t, &Val::Int(old), &Val::Int(v));
        assert_eq!(r(RmwOp::Xchg, 5, 9), Val::Int(9));
        assert_eq!(r(RmwOp::Add, 250, 9), Val::Int(3));
        assert_eq!(r(RmwOp::Sub, 1, 2), Val::Int(255));
        assert_eq!(r(RmwOp::Nand, 0b1100, 0b1010), Val::Int(0b1111_0111));
        assert_eq!(r(RmwOp::Max, 0xff, 1), Val::Int(1)); // -1 < 1 signed
        assert_eq!(r(RmwOp::UMax, 0xff, 1), Val::Int(0xff));
        assert_eq!(r(RmwOp::Min, 0xff, 1), Val::Int(0xff));
        assert_eq!(r(RmwOp::UMin, 0xff, 1), Val::Int(1));
        assert_eq!(r(RmwOp::UIncWrap, 3, 3), Val::Int(0));
        assert_eq!(r(RmwOp::UIncWrap, 2, 3), Val::Int(3));
        assert_eq!(r(RmwOp::UDecWrap, 0, 3), Val::Int(3));
        assert_eq!(r(RmwOp::UDecWrap, 5, 3), Val::Int(3));
        assert_eq!(r(RmwOp::UDecWrap, 2, 3), Val::Int(1));
        let f = |x: f32| Val::F32(x.to_bits());
        let ft = TypeData::F32;
        assert_eq!(rmw(RmwOp::FAdd, &ft, &f(1.5), &f(2.0)), f(3.5));
        assert_eq!(rmw(RmwOp::FMax, &ft, &f(f32::NAN), &f(2.0)), f(2.0));
        assert_eq!(rmw(RmwOp::FMin, &ft, &f(1.0), &f(2.0)), f(1.0));
        assert_eq!(rmw(RmwOp::Add, &i8t, &Val::Undef, &Val::Int(1)), Val::Undef);
    }
}
