//! Choosing the next block without a given runtime schedule.
//!
//! The full scheduler interface with the greedy-schedule constraints of thesis
//! Ch. 5 lives in the schedulers issue; until then the machine has one policy:
//! schedule the pending block that comes first in the function's layout.

use pllvm_semantics::ir::Block;
use pllvm_semantics::rules::masks::cmask;
use pllvm_semantics::rules::{Next, Program, State};

/// The blocks some lane would execute with its control mask set (Def. 6), in
/// layout order: the ℓ_next of every lane that waits at a block, and every
/// successor of ℓ_in for lanes whose ℓ_next is ⊤.
pub fn pending(program: &Program<'_>, state: &State) -> Vec<Block> {
    program
        .body
        .layout
        .iter()
        .copied()
        .filter(|&b| {
            state
                .incoming
                .iter()
                .zip(&state.next)
                .any(|(i, n)| !matches!(n, Next::Done(_)) && cmask(program, *i, n, b))
        })
        .collect()
}

/// The pending block earliest in layout order, `None` when no lane can move.
///
/// For programs whose layout lists every loop before its exits (as compilers emit
/// them), this is the "lowest block index" order of §2.5 and keeps lanes that are
/// still looping ahead of lanes waiting at the exit, so every lane whose own run
/// terminates eventually terminates here.
pub fn earliest_pending(program: &Program<'_>, state: &State) -> Option<Block> {
    pending(program, state).into_iter().next()
}
