//! Terminator semantics `evalterm` (thesis §4.7, Fig. 4.9), extended to LLVM's
//! `switch` and `unreachable`.

use crate::ir::Terminator;
use crate::rules::state::{Env, Succ};
use crate::value::Val;
use num_bigint::BigUint;

/// What evaluating a terminator in one lane can run into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TermUb {
    /// An active lane branches on ⊤ (LLVM: branching on poison is UB).
    BranchOnUndef,
    /// An active lane reached `unreachable`.
    Unreachable,
}

/// [evalterm] `evalterm amsk Δ tmn` (Fig. 4.9), one lane.
///
/// A passive lane (amsk = 0) yields ⊤ whatever the terminator. An active lane
/// yields 0 for `br ℓ`; 0 or 1 for `br val ℓ0 ℓ1` as the condition is true or
/// false; □(r) for `ret`. Extensions beyond Fig. 4.9, with LLVM's meaning: `switch`
/// yields k + 1 for the first case k whose value matches, else 0 (the default);
/// `ret void` yields □(⊤); `unreachable` and a branch on ⊤ are undefined behaviour.
#[allow(
    rustdoc::broken_intra_doc_links,
    reason = "a rule citation, not a link"
)]
#[inline]
pub fn eval_term(env: &Env, term: &Terminator, active: bool, lane: usize) -> Result<Succ, TermUb> {
    if !active {
        return Ok(Succ::Any);
    }
    match term {
        Terminator::Br(_) => Ok(Succ::Index(0)),
        Terminator::CondBr { cond, .. } => match env.lane(*cond, lane).as_bool() {
            Some(true) => Ok(Succ::Index(0)),
            Some(false) => Ok(Succ::Index(1)),
            None => Err(TermUb::BranchOnUndef),
        },
        Terminator::Switch { cond, cases, .. } => {
            let scrutinee: BigUint = env
                .lane(*cond, lane)
                .as_biguint()
                .ok_or(TermUb::BranchOnUndef)?;
            let k = cases.iter().position(|(c, _)| *c == scrutinee);
            Ok(Succ::Index(k.map_or(0, |k| k as u32 + 1)))
        }
        Terminator::Ret(Some(v)) => Ok(Succ::Ret(env.lane(*v, lane))),
        Terminator::Ret(None) => Ok(Succ::Ret(Val::Undef)),
        Terminator::Unreachable => Err(TermUb::Unreachable),
    }
}
