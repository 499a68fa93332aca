//! The control mask, predicate mask and activation mask (thesis §4.3-4.4, Def. 6-8).

use crate::ir::Block;
use crate::rules::program::Program;
use crate::rules::state::{Env, Next};

/// [cmask] `cmask ℓ_in ℓ_next ℓ_sc` (Def. 6): whether the lane's control state agrees with
/// the scheduled block.
///
/// It is 1 if ℓ_next = ℓ_sc, or if ℓ_next = ⊤ and ℓ_sc is a successor of ℓ_in
/// (`(ℓ_in, i, ℓ_sc) ∈ E` for some i ∈ ℕ); 0 otherwise, in particular for a
/// terminated lane (ℓ_next = □), which thus never becomes active again.
#[inline]
pub fn cmask(
    program: &Program<'_>,
    incoming: Option<Block>,
    next: &Next,
    scheduled: Block,
) -> bool {
    match next {
        Next::Block(b) => *b == scheduled,
        Next::Any => incoming.is_some_and(|from| program.has_edge(from, scheduled)),
        Next::Done(_) => false,
    }
}

/// `cmsk^W = map cmask` (§4.3): the control mask of every lane.
pub fn cmask_w(
    program: &Program<'_>,
    incoming: &[Option<Block>],
    next: &[Next],
    scheduled: Block,
) -> Vec<bool> {
    let mut out = Vec::with_capacity(next.len());
    cmask_w_into(program, incoming, next, scheduled, &mut out);
    out
}

/// Like [`cmask_w`], into a reused vector (its old contents are discarded).
pub fn cmask_w_into(
    program: &Program<'_>,
    incoming: &[Option<Block>],
    next: &[Next],
    scheduled: Block,
    out: &mut Vec<bool>,
) {
    out.clear();
    out.extend(
        incoming
            .iter()
            .zip(next)
            .map(|(i, n)| cmask(program, *i, n, scheduled)),
    );
}

/// [pmask] `pmsk` (Def. 7): the value of the scheduled block's predicate `val_msk` in each
/// lane, evaluated on `env`. An absent predicate is the constant `true` (§4.1).
///
/// A lane whose predicate is ⊤ gets `None`: it is neither active nor passive, and
/// the caller decides (an active-control lane with an undefined predicate is
/// undefined behaviour, see [`crate::rules::step::bls_w_step`]). The mask is
/// written to `out` (a reused vector; its old contents are discarded).
pub fn pmask(program: &Program<'_>, env: &Env, scheduled: Block, out: &mut Vec<Option<bool>>) {
    out.clear();
    match program.body.blocks[scheduled].predicate {
        None => out.resize(env.width(), Some(true)),
        Some(p) => {
            let column = env.column(p);
            out.extend((0..env.width()).map(|lane| column.lane_bool(lane)));
        }
    }
}

/// [amask] `amsk = pmsk ∧ cmsk` (Def. 8), lane by lane. A lane with cmask 0 is passive
/// whatever its predicate holds (so ⊤ there is harmless); the caller has ruled out
/// an undefined predicate under cmask 1. The mask is written to `out` (a reused
/// vector; its old contents are discarded).
pub fn amask(cmask: &[bool], pmask: &[Option<bool>], out: &mut Vec<bool>) {
    out.clear();
    out.extend(
        cmask
            .iter()
            .zip(pmask)
            .map(|(&c, p)| c && p.unwrap_or(false)),
    );
}
