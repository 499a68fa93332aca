//! A persistent vector of fixed length with cached 128-bit digests: the store of
//! Δ^W ([`crate::rules::Env`], thesis Def. 3) that lets a state be copied in
//! O(1) and fingerprinted in time proportional to what changed since its
//! parent was fingerprinted, instead of in time proportional to the program.
//!
//! Why: exhaustive exploration (`pllvm explore`, Def. 12) copies the state
//! before every step and identifies states by a fingerprint of all of σ. With
//! Δ^W a flat vector of one column per value, both cost O(values) per visited
//! state, and the values grow with the program: exploring a program twice as
//! long visits twice the states at twice the cost each. A step changes the
//! columns of one block's instructions only, so a copy that shares the
//! unchanged columns and a digest that reuses the unchanged parts' digests
//! make the cost of a state independent of the program's size (up to the
//! logarithmic depth of the tree).
//!
//! The shape: items are kept in leaves of [`FAN`] items, leaves under inner
//! nodes of up to [`FAN`] children, in as many levels as the length needs
//! (item `i` is found by the digits of `i` in base [`FAN`], most significant
//! first). The shape depends on the length alone, so two vectors of equal
//! length and equal items have the same shape. Nodes are shared through
//! [`Arc`]; [`PVec::get_mut`] copies the nodes on the path to the item that
//! are shared with another vector (clone on write, O(FAN · depth)) and forgets
//! their digests, so every other vector keeps its items and digests.
//!
//! The digest of a node is two SipHash digests (the second keyed by a salt), of
//! its items for a leaf and of its children's digests for an inner node,
//! computed when first asked for and kept until the node changes. Equal
//! vectors have equal digests (same shape, same items, by induction from the
//! leaves), so [`Hash`] feeds the root's digest (the items themselves for a
//! vector of at most [`HASH_FLAT_MAX`]) and agrees with [`PartialEq`];
//! two different vectors of one length have equal digests only if, at some
//! node where they differ, both 64-bit halves collide (probability about
//! 2^-128 per node compared).
//!
//! [`work`] counts the items hashed and copied on this thread, so that tests
//! can bound that work per explored state by a count instead of by time.

use std::cell::Cell;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

/// log2 of [`FAN`].
const BITS: u32 = 4;

/// Items per leaf, children per inner node.
pub const FAN: usize = 1 << BITS;

/// The salt of the second digest.
const SALT: u64 = 0x9e37_79b9_7f4a_7c15;

/// The work of [`PVec`] on one thread so far (see [`work`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Items and child digests fed to the hashers while computing digests.
    pub hashed: u64,
    /// Items and child pointers copied by clone on write.
    pub copied: u64,
}

thread_local! {
    static WORK: Cell<Work> = const { Cell::new(Work { hashed: 0, copied: 0 }) };
}

/// The work [`PVec`]s have done on this thread since it started: every item or
/// child digest hashed, every item or child pointer copied. Cloning a whole
/// [`PVec`] counts nothing (it is one reference count).
pub fn work() -> Work {
    WORK.with(Cell::get)
}

/// Adds to this thread's [`work`].
fn count(hashed: usize, copied: usize) {
    WORK.with(|w| {
        let mut now = w.get();
        now.hashed += hashed as u64;
        now.copied += copied as u64;
        w.set(now);
    });
}

/// A vector of fixed length whose copies share their unchanged parts (module
/// doc).
pub struct PVec<T> {
    len: usize,
    /// Inner levels above the leaves (0: the root is a leaf).
    height: u32,
    root: Arc<Node<T>>,
}

/// A node: a leaf of items or an inner node of children, and its digest once
/// computed.
struct Node<T> {
    kind: Kind<T>,
    digest: OnceLock<u128>,
}

/// What a node holds.
#[derive(Clone)]
enum Kind<T> {
    /// Up to [`FAN`] items.
    Leaf(Vec<T>),
    /// Up to [`FAN`] children, each a full subtree except maybe the last.
    Inner(Vec<Arc<Node<T>>>),
}

impl<T: Clone> Clone for Node<T> {
    /// A copy for clone on write (the caller changes it and forgets the digest).
    fn clone(&self) -> Self {
        let len = match &self.kind {
            Kind::Leaf(items) => items.len(),
            Kind::Inner(children) => children.len(),
        };
        count(0, len);
        Node {
            kind: self.kind.clone(),
            digest: self.digest.clone(),
        }
    }
}

impl<T> Clone for PVec<T> {
    /// O(1): the copy shares every node.
    fn clone(&self) -> Self {
        PVec {
            len: self.len,
            height: self.height,
            root: Arc::clone(&self.root),
        }
    }
}

impl<T> Node<T> {
    fn new(kind: Kind<T>) -> Arc<Node<T>> {
        Arc::new(Node {
            kind,
            digest: OnceLock::new(),
        })
    }
}

impl<T> PVec<T> {
    /// The vector of `items`, in order.
    pub fn from_vec(items: Vec<T>) -> PVec<T> {
        let len = items.len();
        let mut level: Vec<Arc<Node<T>>> = Vec::with_capacity(len.div_ceil(FAN));
        let mut items = items.into_iter().peekable();
        while items.peek().is_some() {
            level.push(Node::new(Kind::Leaf(items.by_ref().take(FAN).collect())));
        }
        if level.is_empty() {
            level.push(Node::new(Kind::Leaf(Vec::new())));
        }
        let mut height = 0;
        while level.len() > 1 {
            let mut up = Vec::with_capacity(level.len().div_ceil(FAN));
            let mut nodes = level.into_iter().peekable();
            while nodes.peek().is_some() {
                up.push(Node::new(Kind::Inner(nodes.by_ref().take(FAN).collect())));
            }
            level = up;
            height += 1;
        }
        let root = level
            .pop()
            .unwrap_or_else(|| Node::new(Kind::Leaf(Vec::new())));
        PVec { len, height, root }
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Item `i` (panics when `i` is out of bounds, as indexing a slice does).
    #[inline]
    pub fn get(&self, i: usize) -> &T {
        assert!(i < self.len, "index {i} out of bounds of {}", self.len);
        let mut node = &*self.root;
        let mut shift = self.height * BITS;
        loop {
            match &node.kind {
                Kind::Leaf(items) => return &items[i & (FAN - 1)],
                Kind::Inner(children) => {
                    node = &children[(i >> shift) & (FAN - 1)];
                    shift -= BITS;
                }
            }
        }
    }

    /// Calls `f` on every item, in order.
    pub fn for_each(&self, f: &mut dyn FnMut(&T)) {
        fn walk<T>(node: &Node<T>, f: &mut dyn FnMut(&T)) {
            match &node.kind {
                Kind::Leaf(items) => items.iter().for_each(f),
                Kind::Inner(children) => children.iter().for_each(|c| walk(c, f)),
            }
        }
        walk(&self.root, f);
    }
}

impl<T: Clone> PVec<T> {
    /// Item `i` for changing in place: the nodes on its path that another
    /// vector shares are copied first, and their digests forgotten.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> &mut T {
        assert!(i < self.len, "index {i} out of bounds of {}", self.len);
        let mut shift = self.height * BITS;
        let mut node = Arc::make_mut(&mut self.root);
        loop {
            node.digest.take();
            match &mut node.kind {
                Kind::Leaf(items) => return &mut items[i & (FAN - 1)],
                Kind::Inner(children) => {
                    node = Arc::make_mut(&mut children[(i >> shift) & (FAN - 1)]);
                    shift -= BITS;
                }
            }
        }
    }
}

impl<T: Hash> Node<T> {
    /// The node's digest (module doc), computed once.
    fn digest(&self) -> u128 {
        *self.digest.get_or_init(|| {
            let mut pair = Pair(DefaultHasher::new(), DefaultHasher::new());
            SALT.hash(&mut pair.1);
            match &self.kind {
                Kind::Leaf(items) => {
                    count(items.len(), 0);
                    items.iter().for_each(|x| x.hash(&mut pair));
                }
                Kind::Inner(children) => {
                    count(children.len(), 0);
                    children.iter().for_each(|c| pair.write_u128(c.digest()));
                }
            }
            (u128::from(pair.0.finish()) << 64) | u128::from(pair.1.finish())
        })
    }
}

/// Two hashers fed the same bytes: an item's `Hash` runs once (folding a
/// column's lanes, say) and both digests see what it writes.
struct Pair(DefaultHasher, DefaultHasher);

impl Hasher for Pair {
    fn finish(&self) -> u64 {
        self.0.finish()
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
        self.1.write(bytes);
    }

    fn write_u64(&mut self, x: u64) {
        self.0.write_u64(x);
        self.1.write_u64(x);
    }

    fn write_usize(&mut self, x: usize) {
        self.0.write_usize(x);
        self.1.write_usize(x);
    }
}

impl<T: Hash> PVec<T> {
    /// The 128-bit digest of the items (module doc): equal vectors have equal
    /// digests. Costs the digests of the nodes changed since the last call.
    pub fn digest(&self) -> u128 {
        self.root.digest()
    }
}

/// Up to this many items a vector is hashed item by item, as a flat vector is:
/// cheaper than two digests when most of a short vector changed between two
/// hashes (the interpreter's checked runs hash the state after every step).
pub const HASH_FLAT_MAX: usize = 4 * FAN;

impl<T: Hash> Hash for PVec<T> {
    /// The length, then the items when there are at most [`HASH_FLAT_MAX`],
    /// else the digest: O(changed nodes), not O(len). Either way a function of
    /// the length and the items, so equal vectors hash alike.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.len);
        if self.len <= HASH_FLAT_MAX {
            self.for_each(&mut |x| x.hash(state));
        } else {
            state.write_u128(self.digest());
        }
    }
}

impl<T: PartialEq> PartialEq for PVec<T> {
    /// Item by item, skipping the subtrees both vectors share.
    fn eq(&self, other: &PVec<T>) -> bool {
        fn same<T: PartialEq>(a: &Arc<Node<T>>, b: &Arc<Node<T>>) -> bool {
            if Arc::ptr_eq(a, b) {
                return true;
            }
            match (&a.kind, &b.kind) {
                (Kind::Leaf(x), Kind::Leaf(y)) => x == y,
                (Kind::Inner(x), Kind::Inner(y)) => {
                    x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
                }
                _ => false,
            }
        }
        self.len == other.len && same(&self.root, &other.root)
    }
}

impl<T: Eq> Eq for PVec<T> {}

impl<T: std::fmt::Debug> std::fmt::Debug for PVec<T> {
    /// As a list, like a `Vec`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut list = f.debug_list();
        self.for_each(&mut |x| {
            list.entry(x);
        });
        list.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The items in order, through [`PVec::for_each`].
    fn items<T: Clone>(v: &PVec<T>) -> Vec<T> {
        let mut out = Vec::new();
        v.for_each(&mut |x| out.push(x.clone()));
        out
    }

    /// What a flat vector would give: every item by [`PVec::get`] and by
    /// [`PVec::for_each`] is the reference's, equality is the reference's, and
    /// equal vectors have equal digests.
    fn check(v: &PVec<u32>, reference: &[u32]) {
        assert_eq!(v.len(), reference.len());
        assert_eq!(items(v), reference);
        for (i, x) in reference.iter().enumerate() {
            assert_eq!(v.get(i), x);
        }
        let rebuilt = PVec::from_vec(reference.to_vec());
        assert!(*v == rebuilt);
        assert_eq!(v.digest(), rebuilt.digest());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Writes to a vector and to copies of it, checked against flat
        /// vectors: every copy keeps its own items (persistence), equality and
        /// digests follow the items, and a different vector of the same length
        /// has a different digest.
        #[test]
        fn a_persistent_vector_behaves_as_a_flat_one(
            len in 0usize..600,
            writes in proptest::collection::vec((any::<u16>(), any::<u32>(), any::<bool>()), 0..60),
        ) {
            let start: Vec<u32> = (0..len as u32).collect();
            let mut v = PVec::from_vec(start.clone());
            let mut reference = start;
            let mut copies: Vec<(PVec<u32>, Vec<u32>)> = Vec::new();
            for (at, x, keep) in writes {
                if len == 0 {
                    break;
                }
                if keep {
                    copies.push((v.clone(), reference.clone()));
                    // Digests computed before a write must not survive it.
                    let _ = v.digest();
                }
                let i = at as usize % len;
                *v.get_mut(i) = x;
                reference[i] = x;
                check(&v, &reference);
            }
            for (copy, expect) in &copies {
                check(copy, expect);
                prop_assert_eq!(*copy == v, *expect == reference);
                if *expect != reference {
                    prop_assert_ne!(copy.digest(), v.digest());
                }
            }
        }
    }

    /// A write copies one path of the tree: at most [`FAN`] items or children
    /// per level, however long the vector; a digest after it hashes that path
    /// again, not the vector.
    #[test]
    fn a_write_to_a_copy_costs_one_path() {
        for len in [10usize, 1_000, 100_000] {
            let v = PVec::from_vec((0..len as u64).collect());
            let _ = v.digest();
            let mut copy = v.clone();
            let before = work();
            *copy.get_mut(len / 2) = 7;
            let _ = copy.digest();
            let after = work();
            let depth = (v.height + 1) as u64;
            assert!(after.copied - before.copied <= FAN as u64 * depth, "{len}");
            assert!(after.hashed - before.hashed <= FAN as u64 * depth, "{len}");
            assert_eq!(*v.get(len / 2), (len / 2) as u64);
            assert_ne!(v.digest(), copy.digest());
        }
    }
}
