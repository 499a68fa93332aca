//! Resolution of ϕ nodes (thesis §4.8): `evalphi` with and without a shadow operand.
//!
//! [`crate::rules::step::bls_w_step`] evaluates every phi of the scheduled block on
//! the incoming Δ^W (through [`crate::rules::hooks::eval_phi_w`], which picks this
//! lane-by-lane definition or its fast form) and assigns all results at once
//! (parallel copy).

use crate::ir::{Block, Inst, InstKind, Value};
use crate::rules::error::Stuck;
use crate::rules::program::Program;
use crate::rules::rule::Rule;
use crate::rules::state::{Env, Interp};
use crate::value::Val;

/// The value a phi gives one lane, and the definition mask of that value
/// (Def. 10.3-4; `true` when masks are not tracked).
pub type PhiLane = (Val, bool);

/// A phi `id = ϕ[val_j, ℓ_j] (shadow(val_s))` taken apart: its result, its arms
/// and its shadow operand.
pub type PhiParts<'p> = (Value, &'p [(Value, Block)], Option<Value>);

/// The parts of phi `phi`, or stuck when the phi list holds something else.
#[inline]
pub fn phi_parts<'p>(program: &'p Program<'_>, phi: Inst) -> Result<PhiParts<'p>, Stuck> {
    let data = &program.body.insts[phi];
    let InstKind::Phi {
        incoming: arms,
        shadow,
        ..
    } = &data.kind
    else {
        return Err(Stuck::new(Rule::BlsWStep, "phi list holds a non-phi"));
    };
    let result = data
        .result
        .ok_or_else(|| Stuck::new(Rule::BlsWStep, "phi without a result"))?;
    Ok((result, arms, *shadow))
}

/// `evalphi_𝓘 cmsk ℓ_in Δ φ` (§4.8) in every lane τ: the dispatcher, choosing by
/// whether the phi has a shadow operand. Returns the phi's new lanes and, when Δ^W
/// tracks definition masks, its new definition mask.
pub fn eval_phi(
    program: &Program<'_>,
    interp: Interp,
    env: &Env,
    phi: Inst,
    cmask: &[bool],
    incoming: &[Option<Block>],
) -> Result<(Vec<Val>, Option<Vec<bool>>), Stuck> {
    let (id, arms, shadow) = phi_parts(program, phi)?;
    let mut lanes = Vec::with_capacity(cmask.len());
    let mut defined = env.defined(id).map(|_| Vec::with_capacity(cmask.len()));
    for (lane, (&c, &from)) in cmask.iter().zip(incoming).enumerate() {
        let (v, d) = eval_phi_lane(interp, env, id, arms, shadow, c, from, lane)?;
        lanes.push(v);
        if let Some(m) = defined.as_mut() {
            m.push(d);
        }
    }
    Ok((lanes, defined))
}

/// evalphi in lane τ: [evalphi] for a plain phi, [evalphi-shadow] for one with a
/// shadow operand.
#[allow(rustdoc::broken_intra_doc_links, reason = "rule citations, not links")]
#[allow(clippy::too_many_arguments, reason = "the premises of evalphi")]
#[inline]
pub fn eval_phi_lane(
    interp: Interp,
    env: &Env,
    id: Value,
    arms: &[(Value, Block)],
    shadow: Option<Value>,
    cmask: bool,
    incoming: Option<Block>,
    lane: usize,
) -> Result<PhiLane, NoArm> {
    match shadow {
        None => eval_phi_plain(interp, env, id, arms, cmask, incoming, lane),
        Some(s) => eval_phi_shadow(env, arms, s, cmask, incoming, lane),
    }
}

/// [evalphi] `evalphi_𝓘 cmsk ℓ_in Δ (id = ϕ[val_j, ℓ_j])` (§4.8), one lane.
///
/// Under cmask the lane takes the incoming value of the edge it came along
/// (`ℓ_j = ℓ_in`); otherwise it keeps `id` under FR and gets ⊤ under OBL, like
/// [UPD-ENV] does for passive instructions.
///
/// The definition mask (Def. 10.3) follows the value: under cmask that of the
/// selected incoming value; without cmask, under OBL 0 (Def. 10.3's conjunction
/// with the control mask), and under FR the lane's old mask of `id`, since FR
/// does not assign the phi in that lane. Def. 10.3 read literally would give 0
/// under FR too; pllvm reads it as [UPD-ENV] reads Def. 10.1 for instructions,
/// so that §4.10's "divergent loops are ill-formed under the OBLIVIOUS
/// interpretation" holds for loop-header phis used after the loop and FR stays
/// well-formed there (semantics/RULES.md, "Readings", 2;
/// `corpus/semantics/reading-def10.3-phi-fr-mask.ll`).
#[allow(
    rustdoc::broken_intra_doc_links,
    reason = "a rule citation, not a link"
)]
#[inline]
pub fn eval_phi_plain(
    interp: Interp,
    env: &Env,
    id: Value,
    arms: &[(Value, Block)],
    cmask: bool,
    incoming: Option<Block>,
    lane: usize,
) -> Result<PhiLane, NoArm> {
    if cmask {
        return incoming_value(env, arms, incoming, lane);
    }
    Ok(match interp {
        Interp::Freezing => (env.lane(id, lane), defined(env, id, lane)),
        Interp::Oblivious => (Val::Undef, false),
    })
}

/// [evalphi-shadow] `evalphi_FR/OBL cmsk ℓ_in Δ (id = ϕ[val_j, ℓ_j] shadow(val_s))` (§4.8), one lane.
///
/// Invariant under the interpretation: under cmask the incoming value of the edge
/// taken, otherwise the shadow operand `val_s`; the definition mask is that of the
/// value taken (Def. 10.4).
#[inline]
pub fn eval_phi_shadow(
    env: &Env,
    arms: &[(Value, Block)],
    shadow: Value,
    cmask: bool,
    incoming: Option<Block>,
    lane: usize,
) -> Result<PhiLane, NoArm> {
    if cmask {
        incoming_value(env, arms, incoming, lane)
    } else {
        Ok((env.lane(shadow, lane), defined(env, shadow, lane)))
    }
}

/// `eval Δ val_j` for the arm with `ℓ_j = ℓ_in`. Its absence means the lane reached
/// the block along an edge the phi does not list (an unverified program) or from ⊥.
#[inline]
fn incoming_value(
    env: &Env,
    arms: &[(Value, Block)],
    incoming: Option<Block>,
    lane: usize,
) -> Result<PhiLane, NoArm> {
    let from = incoming.ok_or(NoArm::FromEntry)?;
    let v = arm_value(arms, from).ok_or(NoArm::NotListed)?;
    Ok((env.lane(v, lane), defined(env, v, lane)))
}

/// `val_j` of the arm with `ℓ_j = from`, `None` if the phi lists no such arm.
#[inline]
pub fn arm_value(arms: &[(Value, Block)], from: Block) -> Option<Value> {
    arms.iter().find(|(_, b)| *b == from).map(|&(v, _)| v)
}

/// Why a lane under cmask has no incoming value: the phi is stuck (kept small, so
/// that the lane loop passes results in registers; [`eval_phi`] turns it into a
/// [`Stuck`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoArm {
    /// ℓ_in = ⊥: a phi in the entry block.
    FromEntry,
    /// The phi lists no arm for ℓ_in.
    NotListed,
}

impl From<NoArm> for Stuck {
    fn from(e: NoArm) -> Stuck {
        let why = match e {
            NoArm::FromEntry => {
                "an active lane resolves a phi with ℓ_in = ⊥ (phi in the entry block)"
            }
            NoArm::NotListed => "no phi arm for the incoming block",
        };
        Stuck::new(Rule::BlsWStep, why)
    }
}

/// The definition mask bit of `value` in `lane` (`true` when masks are not tracked).
#[inline]
pub fn defined(env: &Env, value: Value, lane: usize) -> bool {
    env.defined(value).is_none_or(|d| d[lane])
}
