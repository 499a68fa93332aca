//! Terminator semantics `evalterm` (thesis §4.7, Fig. 4.9), extended to LLVM's
//! `switch` and `unreachable`.

use crate::ir::Terminator;
use crate::rules::{Env, Succ};
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
        Terminator::CondBr { cond, .. } => match env.column(*cond).lane_bool(lane) {
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

/// `evalterm^W amsk^W Δ^W tmn` (§4.7): [`eval_term`] in every lane τ, i^W(τ) =
/// evalterm amsk^W(τ) Δ^W(τ) tmn, written into `succ` (one slot per lane).
///
/// The terminator is dispatched and its condition's column looked up once for all
/// lanes; each slot receives exactly what [`eval_term`] gives that lane (the unit
/// tests compare the two). The first lane (in lane order) whose evaluation is
/// undefined behaviour is returned with its reason; slots after it are not written.
pub fn eval_term_w(
    env: &Env,
    term: &Terminator,
    active: &[bool],
    succ: &mut [Succ],
) -> Result<(), (usize, TermUb)> {
    match term {
        Terminator::Br(_) => {
            for (slot, &a) in succ.iter_mut().zip(active) {
                *slot = if a { Succ::Index(0) } else { Succ::Any };
            }
        }
        Terminator::CondBr { cond, .. } => {
            let cond = env.column(*cond);
            for (lane, (slot, &a)) in succ.iter_mut().zip(active).enumerate() {
                *slot = match (a, cond.lane_bool(lane)) {
                    (false, _) => Succ::Any,
                    (true, Some(c)) => Succ::Index(u32::from(!c)),
                    (true, None) => return Err((lane, TermUb::BranchOnUndef)),
                };
            }
        }
        _ => {
            for (lane, (slot, &a)) in succ.iter_mut().zip(active).enumerate() {
                *slot = eval_term(env, term, a, lane).map_err(|e| (lane, e))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Program;
    use crate::text::parse_module;

    /// `eval_term_w` gives every lane what `eval_term` gives it, and stops at the
    /// same first undefined lane, for every terminator shape and activation.
    #[test]
    fn eval_term_w_is_eval_term_in_every_lane() {
        let text = "define i32 @f(i1 %c, i32 %s, i32 %r) {\n\
            entry:\n  br label %a\n\
            a:\n  br i1 %c, label %b, label %d\n\
            b:\n  switch i32 %s, label %d [ i32 1, label %a\n i32 2, label %b ]\n\
            d:\n  ret i32 %r\n}\n";
        let (module, _) = parse_module(text).expect("parses");
        let func = module.functions.keys().next().expect("one function");
        let program = Program::new(&module, func).expect("program");
        let width = 6;
        let conds = [
            Val::Int(1),
            Val::Int(0),
            Val::Undef,
            Val::Int(1),
            Val::Int(0),
            Val::Int(1),
        ];
        let scrutinees: Vec<Val> = (0..width as u128).map(|k| Val::Int(k % 3)).collect();
        let returns: Vec<Val> = (0..width as u128).map(Val::Int).collect();
        let args = vec![conds.to_vec(), scrutinees, returns];
        let env = Env::new(&program, width, &args, &|_| Val::Undef, false, false);
        for mask in 0u32..(1 << width) {
            let active: Vec<bool> = (0..width).map(|l| mask >> l & 1 == 1).collect();
            for &b in &program.body.layout {
                let term = &program.body.blocks[b].term;
                let mut column = vec![Succ::Any; width];
                let got = eval_term_w(&env, term, &active, &mut column);
                let mut expected = Ok(());
                for (lane, &a) in active.iter().enumerate() {
                    match eval_term(&env, term, a, lane) {
                        Ok(i) => assert_eq!(column[lane], i, "lane {lane}, mask {mask:b}"),
                        Err(e) => {
                            expected = Err((lane, e));
                            break;
                        }
                    }
                }
                assert_eq!(got, expected, "mask {mask:b}");
            }
        }
    }
}
