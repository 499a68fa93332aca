//! Definite reaching definitions of POPL'21 §6 (Rosemann, Moll, Hack) as a data
//! flow over the CFG: the dominance domain `RD = Lab → Var → P(Lab)` (Def. 6.1),
//! its concretization (Def. 6.2) and the abstract transformer `F#_RD` (Def. 6.4),
//! solved to its greatest fixpoint. `crate::popl` uses it in the uniformity
//! transformer v2 `F#_Uni,2` (Def. 6.6).
//!
//! # The paper's program points on pllvm's blocks
//! The paper's CFG has a root `rt` without incoming edges (§3.1) and effects on
//! edges (§3.3). pllvm's IR has effects in blocks, so the points are:
//! - [`Point::Root`], the paper's `rt`: the state before the entry block runs
//!   (the parameters set, nothing else);
//! - [`Point::Block`] `p`: the state right after block `p`'s phis and commands ran,
//!   where its terminator branches. The edge into `p` (from `rt` for the entry
//!   block) carries `p`'s phis (the parallel copy for that edge, §4.8) and then its
//!   commands, so `isdef q p x` holds exactly when `x` is a phi or command result
//!   of `p`, whatever `q` is.
//!
//! A use of `x` in a command of `p` other than its definition reads `x` at point
//! `p` (no command of `p` redefines it); an incoming value of a phi of `p` for the
//! edge `q → p` is read at point `q`.
//!
//! # The fixpoint
//! `F#_RD rd = λp. λx. {p} ∪ ⋂_{q→p} f#_qp (rd q) x`, where `f#_qp` kills (`∅`)
//! when the edge defines `x` (Def. 6.4). `rt` has no incoming edge, so
//! `rd rt x = {rt}`. Like the data-flow formulation of dominance it hybridizes
//! (§6, Cooper et al.), the sets start full and shrink to the greatest fixpoint;
//! blocks the entry cannot reach keep the full set (no trace reaches them, so
//! Def. 6.2 says nothing there) and are neutral in the intersection.
//!
//! `isdef` depends on the variable only through the block that defines it, so one
//! fixpoint serves every value defined in one block ([`DefinitelyReaching`] per
//! defining block); parameters and constants are defined by no block.
//!
//! # SSA
//! In SSA the result is known in closed form, which is what the analyses assumed
//! before this module existed: for `x` defined in block `d` and `p` dominated by
//! `d`, `rd p x` is the path of the dominator tree from `d` down to `p`; for a
//! parameter, `rt` and every dominator of `p`. (Every path to `p` passes each such
//! `q`, and after its last `q` no `d`: a path `d → p` avoiding `q` would extend a
//! path to `d` that avoids `q` into one to `p`.) `proofs/tests/reaching_defs.rs`
//! checks that the data flow computes exactly this on generated programs.

use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{Block, Body, Value, ValueDef};
use std::collections::BTreeMap;

/// A program point of §6 (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Point {
    /// `rt`: before the entry block.
    Root,
    /// Right after the phis and commands of the block.
    Block(Block),
}

/// A set of program points: an element of `P(Lab)` (Def. 6.1), viewed in the
/// table that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PointSet<'a> {
    /// Bit 0 is `rt`, bit `b + 1` block `b`.
    words: &'a [u64],
}

/// The bit of `p` in a point set.
fn bit(p: Point) -> usize {
    match p {
        Point::Root => 0,
        Point::Block(b) => b.as_u32() as usize + 1,
    }
}

impl PointSet<'_> {
    /// Whether `p` is in the set.
    pub fn contains(&self, p: Point) -> bool {
        let k = bit(p);
        self.words
            .get(k / 64)
            .is_some_and(|w| w & (1 << (k % 64)) != 0)
    }

    /// The points of the set: `rt` first, then blocks in arena order.
    pub fn iter(&self) -> impl Iterator<Item = Point> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| {
            (0..64usize)
                .filter(move |bit| word & (1 << bit) != 0)
                .map(move |bit| match w * 64 + bit {
                    0 => Point::Root,
                    k => Block::from_u32(k as u32 - 1).into(),
                })
        })
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}

/// Adds `p` to the set `words`.
fn insert(words: &mut [u64], p: Point) {
    let k = bit(p);
    if let Some(w) = words.get_mut(k / 64) {
        *w |= 1 << (k % 64);
    }
}

impl From<Block> for Point {
    fn from(b: Block) -> Self {
        Point::Block(b)
    }
}

/// `isdef q p x` (Def. 6.4) on pllvm's points: whether the edge into `p` defines
/// `x`, i.e. `x` is the result of a phi or a command of `p` (the same for every
/// incoming edge).
pub fn isdef(body: &Body, p: Block, x: Value) -> bool {
    defining_block(body, x) == Some(p)
}

/// The block whose phi or command defines `x` (`None`: a parameter or constant,
/// or an instruction outside the layout).
pub fn defining_block(body: &Body, x: Value) -> Option<Block> {
    match body.values[x].def {
        ValueDef::Inst(i) => body
            .layout
            .iter()
            .copied()
            .find(|&b| body.blocks[b].phis.contains(&i) || body.blocks[b].body.contains(&i)),
        ValueDef::Const(_) | ValueDef::Param(_) => None,
    }
}

/// `rd · x` (Def. 6.1) at the greatest fixpoint of `F#_RD` (Def. 6.4) for the
/// variables `x` defined in one block (or in none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefinitelyReaching {
    /// The defining block (`None`: parameters and constants).
    pub def: Option<Block>,
    /// Words per set.
    stride: usize,
    /// `rd p x` per block `p` (by arena index), `stride` words each.
    sets: Vec<u64>,
    /// `rd rt x = {rt}`.
    root: Vec<u64>,
}

impl DefinitelyReaching {
    /// Solves `F#_RD` on `cfg` for the variables defined in `def`: a round-robin
    /// iteration in reverse postorder from the full sets down to the greatest
    /// fixpoint (one sweep on an acyclic CFG, a few more with loops).
    pub fn compute(cfg: &Cfg, def: Option<Block>) -> Self {
        let n = cfg.len();
        let bits = n + 1;
        let stride = bits.div_ceil(64);
        let mut full = vec![u64::MAX; stride];
        if !bits.is_multiple_of(64)
            && let Some(last) = full.last_mut()
        {
            *last = (1 << (bits % 64)) - 1;
        }
        let mut root = vec![0; stride];
        insert(&mut root, Point::Root);
        let mut sets: Vec<u64> = full.iter().copied().cycle().take(stride * n).collect();
        let order = cfg.reverse_postorder();
        let entry = cfg.entry();
        let mut next = full.clone();
        let intersect = |into: &mut [u64], other: &[u64]| {
            for (a, b) in into.iter_mut().zip(other) {
                *a &= b;
            }
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &p in &order {
                if Some(p) == def {
                    // isdef q p x for every incoming edge: f#_qp gives ∅.
                    next.iter_mut().for_each(|w| *w = 0);
                } else {
                    next.copy_from_slice(&full);
                    if p == entry {
                        intersect(&mut next, &root);
                    }
                    for &q in cfg.preds(p) {
                        if cfg.reachable(q) {
                            let at = q.as_u32() as usize * stride;
                            intersect(&mut next, &sets[at..at + stride]);
                        }
                    }
                }
                insert(&mut next, Point::Block(p));
                let at = p.as_u32() as usize * stride;
                let mine = &mut sets[at..at + stride];
                if *mine != *next {
                    mine.copy_from_slice(&next);
                    changed = true;
                }
            }
        }
        DefinitelyReaching {
            def,
            stride,
            sets,
            root,
        }
    }

    /// `rd p x` for the variables this table is for.
    pub fn at(&self, p: Point) -> PointSet<'_> {
        match p {
            Point::Root => PointSet { words: &self.root },
            Point::Block(b) => {
                let at = b.as_u32() as usize * self.stride;
                PointSet {
                    words: self.sets.get(at..at + self.stride).unwrap_or(&[]),
                }
            }
        }
    }
}

/// Definite reaching definitions of every value of a body (Def. 6.4), one
/// fixpoint per block that defines a value.
#[derive(Clone, Debug)]
pub struct ReachingDefs {
    by_block: BTreeMap<Block, DefinitelyReaching>,
    undefined: DefinitelyReaching,
    def_block: SecondaryMap<Value, Option<Block>>,
}

impl ReachingDefs {
    /// Solves `F#_RD` for every value of `body`.
    pub fn compute(body: &Body, cfg: &Cfg) -> Self {
        let mut def_block = SecondaryMap::with_default(None);
        let mut by_block = BTreeMap::new();
        for &b in &body.layout {
            let data = &body.blocks[b];
            let mut defines = false;
            for &i in data.phis.iter().chain(&data.body) {
                if let Some(v) = body.insts[i].result {
                    def_block[v] = Some(b);
                    defines = true;
                }
            }
            if defines {
                by_block.insert(b, DefinitelyReaching::compute(cfg, Some(b)));
            }
        }
        ReachingDefs {
            by_block,
            undefined: DefinitelyReaching::compute(cfg, None),
            def_block,
        }
    }

    /// `rd p x` (Def. 6.1).
    pub fn rd(&self, p: Point, x: Value) -> PointSet<'_> {
        self.table(x).at(p)
    }

    /// The table of the block defining `x`.
    pub fn table(&self, x: Value) -> &DefinitelyReaching {
        self.def_block[x]
            .and_then(|b| self.by_block.get(&b))
            .unwrap_or(&self.undefined)
    }

    /// The block defining `x` (`None`: parameters and constants).
    pub fn def_block(&self, x: Value) -> Option<Block> {
        self.def_block[x]
    }

    /// `q ∈ rd p x`: on every trace, an instance of `q` precedes each instance of
    /// `p` and `x` holds the same value at both (Def. 6.2).
    pub fn reaches(&self, q: Point, p: Point, x: Value) -> bool {
        self.rd(p, x).contains(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{blk, test_body};

    /// `rd P x` for the value named `x` at the block named `p`, as names (`rt`
    /// for the root), compared with `expect`.
    fn check(src: &str, x: &str, p: &str, expect: &[&str]) {
        let body = test_body(src);
        let cfg = Cfg::new(&body);
        let rd = ReachingDefs::compute(&body, &cfg);
        let v = body
            .values
            .iter()
            .find(|(_, data)| data.name.as_deref() == Some(x))
            .map(|(v, _)| v)
            .unwrap_or_else(|| panic!("no value %{x}"));
        let got: Vec<String> = rd
            .rd(Point::Block(blk(&body, p)), v)
            .iter()
            .map(|q| match q {
                Point::Root => "rt".to_string(),
                Point::Block(b) => body.blocks[b].name.clone(),
            })
            .collect();
        let mut want: Vec<String> = expect.iter().map(|s| s.to_string()).collect();
        let mut got_sorted = got.clone();
        got_sorted.sort();
        want.sort();
        assert_eq!(got_sorted, want, "rd {p} %{x}");
    }

    /// POPL'21 Fig. 1a, rebuilt as in `corpus/divergence/popl-fig1a-join.ll`: z is
    /// defined in S and unchanged on both sides, so S ∈ rd P z (§6: "z is
    /// unchanged with respect to program point S"); B, C, D, E are each on only
    /// one of the paths and do not reach P definitely. x, defined by the phi of P,
    /// is killed on every edge into P.
    const FIG_1A: &str = "define i32 @f(i1 %c, i32 %n) {
S:
  %z = add i32 %n, 1
  br i1 %c, label %B, label %C
B:
  br label %D
C:
  br label %E
D:
  br label %P
E:
  br label %P
P:
  %x = phi i32 [ 1, %D ], [ 2, %E ]
  %zp = add i32 %z, 0
  ret i32 %x
}";

    #[test]
    fn fig_1a_the_definition_before_the_split_reaches_the_join() {
        check(FIG_1A, "z", "P", &["S", "P"]);
        check(FIG_1A, "z", "D", &["S", "B", "D"]);
        check(FIG_1A, "z", "S", &["S"]);
        check(FIG_1A, "x", "P", &["P"]);
        // A parameter is defined by no block: rt and every dominator.
        check(FIG_1A, "n", "P", &["rt", "S", "P"]);
        check(FIG_1A, "n", "E", &["rt", "S", "C", "E"]);
    }

    /// POPL'21 Fig. 1b, rebuilt as in `corpus/divergence/popl-fig1b-loop.ll`
    /// (A → B; B → C; C → S; S → B, P): x defined in the loop at C reaches P
    /// definitely through S (the caveat of §6: it is still not uniform at P when
    /// the exit diverges; `lsplits` in `crate::popl` handles that). At the header
    /// B, x comes from the previous iteration on the back edge but is undefined on
    /// the entry edge: only B itself.
    const FIG_1B: &str = "define i32 @f(i32 %n) {
A:
  br label %B
B:
  %i = phi i32 [ 0, %A ], [ %x, %S ]
  br label %C
C:
  %x = add i32 %i, 1
  br label %S
S:
  %c = icmp slt i32 %x, %n
  br i1 %c, label %B, label %P
P:
  ret i32 %x
}";

    #[test]
    fn fig_1b_a_definition_in_the_loop_reaches_the_exit() {
        check(FIG_1B, "x", "P", &["C", "S", "P"]);
        check(FIG_1B, "x", "B", &["B"]);
        check(FIG_1B, "x", "S", &["C", "S"]);
        check(FIG_1B, "i", "P", &["B", "C", "S", "P"]);
        check(FIG_1B, "i", "B", &["B"]);
    }

    /// A definition on one side of a branch reaches the join only on that side:
    /// nothing but the join itself (an SSA program could not use it there).
    #[test]
    fn a_definition_on_one_path_does_not_reach_the_join() {
        let src = "define i32 @f(i1 %c) {
A:
  br i1 %c, label %B, label %C
B:
  %y = add i32 1, 2
  br label %C
C:
  ret i32 0
}";
        // On the path A → C, y keeps its old value (A and rt precede C with it);
        // on A → B → C, it was redefined in B: only C is left.
        check(src, "y", "C", &["C"]);
        check(src, "y", "B", &["B"]);
    }
}
