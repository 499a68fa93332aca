//! The one hook per rule kind through which a dispatcher reaches either the rule
//! (lane by lane, the definition) or its fast form ([`crate::fast`]), as the run's
//! [`Exec`] says.
//!
//! The rules of this module's siblings are the definition: each computes the
//! per-lane meaning of its figure in thesis Ch. 4. [`crate::fast`] computes the
//! same results column by column, for speed. The dispatchers
//! ([`crate::rules::cmd::compute_cmd`], [`crate::rules::cmd::eval_cmd`],
//! [`crate::rules::step::bls_w_step`]) call the hooks below, which choose by
//! [`Exec`]. The fast forms are called from the `Exec::Fast` arms here and nowhere
//! else (the unit test `the_fast_path_is_entered_only_through_the_hooks` checks the
//! sources), so an `Exec::Reference` run executes the rules lane by lane and
//! nothing else.
#![allow(rustdoc::broken_intra_doc_links, reason = "rule citations, not links")]

use crate::column::{Column, ColumnMut};
use crate::fast;
use crate::ir::{Block, Inst, Terminator, Value};
use crate::memory::Memory;
use crate::rules::ctx::{CmdCtx, CmdOut, check_defined, ub};
use crate::rules::error::{Site, StepError, Stuck};
use crate::rules::exec::Exec;
use crate::rules::program::Program;
use crate::rules::rule::{Applied, Rule};
use crate::rules::state::{Env, Interp, Scratch, Succ};
use crate::rules::term::{TermUb, eval_term};
use crate::rules::{env, llvm, phi};

/// The hook of [UPD-ENV]: assigns res^W to `id` under `active`.
#[inline]
pub fn upd_env_w(
    exec: Exec,
    interp: Interp,
    env: &mut Env,
    id: Value,
    new: ColumnMut<'_>,
    active: &[bool],
    scratch: &mut Scratch,
) {
    match exec {
        Exec::Reference => {
            let lanes: Vec<_> = (0..active.len()).map(|lane| new.lane(lane)).collect();
            env::upd_env(interp, env, id, &lanes, active);
        }
        Exec::Fast => fast::env::upd_env(interp, env, id, new, active, &mut scratch.lane_masks),
    }
}

/// The hook of [W-INST-LLVM]: res^W of instruction `c` into `out`.
#[inline]
pub fn w_inst_llvm_w(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    env: &Env,
    mem: &Memory,
    c: Inst,
    out: &mut CmdOut,
) -> Result<(), StepError> {
    match ctx.exec {
        Exec::Reference => {
            out.in_bits = false;
            llvm::w_inst_llvm(ctx, active, env, mem, c, &mut out.vals)
        }
        Exec::Fast => fast::llvm::w_inst_llvm(ctx, active, env, mem, c, out),
    }
}

/// The hook of evalphi: the new column of `phi` in every lane (stored as Δ^W
/// stores values of its type) and, when tracked, its new definition mask. The
/// rule the phi's shape selects ([evalphi] or [evalphi-shadow]) is recorded in
/// `applied`, whichever execution runs it.
#[allow(clippy::too_many_arguments, reason = "the premises of evalphi^W")]
#[inline]
pub fn eval_phi_w(
    exec: Exec,
    program: &Program<'_>,
    interp: Interp,
    env: &Env,
    phi: Inst,
    cmask: &[bool],
    incoming: &[Option<Block>],
    scratch: &mut Scratch,
    applied: &Applied,
) -> Result<(Column, Option<Vec<bool>>), Stuck> {
    let (_, _, shadow) = phi::phi_parts(program, phi)?;
    applied.record(match shadow {
        None => Rule::EvalPhi,
        Some(_) => Rule::EvalPhiShadow,
    });
    match exec {
        Exec::Reference => {
            let (lanes, defined) = phi::eval_phi(program, interp, env, phi, cmask, incoming)?;
            let (id, _, _) = phi::phi_parts(program, phi)?;
            Ok((Column::from_vals(program.type_of(id), lanes), defined))
        }
        Exec::Fast => fast::phi::eval_phi(program, interp, env, phi, cmask, incoming, scratch),
    }
}

/// The hook of evalterm^W: i^W = evalterm^W amsk^W Δ^W tmn into `succ`. Strict
/// mode checks each active lane's terminator operands before that lane's
/// evalterm, which only the lane-by-lane form does.
#[inline]
pub fn eval_term_w(
    ctx: CmdCtx<'_, '_>,
    env: &Env,
    term: &Terminator,
    active: &[bool],
    succ: &mut [Succ],
) -> Result<(), StepError> {
    match ctx.exec {
        Exec::Reference => eval_term_lanes(ctx, env, term, active, succ),
        Exec::Fast if env.is_strict() => eval_term_lanes(ctx, env, term, active, succ),
        Exec::Fast => fast::term::eval_term_w(env, term, active, succ)
            .map_err(|(lane, e)| term_ub(ctx, lane, e)),
    }
}

/// evalterm^W lane by lane: i^W(τ) = evalterm amsk^W(τ) Δ^W(τ) tmn for every lane
/// τ, in lane order, the first undefined lane ending the step. In strict mode
/// each active lane's terminator operands must be defined first (Def. 11.3).
fn eval_term_lanes(
    ctx: CmdCtx<'_, '_>,
    env: &Env,
    term: &Terminator,
    active: &[bool],
    succ: &mut [Succ],
) -> Result<(), StepError> {
    let strict_operands = if env.is_strict() {
        term.operands()
    } else {
        Vec::new()
    };
    for (lane, (&a, slot)) in active.iter().zip(succ.iter_mut()).enumerate() {
        if a {
            for &v in &strict_operands {
                check_defined(ctx, Rule::BlsWStep, env, v, lane, Site::Terminator)?;
            }
        }
        *slot = eval_term(env, term, a, lane).map_err(|e| term_ub(ctx, lane, e))?;
    }
    Ok(())
}

/// The undefined behaviour of an active lane's terminator, under [BLS-W-STEP].
#[allow(
    rustdoc::broken_intra_doc_links,
    reason = "a rule citation, not a link"
)]
fn term_ub(ctx: CmdCtx<'_, '_>, lane: usize, e: TermUb) -> StepError {
    let msg = match e {
        TermUb::BranchOnUndef => "an active lane branches on ⊤",
        TermUb::Unreachable => "an active lane reached unreachable",
    };
    ub(ctx, Rule::BlsWStep, Some(lane), Site::Terminator, msg)
}

#[cfg(test)]
mod tests {
    /// The rules' modules never name [`crate::fast`]: a reference run reaches
    /// a fast form only if a hook's `Exec::Fast` arm is taken.
    #[test]
    fn the_fast_path_is_entered_only_through_the_hooks() {
        let rules = [
            ("cmd.rs", include_str!("cmd.rs")),
            ("ctx.rs", include_str!("ctx.rs")),
            ("env.rs", include_str!("env.rs")),
            ("error.rs", include_str!("error.rs")),
            ("exec.rs", include_str!("exec.rs")),
            ("llvm.rs", include_str!("llvm.rs")),
            ("masks.rs", include_str!("masks.rs")),
            ("phi.rs", include_str!("phi.rs")),
            ("program.rs", include_str!("program.rs")),
            ("rule.rs", include_str!("rule.rs")),
            ("state.rs", include_str!("state.rs")),
            ("step.rs", include_str!("step.rs")),
            ("term.rs", include_str!("term.rs")),
        ];
        for (file, text) in rules {
            assert!(!text.contains("fast::"), "{file} calls a fast form");
        }
        // In this file, every call of a fast form is in an `Exec::Fast` arm: the
        // nearest arm above it is one.
        let hooks = include_str!("hooks.rs");
        let code = &hooks[..hooks.find("#[cfg(test)]").unwrap_or(hooks.len())];
        let lines: Vec<&str> = code.lines().collect();
        let mut calls = 0;
        for (n, line) in lines.iter().enumerate() {
            if !(line.contains("fast::") && line.contains('(')) {
                continue;
            }
            calls += 1;
            let arm = lines[..=n].iter().rev().find(|l| l.contains("Exec::"));
            assert!(
                arm.is_some_and(|l| l.trim_start().starts_with("Exec::Fast")),
                "a fast form called outside an Exec::Fast arm: {line}"
            );
        }
        assert_eq!(calls, 4, "one fast form per hook");
    }
}
