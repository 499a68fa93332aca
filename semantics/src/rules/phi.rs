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
    let mut arms = PhiArms::new(arms, env);
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
    arms: &mut PhiArms<'_, 'e>,
    cmask: bool,
    incoming: Option<Block>,
    lane: usize,
) -> Result<PhiLane<'e>, Stuck> {
    if cmask {
        return incoming_value(arms, incoming, lane);
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
    arms: &mut PhiArms<'_, 'e>,
    shadow: Value,
    cmask: bool,
    incoming: Option<Block>,
    lane: usize,
) -> Result<PhiLane<'e>, Stuck> {
    if cmask {
        incoming_value(arms, incoming, lane)
    } else {
        Ok((&env.get(shadow)[lane], defined(env, shadow, lane)))
    }
}

/// The arms `[val_j, ℓ_j]` of one phi, with the column (and definition mask) of
/// the arm the previous lane selected, so that lanes coming from the same block
/// neither search the arms nor look the column up in Δ^W again (a lookup cache of
/// [`eval_phi`]'s lane loop, not part of the state).
#[derive(Clone, Copy, Debug)]
pub struct PhiArms<'a, 'e> {
    arms: &'a [(Value, Block)],
    env: &'e Env,
    last: Option<(Block, ArmColumn<'e>)>,
}

/// `vec(Δ^W)(val_j)` and the definition mask of `val_j` (`None` when untracked).
type ArmColumn<'e> = (&'e [Val], Option<&'e [bool]>);

impl<'a, 'e> PhiArms<'a, 'e> {
    /// The arms of a phi read in `env`, nothing selected yet.
    pub fn new(arms: &'a [(Value, Block)], env: &'e Env) -> PhiArms<'a, 'e> {
        PhiArms {
            arms,
            env,
            last: None,
        }
    }

    /// `val_j` of the arm with `ℓ_j = from`, `None` if the phi lists no such arm.
    pub fn value_for(&self, from: Block) -> Option<Value> {
        self.arms.iter().find(|(_, b)| *b == from).map(|&(v, _)| v)
    }

    /// The column and definition mask of `val_j` for the arm with `ℓ_j = from`.
    #[inline]
    fn column_for(&mut self, from: Block) -> Option<ArmColumn<'e>> {
        if let Some((b, column)) = self.last
            && b == from
        {
            return Some(column);
        }
        let v = self.value_for(from)?;
        let column = (self.env.get(v), self.env.defined(v));
        self.last = Some((from, column));
        Some(column)
    }
}

/// `eval Δ val_j` for the arm with `ℓ_j = ℓ_in`. Its absence means the lane reached
/// the block along an edge the phi does not list (an unverified program) or from ⊥.
#[inline]
fn incoming_value<'e>(
    arms: &mut PhiArms<'_, 'e>,
    incoming: Option<Block>,
    lane: usize,
) -> Result<PhiLane<'e>, Stuck> {
    let from = incoming.ok_or_else(|| {
        Stuck::new(
            "BLS-W-STEP",
            "an active lane resolves a phi with ℓ_in = ⊥ (phi in the entry block)",
        )
    })?;
    let (column, defined) = arms
        .column_for(from)
        .ok_or_else(|| Stuck::new("BLS-W-STEP", "no phi arm for the incoming block"))?;
    Ok((&column[lane], defined.is_none_or(|d| d[lane])))
}

/// The definition mask bit of `value` in `lane` (`true` when masks are not tracked).
#[inline]
fn defined(env: &Env, value: Value, lane: usize) -> bool {
    env.defined(value).is_none_or(|d| d[lane])
}
