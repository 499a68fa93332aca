//! The builtins of thesis Fig. 4.15 over the whole thread array: `thread_id` and
//! the horizontal `any`, `all`, `popcount` and `ballot` ([`apply_horizontal`]),
//! with the reading of ⊤ lanes of semantics/RULES.md, "Readings".

use super::builtin::{Builtin, ThetaError, expect_arity, fits, is_horizontal};
use super::launch::{LaunchPosition, apply_launch, is_launch_id};
use crate::ops::int::int_val;
use crate::types::TypeData;
use crate::value::Val;
use num_bigint::BigUint;
use num_traits::Zero;

/// The builtins of Fig. 4.15 over the whole thread array: `args[k][lane]` is lane
/// `lane`'s k-th argument. Returns one value per lane (the broadcast of Fig. 4.15).
///
/// As Fig. 4.15 says ("we omit the activation amsk^W ... understanding that ... the
/// activation ignored"), `any`/`all`/`popcount`/`ballot` read the argument of
/// *every* lane, active or not.
///
/// ⊤ lanes (semantics/RULES.md, "Readings"): ⊤ stands for a value nobody chose, so
/// the result is defined exactly when every choice of the ⊤ lanes gives the same
/// result, and is that result; otherwise it is ⊤. For `any` (∃, Fig. 4.15) a lane
/// holding 1 is a witness whatever the ⊤ lanes hold (`any([0, 1, ⊤, ⊤]) = 1`),
/// and dually a lane holding 0 decides `all` (`all([0, ⊤]) = 0`). `popcount` (Σ)
/// and `ballot` (the vector itself) depend on every lane, so one ⊤ lane makes
/// them ⊤ (an integer with one unknown bit has no representation but ⊤).
/// `popcount` and `thread_id` need a result type that holds W, and `ballot` one
/// of at least W bits (bit τ is lane τ's argument); otherwise the call is an
/// error, never a wrapped value.
pub fn apply_horizontal(
    b: Builtin,
    args: &[Vec<Val>],
    ret: &TypeData,
    width: usize,
) -> Result<Vec<Val>, ThetaError> {
    let too_narrow = |bits| ThetaError::ResultTooNarrow {
        builtin: b,
        width,
        bits,
    };
    if is_launch_id(b) {
        expect_arity(b, args, 0)?;
        return apply_launch(b, ret, width, &LaunchPosition::default());
    }
    if !is_horizontal(b) {
        return Err(ThetaError::NotHorizontal(b));
    }
    expect_arity(b, args, 1)?;
    let lanes = &args[0];
    if lanes.len() != width {
        return Err(ThetaError::LaneCount {
            builtin: b,
            width,
            got: lanes.len(),
        });
    }
    // m^W with ⊤ lanes as `None`.
    let mut bits = Vec::with_capacity(width);
    for lane_value in lanes {
        match lane_value {
            Val::Undef => bits.push(None),
            Val::Int(v) if *v <= 1 => bits.push(Some(*v == 1)),
            _ => return Err(ThetaError::NotABit(b)),
        }
    }
    let result = match b {
        Builtin::Any => theta_any(&bits),
        Builtin::All => theta_all(&bits),
        Builtin::Popcount => {
            let result_bits = fits(ret, width as u64).map_err(too_narrow)?;
            theta_popcount(&bits, result_bits)
        }
        _ => {
            let result_bits = match ret {
                TypeData::Int(w) if *w as usize >= width => *w,
                TypeData::Int(w) => return Err(too_narrow(*w)),
                _ => return Err(too_narrow(0)),
            };
            theta_ballot(&bits, result_bits)
        }
    };
    Ok(vec![result; width])
}

/// θ(any) = λm^W. ∃t ∈ 𝒯. m^W(t) (Fig. 4.15), `None` lanes ⊤: a lane holding 1 is
/// a witness whatever the ⊤ lanes hold; without one, a ⊤ lane could be the
/// witness or not, so the result is ⊤; with neither, 0.
fn theta_any(m: &[Option<bool>]) -> Val {
    if m.contains(&Some(true)) {
        Val::bool(true)
    } else if m.contains(&None) {
        Val::Undef
    } else {
        Val::bool(false)
    }
}

/// `all` = λm^W. ∀t ∈ 𝒯. m^W(t), the dual of θ(any) (not in Fig. 4.15; pllvm's):
/// a lane holding 0 is a counterexample whatever the ⊤ lanes hold; without one,
/// ⊤ if some lane is ⊤, else 1.
fn theta_all(m: &[Option<bool>]) -> Val {
    if m.contains(&Some(false)) {
        Val::bool(false)
    } else if m.contains(&None) {
        Val::Undef
    } else {
        Val::bool(true)
    }
}

/// θ(popcount) = λm^W. Σ_{t ∈ 𝒯} m^W(t) (Fig. 4.15) as an `i{bits}`: every lane
/// counts, so a ⊤ lane makes the sum ⊤ (its two choices give two sums).
fn theta_popcount(m: &[Option<bool>], bits: u32) -> Val {
    let mut count = 0usize;
    for lane in m {
        match lane {
            Some(true) => count += 1,
            Some(false) => {}
            None => return Val::Undef,
        }
    }
    int_val(bits, BigUint::from(count))
}

/// θ(ballot) = λm^W. [m^W, …, m^W] (Fig. 4.15): m^W as an `i{bits}` whose bit τ
/// is lane τ's argument. A ⊤ lane leaves its bit unknown, and an integer with an
/// unknown bit is ⊤ ([`Val`] has no partly defined integers).
fn theta_ballot(m: &[Option<bool>], bits: u32) -> Val {
    let mut mask = BigUint::zero();
    for (lane, &bit) in m.iter().enumerate() {
        match bit {
            Some(b) => mask.set_bit(lane as u64, b),
            None => return Val::Undef,
        }
    }
    int_val(bits, mask)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theta::*;
    use num_traits::One;

    fn bits(v: &[u8]) -> Vec<Val> {
        v.iter().map(|&b| Val::bool(b == 1)).collect()
    }

    /// Applies a horizontal builtin on W = `lanes.len()` and compares with `expect`.
    fn check(b: Builtin, lanes: Vec<Val>, ret: TypeData, expect: Result<Val, ThetaError>) {
        let width = lanes.len();
        let got = apply_horizontal(b, &[lanes], &ret, width);
        assert_eq!(got, expect.map(|v| vec![v; width]), "{b}");
    }

    #[test]
    fn horizontal_builtins_of_fig_4_15() {
        check(
            Builtin::Any,
            bits(&[0, 0, 1, 0]),
            TypeData::Int(1),
            Ok(Val::bool(true)),
        );
        check(
            Builtin::Any,
            bits(&[0, 0, 0, 0]),
            TypeData::Int(1),
            Ok(Val::bool(false)),
        );
        check(
            Builtin::All,
            bits(&[1, 1, 1, 1]),
            TypeData::Int(1),
            Ok(Val::bool(true)),
        );
        check(
            Builtin::All,
            bits(&[1, 0, 1, 1]),
            TypeData::Int(1),
            Ok(Val::bool(false)),
        );
        check(
            Builtin::Popcount,
            bits(&[1, 0, 1, 1]),
            TypeData::Int(32),
            Ok(Val::Int(3)),
        );
        check(
            Builtin::Ballot,
            bits(&[1, 0, 1, 1]),
            TypeData::Int(8),
            Ok(Val::Int(0b1101)),
        );
        let mut with_undef = bits(&[1, 0, 1, 1]);
        with_undef[1] = Val::Undef;
        check(
            Builtin::Ballot,
            with_undef.clone(),
            TypeData::Int(8),
            Ok(Val::Undef),
        );
        check(
            Builtin::Popcount,
            with_undef,
            TypeData::Int(8),
            Ok(Val::Undef),
        );
        let narrow = ThetaError::ResultTooNarrow {
            builtin: Builtin::Ballot,
            width: 4,
            bits: 2,
        };
        check(
            Builtin::Ballot,
            bits(&[1, 0, 1, 1]),
            TypeData::Int(2),
            Err(narrow.clone()),
        );
        assert_eq!(
            narrow.to_string(),
            "the result type of pllvm.ballot (i2) cannot hold its result for 4 lanes"
        );
        check(
            Builtin::Popcount,
            bits(&[1, 1, 1, 1]),
            TypeData::Int(2),
            Err(ThetaError::ResultTooNarrow {
                builtin: Builtin::Popcount,
                width: 4,
                bits: 2,
            }),
        );
        let wide = apply_horizontal(
            Builtin::Ballot,
            &[bits(&[1; 200])],
            &TypeData::Int(256),
            200,
        );
        let all_ones = int_val(256, (BigUint::one() << 200u32) - 1u8);
        assert_eq!(wide, Ok(vec![all_ones; 200]));
        let ids = apply_horizontal(Builtin::ThreadId, &[], &TypeData::Int(32), 3);
        assert_eq!(ids, Ok(vec![Val::Int(0), Val::Int(1), Val::Int(2)]));
        assert!(apply_horizontal(Builtin::ThreadId, &[], &TypeData::Int(2), 5).is_err());
        assert_eq!(
            apply_horizontal(Builtin::Math(MathFn::Sqrt), &[], &TypeData::F32, 2),
            Err(ThetaError::NotHorizontal(Builtin::Math(MathFn::Sqrt)))
        );
        assert!(
            apply_horizontal(Builtin::Any, &[vec![Val::Int(3)]], &TypeData::Int(1), 1).is_err()
        );
        assert!(apply_horizontal(Builtin::Any, &[bits(&[1])], &TypeData::Int(1), 2).is_err());
    }

    /// `any`/`all` over ⊤ lanes (RULES.md, "Readings"): defined exactly when
    /// every choice of the ⊤ lanes gives the same result. Checked against that
    /// definition by enumerating the choices, for every W ≤ 5 and every vector
    /// over {0, 1, ⊤}; plus the worked examples of that reading.
    #[test]
    fn any_and_all_over_undef_lanes_follow_every_choice() {
        let u = Val::Undef;
        let (zero, one) = (Val::bool(false), Val::bool(true));
        let any = |v: Vec<Val>| apply_horizontal(Builtin::Any, &[v], &TypeData::Int(1), 4);
        let all = |v: Vec<Val>, w| apply_horizontal(Builtin::All, &[v], &TypeData::Int(1), w);
        let lanes = vec![zero.clone(), one.clone(), u.clone(), u.clone()];
        assert_eq!(any(lanes), Ok(vec![one.clone(); 4]));
        let lanes = vec![zero.clone(), zero.clone(), u.clone(), u.clone()];
        assert_eq!(any(lanes), Ok(vec![u.clone(); 4]));
        assert_eq!(all(vec![zero.clone(), u.clone()], 2), Ok(vec![zero; 2]));
        assert_eq!(all(vec![one, u.clone()], 2), Ok(vec![u; 2]));
        for width in 1..=5usize {
            for code in 0..3u32.pow(width as u32) {
                // Lane t holds digit t of `code` in base 3: 0, 1 or ⊤.
                let digits: Vec<u32> = (0..width).map(|t| code / 3u32.pow(t as u32) % 3).collect();
                let lanes: Vec<Val> = digits
                    .iter()
                    .map(|&d| {
                        if d == 2 {
                            Val::Undef
                        } else {
                            Val::bool(d == 1)
                        }
                    })
                    .collect();
                let undef_lanes: Vec<usize> = (0..width).filter(|&t| digits[t] == 2).collect();
                for (b, f) in [(Builtin::Any, 0), (Builtin::All, 1)] {
                    let mut results = Vec::new();
                    for choice in 0..1u32 << undef_lanes.len() {
                        let mut m: Vec<bool> = digits.iter().map(|&d| d == 1).collect();
                        for (k, &t) in undef_lanes.iter().enumerate() {
                            m[t] = choice >> k & 1 == 1;
                        }
                        let r = if f == 0 {
                            m.iter().any(|&x| x)
                        } else {
                            m.iter().all(|&x| x)
                        };
                        if !results.contains(&r) {
                            results.push(r);
                        }
                    }
                    let expect = match results.as_slice() {
                        [r] => Val::bool(*r),
                        _ => Val::Undef,
                    };
                    let got =
                        apply_horizontal(b, std::slice::from_ref(&lanes), &TypeData::Int(1), width);
                    assert_eq!(got, Ok(vec![expect; width]), "{b} of {digits:?}");
                }
            }
        }
    }
}
