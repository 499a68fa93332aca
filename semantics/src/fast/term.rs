//! The fast form of evalterm^W (thesis §4.7, Fig. 4.9): the successor index of every
//! lane at once, for [`crate::rules::Exec::Fast`] outside strict mode.
//!
//! The rule, [`crate::rules::term::eval_term`], gives one lane its index; this
//! fast form dispatches on the terminator and looks its condition's column up once
//! for all lanes. The unit test `eval_term_w_is_eval_term_in_every_lane`
//! compares the two.

use crate::ir::Terminator;
use crate::rules::state::{Env, Succ};
use crate::rules::term::{TermUb, eval_term};

/// `evalterm^W amsk^W Δ^W tmn` (§4.7): [`eval_term`] in every lane τ, i^W(τ) =
/// evalterm amsk^W(τ) Δ^W(τ) tmn, written into `succ` (one slot per lane).
///
/// Each slot receives exactly what [`eval_term`] gives that lane (the unit
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
    use crate::rules::program::Program;
    use crate::text::parse_module;
    use crate::value::Val;

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
