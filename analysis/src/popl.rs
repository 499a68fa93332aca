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
//! - a use of `x` at `p` away from its definition `q`: in SSA the only definition
//!   of `x` reaches `p` definitely (`q ∈ rd p x`, Def. 6.4) whenever `p` is in the
//!   dominance region of `q`, so `F#_Uni,2` gives `uni q x ∧ ⋀_{s ∈ lsplits q}
//!   uni s b_s`, where `lsplits q` are the splits of the exits `e` of loops around
//!   `q` with `e →* p` free of back edges (Def. 6.6). Loops that contain `p` too
//!   have no such exit (an exit that reaches back into the loop closes a cycle
//!   without a back edge), so only the loops left between `q` and `p` count.
//!   Without §6, `H` of every block between `q` and `p` would count (Fig. 1a: `z`
//!   at `P`); on LCSSA programs both coincide (§6.1).
//!
//! `s ∈ splits e` for a varying `s` is exactly "`e` is a join of `s`", so the
//! analysis keeps the set of joins of varying splits and asks it.
//!
//! Activation, `mask()`, `total`, shadow phis, block predicates and stack objects
//! have no counterpart in the paper; they get the thesis' transformers, so both
//! analyses differ only in how they find joins and in what a use outside a loop
//! sees (see `docs/analyses.md`).

use crate::CfgFacts;
use crate::thesis::{JoinOracle, run};
use crate::uniformity::{AnalysisKind, InitShapes, Uniformity};
use pllvm_semantics::cfg::Graph;
use pllvm_semantics::ir::{Block, Body, FuncId, Module};
use std::collections::{BTreeMap, BTreeSet};

/// `F#_Uni,2` (Def. 6.6) to its fixpoint on `func`.
pub fn uniformity(
    module: &Module,
    func: FuncId,
    body: &Body,
    facts: &CfgFacts,
    init: &InitShapes,
) -> Uniformity {
    let oracle = Splits::new(body, facts);
    run(module, func, body, facts, init, oracle, AnalysisKind::Popl)
}

/// The joins of every split (`{p | s ∈ splits p}`, Def. 4.18), computed on demand.
struct Splits<'a> {
    body: &'a Body,
    facts: &'a CfgFacts,
    gstar: Graph,
    cache: BTreeMap<Block, BTreeSet<Block>>,
}

impl<'a> Splits<'a> {
    fn new(body: &'a Body, facts: &'a CfgFacts) -> Self {
        Splits {
            body,
            facts,
            gstar: head_rewired_graph(body, facts),
            cache: BTreeMap::new(),
        }
    }

    /// `{p | s ∈ splits p}`: the blocks where two paths of `G⋆` from different
    /// `G`-successors of `s` meet, disjoint but for their end (Def. 4.18). With
    /// `labelDisj` from the successors, `p` is such a join iff it is not a
    /// successor and its predecessors carry different labels (Corollary 1), or it
    /// is a successor itself and another source reaches it (the path `s → p` is
    /// the second, trivial one).
    fn joins_of(&mut self, s: Block) -> BTreeSet<Block> {
        if let Some(j) = self.cache.get(&s) {
            return j.clone();
        }
        let mut sources: Vec<u32> = self.body.successors(s).iter().map(|b| b.0).collect();
        sources.sort_unstable();
        sources.dedup();
        let mut joins = BTreeSet::new();
        if sources.len() >= 2 {
            let labels = label_sources(&self.gstar, &sources);
            for p in 0..self.gstar.len() as u32 {
                let is_source = sources.binary_search(&p).is_ok();
                let reached: Vec<u32> = self
                    .gstar
                    .predecessors(p)
                    .iter()
                    .filter_map(|&q| labels.get(q as usize).copied().flatten())
                    .collect();
                let join = if is_source {
                    !reached.is_empty()
                } else {
                    reached.iter().any(|&l| Some(&l) != reached.first())
                };
                if join {
                    joins.insert(Block(p));
                }
            }
        }
        self.cache.insert(s, joins.clone());
        joins
    }
}

impl JoinOracle for Splits<'_> {
    fn joins(&mut self, div: Block) -> (BTreeSet<Block>, BTreeSet<Block>) {
        // H_p fails for every join p of a varying split. Joins that leave a loop
        // around the split are reported as temporal, the others as sync.
        let loops = &self.facts.loops;
        let around = loops.ancestors(div);
        let (temporal, sync) = self.joins_of(div).into_iter().partition(|&p| {
            around
                .iter()
                .any(|&l| !loops.contains(l, p) && loops.exits(l).contains(&p))
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
        // lsplits(def) (Def. 6.6): exits of loops around def, left before user,
        // that reach user without a back edge and join a varying split.
        let loops = &self.facts.loops;
        loops.ancestors(def).into_iter().any(|l| {
            !loops.contains(l, user)
                && loops.exits(l).iter().any(|&e| {
                    (e == user || self.facts.reach.reaches(e, user))
                        && (sdep.contains(&e) || tdep.contains(&e))
                })
        })
    }
}

/// `G⋆` (Def. 4.14) as an index graph over arena block indices: every edge of `G`
/// except those leaving a loop header, plus an edge from each header to each exit
/// of its loop.
fn head_rewired_graph(body: &Body, facts: &CfgFacts) -> Graph {
    let n = facts.cfg.len();
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (b, out) in succs.iter_mut().enumerate() {
        let block = Block(b as u32);
        match facts.loops.loop_with_header(block) {
            Some(l) => out.extend(facts.loops.exits(l).iter().map(|e| e.0)),
            None => out.extend(body.successors(block).iter().map(|s| s.0)),
        }
        out.sort_unstable();
        out.dedup();
    }
    Graph::from_succs(succs)
}

/// Labels of `labelDisj` (Algorithm 1) from `sources`, each source keeping its
/// own label (its earliest node on all paths from the sources is itself, Lemma
/// 5.5): `labels[p]` is the node `p*` for every `p` a source reaches.
fn label_sources(graph: &Graph, sources: &[u32]) -> Vec<Option<u32>> {
    let n = graph.len();
    let mut labels: Vec<Option<u32>> = vec![None; n];
    for &s in sources {
        if (s as usize) < n {
            labels[s as usize] = Some(s);
        }
    }
    // A topological order of the DAG: Kahn's algorithm.
    let mut indegree: Vec<usize> = (0..n as u32).map(|p| graph.predecessors(p).len()).collect();
    let mut ready: Vec<u32> = (0..n as u32)
        .filter(|&p| indegree[p as usize] == 0)
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(p) = ready.pop() {
        order.push(p);
        for &s in graph.successors(p) {
            indegree[s as usize] -= 1;
            if indegree[s as usize] == 0 {
                ready.push(s);
            }
        }
    }
    for p in order {
        if sources.binary_search(&p).is_ok() {
            continue;
        }
        let reach: Vec<u32> = graph
            .predecessors(p)
            .iter()
            .filter_map(|&q| labels[q as usize])
            .collect();
        if let Some(&first) = reach.first() {
            labels[p as usize] = Some(if reach.iter().all(|&l| l == first) {
                first
            } else {
                p
            });
        }
    }
    labels
}

/// Temporary stand-in for `global_joins` until `crate::joins` lands.
pub(crate) fn joins_for_thesis_placeholder(
    body: &Body,
    facts: &CfgFacts,
    div: Block,
) -> (BTreeSet<Block>, BTreeSet<Block>) {
    Splits::new(body, facts).joins(div)
}
