//! CUDA's warp-level primitives over one thread array (docs/language.md, "Warp
//! primitives"): `__shfl_sync` and its `up`, `down` and `xor` forms
//! (`llvm.nvvm.shfl.sync.*`), `__any_sync`, `__all_sync`, `__uni_sync` and
//! `__ballot_sync` (`llvm.nvvm.vote.*.sync`), `__activemask`
//! (`llvm.nvvm.activemask`) and `__match_any_sync` (`llvm.nvvm.match.any.sync`),
//! read from the PTX ISA's `shfl.sync`, `vote.sync`, `activemask` and
//! `match.sync`. As θ's functions of thesis Fig. 4.14 they see every argument
//! vector and the activation.
//!
//! # The warp and its member mask
//! A warp is 32 lanes: lane τ of a thread array is lane `τ mod 32` of the warp
//! of lanes `32⌊τ/32⌋ ..`, and bit k of a member mask names lane
//! `32⌊τ/32⌋ + k` (a thread array of W ≤ 32 lanes is one warp; lanes past W do
//! not exist). PTX asks that every thread executing a `.sync` primitive be in
//! its member mask and that every thread of the mask execute the same
//! primitive. In lock step the threads that execute it together are the active
//! lanes of the step (amsk^W), so ([`member_lanes`]) the primitive is undefined
//! behaviour when an active lane's mask is ⊤, leaves the lane itself out, or
//! names a lane that is not active (it does not arrive: it took another path,
//! has terminated, or does not exist). Each lane's result is computed over the
//! lanes its own mask names (a program that passes the same mask in every
//! lane, as CUDA asks, gets one vote per warp).
//!
//! Passive lanes compute nothing (⊤), as for every per-lane function. A value
//! read from a lane that does not take part (a shuffle's source outside the
//! mask) is ⊤: CUDA leaves it undefined.

use super::builtin::{Builtin, ShuffleMode, ThetaError, VoteMode, expect_lanes};
use crate::value::Val;

/// Lanes of a warp.
const WARP: usize = 32;

/// Whether the builtin is one of CUDA's warp primitives ([`apply_warp`]).
pub fn is_warp_op(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::Shuffle(_) | Builtin::Vote(_) | Builtin::ActiveMask | Builtin::MatchAny
    )
}

/// θ of a warp primitive over a thread array (see the module documentation):
/// `args[k][τ]` is lane τ's k-th argument, `active` the activation. Every
/// result fits its type as computed (a lane's own or another lane's value, a
/// 32-lane mask, a bit), so none is truncated. An active
/// lane whose member mask breaks the rule is undefined behaviour
/// ([`ThetaError::MemberMask`]).
pub fn apply_warp(b: Builtin, args: &[Vec<Val>], active: &[bool]) -> Result<Vec<Val>, ThetaError> {
    let width = active.len();
    let arity = match b {
        Builtin::ActiveMask => 0,
        Builtin::Vote(_) | Builtin::MatchAny => 2,
        Builtin::Shuffle(_) => 4,
        other => return Err(ThetaError::NotHorizontal(other)),
    };
    expect_lanes(b, args, arity, width)?;
    (0..width)
        .map(|lane| {
            if !active[lane] {
                return Ok(Val::Undef);
            }
            Ok(match b {
                Builtin::ActiveMask => theta_active_mask(active, lane),
                Builtin::Vote(mode) => {
                    let members = member_lanes(b, &args[0], active, lane)?;
                    theta_vote(mode, &members, &args[1], lane - lane % WARP)
                }
                Builtin::MatchAny => {
                    let members = member_lanes(b, &args[0], active, lane)?;
                    theta_match_any(&members, &args[1], lane)
                }
                Builtin::Shuffle(mode) => {
                    let members = member_lanes(b, &args[0], active, lane)?;
                    theta_shuffle(
                        mode,
                        &members,
                        &args[1],
                        &args[2][lane],
                        &args[3][lane],
                        lane,
                    )
                }
                other => return Err(ThetaError::NotHorizontal(other)),
            })
        })
        .collect()
}

/// The lanes lane τ's member mask names, checked against the lock-step reading
/// of PTX's rule (module documentation): undefined behaviour when the mask is
/// ⊤, leaves τ out, or names a lane that is not active.
pub fn member_lanes(
    b: Builtin,
    masks: &[Val],
    active: &[bool],
    lane: usize,
) -> Result<Vec<usize>, ThetaError> {
    let broken = |why: String| ThetaError::MemberMask {
        builtin: b,
        lane,
        why,
    };
    let Some(mask) = masks[lane].as_u128() else {
        return Err(broken("its member mask is ⊤".into()));
    };
    let base = lane - lane % WARP;
    let members: Vec<usize> = (0..WARP)
        .filter(|k| mask >> k & 1 == 1)
        .map(|k| base + k)
        .collect();
    if !members.contains(&lane) {
        return Err(broken(format!(
            "its member mask {mask:#010x} leaves the lane itself out"
        )));
    }
    if let Some(&absent) = members
        .iter()
        .find(|&&k| !active.get(k).copied().unwrap_or(false))
    {
        let what = if absent < active.len() {
            "is not active here (it does not arrive at this call)"
        } else {
            "does not exist (the thread array is narrower)"
        };
        return Err(broken(format!(
            "its member mask {mask:#010x} names lane {absent}, which {what}"
        )));
    }
    Ok(members)
}

/// A mask of `lanes`, bit k for lane `base + k`.
fn mask_of(lanes: impl Iterator<Item = usize>, base: usize) -> Val {
    Val::Int(lanes.fold(0u128, |m, k| m | 1 << (k - base)))
}

/// θ(`vote.sync`) for a lane whose mask names `members` (PTX ISA,
/// `vote.sync`): `any` and `all` over their predicates, `uni` whether they
/// agree, `ballot` their mask of true predicates (bit k for lane `base + k`).
/// A ⊤ predicate leaves the answer ⊤ unless the other lanes decide it
/// (`any` with a true one, `all` with a false one), as for Fig. 4.15's `any`.
pub fn theta_vote(mode: VoteMode, members: &[usize], preds: &[Val], base: usize) -> Val {
    let bits: Vec<Option<bool>> = members
        .iter()
        .map(|&k| preds[k].as_u128().map(|p| p & 1 == 1))
        .collect();
    let unknown = bits.contains(&None);
    match mode {
        VoteMode::Any if bits.contains(&Some(true)) => Val::bool(true),
        VoteMode::All if bits.contains(&Some(false)) => Val::bool(false),
        _ if unknown => Val::Undef,
        VoteMode::Any => Val::bool(false),
        VoteMode::All => Val::bool(true),
        VoteMode::Uni => Val::bool(bits.windows(2).all(|w| w[0] == w[1])),
        VoteMode::Ballot => mask_of(
            members
                .iter()
                .zip(&bits)
                .filter(|(_, b)| **b == Some(true))
                .map(|(&k, _)| k),
            base,
        ),
    }
}

/// θ(`match.any.sync`) for lane τ (PTX ISA, `match.sync`): the mask of the
/// lanes its mask names whose value equals τ's; ⊤ when one of their values is ⊤.
pub fn theta_match_any(members: &[usize], values: &[Val], lane: usize) -> Val {
    if members.iter().any(|&k| values[k] == Val::Undef) {
        return Val::Undef;
    }
    let base = lane - lane % WARP;
    mask_of(
        members
            .iter()
            .copied()
            .filter(|&k| values[k] == values[lane]),
        base,
    )
}

/// θ(`shfl.sync`) for lane τ (PTX ISA, `shfl.sync`): with `c`'s clamp
/// `c[4:0]` and segment mask `c[12:8]` (CUDA's `width` argument), lane
/// `l = τ mod 32` reads lane j of its warp, where, with
/// `max = (l & seg) | (clamp & !seg)` and `min = l & seg`,
/// - `up`: j = l − b, kept when j ≥ max;
/// - `down`: j = l + b, kept when j ≤ max;
/// - `bfly`: j = l ^ b, kept when j ≤ max;
/// - `idx`: j = min | (b & !seg), kept when j ≤ max;
///
/// and j = l when it is not kept (the lane reads its own value). The value
/// read is ⊤ when lane j is not among `members` (CUDA: a thread may only read
/// from a thread taking part), and when `b` or `c` is ⊤.
pub fn theta_shuffle(
    mode: ShuffleMode,
    members: &[usize],
    values: &[Val],
    b: &Val,
    c: &Val,
    lane: usize,
) -> Val {
    let (Some(b), Some(c)) = (b.as_u128(), c.as_u128()) else {
        return Val::Undef;
    };
    let (b, clamp, seg) = ((b & 31) as i64, (c & 31) as i64, ((c >> 8) & 31) as i64);
    let l = (lane % WARP) as i64;
    let max = (l & seg) | (clamp & !seg);
    let min = l & seg;
    let (j, kept) = match mode {
        ShuffleMode::Up => (l - b, l - b >= max),
        ShuffleMode::Down => (l + b, l + b <= max),
        ShuffleMode::Bfly => (l ^ b, (l ^ b) <= max),
        ShuffleMode::Idx => {
            let j = min | (b & !seg);
            (j, j <= max)
        }
    };
    let j = if kept { j } else { l };
    let source = lane - lane % WARP + j as usize;
    if members.contains(&source) {
        values[source].clone()
    } else {
        Val::Undef
    }
}

/// θ(`activemask`) for lane τ (PTX ISA, `activemask`): the mask of the
/// active lanes of τ's warp, the lanes that execute the call together in lock
/// step.
pub fn theta_active_mask(active: &[bool], lane: usize) -> Val {
    let base = lane - lane % WARP;
    mask_of(
        (base..(base + WARP).min(active.len())).filter(|&k| active[k]),
        base,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[u128]) -> Vec<Val> {
        v.iter().map(|&x| Val::Int(x)).collect()
    }

    /// Shuffles of 8 lanes, all active, values 10 + τ, worked out from the
    /// PTX ISA's pseudo-code: `__shfl_sync(m, v, 2)` (c = 0x1f) gives lane 2's
    /// value everywhere; `__shfl_down_sync(m, v, 1)` (c = 0x1f) lane τ + 1's,
    /// and ⊤ in lane 7 (PTX keeps j = 8 ≤ max = 31, and lane 8 takes no part:
    /// the mask 0xff names lanes 0-7); `__shfl_up_sync(m,
    /// v, 2)` (c = 0) τ − 2's, and its own for τ < 2; `__shfl_xor_sync(m, v,
    /// 1)` swaps neighbours; `__shfl_sync(m, v, 1, 4)` (c = (32 − 4) << 8 |
    /// 0x1f) reads lane 1 of each segment of 4.
    #[test]
    fn shuffles() {
        let active = [true; 8];
        let values = ints(&(10..18).collect::<Vec<_>>());
        let full = ints(&[0xff; 8]);
        let shfl = |mode, b: u128, c: u128| {
            apply_warp(
                Builtin::Shuffle(mode),
                &[full.clone(), values.clone(), ints(&[b; 8]), ints(&[c; 8])],
                &active,
            )
            .unwrap()
        };
        assert_eq!(shfl(ShuffleMode::Idx, 2, 0x1f), ints(&[12; 8]));
        let mut down = ints(&[11, 12, 13, 14, 15, 16, 17]);
        down.push(Val::Undef);
        assert_eq!(shfl(ShuffleMode::Down, 1, 0x1f), down);
        assert_eq!(
            shfl(ShuffleMode::Up, 2, 0),
            ints(&[10, 11, 10, 11, 12, 13, 14, 15])
        );
        assert_eq!(
            shfl(ShuffleMode::Bfly, 1, 0x1f),
            ints(&[11, 10, 13, 12, 15, 14, 17, 16])
        );
        assert_eq!(
            shfl(ShuffleMode::Idx, 1, (28 << 8) | 0x1f),
            ints(&[11, 11, 11, 11, 15, 15, 15, 15])
        );
    }

    /// Votes, `activemask` and `match.any` with lanes 1 and 3 passive: the
    /// mask 0b0101_0101 names lanes 0, 2, 4, 6.
    #[test]
    fn votes_and_masks() {
        let active = [true, false, true, false, true, false, true, false];
        let mask = ints(&[0x55; 8]);
        let preds = ints(&[1, 0, 0, 0, 1, 0, 1, 0]);
        let vote = |mode| {
            apply_warp(Builtin::Vote(mode), &[mask.clone(), preds.clone()], &active).unwrap()[0]
                .clone()
        };
        assert_eq!(vote(VoteMode::Any), Val::bool(true));
        assert_eq!(vote(VoteMode::All), Val::bool(false));
        assert_eq!(vote(VoteMode::Uni), Val::bool(false));
        assert_eq!(vote(VoteMode::Ballot), Val::Int(0b0101_0001));
        let am = apply_warp(Builtin::ActiveMask, &[], &active).unwrap();
        assert_eq!(am[2], Val::Int(0x55));
        assert_eq!(am[1], Val::Undef);
        assert_eq!(theta_active_mask(&active, 6), Val::Int(0x55));
        let values = ints(&[7, 0, 9, 0, 7, 0, 9, 0]);
        let m = apply_warp(Builtin::MatchAny, &[mask.clone(), values], &active).unwrap();
        assert_eq!(m[0], Val::Int(0b0001_0001));
        assert_eq!(m[2], Val::Int(0b0100_0100));
    }

    /// The member-mask rule: a passive lane named, the lane itself left out,
    /// a lane past W, and a ⊤ mask are undefined behaviour naming the lane.
    #[test]
    fn member_masks_that_name_absent_lanes_are_undefined() {
        let active = [true, false, true, true];
        let preds = ints(&[1; 4]);
        let vote =
            |m: Vec<Val>| apply_warp(Builtin::Vote(VoteMode::Any), &[m, preds.clone()], &active);
        let err = |m| vote(m).unwrap_err().to_string();
        assert!(err(ints(&[0xf; 4])).contains("names lane 1, which is not active here"));
        assert!(err(ints(&[0xc; 4])).contains("leaves the lane itself out"));
        assert!(err(ints(&[0x1d; 4])).contains("names lane 4, which does not exist"));
        assert!(err(vec![Val::Undef; 4]).contains("member mask is ⊤"));
        assert!(vote(ints(&[0xd; 4])).is_ok());
    }
}
