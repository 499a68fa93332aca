//! Executing one scheduled block: [BLS-W-STEP] (thesis §4.7), the control update
//! `advancepc` ([PC-ACTIVE], [PC-ND-BRANCH], [PC-PASSIVE], [PC-TERM], [PC-WSTEP],
//! Fig. 4.4) and the schedule transition [LSS-W-STEP] (Fig. 4.3).

use crate::ir::{Block, Value};
use crate::rules::cmd::compute_cmds;
use crate::rules::ctx::{CmdCtx, check_defined, ub};
use crate::rules::error::{Site, StepError, Stuck};
use crate::rules::exec::Exec;
use crate::rules::hooks::{eval_phi_w, eval_term_w};
use crate::rules::masks::{amask, cmask_w_into, pmask};
use crate::rules::program::Program;
use crate::rules::rule::{Applied, Rule, RuleSet};
use crate::rules::state::{Env, Interp, Next, Scratch, State, StepBuffers, Succ};
use crate::value::Val;

/// What one scheduled block did: the masks before it ran, the successor index of
/// every lane, (when asked for) every assignment it made, in order, and the rules
/// it applied.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockStep {
    /// ℓ_sc.
    pub scheduled: Block,
    /// cmsk^W (Def. 6).
    pub cmask: Vec<bool>,
    /// pmsk^W (Def. 7), `None` where the predicate is ⊤.
    pub pmask: Vec<Option<bool>>,
    /// amsk^W (Def. 8), as the terminator saw it.
    pub active: Vec<bool>,
    /// i^W.
    pub succ: Vec<Succ>,
    /// The phis' and commands' assignments (variable, new column), if recorded.
    pub written: Option<Vec<(Value, Vec<Val>)>>,
    /// The rules the step applied, as the dispatchers recorded them: those of
    /// [`bls_w_step`], and with [`lss_w_step`] also [PC-WSTEP], the advancepc rule
    /// of each lane and [LSS-W-STEP].
    pub rules: RuleSet,
}

/// [BLS-W-STEP] `ℓ_sc ⊢ (𝕄, Δ^W, ℓ_in^W, ℓ_next^W) →_𝓘 𝕄' Δ'^W i^W` (§4.7).
///
/// Premises, in order: the block is in the program; Δ_pre^W is the parallel copy of
/// its phis by `evalphi` under cmsk^W; amsk^W = cmsk^W ∧ eval^W Δ_pre^W val_msk;
/// `computecmd` runs the commands under amsk^W; i^W = evalterm^W amsk^W Δ'^W tmn.
/// The state's 𝕄 and Δ^W are updated in place; ℓ_in^W and ℓ_next^W are left to
/// [`lss_w_step`].
///
/// Reading of the predicate premise: Def. 11.1 allows a block's predicate to be
/// defined by one of the block's own commands as long as every command before it
/// is total. Evaluated literally on Δ_pre^W, such a predicate would read the value
/// of the block's *previous* execution (or ⊤ on the first). pllvm evaluates such a
/// predicate right after its defining command has run; the commands before it are
/// total (Def. 11.1), so they do not observe amsk^W (pllvm gives them an empty
/// activation, which only an unverified program could notice). For every predicate
/// defined outside the block (or by one of its phis) the rule applies as printed.
///
/// A lane whose control mask is set but whose predicate is ⊤ has no defined
/// activation: that is undefined behaviour, reported under this rule.
///
/// `exec` chooses how evalphi, evalterm^W and the commands are executed (the
/// rules lane by lane, or their fast forms: [`crate::rules::hooks`]); `scratch` is
/// the stepping machine's reusable buffers, not part of σ.
pub fn bls_w_step(
    program: &Program<'_>,
    interp: Interp,
    exec: Exec,
    scheduled: Block,
    state: &mut State,
    scratch: &mut Scratch,
    record: bool,
) -> Result<BlockStep, StepError> {
    // Premise: ℓ_sc val_msk φ̄ c̄ tmn ∈ prg.
    let block = program
        .body
        .blocks
        .get(scheduled)
        // Laid out (Def. 1): a lookup, not a scan of the layout, so a step costs
        // the same whatever the number of blocks.
        .filter(|_| program.layout_pos[scheduled].is_some())
        .ok_or_else(|| Stuck::new(Rule::BlsWStep, "scheduled block is not in the program"))?;
    let applied = Applied::default();
    let ctx = CmdCtx {
        program,
        interp,
        exec,
        block: scheduled,
        record,
        applied: &applied,
    };
    let mut written = record.then(Vec::new);
    let StepBuffers {
        mut cmask,
        pmask: mut pm,
        mut active,
        mut succ,
    } = scratch.take_step_buffers();
    cmask_w_into(program, &state.incoming, &state.next, scheduled, &mut cmask);
    applied.record(Rule::Cmask);

    // Premise: Δ_pre^W = parallel copy of φ̄ using evalphi_𝓘^W cmsk^W ℓ_in^W Δ^W.
    let mut resolved = scratch.take_phi_buffer();
    for &phi in &block.phis {
        let Some(id) = program.body.insts[phi].result else {
            return Err(Stuck::new(Rule::BlsWStep, "phi without a result").into());
        };
        let (column, defined) = eval_phi_w(
            exec,
            program,
            interp,
            &state.env,
            phi,
            &cmask,
            &state.incoming,
            scratch,
            &applied,
        )?;
        resolved.push((id, column, defined));
    }
    for (id, column, defined) in resolved.drain(..) {
        if let Some(log) = written.as_mut() {
            log.push((id, column.vals().into_owned()));
        }
        let old = state.env.set_column(id, column);
        scratch.give_back(old);
        if let Some(defined) = defined {
            state.env.set_defined(id, defined);
        }
    }
    scratch.give_phi_buffer(resolved);

    // Premise: amsk^W = cmsk^W ℓ_in^W ℓ_next^W ℓ_sc ∧ eval^W Δ_pre^W val_msk.
    // A predicate defined by a command of this block is not yet defined here: the
    // commands before its definition are total (Def. 11.1) and see no activation,
    // so until it is defined the activation is empty (see the doc comment).
    let predicate_pos = program.predicate_def_pos[scheduled];
    match predicate_pos {
        None => predicate_mask(ctx, &state.env, &cmask, &mut pm)?,
        Some(_) => {
            pm.clear();
            pm.resize(cmask.len(), Some(false));
        }
    }
    amask(&cmask, &pm, &mut active);
    // pmsk^W is eval^W of val_msk (an absent predicate is the constant true, §4.1).
    applied.record(Rule::Eval);
    applied.record(Rule::Pmask);
    applied.record(Rule::Amask);

    // Premise: computecmd_𝓘^W amsk^W Δ_pre^W 𝕄 c̄ →* Δ'^W 𝕄'.
    let mut refresh = |pos: usize, env: &Env, active: &mut Vec<bool>| {
        if predicate_pos == Some(pos) {
            predicate_mask(ctx, env, &cmask, &mut pm)?;
            amask(&cmask, &pm, active);
        }
        Ok(())
    };
    compute_cmds(
        ctx,
        &mut active,
        &mut state.env,
        &mut state.mem,
        &block.body,
        &mut written,
        &mut refresh,
        scratch,
    )?;
    let mut pmask = pm;
    if predicate_pos.is_some() {
        predicate_mask(ctx, &state.env, &cmask, &mut pmask)?;
    }

    // Premise: i^W = evalterm^W amsk^W Δ'^W tmn.
    applied.record(Rule::EvalTerm);
    // Every slot is written below (evalterm of every lane), so the old slots of
    // the reused vector are only resized, not cleared first.
    succ.resize(active.len(), Succ::Any);
    eval_term_w(ctx, &state.env, &block.term, &active, &mut succ)?;
    applied.record(Rule::BlsWStep);
    Ok(BlockStep {
        scheduled,
        cmask,
        pmask,
        active,
        succ,
        written,
        rules: applied.rules(),
    })
}

/// pmsk^W of the scheduled block on `env`, refusing an undefined predicate (⊤, or
/// in strict mode an undefined definition mask) in a lane whose control mask is set.
fn predicate_mask(
    ctx: CmdCtx<'_, '_>,
    env: &Env,
    cmask: &[bool],
    pm: &mut Vec<Option<bool>>,
) -> Result<(), StepError> {
    pmask(ctx.program, env, ctx.block, pm);
    if let Some(p) = ctx.program.body.blocks[ctx.block].predicate {
        for (lane, (&c, bit)) in cmask.iter().zip(pm.iter()).enumerate() {
            if c {
                check_defined(ctx, Rule::BlsWStep, env, p, lane, Site::Predicate)?;
                if bit.is_none() {
                    return Err(ub(
                        ctx,
                        Rule::BlsWStep,
                        Some(lane),
                        Site::Predicate,
                        "the block predicate is ⊤ in a lane whose control mask is set (Def. 7-8)",
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `advancepc i ℓ_in ℓ_next ℓ_sc → ℓ_in' ℓ_next'` (Fig. 4.4) for one lane: the
/// dispatcher. Exactly one rule applies: [PC-PASSIVE] without control mask,
/// otherwise by the shape of `i`; it is recorded in `applied`. `incoming` and
/// `next` are updated in place.
///
/// `cmask` is the lane's `cmask ℓ_in ℓ_next ℓ_sc` (Def. 6), the premise that
/// separates [PC-PASSIVE] from the other rules. [BLS-W-STEP] computed it on the
/// same ℓ_in and ℓ_next (it does not change them), so [`pc_wstep`] passes that
/// bit instead of computing it again.
#[inline]
pub fn advance_pc(
    program: &Program<'_>,
    i: &Succ,
    cmask: bool,
    incoming: &mut Option<Block>,
    next: &mut Next,
    scheduled: Block,
    applied: &Applied,
) -> Result<(), Stuck> {
    if !cmask {
        applied.record(Rule::PcPassive);
        pc_passive(incoming, next);
        return Ok(());
    }
    let (new_incoming, new_next) = match i {
        Succ::Index(n) => {
            applied.record(Rule::PcActive);
            pc_active(program, *n, scheduled)?
        }
        Succ::Any => {
            applied.record(Rule::PcNdBranch);
            pc_nd_branch(scheduled)
        }
        Succ::Ret(r) => {
            applied.record(Rule::PcTerm);
            pc_term(scheduled, r)
        }
    };
    *incoming = new_incoming;
    *next = new_next;
    Ok(())
}

/// [PC-ACTIVE] An active lane moves along CFG edge `i` out of the scheduled block:
/// ℓ_in' = ℓ_sc and ℓ_next' with `(ℓ_sc, i, ℓ_next') ∈ E`.
#[inline]
pub fn pc_active(
    program: &Program<'_>,
    i: u32,
    scheduled: Block,
) -> Result<(Option<Block>, Next), Stuck> {
    // Premise: (ℓ_sc, i, ℓ'_next) ∈ E.
    let next = program
        .successor(scheduled, i)
        .ok_or_else(|| Stuck::new(Rule::PcActive, format!("block has no successor {i}")))?;
    Ok((Some(scheduled), Next::Block(next)))
}

/// [PC-ND-BRANCH] A lane with control mask whose successor index is ⊤ (it executed
/// the block with a false predicate) accepts any successor of ℓ_sc: ℓ_next' = ⊤.
pub fn pc_nd_branch(scheduled: Block) -> (Option<Block>, Next) {
    (Some(scheduled), Next::Any)
}

/// [PC-PASSIVE] A lane without control mask keeps its control state: ℓ_in' = ℓ_in
/// and ℓ_next' = ℓ_next, so there is nothing to write. This is also how a
/// terminated lane (ℓ_next = □) stays terminated.
pub fn pc_passive(incoming: &mut Option<Block>, next: &mut Next) {
    let _unchanged = (incoming, next);
}

/// [PC-TERM] A lane that returned `r` terminates: ℓ_next' = □(r).
pub fn pc_term(scheduled: Block, r: &Val) -> (Option<Block>, Next) {
    (Some(scheduled), Next::Done(r.clone()))
}

/// [PC-WSTEP] `advancepc^W`: [`advance_pc`] for every lane τ, updating ℓ_in^W and
/// ℓ_next^W in place. `cmask` is cmsk^W of the scheduled block on ℓ_in^W and
/// ℓ_next^W as they are on entry (what [BLS-W-STEP] computed). On a stuck lane the
/// arrays are left partly updated (a stuck step has no successor state). The
/// rules applied are recorded in `applied`.
pub fn pc_wstep(
    program: &Program<'_>,
    succ: &[Succ],
    cmask: &[bool],
    incoming: &mut [Option<Block>],
    next: &mut [Next],
    scheduled: Block,
    applied: &Applied,
) -> Result<(), Stuck> {
    if cmask.len() != next.len() {
        return Err(Stuck::new(
            Rule::PcWStep,
            "cmsk^W does not have one bit per lane",
        ));
    }
    // Premise: ∀τ ∈ 𝒯. advancepc i^W(τ) ℓ_in^W(τ) ℓ_next^W(τ) ℓ_sc → ℓ_in'^W(τ) ℓ_next'^W(τ).
    let lanes = succ
        .iter()
        .zip(cmask)
        .zip(incoming.iter_mut())
        .zip(next.iter_mut());
    for (((i, &c), inc), nxt) in lanes {
        advance_pc(program, i, c, inc, nxt, scheduled, applied)?;
    }
    applied.record(Rule::PcWStep);
    Ok(())
}

/// [LSS-W-STEP] `ℓ_sc ℓ̄_sc σ →_𝓘 ℓ̄_sc σ'` (Fig. 4.3): consume the head of the runtime
/// schedule: execute the block ([BLS-W-STEP]), then update the control state
/// ([PC-WSTEP]). Returns what the block did and every rule applied; `state`
/// becomes σ'. A stuck step names the scheduled block ([`Stuck::block`]).
/// `exec` and `scratch` are passed on to [`bls_w_step`].
pub fn lss_w_step(
    program: &Program<'_>,
    interp: Interp,
    exec: Exec,
    scheduled: Block,
    state: &mut State,
    scratch: &mut Scratch,
    record: bool,
) -> Result<BlockStep, StepError> {
    // Premise: ℓ_sc ⊢ (𝕄, Δ^W, ℓ_in^W, ℓ_next^W) →_𝓘 𝕄' Δ'^W i^W.
    let mut step = bls_w_step(program, interp, exec, scheduled, state, scratch, record)
        .map_err(|e| e.in_block(scheduled))?;
    // Premise: advancepc^W i^W ℓ_in^W ℓ_next^W ℓ_sc → ℓ_in'^W ℓ_next'^W.
    let applied = Applied::default();
    pc_wstep(
        program,
        &step.succ,
        &step.cmask,
        &mut state.incoming,
        &mut state.next,
        scheduled,
        &applied,
    )
    .map_err(|e| e.in_block(scheduled))?;
    applied.record(Rule::LssWStep);
    step.rules.extend(applied.rules());
    Ok(step)
}
