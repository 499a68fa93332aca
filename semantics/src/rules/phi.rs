//! Resolution of ϕ nodes (thesis §4.8): `evalphi` with and without a shadow operand.
//!
//! [`crate::rules::step::bls_w_step`] evaluates every phi of the scheduled block on
//! the incoming Δ^W with [`eval_phi`] and assigns all results at once (parallel copy).

use crate::column::{BitColumn, Column};
use crate::ir::{Block, Inst, InstKind, Value};
use crate::rules::{Applied, Env, Interp, Program, Rule, Stuck};

/// The value a phi gives one lane: the column of Δ^W whose lane τ it is (`None`
/// for ⊤), and the definition mask of that value (Def. 10.3-4; `true` when masks
/// are not tracked).
pub type PhiLane<'e> = (Option<&'e Column>, bool);

/// `evalphi_𝓘 cmsk ℓ_in Δ φ` (§4.8) in every lane: dispatches on whether the phi
/// has a shadow operand, and records the rule it applies in `applied`. Writes the
/// phi's new column into `column` (W lanes, stored like the phi's column in Δ^W)
/// and returns, when Δ^W tracks definition masks, its new definition mask.
#[allow(clippy::too_many_arguments, reason = "the premises of evalphi^W")]
pub fn eval_phi(
    program: &Program<'_>,
    interp: Interp,
    env: &Env,
    phi: Inst,
    cmask: &[bool],
    incoming: &[Option<Block>],
    column: &mut Column,
    applied: &Applied,
) -> Result<Option<Vec<bool>>, Stuck> {
    let InstKind::Phi {
        incoming: arms,
        shadow,
        ..
    } = &program.body.insts[phi].kind
    else {
        return Err(Stuck::new(Rule::BlsWStep, "phi list holds a non-phi"));
    };
    let result = program.body.insts[phi]
        .result
        .ok_or_else(|| Stuck::new(Rule::BlsWStep, "phi without a result"))?;
    let width = env.width();
    if column.len() != width {
        return Err(Stuck::new(
            Rule::BlsWStep,
            "phi column without one lane per thread",
        ));
    }
    applied.record(match shadow {
        None => Rule::EvalPhi,
        Some(_) => Rule::EvalPhiShadow,
    });
    if let Column::Bits(out) = column
        && let Some(done) = eval_phi_bits(interp, env, result, arms, *shadow, cmask, incoming, out)
    {
        return done.map(|()| None).map_err(Stuck::from);
    }
    let mut defined = env.defined(result).map(|_| Vec::with_capacity(width));
    // The arm of the last incoming block looked up: lanes mostly share one.
    let mut arms = PhiArms::new(arms, env);
    for (lane, (&c, &from)) in cmask.iter().zip(incoming).enumerate() {
        let (source, d) = match shadow {
            None => eval_phi_plain(interp, env, result, &mut arms, c, from, lane)?,
            Some(s) => eval_phi_shadow(env, &mut arms, *s, c, from, lane)?,
        };
        copy_lane(column, source, lane);
        if let Some(m) = defined.as_mut() {
            m.push(d);
        }
    }
    Ok(defined)
}

/// [`eval_phi`] column by column, for a phi whose arms (and shadow operand) are bit
/// columns of the phi's kind, when definition masks are not tracked; `None`, with
/// nothing computed, otherwise.
///
/// Every lane gets what [`eval_phi_plain`] / [`eval_phi_shadow`] give it: the lanes
/// without cmask all take the same column (the phi's own under FR, ⊤ under OBL, the
/// shadow operand), copied whole first; then each lane with cmask takes its lane
/// of the arm `ℓ_j = ℓ_in`. The unit test `bit_phis_resolve_like_the_lane_rules`
/// compares this with the lane-by-lane evaluation.
#[allow(clippy::too_many_arguments, reason = "the premises of evalphi^W")]
fn eval_phi_bits(
    interp: Interp,
    env: &Env,
    id: Value,
    arms: &[(Value, Block)],
    shadow: Option<Value>,
    cmask: &[bool],
    incoming: &[Option<Block>],
    out: &mut BitColumn,
) -> Option<Result<(), NoArm>> {
    let (kind, width) = (out.kind, out.bits.len());
    let bits_of = |v: Value| match env.column(v) {
        Column::Bits(b) if b.kind == kind && b.bits.len() == width => Some(b),
        _ => None,
    };
    if env.defined(id).is_some() || arms.iter().any(|&(v, _)| bits_of(v).is_none()) {
        return None;
    }
    // Lanes without cmask.
    let passive = match (shadow, interp) {
        (Some(s), _) => Some(bits_of(s)?),
        (None, Interp::Freezing) => Some(bits_of(id)?),
        (None, Interp::Oblivious) => None,
    };
    match passive {
        Some(from) => {
            out.bits.copy_from_slice(&from.bits);
            out.undef.copy_from_slice(&from.undef);
        }
        None => out.undef.fill(true),
    }
    // Lanes with cmask. In lock step they mostly all come from one block (a loop
    // header's from the latch): then one branch-free select of that arm's column,
    // since the control mask is irregular and a branch per lane mispredicts.
    // The arms were all checked to be bit columns of the phi's kind above.
    let mut arms = PhiArms::new(arms, env);
    let mut arm_for = |from: Block| match arms.column_for(from) {
        Some((Column::Bits(arm), _)) => Some(Ok(arm)),
        Some((Column::Vals(_), _)) => None,
        None => Some(Err(NoArm::NotListed)),
    };
    if let Some(first) = cmask.iter().position(|&c| c) {
        let from = incoming[first];
        let one_block = cmask
            .iter()
            .zip(incoming)
            .fold(true, |all, (&c, &f)| all & (!c | (f == from)));
        if let (true, Some(from)) = (one_block, from) {
            let arm = match arm_for(from)? {
                Ok(arm) => arm,
                Err(e) => return Some(Err(e)),
            };
            for ((slot, &x), &c) in out.bits.iter_mut().zip(&arm.bits).zip(cmask) {
                let take = u64::from(c).wrapping_neg();
                *slot = (x & take) | (*slot & !take);
            }
            for ((slot, &x), &c) in out.undef.iter_mut().zip(&arm.undef).zip(cmask) {
                *slot = (c & x) | (!c & *slot);
            }
            return Some(Ok(()));
        }
    }
    // Otherwise lane by lane: the arm of the edge taken.
    for (lane, (&c, &from)) in cmask.iter().zip(incoming).enumerate() {
        if !c {
            continue;
        }
        let Some(from) = from else {
            return Some(Err(NoArm::FromEntry));
        };
        let arm = match arm_for(from)? {
            Ok(arm) => arm,
            Err(e) => return Some(Err(e)),
        };
        out.bits[lane] = arm.bits[lane];
        out.undef[lane] = arm.undef[lane];
    }
    Some(Ok(()))
}

/// Lane τ of `source` (⊤ for `None`) into lane τ of `column`: a pattern copy when
/// both are bit columns of one kind (a phi and its arms have one type).
#[inline]
fn copy_lane(column: &mut Column, source: Option<&Column>, lane: usize) {
    match (column, source) {
        (Column::Bits(out), Some(Column::Bits(from))) if out.kind == from.kind => {
            out.bits[lane] = from.bits[lane];
            out.undef[lane] = from.undef[lane];
        }
        (Column::Bits(out), None) => out.set(lane, None),
        (Column::Vals(out), Some(Column::Vals(from))) => out[lane].clone_from(&from[lane]),
        (out, from) => out.set_lane(
            lane,
            from.map_or(crate::value::Val::Undef, |f| f.lane(lane)),
        ),
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
pub fn eval_phi_plain<'e>(
    interp: Interp,
    env: &'e Env,
    id: Value,
    arms: &mut PhiArms<'_, 'e>,
    cmask: bool,
    incoming: Option<Block>,
    lane: usize,
) -> Result<PhiLane<'e>, NoArm> {
    if cmask {
        return incoming_value(arms, incoming, lane);
    }
    Ok(match interp {
        Interp::Freezing => (Some(env.column(id)), defined(env, id, lane)),
        Interp::Oblivious => (None, false),
    })
}

/// [evalphi-shadow] `evalphi_FR/OBL cmsk ℓ_in Δ (id = ϕ[val_j, ℓ_j] shadow(val_s))` (§4.8), one lane.
///
/// Invariant under the interpretation: under cmask the incoming value of the edge
/// taken, otherwise the shadow operand `val_s`; the definition mask is that of the
/// value taken (Def. 10.4).
#[inline]
pub fn eval_phi_shadow<'e>(
    env: &'e Env,
    arms: &mut PhiArms<'_, 'e>,
    shadow: Value,
    cmask: bool,
    incoming: Option<Block>,
    lane: usize,
) -> Result<PhiLane<'e>, NoArm> {
    if cmask {
        incoming_value(arms, incoming, lane)
    } else {
        Ok((Some(env.column(shadow)), defined(env, shadow, lane)))
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
type ArmColumn<'e> = (&'e Column, Option<&'e [bool]>);

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
    #[inline(always)]
    fn column_for(&mut self, from: Block) -> Option<ArmColumn<'e>> {
        if let Some((b, column)) = self.last
            && b == from
        {
            return Some(column);
        }
        let v = self.value_for(from)?;
        let column = (self.env.column(v), self.env.defined(v));
        self.last = Some((from, column));
        Some(column)
    }
}

/// `eval Δ val_j` for the arm with `ℓ_j = ℓ_in`. Its absence means the lane reached
/// the block along an edge the phi does not list (an unverified program) or from ⊥.
#[inline(always)]
fn incoming_value<'e>(
    arms: &mut PhiArms<'_, 'e>,
    incoming: Option<Block>,
    lane: usize,
) -> Result<PhiLane<'e>, NoArm> {
    let from = incoming.ok_or(NoArm::FromEntry)?;
    let (column, defined) = arms.column_for(from).ok_or(NoArm::NotListed)?;
    Ok((Some(column), defined.is_none_or(|d| d[lane])))
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
fn defined(env: &Env, value: Value, lane: usize) -> bool {
    env.defined(value).is_none_or(|d| d[lane])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::BitKind;
    use crate::text::parse_module;
    use crate::value::Val;

    /// [`eval_phi_bits`] gives every lane what the lane rules ([`eval_phi`] into a
    /// [`Val`] column, which runs [`eval_phi_plain`] / [`eval_phi_shadow`] lane by
    /// lane) give it: plain and shadow phis, FR and OBL, every control mask of 5
    /// lanes, every choice of incoming block, ⊤ lanes in the arms, and the stuck
    /// cases (ℓ_in = ⊥, an edge the phi does not list).
    #[test]
    fn bit_phis_resolve_like_the_lane_rules() {
        let text = "define i32 @f(i32 %a, i32 %b, i32 %c, i1 %k) {\n\
            entry:\n  br label %h\n\
            h:\n  %p = phi i32 [ %a, %entry ], [ %b, %l ]\n\
            \x20 %s = phi i32 [ %a, %entry ], [ %b, %l ] shadow(%c)\n\
            \x20 br i1 %k, label %l, label %x\n\
            l:\n  br i1 %k, label %h, label %x\n\
            x:\n  ret i32 %p\n}\n";
        let (module, _) = parse_module(text).expect("parses");
        let func = module.functions.keys().next().expect("one function");
        let program = Program::new(&module, func).expect("program");
        let block = |name: &str| {
            let found = program.body.layout.iter().copied();
            found
                .into_iter()
                .find(|&b| program.block_name(b) == name)
                .expect("block")
        };
        let (entry, h, l, x) = (block("entry"), block("h"), block("l"), block("x"));
        let width = 5;
        let args = vec![
            vec![
                Val::Int(1),
                Val::Undef,
                Val::Int(3),
                Val::Int(4),
                Val::Int(5),
            ],
            vec![
                Val::Int(10),
                Val::Int(20),
                Val::Undef,
                Val::Int(40),
                Val::Int(50),
            ],
            vec![
                Val::Int(7),
                Val::Int(7),
                Val::Int(7),
                Val::Undef,
                Val::Int(7),
            ],
            vec![Val::bool(true); width],
        ];
        let env = Env::new(&program, width, &args, &|_| Val::Undef, false, false);
        // Lane 0 may also come from ⊥ or from `x`, which no arm lists.
        let origins = [Some(entry), Some(l), None, Some(x)];
        let mut fast = 0;
        for &phi in &program.body.blocks[h].phis {
            let InstKind::Phi {
                incoming: arms,
                shadow,
                ..
            } = &program.body.insts[phi].kind
            else {
                unreachable!("a phi")
            };
            let id = program.body.insts[phi].result.expect("a result");
            for interp in [Interp::Freezing, Interp::Oblivious] {
                for mask in 0u32..1 << width {
                    let cmask: Vec<bool> = (0..width).map(|t| mask >> t & 1 == 1).collect();
                    for from in 0u32..(4 << (width - 1)) {
                        let first = origins[(from & 3) as usize];
                        let incoming: Vec<Option<Block>> = std::iter::once(first)
                            .chain((1..width).map(|t| origins[(from >> (t + 1) & 1) as usize]))
                            .collect();
                        let mut lanes = Column::Vals(vec![Val::Undef; width]);
                        let expected = eval_phi(
                            &program,
                            interp,
                            &env,
                            phi,
                            &cmask,
                            &incoming,
                            &mut lanes,
                            &Applied::default(),
                        );
                        let mut bits = BitColumn::undef(BitKind::Int(32), width);
                        let got = eval_phi_bits(
                            interp, &env, id, arms, *shadow, &cmask, &incoming, &mut bits,
                        )
                        .expect("the bit path applies");
                        fast += 1;
                        match (got, expected) {
                            (Ok(()), Ok(None)) => assert_eq!(
                                Column::Bits(bits).vals(),
                                lanes.vals(),
                                "{interp:?} cmask {mask:b} from {from:b}"
                            ),
                            (Err(e), Err(stuck)) => assert_eq!(Stuck::from(e), stuck),
                            (got, expected) => {
                                panic!("{got:?} but the lane rules gave {expected:?}")
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(fast, 2 * 2 * 32 * 64);
    }
}
