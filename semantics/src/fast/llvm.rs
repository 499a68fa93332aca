//! The fast form of [W-INST-LLVM] (thesis §4.9): one instruction over every lane at
//! once, for [`crate::rules::Exec::Fast`].
//!
//! The rule, [`crate::rules::llvm::w_inst_llvm`], runs the per-lane operation of
//! [`crate::ops`] in each active lane. This fast form first tries a loop over unboxed
//! columns ([`super::column`]'s `*_bits`: binary operators, `icmp`, `fcmp`,
//! `select` on integers up to 64 bits and floats), then a loop over [`Val`]
//! columns with the dispatch on opcode and type hoisted ([`super::column`]'s
//! `*_column`), and otherwise runs the rule itself. Each fast form is tested against
//! the per-lane operation in [`super::column`].
#![allow(rustdoc::broken_intra_doc_links, reason = "rule citations, not links")]

use super::column;
use crate::column::{BitColumn, Column};
use crate::ir::{Inst, InstKind, Value};
use crate::memory::Memory;
use crate::rules::ctx::{CmdCtx, CmdOut, ub};
use crate::rules::env::eval;
use crate::rules::error::{Site, StepError};
use crate::rules::llvm::w_inst_llvm as rule;
use crate::rules::rule::Rule;
use crate::rules::state::Env;
use crate::types::{TypeData, TypeTable};
use crate::value::Val;

/// [W-INST-LLVM] for every lane: res^W into `out` (unboxed when a bit loop
/// applies, `out.in_bits` says so). Active lanes get what the rule gives them;
/// passive lanes are unspecified (the rule gives them ⊤, which [UPD-ENV] never
/// takes), and the first undefined lane in lane order is the one reported.
pub fn w_inst_llvm(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    env: &Env,
    mem: &Memory,
    c: Inst,
    out: &mut CmdOut,
) -> Result<(), StepError> {
    let types = ctx.program.types();
    let kind = &ctx.program.body.insts[c].kind;
    // Vector and aggregate values have no fast form: the rule computes them.
    if has_element_values(ctx, kind) {
        out.in_bits = false;
        return rule(ctx, active, env, mem, c, &mut out.vals);
    }
    out.in_bits = bit_loop(types, kind, env, active, &mut out.bits);
    if out.in_bits {
        return Ok(());
    }
    let vals = &mut out.vals;
    vals.resize(active.len(), Val::Undef);
    match kind {
        InstKind::Binary {
            op,
            flags,
            ty,
            lhs,
            rhs,
        } => {
            let (a, b, t) = (eval(env, *lhs), eval(env, *rhs), types.get(*ty));
            column::binary_column(*op, *flags, t, &a, &b, active, vals).map_err(|(lane, e)| {
                ub(
                    ctx,
                    Rule::WInstLlvm,
                    Some(lane),
                    Site::Inst(c),
                    &e.to_string(),
                )
            })
        }
        InstKind::ICmp { pred, ty, lhs, rhs } => {
            let (a, b, t) = (eval(env, *lhs), eval(env, *rhs), types.get(*ty));
            column::icmp_column(*pred, t, &a, &b, active, vals);
            Ok(())
        }
        InstKind::FCmp { pred, ty, lhs, rhs } => {
            let (a, b, t) = (eval(env, *lhs), eval(env, *rhs), types.get(*ty));
            column::fcmp_column(*pred, t, &a, &b, active, vals);
            Ok(())
        }
        InstKind::Select {
            cond,
            if_true,
            if_false,
            ..
        } => {
            let (cnd, t, f) = (eval(env, *cond), eval(env, *if_true), eval(env, *if_false));
            column::select_column(&cnd, &t, &f, active, vals);
            Ok(())
        }
        _ => rule(ctx, active, env, mem, c, vals),
    }
}

/// Whether instruction `kind` takes or gives vector or aggregate values (only
/// the type fields are read: no allocation on the fast path).
fn has_element_values(ctx: CmdCtx<'_, '_>, kind: &InstKind) -> bool {
    let types = ctx.program.types();
    let composite = |t| {
        types.vector(t).is_some()
            || types.is_aggregate(t)
            || matches!(types.get(t), TypeData::F16 | TypeData::BF16)
    };
    match kind {
        InstKind::Binary { ty, .. }
        | InstKind::FNeg { ty, .. }
        | InstKind::ICmp { ty, .. }
        | InstKind::FCmp { ty, .. }
        | InstKind::Freeze { ty, .. } => composite(*ty),
        InstKind::Select { ty, cond, .. } => composite(*ty) || composite(ctx.program.ty(*cond)),
        InstKind::Cast { from, to, .. } => composite(*from) || composite(*to),
        InstKind::Gep { .. } => false,
        _ => true,
    }
}

/// [W-INST-LLVM] by a fast form of [`super::column`] on unboxed columns, when the
/// instruction has one and its operands are stored as bit columns; `false` (with
/// nothing computed) otherwise.
fn bit_loop(
    types: &TypeTable,
    kind: &InstKind,
    env: &Env,
    active: &[bool],
    out: &mut BitColumn,
) -> bool {
    let bits = |v: Value| match env.column(v) {
        Column::Bits(b) => Some(b),
        Column::Vals(_) => None,
    };
    match kind {
        InstKind::Binary {
            op,
            flags,
            ty,
            lhs,
            rhs,
        } => match (bits(*lhs), bits(*rhs)) {
            (Some(a), Some(b)) => {
                column::binary_bits(*op, *flags, types.get(*ty), a, b, active.len(), out)
            }
            _ => false,
        },
        InstKind::ICmp { pred, ty, lhs, rhs } => match (bits(*lhs), bits(*rhs)) {
            (Some(a), Some(b)) => column::icmp_bits(*pred, types.get(*ty), a, b, active.len(), out),
            _ => false,
        },
        InstKind::FCmp { pred, ty, lhs, rhs } => match (bits(*lhs), bits(*rhs)) {
            (Some(a), Some(b)) => column::fcmp_bits(*pred, types.get(*ty), a, b, active.len(), out),
            _ => false,
        },
        InstKind::Select {
            cond,
            if_true,
            if_false,
            ..
        } => match (bits(*cond), bits(*if_true), bits(*if_false)) {
            (Some(c), Some(t), Some(f)) => column::select_bits(c, t, f, active.len(), out),
            _ => false,
        },
        _ => false,
    }
}
