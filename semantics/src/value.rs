//! Run-time values 𝒱 of one lane, including ⊤ (undef), and constants turned into them.
//!
//! Integers up to 128 bits are held in a `u128`, wider ones in a `BigUint`; both
//! are kept reduced modulo 2^N (the width comes from the static type, never from the
//! value). Floats are held as IEEE bit patterns so that values compare and hash by
//! identity (the rules need `Eq` for state hashing; NaN *comparisons* are `fcmp`'s
//! business, done on the decoded float). Pointers carry provenance (§4.9.1: "each
//! returned pointer is the base pointer to a memory buffer"): an object and a byte
//! offset into it. P-LLVM has one undefined value ⊤; LLVM's `undef` and `poison`
//! both become it.

use crate::types::{Ty, TypeData, TypeTable};
use num_bigint::BigUint;
use std::fmt;
use std::sync::Arc;

/// A memory object (the provenance part of a pointer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct ObjectId(pub u32);

/// A pointer: `object` is `None` for pointers without provenance (`null`,
/// `inttoptr` of an address that names no object); `offset` is a byte offset into
/// the object (or the raw address when there is no object).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pointer {
    /// The object the pointer was derived from.
    pub object: Option<ObjectId>,
    /// Byte offset within it (wrapping 64-bit arithmetic).
    pub offset: u64,
}

/// The value of one lane.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Val {
    /// ⊤: undef / poison, also what passive lanes hold under OBLIVIOUS.
    Undef,
    /// An integer of width ≤ 128, reduced modulo 2^width.
    Int(u128),
    /// An integer of width > 128, reduced modulo 2^width.
    Wide(Arc<BigUint>),
    /// A `float` as its bit pattern.
    F32(u32),
    /// A `double` as its bit pattern.
    F64(u64),
    /// A pointer.
    Ptr(Pointer),
    /// A `half` as its bit pattern.
    F16(u16),
    /// A `bfloat` as its bit pattern.
    BF16(u16),
    /// A vector `<N x T>` or an aggregate (struct, array) value: its elements in
    /// order, each possibly ⊤ on its own (LLVM's per-element poison). ⊤ of such a
    /// type ([`Val::Undef`]) means every element is ⊤ ([`elements`]).
    Agg(Arc<[Val]>),
}

impl crate::half::Small {
    /// The lane value of bit pattern `bits` in this format (here rather than in
    /// [`crate::half`], which knows bit patterns only and imports no lane values).
    pub fn val(self, bits: u16) -> Val {
        match self {
            crate::half::Small::Half => Val::F16(bits),
            crate::half::Small::BFloat => Val::BF16(bits),
        }
    }
}

impl Val {
    /// The `i1` value for `b`.
    pub fn bool(b: bool) -> Val {
        Val::Int(u128::from(b))
    }
    /// Whether this is ⊤.
    pub fn is_undef(&self) -> bool {
        matches!(self, Val::Undef)
    }
    /// The truth of an `i1`, `None` for ⊤ (or a non-integer).
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Val::Int(v) => Some(*v & 1 == 1),
            _ => None,
        }
    }
    /// The integer as a `BigUint`, for any width.
    pub fn as_biguint(&self) -> Option<BigUint> {
        match self {
            Val::Int(v) => Some(BigUint::from(*v)),
            Val::Wide(v) => Some((**v).clone()),
            _ => None,
        }
    }
    /// The integer if it fits a `u128`.
    pub fn as_u128(&self) -> Option<u128> {
        match self {
            Val::Int(v) => Some(*v),
            Val::Wide(v) => u128::try_from(&**v).ok(),
            _ => None,
        }
    }
    /// An integer of `width` bits from a bit pattern already reduced modulo 2^width.
    pub fn from_biguint(width: u32, bits: BigUint) -> Val {
        if width <= 128 {
            Val::Int(u128::try_from(&bits).unwrap_or(0))
        } else {
            Val::Wide(Arc::new(bits))
        }
    }
    /// The `float` / `double` value, `None` for ⊤ or non-floats.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Val::F32(b) => Some(f64::from(f32::from_bits(*b))),
            Val::F16(b) => Some(crate::half::to_f64(crate::half::Small::Half, *b)),
            Val::BF16(b) => Some(crate::half::to_f64(crate::half::Small::BFloat, *b)),
            Val::F64(b) => Some(f64::from_bits(*b)),
            _ => None,
        }
    }
}

/// Bit mask of the low `width` bits (`width` ≤ 128).
pub fn low_mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// Reduces a `BigUint` modulo 2^width.
pub fn wrap_biguint(width: u32, v: &BigUint) -> BigUint {
    if v.bits() <= u64::from(width) {
        v.clone()
    } else {
        v & ((BigUint::from(1u8) << width) - 1u8)
    }
}

/// The all-zero value of a type (`zeroinitializer`, and `freeze ⊤`): vectors and
/// aggregates get all-zero elements.
pub fn zero_of(types: &TypeTable, ty: Ty) -> Val {
    match types.get(ty) {
        TypeData::Vector(..) | TypeData::Array(..) | TypeData::Struct { .. } => {
            let n = types.element_count(ty);
            let elems: Vec<Val> = (0..n)
                .map(|k| {
                    types
                        .element_at(ty, k)
                        .map_or(Val::Undef, |e| zero_of(types, e))
                })
                .collect();
            Val::Agg(elems.into())
        }
        other => zero_of_data(other),
    }
}

/// The elements of a vector or aggregate value with `n` elements: ⊤ is `n` times
/// ⊤ (per-element poison), a scalar is not an aggregate (`None`).
pub fn elements(v: &Val, n: usize) -> Option<Vec<Val>> {
    match v {
        Val::Agg(items) if items.len() == n => Some(items.to_vec()),
        Val::Undef => Some(vec![Val::Undef; n]),
        _ => None,
    }
}

/// The all-zero value of a scalar type given by its [`TypeData`] (⊤ for types that
/// hold no scalar).
pub fn zero_of_data(ty: &TypeData) -> Val {
    match ty {
        TypeData::Int(w) if *w > 128 => Val::Wide(Arc::new(BigUint::default())),
        TypeData::Int(_) => Val::Int(0),
        TypeData::F32 => Val::F32(0),
        TypeData::F64 => Val::F64(0),
        TypeData::F16 => Val::F16(0),
        TypeData::BF16 => Val::BF16(0),
        TypeData::Ptr(_) => Val::Ptr(Pointer {
            object: None,
            offset: 0,
        }),
        _ => Val::Undef,
    }
}

/// Prints a lane value for traces and results: integers in decimal (unsigned), floats
/// as Rust prints them (`1.5`, `NaN`, `inf`), pointers as `&obj+off` or `0x..`, ⊤ as `⊤`,
/// vectors and aggregates as `<e0, e1, ...>`.
impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Undef => write!(f, "⊤"),
            Val::Int(v) => write!(f, "{v}"),
            Val::Wide(v) => write!(f, "{v}"),
            Val::F32(b) => write!(f, "{:?}", f32::from_bits(*b)),
            Val::F64(b) => write!(f, "{:?}", f64::from_bits(*b)),
            Val::F16(_) | Val::BF16(_) => write!(f, "{:?}", self.as_f64().unwrap_or(f64::NAN)),
            Val::Ptr(Pointer {
                object: Some(o),
                offset,
            }) => write!(f, "&{}+{}", o.0, offset),
            Val::Ptr(Pointer {
                object: None,
                offset,
            }) => write!(f, "0x{offset:x}"),
            Val::Agg(items) => {
                write!(f, "<")?;
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{item}")?;
                }
                write!(f, ">")
            }
        }
    }
}

/// Prints `v` as a signed integer of `width` bits when it is an integer (for
/// results of `iN` functions, which the corpus writes in signed decimal).
pub fn display_signed(v: &Val, width: u32) -> String {
    match v {
        Val::Int(bits) if width <= 128 => {
            if width == 0 {
                return "0".into();
            }
            let sign = (bits >> (width - 1)) & 1 == 1;
            if sign && width > 1 {
                let mag = (!bits).wrapping_add(1) & low_mask(width);
                format!("-{mag}")
            } else {
                format!("{bits}")
            }
        }
        other => other.to_string(),
    }
}

/// Bits of an integer address that hold the offset within an object; the bits
/// above name the object (plus one, so that address 0 stays null). This is how
/// `ptrtoint` and `inttoptr` round-trip provenance.
pub const OFFSET_BITS: u32 = 40;

impl Pointer {
    /// The integer address `ptrtoint` yields: `(object + 1) << 40 | offset`, or the
    /// raw offset for a pointer without provenance.
    pub fn address(self) -> u64 {
        match self.object {
            Some(o) => ((u64::from(o.0) + 1) << OFFSET_BITS).wrapping_add(self.offset),
            None => self.offset,
        }
    }
    /// The pointer `inttoptr` yields for `address` (the inverse of [`Pointer::address`]
    /// for offsets below 2^40); whether the object exists is checked on access.
    pub fn from_address(address: u64) -> Pointer {
        let object = address >> OFFSET_BITS;
        if object == 0 {
            Pointer {
                object: None,
                offset: address,
            }
        } else {
            Pointer {
                object: Some(ObjectId((object - 1) as u32)),
                offset: address & ((1u64 << OFFSET_BITS) - 1),
            }
        }
    }
}
