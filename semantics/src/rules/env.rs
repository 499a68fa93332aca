//! Reading and writing the variable mapping Δ^W (thesis §4.6, Fig. 4.8, Def. 9).

use crate::ir::Value;
use crate::rules::{Env, Interp};
use crate::value::Val;

/// [eval] `eval^W Δ^W val` (§4.6): the value of `val` in every lane. Identifiers are looked
/// up in Δ^W; constants were stored in every lane when Δ^W was built, so both are
/// one lookup.
pub fn eval(env: &Env, val: Value) -> &[Val] {
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
/// When tracked, the definition mask of `id` (Def. 10.1-2) follows the same rule:
/// an active lane's value is defined by this assignment, a passive lane keeps its
/// old mask under FR (its old value stays) and loses it under OBL (its value is ⊤).
/// Def. 10 states the OBL case; the FR case is the reading under which Fig. 4.16b
/// is "ill-formed under OBL" but fine under FR, as §4.10 explains.
///
/// The update is in place: `new` is consumed (on return it holds W values of no
/// meaning, for the caller to reuse as a buffer). When every lane is active,
/// getNewValue is the new value in every lane, so the columns are swapped whole;
/// when most are, the columns are swapped whole and the passive lanes are given
/// their getNewValue afterwards.
pub fn upd_env(interp: Interp, env: &mut Env, id: Value, new: &mut Vec<Val>, active: &[bool]) {
    if let Some(old_defined) = env.defined(id) {
        let mask = old_defined
            .iter()
            .zip(active)
            .map(|(&d, &a)| a || (d && interp == Interp::Freezing))
            .collect();
        env.set_defined(id, mask);
    }
    let column = env.column_vec_mut(id);
    // ∀τ. Δ'^W(τ) = Δ^W(τ){id ← getNewValue_𝓘(amsk^W, Δ^W, id, v^W)(τ)}, in place,
    // moving as few values as possible: with more active than passive lanes the
    // columns are swapped whole (now `column` holds v^W and `new` the old
    // column) and only the passive lanes take what getNewValue gives them.
    let active_lanes = active.iter().filter(|&&a| a).count();
    if new.len() == column.len() && 2 * active_lanes > active.len() {
        std::mem::swap(column, new);
        for ((slot, old), _) in column
            .iter_mut()
            .zip(new.iter_mut())
            .zip(active)
            .filter(|(_, a)| !**a)
        {
            // getNewValue of a passive lane from its old value: swapping the two
            // back gives the slot its old value again, and ⊤ under OBL.
            std::mem::swap(slot, old);
            get_new_value(interp, false, slot, old);
        }
        return;
    }
    for ((slot, n), &a) in column.iter_mut().zip(new.iter_mut()).zip(active) {
        get_new_value(interp, a, slot, n);
    }
}
