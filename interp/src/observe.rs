//! The dynamic divergence observer: for each static instruction, whether the lanes
//! executing one dynamic instance of it ever disagreed on its value; for each
//! branch, whether the lanes it sent on ever took different successors; for each
//! block, whether it ever ran with only some lanes active; and for each stack
//! object, whether the lanes' private copies ever held different contents.
//!
//! This is what the static analyses (thesis Ch. 6-7, POPL'21, LLVM) are checked
//! against, and the only place that decides it: the machine records it as it runs,
//! the soundness checker (`crate::soundness`) reads it, and the exhaustive
//! soundness check (`proofs/tests/soundness_explore.rs`) feeds it the transitions of
//! an exploration through [`observe_step`]. A value called uniform must never be
//! seen to disagree here.
//!
//! The lanes of an instance are the lanes that assign the value actively
//! ([`executing_lanes`]): the control mask for a phi (§4.8), every lane for `total`
//! and `mask()` ([W-CMD-TOTAL], [W-CMD-MASK]), the activation for every other
//! command ([W-CMD-INST]); of those, only lanes whose definition mask (Def. 10) is
//! set count, as in the masked concretization γ' of §6.2 that the analyses' shapes
//! are stated in. Pointers into stack objects compare up to the object: the copies
//! one `alloca` made for the lanes in one step are one abstract object (Fig. 6.11),
//! so `%p = alloca` is uniform although each lane's copy has its own address.

use crate::token_classes::{TokenClass, TokenTracker};
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{Block, Body, ConstData, Inst, InstKind, Module};
use pllvm_semantics::memory::{Byte, Memory};
use pllvm_semantics::rules::Env;
use pllvm_semantics::rules::Succ;
use pllvm_semantics::rules::step::BlockStep;
use pllvm_semantics::value::{ObjectId, Pointer, Val};
use std::collections::BTreeMap;

/// Which copy group a stack object belongs to: the `alloca` that made it and the
/// step (a tag the caller chooses, one per executed block) that ran the `alloca`.
pub type CopyGroups = BTreeMap<ObjectId, (Inst, u64)>;

/// What one static instruction or branch was seen to do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Observed {
    /// Dynamic instances with at least one executing lane.
    pub instances: u64,
    /// Whether some instance had executing lanes that disagreed.
    pub diverged: bool,
}

/// What one executed block (one transition) showed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepObservation {
    /// The instructions with a result that had executing lanes, and whether those
    /// lanes disagreed.
    pub values: Vec<(Inst, bool)>,
    /// Whether the block's terminator has several successors and sent the active
    /// lanes to different ones (`None`: one successor, or no active lane).
    pub branch: Option<bool>,
    /// Whether the block ran with some but not all lanes active.
    pub partial_activation: bool,
    /// The `alloca`s (with object tracking on) whose copies made together hold
    /// different contents after the step.
    pub objects_differ: Vec<Inst>,
}

/// The lanes that execute `inst`'s dynamic instance in a step with control mask
/// `cmask` and activation `active` (see the module documentation).
pub fn executing_lanes<'a>(
    body: &Body,
    inst: Inst,
    cmask: &'a [bool],
    active: &'a [bool],
    all: &'a [bool],
) -> &'a [bool] {
    let data = &body.insts[inst];
    if data.kind.is_phi() {
        cmask
    } else if data.total || matches!(data.kind, InstKind::Mask) {
        all
    } else {
        active
    }
}

/// A pointer with a stack object replaced by its copy group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NormalizedPointer {
    /// A pointer into a stack object: its group and the offset.
    Stack {
        /// The group (`alloca` and step).
        group: (Inst, u64),
        /// The byte offset.
        offset: u64,
    },
    /// Any other pointer, exactly.
    Other(Pointer),
}

/// `p` with a stack object replaced by its copy group.
pub fn normalize_pointer(groups: &CopyGroups, p: &Pointer) -> NormalizedPointer {
    match p.object.and_then(|o| groups.get(&o)) {
        Some(&group) => NormalizedPointer::Stack {
            group,
            offset: p.offset,
        },
        None => NormalizedPointer::Other(*p),
    }
}

/// A byte with a pointer fragment's pointer replaced by its group.
type NormalizedByte = (Option<NormalizedPointer>, Option<u8>, u8);

/// The contents of object `o`, pointer bytes compared up to the group.
fn normalized_bytes(mem: &Memory, groups: &CopyGroups, o: ObjectId) -> Option<Vec<NormalizedByte>> {
    let obj = mem.object(o)?;
    Some(
        obj.bytes
            .iter()
            .map(|b| match b {
                Byte::Uninit => (None, None, 0),
                Byte::Data(d) => (None, Some(d), 0),
                Byte::PtrFrag { ptr, index } => {
                    (Some(normalize_pointer(groups, &ptr)), None, index)
                }
            })
            .collect(),
    )
}

/// What [`observe_step`] calls with each dynamic instance: the instruction, its
/// executing lanes (definition mask set) with their values, and the copy groups.
pub type InstanceHook<'a> = dyn FnMut(Inst, &[(usize, Val)], &CopyGroups) + 'a;

/// Which lanes an instance's values are compared among in [`observe_step`]:
/// lanes of one group only (the token classes of [`TokenTracker::group`]).
pub type LaneGroups<'a> = dyn Fn(Inst, usize) -> Vec<Option<TokenClass>> + 'a;

/// Whether `i` is a phi with a literal `undef` or `poison` arm.
fn has_undef_arm(body: &Body, i: Inst) -> bool {
    match &body.insts[i].kind {
        InstKind::Phi { incoming, .. } => incoming
            .iter()
            .any(|&(v, _)| matches!(body.as_const(v), Some(ConstData::Undef | ConstData::Poison))),
        _ => false,
    }
}

/// Whether two lanes hold the same value, pointers into stack objects compared up
/// to the copy group.
fn same_value(groups: &CopyGroups, a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Ptr(p), Val::Ptr(q)) if !groups.is_empty() => {
            normalize_pointer(groups, p) == normalize_pointer(groups, q)
        }
        _ => a == b,
    }
}

/// Observes one executed block: `step` as [BLS-W-STEP] returned it, `env` and `mem`
/// the state after it. The stack objects its `alloca`s made join `groups` under
/// `tag`; with `track_objects` every group's copies are compared after the step.
/// `on_instance` sees every dynamic instance.
#[allow(
    clippy::too_many_arguments,
    reason = "the step, the state after it, and what the caller keeps between steps"
)]
pub fn observe_step(
    body: &Body,
    env: &Env,
    mem: &Memory,
    step: &BlockStep,
    groups: &mut CopyGroups,
    tag: u64,
    track_objects: bool,
    groups_of: Option<&LaneGroups<'_>>,
    on_instance: &mut InstanceHook<'_>,
) -> StepObservation {
    let block = &body.blocks[step.scheduled];
    let width = step.cmask.len();
    let all = vec![true; width];
    let mut out = StepObservation::default();
    let n_active = step.active.iter().filter(|&&a| a).count();
    out.partial_activation = n_active > 0 && n_active < width;
    // New stack objects first, so that pointers to them compare by group.
    for &i in &block.body {
        let data = &body.insts[i];
        if !matches!(data.kind, InstKind::Alloca { .. }) {
            continue;
        }
        let Some(v) = data.result else { continue };
        let lanes = executing_lanes(body, i, &step.cmask, &step.active, &all);
        for (lane, val) in env.get(v).iter().enumerate() {
            if lanes.get(lane).copied().unwrap_or(false)
                && let Val::Ptr(Pointer {
                    object: Some(o), ..
                }) = val
            {
                groups.insert(*o, (i, tag));
            }
        }
    }
    let mut lane_values: Vec<(usize, Val)> = Vec::with_capacity(width);
    for &i in block.phis.iter().chain(&block.body) {
        let Some(v) = body.insts[i].result else {
            continue;
        };
        let lanes = executing_lanes(body, i, &step.cmask, &step.active, &all);
        // γ' (§6.2) speaks of the lanes whose definition mask is set: a phi lane
        // with control mask whose incoming value was itself undefined (Def. 10.3)
        // does not count.
        let defined = env.defined(v);
        let column = env.column(v);
        // Nor does a lane that took a literal `undef`/`poison` arm of a phi: it
        // holds ⊤, which may be any value, the other lanes' included (LLVM's
        // `hasConstantOrUndefValue`, which the `llvm` analysis follows). The
        // step does not record the arm a lane took; ⊤ at a phi with such an arm
        // stands for it.
        let undef_arm = has_undef_arm(body, i);
        lane_values.clear();
        lane_values.extend(
            lanes
                .iter()
                .enumerate()
                .filter(|(lane, a)| **a && defined.is_none_or(|d| d[*lane]))
                .map(|(lane, _)| (lane, column.lane(lane)))
                .filter(|(_, val)| !(undef_arm && val.is_undef())),
        );
        let Some((_, first)) = lane_values.first() else {
            continue;
        };
        let diverged = match groups_of {
            None => lane_values[1..]
                .iter()
                .any(|(_, x)| !same_value(groups, first, x)),
            // Compared within each group: the first lane of each group against
            // the others of it.
            Some(group) => {
                let mut firsts: Vec<(Vec<Option<TokenClass>>, &Val)> = Vec::new();
                lane_values.iter().any(|(lane, x)| {
                    let g = group(i, *lane);
                    match firsts.iter().find(|(h, _)| *h == g) {
                        Some((_, f)) => !same_value(groups, f, x),
                        None => {
                            firsts.push((g, x));
                            false
                        }
                    }
                })
            }
        };
        on_instance(i, &lane_values, groups);
        out.values.push((i, diverged));
    }
    if block.term.is_branch_on_value() || block.term.successors().len() > 1 {
        let mut taken = step
            .succ
            .iter()
            .zip(&step.active)
            .filter(|(_, a)| **a)
            .map(|(s, _)| s);
        if let Some(first) = taken.next() {
            out.branch = Some(taken.any(|s: &Succ| s != first));
        }
    }
    if track_objects {
        let mut by_group: BTreeMap<(Inst, u64), Vec<ObjectId>> = BTreeMap::new();
        for (&o, &group) in groups.iter() {
            by_group.entry(group).or_default().push(o);
        }
        for ((alloca, _), objects) in &by_group {
            let mut contents = objects.iter().map(|&o| normalized_bytes(mem, groups, o));
            if let Some(first) = contents.next()
                && contents.any(|b| b != first)
                && !out.objects_differ.contains(alloca)
            {
                out.objects_differ.push(*alloca);
            }
        }
    }
    out
}

/// The record of a run (or of several runs, merged).
#[derive(Clone, Debug, PartialEq)]
pub struct DivergenceRecord {
    /// Per instruction with a result.
    pub insts: SecondaryMap<Inst, Observed>,
    /// Per block whose terminator has several successors.
    pub branches: SecondaryMap<Block, Observed>,
    /// Per block: whether it once ran with some but not all lanes active.
    pub activation: SecondaryMap<Block, bool>,
    /// Per `alloca` (with object tracking on): whether the copies it made together
    /// once held different contents.
    pub objects: SecondaryMap<Inst, bool>,
    /// Whether the stack objects' copies are compared after every step (as the
    /// soundness checks do; the cost grows with the objects made, so a plain run
    /// leaves it off).
    pub track_objects: bool,
    /// The copy group of every stack object made so far.
    pub groups: CopyGroups,
    /// The steps observed (the tag of the next step's new objects).
    pub steps: u64,
    /// The token classes of the run, when the function defines tokens and the
    /// observer was asked to follow them ([`DivergenceRecord::with_tokens`]):
    /// then the lanes of an instance in a token's convergence region are
    /// compared only with lanes of the same class.
    pub tokens: Option<TokenTracker>,
}

impl DivergenceRecord {
    /// An empty record for `body`, without object tracking.
    pub fn new(body: &Body) -> Self {
        let _ = body;
        DivergenceRecord {
            insts: SecondaryMap::with_default(Observed::default()),
            branches: SecondaryMap::with_default(Observed::default()),
            activation: SecondaryMap::with_default(false),
            objects: SecondaryMap::with_default(false),
            track_objects: false,
            groups: CopyGroups::new(),
            steps: 0,
            tokens: None,
        }
    }

    /// The record follows the token classes of a run of `body` over `width`
    /// lanes (nothing changes for a function without tokens).
    pub fn with_tokens(mut self, module: &Module, body: &Body, width: usize) -> Self {
        self.tokens = TokenTracker::new(module, body, width);
        self
    }

    /// Folds in one executed block.
    pub fn observe(&mut self, body: &Body, env: &Env, mem: &Memory, step: &BlockStep) {
        self.observe_with(body, env, mem, step, &mut |_, _, _| {});
    }

    /// Folds in one executed block, calling `on_instance` with every dynamic
    /// instance (see [`observe_step`]).
    pub fn observe_with(
        &mut self,
        body: &Body,
        env: &Env,
        mem: &Memory,
        step: &BlockStep,
        on_instance: &mut InstanceHook<'_>,
    ) {
        self.steps += 1;
        if let Some(t) = self.tokens.as_mut() {
            t.step(body, step.scheduled, &step.active);
        }
        let tracker = self.tokens.as_ref();
        let group = |i: Inst, lane: usize| -> Vec<Option<TokenClass>> {
            tracker.map_or_else(Vec::new, |t| t.group(body, step.scheduled, i, lane))
        };
        let seen = observe_step(
            body,
            env,
            mem,
            step,
            &mut self.groups,
            self.steps,
            self.track_objects,
            tracker.is_some().then_some(&group as &LaneGroups<'_>),
            on_instance,
        );
        self.fold(step.scheduled, &seen);
    }

    /// Folds in what one step of `block` showed.
    pub fn fold(&mut self, block: Block, seen: &StepObservation) {
        for &(i, diverged) in &seen.values {
            let entry = &mut self.insts[i];
            entry.instances += 1;
            entry.diverged |= diverged;
        }
        if let Some(diverged) = seen.branch {
            let entry = &mut self.branches[block];
            entry.instances += 1;
            entry.diverged |= diverged;
        }
        self.activation[block] |= seen.partial_activation;
        for &a in &seen.objects_differ {
            self.objects[a] = true;
        }
    }
}

/// A text report of a run's divergence record `rec` over `body` (a machine's
/// `divergence` and `program.body`): every instruction and branch that executed,
/// marked `diverged` or `uniform`, in program order.
pub fn report(body: &Body, rec: &DivergenceRecord) -> String {
    let mut lines = vec!["observed divergence:".to_string()];
    for &b in &body.layout {
        let block = &body.blocks[b];
        for &inst in block.phis.iter().chain(&block.body) {
            let Some(id) = body.insts[inst].result else {
                continue;
            };
            let o = rec.insts[inst];
            if o.instances == 0 {
                continue;
            }
            lines.push(format!(
                "  {:<10} %{} ({} instance{})",
                if o.diverged { "diverged" } else { "uniform" },
                body.value_name(id).unwrap_or("?"),
                o.instances,
                if o.instances == 1 { "" } else { "s" }
            ));
        }
        let o = rec.branches[b];
        if o.instances > 0 {
            lines.push(format!(
                "  {:<10} branch of {} ({} instance{})",
                if o.diverged { "diverged" } else { "uniform" },
                block.name,
                o.instances,
                if o.instances == 1 { "" } else { "s" }
            ));
        }
    }
    lines.join("\n")
}
