//! The uniformity analysis of POPL'21 (Rosemann, Moll, Hack): the uniformity
//! abstract transformer `F#_Uni` (Def. 4.7) with the relevant splits computed on
//! the head-rewired CFG `G⋆` (Def. 4.14, 4.18) by `labelDisj` (Algorithm 1), and
//! the refinement `F#_Uni,2` (Def. 6.6) that the definite reaching definitions of
//! §6 give for programs not in LCSSA.
//!
//! # From the paper's domain to SSA values
//! The paper's domain is `Uni = Lab → Var → {true, false}` (§4.1): uniformity of a
//! variable at a program point. `F#_Uni` makes `x` uniform at `p` iff every
//! relevant split of `p` has a uniform branch variable (`H_p`, local homogeneity,
//! Def. 4.3) and every incoming edge effect keeps `x` uniform. pllvm's programs are
//! in SSA, so it computes the fixpoint sparsely, one shape per value:
//! - a phi at `p` is an assignment on the edges into `p`: it is uniform iff `H_p`
//!   and its incoming values are uniform at the ends of their edges;
//! - any other value is uniform iff its operands are, by the same edge effects as
//!   the thesis' [DA-*] transformers ([`crate::thesis`]), which are sound for the
//!   P-LLVM commands (§4.3 assumes "a sound abstract edge transformer" for each);
//! - a use of `x` at `p` away from its definition `d`: `F#_Uni,2` (Def. 6.6)
//!   makes `x` uniform at `p` when `F#_Uni` does (`H_p` and `x` uniform at every
//!   predecessor) or when some `q ∈ rd p x \ {p}` has `x` uniform and every split
//!   of `lsplits q` uniform, where `rd` is the definite reaching definitions data
//!   flow of §6 (`F#_RD`, Def. 6.4, [`crate::reaching_defs`]) and `lsplits q` are
//!   the splits of the exits `e` of loops containing `q` with `e →* p` free of
//!   back edges. `x` at `d` is the value's shape; `x` at the other points of `d`'s
//!   dominance region is that dense fixpoint, computed per defining block when a
//!   use asks ([`ReachingDefinitions::DataFlow`], the paper's algorithm as
//!   written, kept as the reference). Without §6, `H` of every block between `d`
//!   and `p` would count (Fig. 1a: `z` at `P`).
//!   Def. 6.6 as printed conjoins `uni s x` over `s ∈ lsplits q`; the prose
//!   before it ("all loops surrounding q are exited homogeneously") and `H_p`
//!   (Def. 4.7) ask for the splits' branch variables, `uni s b_s`, as here.
//!
//! In SSA the data flow has a closed form (`rd p x` is the dominator-tree path
//! from `d` to `p`, see [`crate::reaching_defs`]), and the best `q` is `d`
//! itself: a use is varying through §6 exactly when an exit of a loop around `d`
//! that `p` is not in reaches `p` without a back edge and joins a varying split
//! (loops containing `p` too have no such exit: it would close a cycle without a
//! back edge). That closed form is [`ReachingDefinitions::SsaDominance`], what
//! [`analyze`] uses: it costs one climb of the loops around `d` per use, where
//! the data flow costs a fixpoint over `d`'s dominance region per defining block
//! (quadratic on a chain of loops: 10,000 blocks took 5.7 s and 490 MB).
//! `proofs/tests/reaching_defs.rs` checks that both give the same shapes on
//! generated reducible programs, LCSSA or not (`popl` refuses irreducible
//! ones). On LCSSA programs no use leaves a loop, and both coincide with
//! `F#_Uni` (§6.1).
//!
//! `s ∈ splits e` for a varying `s` is exactly "`e` is a join of `s`", so the
//! analysis keeps the set of joins of varying splits and asks it.
//!
//! Activation, `mask()`, `total`, shadow phis, block predicates and stack objects
//! have no counterpart in the paper; they get the thesis' transformers, so both
//! analyses differ only in how they find joins and in what a use outside a loop
//! sees (see `docs/analyses.md`).

use crate::disjoint::splits_joins;
use crate::engine::{JoinOracle, run};
use crate::facts::CfgFacts;
use crate::head_rewired::HeadRewired;
use crate::reaching_defs::{DefinitelyReaching, Point};
use crate::result::{AnalysisKind, InitShapes, Uniformity};
use pllvm_semantics::ir::{Block, Body, FuncId, Module};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// How `F#_Uni,2` (Def. 6.6) learns which definitions reach a use definitely.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReachingDefinitions {
    /// The data flow `F#_RD` of §6 (Def. 6.4, [`crate::reaching_defs`]) and the
    /// disjunction of Def. 6.6 over every `q ∈ rd p x`, with `x`'s uniformity at
    /// each such point computed densely: the paper's algorithm as written, the
    /// reference `proofs/tests/reaching_defs.rs` compares the closed form with.
    DataFlow,
    /// The SSA closed form, what [`analyze`] uses: only the definition's own
    /// block, which dominates the use, and its `lsplits`.
    SsaDominance,
}

/// `F#_Uni,2` (Def. 6.6) to its fixpoint on `func`, with the definite
/// reaching definitions of §6 in their SSA closed form
/// ([`ReachingDefinitions::SsaDominance`]; the module documentation says why
/// it equals the data flow, which `analyze_with` still runs on request).
pub fn analyze(
    module: &Module,
    func: FuncId,
    body: &Body,
    facts: &CfgFacts,
    init: &InitShapes,
) -> Uniformity {
    analyze_with(
        module,
        func,
        body,
        facts,
        init,
        ReachingDefinitions::SsaDominance,
    )
}

/// [`analyze`] with reaching definitions found as `how` says.
pub fn analyze_with(
    module: &Module,
    func: FuncId,
    body: &Body,
    facts: &CfgFacts,
    init: &InitShapes,
    how: ReachingDefinitions,
) -> Uniformity {
    let oracle = Splits::new(body, facts, how);
    run(module, func, body, facts, init, oracle, AnalysisKind::Popl)
}

/// The joins of every split (`{p | s ∈ splits p}`, Def. 4.18), computed on demand.
struct Splits<'a> {
    body: &'a Body,
    facts: &'a CfgFacts,
    gstar: HeadRewired,
    cache: BTreeMap<Block, BTreeSet<Block>>,
    how: ReachingDefinitions,
    /// Per defining block: `rd · x` (Def. 6.4) and the dense uniformity of its
    /// values (uniform at the definition) at every block, for the number of joins
    /// it was computed with (the join sets only grow).
    dense: RefCell<BTreeMap<Block, Dense>>,
}

/// `rd · x` for the values of one block, and `uni p x` at every block `p`.
struct Dense {
    rd: DefinitelyReaching,
    joins_seen: usize,
    uniform_at: Vec<bool>,
}

impl<'a> Splits<'a> {
    fn new(body: &'a Body, facts: &'a CfgFacts, how: ReachingDefinitions) -> Self {
        Splits {
            body,
            facts,
            gstar: HeadRewired::compute(body, &facts.loops),
            cache: BTreeMap::new(),
            how,
            dense: RefCell::new(BTreeMap::new()),
        }
    }

    /// `⋀_{s ∈ lsplits q} uni s b_s` for a use at `p` (Def. 6.6): no exit `e` of
    /// a loop containing `q` with `e →* p` free of back edges is a join of a
    /// varying split.
    ///
    /// Only the loops around `q` that do not hold `p` are climbed (the innermost
    /// ones, loops nest): an exit `e` of a loop `l` that holds `p` never reaches
    /// `p` free of back edges. Proof sketch: such a path enters `l` at its header
    /// `h` (the CFG is reducible, `h` dominates `l`), and a shortest path inside
    /// `l` from `h` to the exiting block of `e` takes no back edge (its target
    /// header would come twice); the two make a cycle of forward edges, which a
    /// reducible CFG has none of.
    fn lsplits_uniform(&self, q: Block, p: Block, joins: &dyn Fn(Block) -> bool) -> bool {
        let loops = &self.facts.loops;
        let mut around = loops.loop_of(q);
        while let Some(l) = around {
            if loops.contains(l, p) {
                return true;
            }
            if loops
                .exits(l)
                .iter()
                .any(|&e| (e == p || self.facts.reach.reaches(e, p)) && joins(e))
            {
                return false;
            }
            around = loops.parent(l);
        }
        true
    }

    /// `uni p x` (Def. 6.6) at every block `p` for a value `x` of block `d` that
    /// is uniform at `d`: the greatest fixpoint of
    /// `uni p x = (H_p ∧ ⋀_{q→p} uni q x) ∨ ⋁_{q ∈ rd p x \ {p}} (uni q x ∧ ⋀_{s ∈ lsplits q} uni s b_s)`
    /// over the blocks `d` dominates; `false` elsewhere (`x` is not defined there).
    fn dense_uniformity(
        &self,
        d: Block,
        rd: &DefinitelyReaching,
        joins: &dyn Fn(Block) -> bool,
    ) -> Vec<bool> {
        let cfg = &self.facts.cfg;
        let dom = &self.facts.dom;
        let in_region = |b: Block| cfg.reachable(b) && dom.dominates(d, b);
        let mut uni: Vec<bool> = (0..cfg.len() as u32)
            .map(|b| in_region(Block::from_u32(b)))
            .collect();
        let order: Vec<Block> = cfg
            .reverse_postorder()
            .into_iter()
            .filter(|&b| b != d && in_region(b))
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &p in &order {
                // F#_Uni (Def. 4.7): H_p and x uniform at every predecessor (the
                // edges into p leave x alone: p ≠ d).
                let homogeneous = !joins(p)
                    && cfg
                        .preds(p)
                        .iter()
                        .filter(|&&q| cfg.reachable(q))
                        .all(|&q| uni[q.as_u32() as usize]);
                let reaching = || {
                    rd.at(Point::Block(p)).iter().any(|q| match q {
                        Point::Block(q) if q != p => {
                            uni[q.as_u32() as usize] && self.lsplits_uniform(q, p, joins)
                        }
                        _ => false,
                    })
                };
                let now = homogeneous || reaching();
                if now != uni[p.as_u32() as usize] {
                    uni[p.as_u32() as usize] = now;
                    changed = true;
                }
            }
        }
        uni
    }

    /// `{p | s ∈ splits p}` (Def. 4.18): the blocks where two paths of `G⋆` from
    /// different `G`-successors of `s` meet, disjoint but for their end, found
    /// with `labelDisj` from the successors (Algorithm 1, Corollary 1).
    fn joins_of(&mut self, s: Block) -> BTreeSet<Block> {
        if let Some(j) = self.cache.get(&s) {
            return j.clone();
        }
        let joins: BTreeSet<Block> = splits_joins(self.body, &self.gstar, s)
            .into_iter()
            .collect();
        self.cache.insert(s, joins.clone());
        joins
    }
}

impl JoinOracle for Splits<'_> {
    /// The closed form reads loop exits only; the data flow reads `H_p` of
    /// every block of the definition's dominance region.
    fn live_out_reads_loop_exits(&self) -> bool {
        self.how == ReachingDefinitions::SsaDominance
    }

    fn joins(&mut self, div: Block) -> (BTreeSet<Block>, BTreeSet<Block>) {
        // H_p fails for every join p of a varying split. Joins that leave a loop
        // around the split are reported as temporal, the others as sync.
        let loops = &self.facts.loops;
        let innermost = loops.loop_of(div);
        // The loops around `div` that do not hold `p` are those from the
        // innermost one out to the first that holds it: only they are climbed.
        let (temporal, sync) = self.joins_of(div).into_iter().partition(|&p| {
            let mut around = innermost;
            while let Some(l) = around {
                if loops.contains(l, p) {
                    return false;
                }
                if loops.exits(l).contains(&p) {
                    return true;
                }
                around = loops.parent(l);
            }
            false
        });
        (sync, temporal)
    }

    fn live_out_varying(
        &self,
        def: Block,
        user: Block,
        sdep: &BTreeSet<Block>,
        tdep: &BTreeSet<Block>,
    ) -> bool {
        // `s ∈ splits e` for a varying split s: e is a join the engine recorded.
        let joins = |e: Block| sdep.contains(&e) || tdep.contains(&e);
        let loops = &self.facts.loops;
        // Loops nest: some loop around `def` does not hold `user` iff the
        // innermost one does not.
        let leaves_a_loop = loops.loop_of(def).is_some_and(|l| !loops.contains(l, user));
        match self.how {
            ReachingDefinitions::SsaDominance => {
                // lsplits(def) (Def. 6.6) with q = def, which dominates the use.
                !self.lsplits_uniform(def, user, &joins)
            }
            // Every loop around def contains the use: lsplits(def) is empty, and
            // def ∈ rd user x when def dominates the use (SSA), so Def. 6.6 keeps
            // the value's shape without the fixpoint.
            ReachingDefinitions::DataFlow
                if !leaves_a_loop && self.facts.dom.dominates(def, user) =>
            {
                false
            }
            ReachingDefinitions::DataFlow => {
                let mut dense = self.dense.borrow_mut();
                let seen = sdep.len() + tdep.len();
                let entry = dense.entry(def).or_insert_with(|| Dense {
                    rd: DefinitelyReaching::compute(&self.facts.cfg, Some(def)),
                    joins_seen: usize::MAX,
                    uniform_at: Vec::new(),
                });
                if entry.joins_seen != seen {
                    entry.uniform_at = self.dense_uniformity(def, &entry.rd, &joins);
                    entry.joins_seen = seen;
                }
                !entry
                    .uniform_at
                    .get(user.as_u32() as usize)
                    .copied()
                    .unwrap_or(false)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Shape;
    use crate::uniformity;

    /// The `popl` shape of `%value` with the parameters `uniform` uniform, under
    /// both ways of finding reaching definitions (they must agree), against
    /// `expect`.
    fn check(src: &str, uniform: &[&str], value: &str, expect: Shape) {
        let (module, _) = match pllvm_semantics::text::parse_module(src) {
            Ok(parsed) => parsed,
            Err(e) => panic!("the test program does not parse: {e:?}"),
        };
        let func = module.first_definition().expect("a definition");
        let uniform: Vec<String> = uniform.iter().map(|s| s.to_string()).collect();
        let init = InitShapes::with_uniform(&module.functions[func], &uniform).expect("params");
        let r = uniformity::analyze(&module, func, AnalysisKind::Popl, &init).expect("reducible");
        let body = module.functions[func].body.as_ref().expect("a body");
        let facts = CfgFacts::compute(body).expect("reducible");
        let shortcut = analyze_with(
            &module,
            func,
            body,
            &facts,
            &init,
            ReachingDefinitions::SsaDominance,
        );
        let v = body
            .values
            .iter()
            .find(|(_, d)| d.name.as_deref() == Some(value))
            .map(|(v, _)| v)
            .expect("the value");
        assert_eq!(r.values[v], expect, "%{value} with {uniform:?} uniform");
        assert_eq!(shortcut.values[v], expect, "%{value}, SSA shortcut");
    }

    /// POPL'21 Fig. 1b with the use of `x` two blocks after the exit: `x` is
    /// uniform in the loop; P is the loop's only exit, so `rd Q x = {C, S, P, Q}`
    /// (the data flow) and `lsplits C = splits P` (Def. 6.6): `%xq` in Q is
    /// uniform exactly when the exit branch in S is, i.e. when `n` is uniform.
    /// With `n` varying, `F#_Uni` also fails at P (H_P: S ∈ splits P) and at Q
    /// (its predecessor P), and every `q ∈ rd Q x` other than Q has P among its
    /// `lsplits` exits.
    const FIG_1B_LATE_USE: &str = "define i32 @f(i32 %n) {
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
  br label %Q
Q:
  %xq = add i32 %x, 0
  ret i32 %xq
}";

    #[test]
    fn a_use_after_the_exit_is_uniform_iff_the_exit_is() {
        check(FIG_1B_LATE_USE, &["n"], "xq", Shape::Uniform);
        check(FIG_1B_LATE_USE, &[], "xq", Shape::Varying);
        check(FIG_1B_LATE_USE, &[], "x", Shape::Uniform);
    }

    /// Two exits, of which only the uniform one reaches the use: H splits the
    /// lanes at a varying `%v` and loops while a uniform `%u` says so; lanes
    /// leave through E1 (uniform exit: `%u` false, all lanes together) or E2
    /// (taken by the lanes with `%v` false, in different iterations). The use in
    /// U after E1 sees one iteration's `x` (Def. 6.6: E2 does not reach U), the
    /// use in V after E2 does not.
    const TWO_EXITS: &str = "define i32 @f(i1 %v, i1 %u) {
A:
  br label %H
H:
  %x = phi i32 [ 0, %A ], [ %y, %L ]
  %y = add i32 %x, 1
  br i1 %v, label %L, label %E2
L:
  br i1 %u, label %H, label %E1
E1:
  br label %U
U:
  %xu = add i32 %x, 0
  ret i32 %xu
E2:
  br label %V
V:
  %xv = add i32 %x, 0
  ret i32 %xv
}";

    #[test]
    fn only_exits_that_reach_the_use_count() {
        check(TWO_EXITS, &["u"], "xu", Shape::Uniform);
        check(TWO_EXITS, &["u"], "xv", Shape::Varying);
        check(TWO_EXITS, &["u", "v"], "xv", Shape::Uniform);
    }
}
