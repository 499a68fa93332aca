//! Properties of the compact byte store behind every object of 𝕄 (thesis §4.9.1,
//! `semantics/src/memory/store.rs`): it behaves exactly like the plain model the
//! semantics is written against, a `Vec<Byte>` with one ⊤ / data / pointer-fragment
//! value per byte, and its equality and hashing see contents, not representation.
//!
//! Stores span three chunks and a partial one, and offsets cluster at chunk
//! boundaries, where a materialized chunk meets an unwritten one and a pointer's
//! fragments are split between two chunks.

use pllvm_semantics::memory::{Byte, ByteStore, CHUNK_BYTES};
use pllvm_semantics::value::{ObjectId, Pointer};
use proptest::prelude::*;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// The store's size: three whole chunks and a partial fourth.
const LEN: u64 = 3 * CHUNK_BYTES as u64 + 100;

/// One operation on a store and on the model.
#[derive(Clone, Debug)]
enum Op {
    /// Write these bytes at an offset.
    Write(u64, Vec<Byte>),
    /// Store a whole pointer (8 fragments) at an offset.
    StorePtr(u64, Pointer),
    /// Set a range to one byte.
    Fill(u64, u64, Byte),
    /// Copy a range to another (possibly overlapping) place, as `memmove` does.
    Copy(u64, u64, u64),
}

/// An offset, often next to a chunk boundary.
fn offset() -> impl Strategy<Value = u64> {
    prop_oneof![
        0..LEN,
        (1u64..4, 0u64..16).prop_map(|(k, d)| (k * CHUNK_BYTES as u64).saturating_sub(d)),
        (1u64..4, 0u64..16).prop_map(|(k, d)| k * CHUNK_BYTES as u64 + d),
    ]
}

fn pointer() -> impl Strategy<Value = Pointer> {
    (proptest::option::of(0u32..3), 0u64..4).prop_map(|(o, offset)| Pointer {
        object: o.map(ObjectId),
        offset,
    })
}

fn byte() -> impl Strategy<Value = Byte> {
    prop_oneof![
        Just(Byte::Uninit),
        Just(Byte::Data(0)),
        any::<u8>().prop_map(Byte::Data),
        (pointer(), 0u8..8).prop_map(|(ptr, index)| Byte::PtrFrag { ptr, index }),
    ]
}

/// An operation, clipped to the store by [`clip`].
fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (offset(), proptest::collection::vec(byte(), 0..24)).prop_map(|(at, b)| Op::Write(at, b)),
        (offset(), pointer()).prop_map(|(at, p)| Op::StorePtr(at, p)),
        (
            offset(),
            prop_oneof![0u64..40, 0..2 * CHUNK_BYTES as u64],
            byte()
        )
            .prop_map(|(at, n, b)| Op::Fill(at, n, b)),
        (
            offset(),
            offset(),
            prop_oneof![0u64..40, 0..2 * CHUNK_BYTES as u64]
        )
            .prop_map(|(to, from, n)| Op::Copy(to, from, n)),
    ]
}

/// `n` shortened so that `at..at + n` fits the store.
fn clip(at: u64, n: u64) -> u64 {
    n.min(LEN.saturating_sub(at))
}

/// Applies `op` to the store and to the model.
fn apply(store: &mut ByteStore, model: &mut [Byte], op: &Op) {
    match op {
        Op::Write(at, bytes) => {
            let n = clip(*at, bytes.len() as u64) as usize;
            store.write(*at, &bytes[..n]);
            model[*at as usize..*at as usize + n].copy_from_slice(&bytes[..n]);
        }
        Op::StorePtr(at, ptr) => {
            let bytes: Vec<Byte> = (0..8)
                .map(|index| Byte::PtrFrag { ptr: *ptr, index })
                .collect();
            apply(store, model, &Op::Write(*at, bytes));
        }
        Op::Fill(at, n, byte) => {
            let n = clip(*at, *n);
            store.fill(*at, n, *byte);
            model[*at as usize..(*at + n) as usize].fill(*byte);
        }
        Op::Copy(to, from, n) => {
            let n = clip(*to, clip(*from, *n));
            let source = store.slice(*from, n);
            store.copy_from(*to, &source, 0, n);
            model.copy_within(*from as usize..(*from + n) as usize, *to as usize);
        }
    }
}

fn fresh() -> (ByteStore, Vec<Byte>) {
    (
        ByteStore::uninit(LEN).expect("a small store fits the host"),
        vec![Byte::Uninit; LEN as usize],
    )
}

fn hash_of(store: &ByteStore) -> u64 {
    let mut h = DefaultHasher::new();
    store.hash(&mut h);
    h.finish()
}

proptest! {
    /// After any sequence of writes, pointer stores, fills and overlapping copies,
    /// every byte of the store equals the model's, and reads of ranges agree.
    #[test]
    fn the_store_behaves_like_a_vector_of_bytes(
        ops in proptest::collection::vec(op(), 0..24),
        probe in offset(),
    ) {
        let (mut store, mut model) = fresh();
        for op in &ops {
            apply(&mut store, &mut model, op);
            let n = clip(probe, 40);
            prop_assert_eq!(store.read(probe, n), model[probe as usize..(probe + n) as usize].to_vec());
        }
        prop_assert_eq!(store.len(), LEN);
        let all: Vec<Byte> = store.iter().collect();
        prop_assert!(all == model, "store and model differ after {:?}", ops);
    }

    /// Two stores are equal exactly when their bytes are, and equal stores hash
    /// equally, however their chunks came to hold those bytes: rewriting a range
    /// with the bytes it already holds (which materializes unwritten chunks, or
    /// splits and re-joins pointer runs) changes nothing, and changing one byte does.
    #[test]
    fn equality_and_hash_see_contents_not_representation(
        ops in proptest::collection::vec(op(), 0..16),
        at in offset(),
        n in prop_oneof![1u64..40, 1..3 * CHUNK_BYTES as u64],
        changed in byte(),
    ) {
        let (mut store, mut model) = fresh();
        for op in &ops {
            apply(&mut store, &mut model, op);
        }
        let n = clip(at, n);
        let mut rewritten = store.clone();
        let mut twin = model.clone();
        let old: Vec<Byte> = model[at as usize..(at + n) as usize].to_vec();
        apply(&mut rewritten, &mut twin, &Op::Fill(at, n, Byte::Uninit));
        apply(&mut rewritten, &mut twin, &Op::Write(at, old.clone()));
        // Piecewise too: the bytes one at a time, from the back.
        for (k, b) in old.iter().enumerate().rev().take(16) {
            apply(&mut rewritten, &mut twin, &Op::Write(at + k as u64, vec![*b]));
        }
        prop_assert!(twin == model);
        prop_assert!(rewritten == store);
        prop_assert_eq!(hash_of(&rewritten), hash_of(&store));
        if n > 0 {
            let mut other = store.clone();
            let mut other_model = model.clone();
            apply(&mut other, &mut other_model, &Op::Write(at, vec![changed]));
            prop_assert_eq!(other == store, other_model == model);
            if other_model == model {
                prop_assert_eq!(hash_of(&other), hash_of(&store));
            }
        }
    }
}

/// Unwritten chunks and chunks written back to all ⊤ or all zero are equal, and a
/// store of ⊤ bytes differs from one of zeros.
#[test]
fn lazy_and_materialized_chunks_compare_by_contents() {
    let (mut store, _) = fresh();
    let untouched = store.clone();
    store.write(5, &[Byte::Data(1)]);
    assert_ne!(store, untouched);
    store.write(5, &[Byte::Uninit]);
    assert_eq!(store, untouched);
    assert_eq!(hash_of(&store), hash_of(&untouched));
    let mut zeros = untouched.clone();
    zeros.fill(0, LEN, Byte::Data(0));
    let mut written = untouched.clone();
    written.write(CHUNK_BYTES as u64 - 1, &[Byte::Data(0); 3]);
    written.fill(0, LEN, Byte::Data(0));
    written.write(7, &[Byte::Data(0)]);
    assert_ne!(zeros, untouched);
    assert_eq!(zeros, written);
    assert_eq!(hash_of(&zeros), hash_of(&written));
}
