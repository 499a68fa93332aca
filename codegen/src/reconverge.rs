//! The reconverging-CFG transform of the poster "Reconverging Control Flow
//! Graphs" (Definition 1: "A control flow graph is reconverging if every
//! non-uniform condition node (terminator T) has exactly two successors, one of
//! which post-dominates it"), for any CFG, irreducible ones included, as a
//! P-LLVM route whose output runs under OBLIVIOUS and computes what the input
//! computes under FREEZING.
//!
//! # The route
//! 1. [`fix_irreducible`] (module `irreducible`): every irreducible cycle
//!    becomes a natural loop, headed by a new block that dispatches to the
//!    cycle's entries on an entry-index phi (LLVM's FixIrreducible construction;
//!    cycles and entries as in LLVM's "Convergence and Uniformity").
//! 2. [`make_loops_uniform`]: the divergent loop transform (thesis §9.1,
//!    [`crate::dlt`]) on the result; it keeps the uniform loops as they are.
//!    The poster's wave-level lowering relies on masked-off lanes keeping their
//!    registers, which OBLIVIOUS does not promise: a lane that left a divergent
//!    loop early has its loop values overwritten with ⊤ while the others iterate
//!    (thesis Fig. 3.21). After §9.1 every loop is uniform: the lanes that enter
//!    a loop leave it together.
//! 3. [`reconverging_cfg`] (modules `normal_form`, then `open_tree`): the
//!    poster's OpenTree walk reroutes open edges through flow blocks with phis,
//!    keeping the uniform branches it does not have to reroute, until every
//!    divergent branch has two successors one of which post-dominates it. The
//!    route checks Definition 1 on a fresh analysis of the result
//!    (`pllvm_analysis::reconverging::check_reconverging`); a branch that the
//!    fresh analysis finds divergent and the first walk took for uniform gets a
//!    further walk (at most [`MAX_WALKS`]).
//!
//! # Why no block predicates are needed, and why OBLIVIOUS is right
//! The poster lowers a reconverging CFG to wave-level code with execution-mask
//! updates. In P-LLVM the greedy schedules of thesis Ch. 5 do that work: every
//! block is a barrier (Def. 17-18), so a block runs only once no lane is waiting
//! at a block that reaches it without a back edge. In an acyclic region every
//! block therefore runs once, with every lane whose path passes it, and no block
//! runs again after a lane has left it (the test
//! `proofs/tests/acyclic_schedule_independence.rs` checks that every greedy
//! schedule of such a program gives one outcome). So within one iteration of a
//! uniform loop (one latch, step 3's normal form) and outside loops, no block
//! runs while a lane that needs its values is masked off, and OBLIVIOUS's ⊤ in
//! masked-off lanes is never read: each lane reads only values it computed
//! itself, as under FREEZING. The flow blocks only forward lanes to the
//! successor their original branch chose (their phis remember it, poster Fig. 3),
//! so each lane runs its original blocks in the original order, and each
//! original block runs with the same lanes together as in the input. Loops are
//! where OBLIVIOUS differs, and step 2 makes them uniform. (A horizontal builtin
//! of Fig. 4.15 also reads the lanes that are not at its block; those hold ⊤
//! under OBLIVIOUS where FREEZING keeps their last value. That difference is the
//! input's under the two interpretations, not the transform's; the property
//! tests use lane-local programs.)
//!
//! Notes: one line per fixed irreducible cycle, per flow block, per lowered
//! switch, and what the divergent loop transform reports.

mod irreducible;
pub(crate) mod normal_form;
mod open_tree;
mod repair;

use self::repair::{PASS, internal_error};
use crate::dlt;
use crate::error::TransformError;
use crate::pass::{Pass, PassContext};
use crate::prepare::{body_of, require_unpredicated};
use pllvm_analysis::postdom::PostDomTree;
use pllvm_analysis::reconverging::check_reconverging;
use pllvm_analysis::result::Uniformity;
use pllvm_semantics::ir::{FuncId, Module};

/// How many OpenTree walks the route runs at most (see the module doc, step 3).
pub const MAX_WALKS: usize = 3;

/// Makes `func` reconverging (poster Definition 1) by the route of the module
/// doc: irreducible cycles to natural loops, divergent loops to uniform ones,
/// then the OpenTree walk.
pub fn reconverge(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
) -> Result<(Module, Vec<String>), TransformError> {
    require_unpredicated(module, func, PASS)?;
    let mut notes = Vec::new();
    let natural = irreducible::natural_loops(module, func, &mut notes)?;
    let (uniform, uniformity) = uniform_loops(&natural, func, cx, &mut notes)?;
    let reconverging = walk_until_reconverging(uniform, uniformity, func, cx, &mut notes)?;
    Ok((reconverging, notes))
}

/// Step 1 alone (irreducible cycles to natural loops), for tests and tools.
pub fn fix_irreducible(
    module: &Module,
    func: FuncId,
) -> Result<(Module, Vec<String>), TransformError> {
    let mut notes = Vec::new();
    let out = irreducible::natural_loops(module, func, &mut notes)?;
    Ok((out, notes))
}

/// Step 2: the divergent loop transform (thesis §9.1), until the analysis finds
/// no divergent loop. The transform decides itself which loops are divergent
/// (its classification covers more than the analysis's divergent loops), keeps
/// the uniform ones as they are, and runs in rounds until the analysis of its
/// output proves every loop uniform: a loop it kept can look divergent after an
/// enclosing loop's transform (the values the outer loop carries then come
/// through its new header's phis, which join the guard's divergent branch). A
/// loop the analysis still calls divergent would have a divergent latch, for
/// which Definition 1 cannot be met (the walk never reroutes back edges), so the
/// route checks the analysis itself and runs the transform again while it
/// changes something. Its notes are passed on.
pub fn make_loops_uniform(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
    notes: &mut Vec<String>,
) -> Result<Module, TransformError> {
    uniform_loops(module, func, cx, notes).map(|(m, _)| m)
}

/// [`make_loops_uniform`], also returning the analysis of its result.
fn uniform_loops(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
    notes: &mut Vec<String>,
) -> Result<(Module, Uniformity), TransformError> {
    let dlt_cx = PassContext {
        options: cx.options,
        pass: Pass::Dlt,
    };
    let rounds = body_of(module, func, PASS)?.layout.len() + 1;
    let mut current = module.clone();
    for round in 0..rounds {
        let (out, dlt_notes) = dlt::divergent_loop_transform(&current, func, &dlt_cx)?;
        let label = if round == 0 {
            "dlt".to_string()
        } else {
            format!("dlt (round {})", round + 1)
        };
        notes.extend(
            dlt_notes
                .into_iter()
                .filter(|n| round == 0 || !n.ends_with("uniform, kept"))
                .map(|n| format!("{label}: {n}")),
        );
        let unchanged = out == current;
        current = out;
        let uniformity = cx.analyze(&current, func)?;
        if uniformity.divergent_loops.is_empty() {
            return Ok((current, uniformity));
        }
        if unchanged {
            break;
        }
    }
    Err(internal_error(
        func,
        "a loop is still divergent for the analysis after the divergent loop transform (thesis §9.1)",
    ))
}

/// Step 3: the OpenTree walk (after putting the CFG in its normal form) until
/// Definition 1 holds under a fresh analysis of the result.
pub fn reconverging_cfg(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
    notes: &mut Vec<String>,
) -> Result<Module, TransformError> {
    let uniformity = cx.analyze(module, func)?;
    walk_until_reconverging(module.clone(), uniformity, func, cx, notes)
}

/// [`reconverging_cfg`] on `module` whose analysis is `uniformity`.
fn walk_until_reconverging(
    module: Module,
    uniformity: Uniformity,
    func: FuncId,
    cx: &PassContext<'_>,
    notes: &mut Vec<String>,
) -> Result<Module, TransformError> {
    let (mut current, mut uniformity) = (module, uniformity);
    for _ in 0..MAX_WALKS {
        // Again before every further walk: a switch that the walk's new joins
        // made divergent for the analysis becomes a chain too.
        let prepared = normal_form::prepare_walk(&current, func, &uniformity, notes)?;
        if prepared != current {
            current = prepared;
            uniformity = cx.analyze(&current, func)?;
        }
        let body = body_of(&current, func, PASS)?;
        let violations = check_reconverging(body, &PostDomTree::compute(body), &uniformity);
        let Some(first) = violations.first() else {
            return Ok(current);
        };
        let walked = open_tree::open_tree_walk(&current, func, &uniformity, notes)?;
        if walked == current {
            return Err(internal_error(
                func,
                &format!(
                    "the OpenTree walk changed nothing, yet {}",
                    first.message(body)
                ),
            ));
        }
        current = walked;
        uniformity = cx.analyze(&current, func)?;
    }
    let body = body_of(&current, func, PASS)?;
    match check_reconverging(body, &PostDomTree::compute(body), &uniformity).first() {
        None => Ok(current),
        Some(v) => Err(internal_error(
            func,
            &format!("after {MAX_WALKS} OpenTree walks, {}", v.message(body)),
        )),
    }
}
