//! Side tables keyed by blocks (docs/design/style.md §2: analyses return tables
//! keyed by handles):
//! [`BlockMap`] and the bit set [`BlockSet`].

use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::Block;

/// A side table keyed by blocks (docs/design/style.md §2).
pub type BlockMap<T> = SecondaryMap<Block, T>;

/// A set of blocks of one body as a bit set over arena indices.
#[derive(Clone, Debug, PartialEq, Eq, Default, Hash)]
pub struct BlockSet {
    words: Vec<u64>,
}

impl BlockSet {
    /// The empty set, sized for `len` blocks (it grows on demand).
    pub fn with_capacity(len: usize) -> Self {
        BlockSet {
            words: vec![0; len.div_ceil(64)],
        }
    }

    /// Whether `block` is in the set.
    pub fn contains(&self, block: Block) -> bool {
        let (word, bit) = (block.as_u32() as usize / 64, block.as_u32() % 64);
        self.words.get(word).is_some_and(|w| w & (1 << bit) != 0)
    }

    /// Adds `block`; returns whether it was new.
    pub fn insert(&mut self, block: Block) -> bool {
        let (word, bit) = (block.as_u32() as usize / 64, block.as_u32() % 64);
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let new = self.words[word] & (1 << bit) == 0;
        self.words[word] |= 1 << bit;
        new
    }

    /// Adds every block of `other`; returns whether the set grew.
    pub fn union_with(&mut self, other: &BlockSet) -> bool {
        if other.words.len() > self.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        let mut grew = false;
        for (mine, theirs) in self.words.iter_mut().zip(&other.words) {
            let before = *mine;
            *mine |= theirs;
            grew |= *mine != before;
        }
        grew
    }

    /// The blocks of the set in ascending arena order.
    pub fn iter(&self) -> impl Iterator<Item = Block> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| {
            (0..64u32)
                .filter(move |bit| word & (1 << bit) != 0)
                .map(move |bit| Block::from_u32(w as u32 * 64 + bit))
        })
    }

    /// The number of blocks in the set.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}
