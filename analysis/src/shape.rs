//! Vector shapes: the basic divergence lattice of thesis §6.1 (Fig. 6.1).
//!
//! The lattice has three elements ordered `⊥ ⊑ u ⊑ v`: ⊥ for a variable the analysis
//! has not reached yet (or that holds no value, like a `store`), *uniform* `u` for a
//! variable that "all threads that actively execute" its definition see with the
//! same value (under the masked concretization γ' of Fig. 6.3), and *varying* `v`
//! otherwise. The POPL'21 domain `UniS = Var → {true, false}` (§4.1) embeds as
//! `true ↦ u`, `false ↦ v`, with ⊥ for the points its fixpoint never reaches.
//! Richer lattices (the stride / alignment shapes of Ch. 10) refine `u` and `v`.

use serde::Serialize;

/// A vector shape: an element of the basic divergence lattice (Fig. 6.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    /// ⊥: not (yet) known to hold any value.
    #[default]
    Bottom,
    /// `u`: the active threads agree (γ'(u), Fig. 6.3).
    Uniform,
    /// `v`: the active threads may disagree.
    Varying,
}

impl Shape {
    /// The least upper bound `⊔` (Fig. 6.1: `⊥ ⊑ u ⊑ v`).
    pub fn join(self, other: Shape) -> Shape {
        self.max(other)
    }

    /// `⊔` over many shapes; ⊥ for none.
    pub fn join_all(shapes: impl IntoIterator<Item = Shape>) -> Shape {
        shapes.into_iter().fold(Shape::Bottom, Shape::join)
    }

    /// Whether this is `v`.
    pub fn is_varying(self) -> bool {
        self == Shape::Varying
    }

    /// Whether this is `u`.
    pub fn is_uniform(self) -> bool {
        self == Shape::Uniform
    }

    /// `u` for `true`, `v` for `false`: the POPL'21 abstract value (§4.1).
    pub fn from_uniform(uniform: bool) -> Shape {
        if uniform {
            Shape::Uniform
        } else {
            Shape::Varying
        }
    }

    /// The word the annotated output and the corpus use: `uniform`, `varying`, `bottom`.
    pub fn word(self) -> &'static str {
        match self {
            Shape::Bottom => "bottom",
            Shape::Uniform => "uniform",
            Shape::Varying => "varying",
        }
    }

    /// The one-letter symbol of the thesis figures: `⊥`, `u`, `v`.
    pub fn symbol(self) -> &'static str {
        match self {
            Shape::Bottom => "⊥",
            Shape::Uniform => "u",
            Shape::Varying => "v",
        }
    }

    /// Reads `uniform` / `varying` / `bottom` (and the symbols `u`, `v`, `⊥`).
    pub fn parse(word: &str) -> Option<Shape> {
        match word.trim() {
            "uniform" | "u" => Some(Shape::Uniform),
            "varying" | "v" => Some(Shape::Varying),
            "bottom" | "⊥" => Some(Shape::Bottom),
            _ => None,
        }
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

#[cfg(test)]
mod tests {
    use super::Shape::{self, Bottom, Uniform, Varying};

    fn check(a: Shape, b: Shape, expect: Shape) {
        assert_eq!(a.join(b), expect, "{a} ⊔ {b}");
        assert_eq!(b.join(a), expect, "{b} ⊔ {a}");
    }

    #[test]
    fn join_follows_fig_6_1() {
        check(Bottom, Bottom, Bottom);
        check(Bottom, Uniform, Uniform);
        check(Bottom, Varying, Varying);
        check(Uniform, Uniform, Uniform);
        check(Uniform, Varying, Varying);
        check(Varying, Varying, Varying);
        assert_eq!(Shape::join_all([]), Bottom);
        assert_eq!(Shape::join_all([Uniform, Bottom]), Uniform);
    }

    #[test]
    fn words_round_trip() {
        for s in [Bottom, Uniform, Varying] {
            assert_eq!(Shape::parse(s.word()), Some(s));
            assert_eq!(Shape::parse(s.symbol()), Some(s));
        }
        assert_eq!(Shape::parse("sometimes"), None);
    }
}
