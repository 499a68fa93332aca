//! The fast form of evalphi (thesis §4.8): a phi's new column at once, for
//! [`crate::rules::Exec::Fast`].
//!
//! The rules, [`crate::rules::phi::eval_phi_plain`] and
//! [`crate::rules::phi::eval_phi_shadow`], give one lane its value. When the phi
//! and its arms are bit columns of one kind and definition masks are not tracked,
//! this fast form copies the passive lanes' column whole and selects the lanes with
//! cmask from the arm's column, branch-free when they all come from one block (a
//! loop header's lanes from the latch). Otherwise it runs the rules lane by lane
//! into the machine's scratch column. The unit test
//! `bit_phis_resolve_like_the_lane_rules` compares it with the rules.

use crate::column::{BitColumn, Column};
use crate::ir::{Block, Inst, Value};
use crate::rules::error::Stuck;
use crate::rules::phi::{NoArm, arm_value, eval_phi_lane, phi_parts};
use crate::rules::program::Program;
use crate::rules::state::{Env, Interp, Scratch};

/// evalphi^W of `phi` in every lane: its new column (from `scratch`, stored like
/// the phi's column in Δ^W) and, when Δ^W tracks definition masks, its new
/// definition mask; every lane as [`crate::rules::phi::eval_phi`] gives it.
pub fn eval_phi(
    program: &Program<'_>,
    interp: Interp,
    env: &Env,
    phi: Inst,
    cmask: &[bool],
    incoming: &[Option<Block>],
    scratch: &mut Scratch,
) -> Result<(Column, Option<Vec<bool>>), Stuck> {
    let (id, arms, shadow) = phi_parts(program, phi)?;
    let width = env.width();
    let mut column = scratch.take_like(env.column(id), width);
    if let Column::Bits(out) = &mut column
        && let Some(done) = eval_phi_bits(interp, env, id, arms, shadow, cmask, incoming, out)
    {
        return match done {
            Ok(()) => Ok((column, None)),
            Err(e) => {
                scratch.give_back(column);
                Err(e.into())
            }
        };
    }
    let mut defined = env.defined(id).map(|_| Vec::with_capacity(width));
    for (lane, (&c, &from)) in cmask.iter().zip(incoming).enumerate() {
        match eval_phi_lane(interp, env, id, arms, shadow, c, from, lane) {
            Ok((v, d)) => {
                column.set_lane(lane, v);
                if let Some(m) = defined.as_mut() {
                    m.push(d);
                }
            }
            Err(e) => {
                scratch.give_back(column);
                return Err(e.into());
            }
        }
    }
    Ok((column, defined))
}

/// evalphi^W column by column, for a phi whose arms (and shadow operand) are bit
/// columns of the phi's kind, when definition masks are not tracked; `None`, with
/// nothing computed, otherwise.
///
/// Every lane gets what the lane rules give it: the lanes without cmask all take
/// the same column (the phi's own under FR, ⊤ under OBL, the shadow operand),
/// copied whole first; then each lane with cmask takes its lane of the arm
/// `ℓ_j = ℓ_in`.
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
    let mut last: Option<(Block, &BitColumn)> = None;
    let mut arm_for = |from: Block| -> Result<&BitColumn, NoArm> {
        if let Some((b, arm)) = last
            && b == from
        {
            return Ok(arm);
        }
        let v = arm_value(arms, from).ok_or(NoArm::NotListed)?;
        let arm = bits_of(v).ok_or(NoArm::NotListed)?;
        last = Some((from, arm));
        Ok(arm)
    };
    if let Some(first) = cmask.iter().position(|&c| c) {
        let from = incoming[first];
        let one_block = cmask
            .iter()
            .zip(incoming)
            .fold(true, |all, (&c, &f)| all & (!c | (f == from)));
        if let (true, Some(from)) = (one_block, from) {
            let arm = match arm_for(from) {
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
        let arm = match arm_for(from) {
            Ok(arm) => arm,
            Err(e) => return Some(Err(e)),
        };
        out.bits[lane] = arm.bits[lane];
        out.undef[lane] = arm.undef[lane];
    }
    Some(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::BitKind;
    use crate::ir::InstKind;
    use crate::text::parse_module;
    use crate::value::Val;

    /// [`eval_phi_bits`] gives every lane what the lane rules
    /// ([`crate::rules::phi::eval_phi`], which runs `eval_phi_plain` /
    /// `eval_phi_shadow` lane by lane) give it: plain and shadow phis, FR and OBL, every control mask of 5
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
                        let expected = crate::rules::phi::eval_phi(
                            &program, interp, &env, phi, &cmask, &incoming,
                        );
                        let mut bits = BitColumn::undef(BitKind::Int(32), width);
                        let got = eval_phi_bits(
                            interp, &env, id, arms, *shadow, &cmask, &incoming, &mut bits,
                        )
                        .expect("the bit path applies");
                        fast += 1;
                        match (got, expected) {
                            (Ok(()), Ok((lanes, None))) => assert_eq!(
                                Column::Bits(bits).vals().as_ref(),
                                lanes.as_slice(),
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
