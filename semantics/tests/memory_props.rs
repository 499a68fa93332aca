//! Properties of the memory state 𝕄 and of newptr^W / read^W / write^W (thesis §4.9.1).
//!
//! Each property states what §4.9.1 (and pllvm's reading of it, documented in
//! `semantics/src/memory.rs`) promises, and checks it against a small independent
//! model where one is needed: byte arrays for scatters, a byte mask for
//! uninitialized reads, plain arithmetic for bounds.

use num_bigint::BigUint;
use pllvm_semantics::memory::{
    Byte, LaneMemError, MemError, Memory, ObjectKind, newptr_w, read_w, write_w,
};
use pllvm_semantics::types::{Ty, TypeData, TypeTable};
use pllvm_semantics::value::{ObjectId, Pointer, Val, wrap_biguint};
use proptest::prelude::*;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// A scalar type and a value of it.
#[derive(Clone, Debug)]
enum Case {
    /// `iN` with the bits of a value (reduced modulo 2^N when turned into a `Val`).
    Int(u32, Vec<u8>),
    /// `float` bits.
    F32(u32),
    /// `double` bits.
    F64(u64),
    /// `ptr` with or without provenance.
    Ptr(Option<u32>, u64),
    /// ⊤ of the given integer width.
    Undef(u32),
}

impl Case {
    fn ty(&self, types: &mut TypeTable) -> Ty {
        match self {
            Case::Int(w, _) | Case::Undef(w) => types.int(*w),
            Case::F32(_) => TypeTable::F32,
            Case::F64(_) => TypeTable::F64,
            Case::Ptr(..) => TypeTable::PTR,
        }
    }

    fn val(&self) -> Val {
        match self {
            Case::Int(w, bits) => {
                Val::from_biguint(*w, wrap_biguint(*w, &BigUint::from_bytes_le(bits)))
            }
            Case::F32(b) => Val::F32(*b),
            Case::F64(b) => Val::F64(*b),
            Case::Ptr(object, offset) => Val::Ptr(Pointer {
                object: object.map(ObjectId),
                offset: *offset,
            }),
            Case::Undef(_) => Val::Undef,
        }
    }
}

fn width() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(1u32),
        Just(8),
        Just(17),
        Just(32),
        Just(64),
        Just(127),
        Just(128),
        Just(129),
        Just(200),
        1u32..300,
    ]
}

fn case() -> impl Strategy<Value = Case> {
    prop_oneof![
        (width(), proptest::collection::vec(any::<u8>(), 38)).prop_map(|(w, b)| Case::Int(w, b)),
        any::<u32>().prop_map(Case::F32),
        // NaNs with arbitrary payloads and sign.
        any::<u32>().prop_map(|x| Case::F32(0x7f80_0001 | (x & 0x807f_ffff))),
        any::<u64>().prop_map(Case::F64),
        any::<u64>().prop_map(|x| Case::F64(0x7ff0_0000_0000_0001 | (x & 0x800f_ffff_ffff_ffff))),
        (proptest::option::of(0u32..4), any::<u64>()).prop_map(|(o, off)| Case::Ptr(o, off)),
        width().prop_map(Case::Undef),
    ]
}

/// One input object of `size` bytes in a fresh memory, and a pointer to its byte `offset`.
fn one_object(size: u64) -> (Memory, Pointer) {
    let mut mem = Memory::new(1 << 20);
    let base = mem
        .allocate(ObjectKind::Input { name: "buf".into() }, size, 16)
        .unwrap();
    (mem, base)
}

fn at(base: Pointer, offset: u64) -> Val {
    Val::Ptr(Pointer {
        object: base.object,
        offset: base.offset.wrapping_add(offset),
    })
}

fn hash_of(mem: &Memory) -> u64 {
    let mut h = DefaultHasher::new();
    mem.hash(&mut h);
    h.finish()
}

proptest! {
    /// A store followed by a load of the same scalar type at the same place gives the
    /// stored value back: integers of any width, float bit patterns (NaN payloads
    /// included), pointers with their provenance, and ⊤ (the object is large enough
    /// for the widest generated type, 38 bytes, at the largest offset, 31).
    #[test]
    fn store_then_load_returns_the_value(case in case(), offset in 0u64..32) {
        let mut types = TypeTable::new();
        let ty = case.ty(&mut types);
        let (mut mem, base) = one_object(128);
        mem.store(&types, ty, &at(base, offset), &case.val()).unwrap();
        prop_assert_eq!(mem.load(&types, ty, &at(base, offset)).unwrap(), case.val());
    }

    /// A load yields ⊤ exactly when one of the bytes it touches is uninitialized,
    /// and the little-endian value of the bytes otherwise.
    #[test]
    fn loads_of_partly_uninitialized_bytes_give_top(
        init in proptest::collection::vec(proptest::option::of(any::<u8>()), 16),
        ty_index in 0usize..5,
        offset in 0u64..8,
    ) {
        let mut types = TypeTable::new();
        let ty = [TypeTable::I8, types.int(16), TypeTable::I32, TypeTable::I64, TypeTable::F64][ty_index];
        let (mut mem, base) = one_object(16);
        for (i, byte) in init.iter().enumerate() {
            if let Some(b) = byte {
                mem.write_bytes(Pointer { object: base.object, offset: i as u64 }, &[Byte::Data(*b)]).unwrap();
            }
        }
        let n = types.store_size(ty) as usize;
        let range = &init[offset as usize..offset as usize + n];
        let got = mem.load(&types, ty, &at(base, offset)).unwrap();
        match range.iter().copied().collect::<Option<Vec<u8>>>() {
            None => prop_assert_eq!(got, Val::Undef),
            Some(bytes) => {
                let mut word = [0u8; 16];
                word[..n].copy_from_slice(&bytes);
                let word = u128::from_le_bytes(word);
                let want = if ty == TypeTable::F64 { Val::F64(word as u64) } else { Val::Int(word) };
                prop_assert_eq!(got, want);
            }
        }
    }

    /// A load or store is in bounds exactly when `offset + store_size <= size`
    /// (offsets wrap, so "negative" offsets are out of bounds too).
    #[test]
    fn out_of_bounds_is_exact_at_the_boundary(
        size in 1u64..40,
        case in case(),
        offset in prop_oneof![0u64..48, (1u64..8).prop_map(|k| k.wrapping_neg())],
    ) {
        let mut types = TypeTable::new();
        let ty = case.ty(&mut types);
        let (mut mem, base) = one_object(size);
        let fits = offset.checked_add(types.store_size(ty)).is_some_and(|end| end <= size);
        let stored = mem.store(&types, ty, &at(base, offset), &case.val());
        let loaded = mem.load(&types, ty, &at(base, offset));
        prop_assert_eq!(stored.is_ok(), fits);
        prop_assert_eq!(loaded.is_ok(), fits);
        if !fits {
            let is_out_of_bounds = matches!(stored, Err(MemError::OutOfBounds { .. }));
            prop_assert!(is_out_of_bounds, "{:?}", stored);
            let is_out_of_bounds = matches!(loaded, Err(MemError::OutOfBounds { .. }));
            prop_assert!(is_out_of_bounds, "{:?}", loaded);
        }
    }

    /// A scatter to disjoint addresses equals the active lanes' stores one after the
    /// other, and the gather of the same addresses reads the values back (⊤ for
    /// passive lanes).
    #[test]
    fn disjoint_scatter_equals_sequential_stores(
        slots in Just((0u64..16).collect::<Vec<u64>>()).prop_shuffle(),
        lanes in 1usize..9,
        active in proptest::collection::vec(any::<bool>(), 8),
        values in proptest::collection::vec(any::<u32>(), 8),
    ) {
        let types = TypeTable::new();
        let mut mem = Memory::new(1 << 20);
        let a = mem.allocate(ObjectKind::Input { name: "a".into() }, 32, 4).unwrap();
        let b = mem.allocate(ObjectKind::Input { name: "b".into() }, 32, 4).unwrap();
        // Slot k is the k-th i32 of `a` (k < 8) or of `b`.
        let ptrs: Vec<Val> = slots[..lanes]
            .iter()
            .map(|&k| if k < 8 { at(a, 4 * k) } else { at(b, 4 * (k - 8)) })
            .collect();
        let data: Vec<Val> = values[..lanes].iter().map(|&v| Val::Int(u128::from(v))).collect();
        let active = &active[..lanes];
        let mut sequential = mem.clone();
        for lane in (0..lanes).filter(|&l| active[l]) {
            sequential.store(&types, TypeTable::I32, &ptrs[lane], &data[lane]).unwrap();
        }
        write_w(&mut mem, &types, TypeTable::I32, active, &ptrs, &data).unwrap();
        prop_assert_eq!(&mem, &sequential);
        let back = read_w(&mem, &types, TypeTable::I32, active, &ptrs).unwrap();
        for lane in 0..lanes {
            let want = if active[lane] { data[lane].clone() } else { Val::Undef };
            prop_assert_eq!(&back[lane], &want);
        }
    }

    /// write^W reports a conflicting scatter exactly when two active lanes store
    /// different bytes to one address; otherwise the memory holds every lane's bytes.
    /// A failed scatter writes nothing.
    #[test]
    fn conflicting_scatter_is_detected_iff_bytes_differ(
        lanes in 2usize..6,
        offsets in proptest::collection::vec(0u64..7, 6),
        values in proptest::collection::vec(prop_oneof![Just(0u16), Just(1), Just(0x0101), Just(0x0100), any::<u16>()], 6),
        active in proptest::collection::vec(any::<bool>(), 6),
    ) {
        let mut types = TypeTable::new();
        let ty = types.int(16);
        let (mut mem, base) = one_object(8);
        let before = mem.clone();
        let active = &active[..lanes];
        // The model: which lane wrote which byte, and whether two lanes disagree.
        let mut model: [Option<(usize, u8)>; 8] = [None; 8];
        let mut conflict = None;
        for lane in (0..lanes).filter(|&l| active[l]) {
            for (i, byte) in values[lane].to_le_bytes().into_iter().enumerate() {
                let at_byte = offsets[lane] as usize + i;
                match model[at_byte] {
                    Some((first, old)) if old != byte => {
                        if conflict.is_none() {
                            conflict = Some((first, lane));
                        }
                    }
                    _ => model[at_byte] = Some((lane, byte)),
                }
            }
        }
        let ptrs: Vec<Val> = offsets[..lanes].iter().map(|&o| at(base, o)).collect();
        let data: Vec<Val> = values[..lanes].iter().map(|&v| Val::Int(u128::from(v))).collect();
        let result = write_w(&mut mem, &types, ty, active, &ptrs, &data);
        match result {
            Ok(()) => {
                prop_assert_eq!(conflict, None);
                let want: Vec<Byte> = model.iter().map(|m| m.map_or(Byte::Uninit, |(_, b)| Byte::Data(b))).collect();
                prop_assert_eq!(mem.read_bytes(base, 8).unwrap(), want);
            }
            Err(LaneMemError { lane, error: MemError::ConflictingScatter { lanes: pair, .. } }) => {
                prop_assert!(conflict.is_some());
                prop_assert_eq!(lane, pair.1);
                prop_assert!(pair.0 < pair.1 && active[pair.0] && active[pair.1]);
                // The pair reported has the lowest later lane, as the model's first find.
                prop_assert_eq!(pair.1, conflict.map_or(0, |c| c.1));
                prop_assert_eq!(&mem, &before);
            }
            Err(other) => prop_assert!(false, "unexpected error {}", other),
        }
    }

    /// Equal memories hash equally, clones are equal and independent, and the same
    /// operations on equal memories give equal memories.
    #[test]
    fn clone_hash_and_eq_agree(
        ops in proptest::collection::vec((0u8..4, 0u64..4, any::<u8>()), 0..20),
        change in any::<u8>(),
    ) {
        let types = TypeTable::new();
        let run = |ops: &[(u8, u64, u8)]| {
            let mut mem = Memory::new(1 << 16);
            mem.allocate(ObjectKind::Input { name: "in".into() }, 4, 1).unwrap();
            for &(op, slot, v) in ops {
                let last = Pointer { object: Some(ObjectId(mem.objects().count() as u32 - 1)), offset: slot };
                match op {
                    0 | 1 => { let _ = mem.store(&types, TypeTable::I8, &Val::Ptr(last), &Val::Int(u128::from(v))); }
                    2 => { let _ = newptr_w(&mut mem, 4, 1, &[v % 2 == 0, v % 3 == 0], ""); }
                    _ => mem.kill(ObjectId(u32::from(v) % 3)),
                }
            }
            mem
        };
        let mem = run(&ops);
        let twin = run(&ops);
        prop_assert_eq!(&mem, &twin);
        prop_assert_eq!(hash_of(&mem), hash_of(&twin));
        let copy = mem.clone();
        prop_assert_eq!(&copy, &mem);
        prop_assert_eq!(hash_of(&copy), hash_of(&mem));
        // Writing a different byte to a clone changes it and leaves the original alone.
        let mut changed = mem.clone();
        let live = changed.objects().find(|(_, o)| o.live && o.size() > 0).map(|(id, _)| id);
        if let Some(id) = live {
            let p = Pointer { object: Some(id), offset: 0 };
            let old = changed.read_bytes(p, 1).unwrap();
            changed.write_bytes(p, &[Byte::Data(change)]).unwrap();
            prop_assert_eq!(old[0] == Byte::Data(change), changed == mem);
            prop_assert_eq!(&copy, &mem);
        }
    }

    /// The Display of every error is lowercase with no trailing period and names §4.9.1
    /// (or is an unsupported-access message).
    #[test]
    fn error_messages_are_lowercase(case in case(), offset in any::<u64>()) {
        let mut types = TypeTable::new();
        let ty = case.ty(&mut types);
        let (mut mem, base) = one_object(4);
        mem.set_read_only(base.object.unwrap(), true);
        let aggregate = types.intern(TypeData::Array(2, TypeTable::I8));
        let errors = [
            mem.store(&types, ty, &at(base, offset), &case.val()).err(),
            mem.load(&types, ty, &Val::Ptr(Pointer::from_address(offset))).err(),
            mem.load(&types, aggregate, &at(base, 0)).err(),
        ];
        for error in errors.into_iter().flatten() {
            let text = error.to_string();
            prop_assert!(text.chars().next().is_some_and(|c| c.is_lowercase()), "{}", text);
            prop_assert!(!text.ends_with('.'), "{}", text);
            prop_assert!(text.contains("§4.9.1") || text.starts_with("unsupported"), "{}", text);
        }
    }
}
