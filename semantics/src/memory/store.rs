//! The compact byte store of one object of 𝕄 (thesis §4.9.1).
//!
//! The thesis's memory holds, per address, a value that is ⊤, plain bits, or (in
//! pllvm's reading, see `memory.rs`) one fragment of a stored pointer with its
//! provenance. A per-byte enum of those three costs 24 host bytes per guest byte,
//! so a store keeps the same information in three parts instead:
//!
//! - the bits of every byte in a `u8` (the address bits for a pointer fragment,
//!   0 under a ⊤ byte, so that equal contents have equal bits),
//! - one bit per byte that says ⊤,
//! - a sorted list of runs of pointer fragments: bytes `start..start + len` hold
//!   fragments `first..first + len` of one pointer (a stored pointer is one run of
//!   8 bytes, so provenance costs about 3 host bytes per pointer byte and nothing
//!   elsewhere).
//!
//! The bytes are cut into chunks of [`CHUNK_BYTES`] that are materialized only when
//! written: an untouched chunk is "all ⊤" (a fresh `alloca`) or "all zero" (a
//! `zeroinitializer`) and costs one slot. A materialized chunk costs about 1.13
//! host bytes per guest byte (plus the runs), and sits behind an `Arc`, so a clone
//! of a store (the model-checking schedulers clone 𝕄) copies one pointer per chunk
//! and a write copies only the chunk it changes.
//!
//! Equality and hashing see contents, not representation: a chunk written back to
//! all ⊤ equals an untouched one. A chunk remembers what it holds (all ⊤, all
//! zero, or other bytes with a digest of them) from the first time it is hashed
//! until it is next written ([`ByteStore::chunk_mut`] forgets it), so hashing a
//! store costs one step per chunk, not one per byte: the greedy checks hash whole
//! states at every choice, and an untouched 64 KiB buffer is then 16 steps.

use crate::value::Pointer;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

/// One byte of an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Byte {
    /// Never written, or written with ⊤: a load that touches it yields ⊤.
    Uninit,
    /// A plain data byte.
    Data(u8),
    /// Byte `index` (little-endian, 0..8) of the stored pointer `ptr`.
    PtrFrag {
        /// The pointer this byte belongs to.
        ptr: Pointer,
        /// Which of its 8 bytes this is.
        index: u8,
    },
}

impl Byte {
    /// The bits the byte holds, `None` when uninitialized. A pointer fragment holds
    /// the matching byte of the pointer's address.
    pub fn bits(self) -> Option<u8> {
        match self {
            Byte::Uninit => None,
            Byte::Data(b) => Some(b),
            Byte::PtrFrag { ptr, index } => Some((ptr.address() >> (8 * u32::from(index))) as u8),
        }
    }
}

/// Guest bytes per chunk.
pub const CHUNK_BYTES: usize = 4096;

/// Bytes `start..start + len` of a chunk hold fragments `first..first + len` of `ptr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct PtrRun {
    /// The first byte, relative to the chunk.
    start: u32,
    /// How many bytes (at most 8: a pointer has 8 fragments).
    len: u8,
    /// The fragment index of the first byte.
    first: u8,
    /// The pointer whose fragments these are.
    ptr: Pointer,
}

impl PtrRun {
    /// One past the last byte.
    fn end(&self) -> u32 {
        self.start + u32::from(self.len)
    }
}

/// A materialized chunk.
#[derive(Clone, Debug)]
struct Chunk {
    /// The bits of each byte (0 under ⊤ bytes).
    data: Vec<u8>,
    /// Bit `i % 64` of word `i / 64` is set when byte `i` is ⊤; bits past the
    /// chunk's end are clear.
    undef: Vec<u64>,
    /// Pointer fragments, sorted by `start`, disjoint, and merged wherever one run
    /// continues the previous one.
    ptrs: Vec<PtrRun>,
    /// What the chunk holds, once asked ([`Chunk::summary`]); reset by every write.
    summary: OnceLock<Summary>,
}

/// What a chunk holds, for equality and hashing: all ⊤, all zero, or other
/// bytes, with a digest of the three parts (equal contents, equal digests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Summary {
    Uninit,
    Zero,
    Bytes(u64),
}

impl PartialEq for Chunk {
    fn eq(&self, other: &Self) -> bool {
        self.summary() == other.summary()
            && self.data == other.data
            && self.undef == other.undef
            && self.ptrs == other.ptrs
    }
}

impl Eq for Chunk {}

impl Hash for Chunk {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.summary().hash(state);
    }
}

impl Chunk {
    /// What the chunk holds, computed on the first call after a write.
    fn summary(&self) -> Summary {
        *self.summary.get_or_init(|| {
            if self.is_all_uninit() {
                Summary::Uninit
            } else if self.is_all_zero() {
                Summary::Zero
            } else {
                use std::hash::BuildHasher;
                let mut h = foldhash::fast::FixedState::with_seed(0).build_hasher();
                self.data.hash(&mut h);
                self.undef.hash(&mut h);
                self.ptrs.hash(&mut h);
                Summary::Bytes(h.finish())
            }
        })
    }

    /// A chunk of `len` bytes, all ⊤ or all zero.
    fn filled(len: usize, uninit: bool) -> Chunk {
        let mut undef = vec![0u64; len.div_ceil(64)];
        if uninit {
            set_bits(&mut undef, 0, len, true);
        }
        Chunk {
            data: vec![0; len],
            undef,
            ptrs: Vec::new(),
            summary: OnceLock::new(),
        }
    }

    /// Whether byte `i` is ⊤.
    fn is_undef(&self, i: usize) -> bool {
        self.undef[i / 64] >> (i % 64) & 1 == 1
    }

    /// The run that holds byte `i`, if any.
    fn run_at(&self, i: usize) -> Option<&PtrRun> {
        let k = self.ptrs.partition_point(|r| (r.end() as usize) <= i);
        self.ptrs.get(k).filter(|r| r.start as usize <= i)
    }

    /// Byte `i`.
    fn get(&self, i: usize) -> Byte {
        if self.is_undef(i) {
            return Byte::Uninit;
        }
        match self.run_at(i) {
            Some(run) => Byte::PtrFrag {
                ptr: run.ptr,
                index: run.first + (i - run.start as usize) as u8,
            },
            None => Byte::Data(self.data[i]),
        }
    }

    /// Removes the pointer fragments of bytes `lo..hi`, keeping the parts of runs
    /// outside that range. Returns where runs starting at `lo` belong.
    fn clear_runs(&mut self, lo: usize, hi: usize) -> usize {
        let (lo, hi) = (lo as u32, hi as u32);
        let first = self.ptrs.partition_point(|r| r.end() <= lo);
        let last = self.ptrs.partition_point(|r| r.start < hi);
        if first >= last {
            return first;
        }
        let mut kept = Vec::with_capacity(2);
        let head = self.ptrs[first];
        if head.start < lo {
            kept.push(PtrRun {
                len: (lo - head.start) as u8,
                ..head
            });
        }
        let tail = self.ptrs[last - 1];
        if tail.end() > hi {
            kept.push(PtrRun {
                start: hi,
                len: (tail.end() - hi) as u8,
                first: tail.first + (hi - tail.start) as u8,
                ptr: tail.ptr,
            });
        }
        let at = first + usize::from(head.start < lo);
        self.ptrs.splice(first..last, kept);
        at
    }

    /// Merges runs that continue their predecessor, around positions `lo..hi` of the list.
    fn merge_runs(&mut self, lo: usize, hi: usize) {
        let mut k = hi.min(self.ptrs.len().saturating_sub(1));
        let stop = lo.saturating_sub(1);
        while k > stop && k > 0 {
            let (a, b) = (self.ptrs[k - 1], self.ptrs[k]);
            if a.ptr == b.ptr && a.end() == b.start && a.first + a.len == b.first {
                self.ptrs[k - 1].len += b.len;
                self.ptrs.remove(k);
            }
            k -= 1;
        }
    }

    /// Writes `bytes` at `at`.
    fn write(&mut self, at: usize, bytes: &[Byte]) {
        let end = at + bytes.len();
        let mut pos = self.clear_runs(at, end);
        let start_pos = pos;
        for (k, byte) in bytes.iter().enumerate() {
            let i = at + k;
            let undef = matches!(byte, Byte::Uninit);
            set_bits(&mut self.undef, i, i + 1, undef);
            self.data[i] = byte.bits().unwrap_or(0);
            if let Byte::PtrFrag { ptr, index } = *byte {
                let continues = pos > start_pos && {
                    let last = &self.ptrs[pos - 1];
                    last.ptr == ptr && last.end() as usize == i && last.first + last.len == index
                };
                if continues {
                    self.ptrs[pos - 1].len += 1;
                } else {
                    self.ptrs.insert(
                        pos,
                        PtrRun {
                            start: i as u32,
                            len: 1,
                            first: index,
                            ptr,
                        },
                    );
                    pos += 1;
                }
            }
        }
        self.merge_runs(start_pos, pos);
    }

    /// Sets bytes `lo..hi` to ⊤ or to zero.
    fn fill(&mut self, lo: usize, hi: usize, uninit: bool) {
        let pos = self.clear_runs(lo, hi);
        self.merge_runs(pos, pos);
        self.data[lo..hi].fill(0);
        set_bits(&mut self.undef, lo, hi, uninit);
    }

    /// Sets bytes `lo..hi` to `byte`.
    fn fill_data(&mut self, lo: usize, hi: usize, byte: u8) {
        let pos = self.clear_runs(lo, hi);
        self.merge_runs(pos, pos);
        self.data[lo..hi].fill(byte);
        set_bits(&mut self.undef, lo, hi, false);
    }

    /// Whether every byte is ⊤.
    fn is_all_uninit(&self) -> bool {
        let len = self.data.len();
        self.undef.iter().enumerate().all(|(w, &word)| {
            let bits = (len - 64 * w).min(64);
            word == low_bits(bits)
        })
    }

    /// Whether every byte is a plain zero.
    fn is_all_zero(&self) -> bool {
        self.ptrs.is_empty()
            && self.undef.iter().all(|&w| w == 0)
            && self.data.iter().all(|&b| b == 0)
    }
}

/// The low `n` bits set (`n` ≤ 64).
fn low_bits(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// Sets or clears bits `lo..hi` of a bitset.
fn set_bits(words: &mut [u64], lo: usize, hi: usize, value: bool) {
    let mut i = lo;
    while i < hi {
        let word = i / 64;
        let from = i % 64;
        let n = (hi - i).min(64 - from);
        let mask = low_bits(n) << from;
        if value {
            words[word] |= mask;
        } else {
            words[word] &= !mask;
        }
        i += n;
    }
}

/// One chunk of a store: written bytes, or (while `bytes` is `None`) every byte
/// ⊤ or, when `zero`, every byte a plain zero.
#[derive(Clone, Debug)]
struct Slot {
    /// The written bytes, if any were written.
    bytes: Option<Arc<Chunk>>,
    /// What an unwritten chunk holds: zeros (`true`) or ⊤ (`false`).
    zero: bool,
}

/// What a chunk holds, for equality and hashing: contents, not representation.
#[derive(PartialEq, Eq, Hash)]
enum Canonical<'a> {
    Uninit,
    Zero,
    Bytes(&'a Chunk),
}

impl Slot {
    /// An unwritten chunk of ⊤ bytes.
    const UNINIT: Slot = Slot {
        bytes: None,
        zero: false,
    };
    /// An unwritten chunk of zero bytes.
    const ZERO: Slot = Slot {
        bytes: None,
        zero: true,
    };

    fn canonical(&self) -> Canonical<'_> {
        match &self.bytes {
            None if self.zero => Canonical::Zero,
            None => Canonical::Uninit,
            Some(c) => match c.summary() {
                Summary::Uninit => Canonical::Uninit,
                Summary::Zero => Canonical::Zero,
                Summary::Bytes(_) => Canonical::Bytes(c),
            },
        }
    }
}

/// The bytes of one object: a sequence of [`Byte`]s stored compactly (see the
/// module documentation). Clones share chunks until one side writes.
#[derive(Clone, Debug, Default)]
pub struct ByteStore {
    /// The number of bytes.
    len: u64,
    /// Chunk `k` holds bytes `k * CHUNK_BYTES ..`.
    slots: Vec<Slot>,
}

impl PartialEq for ByteStore {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && self
                .slots
                .iter()
                .zip(&other.slots)
                .all(|(a, b)| match (&a.bytes, &b.bytes) {
                    (Some(x), Some(y)) if Arc::ptr_eq(x, y) => true,
                    _ => a.canonical() == b.canonical(),
                })
    }
}

impl Eq for ByteStore {}

impl Hash for ByteStore {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.len.hash(state);
        for slot in &self.slots {
            slot.canonical().hash(state);
        }
    }
}

impl ByteStore {
    /// `len` ⊤ bytes, costing one slot per chunk; `None` when the host cannot
    /// hold even the slots.
    pub fn uninit(len: u64) -> Option<ByteStore> {
        let n = usize::try_from(len.div_ceil(CHUNK_BYTES as u64)).ok()?;
        let mut slots = Vec::new();
        slots.try_reserve_exact(n).ok()?;
        slots.resize(n, Slot::UNINIT);
        Some(ByteStore { len, slots })
    }

    /// The number of bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The length of chunk `k`.
    fn chunk_len(&self, k: usize) -> usize {
        let start = k as u64 * CHUNK_BYTES as u64;
        (self.len - start).min(CHUNK_BYTES as u64) as usize
    }

    /// Byte `i` (which must be below [`ByteStore::len`]).
    pub fn get(&self, i: u64) -> Byte {
        let (k, at) = split(i);
        let slot = &self.slots[k];
        match &slot.bytes {
            Some(chunk) => chunk.get(at),
            None if slot.zero => Byte::Data(0),
            None => Byte::Uninit,
        }
    }

    /// Every byte, in order.
    pub fn iter(&self) -> impl Iterator<Item = Byte> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// Bytes `at..at + out.len()` into `out` (the range must be in bounds).
    pub fn read_into(&self, at: u64, out: &mut [Byte]) {
        for (k, slot) in out.iter_mut().enumerate() {
            *slot = self.get(at + k as u64);
        }
    }

    /// Bytes `at..at + len` (the range must be in bounds).
    pub fn read(&self, at: u64, len: u64) -> Vec<Byte> {
        let mut out = vec![Byte::Uninit; len as usize];
        self.read_into(at, &mut out);
        out
    }

    /// Chunk `k`, materialized and unshared, for writing.
    fn chunk_mut(&mut self, k: usize) -> &mut Chunk {
        let len = self.chunk_len(k);
        let slot = &mut self.slots[k];
        let uninit = !slot.zero;
        let chunk = Arc::make_mut(
            slot.bytes
                .get_or_insert_with(|| Arc::new(Chunk::filled(len, uninit))),
        );
        // The caller writes: what the chunk held is no longer known.
        chunk.summary = OnceLock::new();
        chunk
    }

    /// Writes `bytes` at `at` (the range must be in bounds).
    pub fn write(&mut self, at: u64, bytes: &[Byte]) {
        let mut done = 0usize;
        while done < bytes.len() {
            let (k, offset) = split(at + done as u64);
            let n = (bytes.len() - done).min(self.chunk_len(k) - offset);
            self.chunk_mut(k).write(offset, &bytes[done..done + n]);
            done += n;
        }
    }

    /// Sets bytes `at..at + len` to `byte` (the range must be in bounds). Whole
    /// chunks set to ⊤ or zero go back to costing one slot.
    pub fn fill(&mut self, at: u64, len: u64, byte: Byte) {
        let end = at + len;
        let mut i = at;
        while i < end {
            let (k, offset) = split(i);
            let n = ((end - i) as usize).min(self.chunk_len(k) - offset);
            let whole = offset == 0 && n == self.chunk_len(k);
            match byte {
                Byte::Uninit if whole => self.slots[k] = Slot::UNINIT,
                Byte::Data(0) if whole => self.slots[k] = Slot::ZERO,
                Byte::Uninit => self.chunk_mut(k).fill(offset, offset + n, true),
                Byte::Data(b) => self.chunk_mut(k).fill_data(offset, offset + n, b),
                Byte::PtrFrag { .. } => {
                    self.chunk_mut(k).write(offset, &vec![byte; n]);
                }
            }
            i += n as u64;
        }
    }

    /// Copies bytes `from..from + len` of `src` to `at..` of this store (both
    /// ranges must be in bounds; `src` may be a clone of this store). Chunks that
    /// line up are shared rather than copied.
    pub fn copy_from(&mut self, at: u64, src: &ByteStore, from: u64, len: u64) {
        let mut done = 0u64;
        while done < len {
            let (dk, doff) = split(at + done);
            let (sk, soff) = split(from + done);
            let n = ((len - done) as usize)
                .min(self.chunk_len(dk) - doff)
                .min(src.chunk_len(sk) - soff);
            let whole = doff == 0 && soff == 0 && n == self.chunk_len(dk) && n == src.chunk_len(sk);
            let slot = &src.slots[sk];
            match &slot.bytes {
                _ if whole => self.slots[dk] = slot.clone(),
                None if slot.zero => self.fill(at + done, n as u64, Byte::Data(0)),
                None => self.fill(at + done, n as u64, Byte::Uninit),
                Some(chunk) => {
                    let bytes: Vec<Byte> = (soff..soff + n).map(|i| chunk.get(i)).collect();
                    self.chunk_mut(dk).write(doff, &bytes);
                }
            }
            done += n as u64;
        }
    }

    /// A new store of bytes `from..from + len` of this one.
    pub fn slice(&self, from: u64, len: u64) -> ByteStore {
        let mut out = ByteStore::uninit(len).unwrap_or_default();
        out.copy_from(0, self, from, len);
        out
    }
}

/// The chunk of byte `i` and its offset there.
fn split(i: u64) -> (usize, usize) {
    (
        (i / CHUNK_BYTES as u64) as usize,
        (i % CHUNK_BYTES as u64) as usize,
    )
}
