//! Resolution of ϕ nodes (thesis §4.8): `evalphi` with and without a shadow operand.
//!
//! [`crate::rules::step::bls_w_step`] evaluates every phi of the scheduled block on
//! the incoming Δ^W with [`eval_phi`] and assigns all results at once (parallel copy).

use crate::ir::{Block, Inst, InstKind, Value};
use crate::rules::{Env, Interp, Program, Stuck};
use crate::value::Val;

/// The value a phi gives one lane (a reference into Δ^W, or ⊤), and the definition
/// mask of that value (Def. 10.3-4; `true` when masks are not tracked).
pub type PhiLane<'e> = (&'e Val, bool);

/// ⊤, for phis that yield it.
static UNDEF: Val = Val::Undef;

/// `evalphi_𝓘 cmsk ℓ_in Δ φ` (§4.8) in every lane: dispatches on whether the phi
/// has a shadow operand. Writes the phi's new column into `column` (W values) and
/// returns, when Δ^W tracks definition masks, its new definition mask.
pub fn eval_phi(
    program: &Program<'_>,
    interp: Interp,
    env: &Env,
    phi: Inst,
    cmask: &[bool],
    incoming: &[Option<Block>],
    column: &mut Vec<Val>,
) -> Result<Option<Vec<bool>>, Stuck> {
    let InstKind::Phi {
        incoming: arms,
        shadow,
        ..
    } = &program.body.insts[phi].kind
    else {
        return Err(Stuck::new("BLS-W-STEP", "phi list holds a non-phi"));
    };
    let result = program.body.insts[phi]
        .result
        .ok_or_else(|| Stuck::new("BLS-W-STEP", "phi without a result"))?;
    let width = env.width();
    column.resize(width, Val::Undef);
    let mut defined = env.defined(result).map(|_| Vec::with_capacity(width));
    // The arm of the last incoming block looked up: lanes mostly share one.
    let mut arms = PhiArms::new(arms);
    let lanes = column.iter_mut().zip(cmask).zip(incoming).enumerate();
    for (lane, ((slot, &c), &from)) in lanes {
        let (v, d) = match shadow {
            None => eval_phi_plain(interp, env, result, &mut arms, c, from, lane)?,
            Some(s) => eval_phi_shadow(env, &mut arms, *s, c, from, lane)?,
        };
        slot.clone_from(v);
        if let Some(m) = defined.as_mut() {
            m.push(d);
        }
    }
    Ok(defined)
}

/// [evalphi] `evalphi_𝓘 cmsk ℓ_in Δ (id = ϕ[val_j, ℓ_j])` (§4.8), one lane.
///
/// Under cmask the lane takes the incoming value of the edge it came along
/// (`ℓ_j = ℓ_in`); otherwise it keeps `id` under FR and gets ⊤ under OBL, like
/// [UPD-ENV] does for passive instructions.
#[allow(
    rustdoc::broken_intra_doc_links,
    reason = "a rule citation, not a link"
)]
#[inline]
pub fn eval_phi_plain<'e>(
    interp: Interp,
    env: &'e Env,
    id: Value,
    arms: &mut PhiArms<'_>,
    cmask: bool,
    incoming: Option<Block>,
    lane: usize,
) -> Result<PhiLane<'e>, Stuck> {
    if cmask {
        return incoming_value(env, arms, incoming, lane);
    }
    Ok(match interp {
        Interp::Freezing => (&env.get(id)[lane], defined(env, id, lane)),
        Interp::Oblivious => (&UNDEF, false),
    })
}

/// [evalphi-shadow] `evalphi_FR/OBL cmsk ℓ_in Δ (id = ϕ[val_j, ℓ_j] shadow(val_s))` (§4.8), one lane.
///
/// Invariant under the interpretation: under cmask the incoming value of the edge
/// taken, otherwise the shadow operand `val_s`.
#[inline]
pub fn eval_phi_shadow<'e>(
    env: &'e Env,
    arms: &mut PhiArms<'_>,
    shadow: Value,
    cmask: bool,
    incoming: Option<Block>,
    lane: usize,
) -> Result<PhiLane<'e>, Stuck> {
    if cmask {
        incoming_value(env, arms, incoming, lane)
    } else {
        Ok((&env.get(shadow)[lane], defined(env, shadow, lane)))
    }
}

/// The arms `[val_j, ℓ_j]` of one phi, with the arm the previous lane selected,
/// so that lanes coming from the same block do not search the arms again (a
/// lookup cache of [`eval_phi`]'s lane loop, not part of the state).
#[derive(Clone, Copy, Debug)]
pub struct PhiArms<'a> {
    arms: &'a [(Value, Block)],
    last: Option<(Block, Value)>,
}

impl<'a> PhiArms<'a> {
    /// The arms of a phi, nothing selected yet.
    pub fn new(arms: &'a [(Value, Block)]) -> PhiArms<'a> {
        PhiArms { arms, last: None }
    }

    /// `val_j` of the arm with `ℓ_j = from`, `None` if the phi lists no such arm.
    #[inline]
    pub fn value_for(&mut self, from: Block) -> Option<Value> {
        if let Some((b, v)) = self.last
            && b == from
        {
            return Some(v);
        }
        let &(v, _) = self.arms.iter().find(|(_, b)| *b == from)?;
        self.last = Some((from, v));
        Some(v)
    }
}

/// `eval Δ val_j` for the arm with `ℓ_j = ℓ_in`. Its absence means the lane reached
/// the block along an edge the phi does not list (an unverified program) or from ⊥.
#[inline]
fn incoming_value<'e>(
    env: &'e Env,
    arms: &mut PhiArms<'_>,
    incoming: Option<Block>,
    lane: usize,
) -> Result<PhiLane<'e>, Stuck> {
    let from = incoming.ok_or_else(|| {
        Stuck::new(
            "BLS-W-STEP",
            "an active lane resolves a phi with ℓ_in = ⊥ (phi in the entry block)",
        )
    })?;
    let val = arms
        .value_for(from)
        .ok_or_else(|| Stuck::new("BLS-W-STEP", "no phi arm for the incoming block"))?;
    Ok((&env.get(val)[lane], defined(env, val, lane)))
}

/// The definition mask bit of `value` in `lane` (`true` when masks are not tracked).
#[inline]
fn defined(env: &Env, value: Value, lane: usize) -> bool {
    env.defined(value).is_none_or(|d| d[lane])
}
