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

use crate::column::{BitColumn, ColumnMut};
use crate::ir::{Block, Inst, InstKind, Value};
use crate::memory::Memory;
use crate::memory::{self, MemError};
use crate::ops;
use crate::rules::env::eval;
use crate::rules::exec::{upd_env_w, w_inst_llvm_w};
use crate::rules::{
    Applied, Env, Exec, Interp, Program, Rule, Scratch, Site, StepError, Stuck, Ub,
};
use crate::theta::{self, Builtin};
use crate::types::TypeData;
use crate::value::{Pointer, Val};
use std::borrow::Cow;

/// What one command did, for traces: the variable it assigned and its new column.
pub type Written = Option<(Value, Vec<Val>)>;

/// The buffers a command's result res^W is computed in: [`Val`]s, or unboxed
/// lanes when a kernel for bit columns computed it (`in_bits` says which; only
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
    fn take(scratch: &mut Scratch, width: usize) -> CmdOut {
        CmdOut {
            vals: scratch.take_vals(width),
            bits: scratch.take_bits(width),
            in_bits: false,
        }
    }

    /// Hands the buffers back to the machine's scratch.
    fn give_back(self, scratch: &mut Scratch) {
        scratch.give_back_vals(self.vals);
        scratch.give_back_bits(self.bits);
    }

    /// res^W, for [UPD-ENV].
    #[allow(
        rustdoc::broken_intra_doc_links,
        reason = "a rule citation, not a link"
    )]
    fn result(&mut self) -> ColumnMut<'_> {
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
    /// Whether the rules run lane by lane or through their kernels.
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
    let mut offset: i128 = 0;
    let mut current = source_ty;
    for (k, &(index, index_width)) in indices.iter().enumerate() {
        let Some(i) = signed_index(index, index_width) else {
            return Val::Undef;
        };
        if k == 0 {
            offset += i * types.size_of(current) as i128;
            continue;
        }
        match types.get(current).clone() {
            TypeData::Array(_, elem) => {
                offset += i * types.size_of(elem) as i128;
                current = elem;
            }
            TypeData::Struct { fields, .. } => {
                let (offsets, _) = types.struct_layout(current);
                let Some(&off) = usize::try_from(i).ok().and_then(|f| offsets.get(f)) else {
                    return Val::Undef;
                };
                offset += off as i128;
                current = fields[i as usize];
            }
            _ => return Val::Undef,
        }
    }
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

/// A gep index of an `iN` type as a signed number: LLVM sign-extends (or truncates)
/// indices to the 64-bit index width of the data layout. `None` for ⊤.
fn signed_index(v: &Val, width: u32) -> Option<i128> {
    let raw = v.as_biguint()?;
    let low = raw.iter_u64_digits().next().unwrap_or(0);
    let n = width.min(64);
    let shifted = if n == 0 {
        0
    } else {
        (low << (64 - n)) as i64 >> (64 - n)
    };
    Some(i128::from(shifted))
}

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
