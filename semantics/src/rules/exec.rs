//! Reference and fast execution: [`Exec`], and the one hook per rule kind through
//! which a dispatcher reaches either the rule or its kernel.
//!
//! The rules of this module's siblings are the definition: each computes the
//! per-lane meaning of its figure in thesis Ch. 4. [`crate::kernels`] computes the
//! same results column by column, for speed. A run chooses one with [`Exec`] (the
//! interpreter carries it in its configuration and passes it to every step), and
//! the dispatchers ([`crate::rules::cmd::compute_cmd`],
//! [`crate::rules::cmd::eval_cmd`], [`crate::rules::step::bls_w_step`]) call
//! the hooks below, which choose by it. The kernels are called from the
//! `Exec::Fast` arms here and nowhere else (the unit test
//! `kernels_are_entered_only_through_the_hooks` checks the sources), so an
//! `Exec::Reference` run executes the rules lane by lane and nothing else.
#![allow(rustdoc::broken_intra_doc_links, reason = "rule citations, not links")]

use crate::column::{Column, ColumnMut};
use crate::ir::{Block, Inst, Terminator, Value};
use crate::kernels;
use crate::memory::Memory;
use crate::rules::cmd::{CmdCtx, CmdOut};
use crate::rules::{Applied, Env, Interp, Program, Rule, Scratch, StepError, Stuck, Succ};
use crate::rules::{cmd, env, phi, step};
use std::fmt;

/// How a run executes the rules: lane by lane as the thesis states them, or
/// through the kernels of [`crate::kernels`]. Both give the same runs (the
/// property `proofs/tests/whole_run_equivalence.rs`); `Fast` is the default.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Exec {
    /// Every rule lane by lane, on [`crate::value::Val`]s: the definition.
    Reference,
    /// The kernels, on stored columns and the machine's scratch buffers.
    #[default]
    Fast,
}

impl Exec {
    /// `reference` or `fast`, as `--exec` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Exec::Reference => "reference",
            Exec::Fast => "fast",
        }
    }

    /// Parses `reference` / `fast` (any case; also `ref`).
    pub fn parse(text: &str) -> Result<Exec, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "reference" | "ref" => Ok(Exec::Reference),
            "fast" => Ok(Exec::Fast),
            other => Err(format!(
                "unknown execution '{other}' (expected reference or fast)"
            )),
        }
    }
}

impl fmt::Display for Exec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

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
        Exec::Fast => kernels::env::upd_env(interp, env, id, new, active, &mut scratch.lane_masks),
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
            cmd::w_inst_llvm(ctx, active, env, mem, c, &mut out.vals)
        }
        Exec::Fast => kernels::llvm::w_inst_llvm(ctx, active, env, mem, c, out),
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
        Exec::Fast => kernels::phi::eval_phi(program, interp, env, phi, cmask, incoming, scratch),
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
        Exec::Reference => step::eval_term_lanes(ctx, env, term, active, succ),
        Exec::Fast if env.is_strict() => step::eval_term_lanes(ctx, env, term, active, succ),
        Exec::Fast => kernels::term::eval_term_w(env, term, active, succ)
            .map_err(|(lane, e)| step::term_ub(ctx, lane, e)),
    }
}

#[cfg(test)]
mod tests {
    /// The rules' modules never name [`crate::kernels`]: a reference run reaches
    /// a kernel only if a hook's `Exec::Fast` arm is taken.
    #[test]
    fn kernels_are_entered_only_through_the_hooks() {
        let rules = [
            ("cmd.rs", include_str!("cmd.rs")),
            ("env.rs", include_str!("env.rs")),
            ("masks.rs", include_str!("masks.rs")),
            ("phi.rs", include_str!("phi.rs")),
            ("program.rs", include_str!("program.rs")),
            ("state.rs", include_str!("state.rs")),
            ("step.rs", include_str!("step.rs")),
            ("term.rs", include_str!("term.rs")),
        ];
        for (file, text) in rules {
            assert!(!text.contains("kernels::"), "{file} calls a kernel");
        }
        // In this file, every call of a kernel is in an `Exec::Fast` arm: the
        // nearest arm above it is one.
        let hooks = include_str!("exec.rs");
        let code = &hooks[..hooks.find("#[cfg(test)]").unwrap_or(hooks.len())];
        let lines: Vec<&str> = code.lines().collect();
        let mut calls = 0;
        for (n, line) in lines.iter().enumerate() {
            if !(line.contains("kernels::") && line.contains('(')) {
                continue;
            }
            calls += 1;
            let arm = lines[..=n].iter().rev().find(|l| l.contains("Exec::"));
            assert!(
                arm.is_some_and(|l| l.trim_start().starts_with("Exec::Fast")),
                "a kernel called outside an Exec::Fast arm: {line}"
            );
        }
        assert_eq!(calls, 4, "one kernel per hook");
    }
}
