//! Types of P-LLVM values (thesis Fig. 4.2 `typ ::= intN | fpN | ...`), interned per module.
//!
//! The subset is what LLVM IR kernels need: `iN` for any N in 1..=[`MAX_INT_WIDTH`],
//! IEEE `half`, `float`, `double` and `bfloat`, opaque `ptr` in any address space, arrays
//! and (packed) structs for `alloca` / `getelementptr` / globals and as SSA values
//! (`extractvalue` / `insertvalue`), vectors `<N x T>` of integers, floats and
//! pointers, `void`, and `label` (only as the type of branch targets in the text).
//! Vectors are laid out as LLVM's x86-64 and AMDGPU data layouts lay them out:
//! elements packed at their store size, the whole aligned to its size rounded up
//! to a power of two (capped at 64 bytes), so `<3 x i32>` takes 16 bytes. Layout follows the x86-64 /
//! AArch64 / AMDGPU data layouts for this subset: integers take the next power of
//! two bytes at most 16 and are aligned to that, wider integers are 16-aligned,
//! `ptr` is 8 bytes (all address spaces: the interpreter's pointers are abstract).

use crate::entity;
use std::collections::HashMap;

/// The widest integer type the parser accepts (at least 4096 bits are required).
pub const MAX_INT_WIDTH: u32 = 1 << 16;

/// The longest vector type `<N x T>` the parser accepts.
pub const MAX_VECTOR_LEN: u32 = 1 << 16;

entity!(
    /// An interned type of a [`TypeTable`].
    Ty,
    "ty"
);

/// What a type is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeData {
    /// `void`: the type of calls and functions without a result.
    Void,
    /// `iN`, N in 1..=[`MAX_INT_WIDTH`].
    Int(u32),
    /// `float` (IEEE binary32).
    F32,
    /// `double` (IEEE binary64).
    F64,
    /// `half` (IEEE binary16).
    F16,
    /// `bfloat` (bfloat16: binary32's top 16 bits).
    BF16,
    /// `ptr` or `ptr addrspace(N)`.
    Ptr(u32),
    /// `[N x T]`.
    Array(u64, Ty),
    /// `{ T, ... }` or `<{ T, ... }>` (packed).
    Struct {
        /// Field types in order.
        fields: Vec<Ty>,
        /// Whether `<{ }>` (no padding).
        packed: bool,
    },
    /// `label`: the type of a block operand.
    Label,
    /// `<N x T>`, T an integer, float or pointer type: one lane value holding N
    /// elements (not to be confused with the W lanes of P-LLVM).
    Vector(u32, Ty),
    /// `token`: the result of the convergence-control intrinsics, used only as an
    /// operand bundle's operand (no size, not stored; docs/language.md).
    Token,
}

/// The interned types of one module. Common types are pre-interned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeTable {
    data: Vec<TypeData>,
    index: HashMap<TypeData, Ty>,
}

impl Default for TypeTable {
    fn default() -> Self {
        Self::new()
    }
}

impl TypeTable {
    /// `void`, pre-interned.
    pub const VOID: Ty = Ty(0);
    /// `i1`, pre-interned.
    pub const I1: Ty = Ty(1);
    /// `i8`, pre-interned.
    pub const I8: Ty = Ty(2);
    /// `i32`, pre-interned.
    pub const I32: Ty = Ty(3);
    /// `i64`, pre-interned.
    pub const I64: Ty = Ty(4);
    /// `float`, pre-interned.
    pub const F32: Ty = Ty(5);
    /// `double`, pre-interned.
    pub const F64: Ty = Ty(6);
    /// `ptr` (address space 0), pre-interned.
    pub const PTR: Ty = Ty(7);
    /// `label`, pre-interned.
    pub const LABEL: Ty = Ty(8);

    /// A table holding the pre-interned types.
    pub fn new() -> Self {
        let mut t = Self {
            data: Vec::new(),
            index: HashMap::new(),
        };
        for d in [
            TypeData::Void,
            TypeData::Int(1),
            TypeData::Int(8),
            TypeData::Int(32),
            TypeData::Int(64),
            TypeData::F32,
            TypeData::F64,
            TypeData::Ptr(0),
            TypeData::Label,
        ] {
            t.intern(d);
        }
        t
    }

    /// The handle of `data`, interning it on first sight.
    pub fn intern(&mut self, data: TypeData) -> Ty {
        // The pre-interned types without hashing (every `i32` of a large module).
        let pre = match data {
            TypeData::Void => Some(Self::VOID),
            TypeData::Int(1) => Some(Self::I1),
            TypeData::Int(8) => Some(Self::I8),
            TypeData::Int(32) => Some(Self::I32),
            TypeData::Int(64) => Some(Self::I64),
            TypeData::F32 => Some(Self::F32),
            TypeData::F64 => Some(Self::F64),
            TypeData::Ptr(0) => Some(Self::PTR),
            TypeData::Label => Some(Self::LABEL),
            _ => None,
        };
        if let Some(ty) = pre
            && self.data.get(ty.0 as usize) == Some(&data)
        {
            return ty;
        }
        if let Some(&ty) = self.index.get(&data) {
            return ty;
        }
        let ty = Ty(self.data.len() as u32);
        self.data.push(data.clone());
        self.index.insert(data, ty);
        ty
    }

    /// The handle of `data` if it is interned, without interning it.
    pub fn lookup(&self, data: &TypeData) -> Option<Ty> {
        self.index.get(data).copied()
    }

    /// The type of a comparison of `ty` operands: `i1`, or `<N x i1>` for `<N x T>`.
    pub fn compare_result(&mut self, ty: Ty) -> Ty {
        match self.vector(ty) {
            Some((n, _)) => self.intern(TypeData::Vector(n, Self::I1)),
            None => Self::I1,
        }
    }

    /// The handle of `iN`.
    pub fn int(&mut self, width: u32) -> Ty {
        self.intern(TypeData::Int(width))
    }

    /// What `ty` is.
    pub fn get(&self, ty: Ty) -> &TypeData {
        &self.data[ty.0 as usize]
    }

    /// The width of `iN`, or `None` for other types.
    pub fn int_width(&self, ty: Ty) -> Option<u32> {
        match self.get(ty) {
            TypeData::Int(w) => Some(*w),
            _ => None,
        }
    }

    /// Whether `ty` is `float` or `double`.
    pub fn is_float(&self, ty: Ty) -> bool {
        matches!(
            self.get(ty),
            TypeData::F32 | TypeData::F64 | TypeData::F16 | TypeData::BF16
        )
    }

    /// Whether `ty` is a pointer in any address space.
    pub fn is_ptr(&self, ty: Ty) -> bool {
        matches!(self.get(ty), TypeData::Ptr(_))
    }

    /// Whether `ty` is a first-class scalar a register can hold (int, float, ptr).
    pub fn is_scalar(&self, ty: Ty) -> bool {
        matches!(
            self.get(ty),
            TypeData::Int(_)
                | TypeData::F32
                | TypeData::F64
                | TypeData::F16
                | TypeData::BF16
                | TypeData::Ptr(_)
        )
    }

    /// Whether `ty` is an array or struct.
    pub fn is_aggregate(&self, ty: Ty) -> bool {
        matches!(self.get(ty), TypeData::Array(..) | TypeData::Struct { .. })
    }

    /// The element count and element type of a vector type `<N x T>`.
    pub fn vector(&self, ty: Ty) -> Option<(u32, Ty)> {
        match self.get(ty) {
            TypeData::Vector(n, elem) => Some((*n, *elem)),
            _ => None,
        }
    }

    /// The element type of `ty` for element-wise instructions: `T` of `<N x T>`,
    /// `ty` itself for scalars.
    pub fn scalar_of(&self, ty: Ty) -> Ty {
        self.vector(ty).map_or(ty, |(_, elem)| elem)
    }

    /// The type of the element at `index` of an aggregate or vector type (the
    /// `extractvalue` / `insertvalue` index walk), `None` when out of range.
    pub fn element_at(&self, ty: Ty, index: u64) -> Option<Ty> {
        match self.get(ty) {
            TypeData::Array(n, elem) => (index < *n).then_some(*elem),
            TypeData::Vector(n, elem) => (index < u64::from(*n)).then_some(*elem),
            TypeData::Struct { fields, .. } => usize::try_from(index)
                .ok()
                .and_then(|i| fields.get(i))
                .copied(),
            _ => None,
        }
    }

    /// The type at the constant index path `indices` into aggregate type `ty`
    /// (`extractvalue`, `insertvalue`): `None` if the path leaves the aggregate or
    /// is empty. Vectors are not aggregates here (LLVM uses `extractelement`).
    pub fn aggregate_path(&self, ty: Ty, indices: &[u32]) -> Option<Ty> {
        if indices.is_empty() {
            return None;
        }
        let mut current = ty;
        for &k in indices {
            if !self.is_aggregate(current) {
                return None;
            }
            current = self.element_at(current, u64::from(k))?;
        }
        Some(current)
    }

    /// The number of elements of an aggregate or vector type (0 for scalars).
    pub fn element_count(&self, ty: Ty) -> u64 {
        match self.get(ty) {
            TypeData::Array(n, _) => *n,
            TypeData::Vector(n, _) => u64::from(*n),
            TypeData::Struct { fields, .. } => fields.len() as u64,
            _ => 0,
        }
    }

    /// Whether values of `ty` have a size in memory (`sizeof` is defined).
    pub fn is_sized(&self, ty: Ty) -> bool {
        !matches!(
            self.get(ty),
            TypeData::Void | TypeData::Label | TypeData::Token
        )
    }

    /// ABI alignment in bytes.
    pub fn align_of(&self, ty: Ty) -> u64 {
        match self.get(ty) {
            TypeData::Void | TypeData::Label | TypeData::Token => 1,
            TypeData::Int(w) => int_store_size(*w).clamp(1, 16),
            TypeData::F16 | TypeData::BF16 => 2,
            TypeData::F32 => 4,
            TypeData::F64 | TypeData::Ptr(_) => 8,
            TypeData::Array(_, elem) => self.align_of(*elem),
            // LLVM's x86-64 and AMDGPU layouts: a vector is aligned to its size
            // rounded up to a power of two; pllvm caps that at 64 bytes (AVX-512).
            TypeData::Vector(..) => self.size_of(ty).next_power_of_two().clamp(1, 64),
            TypeData::Struct { fields, packed } => {
                if *packed {
                    1
                } else {
                    fields.iter().map(|f| self.align_of(*f)).max().unwrap_or(1)
                }
            }
        }
    }

    /// Bytes a load or store of `ty` touches (LLVM's "store size"), saturating.
    pub fn store_size(&self, ty: Ty) -> u64 {
        match self.get(ty) {
            TypeData::Int(w) => u64::from(w.div_ceil(8)),
            TypeData::Vector(n, elem) => u64::from(*n).saturating_mul(self.store_size(*elem)),
            _ => self.size_of(ty),
        }
    }

    /// `sizeof(typ)` of §4.9.1: the allocation size including tail padding,
    /// saturating at `u64::MAX` for absurd arrays (the memory limit then refuses it).
    pub fn size_of(&self, ty: Ty) -> u64 {
        match self.get(ty) {
            TypeData::Void | TypeData::Label | TypeData::Token => 0,
            TypeData::Int(w) => {
                let bytes = u64::from(w.div_ceil(8));
                bytes.next_multiple_of(self.align_of(ty))
            }
            TypeData::F16 | TypeData::BF16 => 2,
            TypeData::F32 => 4,
            TypeData::F64 | TypeData::Ptr(_) => 8,
            TypeData::Array(n, elem) => n.saturating_mul(self.size_of(*elem)),
            // Elements packed at their store size (the element types pllvm loads and
            // stores are whole bytes), rounded up to the vector's alignment.
            TypeData::Vector(n, elem) => {
                let bytes = u64::from(*n).saturating_mul(self.store_size(*elem));
                bytes.next_multiple_of(bytes.next_power_of_two().clamp(1, 64))
            }
            TypeData::Struct { .. } => {
                let (offsets, size) = self.struct_layout(ty);
                let _ = offsets;
                size
            }
        }
    }

    /// Field offsets and total size of a struct type (empty for other types).
    pub fn struct_layout(&self, ty: Ty) -> (Vec<u64>, u64) {
        let TypeData::Struct { fields, packed } = self.get(ty) else {
            return (Vec::new(), self.size_of(ty));
        };
        let mut offsets = Vec::with_capacity(fields.len());
        let mut at: u64 = 0;
        for &f in fields {
            if !*packed {
                at = at.next_multiple_of(self.align_of(f));
            }
            offsets.push(at);
            at = at.saturating_add(self.size_of(f));
        }
        let align = self.align_of(ty);
        (offsets, at.next_multiple_of(align))
    }

    /// Renders `ty` as the text format spells it.
    pub fn display(&self, ty: Ty) -> String {
        match self.get(ty) {
            TypeData::Void => "void".into(),
            TypeData::Int(w) => format!("i{w}"),
            TypeData::F32 => "float".into(),
            TypeData::F64 => "double".into(),
            TypeData::F16 => "half".into(),
            TypeData::BF16 => "bfloat".into(),
            TypeData::Ptr(0) => "ptr".into(),
            TypeData::Ptr(n) => format!("ptr addrspace({n})"),
            TypeData::Label => "label".into(),
            TypeData::Token => "token".into(),
            TypeData::Array(n, elem) => format!("[{n} x {}]", self.display(*elem)),
            TypeData::Vector(n, elem) => format!("<{n} x {}>", self.display(*elem)),
            TypeData::Struct { fields, packed } => {
                let inner: Vec<String> = fields.iter().map(|f| self.display(*f)).collect();
                let body = if inner.is_empty() {
                    "{}".to_string()
                } else {
                    format!("{{ {} }}", inner.join(", "))
                };
                if *packed { format!("<{body}>") } else { body }
            }
        }
    }
}

/// Bytes an `iN` occupies in a register-sized slot: the next power of two of
/// `ceil(N/8)` (LLVM's default data layouts round `i24` to 4 bytes, `i33` to 8).
fn int_store_size(width: u32) -> u64 {
    u64::from(width.div_ceil(8)).next_power_of_two()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(data: TypeData, size: u64, align: u64, text: &str) {
        let mut t = TypeTable::new();
        let ty = t.intern(data);
        assert_eq!(t.size_of(ty), size, "size of {text}");
        assert_eq!(t.align_of(ty), align, "align of {text}");
        assert_eq!(t.display(ty), text);
    }

    #[test]
    fn layouts() {
        check(TypeData::Int(1), 1, 1, "i1");
        check(TypeData::Int(24), 4, 4, "i24");
        check(TypeData::Int(33), 8, 8, "i33");
        check(TypeData::Int(128), 16, 16, "i128");
        check(TypeData::Int(4096), 512, 16, "i4096");
        let mut t = TypeTable::new();
        let s = t.intern(TypeData::Struct {
            fields: vec![TypeTable::I8, TypeTable::I32, TypeTable::I8],
            packed: false,
        });
        assert_eq!(t.struct_layout(s), (vec![0, 4, 8], 12));
        assert_eq!(t.display(s), "{ i8, i32, i8 }");
        let p = t.intern(TypeData::Struct {
            fields: vec![TypeTable::I8, TypeTable::I32],
            packed: true,
        });
        assert_eq!(t.struct_layout(p), (vec![0, 1], 5));
        let a = t.intern(TypeData::Array(10, s));
        assert_eq!(t.size_of(a), 120);
        let v4 = t.intern(TypeData::Vector(4, TypeTable::F32));
        assert_eq!((t.size_of(v4), t.align_of(v4)), (16, 16));
        assert_eq!(t.display(v4), "<4 x float>");
        let v3 = t.intern(TypeData::Vector(3, TypeTable::I32));
        assert_eq!((t.size_of(v3), t.align_of(v3)), (16, 16));
        let v2 = t.intern(TypeData::Vector(2, TypeTable::I8));
        assert_eq!((t.size_of(v2), t.align_of(v2)), (2, 2));
    }
}
