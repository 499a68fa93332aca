//! Commands: `computecmd` (thesis §4.9, Fig. 4.12) and `evalcmd` for memory
//! (§4.9.1), calls (§4.9.2, Fig. 4.14) and every other instruction.
//!
//! `computecmd_𝓘^W amsk^W Δ^W 𝕄 c̄` consumes the command list one command at a time:
//! [W-CMD-INST] for `id = inst`, [W-CMD-TOTAL] for `id = inst total`, [W-CMD-MASK]
//! for `id = mask()`, and [W-CMD-EMPTY] when the list is exhausted. Each of the first
//! two evaluates the instruction with `evalcmd` and assigns its result with
//! [UPD-ENV]. `evalcmd` has one rule per memory instruction, one for calls, and for
//! every other instruction the thesis says "each thread executes it independently
//! according to regular LLVM semantics" (§4.9); pllvm names that rule
//! [W-INST-LLVM] and implements the per-lane semantics in [`crate::ops`].
//!
//! Strict mode (definition masks, Def. 10-11) adds one premise to [W-CMD-INST] and
//! [W-CMD-TOTAL]: every operand the instruction depends on must be defined in every
//! lane where the instruction's own definition mask is set (Def. 11.3).

use crate::column::ColumnMut;
use crate::ir::{Inst, InstKind, Value};
use crate::memory::Memory;
use crate::memory::{self, MemError};
use crate::ops;
use crate::rules::ctx::{CmdCtx, CmdOut, Refresh, Written, strict_uses, ub};
use crate::rules::env::eval;
use crate::rules::error::{Site, StepError, Stuck};
use crate::rules::hooks::{upd_env_w, w_inst_llvm_w};
use crate::rules::rule::Rule;
use crate::rules::state::{Env, Interp, Scratch};
use crate::theta::{self, Builtin};
use crate::types::TypeData;
use crate::value::{Pointer, Val};
use std::borrow::Cow;

/// `computecmd_𝓘^W amsk^W Δ^W 𝕄 c̄ →* Δ'^W 𝕄'`: runs the whole command list.
/// `refresh` is called after each command with its position, so that
/// [`crate::rules::step::bls_w_step`] can evaluate a predicate defined inside the
/// block once its definition has run.
#[allow(
    clippy::too_many_arguments,
    reason = "the premises of computecmd and the scratch"
)]
pub fn compute_cmds(
    ctx: CmdCtx<'_, '_>,
    active: &mut Vec<bool>,
    env: &mut Env,
    mem: &mut Memory,
    cmds: &[Inst],
    written: &mut Option<Vec<(Value, Vec<Val>)>>,
    refresh: &mut Refresh<'_>,
    scratch: &mut Scratch,
) -> Result<(), StepError> {
    // One result buffer for the whole list: [UPD-ENV] swaps it with the assigned
    // column, so the commands of a block allocate nothing per lane.
    let mut out = CmdOut::take(scratch, env.width());
    for (pos, &c) in cmds.iter().enumerate() {
        let w = match compute_cmd(ctx, active, env, mem, c, &mut out, scratch) {
            Ok(w) => w,
            Err(e) => {
                out.give_back(scratch);
                return Err(e);
            }
        };
        if let (Some(log), Some(w)) = (written.as_mut(), w) {
            log.push(w);
        }
        refresh(pos, env, active)?;
    }
    out.give_back(scratch);
    w_cmd_empty();
    ctx.applied.record(Rule::WCmdEmpty);
    Ok(())
}

/// The `computecmd` dispatcher: picks [W-CMD-MASK], [W-CMD-TOTAL] or [W-CMD-INST]
/// by the shape of the command. `out` is a scratch buffer for the result column
/// (its contents on entry do not matter; on return it holds some column of W
/// values that the caller may reuse).
#[inline]
pub fn compute_cmd(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    env: &mut Env,
    mem: &mut Memory,
    c: Inst,
    out: &mut CmdOut,
    scratch: &mut Scratch,
) -> Result<Written, StepError> {
    let data = &ctx.program.body.insts[c];
    match (&data.kind, data.total) {
        (InstKind::Mask, _) => {
            ctx.applied.record(Rule::WCmdMask);
            Ok(w_cmd_mask(ctx, active, env, data.result, scratch))
        }
        (_, true) => {
            ctx.applied.record(Rule::WCmdTotal);
            w_cmd_total(ctx, env, mem, c, out, scratch)
        }
        (_, false) => {
            ctx.applied.record(Rule::WCmdInst);
            w_cmd_inst(ctx, active, env, mem, c, out, scratch)
        }
    }
}

/// [W-CMD-EMPTY] The empty command list leaves Δ^W and 𝕄 as they are.
pub fn w_cmd_empty() {}

/// [W-CMD-INST] `id = inst`: evaluate under amsk^W, assign with [UPD-ENV] under amsk^W.
#[inline]
pub fn w_cmd_inst(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    env: &mut Env,
    mem: &mut Memory,
    c: Inst,
    out: &mut CmdOut,
    scratch: &mut Scratch,
) -> Result<Written, StepError> {
    // Premise (strict mode, Def. 11.3): operands are defined where the command is.
    strict_uses(ctx, Rule::WCmdInst, env, c, active)?;
    // Premise: evalcmd_𝓘^W amsk^W Δ^W 𝕄 inst → res^W 𝕄'.
    eval_cmd(ctx, active, env, mem, c, out)?;
    // Premise: updenv_𝓘^W Δ^W id res^W amsk^W → Δ'^W.
    Ok(assign(ctx, env, c, out, active, scratch))
}

/// [W-CMD-TOTAL] `id = inst total`: evaluate and assign with every lane enabled (1^W),
/// like an ISPC `unmasked` block (§4.9).
pub fn w_cmd_total(
    ctx: CmdCtx<'_, '_>,
    env: &mut Env,
    mem: &mut Memory,
    c: Inst,
    out: &mut CmdOut,
    scratch: &mut Scratch,
) -> Result<Written, StepError> {
    let all = vec![true; env.width()];
    strict_uses(ctx, Rule::WCmdTotal, env, c, &all)?;
    eval_cmd(ctx, &all, env, mem, c, out)?;
    Ok(assign(ctx, env, c, out, &all, scratch))
}

/// [W-CMD-MASK] `id = mask()`: assigns the activation amsk^W to `id` in every lane,
/// passive ones included (like a total instruction, §4.9).
pub fn w_cmd_mask(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    env: &mut Env,
    id: Option<Value>,
    scratch: &mut Scratch,
) -> Written {
    let id = id?;
    let column: Vec<Val> = active.iter().map(|&a| Val::bool(a)).collect();
    let all = vec![true; active.len()];
    upd_env_w(
        ctx.exec,
        Interp::Freezing,
        env,
        id,
        ColumnMut::Vals(&mut column.clone()),
        &all,
        scratch,
    );
    record_upd_env(ctx);
    Some((id, column))
}

/// Applies [UPD-ENV] to a command's result, if it has one (`store` and void calls do not:
/// the `z = store p v` sugar of Fig. 4.13a).
#[inline]
fn assign(
    ctx: CmdCtx<'_, '_>,
    env: &mut Env,
    c: Inst,
    res: &mut CmdOut,
    active: &[bool],
    scratch: &mut Scratch,
) -> Written {
    let id = ctx.program.body.insts[c].result?;
    upd_env_w(ctx.exec, ctx.interp, env, id, res.result(), active, scratch);
    record_upd_env(ctx);
    ctx.record.then(|| (id, env.get(id).into_owned()))
}

/// Records [UPD-ENV] and the getNewValue it applies in every lane (Fig. 4.8).
#[inline]
fn record_upd_env(ctx: CmdCtx<'_, '_>) {
    ctx.applied.record(Rule::UpdEnv);
    ctx.applied.record(Rule::GetNewValue);
}

/// The `evalcmd` dispatcher: [W-INST-ALLOCA], [W-INST-LOAD], [W-INST-STORE],
/// [W-CMD-CALL], or [W-INST-LLVM] for every other instruction. The result res^W
/// is left in `out` (W lanes; what passive lanes hold there is unspecified, since
/// [UPD-ENV] never takes a passive lane's result).
#[inline]
pub fn eval_cmd(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    env: &Env,
    mem: &mut Memory,
    c: Inst,
    out: &mut CmdOut,
) -> Result<(), StepError> {
    out.in_bits = false;
    let record = |rule| ctx.applied.record(rule);
    out.vals = match &ctx.program.body.insts[c].kind {
        InstKind::Alloca { .. } => {
            record(Rule::WInstAlloca);
            w_inst_alloca(ctx, active, env, mem, c)?
        }
        InstKind::Load { .. } => {
            record(Rule::WInstLoad);
            w_inst_load(ctx, active, env, mem, c)?
        }
        InstKind::Store { .. } => {
            record(Rule::WInstStore);
            w_inst_store(ctx, active, env, mem, c)?
        }
        InstKind::Call { callee, .. } if ctx.program.module.inline_asm(*callee).is_some() => {
            record(Rule::WCmdAsm);
            w_cmd_asm(ctx, active, c)?
        }
        InstKind::Call { .. } => {
            record(Rule::WCmdCall);
            w_cmd_call(ctx, active, env, mem, c)?
        }
        InstKind::Phi { .. } | InstKind::Mask => {
            return Err(Stuck::new(Rule::WCmdInst, "a phi or mask() in the command list").into());
        }
        InstKind::AtomicRmw { .. } => {
            record(Rule::WInstAtomicRmw);
            w_inst_atomicrmw(ctx, active, env, mem, c)?
        }
        InstKind::CmpXchg { .. } => {
            record(Rule::WInstCmpXchg);
            w_inst_cmpxchg(ctx, active, env, mem, c)?
        }
        InstKind::Fence { .. } => {
            record(Rule::WInstFence);
            w_inst_fence(active)
        }
        _ => {
            record(Rule::WInstLlvm);
            return w_inst_llvm_w(ctx, active, env, mem, c, out);
        }
    };
    Ok(())
}

/// [W-INST-ALLOCA] `alloca typ`: `p^W, 𝕄' = newptr^W 𝕄 sizeof(typ) amsk^W` (§4.9.1).
/// Each active lane gets a private object; passive lanes get ⊤ and allocate nothing.
/// With an element count, the size is `sizeof(typ) × count` per lane.
pub fn w_inst_alloca(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    env: &Env,
    mem: &mut Memory,
    c: Inst,
) -> Result<Vec<Val>, StepError> {
    let InstKind::Alloca { ty, count, align } = ctx.program.body.insts[c].kind else {
        return Err(Stuck::new(Rule::WInstAlloca, "not an alloca").into());
    };
    let types = ctx.program.types();
    let elem = types.size_of(ty);
    let align = align.unwrap_or_else(|| types.align_of(ty));
    // Premise: s = sizeof(typ) (times the element count, lane by lane).
    let mut sizes: Vec<Option<u64>> = vec![Some(elem); active.len()];
    if let Some(count) = count {
        for (lane, v) in eval(env, count).iter().enumerate() {
            if !active[lane] {
                continue;
            }
            let n = v.as_u128().ok_or_else(|| {
                ub(
                    ctx,
                    Rule::WInstAlloca,
                    Some(lane),
                    Site::Inst(c),
                    "alloca with an undefined element count",
                )
            })?;
            sizes[lane] = u64::try_from(n).ok().and_then(|n| n.checked_mul(elem));
            if sizes[lane].is_none() {
                return Err(StepError::Limit(format!(
                    "alloca of {n} elements is too large"
                )));
            }
        }
    }
    // Premise: p^W, 𝕄' = newptr^W 𝕄 s amsk^W, once per distinct size. Messages
    // name the objects by this alloca and its block.
    let site = match ctx.program.body.insts[c].result {
        Some(v) => format!(
            "{} in {}",
            ctx.program.value_name(v),
            ctx.program.block_name(ctx.block)
        ),
        None => String::new(),
    };
    let mut result = vec![Val::Undef; active.len()];
    let mut distinct: Vec<u64> = sizes.iter().flatten().copied().collect();
    distinct.sort_unstable();
    distinct.dedup();
    for size in distinct {
        let lanes: Vec<bool> = active
            .iter()
            .zip(&sizes)
            .map(|(&a, s)| a && *s == Some(size))
            .collect();
        let ptrs = memory::newptr_w(mem, size, align, &lanes, &site)
            .map_err(|e| mem_error(ctx, None, c, e))?;
        for (lane, p) in ptrs.into_iter().enumerate() {
            if lanes[lane] {
                result[lane] = p;
            }
        }
    }
    Ok(result)
}

/// [W-INST-LOAD] `load typ val_ptr`: `d^W = read^W 𝕄 amsk^W (eval^W Δ^W val_ptr)`, a
/// gather over the active lanes (§4.9.1). Uninitialized bytes read as ⊤.
pub fn w_inst_load(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    env: &Env,
    mem: &Memory,
    c: Inst,
) -> Result<Vec<Val>, StepError> {
    let InstKind::Load { ty, ptr, .. } = ctx.program.body.insts[c].kind else {
        return Err(Stuck::new(Rule::WInstLoad, "not a load").into());
    };
    // Premise: p^W = eval^W Δ^W val_ptr.
    let p = eval(env, ptr);
    // Premise: d^W = read^W 𝕄 amsk^W p^W.
    memory::read_w(mem, ctx.program.types(), ty, active, &p)
        .map_err(|e| mem_error(ctx, Some(e.lane), c, e.error))
}

/// [W-INST-STORE] `store val_ptr val_data`: `𝕄' = write^W 𝕄 amsk^W p^W d^W`, a scatter
/// over the active lanes (§4.9.1); the result is ⊤^W. Different values scattered to
/// overlapping bytes are reported (the thesis leaves that "not further specified").
pub fn w_inst_store(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    env: &Env,
    mem: &mut Memory,
    c: Inst,
) -> Result<Vec<Val>, StepError> {
    let InstKind::Store { ty, value, ptr, .. } = ctx.program.body.insts[c].kind else {
        return Err(Stuck::new(Rule::WInstStore, "not a store").into());
    };
    // Premise: d^W = eval^W Δ^W val_data.
    let d = eval(env, value);
    // Premise: p^W = eval^W Δ^W val_ptr.
    let p = eval(env, ptr);
    // Premise: 𝕄' = write^W 𝕄 amsk^W p^W d^W.
    memory::write_w(mem, ctx.program.types(), ty, active, &p, &d)
        .map_err(|e| mem_error(ctx, Some(e.lane), c, e.error))?;
    Ok(vec![Val::Undef; active.len()])
}

/// [W-INST-ATOMICRMW] `atomicrmw op ptr val_ptr, T val` (LangRef "atomicrmw"; its
/// P-LLVM reading is pllvm's, after [W-INST-STORE] of §4.9.1): the active lanes
/// perform the read-modify-write one after another in lane order (lane 0 first),
/// each on the memory the previous one left, so lanes that update one address all
/// take effect (a histogram's increments add up; no conflicting-scatter error).
/// Lane τ's result is the value it read, 𝕄' the memory after the last active lane.
/// ⊤ in the old value or the operand stores ⊤. The ordering and scope are
/// irrelevant: one W-wide machine has one memory and does one step at a time.
pub fn w_inst_atomicrmw(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    env: &Env,
    mem: &mut Memory,
    c: Inst,
) -> Result<Vec<Val>, StepError> {
    let InstKind::AtomicRmw {
        op, ty, ptr, value, ..
    } = ctx.program.body.insts[c].kind
    else {
        return Err(Stuck::new(Rule::WInstAtomicRmw, "not an atomicrmw").into());
    };
    let types = ctx.program.types();
    // Premise: p^W = eval^W Δ^W val_ptr, v^W = eval^W Δ^W val.
    let p = eval(env, ptr);
    let v = eval(env, value);
    let mut result = vec![Val::Undef; active.len()];
    // Premise: for τ = 0, 1, … with amsk^W(τ): old(τ) = read 𝕄_τ p(τ),
    // 𝕄_{τ+1} = write 𝕄_τ p(τ) (op old(τ) v(τ)).
    for lane in (0..active.len()).filter(|&l| active[l]) {
        let old = mem
            .load(types, ty, &p[lane])
            .map_err(|e| mem_error(ctx, Some(lane), c, e))?;
        let new = ops::elems::rmw(op, types.get(ty), &old, &v[lane]);
        mem.store(types, ty, &p[lane], &new)
            .map_err(|e| mem_error(ctx, Some(lane), c, e))?;
        result[lane] = old;
    }
    Ok(result)
}

/// [W-INST-CMPXCHG] `cmpxchg ptr val_ptr, T cmp, T new` (LangRef "cmpxchg"), read
/// like [W-INST-ATOMICRMW]: the active lanes act one after another in lane order.
/// Lane τ reads `old`; if `old = cmp(τ)` it writes `new(τ)`. Its result is
/// `{ old, old = cmp(τ) }`. A ⊤ `old` or `cmp` makes the comparison ⊤: the lane
/// then writes nothing and its result is `{ ⊤, ⊤ }`. `weak` never fails
/// spuriously here (LangRef allows but does not require it).
pub fn w_inst_cmpxchg(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    env: &Env,
    mem: &mut Memory,
    c: Inst,
) -> Result<Vec<Val>, StepError> {
    let InstKind::CmpXchg {
        ty, ptr, cmp, new, ..
    } = ctx.program.body.insts[c].kind
    else {
        return Err(Stuck::new(Rule::WInstCmpXchg, "not a cmpxchg").into());
    };
    let types = ctx.program.types();
    // Premise: p^W, cmp^W, new^W = eval^W Δ^W of the operands.
    let p = eval(env, ptr);
    let expected = eval(env, cmp);
    let replacement = eval(env, new);
    let mut result = vec![Val::Undef; active.len()];
    // Premise: for τ = 0, 1, … with amsk^W(τ), on the memory lane τ-1 left.
    for lane in (0..active.len()).filter(|&l| active[l]) {
        let old = mem
            .load(types, ty, &p[lane])
            .map_err(|e| mem_error(ctx, Some(lane), c, e))?;
        let same = match types.get(ty) {
            TypeData::Ptr(_) => match (&old, &expected[lane]) {
                (Val::Ptr(a), Val::Ptr(b)) => Some(a.address() == b.address()),
                _ => None,
            },
            t => ops::icmp(crate::ir::ICmpPred::Eq, t, &old, &expected[lane]).as_bool(),
        };
        if same == Some(true) {
            mem.store(types, ty, &p[lane], &replacement[lane])
                .map_err(|e| mem_error(ctx, Some(lane), c, e))?;
        }
        result[lane] = match same {
            Some(s) => Val::Agg(vec![old, Val::bool(s)].into()),
            None => Val::Agg(vec![Val::Undef, Val::Undef].into()),
        };
    }
    Ok(result)
}

/// [W-INST-FENCE] `fence ordering` (LangRef "fence"): no effect on Δ^W or 𝕄. A
/// lock-step machine executes one step at a time on one memory, so every memory
/// operation of an earlier step is visible to every later one whatever the
/// ordering; the fence adds no constraint. The result is ⊤^W (no value).
pub fn w_inst_fence(active: &[bool]) -> Vec<Val> {
    vec![Val::Undef; active.len()]
}

/// [W-CMD-CALL] `fnc(val_0, …, val_{n-1})` (Fig. 4.14): evaluate the arguments as
/// vectors, look up `f = θ(fnc)`, and apply it to the argument vectors, the activation
/// and the memory: `ret^W, 𝕄' = f(p_0^W, …, amsk^W, 𝕄)`.
///
/// θ's functions see whole vectors, which is what makes horizontal builtins
/// (Fig. 4.15) ordinary calls. Lane-wise math functions are applied to active lanes
/// only; memory intrinsics (`memset`, `memcpy`, `lifetime.*`) act for active lanes.
pub fn w_cmd_call(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    env: &Env,
    mem: &mut Memory,
    c: Inst,
) -> Result<Vec<Val>, StepError> {
    let InstKind::Call { args, ret_ty, .. } = &ctx.program.body.insts[c].kind else {
        return Err(Stuck::new(Rule::WCmdCall, "not a call").into());
    };
    // Premise: p_i^W = eval^W Δ^W val_i.
    let p: Vec<Cow<'_, [Val]>> = args.iter().map(|&a| eval(env, a)).collect();
    // Premise: f = θ(fnc). A declared function θ does not define has no
    // mathematical function behind it: executing it is an outcome, not an error
    // of the program's form (docs/language.md, "Calls and declarations").
    let Some(f) = ctx.program.callees[c] else {
        return call_external(ctx, active, c);
    };
    // Premise: ret^W, 𝕄' = f(p_0^W, …, p_{n-1}^W, amsk^W, 𝕄).
    let types = ctx.program.types();
    let ret = types.get(*ret_ty);
    let width = active.len();
    // `thread_id` (lane τ's id: τ, or in a launch its id within its work-group)
    // and the work-group's id and size read the array's place in a launch.
    if theta::is_launch_id(f) {
        return theta::apply_launch(f, ret, width, &ctx.program.launch)
            .map_err(|e| ub(ctx, Rule::WCmdCall, None, Site::Inst(c), &e.to_string()));
    }
    // OpenCL's work-item functions: per lane, from the array's place in a launch.
    // The targets' id registers of a fixed dimension are the same functions.
    let work_item = match f {
        Builtin::WorkItem(w) => Some((w, None)),
        Builtin::GridDim(w, d) => Some((w, Some(Val::Int(u128::from(d))))),
        _ => None,
    };
    if let Some((w, fixed)) = work_item {
        let bits = types.int_width(*ret_ty).unwrap_or(64);
        return Ok((0..width)
            .map(
                |lane| match fixed.as_ref().or(p.first().map(|d| &d[lane])) {
                    Some(d) if active[lane] => {
                        theta::theta_work_item(w, d, lane, width, bits, &ctx.program.launch)
                    }
                    _ => Val::Undef,
                },
            )
            .collect());
    }
    // The targets' wave operations (`mbcnt`, `readfirstlane`, `readlane`, the
    // amdgcn `ballot`, `laneid`): whole vectors and the activation amsk^W.
    if theta::is_wave_op(f) {
        let owned: Vec<Vec<Val>> = p.iter().map(|col| col.to_vec()).collect();
        return theta::apply_wave(f, &owned, ret, active)
            .map_err(|e| ub(ctx, Rule::WCmdCall, None, Site::Inst(c), &e.to_string()));
    }
    // CUDA's warp primitives: whole vectors, the activation, and the member
    // mask's rule, whose breach is undefined behaviour of [W-CMD-CALL].
    if theta::is_warp_op(f) {
        let owned: Vec<Vec<Val>> = p.iter().map(|col| col.to_vec()).collect();
        return theta::apply_warp(f, &owned, active)
            .map_err(|e| ub(ctx, Rule::WCmdCall, None, Site::Inst(c), &e.to_string()));
    }
    // Whole-vector functions of Fig. 4.15: the horizontal builtins.
    if theta::is_horizontal(f) {
        let owned: Vec<Vec<Val>> = p.iter().map(|col| col.to_vec()).collect();
        return theta::apply_horizontal(f, &owned, ret, width)
            .map_err(|e| ub(ctx, Rule::WCmdCall, None, Site::Inst(c), &e.to_string()));
    }
    match f {
        Builtin::Math(m) => {
            let arg_tys: Vec<&TypeData> = args.iter().map(|&a| ctx.program.type_of(a)).collect();
            Ok((0..width)
                .map(|lane| {
                    if active[lane] {
                        let lane_args: Vec<Val> = p.iter().map(|col| col[lane].clone()).collect();
                        theta::apply_math(m, &lane_args, &arg_tys, ret)
                    } else {
                        Val::Undef
                    }
                })
                .collect())
        }
        other => memory_intrinsic(ctx, active, mem, c, other, &p),
    }
}

/// [W-CMD-ASM] A call of inline assembly (LangRef, "Inline Assembler
/// Expressions"; the name is pllvm's): the thesis's θ (§4.9.2, Fig. 4.14) maps
/// functions, and an assembly string is none, so P-LLVM gives it no meaning. A
/// call that some lane executes actively is undefined behaviour, reported for
/// the first active lane with the assembly text and its constraints; with no
/// active lane nothing is executed, as for [W-CMD-CALL]: the result is ⊤^W and
/// memory is unchanged.
pub fn w_cmd_asm(ctx: CmdCtx<'_, '_>, active: &[bool], c: Inst) -> Result<Vec<Val>, StepError> {
    let InstKind::Call { callee, .. } = &ctx.program.body.insts[c].kind else {
        return Err(Stuck::new(Rule::WCmdAsm, "not a call").into());
    };
    let Some(asm) = ctx.program.module.inline_asm(*callee) else {
        return Err(Stuck::new(Rule::WCmdAsm, "not inline assembly").into());
    };
    let Some(lane) = active.iter().position(|&a| a) else {
        return Ok(vec![Val::Undef; active.len()]);
    };
    let message = format!(
        "inline assembly {:?} (constraints {:?}) has no meaning in P-LLVM: θ defines functions, not assembly",
        asm.text, asm.constraints
    );
    Err(ub(ctx, Rule::WCmdAsm, Some(lane), Site::Inst(c), &message))
}

/// [W-CMD-CALL] for a callee θ does not define (a `declare`d external function,
/// or an intrinsic θ does not know): the premise `f = θ(fnc)` has no solution, so
/// a call that some lane executes actively is undefined behaviour of the rule,
/// reported for the first active lane. With no active lane nothing is executed
/// (as a passive lane of a math function computes nothing): the result is ⊤^W
/// and memory is unchanged. The verifier accepts such calls (Def. 11.2 as pllvm
/// reads it: θ is open to the functions the module declares).
fn call_external(ctx: CmdCtx<'_, '_>, active: &[bool], c: Inst) -> Result<Vec<Val>, StepError> {
    let InstKind::Call { callee, .. } = &ctx.program.body.insts[c].kind else {
        return Err(Stuck::new(Rule::WCmdCall, "not a call").into());
    };
    let Some(lane) = active.iter().position(|&a| a) else {
        return Ok(vec![Val::Undef; active.len()]);
    };
    let name = &ctx.program.module.functions[*callee].name;
    let what = if name.starts_with("llvm.") {
        "intrinsic"
    } else {
        "external function"
    };
    // A mangled OpenCL or C++ built-in (`_Z13get_work_dimv`) is defined by the
    // target's device library, which clang links when it is not told not to.
    let hint = if name.starts_with("_Z") {
        "; a built-in of the target's device library: compile without -nogpulib (amdgcn) or link the library's bitcode (-mlink-builtin-bitcode), so that the module defines it and pllvm inlines it"
    } else {
        ""
    };
    let message = format!(
        "call to {what} @{name}, which has no definition (not in the function map θ, §4.9.2){hint}"
    );
    Err(ub(ctx, Rule::WCmdCall, Some(lane), Site::Inst(c), &message))
}

/// The memory intrinsics of θ (`llvm.memset`, `llvm.memcpy`, `llvm.memmove`,
/// `llvm.lifetime.start/end`, `llvm.assume`), lane by lane over the active lanes.
fn memory_intrinsic(
    ctx: CmdCtx<'_, '_>,
    active: &[bool],
    mem: &mut Memory,
    c: Inst,
    f: Builtin,
    p: &[Cow<'_, [Val]>],
) -> Result<Vec<Val>, StepError> {
    let width = active.len();
    let arg = |k: usize, lane: usize| -> Result<&Val, StepError> {
        p.get(k)
            .map(|col| &col[lane])
            .ok_or_else(|| Stuck::new(Rule::WCmdCall, "missing intrinsic argument").into())
    };
    for lane in (0..width).filter(|&l| active[l]) {
        match f {
            Builtin::Memset => {
                let dst = pointer(ctx, c, lane, arg(0, lane)?)?;
                let byte = arg(1, lane)?.as_u128();
                let len = length(ctx, c, lane, arg(2, lane)?)?;
                let fill = match byte {
                    Some(b) => memory::Byte::Data(b as u8),
                    None => memory::Byte::Uninit,
                };
                mem.fill_bytes(dst, len, fill)
                    .map_err(|e| mem_error(ctx, Some(lane), c, e))?;
            }
            Builtin::Memcpy | Builtin::Memmove => {
                let dst = pointer(ctx, c, lane, arg(0, lane)?)?;
                let src = pointer(ctx, c, lane, arg(1, lane)?)?;
                let len = length(ctx, c, lane, arg(2, lane)?)?;
                mem.copy_bytes(dst, src, len)
                    .map_err(|e| mem_error(ctx, Some(lane), c, e))?;
            }
            Builtin::LifetimeEnd => {
                // The pointer is the last argument (LLVM 19: size, ptr; LLVM 22: ptr).
                if let Some(Val::Ptr(Pointer {
                    object: Some(o), ..
                })) = p.last().map(|col| &col[lane])
                {
                    mem.kill(*o);
                }
            }
            // A barrier changes no value or memory: its meaning is Def. 18, a
            // constraint on when its block is scheduled, which the machine checks.
            Builtin::LifetimeStart
            | Builtin::Assume
            | Builtin::NoOp
            | Builtin::Barrier
            | Builtin::ConvergenceControl => {}
            _ => {
                return Err(
                    Stuck::new(Rule::WCmdCall, format!("θ has no lane rule for {f:?}")).into(),
                );
            }
        }
    }
    Ok(vec![Val::Undef; width])
}

/// A defined pointer argument of an intrinsic.
fn pointer(ctx: CmdCtx<'_, '_>, c: Inst, lane: usize, v: &Val) -> Result<Pointer, StepError> {
    match v {
        Val::Ptr(p) => Ok(*p),
        _ => Err(ub(
            ctx,
            Rule::WCmdCall,
            Some(lane),
            Site::Inst(c),
            "memory intrinsic on an undefined pointer",
        )),
    }
}

/// A defined length argument of an intrinsic, bounded by the memory limit.
fn length(ctx: CmdCtx<'_, '_>, c: Inst, lane: usize, v: &Val) -> Result<u64, StepError> {
    let n = v.as_u128().ok_or_else(|| {
        ub(
            ctx,
            Rule::WCmdCall,
            Some(lane),
            Site::Inst(c),
            "memory intrinsic with an undefined length",
        )
    })?;
    u64::try_from(n)
        .ok()
        .filter(|&n| n <= 1 << 32)
        .ok_or_else(|| StepError::Limit(format!("memory intrinsic of {n} bytes")))
}

/// A memory error as an outcome: the limit is a resource limit, the rest is UB.
fn mem_error(ctx: CmdCtx<'_, '_>, lane: Option<usize>, c: Inst, e: MemError) -> StepError {
    let rule = match ctx.program.body.insts[c].kind {
        InstKind::Alloca { .. } => Rule::WInstAlloca,
        InstKind::Load { .. } => Rule::WInstLoad,
        InstKind::Store { .. } => Rule::WInstStore,
        InstKind::AtomicRmw { .. } => Rule::WInstAtomicRmw,
        InstKind::CmpXchg { .. } => Rule::WInstCmpXchg,
        _ => Rule::WCmdCall,
    };
    match e {
        MemError::LimitExceeded { .. } => StepError::Limit(e.to_string()),
        other => ub(ctx, rule, lane, Site::Inst(c), &other.to_string()),
    }
}
