//! The form the OpenTree walk ([`super::open_tree`]) takes its CFG in, each a
//! behaviour-preserving rewrite:
//!
//! - one exit block (the poster's algorithm, step 1: "Make sure a unique sink
//!   exists by adding a common virtual exit to be able to merge control flow from
//!   non-uniform branches that lead to different exit nodes"), by
//!   [`crate::prepare::unify_exits`];
//! - no conditional branch or `switch` whose edges all go to one block (it has
//!   one successor, and Definition 1 asks a divergent terminator for two);
//! - divergent `switch`es as chains of two-way branches (Definition 1 speaks of
//!   two successors, and rerouting one edge of a terminator needs a condition for
//!   that edge alone); uniform `switch`es stay;
//! - one latch per loop (thesis §2.4, `pllvm_analysis::normalize::unify_latches`):
//!   the OpenTree walk never reroutes back edges, and with a single latch every
//!   divergent branch of a loop body has a post-dominator inside the body. Under
//!   a greedy schedule the latch is then also where an iteration's lanes meet:
//!   every block of the body reaches it without a back edge, so it runs only
//!   once no lane of the iteration is still in the body (Def. 17), and the
//!   header runs the next iteration for all of them at once.

use super::repair::PASS;
use super::repair::repair_dominance;
use crate::edit::Editor;
use crate::error::{Site, TransformError};
use crate::prepare::unify_exits;
use num_bigint::BigUint;
use pllvm_analysis::loops::LoopInfo;
use pllvm_analysis::normalize::unify_latches;
use pllvm_analysis::reach::ForwardReach;
use pllvm_analysis::result::Uniformity;
use pllvm_semantics::ir::{
    Block, ConstData, FuncId, ICmpPred, InstKind, Module, Terminator, Value,
};
use pllvm_semantics::types::TypeTable;
use std::collections::HashSet;

/// Puts `func` in the form above; one note per change.
/// `uniformity` is the analysis of `module` (the switches need it).
pub(super) fn prepare_walk(
    module: &Module,
    func: FuncId,
    uniformity: &Uniformity,
    notes: &mut Vec<String>,
) -> Result<Module, TransformError> {
    let mut ed = Editor::new(module, func);
    let before = ed.body().blocks.len();
    if let Some(exit) = unify_exits(&mut ed)
        && ed.body().blocks.len() > before
    {
        notes.push(format!(
            "the returns now branch to one exit block %{} (the poster's unique sink)",
            ed.block_name(exit)
        ));
    }
    merge_equal_successors(&mut ed);
    let switches: Vec<Block> = ed
        .body()
        .layout
        .iter()
        .copied()
        .filter(|&b| {
            matches!(ed.body().blocks[b].term, Terminator::Switch { .. })
                && uniformity.terminators[b].is_varying()
        })
        .collect();
    for b in switches {
        let n = switch_to_chain(&mut ed, b);
        notes.push(format!(
            "divergent switch of %{} became a chain of {n} two-way branches",
            ed.block_name(b)
        ));
    }
    let mut out = ed.finish();
    let Some(body) = out.functions[func].body.as_mut() else {
        return Err(TransformError::new(
            PASS,
            Site::Function(func),
            "the function lost its body",
        ));
    };
    let latches = unify_latches(body).map_err(|e| {
        TransformError::new(
            PASS,
            Site::Function(func),
            format!("internal error: the CFG is irreducible after step 1: {e}"),
        )
    })?;
    if latches > 0 {
        notes.push(format!(
            "{latches} loop(s) got a unique latch (thesis §2.4)"
        ));
    }
    latches_reach_exits(&out, func, notes)
}

/// Gives every loop whose latch reaches some exit of the loop only through the
/// back edge a second, never-taken edge from the latch to a block that reaches
/// those exits: the latch ends in `br i1 true, header, S` (a block of its own on
/// the back edge when the latch has other successors), and `S` goes to the one
/// missing exit or, for several, `switch`es on the constant 0 to all of them.
///
/// Why: Def. 17 lets a block run while a lane waits only at blocks that do not
/// reach it along forward edges, and a latch whose only way on is the back edge
/// forward-reaches nothing after the loop. So lanes outside the loop may run the
/// blocks after it while lanes of the loop wait at the latch between two
/// iterations, and a block after the loop that both groups reach (a join) then
/// runs twice: once for the lanes outside, once for the loop's lanes when they
/// leave. Under OBLIVIOUS the second run overwrites the first group's values
/// with ⊤ (the IPD schedule of thesis Fig. 5.6, back again). With the edge,
/// every block of the loop forward-reaches every exit, so no block after the
/// loop runs while a lane is still in it (`proofs/tests/reconverge_small_cfgs.rs`
/// and `differential/tests/reconverge.rs` meet the case). The edge is never taken
/// (the condition is the constant `true`, a uniform branch), the phis of its
/// targets read `undef` on it, and the uses its new paths leave undominated are
/// repaired by SSA construction.
pub(crate) fn latches_reach_exits(
    module: &Module,
    func: FuncId,
    notes: &mut Vec<String>,
) -> Result<Module, TransformError> {
    latches_reach(module, func, notes, Reach::EveryExit)
}

/// Which latches [`latches_reach`] gives a never-taken edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Every latch that misses some exit of its loop (the walk needs each exit).
    EveryExit,
    /// Only a latch that reaches no exit at all: it then holds back nothing after
    /// the loop (what the divergent loop transform needs for the loops it keeps;
    /// a latch that reaches one exit holds back the blocks after it).
    SomeExit,
}

/// [`latches_reach_exits`], for the latches `which` selects.
pub(crate) fn latches_reach(
    module: &Module,
    func: FuncId,
    notes: &mut Vec<String>,
    which: Reach,
) -> Result<Module, TransformError> {
    let Some(body) = module.functions[func].body.as_ref() else {
        return Ok(module.clone());
    };
    let loops = LoopInfo::compute(body).map_err(|e| {
        TransformError::new(
            PASS,
            Site::Function(func),
            format!("internal error: the CFG is irreducible after step 1: {e}"),
        )
    })?;
    let reach = ForwardReach::compute(body);
    let mut ed = Editor::new(module, func);
    let mut changed = false;
    for l in loops.loops() {
        let (Some(latch), header) = (loops.latch(l), loops.header(l)) else {
            continue;
        };
        let missing: Vec<Block> = loops
            .exits(l)
            .iter()
            .copied()
            .filter(|&x| !reach.reaches(latch, x))
            .collect();
        let Some(&first) = missing.first() else {
            continue;
        };
        if which == Reach::SomeExit && missing.len() < loops.exits(l).len() {
            continue;
        }
        let carrier = if ed.body().blocks[latch].term == Terminator::Br(header) {
            latch
        } else {
            let stem = format!("{}.bottom", ed.block_name(latch));
            let bottom = ed.new_block(&stem, Terminator::Br(header));
            ed.place_after(bottom, latch);
            ed.retarget(latch, header, bottom);
            ed.rename_incoming(header, latch, bottom);
            bottom
        };
        let target = if let [only] = missing[..] {
            only
        } else {
            let stem = format!("{}.exits", ed.block_name(header));
            let zero = ed.const_int(TypeTable::I32, 0);
            let cases = missing[1..]
                .iter()
                .enumerate()
                .map(|(k, &x)| (BigUint::from(k as u64 + 1), x))
                .collect();
            let switch = ed.new_block(
                &stem,
                Terminator::Switch {
                    ty: TypeTable::I32,
                    cond: zero,
                    default: first,
                    cases,
                },
            );
            ed.place_after(switch, carrier);
            for &x in &missing {
                add_undef_arm(&mut ed, x, switch);
            }
            switch
        };
        if missing.len() == 1 {
            add_undef_arm(&mut ed, first, carrier);
        }
        let yes = ed.const_bool(true);
        ed.body_mut().blocks[carrier].term = Terminator::CondBr {
            cond: yes,
            if_true: header,
            if_false: target,
        };
        notes.push(format!(
            "loop %{}: its latch %{} reaches the loop's exits only through the back edge; a never-taken edge to %{} lets it hold back the blocks after the loop (Def. 17)",
            ed.block_name(header),
            ed.block_name(carrier),
            ed.block_name(target),
        ));
        changed = true;
    }
    if !changed {
        return Ok(module.clone());
    }
    repair_dominance(&mut ed);
    Ok(ed.finish())
}

/// Adds an `undef` arm from `pred` to every phi of `block`.
fn add_undef_arm(ed: &mut Editor, block: Block, pred: Block) {
    let phis = ed.body().blocks[block].phis.clone();
    for phi in phis {
        let InstKind::Phi { ty, .. } = ed.body().insts[phi].kind else {
            continue;
        };
        let undef = ed.undef(ty);
        if let InstKind::Phi { incoming, .. } = &mut ed.body_mut().insts[phi].kind {
            incoming.push((undef, pred));
        }
    }
}

/// A conditional branch or `switch` whose edges all go to one block `X` becomes
/// `br X`; the phis of `X` keep one of their arms for it.
fn merge_equal_successors(ed: &mut Editor) {
    let layout = ed.body().layout.clone();
    for b in layout {
        let term = &ed.body().blocks[b].term;
        if !matches!(term, Terminator::CondBr { .. } | Terminator::Switch { .. }) {
            continue;
        }
        let succs = term.successors();
        let Some(&target) = succs.first() else {
            continue;
        };
        if succs.iter().any(|&s| s != target) {
            continue;
        }
        ed.body_mut().blocks[b].term = Terminator::Br(target);
        let phis = ed.body().blocks[target].phis.clone();
        for phi in phis {
            if let InstKind::Phi { incoming, .. } = &mut ed.body_mut().insts[phi].kind {
                let mut seen = false;
                incoming.retain(|&(_, p)| {
                    if p != b {
                        return true;
                    }
                    let keep = !seen;
                    seen = true;
                    keep
                });
            }
        }
    }
}

/// `switch ty v, D [c₀, T₀; …; cₙ₋₁, Tₙ₋₁]` in `block` becomes `block: br (v == c₀),
/// T₀, s₁`, `s₁: br (v == c₁), T₁, s₂`, …, `sₙ₋₁: br (v == cₙ₋₁), Tₙ₋₁, D`: the
/// lanes take the same targets (the first matching case, else the default), and
/// each edge has a block of its own. Returns the number of two-way branches.
fn switch_to_chain(ed: &mut Editor, block: Block) -> usize {
    let Terminator::Switch {
        ty,
        cond,
        default,
        cases,
    } = ed.body().blocks[block].term.clone()
    else {
        return 0;
    };
    // The value each target's phis take from `block` (the same on every edge).
    let targets: Vec<Block> = std::iter::once(default)
        .chain(cases.iter().map(|&(_, t)| t))
        .collect();
    let mut arm_values: Vec<(Block, Vec<Option<Value>>)> = Vec::new();
    let mut seen = HashSet::new();
    for &t in &targets {
        if !seen.insert(t) {
            continue;
        }
        let values = ed.body().blocks[t]
            .phis
            .iter()
            .map(|&phi| match &ed.body().insts[phi].kind {
                InstKind::Phi { incoming, .. } => {
                    incoming.iter().find(|&&(_, p)| p == block).map(|&(v, _)| v)
                }
                _ => None,
            })
            .collect();
        arm_values.push((t, values));
        // Drop the arms from `block`; the chain adds one per new edge.
        let phis = ed.body().blocks[t].phis.clone();
        for phi in phis {
            if let InstKind::Phi { incoming, .. } = &mut ed.body_mut().insts[phi].kind {
                incoming.retain(|&(_, p)| p != block);
            }
        }
    }
    let mut edges: Vec<(Block, Block)> = Vec::new();
    if cases.is_empty() {
        ed.body_mut().blocks[block].term = Terminator::Br(default);
        edges.push((block, default));
    }
    let mut current = block;
    let name = ed.block_name(block).to_string();
    for (k, (value, target)) in cases.iter().enumerate() {
        let last = k + 1 == cases.len();
        let otherwise = if last {
            default
        } else {
            let next = ed.new_block(&format!("{name}.sw{}", k + 1), Terminator::Unreachable);
            ed.place_after(next, current);
            next
        };
        ed.body_mut().blocks[current].term = if *target == otherwise {
            edges.push((current, *target));
            Terminator::Br(*target)
        } else {
            let constant = ed.body_mut().add_const(ty, ConstData::Int(value.clone()));
            let stem = format!("{name}.case{k}");
            let test = ed.icmp(current, ICmpPred::Eq, ty, (cond, constant), &stem, false);
            edges.push((current, *target));
            edges.push((current, otherwise));
            Terminator::CondBr {
                cond: test,
                if_true: *target,
                if_false: otherwise,
            }
        };
        current = otherwise;
    }
    for (from, to) in edges {
        let Some((_, values)) = arm_values.iter().find(|(t, _)| *t == to) else {
            continue;
        };
        let phis = ed.body().blocks[to].phis.clone();
        for (phi, value) in phis.into_iter().zip(values.clone()) {
            if let (InstKind::Phi { incoming, .. }, Some(v)) =
                (&mut ed.body_mut().insts[phi].kind, value)
            {
                incoming.push((v, from));
            }
        }
    }
    cases.len().max(1)
}
