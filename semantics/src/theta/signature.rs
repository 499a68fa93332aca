//! The call types each builtin accepts (thesis Def. 11.2: a call's types must fit
//! θ(fnc)): [`signature_ok`], which the verifier checks; the message names the
//! expected signature and the one found.

use super::builtin::{Builtin, VoteMode};
use super::math::{MathFn, Shape};
use crate::types::TypeData;

/// A type as the text spells it, for signature messages.
fn type_name(ty: &TypeData) -> String {
    match ty {
        TypeData::Void => "void".into(),
        TypeData::Int(w) => format!("i{w}"),
        TypeData::F32 => "float".into(),
        TypeData::F64 => "double".into(),
        TypeData::F16 => "half".into(),
        TypeData::BF16 => "bfloat".into(),
        TypeData::Ptr(0) => "ptr".into(),
        TypeData::Ptr(n) => format!("ptr addrspace({n})"),
        TypeData::Label => "label".into(),
        TypeData::Token => "token".into(),
        TypeData::Array(..) | TypeData::Struct { .. } => "aggregate".into(),
        TypeData::Vector(..) => "vector".into(),
    }
}

/// Whether the call types fit the builtin's signature (for the verifier, Def. 11.2).
/// `Err` names the expected signature and the one found.
pub fn signature_ok(b: Builtin, arg_tys: &[&TypeData], ret: &TypeData) -> Result<(), String> {
    use TypeData::{F32, F64, Int, Ptr, Void};
    let is_float = |t: &TypeData| matches!(t, F32 | F64);
    let is_int = |t: &TypeData| matches!(t, Int(_));
    let is_first_class = |t: &TypeData| matches!(t, Int(_) | F32 | F64 | Ptr(_));
    let (ok, expected): (bool, &str) = match b {
        Builtin::ThreadId | Builtin::GroupId | Builtin::GroupSize => {
            (arg_tys.is_empty() && is_int(ret), "() -> iN")
        }
        Builtin::Any | Builtin::All => {
            (matches!(arg_tys, [Int(1)]) && *ret == Int(1), "(i1) -> i1")
        }
        Builtin::Popcount | Builtin::Ballot => {
            (matches!(arg_tys, [Int(1)]) && is_int(ret), "(i1) -> iN")
        }
        Builtin::Assume => (matches!(arg_tys, [Int(1)]) && *ret == Void, "(i1) -> void"),
        Builtin::LifetimeStart | Builtin::LifetimeEnd => (
            matches!(arg_tys, [Int(64), Ptr(_)] | [Ptr(_)]) && *ret == Void,
            "(i64, ptr) -> void or (ptr) -> void",
        ),
        Builtin::Memset => (
            matches!(arg_tys, [Ptr(_), Int(8), Int(_), Int(1)]) && *ret == Void,
            "(ptr, i8, iN, i1) -> void",
        ),
        Builtin::Memcpy | Builtin::Memmove => (
            matches!(arg_tys, [Ptr(_), Ptr(_), Int(_), Int(1)]) && *ret == Void,
            "(ptr, ptr, iN, i1) -> void",
        ),
        Builtin::NoOp => (*ret == Void, "(...) -> void"),
        Builtin::MbcntLo | Builtin::MbcntHi => (
            matches!(arg_tys, [Int(32), Int(32)]) && *ret == Int(32),
            "(i32, i32) -> i32",
        ),
        Builtin::ReadFirstLane => (
            matches!(arg_tys, [x] if *x == ret) && is_first_class(ret),
            "(T) -> T",
        ),
        Builtin::ReadLane => (
            matches!(arg_tys, [x, Int(32)] if *x == ret) && is_first_class(ret),
            "(T, i32) -> T",
        ),
        Builtin::WaveBallot => (matches!(arg_tys, [Int(1)]) && is_int(ret), "(i1) -> iN"),
        Builtin::LaneId | Builtin::WaveSize => (arg_tys.is_empty() && is_int(ret), "() -> iN"),
        Builtin::Shuffle(_) => (
            matches!(arg_tys, [Int(32), x, Int(32), Int(32)] if *x == ret)
                && matches!(ret, Int(32) | TypeData::F32),
            "(i32, T, i32, i32) -> T, T = i32 or float",
        ),
        Builtin::Vote(VoteMode::Ballot) => (
            matches!(arg_tys, [Int(32), Int(1)]) && *ret == Int(32),
            "(i32, i1) -> i32",
        ),
        Builtin::Vote(_) => (
            matches!(arg_tys, [Int(32), Int(1)]) && *ret == Int(1),
            "(i32, i1) -> i1",
        ),
        Builtin::ActiveMask => (arg_tys.is_empty() && *ret == Int(32), "() -> i32"),
        Builtin::MatchAny => (
            matches!(arg_tys, [Int(32), Int(32 | 64)]) && *ret == Int(32),
            "(i32, i32 or i64) -> i32",
        ),
        Builtin::Barrier => (
            matches!(arg_tys, [] | [Int(32)]) && *ret == Void,
            "() -> void or (i32) -> void",
        ),
        Builtin::WorkItem(_) => (matches!(arg_tys, [Int(32)]) && is_int(ret), "(i32) -> iN"),
        Builtin::GridDim(..) => (arg_tys.is_empty() && is_int(ret), "() -> iN"),
        Builtin::ConvergenceControl => {
            (arg_tys.is_empty() && *ret == TypeData::Token, "() -> token")
        }
        Builtin::Math(f) => {
            let same = |t: &&TypeData| *t == ret;
            match f.shape() {
                Shape::FloatUnary => (
                    is_float(ret) && arg_tys.len() == 1 && arg_tys.iter().all(same),
                    "(F) -> F",
                ),
                Shape::FloatBinary => (
                    is_float(ret) && arg_tys.len() == 2 && arg_tys.iter().all(same),
                    "(F, F) -> F",
                ),
                Shape::FloatTernary => (
                    is_float(ret) && arg_tys.len() == 3 && arg_tys.iter().all(same),
                    "(F, F, F) -> F",
                ),
                Shape::FloatInt => (
                    is_float(ret) && matches!(arg_tys, [x, Int(_)] if *x == ret),
                    "(F, iN) -> F",
                ),
                Shape::FloatToInt => (
                    is_int(ret) && matches!(arg_tys, [x] if is_float(x)),
                    "(F) -> iN",
                ),
                Shape::IntUnary => {
                    let byte_pairs =
                        !matches!(f, MathFn::Bswap) || matches!(ret, Int(w) if w % 16 == 0);
                    (
                        is_int(ret) && byte_pairs && matches!(arg_tys, [x] if *x == ret),
                        "(iN) -> iN (N a multiple of 16 for bswap)",
                    )
                }
                Shape::IntWithFlag => (
                    is_int(ret) && matches!(arg_tys, [x, Int(1)] if *x == ret),
                    "(iN, i1) -> iN",
                ),
                Shape::IntBinary => (
                    is_int(ret) && arg_tys.len() == 2 && arg_tys.iter().all(same),
                    "(iN, iN) -> iN",
                ),
                Shape::IntTernary => (
                    is_int(ret) && arg_tys.len() == 3 && arg_tys.iter().all(same),
                    "(iN, iN, iN) -> iN",
                ),
                Shape::IntCompare => (
                    matches!(ret, Int(w) if *w >= 2)
                        && matches!(arg_tys, [x, y] if is_int(x) && x == y),
                    "(iN, iN) -> iM with M >= 2",
                ),
            }
        }
    };
    if ok {
        return Ok(());
    }
    let found: Vec<String> = arg_tys.iter().map(|t| type_name(t)).collect();
    Err(format!(
        "{b} expects {expected}, found ({}) -> {}",
        found.join(", "),
        type_name(ret)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures() {
        use TypeData::{F32, F64, Int, Ptr, Void};
        let ok = |b, args: &[&TypeData], ret: &TypeData| signature_ok(b, args, ret).is_ok();
        assert!(ok(Builtin::Any, &[&Int(1)], &Int(1)));
        assert!(!ok(Builtin::Any, &[&Int(32)], &Int(1)));
        assert!(ok(Builtin::ThreadId, &[], &Int(32)));
        assert!(ok(Builtin::Math(MathFn::Sqrt), &[&F32], &F32));
        assert!(!ok(Builtin::Math(MathFn::Sqrt), &[&F64], &F32));
        assert!(ok(Builtin::Math(MathFn::Powi), &[&F32, &Int(32)], &F32));
        assert!(ok(
            Builtin::Math(MathFn::Ctlz),
            &[&Int(64), &Int(1)],
            &Int(64)
        ));
        assert!(!ok(Builtin::Math(MathFn::Bswap), &[&Int(8)], &Int(8)));
        assert!(ok(
            Builtin::Memcpy,
            &[&Ptr(0), &Ptr(0), &Int(64), &Int(1)],
            &Void
        ));
        assert!(ok(Builtin::LifetimeStart, &[&Int(64), &Ptr(0)], &Void));
        assert!(ok(Builtin::LifetimeStart, &[&Ptr(5)], &Void));
        assert_eq!(
            signature_ok(Builtin::Math(MathFn::SMax), &[&Int(32), &Int(64)], &Int(32)),
            Err("llvm.smax expects (iN, iN) -> iN, found (i32, i64) -> i32".into())
        );
    }
}
