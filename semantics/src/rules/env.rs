//! Reading and writing the variable mapping Δ^W (thesis §4.6, Fig. 4.8, Def. 9).

use crate::ir::Value;
use crate::rules::state::{Env, Interp};
use crate::value::Val;
use std::borrow::Cow;

/// [eval] `eval^W Δ^W val` (§4.6): the value of `val` in every lane. Identifiers are looked
/// up in Δ^W; constants were stored in every lane when Δ^W was built, so both are
/// one lookup. (The fast forms of [`crate::fast`] read the stored column itself,
/// through [`Env::column`]: the same lookup without building [`Val`]s.)
pub fn eval(env: &Env, val: Value) -> Cow<'_, [Val]> {
    env.get(val)
}

/// [getNewValue] `getNewValue_𝓘(amsk^W, Δ^W, id, v^W)(τ)` (Fig. 4.8): the value lane τ assigns.
///
/// Active lanes take the new value; passive lanes keep the old one under FR and
/// become ⊤ under OBL. In place: `slot` holds lane τ's old value Δ^W(τ)(id) and
/// receives the value getNewValue gives; `new` holds v^W(τ) and is left with an
/// unspecified value (it is consumed).
#[allow(
    rustdoc::broken_intra_doc_links,
    reason = "a rule citation, not a link"
)]
#[inline]
pub fn get_new_value(interp: Interp, active: bool, slot: &mut Val, new: &mut Val) {
    match (active, interp) {
        (true, _) => std::mem::swap(slot, new),
        (false, Interp::Freezing) => {}
        (false, Interp::Oblivious) => *slot = Val::Undef,
    }
}

/// [UPD-ENV] `updenv_𝓘^W Δ^W id v^W amsk^W → Δ'^W` (Fig. 4.8): assigns `new[τ]` to
/// `id` in every lane τ through [`get_new_value`].
///
/// When tracked, the definition mask of `id` (Def. 10.1-2) follows the same rule
/// (`update_defined`: Def. 10.1-2).
pub fn upd_env(interp: Interp, env: &mut Env, id: Value, new: &[Val], active: &[bool]) {
    update_defined(interp, env, id, active);
    // ∀τ. Δ'^W(τ) = Δ^W(τ){id ← getNewValue_𝓘(amsk^W, Δ^W, id, v^W)(τ)}.
    for (lane, (&a, n)) in active.iter().zip(new).enumerate() {
        let mut slot = env.lane(id, lane);
        get_new_value(interp, a, &mut slot, &mut n.clone());
        env.set_lane(id, lane, slot);
    }
}

/// The definition mask of `id` after [UPD-ENV] (Def. 10.1-2), when Δ^W tracks
/// masks: an active lane's value is defined by this assignment, a passive lane
/// keeps its old mask under FR (its old value stays) and loses it under OBL (its
/// value is ⊤). Def. 10 states the OBL case; the FR case is the reading under
/// which Fig. 4.16b is "ill-formed under OBL" but fine under FR, as §4.10
/// explains. Phis under FR follow the same reading (semantics/RULES.md,
/// "Readings", 2).
#[allow(
    rustdoc::broken_intra_doc_links,
    reason = "a rule citation, not a link"
)]
pub(crate) fn update_defined(interp: Interp, env: &mut Env, id: Value, active: &[bool]) {
    if let Some(old_defined) = env.defined(id) {
        let mask = old_defined
            .iter()
            .zip(active)
            .map(|(&d, &a)| a || (d && interp == Interp::Freezing))
            .collect();
        env.set_defined(id, mask);
    }
}
