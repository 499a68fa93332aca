//! What every command rule shares: the fixed context of one block execution
//! ([`CmdCtx`]), the buffers a result res^W is computed in ([`CmdOut`]), strict
//! mode's premise on operands (Def. 10-11.3) and the undefined-behaviour outcome
//! of a rule ([`ub`]) (thesis §4.9).
#![allow(rustdoc::broken_intra_doc_links, reason = "rule citations, not links")]

use crate::column::{BitColumn, ColumnMut};
use crate::ir::{Block, Inst, InstKind, Value};
use crate::rules::error::{Site, StepError, Ub};
use crate::rules::exec::Exec;
use crate::rules::program::Program;
use crate::rules::rule::{Applied, Rule};
use crate::rules::state::{Env, Interp, Scratch};
use crate::theta;
use crate::value::Val;

/// What one command did, for traces: the variable it assigned and its new column.
pub type Written = Option<(Value, Vec<Val>)>;

/// The buffers a command's result res^W is computed in: [`Val`]s, or unboxed
/// lanes when a fast form for bit columns computed it (`in_bits` says which; only
/// [`Exec::Fast`] sets it). What lanes the other buffer, and the passive lanes of
/// res^W, hold is unspecified.
#[derive(Debug)]
pub struct CmdOut {
    /// res^W as [`Val`]s.
    pub vals: Vec<Val>,
    /// res^W unboxed.
    pub bits: BitColumn,
    /// Whether `bits` holds res^W.
    pub in_bits: bool,
}

impl CmdOut {
    /// Buffers of `width` lanes from the machine's scratch.
    pub(crate) fn take(scratch: &mut Scratch, width: usize) -> CmdOut {
        CmdOut {
            vals: scratch.take_vals(width),
            bits: scratch.take_bits(width),
            in_bits: false,
        }
    }

    /// Hands the buffers back to the machine's scratch.
    pub(crate) fn give_back(self, scratch: &mut Scratch) {
        scratch.give_back_vals(self.vals);
        scratch.give_back_bits(self.bits);
    }

    /// res^W, for [UPD-ENV].
    #[allow(
        rustdoc::broken_intra_doc_links,
        reason = "a rule citation, not a link"
    )]
    pub(crate) fn result(&mut self) -> ColumnMut<'_> {
        if self.in_bits {
            ColumnMut::Bits(&mut self.bits)
        } else {
            ColumnMut::Vals(&mut self.vals)
        }
    }
}

/// The fixed context of one block execution.
#[derive(Clone, Copy, Debug)]
pub struct CmdCtx<'p, 'm> {
    /// The program.
    pub program: &'p Program<'m>,
    /// 𝓘.
    pub interp: Interp,
    /// Whether the rules run lane by lane or through their fast forms.
    pub exec: Exec,
    /// ℓ_sc, for messages.
    pub block: Block,
    /// Whether to report each assignment (for traces); off, nothing is copied.
    pub record: bool,
    /// The rules this step has applied so far: the dispatchers record into it.
    pub applied: &'p Applied,
}

/// Called after each command with its position in the list, the environment and
/// the activation, which it may update (see [`compute_cmds`]).
pub type Refresh<'a> = dyn FnMut(usize, &Env, &mut Vec<bool>) -> Result<(), StepError> + 'a;

/// Strict mode's premise for [W-CMD-INST] and [W-CMD-TOTAL] (Def. 11.3): in every
/// lane whose definition mask of the command is set (`user`), every operand the
/// command depends on is defined. `select` depends only on its condition and the
/// operand it picks. `rule` is the rule whose premise this is.
#[inline]
pub fn strict_uses(
    ctx: CmdCtx<'_, '_>,
    rule: Rule,
    env: &Env,
    c: Inst,
    user: &[bool],
) -> Result<(), StepError> {
    if !env.is_strict() {
        return Ok(());
    }
    let kind = &ctx.program.body.insts[c].kind;
    let horizontal = matches!(kind, InstKind::Call { .. })
        && ctx.program.callees[c].is_some_and(theta::is_horizontal);
    for lane in (0..user.len()).filter(|&l| user[l] || horizontal && user.iter().any(|&u| u)) {
        let used: Vec<Value> = match kind {
            InstKind::Select {
                cond,
                if_true,
                if_false,
                ..
            } => match env.column(*cond).lane_bool(lane) {
                Some(true) => vec![*cond, *if_true],
                Some(false) => vec![*cond, *if_false],
                None => vec![*cond],
            },
            other => other.operands(),
        };
        for v in used {
            check_defined(ctx, rule, env, v, lane, Site::Inst(c))?;
        }
    }
    Ok(())
}

/// Def. 11.3 for one operand in one lane: Ub if its definition mask is 0. The
/// premise belongs to `rule` (the command's [W-CMD-INST] or [W-CMD-TOTAL], or
/// [BLS-W-STEP] for the predicate and the terminator), which the outcome names.
pub fn check_defined(
    ctx: CmdCtx<'_, '_>,
    rule: Rule,
    env: &Env,
    v: Value,
    lane: usize,
    at: Site,
) -> Result<(), StepError> {
    if !env.is_strict() {
        return Ok(());
    }
    match env.defined(v) {
        Some(d) if !d[lane] => Err(ub(
            ctx,
            rule,
            Some(lane),
            at,
            &format!(
                "use of {} whose definition mask does not cover the use (Def. 10, Def. 11.3)",
                ctx.program.value_name(v)
            ),
        )),
        _ => Ok(()),
    }
}

/// An undefined-behaviour outcome of `rule` at `site` of the scheduled block.
pub fn ub(
    ctx: CmdCtx<'_, '_>,
    rule: Rule,
    lane: Option<usize>,
    site: Site,
    message: &str,
) -> StepError {
    StepError::Undefined(Ub {
        rule,
        lane,
        block: ctx.block,
        site,
        message: message.to_string(),
    })
}
