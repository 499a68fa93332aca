//! Full if-conversion: the naive baseline partial linearization is measured
//! against (thesis Ch. 8, Fig. 8.1c: "if-conversion removes all branches,
//! including the uniform ones").
//!
//! Every divergent loop is first made uniform by the divergent loop transform
//! (thesis §9.1, [`crate::dlt`], repeated while the analysis still finds a
//! divergent loop); then Listing 8 runs with every branch treated
//! as divergent except the branches that control a loop (its latch and exiting
//! branches and the branches inside the loop those depend on), so that loops stay
//! loops and keep their exits ([`Branches::LoopControl`]). The predicates and
//! phis are those of partial linearization (§8.4-8.5), without Theorem 4's
//! elision: a uniform branch is linearized here, so a block with a uniform
//! activation may run with its predicate false.
//!
//! Refusals name the input program's constructs when they come from the checks
//! before dlt (irreducible CFG, predicated input); a loop dlt leaves divergent is
//! reported on dlt's output.

use crate::dlt;
use crate::error::TransformError;
use crate::linearize::{self, Branches, Settings};
use crate::pass::PassContext;
use crate::prepare;
use pllvm_semantics::ir::{FuncId, Module};

/// [§9.1] dlt until the analysis finds no divergent loop: making an outer loop
/// uniform can make an inner one divergent in the analysis's eyes (a trip count
/// computed from the outer loop's counter, which dlt carries through its new
/// header phis), and the next round transforms that one. At most one round per
/// loop of the input, plus one.
fn loops_made_uniform(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
    rounds: usize,
) -> Result<(Module, Vec<String>), TransformError> {
    let pass = cx.pass.name();
    let (mut current, mut notes) = dlt::divergent_loop_transform(module, func, cx)?;
    for _ in 0..rounds {
        let loops = prepare::require_reducible(&current, func, pass)?;
        let uniformity = cx.analyze(&current, func)?;
        let body = prepare::body_of(&current, func, pass)?;
        if linearize::divergent_loops(body, &loops, &uniformity).is_empty() {
            break;
        }
        let (next, more) = dlt::divergent_loop_transform(&current, func, cx)?;
        notes.extend(more);
        current = next;
    }
    Ok((current, notes))
}

/// Fully if-converts `func`: dlt on the divergent loops, then Listing 8 keeping
/// only the branches that control loops.
pub fn if_convert(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
) -> Result<(Module, Vec<String>), TransformError> {
    let pass = cx.pass.name();
    let loops = prepare::require_reducible(module, func, pass)?;
    prepare::require_unpredicated(module, func, pass)?;
    let body = prepare::body_of(module, func, pass)?;
    let uniformity = cx.analyze(module, func)?;
    let divergent = linearize::divergent_loops(body, &loops, &uniformity);
    let settings = Settings {
        branches: Branches::LoopControl,
        ..Settings::full()
    };
    let (out, mut notes) = if divergent.is_empty() {
        let out = linearize::linearize_analyzed(module, func, cx, settings, &uniformity)?;
        (out, Vec::new())
    } else {
        let (uniform_loops, notes) = loops_made_uniform(module, func, cx, loops.len())?;
        (
            linearize::linearize(&uniform_loops, func, cx, settings)?,
            notes,
        )
    };
    notes.extend(out.notes);
    Ok((out.module, notes))
}
