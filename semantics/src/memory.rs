//! The memory state 𝕄 of thesis §4.9.1 and the three functions through which
//! `alloca`, `load` and `store` reach it: newptr^W ([W-INST-ALLOCA]), read^W
//! ([W-INST-LOAD]) and write^W ([W-INST-STORE]).
//!
//! The thesis leaves 𝕄 abstract and asks only that these functions be
//! "well-behaved". pllvm makes that concrete:
//!
//! - 𝕄 is a list of [`Object`]s. An object is a byte buffer with a kind (global,
//!   run input, or the private `alloca` of one lane), a live flag (cleared by
//!   [`Memory::kill`], e.g. at `llvm.lifetime.end`), a read-only flag (`constant`
//!   globals) and an alignment. Object ids are allocation order, so two runs that
//!   allocate alike get equal states; nothing iterates a hash map.
//! - A byte is [`Byte::Uninit`], plain data, or one fragment of a stored pointer.
//!   Fragments let a pointer that is stored and loaded back keep its provenance.
//!   An integer loaded from fragments gets the address bits ([`Pointer::address`]),
//!   and a pointer loaded from plain bytes is [`Pointer::from_address`] of them.
//! - Scalars (`iN`, `float`, `double`, `ptr`) are little-endian and take
//!   `store_size` bytes. For `iN` only the low N bits count. A load that touches an
//!   uninitialized byte yields ⊤ ("each thread that reads from an uninitialized
//!   address obtains a ⊤ result"), and storing ⊤ uninitializes the bytes.
//! - Undefined behaviour is a [`MemError`] value: an access through `null`, a wild
//!   address, ⊤ or a dead object, an access out of bounds, a store to a read-only
//!   object, and a scatter of different values to one byte. Running out of the
//!   configured memory is [`MemError::LimitExceeded`], a resource limit and not
//!   undefined behaviour ([`MemError::is_undefined_behaviour`]).
//! - Alignment is recorded but never checked: pllvm, like the thesis, ignores the
//!   `align` of `load` and `store` for the safety of an access, so a misaligned
//!   access is defined. Every object base is a multiple of 2^40 as an address
//!   ([`Pointer::address`]), which satisfies every alignment an object can ask for.
//!
//! - An object keeps its bytes in a [`ByteStore`] (`memory/store.rs`): a `u8` and
//!   a ⊤ bit per byte and runs of pointer fragments, in 4 KiB chunks materialized
//!   only when written, so memory that is never written, or is zero-initialized,
//!   costs the host almost nothing and the memory limit bounds the host's cost.
//!   [`Byte`] is the value of one byte at this module's interface.
//! - Messages name an object by its [`ObjectKind`]: a global as `@G`, an
//!   `alloca`'s object by its instruction, block and lane.
//!
//! [`Memory`] is `Clone + Eq + Hash` for the model-checking schedulers. Objects sit
//! behind `Arc`, so a clone copies one pointer per object, and a write copies only
//! the object it changes, and of it only the chunk it changes.

use crate::ir::{ConstData, GlobalId, GlobalInit};
use crate::ops::{ConstPlaces, const_value};
use crate::types::{Ty, TypeData, TypeTable};
use crate::value::{OFFSET_BITS, ObjectId, Pointer, Val, display_signed, low_mask};
use num_bigint::BigUint;
use std::cell::Cell;
use std::fmt;
use std::sync::Arc;

mod store;
pub use store::{Byte, ByteStore, CHUNK_BYTES};

/// The memory limit of [`Memory::default`]: 1 GiB of live bytes.
pub const DEFAULT_LIMIT_BYTES: u64 = 1 << 30;

/// The largest object, in bytes: offsets must stay below 2^40 so that
/// [`Pointer::address`] and [`Pointer::from_address`] round-trip.
pub const MAX_OBJECT_BYTES: u64 = 1 << OFFSET_BITS;

/// The most objects one memory can hold: object `n` has address `(n + 1) << 40`,
/// which must fit in 64 bits.
pub const MAX_OBJECTS: u64 = (1 << (64 - OFFSET_BITS)) - 1;

/// Where an object comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    /// The object of global variable `@name`.
    Global {
        /// Name without `@`.
        name: String,
    },
    /// A buffer given as run input (a pointer argument, or an external global).
    Input {
        /// The name the run gave it.
        name: String,
    },
    /// The private object of one lane's `alloca` ([W-INST-ALLOCA]).
    Alloca {
        /// The lane that owns it.
        lane: usize,
        /// The `alloca` that made it, for messages: `%p in a` (its result and
        /// block), or empty when unknown.
        site: String,
    },
}

impl fmt::Display for ObjectKind {
    /// How messages name an object: a global by its name (`@G`), an input by the
    /// name the run gave it, and an `alloca`'s object by its instruction and lane.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObjectKind::Global { name } => write!(f, "@{name}"),
            ObjectKind::Input { name } => write!(f, "input {name}"),
            ObjectKind::Alloca { lane, site } if site.is_empty() => {
                write!(f, "the alloca of lane {lane}")
            }
            ObjectKind::Alloca { lane, site } => write!(f, "{site} (alloca of lane {lane})"),
        }
    }
}

/// One object of 𝕄: a byte buffer and what may be done with it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Object {
    /// Where the object comes from.
    pub kind: ObjectKind,
    /// Its contents; the length is its size. Empty once the object is dead.
    pub bytes: ByteStore,
    /// Whether its lifetime has not ended ([`Memory::kill`]).
    pub live: bool,
    /// Whether stores to it are undefined behaviour (`constant` globals).
    pub read_only: bool,
    /// The alignment it was allocated with (recorded, never checked).
    pub align: u64,
}

impl Object {
    /// The size in bytes (0 once dead).
    pub fn size(&self) -> u64 {
        self.bytes.len()
    }
}

/// What [`MemError::LimitExceeded`] ran out of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resource {
    /// Live bytes: the configured memory limit (`--memory-limit`).
    Bytes,
    /// The size of one object (2^40 bytes, [`MAX_OBJECT_BYTES`]).
    ObjectSize,
    /// Object ids.
    Objects,
}

/// The message of [`MemError::LimitExceeded`]: what ran out, and for the
/// configured limit the flag that sets it.
fn limit_message(resource: Resource, requested: u64, in_use: u64, limit: u64) -> String {
    match resource {
        Resource::Bytes => format!(
            "memory limit exceeded: {requested} more bytes requested with {in_use} in use, \
             limit {limit} bytes (newptr, §4.9.1; --memory-limit sets it)"
        ),
        Resource::ObjectSize => format!(
            "an object of {requested} bytes exceeds the largest object size, {limit} bytes \
             (newptr, §4.9.1)"
        ),
        Resource::Objects => format!(
            "memory limit exceeded: {requested} more objects requested with {in_use} in use, \
             limit {limit} objects (newptr, §4.9.1)"
        ),
    }
}

/// Why a memory access has no defined result.
#[derive(Clone, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum MemError {
    /// Access through a pointer without provenance (`null`, `inttoptr` of an
    /// integer), or whose object does not exist.
    #[error(
        "access through pointer {:#x} that points to no object (§4.9.1)",
        address
    )]
    NullOrWild {
        /// The pointer's address ([`Pointer::address`]).
        address: u64,
    },
    /// An active lane accesses memory through ⊤.
    #[error("active lane accesses memory through an undefined pointer ⊤ (§4.9.1)")]
    Undef,
    /// Access to an object whose lifetime has ended.
    #[error("access to {name} after its lifetime ended (§4.9.1)")]
    Dangling {
        /// The dead object.
        object: ObjectId,
        /// How messages name it ([`ObjectKind`]'s `Display`).
        name: String,
    },
    /// Access to bytes outside the object (offsets wrap, so a negative offset is huge).
    #[error(
        "access of {len} bytes at offset {} is out of bounds of {name} of {size} bytes (§4.9.1)",
        *offset as i64
    )]
    OutOfBounds {
        /// The object.
        object: ObjectId,
        /// How messages name it.
        name: String,
        /// The first byte accessed.
        offset: u64,
        /// The number of bytes accessed.
        len: u64,
        /// The object's size.
        size: u64,
    },
    /// A store to a read-only object.
    #[error("store to read-only {name} (§4.9.1)")]
    ReadOnly {
        /// The object.
        object: ObjectId,
        /// How messages name it.
        name: String,
    },
    /// An allocation beyond the configured limit: a resource limit, not undefined behaviour.
    #[error("{}", limit_message(*resource, *requested, *in_use, *limit))]
    LimitExceeded {
        /// What ran out.
        resource: Resource,
        /// How much the allocation asked for.
        requested: u64,
        /// How much was in use before it.
        in_use: u64,
        /// The limit.
        limit: u64,
    },
    /// Two active lanes of one write^W store different bytes to one address
    /// (§4.9.1: "not further specified"; pllvm reports it).
    #[error(
        "lanes {} and {} scatter different values to byte {offset} of {name} (write^W, §4.9.1)",
        lanes.0,
        lanes.1
    )]
    ConflictingScatter {
        /// The two lanes, in lane order.
        lanes: (usize, usize),
        /// The object.
        object: ObjectId,
        /// How messages name it.
        name: String,
        /// The first byte on which they differ.
        offset: u64,
    },
    /// An access pllvm does not model (aggregate loads and stores, ill-typed operands).
    #[error("unsupported memory access: {0}")]
    Unsupported(String),
}

impl MemError {
    /// Whether this is undefined behaviour of the program (as opposed to a resource
    /// limit of the run, or something pllvm does not model).
    pub fn is_undefined_behaviour(&self) -> bool {
        !matches!(
            self,
            MemError::LimitExceeded { .. } | MemError::Unsupported(_)
        )
    }
}

/// A [`MemError`] of one lane of read^W or write^W.
#[derive(Clone, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("lane {lane}: {error}")]
pub struct LaneMemError {
    /// The lane whose access failed (the later lane of a conflicting scatter).
    pub lane: usize,
    /// Why.
    pub error: MemError,
}

/// The memory state 𝕄.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Memory {
    /// Every object ever allocated, in allocation order (the index is the id).
    objects: Vec<Arc<Object>>,
    /// Bytes held by live objects.
    live_bytes: u64,
    /// The most live bytes allowed.
    limit_bytes: u64,
}

impl Default for Memory {
    fn default() -> Self {
        Self::new(DEFAULT_LIMIT_BYTES)
    }
}

impl Memory {
    /// An empty memory that allows `limit_bytes` live bytes.
    pub fn new(limit_bytes: u64) -> Self {
        Self {
            objects: Vec::new(),
            live_bytes: 0,
            limit_bytes,
        }
    }

    /// The most live bytes allowed.
    pub fn limit_bytes(&self) -> u64 {
        self.limit_bytes
    }

    /// Bytes held by live objects.
    pub fn live_bytes(&self) -> u64 {
        self.live_bytes
    }

    /// A new live, writable, uninitialized object of `size` bytes, and a pointer to
    /// its first byte. `align` must be a power of two.
    pub fn allocate(
        &mut self,
        kind: ObjectKind,
        size: u64,
        align: u64,
    ) -> Result<Pointer, MemError> {
        if !align.is_power_of_two() || align > MAX_OBJECT_BYTES {
            return Err(MemError::Unsupported(format!(
                "alignment {align} is not a power of two up to 2^40"
            )));
        }
        self.check_room(1, size)?;
        // The host may refuse what the limit allows: that is the same resource limit.
        // Chunks are materialized only when written (see `store.rs`).
        let Some(bytes) = ByteStore::uninit(size) else {
            return Err(MemError::LimitExceeded {
                resource: Resource::Bytes,
                requested: size,
                in_use: self.live_bytes,
                limit: self.limit_bytes,
            });
        };
        let id = ObjectId(self.objects.len() as u32);
        self.objects.push(Arc::new(Object {
            kind,
            bytes,
            live: true,
            read_only: false,
            align,
        }));
        self.live_bytes += size;
        Ok(Pointer {
            object: Some(id),
            offset: 0,
        })
    }

    /// Whether `count` more objects of `size` bytes each fit the limits.
    fn check_room(&self, count: u64, size: u64) -> Result<(), MemError> {
        let objects = self.objects.len() as u64;
        if objects.saturating_add(count) > MAX_OBJECTS {
            return Err(MemError::LimitExceeded {
                resource: Resource::Objects,
                requested: count,
                in_use: objects,
                limit: MAX_OBJECTS,
            });
        }
        // One object must fit the 40 offset bits of an address.
        if size > MAX_OBJECT_BYTES {
            return Err(MemError::LimitExceeded {
                resource: Resource::ObjectSize,
                requested: size,
                in_use: 0,
                limit: MAX_OBJECT_BYTES,
            });
        }
        let requested = count.saturating_mul(size);
        if self.live_bytes.saturating_add(requested) > self.limit_bytes {
            return Err(MemError::LimitExceeded {
                resource: Resource::Bytes,
                requested,
                in_use: self.live_bytes,
                limit: self.limit_bytes,
            });
        }
        Ok(())
    }

    /// The object `id`, dead or alive.
    pub fn object(&self, id: ObjectId) -> Option<&Object> {
        self.objects.get(id.0 as usize).map(|o| &**o)
    }

    /// Every object, dead or alive, in allocation order.
    pub fn objects(&self) -> impl Iterator<Item = (ObjectId, &Object)> {
        self.objects
            .iter()
            .enumerate()
            .map(|(i, o)| (ObjectId(i as u32), &**o))
    }

    /// Ends the lifetime of object `id` (`llvm.lifetime.end`, `free`): later accesses
    /// are [`MemError::Dangling`] and its bytes no longer count against the limit.
    /// Killing a dead or unknown object does nothing.
    pub fn kill(&mut self, id: ObjectId) {
        let Some(object) = self.objects.get_mut(id.0 as usize) else {
            return;
        };
        if !object.live {
            return;
        }
        let object = Arc::make_mut(object);
        self.live_bytes -= object.size();
        object.live = false;
        object.bytes = ByteStore::default();
    }

    /// Marks object `id` read-only or writable (the interpreter marks `constant`
    /// globals read-only after [`Memory::init_global`]). Unknown ids are ignored.
    pub fn set_read_only(&mut self, id: ObjectId, read_only: bool) {
        if let Some(object) = self.objects.get_mut(id.0 as usize) {
            Arc::make_mut(object).read_only = read_only;
        }
    }

    /// The index of the object holding `len` bytes at `ptr`, and the offset there.
    /// The checks run in the order the errors are listed: provenance, liveness, bounds.
    fn locate(&self, ptr: Pointer, len: u64) -> Result<(usize, u64), MemError> {
        let wild = MemError::NullOrWild {
            address: ptr.address(),
        };
        let Some(id) = ptr.object else {
            return Err(wild);
        };
        let Some(object) = self.objects.get(id.0 as usize) else {
            return Err(wild);
        };
        if !object.live {
            return Err(MemError::Dangling {
                object: id,
                name: object.kind.to_string(),
            });
        }
        let size = object.size();
        if ptr.offset.checked_add(len).is_none_or(|end| end > size) {
            return Err(MemError::OutOfBounds {
                object: id,
                name: object.kind.to_string(),
                offset: ptr.offset,
                len,
                size,
            });
        }
        Ok((id.0 as usize, ptr.offset))
    }

    /// Like [`Memory::locate`], and the object must be writable.
    fn locate_writable(&self, ptr: Pointer, len: u64) -> Result<(usize, u64), MemError> {
        let (index, offset) = self.locate(ptr, len)?;
        if self.objects[index].read_only {
            return Err(MemError::ReadOnly {
                object: ObjectId(index as u32),
                name: self.objects[index].kind.to_string(),
            });
        }
        Ok((index, offset))
    }

    /// Writes `bytes` at a place [`Memory::locate`] has checked.
    fn put(&mut self, (index, offset): (usize, u64), bytes: &[Byte]) {
        let object = Arc::make_mut(&mut self.objects[index]);
        object.bytes.write(offset, bytes);
    }

    /// The `len` bytes at `ptr`. Reading nothing is always defined (like a
    /// `memcpy` of length 0), whatever `ptr` is.
    pub fn read_bytes(&self, ptr: Pointer, len: u64) -> Result<Vec<Byte>, MemError> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let (index, offset) = self.locate(ptr, len)?;
        Ok(self.objects[index].bytes.read(offset, len))
    }

    /// Sets the `len` bytes at `ptr` to `byte` (`memset`) without spelling them
    /// out: whole chunks set to ⊤ or zero cost no host memory. Filling nothing is
    /// always defined, whatever `ptr` is.
    pub fn fill_bytes(&mut self, ptr: Pointer, len: u64, byte: Byte) -> Result<(), MemError> {
        if len == 0 {
            return Ok(());
        }
        let (index, offset) = self.locate_writable(ptr, len)?;
        Arc::make_mut(&mut self.objects[index])
            .bytes
            .fill(offset, len, byte);
        Ok(())
    }

    /// Copies the `len` bytes at `src` to `dst` (`memcpy`, `memmove`: the bytes
    /// are read before any is written, so overlapping ranges are fine), keeping
    /// pointer provenance. Copying nothing is always defined, whatever the pointers are.
    pub fn copy_bytes(&mut self, dst: Pointer, src: Pointer, len: u64) -> Result<(), MemError> {
        if len == 0 {
            return Ok(());
        }
        let (from_index, from) = self.locate(src, len)?;
        let (index, at) = self.locate_writable(dst, len)?;
        let source = self.objects[from_index].bytes.slice(from, len);
        Arc::make_mut(&mut self.objects[index])
            .bytes
            .copy_from(at, &source, 0, len);
        Ok(())
    }

    /// Writes `bytes` at `ptr` (for `memset`, `memcpy` and run inputs). Writing
    /// nothing is always defined, whatever `ptr` is.
    pub fn write_bytes(&mut self, ptr: Pointer, bytes: &[Byte]) -> Result<(), MemError> {
        if bytes.is_empty() {
            return Ok(());
        }
        let place = self.locate_writable(ptr, bytes.len() as u64)?;
        self.put(place, bytes);
        Ok(())
    }

    /// `load ty, ptr` of one lane: the scalar of type `ty` at `ptr`, ⊤ if any of its
    /// bytes is uninitialized.
    pub fn load(&self, types: &TypeTable, ty: Ty, ptr: &Val) -> Result<Val, MemError> {
        if is_composite(types, ty) {
            let size = composite_size(types, ty)?;
            let pointer = pointer_operand(ptr)?;
            let (index, offset) = self.locate(pointer, size)?;
            let bytes = self.objects[index].bytes.read(offset, size);
            return Ok(decode_value(types, ty, &bytes));
        }
        let scalar = Scalar::of(types, ty)?;
        let pointer = pointer_operand(ptr)?;
        let (index, offset) = self.locate(pointer, scalar.size())?;
        let store = &self.objects[index].bytes;
        // Scalars up to 16 bytes (all but wide integers) are read on the stack.
        let mut small = [Byte::Uninit; 16];
        let size = scalar.size() as usize;
        if size <= small.len() {
            store.read_into(offset, &mut small[..size]);
            Ok(scalar.decode(&small[..size]))
        } else {
            Ok(scalar.decode(&store.read(offset, scalar.size())))
        }
    }

    /// `store ty value, ptr` of one lane.
    pub fn store(
        &mut self,
        types: &TypeTable,
        ty: Ty,
        ptr: &Val,
        value: &Val,
    ) -> Result<(), MemError> {
        let size = access_size(types, ty)?;
        let pointer = pointer_operand(ptr)?;
        let bytes = encode_value(types, ty, value)?;
        let place = self.locate_writable(pointer, size)?;
        self.put(place, &bytes);
        Ok(())
    }

    /// Writes the initializer `init` of type `ty` at `ptr`, ignoring the read-only
    /// flag (a `constant` global is written once, here). A reference to global `@g`
    /// in `init` means the `g`-th object of kind [`ObjectKind::Global`] in allocation
    /// order, so the interpreter allocates every global of the module, in module
    /// order, before it initializes any. [`Memory::init_global_with`] lifts that
    /// convention.
    pub fn init_global(
        &mut self,
        types: &TypeTable,
        ptr: Pointer,
        ty: Ty,
        init: &GlobalInit,
    ) -> Result<(), MemError> {
        let globals: Vec<ObjectId> = self
            .objects()
            .filter(|(_, o)| matches!(o.kind, ObjectKind::Global { .. }))
            .map(|(id, _)| id)
            .collect();
        let global_ptr = |g: GlobalId| {
            globals.get(g.as_u32() as usize).map(|&id| Pointer {
                object: Some(id),
                offset: 0,
            })
        };
        self.init_global_with(types, ptr, ty, init, &global_ptr)
    }

    /// [`Memory::init_global`] with `global_ptr` telling where each global is.
    pub fn init_global_with(
        &mut self,
        types: &TypeTable,
        ptr: Pointer,
        ty: Ty,
        init: &GlobalInit,
        global_ptr: &dyn Fn(GlobalId) -> Option<Pointer>,
    ) -> Result<(), MemError> {
        let size = types.size_of(ty);
        if size == 0 {
            return Ok(());
        }
        let (index, offset) = self.locate(ptr, size)?;
        // The image is built apart, so a failing initializer writes nothing, and
        // lazily, so a `zeroinitializer` costs one slot per chunk.
        let mut image = ByteStore::uninit(size).ok_or(MemError::LimitExceeded {
            resource: Resource::Bytes,
            requested: size,
            in_use: self.live_bytes,
            limit: self.limit_bytes,
        })?;
        let object_size = |o: ObjectId| self.object(o).map(|obj| obj.size());
        fill_image(types, ty, init, global_ptr, &object_size, &mut image, 0)?;
        Arc::make_mut(&mut self.objects[index])
            .bytes
            .copy_from(offset, &image, 0, size);
        Ok(())
    }

    /// The object `id` read as consecutive elements of `elem_ty`, for results and
    /// traces: `[1, 2, ⊤, 4]`. Integers print signed, arrays as `[..]`, structs as
    /// `{..}`, uninitialized values as ⊤. Trailing bytes that do not fill an
    /// element are not shown.
    pub fn dump_object(&self, id: ObjectId, types: &TypeTable, elem_ty: Ty) -> String {
        let Some(object) = self.object(id) else {
            return format!("<no object {}>", id.0);
        };
        if !object.live {
            return format!("<dead {}>", object.kind);
        }
        let elem_size = types.size_of(elem_ty);
        if elem_size == 0 {
            return "[]".into();
        }
        let elems: Vec<String> = (0..object.size() / elem_size)
            .map(|k| render(types, elem_ty, &object.bytes.read(k * elem_size, elem_size)))
            .collect();
        format!("[{}]", elems.join(", "))
    }
}

/// newptr^W 𝕄 s amsk^W (§4.9.1, [W-INST-ALLOCA]): one private object of `size`
/// bytes per active lane, in lane order, and ⊤ for passive lanes. Either every
/// active lane gets its object or none does. `site` names the `alloca` in
/// messages (`%p in a`; empty when unknown).
pub fn newptr_w(
    mem: &mut Memory,
    size: u64,
    align: u64,
    active: &[bool],
    site: &str,
) -> Result<Vec<Val>, MemError> {
    let n_active = active.iter().filter(|&&a| a).count() as u64;
    mem.check_room(n_active, size)?;
    let mut ptrs = Vec::with_capacity(active.len());
    for (lane, &is_active) in active.iter().enumerate() {
        if is_active {
            let kind = ObjectKind::Alloca {
                lane,
                site: site.to_string(),
            };
            ptrs.push(Val::Ptr(mem.allocate(kind, size, align)?));
        } else {
            ptrs.push(Val::Undef);
        }
    }
    Ok(ptrs)
}

/// read^W 𝕄 amsk^W p^W (§4.9.1, [W-INST-LOAD]): a gather for the active lanes;
/// passive lanes get ⊤. The error names the first failing lane.
pub fn read_w(
    mem: &Memory,
    types: &TypeTable,
    ty: Ty,
    active: &[bool],
    ptrs: &[Val],
) -> Result<Vec<Val>, LaneMemError> {
    check_width(active, ptrs.len())?;
    let mut data = Vec::with_capacity(active.len());
    for (lane, (&is_active, ptr)) in active.iter().zip(ptrs).enumerate() {
        if is_active {
            data.push(
                mem.load(types, ty, ptr)
                    .map_err(|error| LaneMemError { lane, error })?,
            );
        } else {
            data.push(Val::Undef);
        }
    }
    Ok(data)
}

/// write^W 𝕄 amsk^W p^W d^W (§4.9.1, [W-INST-STORE]): a scatter of the active
/// lanes' values, in lane order. Nothing is written unless every active lane's
/// store is defined. Lanes that store the same bytes to the same place are fine
/// (a uniform store); lanes that store different bytes to one place are
/// [`MemError::ConflictingScatter`], which the thesis leaves unspecified. Per-lane
/// errors are checked first, in lane order, then conflicts: the reported pair is
/// the one with the lowest later lane, then the lowest earlier lane.
pub fn write_w(
    mem: &mut Memory,
    types: &TypeTable,
    ty: Ty,
    active: &[bool],
    ptrs: &[Val],
    data: &[Val],
) -> Result<(), LaneMemError> {
    check_width(active, ptrs.len())?;
    check_width(active, data.len())?;
    let size = access_size(types, ty).map_err(|error| LaneMemError { lane: 0, error })?;
    // Every active lane's store must be defined on its own.
    let mut writes: Vec<(usize, (usize, u64), Vec<Byte>)> = Vec::new();
    for lane in (0..active.len()).filter(|&lane| active[lane]) {
        let at_lane = |error| LaneMemError { lane, error };
        let pointer = pointer_operand(&ptrs[lane]).map_err(at_lane)?;
        let bytes = encode_value(types, ty, &data[lane]).map_err(at_lane)?;
        let place = mem.locate_writable(pointer, size).map_err(at_lane)?;
        writes.push((lane, place, bytes));
    }
    // No two lanes may store different bytes to one address.
    for (later, (lane_b, (object_b, offset_b), bytes_b)) in writes.iter().enumerate() {
        for (lane_a, (object_a, offset_a), bytes_a) in &writes[..later] {
            if object_a != object_b {
                continue;
            }
            let start = (*offset_a).max(*offset_b);
            let end = (offset_a + bytes_a.len() as u64).min(offset_b + bytes_b.len() as u64);
            if let Some(offset) = (start..end)
                .find(|&at| bytes_a[(at - offset_a) as usize] != bytes_b[(at - offset_b) as usize])
            {
                return Err(LaneMemError {
                    lane: *lane_b,
                    error: MemError::ConflictingScatter {
                        lanes: (*lane_a, *lane_b),
                        object: ObjectId(*object_b as u32),
                        name: mem.objects[*object_b].kind.to_string(),
                        offset,
                    },
                });
            }
        }
    }
    for (_, place, bytes) in &writes {
        mem.put(*place, bytes);
    }
    Ok(())
}

/// The vectors of one W-wide operation must all have W lanes.
fn check_width(active: &[bool], len: usize) -> Result<(), LaneMemError> {
    if len == active.len() {
        return Ok(());
    }
    Err(LaneMemError {
        lane: len.min(active.len()),
        error: MemError::Unsupported(format!(
            "{len} lane values for an activation mask of {} lanes",
            active.len()
        )),
    })
}

/// The pointer an active lane accesses memory through.
fn pointer_operand(ptr: &Val) -> Result<Pointer, MemError> {
    match ptr {
        Val::Ptr(p) => Ok(*p),
        Val::Undef => Err(MemError::Undef),
        other => Err(MemError::Unsupported(format!(
            "pointer operand {other} is not a pointer"
        ))),
    }
}

/// Whether `ty` is a vector or an aggregate (loaded and stored element by element).
fn is_composite(types: &TypeTable, ty: Ty) -> bool {
    types.vector(ty).is_some() || types.is_aggregate(ty)
}

/// Bytes a load or store of `ty` touches: LLVM's store size.
fn access_size(types: &TypeTable, ty: Ty) -> Result<u64, MemError> {
    if is_composite(types, ty) {
        composite_size(types, ty)
    } else {
        Scalar::of(types, ty).map(Scalar::size)
    }
}

/// The store size of a vector or aggregate whose elements pllvm can lay out:
/// vectors of whole-byte elements (LLVM packs `<N x i1>` and other sub-byte
/// elements as bits, which pllvm refuses), structs and arrays of such types.
fn composite_size(types: &TypeTable, ty: Ty) -> Result<u64, MemError> {
    check_layout(types, ty)?;
    Ok(types.store_size(ty))
}

/// Refuses vectors (at any depth) whose elements are not whole bytes.
fn check_layout(types: &TypeTable, ty: Ty) -> Result<(), MemError> {
    match types.get(ty) {
        TypeData::Vector(_, elem) => match types.get(*elem) {
            TypeData::Int(w) if w % 8 != 0 => Err(MemError::Unsupported(format!(
                "load or store of {} (LLVM packs vectors of sub-byte elements as bits)",
                types.display(ty)
            ))),
            _ => Ok(()),
        },
        TypeData::Array(_, elem) => check_layout(types, *elem),
        TypeData::Struct { fields, .. } => fields.iter().try_for_each(|f| check_layout(types, *f)),
        _ => Scalar::of(types, ty).map(|_| ()),
    }
}

/// Where each element of a vector or aggregate lies: `(offset, type)` per element.
/// Vector elements are packed at their store size, element 0 first (little-endian
/// targets); array elements at their allocation size; struct fields at the
/// struct layout's offsets.
fn element_places(types: &TypeTable, ty: Ty) -> Vec<(u64, Ty)> {
    match types.get(ty) {
        TypeData::Vector(n, elem) => (0..u64::from(*n))
            .map(|k| (k * types.store_size(*elem), *elem))
            .collect(),
        TypeData::Array(n, elem) => (0..*n).map(|k| (k * types.size_of(*elem), *elem)).collect(),
        TypeData::Struct { fields, .. } => {
            let (offsets, _) = types.struct_layout(ty);
            offsets.into_iter().zip(fields.iter().copied()).collect()
        }
        _ => Vec::new(),
    }
}

/// The bytes that represent `value` of type `ty` (⊤, and padding, become
/// uninitialized bytes).
fn encode_value(types: &TypeTable, ty: Ty, value: &Val) -> Result<Vec<Byte>, MemError> {
    if !is_composite(types, ty) {
        return Scalar::of(types, ty)?.encode(types, ty, value);
    }
    let size = composite_size(types, ty)? as usize;
    let places = element_places(types, ty);
    let items = crate::value::elements(value, places.len()).ok_or_else(|| {
        MemError::Unsupported(format!("cannot store {value} as {}", types.display(ty)))
    })?;
    let mut bytes = vec![Byte::Uninit; size];
    for ((offset, elem), item) in places.into_iter().zip(&items) {
        let part = encode_value(types, elem, item)?;
        let at = offset as usize;
        bytes[at..at + part.len()].copy_from_slice(&part);
    }
    Ok(bytes)
}

/// The value of type `ty` that `bytes` (its store size of them) represent; each
/// scalar element is ⊤ on its own if one of its bytes is uninitialized.
fn decode_value(types: &TypeTable, ty: Ty, bytes: &[Byte]) -> Val {
    if !is_composite(types, ty) {
        return match Scalar::of(types, ty) {
            Ok(scalar) => scalar.decode(&bytes[..scalar.size() as usize]),
            Err(_) => Val::Undef,
        };
    }
    Val::Agg(
        element_places(types, ty)
            .into_iter()
            .map(|(offset, elem)| decode_value(types, elem, &bytes[offset as usize..]))
            .collect(),
    )
}

/// How a scalar type lies in memory.
#[derive(Clone, Copy, Debug)]
enum Scalar {
    /// `iN`: `ceil(N/8)` bytes, only the low N bits count.
    Int(u32),
    /// `float`: 4 bytes of IEEE bits.
    F32,
    /// `double`: 8 bytes of IEEE bits.
    F64,
    /// `ptr`: 8 bytes, fragments of a pointer or an address.
    Ptr,
    /// `half`: 2 bytes of IEEE bits.
    F16,
    /// `bfloat`: 2 bytes.
    BF16,
}

/// Bytes of a pointer in memory.
const PTR_BYTES: usize = 8;

impl Scalar {
    /// The layout of `ty`; aggregates and unsized types cannot be loaded or stored.
    fn of(types: &TypeTable, ty: Ty) -> Result<Scalar, MemError> {
        match types.get(ty) {
            TypeData::Int(w) => Ok(Scalar::Int(*w)),
            TypeData::F32 => Ok(Scalar::F32),
            TypeData::F64 => Ok(Scalar::F64),
            TypeData::F16 => Ok(Scalar::F16),
            TypeData::BF16 => Ok(Scalar::BF16),
            TypeData::Ptr(_) => Ok(Scalar::Ptr),
            _ => Err(MemError::Unsupported(format!(
                "load or store of non-scalar type {}",
                types.display(ty)
            ))),
        }
    }

    /// Bytes a load or store touches (`store_size`).
    fn size(self) -> u64 {
        match self {
            Scalar::Int(w) => u64::from(w.div_ceil(8)),
            Scalar::F16 | Scalar::BF16 => 2,
            Scalar::F32 => 4,
            Scalar::F64 => PTR_BYTES as u64,
            Scalar::Ptr => PTR_BYTES as u64,
        }
    }

    /// The bytes that represent `value` (⊤ becomes uninitialized bytes).
    fn encode(self, types: &TypeTable, ty: Ty, value: &Val) -> Result<Vec<Byte>, MemError> {
        let data = |bits: &[u8]| bits.iter().map(|&b| Byte::Data(b)).collect();
        let n = self.size() as usize;
        match (self, value) {
            (_, Val::Undef) => Ok(vec![Byte::Uninit; n]),
            (Scalar::Int(w), Val::Int(v)) if w <= 128 => {
                Ok(data(&(v & low_mask(w)).to_le_bytes()[..n]))
            }
            (Scalar::Int(w), Val::Int(_) | Val::Wide(_)) => {
                let bits = value.as_biguint().unwrap_or_default();
                let mut le = crate::value::wrap_biguint(w, &bits).to_bytes_le();
                le.resize(n, 0);
                Ok(data(&le))
            }
            (Scalar::F32, Val::F32(b)) => Ok(data(&b.to_le_bytes())),
            (Scalar::F64, Val::F64(b)) => Ok(data(&b.to_le_bytes())),
            (Scalar::F16, Val::F16(b)) | (Scalar::BF16, Val::BF16(b)) => Ok(data(&b.to_le_bytes())),
            (Scalar::Ptr, Val::Ptr(p)) => Ok((0..PTR_BYTES as u8)
                .map(|index| Byte::PtrFrag { ptr: *p, index })
                .collect()),
            _ => Err(MemError::Unsupported(format!(
                "cannot store {value} as {}",
                types.display(ty)
            ))),
        }
    }

    /// The value `bytes` (exactly `size` of them) represent.
    fn decode(self, bytes: &[Byte]) -> Val {
        // A whole pointer stored and loaded back keeps its provenance.
        if let (Scalar::Ptr, Some(Byte::PtrFrag { ptr, .. })) = (self, bytes.first()) {
            let whole = bytes.iter().enumerate().all(|(i, b)| {
                *b == Byte::PtrFrag {
                    ptr: *ptr,
                    index: i as u8,
                }
            });
            if whole {
                return Val::Ptr(*ptr);
            }
        }
        let Some(bits) = bytes.iter().map(|b| b.bits()).collect::<Option<Vec<u8>>>() else {
            return Val::Undef;
        };
        let mut word = [0u8; 16];
        let low = bits.len().min(16);
        word[..low].copy_from_slice(&bits[..low]);
        let word = u128::from_le_bytes(word);
        match self {
            Scalar::Int(w) if w <= 128 => Val::Int(word & low_mask(w)),
            Scalar::Int(w) => Val::from_biguint(
                w,
                crate::value::wrap_biguint(w, &BigUint::from_bytes_le(&bits)),
            ),
            Scalar::F32 => Val::F32(word as u32),
            Scalar::F64 => Val::F64(word as u64),
            Scalar::F16 => Val::F16(word as u16),
            Scalar::BF16 => Val::BF16(word as u16),
            Scalar::Ptr => Val::Ptr(Pointer::from_address(word as u64)),
        }
    }
}

/// Writes initializer `init` of type `ty` into bytes `at..at + size_of(ty)` of `image`.
fn fill_image(
    types: &TypeTable,
    ty: Ty,
    init: &GlobalInit,
    global_ptr: &dyn Fn(GlobalId) -> Option<Pointer>,
    object_size: &dyn Fn(ObjectId) -> Option<u64>,
    image: &mut ByteStore,
    at: u64,
) -> Result<(), MemError> {
    let size = types.size_of(ty);
    match init {
        GlobalInit::Zero | GlobalInit::Scalar(ConstData::Zero) => {
            image.fill(at, size, Byte::Data(0))
        }
        GlobalInit::Undef | GlobalInit::Scalar(ConstData::Undef | ConstData::Poison) => {
            image.fill(at, size, Byte::Uninit)
        }
        GlobalInit::Scalar(c) => {
            let scalar = Scalar::of(types, ty)?;
            let missing = Cell::new(None);
            let ptr_of = |g| match global_ptr(g) {
                Some(p) => Val::Ptr(p),
                None => {
                    missing.set(Some(g));
                    Val::Undef
                }
            };
            let places = ConstPlaces {
                global_ptr: &ptr_of,
                object_size,
            };
            let value = const_value(types, ty, c, &places);
            if let Some(g) = missing.get() {
                return Err(MemError::Unsupported(format!(
                    "initializer refers to global {g:?}, which has no object"
                )));
            }
            let bytes = scalar.encode(types, ty, &value)?;
            image.write(at, &bytes);
        }
        GlobalInit::Aggregate(items) => {
            let (elem_tys, offsets): (Vec<Ty>, Vec<u64>) = match types.get(ty) {
                TypeData::Array(n, elem) if *n == items.len() as u64 => {
                    let step = types.size_of(*elem);
                    (
                        vec![*elem; items.len()],
                        (0..*n).map(|i| i * step).collect(),
                    )
                }
                TypeData::Struct { fields, .. } if fields.len() == items.len() => {
                    (fields.clone(), types.struct_layout(ty).0)
                }
                _ => {
                    return Err(MemError::Unsupported(format!(
                        "{} initializers for type {}",
                        items.len(),
                        types.display(ty)
                    )));
                }
            };
            for ((item, elem_ty), offset) in items.iter().zip(elem_tys).zip(offsets) {
                fill_image(
                    types,
                    elem_ty,
                    item,
                    global_ptr,
                    object_size,
                    image,
                    at + offset,
                )?;
            }
        }
    }
    Ok(())
}

/// A value of type `ty` held in `bytes` (at least `size_of(ty)` of them), as text.
fn render(types: &TypeTable, ty: Ty, bytes: &[Byte]) -> String {
    match types.get(ty) {
        TypeData::Array(n, elem) => {
            let step = types.size_of(*elem) as usize;
            let items: Vec<String> = (0..*n as usize)
                .map(|i| render(types, *elem, &bytes[i * step..]))
                .collect();
            format!("[{}]", items.join(", "))
        }
        TypeData::Vector(n, elem) => {
            let step = types.store_size(*elem) as usize;
            let items: Vec<String> = (0..*n as usize)
                .map(|i| render(types, *elem, &bytes[i * step..]))
                .collect();
            format!("<{}>", items.join(", "))
        }
        TypeData::Struct { fields, .. } => {
            let (offsets, _) = types.struct_layout(ty);
            let items: Vec<String> = fields
                .iter()
                .zip(offsets)
                .map(|(f, offset)| render(types, *f, &bytes[offset as usize..]))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        _ => match Scalar::of(types, ty) {
            Ok(scalar) => {
                let value = scalar.decode(&bytes[..scalar.size() as usize]);
                match scalar {
                    Scalar::Int(w) => display_signed(&value, w),
                    _ => value.to_string(),
                }
            }
            Err(_) => "?".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `script` on a fresh memory (limit 64 bytes) holding one 16-byte input
    /// object, whose pointer it gets, and compares what it returns (or its error
    /// message) with `expect`.
    fn check(
        script: impl FnOnce(&mut Memory, &mut TypeTable, Pointer) -> Result<String, MemError>,
        expect: &str,
    ) {
        let mut mem = Memory::new(64);
        let mut types = TypeTable::new();
        let buf = mem
            .allocate(ObjectKind::Input { name: "buf".into() }, 16, 8)
            .unwrap();
        let got = match script(&mut mem, &mut types, buf) {
            Ok(text) => text,
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(got, expect);
    }

    fn at(p: Pointer, offset: u64) -> Val {
        Val::Ptr(Pointer {
            object: p.object,
            offset: p.offset.wrapping_add(offset),
        })
    }

    fn dump(mem: &Memory, types: &TypeTable, p: Pointer, ty: Ty) -> String {
        mem.dump_object(p.object.unwrap(), types, ty)
    }

    #[test]
    fn scalars_round_trip_and_uninit_reads_give_top() {
        check(
            |mem, t, p| {
                mem.store(t, TypeTable::I32, &at(p, 4), &Val::Int(7))?;
                mem.store(
                    t,
                    TypeTable::I32,
                    &at(p, 12),
                    &Val::Int(u128::from(u32::MAX)),
                )?;
                Ok(dump(mem, t, p, TypeTable::I32))
            },
            "[⊤, 7, ⊤, -1]",
        );
        check(
            |mem, t, p| {
                mem.store(t, TypeTable::I32, &at(p, 0), &Val::Int(0x0403_0201))?;
                let whole = mem.load(t, TypeTable::I64, &at(p, 0))?;
                let split = mem.load(t, TypeTable::I8, &at(p, 2))?;
                Ok(format!("{whole} {split}"))
            },
            "⊤ 3",
        );
        check(
            |mem, t, p| {
                let i17 = t.int(17);
                mem.store(
                    t,
                    TypeTable::I32,
                    &at(p, 0),
                    &Val::Int(u128::from(u32::MAX)),
                )?;
                mem.store(t, i17, &at(p, 0), &Val::Int(0x1_0001))?;
                Ok(format!(
                    "{} {}",
                    mem.load(t, i17, &at(p, 0))?,
                    mem.load(t, TypeTable::I32, &at(p, 0))?
                ))
            },
            // The store wrote 3 bytes, clearing bits 17..24 of the old value.
            "65537 4278255617",
        );
        check(
            |mem, t, p| {
                mem.store(t, TypeTable::I8, &at(p, 0), &Val::Int(0xfe))?;
                Ok(mem.load(t, TypeTable::I1, &at(p, 0))?.to_string())
            },
            "0",
        );
        check(
            |mem, t, p| {
                mem.store(t, TypeTable::I32, &at(p, 0), &Val::Int(5))?;
                mem.store(t, TypeTable::I8, &at(p, 1), &Val::Undef)?;
                Ok(format!(
                    "{} {}",
                    mem.load(t, TypeTable::I32, &at(p, 0))?,
                    mem.load(t, TypeTable::I8, &at(p, 0))?
                ))
            },
            "⊤ 5",
        );
    }

    #[test]
    fn pointers_keep_provenance() {
        check(
            |mem, t, p| {
                mem.store(t, TypeTable::PTR, &at(p, 0), &at(p, 12))?;
                let back = mem.load(t, TypeTable::PTR, &at(p, 0))?;
                let bits = mem.load(t, TypeTable::I64, &at(p, 0))?;
                Ok(format!("{back} {bits:?}"))
            },
            "&0+12 Int(1099511627788)",
        );
        check(
            |mem, t, p| {
                let address = Pointer::from_address((1 << 40) + 3).address();
                mem.store(t, TypeTable::I64, &at(p, 8), &Val::Int(u128::from(address)))?;
                Ok(mem.load(t, TypeTable::PTR, &at(p, 8))?.to_string())
            },
            "&0+3",
        );
        check(
            |mem, t, p| {
                mem.store(t, TypeTable::PTR, &at(p, 0), &at(p, 4))?;
                mem.store(t, TypeTable::I8, &at(p, 0), &Val::Int(9))?;
                Ok(mem.load(t, TypeTable::PTR, &at(p, 0))?.to_string())
            },
            "&0+9",
        );
    }

    #[test]
    fn undefined_accesses_are_errors() {
        check(
            |mem, t, _| {
                Ok(mem
                    .load(t, TypeTable::I32, &Val::Ptr(Pointer::from_address(0)))?
                    .to_string())
            },
            "error: access through pointer 0x0 that points to no object (§4.9.1)",
        );
        check(
            |mem, t, _| {
                let wild = Val::Ptr(Pointer::from_address(5 << 40));
                Ok(mem.load(t, TypeTable::I32, &wild)?.to_string())
            },
            "error: access through pointer 0x50000000000 that points to no object (§4.9.1)",
        );
        check(
            |mem, t, _| Ok(mem.load(t, TypeTable::I32, &Val::Undef)?.to_string()),
            "error: active lane accesses memory through an undefined pointer ⊤ (§4.9.1)",
        );
        check(
            |mem, t, p| {
                mem.kill(p.object.unwrap());
                mem.store(t, TypeTable::I8, &at(p, 0), &Val::Int(1))?;
                Ok(String::new())
            },
            "error: access to input buf after its lifetime ended (§4.9.1)",
        );
        check(
            |mem, t, p| {
                mem.store(t, TypeTable::I32, &at(p, 12), &Val::Int(1))?;
                mem.store(t, TypeTable::I32, &at(p, 13), &Val::Int(1))?;
                Ok(String::new())
            },
            "error: access of 4 bytes at offset 13 is out of bounds of input buf of 16 bytes (§4.9.1)",
        );
        check(
            |mem, t, p| Ok(mem.load(t, TypeTable::I8, &at(p, u64::MAX))?.to_string()),
            "error: access of 1 bytes at offset -1 is out of bounds of input buf of 16 bytes (§4.9.1)",
        );
        check(
            |mem, t, p| {
                mem.set_read_only(p.object.unwrap(), true);
                mem.load(t, TypeTable::I8, &at(p, 0))?;
                mem.write_bytes(p, &[Byte::Data(1)])?;
                Ok(String::new())
            },
            "error: store to read-only input buf (§4.9.1)",
        );
        check(
            |mem, t, p| {
                // Aggregates and vectors load element by element; uninitialized
                // bytes make only their own element ⊤.
                let pair = t.intern(TypeData::Array(2, TypeTable::I32));
                mem.store(t, TypeTable::I32, &at(p, 4), &Val::Int(7))?;
                Ok(mem.load(t, pair, &at(p, 0))?.to_string())
            },
            "<⊤, 7>",
        );
        check(
            |mem, t, p| {
                let v = t.intern(TypeData::Vector(3, TypeTable::I32));
                let s = t.intern(TypeData::Struct {
                    fields: vec![TypeTable::I8, TypeTable::I32],
                    packed: false,
                });
                let three = Val::Agg(vec![Val::Int(1), Val::Undef, Val::Int(3)].into());
                mem.store(t, v, &at(p, 0), &three)?;
                let back = mem.load(t, v, &at(p, 0))?;
                let pair = Val::Agg(vec![Val::Int(9), Val::Int(5)].into());
                mem.store(t, s, &at(p, 0), &pair)?;
                let field = mem.load(t, TypeTable::I32, &at(p, 4))?;
                Ok(format!(
                    "{back} {field} {}",
                    mem.load(t, TypeTable::I8, &at(p, 1))?
                ))
            },
            "<1, ⊤, 3> 5 ⊤",
        );
        check(
            |mem, t, p| {
                let bits = t.intern(TypeData::Vector(8, TypeTable::I1));
                Ok(mem.load(t, bits, &at(p, 0))?.to_string())
            },
            "error: unsupported memory access: load or store of <8 x i1> (LLVM packs vectors of sub-byte elements as bits)",
        );
        check(
            |mem, t, p| {
                mem.store(t, TypeTable::I32, &at(p, 0), &Val::F32(0))?;
                Ok(String::new())
            },
            "error: unsupported memory access: cannot store 0.0 as i32",
        );
    }

    #[test]
    fn messages_name_globals_and_allocas() {
        check(
            |mem, t, _| {
                let g = mem.allocate(ObjectKind::Global { name: "Y".into() }, 4, 4)?;
                mem.set_read_only(g.object.unwrap(), true);
                Ok(mem
                    .store(t, TypeTable::I32, &at(g, 0), &Val::Int(1))
                    .unwrap_err()
                    .to_string())
            },
            "store to read-only @Y (§4.9.1)",
        );
        check(
            |mem, t, _| {
                let p = newptr_w(mem, 4, 4, &[false, true], "%p in a")?;
                Ok(mem.load(t, TypeTable::I64, &p[1]).unwrap_err().to_string())
            },
            "access of 8 bytes at offset 0 is out of bounds of %p in a (alloca of lane 1) of 4 bytes (§4.9.1)",
        );
    }

    #[test]
    fn memset_and_memcpy_keep_bytes_and_provenance() {
        check(
            |mem, t, p| {
                mem.store(t, TypeTable::PTR, &at(p, 0), &at(p, 4))?;
                // memmove of 12 bytes two bytes up: the source is read before the write.
                mem.copy_bytes(Pointer { offset: 2, ..p }, p, 12)?;
                mem.fill_bytes(p, 2, Byte::Data(7))?;
                mem.fill_bytes(Pointer { offset: 14, ..p }, 2, Byte::Uninit)?;
                Ok(format!(
                    "{} {} {}",
                    mem.load(t, TypeTable::PTR, &at(p, 2))?,
                    mem.load(t, TypeTable::I8, &at(p, 1))?,
                    mem.load(t, TypeTable::I8, &at(p, 14))?
                ))
            },
            "&0+4 7 ⊤",
        );
    }

    #[test]
    fn misaligned_access_is_defined() {
        check(
            |mem, t, p| {
                mem.store(t, TypeTable::F64, &at(p, 3), &Val::F64(1.5f64.to_bits()))?;
                Ok(mem.load(t, TypeTable::F64, &at(p, 3))?.to_string())
            },
            "1.5",
        );
    }

    #[test]
    fn limits_and_lifetimes() {
        check(
            |mem, _, _| {
                mem.allocate(
                    ObjectKind::Alloca {
                        lane: 0,
                        site: String::new(),
                    },
                    48,
                    4,
                )?;
                mem.allocate(
                    ObjectKind::Alloca {
                        lane: 1,
                        site: String::new(),
                    },
                    1,
                    4,
                )?;
                Ok(String::new())
            },
            "error: memory limit exceeded: 1 more bytes requested with 64 in use, limit 64 bytes (newptr, §4.9.1; --memory-limit sets it)",
        );
        check(
            |mem, _, p| {
                mem.kill(p.object.unwrap());
                mem.kill(p.object.unwrap());
                let q = mem.allocate(
                    ObjectKind::Alloca {
                        lane: 0,
                        site: String::new(),
                    },
                    64,
                    4,
                )?;
                Ok(format!("{} {:?}", mem.live_bytes(), q.object))
            },
            "64 Some(ObjectId(1))",
        );
        check(
            |mem, _, _| {
                Ok(format!(
                    "{:?}",
                    mem.allocate(
                        ObjectKind::Alloca {
                            lane: 0,
                            site: String::new()
                        },
                        1,
                        3
                    )?
                ))
            },
            "error: unsupported memory access: alignment 3 is not a power of two up to 2^40",
        );
        check(
            |mem, t, p| {
                let q = mem.allocate(
                    ObjectKind::Alloca {
                        lane: 0,
                        site: String::new(),
                    },
                    4,
                    4,
                )?;
                mem.kill(p.object.unwrap());
                Ok(format!(
                    "{} {}",
                    dump(mem, t, p, TypeTable::I8),
                    dump(mem, t, q, TypeTable::I8)
                ))
            },
            "<dead input buf> [⊤, ⊤, ⊤, ⊤]",
        );
    }

    #[test]
    fn newptr_gives_private_objects_to_active_lanes() {
        check(
            |mem, _, _| {
                let ptrs = newptr_w(mem, 4, 4, &[true, false, true], "%p in a")?;
                let kinds: Vec<String> = mem
                    .objects()
                    .map(|(id, o)| format!("{}:{}", id.0, o.kind))
                    .collect();
                let ptrs: Vec<String> = ptrs.iter().map(Val::to_string).collect();
                Ok(format!("{} | {}", ptrs.join(" "), kinds.join(" ")))
            },
            "&1+0 ⊤ &2+0 | 0:input buf 1:%p in a (alloca of lane 0) 2:%p in a (alloca of lane 2)",
        );
        check(
            |mem, _, _| {
                newptr_w(mem, 20, 4, &[true, true, true], "")?;
                Ok(String::new())
            },
            "error: memory limit exceeded: 60 more bytes requested with 16 in use, limit 64 bytes (newptr, §4.9.1; --memory-limit sets it)",
        );
    }

    #[test]
    fn gather_and_scatter() {
        let lanes = |e: LaneMemError| MemError::Unsupported(e.to_string());
        check(
            |mem, t, p| {
                let ptrs = [at(p, 0), at(p, 8), Val::Undef, at(p, 8)];
                let data = [Val::Int(1), Val::Int(2), Val::Int(3), Val::Int(2)];
                write_w(
                    mem,
                    t,
                    TypeTable::I32,
                    &[true, true, false, true],
                    &ptrs,
                    &data,
                )
                .map_err(lanes)?;
                let back = read_w(mem, t, TypeTable::I32, &[true, true, false, false], &ptrs)
                    .map_err(lanes)?;
                let back: Vec<String> = back.iter().map(Val::to_string).collect();
                Ok(format!(
                    "{} {}",
                    dump(mem, t, p, TypeTable::I32),
                    back.join(" ")
                ))
            },
            "[1, ⊤, 2, ⊤] 1 2 ⊤ ⊤",
        );
        check(
            |mem, t, p| {
                let ptrs = [at(p, 0), at(p, 8), at(p, 10)];
                let data = [Val::Int(1), Val::Int(2), Val::Int(3)];
                write_w(mem, t, TypeTable::I32, &[true; 3], &ptrs, &data).map_err(lanes)?;
                Ok(String::new())
            },
            "error: unsupported memory access: lane 2: lanes 1 and 2 scatter different values to byte 10 of input buf (write^W, §4.9.1)",
        );
        check(
            |mem, t, p| {
                let ptrs = [at(p, 0), at(p, 8), at(p, 14)];
                let data = [Val::Int(1), Val::Int(2), Val::Int(3)];
                let result = write_w(mem, t, TypeTable::I32, &[true; 3], &ptrs, &data);
                Ok(format!(
                    "{} {}",
                    result.map_err(lanes).err().unwrap(),
                    dump(mem, t, p, TypeTable::I32)
                ))
            },
            // Nothing is written when one lane's store is undefined.
            "unsupported memory access: lane 2: access of 4 bytes at offset 14 is out of bounds of input buf of 16 bytes (§4.9.1) [⊤, ⊤, ⊤, ⊤]",
        );
        check(
            |mem, t, p| {
                let ptrs = [at(p, 0), Val::Undef];
                Ok(format!(
                    "{:?}",
                    read_w(mem, t, TypeTable::I8, &[true, true], &ptrs).map_err(lanes)?
                ))
            },
            "error: unsupported memory access: lane 1: active lane accesses memory through an undefined pointer ⊤ (§4.9.1)",
        );
    }

    #[test]
    fn global_initializers() {
        let int = |v: u32| GlobalInit::Scalar(ConstData::Int(BigUint::from(v)));
        check(
            |mem, t, p| {
                let g = mem.allocate(ObjectKind::Global { name: "g".into() }, 16, 8)?;
                let s = t.intern(TypeData::Struct {
                    fields: vec![TypeTable::I8, TypeTable::I32, TypeTable::PTR],
                    packed: false,
                });
                let init = GlobalInit::Aggregate(vec![
                    int(1),
                    GlobalInit::Undef,
                    GlobalInit::Scalar(ConstData::Global(GlobalId::from_u32(0))),
                ]);
                mem.init_global(t, g, s, &init)?;
                let arr = t.intern(TypeData::Array(4, TypeTable::I32));
                mem.init_global(
                    t,
                    p,
                    arr,
                    &GlobalInit::Aggregate(vec![int(1), int(2), GlobalInit::Zero, int(4)]),
                )?;
                Ok(format!(
                    "{} {}",
                    dump(mem, t, g, s),
                    dump(mem, t, p, TypeTable::I32)
                ))
            },
            "[{1, ⊤, &1+0}] [1, 2, 0, 4]",
        );
        check(
            |mem, t, p| {
                mem.set_read_only(p.object.unwrap(), true);
                let arr = t.intern(TypeData::Array(2, TypeTable::I64));
                mem.init_global(t, p, arr, &GlobalInit::Zero)?;
                Ok(dump(mem, t, p, arr))
            },
            "[[0, 0]]",
        );
        check(
            |mem, t, p| {
                let arr = t.intern(TypeData::Array(4, TypeTable::I32));
                mem.init_global(t, p, arr, &GlobalInit::Aggregate(vec![int(1)]))?;
                Ok(String::new())
            },
            "error: unsupported memory access: 1 initializers for type [4 x i32]",
        );
        check(
            |mem, t, p| {
                mem.init_global(
                    t,
                    p,
                    TypeTable::PTR,
                    &GlobalInit::Scalar(ConstData::Global(GlobalId::from_u32(0))),
                )?;
                Ok(String::new())
            },
            "error: unsupported memory access: initializer refers to global global0, which has no object",
        );
    }
}
