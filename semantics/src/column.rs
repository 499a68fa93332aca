//! How Δ^W holds one value's W lanes: a *column*.
//!
//! The thesis's Δ^W maps each value to W lane values (Def. 2); nothing in it says
//! how they are stored. pllvm stores them in one of two ways, chosen once per value
//! from its static type when the environment is created ([`Column::undef`]):
//!
//! - integers of at most 64 bits, `float` and `double` as a [`BitColumn`]: one
//!   `u64` bit pattern per lane and a ⊤ flag per lane (a ⊤ lane's pattern means
//!   nothing: equality and hashing ignore it, so two columns with the same lanes
//!   are equal and hash alike);
//! - every other type (wider integers, pointers) as one [`Val`] per lane.
//!
//! Both hold exactly the lane values of 𝒱 (ints reduced modulo 2^N, floats as IEEE
//! bit patterns, ⊤); [`Column::lane`] gives lane τ as a [`Val`] whichever way it is
//! stored. The unboxed form exists for speed: the column loops of
//! [`crate::fast::column`] run over plain `u64` arrays instead of dispatching on
//! each lane's variant. A lane value that does not fit a bit column's type (a
//! pointer where an `i64` was declared, which verified programs never produce)
//! turns the column into a [`Val`] column ([`Column::set_lane`]): slower, still
//! exact.

use crate::types::TypeData;
use crate::value::{Val, low_mask};
use std::borrow::Cow;

/// The lane type of a [`BitColumn`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitKind {
    /// An integer of this many bits (1..=64), the pattern reduced modulo 2^N.
    Int(u32),
    /// A `float`, its bit pattern in the low 32 bits.
    F32,
    /// A `double`.
    F64,
}

impl BitKind {
    /// The bit-column kind of a type, `None` for types held as [`Val`]s.
    pub fn of(ty: &TypeData) -> Option<BitKind> {
        match *ty {
            TypeData::Int(w) if (1..=64).contains(&w) => Some(BitKind::Int(w)),
            TypeData::F32 => Some(BitKind::F32),
            TypeData::F64 => Some(BitKind::F64),
            _ => None,
        }
    }

    /// The lane value of a defined lane's pattern.
    #[inline]
    pub fn decode(self, bits: u64) -> Val {
        match self {
            BitKind::Int(_) => Val::Int(u128::from(bits)),
            BitKind::F32 => Val::F32(bits as u32),
            BitKind::F64 => Val::F64(bits),
        }
    }

    /// The pattern of a lane value: `Some(None)` for ⊤, `None` when the value is
    /// not one of this kind's values.
    #[inline]
    pub fn encode(self, v: &Val) -> Option<Option<u64>> {
        match (self, v) {
            (_, Val::Undef) => Some(None),
            (BitKind::Int(w), Val::Int(x)) if *x <= low_mask(w) => Some(Some(*x as u64)),
            (BitKind::F32, Val::F32(b)) => Some(Some(u64::from(*b))),
            (BitKind::F64, Val::F64(b)) => Some(Some(*b)),
            _ => None,
        }
    }
}

/// A column of unboxed lanes: `bits[τ]` is lane τ's pattern unless `undef[τ]`
/// (then the lane is ⊤ and `bits[τ]` is whatever a fast form left there: the fast forms
/// do not spend a select per lane on it, and equality and hashing skip it).
#[derive(Clone, Debug)]
pub struct BitColumn {
    /// What the patterns are.
    pub kind: BitKind,
    /// One pattern per lane.
    pub bits: Vec<u64>,
    /// One ⊤ flag per lane.
    pub undef: Vec<bool>,
}

impl PartialEq for BitColumn {
    fn eq(&self, other: &BitColumn) -> bool {
        self.kind == other.kind
            && self.undef == other.undef
            && self.bits.len() == other.bits.len()
            && (0..self.bits.len()).all(|l| self.undef[l] || self.bits[l] == other.bits[l])
    }
}

impl Eq for BitColumn {}

impl std::hash::Hash for BitColumn {
    /// The kind, the width and one word folded from the lanes (a ⊤ lane folds a
    /// constant, any other lane its pattern), so that hashing a state of W lanes
    /// costs one hasher write per column, not one per lane: equal columns fold
    /// to equal words, and the greedy checks hash whole states at every choice.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.kind.hash(state);
        state.write_usize(self.bits.len());
        // A sum of independent per-lane mixes (the lane's number mixed in), so
        // the lanes need not wait for one another.
        let fold = self.bits.iter().zip(&self.undef).zip(0u64..).fold(
            0u64,
            |acc, ((&bits, &undef), lane)| {
                let word = if undef { 0x9e37_79b9_7f4a_7c15 } else { bits };
                let mixed = (word ^ lane.wrapping_mul(0x243f_6a88_85a3_08d3))
                    .wrapping_mul(0x5851_f42d_4c95_7f2d);
                acc.wrapping_add(mixed ^ (mixed >> 29))
            },
        );
        state.write_u64(fold);
    }
}

impl BitColumn {
    /// W lanes of ⊤.
    pub fn undef(kind: BitKind, width: usize) -> BitColumn {
        BitColumn {
            kind,
            bits: vec![0; width],
            undef: vec![true; width],
        }
    }

    /// Makes this a `kind` column of `width` lanes, reusing its storage; lanes that
    /// were there keep their patterns (the caller overwrites what it uses).
    pub fn reshape(&mut self, kind: BitKind, width: usize) {
        self.kind = kind;
        self.bits.resize(width, 0);
        self.undef.resize(width, true);
    }

    /// Lane τ as a [`Val`].
    #[inline]
    pub fn lane(&self, lane: usize) -> Val {
        if self.undef[lane] {
            Val::Undef
        } else {
            self.kind.decode(self.bits[lane])
        }
    }

    /// Lane τ as a pattern, `None` for ⊤.
    #[inline]
    pub fn get(&self, lane: usize) -> Option<u64> {
        (!self.undef[lane]).then(|| self.bits[lane])
    }

    /// Sets lane τ to a pattern, or to ⊤ for `None`.
    #[inline]
    pub fn set(&mut self, lane: usize, bits: Option<u64>) {
        self.bits[lane] = bits.unwrap_or(0);
        self.undef[lane] = bits.is_none();
    }

    /// The lanes of a [`Val`] column, if every lane is one of `kind`'s values.
    pub fn from_vals(kind: BitKind, vals: &[Val]) -> Option<BitColumn> {
        let mut column = BitColumn::undef(kind, vals.len());
        for (lane, v) in vals.iter().enumerate() {
            column.set(lane, kind.encode(v)?);
        }
        Some(column)
    }
}

/// One value's W lanes in Δ^W.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Column {
    /// Any type: one [`Val`] per lane.
    Vals(Vec<Val>),
    /// Integers up to 64 bits and floats, unboxed.
    Bits(BitColumn),
}

impl Column {
    /// W lanes of ⊤ in the form values of type `ty` are kept in.
    pub fn undef(ty: &TypeData, width: usize) -> Column {
        match BitKind::of(ty) {
            Some(kind) => Column::Bits(BitColumn::undef(kind, width)),
            None => Column::Vals(vec![Val::Undef; width]),
        }
    }

    /// The lanes `vals` of a value of type `ty`, in that type's form (as [`Val`]s
    /// when a lane does not fit it).
    pub fn from_vals(ty: &TypeData, vals: Vec<Val>) -> Column {
        match BitKind::of(ty).and_then(|kind| BitColumn::from_vals(kind, &vals)) {
            Some(bits) => Column::Bits(bits),
            None => Column::Vals(vals),
        }
    }

    /// W.
    pub fn len(&self) -> usize {
        match self {
            Column::Vals(v) => v.len(),
            Column::Bits(b) => b.bits.len(),
        }
    }

    /// Whether the column has no lanes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lane τ.
    #[inline]
    pub fn lane(&self, lane: usize) -> Val {
        match self {
            Column::Vals(v) => v[lane].clone(),
            Column::Bits(b) => b.lane(lane),
        }
    }

    /// The truth of lane τ as an `i1` ([`Val::as_bool`]) without building the value.
    #[inline]
    pub fn lane_bool(&self, lane: usize) -> Option<bool> {
        match self {
            Column::Vals(v) => v[lane].as_bool(),
            Column::Bits(b) => match b.kind {
                BitKind::Int(_) => b.get(lane).map(|x| x & 1 == 1),
                BitKind::F32 | BitKind::F64 => None,
            },
        }
    }

    /// All lanes as [`Val`]s (borrowed when they are stored that way).
    pub fn vals(&self) -> Cow<'_, [Val]> {
        match self {
            Column::Vals(v) => Cow::Borrowed(v),
            Column::Bits(b) => Cow::Owned((0..b.bits.len()).map(|l| b.lane(l)).collect()),
        }
    }

    /// Sets lane τ to `v`. A value that does not fit a bit column turns the
    /// column into a [`Val`] column first.
    pub fn set_lane(&mut self, lane: usize, v: Val) {
        match self {
            Column::Vals(vals) => vals[lane] = v,
            Column::Bits(b) => match b.kind.encode(&v) {
                Some(bits) => b.set(lane, bits),
                None => {
                    let mut vals = self.vals().into_owned();
                    vals[lane] = v;
                    *self = Column::Vals(vals);
                }
            },
        }
    }
}

/// A column being written: the result res^W of a command, or a phi's new lanes.
#[derive(Debug)]
pub enum ColumnMut<'a> {
    /// [`Val`] lanes.
    Vals(&'a mut Vec<Val>),
    /// Unboxed lanes.
    Bits(&'a mut BitColumn),
}

impl ColumnMut<'_> {
    /// Lane τ.
    #[inline]
    pub fn lane(&self, lane: usize) -> Val {
        match self {
            ColumnMut::Vals(v) => v[lane].clone(),
            ColumnMut::Bits(b) => b.lane(lane),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Pointer;

    #[test]
    fn lanes_round_trip_through_bit_columns() {
        let vals = vec![
            Val::Int(5),
            Val::Undef,
            Val::Int(u128::from(u32::MAX)),
            Val::Int(0),
        ];
        let column = Column::from_vals(&TypeData::Int(32), vals.clone());
        assert!(matches!(column, Column::Bits(_)));
        assert_eq!(column.vals().into_owned(), vals);
        assert_eq!(column.lane_bool(3), Some(false));
        assert_eq!(column.lane_bool(1), None);
        let floats = vec![Val::F64(1.5f64.to_bits()), Val::Undef];
        assert_eq!(
            Column::from_vals(&TypeData::F64, floats.clone())
                .vals()
                .into_owned(),
            floats
        );
    }

    #[test]
    fn a_value_that_does_not_fit_keeps_its_lanes_as_vals() {
        // An unreduced pattern, and a pointer where an integer was declared.
        let wide = Column::from_vals(&TypeData::Int(8), vec![Val::Int(256)]);
        assert_eq!(wide, Column::Vals(vec![Val::Int(256)]));
        let mut column = Column::undef(&TypeData::Int(64), 2);
        let p = Val::Ptr(Pointer {
            object: None,
            offset: 8,
        });
        column.set_lane(1, p.clone());
        assert_eq!(column, Column::Vals(vec![Val::Undef, p]));
    }

    #[test]
    fn the_pattern_of_an_undefined_lane_does_not_count() {
        use std::hash::{BuildHasher, RandomState};
        let mut a = BitColumn::undef(BitKind::Int(16), 2);
        a.bits[0] = 7;
        let b = BitColumn::undef(BitKind::Int(16), 2);
        assert_eq!(a, b);
        let hasher = RandomState::new();
        assert_eq!(hasher.hash_one(&a), hasher.hash_one(&b));
        a.undef[0] = false;
        assert_ne!(a, b);
    }
}
