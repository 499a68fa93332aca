//! The targets' wave (warp) operations over one thread array, which is the wave
//! (amdgcn) or warp (nvptx): `mbcnt`, `readfirstlane`, `readlane`, `ballot`, the
//! lane id and the wave size (docs/language.md, "Calls and declarations"; LLVM
//! AMDGPUUsage, the PTX ISA). As θ's functions of thesis Fig. 4.14 they see every
//! argument vector and the activation.

use super::builtin::{Builtin, ThetaError, expect_lanes, fits};
use crate::ops::int::int_val;
use crate::types::TypeData;
use crate::value::Val;
use num_bigint::BigUint;
use num_traits::Zero;

/// Whether the builtin is one of the targets' wave (warp) operations that read
/// the lane's position or the activation ([`apply_wave`]).
pub fn is_wave_op(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::MbcntLo
            | Builtin::MbcntHi
            | Builtin::ReadFirstLane
            | Builtin::ReadLane
            | Builtin::WaveBallot
            | Builtin::LaneId
            | Builtin::WaveSize
    )
}

/// The targets' wave operations over a thread array (docs/language.md, "Calls and declarations"): the
/// array is the wave (amdgcn) or warp (nvptx), lane τ its τ-th lane. As θ's
/// functions of Fig. 4.14 they see every argument vector and the activation
/// amsk^W (`active`); `args[k][τ]` is lane τ's k-th argument. Returns one value
/// per lane; passive lanes of the per-lane ones (`mbcnt`) get ⊤, as a passive
/// lane of any per-lane function computes nothing.
pub fn apply_wave(
    b: Builtin,
    args: &[Vec<Val>],
    ret: &TypeData,
    active: &[bool],
) -> Result<Vec<Val>, ThetaError> {
    let width = active.len();
    let arity = match b {
        Builtin::LaneId | Builtin::WaveSize => 0,
        Builtin::ReadFirstLane | Builtin::WaveBallot => 1,
        Builtin::MbcntLo | Builtin::MbcntHi | Builtin::ReadLane => 2,
        other => return Err(ThetaError::NotHorizontal(other)),
    };
    expect_lanes(b, args, arity, width)?;
    let too_narrow = |bits| ThetaError::ResultTooNarrow {
        builtin: b,
        width,
        bits,
    };
    match b {
        Builtin::MbcntLo | Builtin::MbcntHi => Ok((0..width)
            .map(|lane| {
                if active[lane] {
                    theta_mbcnt(b == Builtin::MbcntHi, lane, &args[0][lane], &args[1][lane])
                } else {
                    Val::Undef
                }
            })
            .collect()),
        Builtin::ReadFirstLane => Ok(vec![theta_readfirstlane(&args[0], active); width]),
        Builtin::ReadLane => Ok(vec![theta_readlane(&args[0], &args[1], active); width]),
        Builtin::WaveBallot => {
            let bits = match ret {
                TypeData::Int(w) if *w as usize >= width => *w,
                TypeData::Int(w) => return Err(too_narrow(*w)),
                _ => return Err(too_narrow(0)),
            };
            Ok(vec![theta_wave_ballot(&args[0], active, bits); width])
        }
        Builtin::LaneId => {
            let bits = fits(ret, width.saturating_sub(1) as u64).map_err(too_narrow)?;
            Ok(theta_lane_id(width, bits))
        }
        _ => {
            let bits = fits(ret, width as u64).map_err(too_narrow)?;
            Ok(vec![theta_wave_size(width, bits); width])
        }
    }
}

/// θ(`llvm.amdgcn.mbcnt.lo` / `.hi`) for lane τ: "masked bit count", the number of
/// set bits of `mask` at the positions of the lanes below τ, plus `add`
/// (LLVM AMDGPUUsage and the ISA's `v_mbcnt_lo_u32_b32` / `v_mbcnt_hi_u32_b32`:
/// `popcount(mask & ThreadMask) + add`, ThreadMask = the lanes below the lane's
/// position, whether active or not). `lo`'s mask covers lanes 0-31 and `hi`'s
/// lanes 32-63, so `mbcnt.hi(-1, mbcnt.lo(-1, 0))` is τ for τ < 64 (a lane past
/// 63, in a thread array wider than a wave, sees all 64 bits below it). Modulo
/// 2^32, as the instruction adds; ⊤ in either operand gives ⊤.
pub fn theta_mbcnt(high: bool, lane: usize, mask: &Val, add: &Val) -> Val {
    let (Some(mask), Some(add)) = (mask.as_u128(), add.as_u128()) else {
        return Val::Undef;
    };
    let position = if high { lane.saturating_sub(32) } else { lane };
    let below = position.min(32) as u32;
    let ones = if below == 32 {
        u32::MAX
    } else {
        (1u32 << below) - 1
    };
    let count = (mask as u32 & ones).count_ones();
    Val::Int(u128::from((add as u32).wrapping_add(count)))
}

/// θ(`llvm.amdgcn.readfirstlane`): "the value in the lowest active lane of the
/// input operand" (LLVM AMDGPUUsage, `v_readfirstlane_b32`), the same in every
/// lane. With no active lane there is no first one, and the result is ⊤.
pub fn theta_readfirstlane(v: &[Val], active: &[bool]) -> Val {
    active
        .iter()
        .position(|&a| a)
        .map_or(Val::Undef, |first| v[first].clone())
}

/// θ(`llvm.amdgcn.readlane(v, l)`): "the value in the specified lane of the first
/// input operand" (LLVM AMDGPUUsage, `v_readlane_b32`), the same in every lane;
/// the lane `l` "has to be uniform" over the active lanes, and the result is
/// undefined (⊤) when it is not, when it is ⊤, when no lane is active, or when it
/// names no lane of the array. The lane read need not be active (the instruction
/// reads its register whatever the exec mask).
pub fn theta_readlane(v: &[Val], l: &[Val], active: &[bool]) -> Val {
    let mut chosen: Option<u128> = None;
    for (lane, &on) in active.iter().enumerate() {
        if !on {
            continue;
        }
        match (l[lane].as_u128(), chosen) {
            (None, _) => return Val::Undef,
            (Some(x), Some(c)) if x != c => return Val::Undef,
            (Some(x), _) => chosen = Some(x),
        }
    }
    chosen
        .and_then(|c| usize::try_from(c).ok())
        .and_then(|c| v.get(c).cloned())
        .unwrap_or(Val::Undef)
}

/// θ(`llvm.amdgcn.ballot`): "a bitfield ... containing the result of its i1
/// argument in all active lanes, and zero in all inactive lanes" (LLVM
/// AMDGPUUsage) as an `i{bits}`: bit τ is lane τ's argument if lane τ is active,
/// else 0. An active lane holding ⊤ leaves its bit unknown, so the result is ⊤
/// (as for θ(ballot), an integer with an unknown bit has no representation).
pub fn theta_wave_ballot(c: &[Val], active: &[bool], bits: u32) -> Val {
    let mut mask = BigUint::zero();
    for (lane, &on) in active.iter().enumerate() {
        if !on {
            continue;
        }
        match c[lane] {
            Val::Int(v) if v <= 1 => mask.set_bit(lane as u64, v == 1),
            _ => return Val::Undef,
        }
    }
    int_val(bits, mask)
}

/// θ(`llvm.nvvm.read.ptx.sreg.laneid`): lane τ's position in its warp, τ (PTX
/// `%laneid`; the thread array is the warp, docs/launch.md). In a launch it is
/// not the thread's id in its group (`tid.x`), which counts from the group's
/// first thread.
pub fn theta_lane_id(width: usize, bits: u32) -> Vec<Val> {
    (0..width)
        .map(|lane| int_val(bits, BigUint::from(lane)))
        .collect()
}

/// θ(`llvm.nvvm.read.ptx.sreg.warpsize`): the lanes of a warp, which in pllvm is
/// the thread array's W (PTX `WARP_SZ`), the same in every lane.
pub fn theta_wave_size(width: usize, bits: u32) -> Val {
    int_val(bits, BigUint::from(width))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::int::wrap_signed_big;
    use crate::theta::*;
    use num_bigint::BigInt;

    fn bits(v: &[u8]) -> Vec<Val> {
        v.iter().map(|&b| Val::bool(b == 1)).collect()
    }

    fn int(width: u32, v: i64) -> Val {
        int_val(width, wrap_signed_big(width, &BigInt::from(v)))
    }

    /// The targets' wave operations on one thread array (docs/language.md, "Calls and declarations").
    #[test]
    fn wave_operations() {
        let ints = |v: &[i64]| -> Vec<Val> { v.iter().map(|&x| int(32, x)).collect() };
        let all = [true; 4];
        let some = [false, true, false, true];
        // mbcnt.lo(-1, 0) is the lane's position; mbcnt.hi(-1, lo) adds lanes 32..63.
        let lo = apply_wave(
            Builtin::MbcntLo,
            &[ints(&[-1; 4]), ints(&[0; 4])],
            &TypeData::Int(32),
            &all,
        );
        assert_eq!(lo, Ok(ints(&[0, 1, 2, 3])));
        // Only the set bits below the lane count: mask 0b1010, addend 100.
        let masked = apply_wave(
            Builtin::MbcntLo,
            &[ints(&[0b1010; 4]), ints(&[100; 4])],
            &TypeData::Int(32),
            &some,
        );
        assert_eq!(
            masked,
            Ok(vec![Val::Undef, int(32, 100), Val::Undef, int(32, 101)])
        );
        assert_eq!(
            theta_mbcnt(false, 40, &int(32, -1), &int(32, 0)),
            int(32, 32)
        );
        assert_eq!(
            theta_mbcnt(true, 40, &int(32, -1), &int(32, 32)),
            int(32, 40)
        );
        assert_eq!(theta_mbcnt(true, 5, &int(32, -1), &int(32, 5)), int(32, 5));
        assert_eq!(theta_mbcnt(false, 3, &Val::Undef, &int(32, 0)), Val::Undef);
        // readfirstlane: the first active lane's value, broadcast.
        let first = apply_wave(
            Builtin::ReadFirstLane,
            &[ints(&[7, 8, 9, 10])],
            &TypeData::Int(32),
            &some,
        );
        assert_eq!(first, Ok(ints(&[8; 4])));
        assert_eq!(
            theta_readfirstlane(&ints(&[1, 2]), &[false, false]),
            Val::Undef
        );
        // readlane: a uniform lane index over the active lanes; any lane is read.
        let read = apply_wave(
            Builtin::ReadLane,
            &[ints(&[7, 8, 9, 10]), ints(&[5, 2, 6, 2])],
            &TypeData::Int(32),
            &some,
        );
        assert_eq!(read, Ok(ints(&[9; 4])));
        assert_eq!(
            theta_readlane(&ints(&[7, 8]), &ints(&[0, 1]), &[true, true]),
            Val::Undef
        );
        assert_eq!(
            theta_readlane(&ints(&[7, 8]), &ints(&[2, 2]), &[true, true]),
            Val::Undef
        );
        // ballot: active lanes whose argument is true; inactive lanes give 0.
        let ballot = apply_wave(
            Builtin::WaveBallot,
            &[bits(&[1, 1, 0, 1])],
            &TypeData::Int(32),
            &some,
        );
        assert_eq!(ballot, Ok(vec![int(32, 0b1010); 4]));
        let mut undef_passive = bits(&[1, 1, 0, 1]);
        undef_passive[0] = Val::Undef;
        assert_eq!(
            theta_wave_ballot(&undef_passive, &some, 32),
            int(32, 0b1010),
            "a passive ⊤ lane does not count"
        );
        assert_eq!(theta_wave_ballot(&undef_passive, &all, 32), Val::Undef);
        assert!(
            apply_wave(
                Builtin::WaveBallot,
                &[bits(&[1; 4])],
                &TypeData::Int(2),
                &all
            )
            .is_err()
        );
        // laneid and warpsize.
        assert_eq!(
            apply_wave(Builtin::LaneId, &[], &TypeData::Int(32), &some),
            Ok(ints(&[0, 1, 2, 3]))
        );
        assert_eq!(
            apply_wave(Builtin::WaveSize, &[], &TypeData::Int(32), &some),
            Ok(ints(&[4; 4]))
        );
        for (name, b) in [
            ("llvm.amdgcn.mbcnt.lo", Builtin::MbcntLo),
            ("llvm.amdgcn.mbcnt.hi", Builtin::MbcntHi),
            ("llvm.amdgcn.readfirstlane", Builtin::ReadFirstLane),
            ("llvm.amdgcn.readfirstlane.i32", Builtin::ReadFirstLane),
            ("llvm.amdgcn.readlane.f32", Builtin::ReadLane),
            ("llvm.amdgcn.ballot.i64", Builtin::WaveBallot),
            ("llvm.nvvm.read.ptx.sreg.laneid", Builtin::LaneId),
            ("llvm.nvvm.read.ptx.sreg.warpsize", Builtin::WaveSize),
        ] {
            assert_eq!(resolve(name), Some(b), "{name}");
            assert!(is_wave_op(b));
        }
        use TypeData::{F32, Int};
        assert!(signature_ok(Builtin::ReadLane, &[&F32, &Int(32)], &F32).is_ok());
        assert!(signature_ok(Builtin::ReadLane, &[&F32, &Int(64)], &F32).is_err());
        assert!(signature_ok(Builtin::MbcntHi, &[&Int(32), &Int(32)], &Int(32)).is_ok());
        assert!(signature_ok(Builtin::WaveBallot, &[&Int(1)], &Int(64)).is_ok());
    }
}
