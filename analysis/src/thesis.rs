//! The divergence analysis of thesis Ch. 6-7: the worklist of Listings 1-3
//! (`engine`) applying the [DA-*] transformers of §6.5 (`transfer`,
//! with shadow phis, `mask()`, `total`, and Alloca SSA of §6.6 for stack objects,
//! `alloca_ssa`), with `global_joins` of Ch. 7 (Listing 7) as the oracle of
//! sync and temporal dependences.
//!
//! The state is Definition 19: `Shapes` plus the block sets `sdep*`, `tdep*`,
//! `adep*`, `cdep*`. Sync and temporal dependences come from a `JoinOracle`: for
//! the thesis analysis that is `global_joins` of Ch. 7 (Listing 7); the POPL'21
//! analysis ([`crate::popl`]) runs the same transformers with its own oracle (the
//! relevant splits of POPL'21 §4.6), which is how its edge effects are defined.
//!
//! Where the thesis leaves a case open, pllvm decides as follows (each is needed
//! for soundness against the interpreter, `proofs/tests/soundness.rs`):
//! - **Control-mask dependence is transitive, per iteration, and covers divergent
//!   loops.** The thesis adds `cdep_on(DivBlock)` to `cdep*` (Listing 3, line 26).
//!   pllvm adds more, because each of these blocks can run with only some lanes:
//!   - blocks control dependent on a block of `cdep*` through a uniform branch (§6.7:
//!     "(transitively) control-dependent");
//!   - a divergent block that post-dominates one of its own successors (a loop
//!     latch: it runs again with the lanes that stayed; Ferrante's strict control
//!     dependence);
//!   - blocks control dependent on the divergent block in the CFG of one iteration
//!     (back edges cut): a block of a loop that post-dominates the divergent
//!     branch only by way of later iterations is skipped this iteration by some
//!     lanes (thesis Fig. 7.3: B post-dominates the header A, yet the lanes that
//!     take A → D skip it);
//!   - every block of a loop with a temporally divergent exit: the lanes that left
//!     are missing from the later iterations.
//! - **A varying block predicate splits the lanes.** A lane whose predicate is false
//!   takes any successor ([PC-ND-BRANCH]), so a block with a varying predicate and
//!   two different successors has a divergent terminator.
//! - **`total` reads every lane** ([W-CMD-TOTAL]): its result is uniform only when
//!   each operand is uniform in *all* lanes: a constant, a uniform parameter, a
//!   `total` over such operands, or a uniform value of a block outside `adep*`
//!   (executed by every lane).
//! - **Uses outside a loop.** The thesis requires LCSSA (§6.3). For a use outside a
//!   loop of a value defined inside it, pllvm acts as if an LCSSA phi sat between:
//!   the use sees `v` when the oracle says lanes may leave that loop in different
//!   iterations (`JoinOracle::live_out_varying`).
//! - **Stack objects.** An `alloca`'s shape is its object's (Fig. 6.11): pointers
//!   into a uniform object are uniform (each lane's own copy, at the same offset).
//!   An object whose address escapes (stored, passed to a call, converted to an
//!   integer, returned) may be touched by other lanes and is varying; `ptrtoint`
//!   and ordered comparisons of stack addresses are varying (the addresses of the
//!   lanes' copies differ).

use crate::engine::{JoinOracle, run};
use crate::facts::CfgFacts;
use crate::joins::global_joins;
use crate::result::{AnalysisKind, InitShapes, Uniformity};
use pllvm_semantics::ir::{Block, Body, FuncId, Module};
use std::collections::BTreeSet;

/// The thesis analysis: `compute_da` (Listing 1) with `global_joins` (Listing 7) as
/// the oracle.
pub fn analyze(
    module: &Module,
    func: FuncId,
    body: &Body,
    facts: &CfgFacts,
    init: &InitShapes,
) -> Uniformity {
    let oracle = GlobalJoins { facts };
    run(
        module,
        func,
        body,
        facts,
        init,
        oracle,
        AnalysisKind::Thesis,
    )
}

/// The thesis oracle: `global_joins` (Listing 7) of Ch. 7.
pub(crate) struct GlobalJoins<'a> {
    pub(crate) facts: &'a CfgFacts,
}

impl JoinOracle for GlobalJoins<'_> {
    fn joins(&mut self, div: Block) -> (BTreeSet<Block>, BTreeSet<Block>) {
        // Listing 3, line 2: global_joins(Successors(DivBlock), {}, lp(DivBlock)).
        let j = global_joins(self.facts, div, self.facts.cfg.succs(div));
        (
            j.sync.iter().copied().collect(),
            j.temporal.iter().copied().collect(),
        )
    }

    fn live_out_varying(
        &self,
        def: Block,
        user: Block,
        _sdep: &BTreeSet<Block>,
        tdep: &BTreeSet<Block>,
    ) -> bool {
        // As if LCSSA phis sat in every exit of each loop left between def and
        // user: one temporally divergent exit (tdep*) of such a loop makes the
        // live-out varying.
        // The loops left are the innermost ones around `def`, up to the first
        // that holds `user` (loops nest): only they are climbed, not the nest.
        let loops = &self.facts.loops;
        let mut around = loops.loop_of(def);
        while let Some(l) = around {
            if loops.contains(l, user) {
                return false;
            }
            if loops.exits(l).iter().any(|e| tdep.contains(e)) {
                return true;
            }
            around = loops.parent(l);
        }
        false
    }
}
