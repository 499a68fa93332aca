//! Fresh names for blocks and values that transforms add to a body.
//!
//! A [`Namespace`] holds the names taken in one namespace of a body (its block
//! names, or its value names) and hands out new ones: `stem` if free, else
//! `stem.N` for the first free N (LLVM's habit of suffixing), or `prefixN` for
//! numbered families such as the poster's flow blocks `flow0, flow1, ...`. Names are
//! never given back, so the search for a stem resumes where the last one stopped:
//! a transform that names thousands of blocks after one stem stays linear.

use crate::ir::Body;
use std::collections::{HashMap, HashSet};

/// The names taken in one namespace, and where the search per stem resumes.
#[derive(Clone, Debug, Default)]
pub struct Namespace {
    taken: HashSet<String>,
    /// Per stem (`stem.N`) or prefix (`prefixN`, keyed with a trailing `#`): the
    /// next N to try.
    next: HashMap<String, u64>,
}

impl Namespace {
    /// A namespace in which `names` are taken.
    pub fn new(names: impl IntoIterator<Item = String>) -> Namespace {
        Namespace {
            taken: names.into_iter().collect(),
            next: HashMap::new(),
        }
    }

    /// The block names of `body`.
    pub fn blocks_of(body: &Body) -> Namespace {
        Namespace::new(body.blocks.values().map(|b| b.name.clone()))
    }

    /// The value names of `body`.
    pub fn values_of(body: &Body) -> Namespace {
        Namespace::new(body.values.values().filter_map(|v| v.name.clone()))
    }

    /// `stem` if free, else `stem.N` for the first free N ≥ 1; now taken.
    pub fn take(&mut self, stem: &str) -> String {
        if self.taken.insert(stem.to_string()) {
            return stem.to_string();
        }
        self.take_from(stem.to_string(), 1, |n| format!("{stem}.{n}"))
    }

    /// `prefixN` for the first free N ≥ 0; now taken.
    pub fn take_numbered(&mut self, prefix: &str) -> String {
        self.take_from(format!("{prefix}#"), 0, |n| format!("{prefix}{n}"))
    }

    fn take_from(&mut self, key: String, first: u64, name: impl Fn(u64) -> String) -> String {
        let from = self.next.get(&key).copied().unwrap_or(first);
        let mut n = from;
        let mut candidate = name(n);
        while self.taken.contains(&candidate) {
            n += 1;
            candidate = name(n);
        }
        self.next.insert(key, n + 1);
        self.taken.insert(candidate.clone());
        candidate
    }

    /// Whether `name` is taken.
    pub fn contains(&self, name: &str) -> bool {
        self.taken.contains(name)
    }
}

#[cfg(test)]
mod tests {
    use super::Namespace;

    #[test]
    fn stems_and_numbers_skip_taken_names() {
        let mut ns = Namespace::new(["a".to_string(), "a.1".to_string(), "flow0".to_string()]);
        assert_eq!(ns.take("b"), "b");
        assert_eq!(ns.take("a"), "a.2");
        assert_eq!(ns.take("a"), "a.3");
        assert_eq!(ns.take("b"), "b.1");
        assert_eq!(ns.take_numbered("flow"), "flow1");
        assert_eq!(ns.take_numbered("flow"), "flow2");
        assert!(ns.contains("a.3") && !ns.contains("a.4"));
    }
}
