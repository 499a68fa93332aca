//! [W-INST-LLVM] (thesis §4.9): every instruction §4.9 leaves to "regular LLVM
//! semantics", lane by lane with [`crate::ops`], and `getelementptr`'s address
//! arithmetic.
#![allow(rustdoc::broken_intra_doc_links, reason = "rule citations, not links")]

use crate::ir::{Inst, InstKind, Value};
use crate::memory::Memory;
use crate::ops;
use crate::rules::ctx::{CmdCtx, ub};
use crate::rules::error::{Site, StepError, Stuck};
use crate::rules::program::Program;
use crate::rules::rule::Rule;
use crate::rules::state::Env;
use crate::value::{Pointer, Val};

/// [W-INST-LLVM] Every instruction §4.9 leaves to "regular LLVM semantics": each
/// active lane computes it on its own operands with [`crate::ops`]. Passive lanes
/// compute nothing (their result is discarded by [UPD-ENV] anyway), so a division
/// by zero in a passive lane is not undefined behaviour. The result is written to
/// `out` (W lanes; passive lanes get ⊤); the first active lane, in lane order,
/// whose operation is undefined behaviour ends the rule.
pub fn w_inst_llvm(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    env: &Env,
    mem: &Memory,
    c: Inst,
    out: &mut Vec<Val>,
) -> Result<(), StepError> {
    let kind = &ctx.program.body.insts[c].kind;
    let lane_wise = matches!(
        kind,
        InstKind::Binary { .. }
            | InstKind::FNeg { .. }
            | InstKind::ICmp { .. }
            | InstKind::FCmp { .. }
            | InstKind::Cast { .. }
            | InstKind::Select { .. }
            | InstKind::Freeze { .. }
            | InstKind::Gep { .. }
            | InstKind::ExtractElement { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. }
            | InstKind::ExtractValue { .. }
            | InstKind::InsertValue { .. }
    );
    if !lane_wise {
        let why = format!("{} is not a lane-wise instruction", kind.opcode());
        return Err(Stuck::new(Rule::WInstLlvm, why).into());
    }
    out.clear();
    out.resize(active.len(), Val::Undef);
    // Premise: ∀τ. amsk^W(τ) ⇒ res^W(τ) = inst evaluated on Δ^W(τ).
    for (lane, slot) in out.iter_mut().enumerate().filter(|&(l, _)| active[l]) {
        *slot = llvm_lane(ctx, env, mem, c, lane)?;
    }
    Ok(())
}

/// One lane of [W-INST-LLVM]: the per-lane LLVM semantics of instruction `c` on
/// lane τ's operands.
#[allow(
    rustdoc::broken_intra_doc_links,
    reason = "a rule citation, not a link"
)]
fn llvm_lane(
    ctx: CmdCtx<'_, '_>,
    env: &Env,
    mem: &Memory,
    c: Inst,
    lane: usize,
) -> Result<Val, StepError> {
    let program = ctx.program;
    let types = program.types();
    let arg = |v: Value| env.lane(v, lane);
    let lane_ub = |e: ops::LaneUb| {
        ub(
            ctx,
            Rule::WInstLlvm,
            Some(lane),
            Site::Inst(c),
            &e.to_string(),
        )
    };
    if let Some(v) = vector_lane(program, &program.body.insts[c].kind, &arg) {
        return v.map_err(lane_ub);
    }
    Ok(match &program.body.insts[c].kind {
        InstKind::Binary {
            op,
            flags,
            ty,
            lhs,
            rhs,
        } => ops::binary(*op, *flags, types.get(*ty), &arg(*lhs), &arg(*rhs)).map_err(|e| {
            ub(
                ctx,
                Rule::WInstLlvm,
                Some(lane),
                Site::Inst(c),
                &e.to_string(),
            )
        })?,
        InstKind::FNeg { ty, arg: a } => ops::fneg(types.get(*ty), &arg(*a)),
        InstKind::ICmp { pred, ty, lhs, rhs } => {
            ops::icmp(*pred, types.get(*ty), &arg(*lhs), &arg(*rhs))
        }
        InstKind::FCmp { pred, ty, lhs, rhs } => {
            ops::fcmp(*pred, types.get(*ty), &arg(*lhs), &arg(*rhs))
        }
        InstKind::Cast {
            op,
            flags,
            from,
            arg: a,
            to,
        } => ops::cast(*op, *flags, types.get(*from), types.get(*to), &arg(*a)),
        InstKind::Select {
            cond,
            if_true,
            if_false,
            ..
        } => ops::select(&arg(*cond), &arg(*if_true), &arg(*if_false)),
        InstKind::Freeze { ty, arg: a } => ops::freeze(types.get(*ty), &arg(*a)),
        InstKind::Gep {
            inbounds,
            source_ty,
            base,
            indices,
        } => {
            let lane_idx: Vec<(Val, u32)> = indices
                .iter()
                .map(|i| {
                    let w = types.int_width(program.ty(i.value)).unwrap_or(64);
                    (arg(i.value), w)
                })
                .collect();
            let lane_idx: Vec<(&Val, u32)> = lane_idx.iter().map(|(v, w)| (v, *w)).collect();
            gep(program, mem, *inbounds, *source_ty, &arg(*base), &lane_idx)
        }
        InstKind::ExtractElement { ty, vector, index } => {
            let n = types.vector(*ty).map_or(0, |(n, _)| n);
            ops::elems::extract_element(n, &arg(*vector), &arg(*index))
        }
        InstKind::InsertElement {
            ty,
            vector,
            elem,
            index,
        } => {
            let n = types.vector(*ty).map_or(0, |(n, _)| n);
            ops::elems::insert_element(n, &arg(*vector), &arg(*elem), &arg(*index))
        }
        InstKind::ShuffleVector { ty, lhs, rhs, mask } => {
            let n = types.vector(*ty).map_or(0, |(n, _)| n);
            ops::elems::shuffle(n, &arg(*lhs), &arg(*rhs), mask)
        }
        InstKind::ExtractValue { ty, agg, indices } => {
            ops::elems::extract_value(types, *ty, &arg(*agg), indices)
        }
        InstKind::InsertValue {
            ty,
            agg,
            elem,
            indices,
        } => ops::elems::insert_value(types, *ty, &arg(*agg), &arg(*elem), indices),
        other => {
            return Err(Stuck::new(
                Rule::WInstLlvm,
                format!("{} is not a lane-wise instruction", other.opcode()),
            )
            .into());
        }
    })
}

/// One lane of the element-wise instructions on vectors (`bop`, `fneg`, `icmp`,
/// `fcmp`, casts, `select`, `freeze` of type `<N x T>`): the scalar operation of
/// [`crate::ops`] on each element ([`ops::elems`]); `None` if `kind` is not one of
/// them on vectors. A `bitcast` involving a vector reinterprets the bits.
fn vector_lane(
    program: &Program<'_>,
    kind: &InstKind,
    arg: &dyn Fn(Value) -> Val,
) -> Option<Result<Val, ops::LaneUb>> {
    use ops::elems::{map1, map2};
    let types = program.types();
    let ok = |v: Val| Some(Ok(v));
    match kind {
        InstKind::Binary {
            op,
            flags,
            ty,
            lhs,
            rhs,
        } => {
            let (n, e) = types.vector(*ty)?;
            let e = types.get(e);
            Some(map2(n, &arg(*lhs), &arg(*rhs), |x, y| {
                ops::binary(*op, *flags, e, x, y)
            }))
        }
        InstKind::FNeg { ty, arg: a } => {
            let (n, e) = types.vector(*ty)?;
            ok(map1(n, &arg(*a), |x| ops::fneg(types.get(e), x)))
        }
        InstKind::ICmp { pred, ty, lhs, rhs } => {
            let (n, e) = types.vector(*ty)?;
            let e = types.get(e);
            Some(map2(n, &arg(*lhs), &arg(*rhs), |x, y| {
                Ok(ops::icmp(*pred, e, x, y))
            }))
        }
        InstKind::FCmp { pred, ty, lhs, rhs } => {
            let (n, e) = types.vector(*ty)?;
            let e = types.get(e);
            Some(map2(n, &arg(*lhs), &arg(*rhs), |x, y| {
                Ok(ops::fcmp(*pred, e, x, y))
            }))
        }
        InstKind::Cast {
            op,
            flags,
            from,
            arg: a,
            to,
        } => {
            if types.vector(*from).is_none() && types.vector(*to).is_none() {
                return None;
            }
            if *op == crate::ir::CastOp::Bitcast {
                return ok(ops::elems::bitcast_vector(types, *from, *to, &arg(*a)));
            }
            let (n, e_from) = types.vector(*from)?;
            let (_, e_to) = types.vector(*to)?;
            let (f, t) = (types.get(e_from), types.get(e_to));
            ok(map1(n, &arg(*a), |x| ops::cast(*op, *flags, f, t, x)))
        }
        InstKind::Select {
            ty,
            cond,
            if_true,
            if_false,
        } => {
            let (n, _) = types.vector(*ty)?;
            let cond_ty = program.ty(*cond);
            // One i1 condition picks a whole vector: the scalar rule (`None`).
            types.vector(cond_ty)?;
            ok(ops::elems::select_elems(
                n,
                &arg(*cond),
                &arg(*if_true),
                &arg(*if_false),
            ))
        }
        InstKind::Freeze { ty, arg: a } => {
            let (n, e) = types
                .vector(*ty)
                .map(|(n, e)| (Some(n), e))
                .unwrap_or((None, *ty));
            match n {
                Some(n) => ok(map1(n, &arg(*a), |x| ops::freeze(types.get(e), x))),
                // Aggregates freeze element by element too.
                None if types.is_aggregate(*ty) => ok(freeze_value(types, *ty, &arg(*a))),
                None => None,
            }
        }
        _ => None,
    }
}

/// `freeze` of an aggregate: every ⊤ element (at any depth) becomes its zero.
fn freeze_value(types: &crate::types::TypeTable, ty: crate::types::Ty, v: &Val) -> Val {
    if !types.is_aggregate(ty) && types.vector(ty).is_none() {
        return ops::freeze(types.get(ty), v);
    }
    let n = types.element_count(ty) as usize;
    let items = crate::value::elements(v, n).unwrap_or_else(|| vec![Val::Undef; n]);
    Val::Agg(
        items
            .iter()
            .enumerate()
            .map(|(k, item)| match types.element_at(ty, k as u64) {
                Some(e) => freeze_value(types, e, item),
                None => Val::Undef,
            })
            .collect(),
    )
}

/// `elemptr` / `getelementptr` for one lane (§4.9.1: "addressing elements of a memory
/// object using elemptr yields pointers to element objects of the base pointer").
///
/// The offset is `Σ index × stride` in wrapping 64-bit arithmetic, indices
/// sign-extended (LLVM). With `inbounds`, a result outside `[0, size]` of the base
/// object, or a signed overflow, is poison (⊤), as LLVM defines it.
pub fn gep(
    program: &Program<'_>,
    mem: &Memory,
    inbounds: bool,
    source_ty: crate::types::Ty,
    base: &Val,
    indices: &[(&Val, u32)],
) -> Val {
    let types = program.types();
    let Val::Ptr(ptr) = base else {
        return Val::Undef;
    };
    let Some(terms) = ops::constant::gep_terms(types, source_ty, indices) else {
        return Val::Undef;
    };
    let offset: i128 = terms.iter().sum();
    if inbounds {
        let start = ptr.offset as i64 as i128;
        let end = start + offset;
        if end < i64::MIN as i128 || end > i64::MAX as i128 {
            return Val::Undef;
        }
        if let Some(o) = ptr.object {
            let size = mem.object(o).map_or(0, |obj| i128::from(obj.size()));
            if end < 0 || end > size {
                return Val::Undef;
            }
        }
    }
    Val::Ptr(Pointer {
        object: ptr.object,
        offset: ptr.offset.wrapping_add(offset as u64),
    })
}
