//! The value of a constant operand `cnst` (thesis Fig. 4.2), the same in every
//! lane, and the address arithmetic of `getelementptr` that constant expressions
//! share with the instruction.
//!
//! A constant expression (LangRef "Constant Expressions") is evaluated by the rule
//! of the instruction it is named after, on its constant operands: a cast by
//! [`super::cast()`], a `getelementptr` by [`gep_terms`] and the checks of its flags
//! ([`const_gep`]). docs/language.md, "Constant expressions", gives the reading.

use crate::ir::{ConstData, ConstExpr, GepFlags, GlobalId};
use crate::types::{Ty, TypeData, TypeTable};
use crate::value::{ObjectId, Pointer, Val, wrap_biguint, zero_of};

/// What a constant needs to know of the run: the pointer to each global, and the
/// size of each object (the bounds of `getelementptr inbounds`).
pub struct ConstPlaces<'a> {
    /// The pointer to global `g`'s object (⊤ if it has none).
    pub global_ptr: &'a dyn Fn(GlobalId) -> Val,
    /// The size in bytes of an object, if it exists.
    pub object_size: &'a dyn Fn(ObjectId) -> Option<u64>,
}

/// The lane value of constant `c` of type `ty`.
pub fn const_value(types: &TypeTable, ty: Ty, c: &ConstData, places: &ConstPlaces<'_>) -> Val {
    match c {
        ConstData::Int(bits) => match types.get(ty) {
            TypeData::Int(w) => Val::from_biguint(*w, wrap_biguint(*w, bits)),
            _ => Val::Undef,
        },
        ConstData::Float(bits) => match types.get(ty) {
            TypeData::F32 => Val::F32(*bits as u32),
            TypeData::F16 => Val::F16(*bits as u16),
            TypeData::BF16 => Val::BF16(*bits as u16),
            _ => Val::F64(*bits),
        },
        ConstData::Null => Val::Ptr(Pointer {
            object: None,
            offset: 0,
        }),
        ConstData::Undef | ConstData::Poison => Val::Undef,
        ConstData::Zero => zero_of(types, ty),
        ConstData::Elems(items) => {
            let elems: Vec<Val> = items
                .iter()
                .enumerate()
                .map(|(k, item)| match types.element_at(ty, k as u64) {
                    Some(elem) => const_value(types, elem, item, places),
                    None => Val::Undef,
                })
                .collect();
            Val::Agg(elems.into())
        }
        ConstData::Splat(item) => match types.vector(ty) {
            Some((n, elem)) => {
                let v = const_value(types, elem, item, places);
                Val::Agg(vec![v; n as usize].into())
            }
            None => Val::Undef,
        },
        ConstData::Global(g) => (places.global_ptr)(*g),
        ConstData::Function(f) => Val::Ptr(Pointer {
            object: None,
            offset: u64::from(f.as_u32()) << 48,
        }),
        ConstData::Expr(e) => const_expr_value(types, e, places),
    }
}

/// A constant expression's value: its operation on its operands' values.
fn const_expr_value(types: &TypeTable, e: &ConstExpr, places: &ConstPlaces<'_>) -> Val {
    match e {
        ConstExpr::Cast { op, from, arg, to } => {
            let a = const_value(types, *from, arg, places);
            super::cast(
                *op,
                Default::default(),
                types.get(*from),
                types.get(*to),
                &a,
            )
        }
        ConstExpr::Gep {
            flags,
            source_ty,
            base_ty,
            base,
            indices,
            ..
        } => {
            let base = const_value(types, *base_ty, base, places);
            let values: Vec<(Val, u32)> = indices
                .iter()
                .map(|(ity, c)| {
                    let w = types.int_width(*ity).unwrap_or(64);
                    (const_value(types, *ity, c, places), w)
                })
                .collect();
            let refs: Vec<(&Val, u32)> = values.iter().map(|(v, w)| (v, *w)).collect();
            const_gep(types, *flags, *source_ty, &base, &refs, places.object_size)
        }
    }
}

/// The byte offset each index of `getelementptr T, ptr p, idx...` adds (LangRef
/// "getelementptr"): the first steps over whole `T`s, each later one into the
/// array element or struct field it names. Indices are sign-extended from their
/// width (at most 64: the index width of the data layout), so every term is a
/// 64-bit index times a size below 2^64 and fits `i128`. `None` for a ⊤ index, a
/// struct index out of range, or an index into a scalar.
pub fn gep_terms(types: &TypeTable, source_ty: Ty, indices: &[(&Val, u32)]) -> Option<Vec<i128>> {
    let mut terms = Vec::with_capacity(indices.len());
    let mut current = source_ty;
    for (k, &(index, index_width)) in indices.iter().enumerate() {
        let i = signed_index(index, index_width)?;
        if k == 0 {
            terms.push(i * types.size_of(current) as i128);
            continue;
        }
        match types.get(current).clone() {
            TypeData::Array(_, elem) => {
                terms.push(i * types.size_of(elem) as i128);
                current = elem;
            }
            TypeData::Struct { fields, .. } => {
                let (offsets, _) = types.struct_layout(current);
                let f = usize::try_from(i).ok()?;
                terms.push(*offsets.get(f)? as i128);
                current = fields[f];
            }
            _ => return None,
        }
    }
    Some(terms)
}

/// A gep index of an `iN` type as a signed number: LLVM sign-extends (or truncates)
/// indices to the 64-bit index width of the data layout. `None` for ⊤.
pub fn signed_index(v: &Val, width: u32) -> Option<i128> {
    let raw = v.as_biguint()?;
    let low = raw.iter_u64_digits().next().unwrap_or(0);
    let n = width.min(64);
    let shifted = if n == 0 {
        0
    } else {
        (low << (64 - n)) as i64 >> (64 - n)
    };
    Some(i128::from(shifted))
}

/// One lane's `getelementptr [flags] T, ptr base, idx...` with every flag's
/// poison rule of LangRef: `nusw` makes a term or a partial sum that leaves `i64`
/// poison (⊤), and an address (the base's offset, unsigned) plus the signed
/// offset that leaves `u64`; `nuw` makes a term, a partial sum or the address
/// plus the offset that leaves `u64` poison, each term the index read unsigned
/// times the size; `inbounds` is `nusw` and the
/// result within `[0, size]` of the base's object (`object_size`). A base
/// without provenance has no bounds to check.
pub fn const_gep(
    types: &TypeTable,
    flags: GepFlags,
    source_ty: Ty,
    base: &Val,
    indices: &[(&Val, u32)],
    object_size: &dyn Fn(ObjectId) -> Option<u64>,
) -> Val {
    let Val::Ptr(ptr) = base else {
        return Val::Undef;
    };
    let Some(terms) = gep_terms(types, source_ty, indices) else {
        return Val::Undef;
    };
    let fits_i64 = |x: i128| i128::from(i64::MIN) <= x && x <= i128::from(i64::MAX);
    let fits_u64 = |x: i128| 0 <= x && x <= i128::from(u64::MAX);
    let offset: i128 = terms.iter().sum();
    if flags.inbounds || flags.nusw {
        let mut sum = 0i128;
        for &t in &terms {
            sum += t;
            if !fits_i64(t) || !fits_i64(sum) {
                return Val::Undef;
            }
        }
        if !fits_u64(i128::from(ptr.offset) + offset) {
            return Val::Undef;
        }
    }
    if flags.nuw {
        // The terms again, with the index read unsigned (its 64-bit pattern).
        let mut sum = 0i128;
        for (k, &t) in terms.iter().enumerate() {
            let unsigned = match indices.get(k) {
                Some(&(v, w)) if t < 0 => {
                    let i = signed_index(v, w).unwrap_or(0);
                    let size = if i == 0 { 0 } else { t / i };
                    i128::from(i as i64 as u64) * size
                }
                _ => t,
            };
            sum += unsigned;
            if !fits_u64(unsigned) || !fits_u64(sum) {
                return Val::Undef;
            }
        }
        if !fits_u64(i128::from(ptr.offset) + offset) {
            return Val::Undef;
        }
    }
    if flags.inbounds
        && let Some(o) = ptr.object
    {
        let end = i128::from(ptr.offset as i64) + offset;
        let size = object_size(o).map_or(0, i128::from);
        if end < 0 || end > size {
            return Val::Undef;
        }
    }
    Val::Ptr(Pointer {
        object: ptr.object,
        offset: ptr.offset.wrapping_add(offset as u64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Global 0 is object 0 of 16 bytes; no other object exists.
    fn check(flags: GepFlags, source: TypeData, base_offset: u64, indices: &[i64], expect: Val) {
        let mut types = TypeTable::default();
        let source_ty = types.intern(source);
        let base = Val::Ptr(Pointer {
            object: Some(ObjectId(0)),
            offset: base_offset,
        });
        let values: Vec<Val> = indices
            .iter()
            .map(|&i| Val::Int(u128::from(i as u64)))
            .collect();
        let refs: Vec<(&Val, u32)> = values.iter().map(|v| (v, 64)).collect();
        let size = |o: ObjectId| (o == ObjectId(0)).then_some(16);
        let got = const_gep(&types, flags, source_ty, &base, &refs, &size);
        assert_eq!(
            got, expect,
            "{flags:?} {indices:?} from offset {base_offset}"
        );
    }

    fn at(offset: u64) -> Val {
        Val::Ptr(Pointer {
            object: Some(ObjectId(0)),
            offset,
        })
    }

    /// Each form's value, read from the text: global 0 is object 0 of 16 bytes.
    #[test]
    fn each_constant_expression_evaluates_by_its_instruction() {
        let src = "@g = global [4 x i32] zeroinitializer\n\
            declare void @k(i64, i8, ptr, ptr, ptr, ptr, ptr, ptr, i64)\n\
            define void @f() {\n\
            entry:\n  call void @k(\
            i64 ptrtoint (ptr @g to i64), \
            i8 trunc (i64 ptrtoint (ptr getelementptr (i8, ptr null, i64 300) to i64) to i8), \
            ptr inttoptr (i64 64 to ptr), \
            ptr bitcast (ptr @g to ptr), \
            ptr addrspacecast (ptr addrspace(3) addrspacecast (ptr @g to ptr addrspace(3)) to ptr), \
            ptr getelementptr inbounds ([4 x i32], ptr @g, i64 0, i64 2), \
            ptr getelementptr inbounds ([4 x i32], ptr @g, i64 0, i64 5), \
            ptr getelementptr nuw (i32, ptr getelementptr (i8, ptr @g, i64 4), i64 1), \
            i64 ptrtoint (ptr getelementptr (i32, ptr poison, i64 1) to i64))\n  ret void\n}\n";
        let (m, _) = crate::text::parse_module(src).expect("parses");
        let f = m.function_by_name("f").expect("@f");
        let body = m.functions[f].body.as_ref().expect("a body");
        let args = body
            .insts
            .values()
            .find_map(|i| match &i.kind {
                crate::ir::InstKind::Call { args, .. } => Some(args.clone()),
                _ => None,
            })
            .expect("the call");
        let g = |_| {
            Val::Ptr(Pointer {
                object: Some(ObjectId(0)),
                offset: 0,
            })
        };
        let size = |o: ObjectId| (o == ObjectId(0)).then_some(16);
        let places = ConstPlaces {
            global_ptr: &g,
            object_size: &size,
        };
        let got: Vec<Val> = args
            .iter()
            .map(|&a| {
                let c = body.as_const(a).expect("a constant");
                const_value(&m.types, body.values[a].ty, c, &places)
            })
            .collect();
        let at = |object: Option<u32>, offset: u64| {
            Val::Ptr(Pointer {
                object: object.map(ObjectId),
                offset,
            })
        };
        let want = [
            Val::Int(u128::from(at_address(Some(0), 0))),
            Val::Int(300 % 256),
            at(None, 64),
            at(Some(0), 0),
            at(Some(0), 0),
            at(Some(0), 8),
            Val::Undef,
            at(Some(0), 8),
            Val::Undef,
        ];
        assert_eq!(got, want);
    }

    /// The address `ptrtoint` gives a pointer.
    fn at_address(object: Option<u32>, offset: u64) -> u64 {
        Pointer {
            object: object.map(ObjectId),
            offset,
        }
        .address()
    }

    #[test]
    fn gep_flags_make_poison_by_their_own_rule() {
        let none = GepFlags::default();
        let inbounds = GepFlags {
            inbounds: true,
            ..GepFlags::default()
        };
        let nuw = GepFlags {
            nuw: true,
            ..GepFlags::default()
        };
        let arr = || TypeData::Array(4, TypeTable::I32);
        // [4 x i32] at 0: index (0, 3) is byte 12, (0, 4) the end (16, in bounds),
        // (0, 5) byte 20 (out of bounds: poison only under inbounds).
        check(inbounds, arr(), 0, &[0, 3], at(12));
        check(inbounds, arr(), 0, &[0, 4], at(16));
        check(inbounds, arr(), 0, &[0, 5], Val::Undef);
        check(none, arr(), 0, &[0, 5], at(20));
        // Going below the object: -1 element of i32 from byte 4 is byte 0 (fine),
        // from byte 0 it is -4: poison under inbounds, and under nuw the index -1
        // read unsigned times 4 wraps u64.
        check(inbounds, TypeData::Int(32), 4, &[-1], at(0));
        check(inbounds, TypeData::Int(32), 0, &[-1], Val::Undef);
        check(nuw, TypeData::Int(32), 4, &[-1], Val::Undef);
        check(none, TypeData::Int(32), 4, &[-1], at(0));
        check(nuw, TypeData::Int(32), 4, &[2], at(12));
    }
}
