//! Typed `u32` handles and the dense maps keyed by them (docs/design/style.md §2).
//!
//! Every IR node lives in an arena owned by its function or module and is named
//! by a handle. One macro defines every handle so that they all behave alike.

use std::marker::PhantomData;

/// A handle: a `u32` index into one arena.
pub trait EntityRef: Copy + Eq + Ord + std::hash::Hash + std::fmt::Debug {
    /// The handle for arena slot `index`.
    fn new(index: usize) -> Self;
    /// The arena slot this handle names.
    fn index(self) -> usize;
}

/// Defines a handle type `$name` over a private `u32` whose `Debug` prints
/// `$prefix` and the index. The number is reached only through
/// `$name::from_u32` / `$name::as_u32` (or [`EntityRef::new`] /
/// [`EntityRef::index`] as a `usize`), so a handle is never confused with the
/// integer it wraps.
#[macro_export]
macro_rules! entity {
    ($(#[$attr:meta])* $name:ident, $prefix:literal) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        pub struct $name(u32);

        impl $name {
            /// The handle for arena slot `index`.
            pub const fn from_u32(index: u32) -> Self {
                $name(index)
            }
            /// The arena slot this handle names, as a `u32`.
            pub const fn as_u32(self) -> u32 {
                self.0
            }
        }

        impl $crate::entity::EntityRef for $name {
            fn new(index: usize) -> Self {
                $name(u32::try_from(index).expect("more than u32::MAX entities"))
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

/// An arena: the owner of the data behind each handle `K`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PrimaryMap<K: EntityRef, V> {
    items: Vec<V>,
    key: PhantomData<K>,
}

impl<K: EntityRef, V> Default for PrimaryMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V: std::fmt::Debug> std::fmt::Debug for PrimaryMap<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: EntityRef, V> PrimaryMap<K, V> {
    /// An empty arena.
    pub fn new() -> Self {
        Self {
            items: Vec::new(),
            key: PhantomData,
        }
    }
    /// An empty arena with room for `n` entities.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            items: Vec::with_capacity(n),
            key: PhantomData,
        }
    }
    /// Makes room for `n` more entities.
    pub fn reserve(&mut self, n: usize) {
        self.items.reserve(n);
    }
    /// Stores `value` and returns its new handle.
    pub fn push(&mut self, value: V) -> K {
        let key = K::new(self.items.len());
        self.items.push(value);
        key
    }
    /// Number of entities.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// Whether the arena holds nothing.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// The handle the next `push` returns.
    pub fn next_key(&self) -> K {
        K::new(self.items.len())
    }
    /// Every handle, in creation order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator + use<K, V> {
        (0..self.items.len()).map(K::new)
    }
    /// Every `(handle, data)` pair, in creation order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> + ExactSizeIterator {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
    /// The data, in creation order.
    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.items.iter()
    }
    /// The data behind `key`, if the arena holds it.
    pub fn get(&self, key: K) -> Option<&V> {
        self.items.get(key.index())
    }
    /// The data behind `key`, mutably, if the arena holds it.
    pub fn get_mut(&mut self, key: K) -> Option<&mut V> {
        self.items.get_mut(key.index())
    }
    /// Whether `key` names an entity of this arena.
    pub fn is_valid(&self, key: K) -> bool {
        key.index() < self.items.len()
    }
}

impl<K: EntityRef, V> std::ops::Index<K> for PrimaryMap<K, V> {
    type Output = V;
    fn index(&self, key: K) -> &V {
        &self.items[key.index()]
    }
}

impl<K: EntityRef, V> std::ops::IndexMut<K> for PrimaryMap<K, V> {
    fn index_mut(&mut self, key: K) -> &mut V {
        &mut self.items[key.index()]
    }
}

/// A side table keyed by handles of some arena, with a default for absent keys
/// (analyses return these: `BlockMap<T>` is `SecondaryMap<Block, T>`).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SecondaryMap<K: EntityRef, V: Clone> {
    items: Vec<V>,
    default: V,
    key: PhantomData<K>,
}

impl<K: EntityRef, V: Clone + std::fmt::Debug> std::fmt::Debug for SecondaryMap<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.items.iter().enumerate().map(|(i, v)| (K::new(i), v)))
            .finish()
    }
}

impl<K: EntityRef, V: Clone + Default> Default for SecondaryMap<K, V> {
    fn default() -> Self {
        Self::with_default(V::default())
    }
}

impl<K: EntityRef, V: Clone> SecondaryMap<K, V> {
    /// An empty table whose absent entries read as `default`.
    pub fn with_default(default: V) -> Self {
        Self {
            items: Vec::new(),
            default,
            key: PhantomData,
        }
    }
    /// A table with `len` entries, all `default`.
    pub fn filled(len: usize, default: V) -> Self {
        Self {
            items: vec![default.clone(); len],
            default,
            key: PhantomData,
        }
    }
    /// The entry for `key` (the default when absent).
    pub fn get(&self, key: K) -> &V {
        self.items.get(key.index()).unwrap_or(&self.default)
    }
    /// Every `(handle, entry)` pair stored so far.
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
}

impl<K: EntityRef, V: Clone> std::ops::Index<K> for SecondaryMap<K, V> {
    type Output = V;
    fn index(&self, key: K) -> &V {
        self.get(key)
    }
}

impl<K: EntityRef, V: Clone> std::ops::IndexMut<K> for SecondaryMap<K, V> {
    fn index_mut(&mut self, key: K) -> &mut V {
        let i = key.index();
        if i >= self.items.len() {
            self.items.resize(i + 1, self.default.clone());
        }
        &mut self.items[i]
    }
}
