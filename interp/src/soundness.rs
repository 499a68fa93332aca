//! The soundness checker of the divergence analyses: what the lanes of one run
//! were seen to do, and the uniformity and stride-alignment claims that run refutes.
//!
//! [`observe_run`] executes a run block by block (its schedule, or the checked
//! greedy `lowest` policy) and watches each dynamic instance with the machine's own
//! observer ([`crate::observe`], stack-object tracking on): the lanes that execute
//! an instruction (the control mask for a phi, every lane for `total` and
//! `mask()`, the activation otherwise, and of those only lanes whose definition
//! mask is set, γ' of thesis §6.2) must agree on its value, the active lanes of a
//! terminator must take one successor, and the lanes' private copies of a stack
//! object created together must hold equal contents, wherever an analysis says
//! `uniform` ([`unsound_claims`]). Pointers into stack objects are compared up to
//! the object: the copies one `alloca` made in one step are one abstract object
//! (Fig. 6.11). Every sa-shape the `sa` analysis gives an integer or pointer value
//! is checked on every dynamic instance too ([`stride_violations`]): the executing
//! lanes are in γ_sa of it (Fig. 10.4, read modulo 2^N, [`SaShape::admits`]).
//!
//! The golden corpus runner, the soundness property tests and the fuzzing oracles
//! all check the analyses through this one module.

use crate::greedy::GreedyFacts;
use crate::observe::{CopyGroups, DivergenceRecord, Observed};
use crate::run::Chooser;
use crate::sched::Lowest;
use crate::{Machine, Outcome, RunConfig};
use pllvm_analysis::result::Uniformity;
use pllvm_analysis::sa_shape::SaShape;
use pllvm_analysis::stride::sa_bits;
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{Block, Body, Inst, InstKind, Module};
use pllvm_semantics::rules::step::BlockStep;
use pllvm_semantics::value::Val;
use std::collections::BTreeMap;

/// The claims of `r` that `obs` refutes, as readable names.
pub fn unsound_claims(r: &Uniformity, body: &Body, obs: &Observation) -> Vec<String> {
    let mut out = Vec::new();
    for &b in &body.layout {
        let data = &body.blocks[b];
        for &i in data.phis.iter().chain(&data.body) {
            if let Some(v) = body.insts[i].result
                && r.values[v].is_uniform()
                && obs.insts[i].diverged
            {
                out.push(format!(
                    "%{} (in {})",
                    body.value_name(v).unwrap_or("?"),
                    data.name
                ));
            }
            if matches!(body.insts[i].kind, InstKind::Alloca { .. })
                && r.allocas.get(&i).is_some_and(|s| s.is_uniform())
                && obs.objects[i]
            {
                out.push(format!(
                    "the stack object of %{} (in {})",
                    body.insts[i]
                        .result
                        .and_then(|v| body.value_name(v))
                        .unwrap_or("?"),
                    data.name
                ));
            }
        }
        if r.terminators[b].is_uniform() && obs.branches[b] {
            out.push(format!("the terminator of {}", data.name));
        }
        if r.activation[b].is_uniform() && obs.activation[b] {
            out.push(format!("the activation of {}", data.name));
        }
    }
    out
}

/// What lanes were seen to do in one run.
#[derive(Clone, Debug)]
pub struct Observation {
    /// Per instruction with a result: whether the executing lanes of one instance
    /// disagreed (pointers into stack objects compared up to the object).
    pub insts: SecondaryMap<Inst, ObservedInst>,
    /// Per block: whether the active lanes of one execution took different
    /// successors.
    pub branches: SecondaryMap<Block, bool>,
    /// Per block: whether it once executed with some but not all lanes of the
    /// thread array active.
    pub activation: SecondaryMap<Block, bool>,
    /// Per `alloca`: whether the copies made together once held different contents.
    pub objects: SecondaryMap<Inst, bool>,
    /// How the run ended.
    pub outcome: Outcome,
}

/// One static instruction's observation (the interpreter's observer's).
pub type ObservedInst = Observed;

/// Runs `config` on `module` block by block (its schedule, or the checked
/// greedy `lowest` policy) and records what the lanes did: the interpreter's own observer
/// ([`DivergenceRecord`], `crate::observe`) with stack-object tracking on.
pub fn observe_run(module: &Module, config: &RunConfig) -> Result<Observation, String> {
    observe_run_with(module, config, &mut |_, _| {})
}

/// One executing lane's value, as the stride check reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaneValue {
    /// ⊤.
    Undef,
    /// An integer's bit pattern (up to 128 bits), or a pointer's address.
    Int(u128),
    /// A pointer into a stack object: the object's class (its `alloca` and the
    /// step that made the lanes' copies, Fig. 6.11) and the offset.
    Stack {
        /// The `alloca` and the step.
        class: (Inst, u64),
        /// The byte offset.
        offset: u64,
    },
    /// Anything else (floats, wide integers).
    Other,
}

/// The violations of `r`'s stride-alignment claims (`r.strides`, thesis Fig. 10.4)
/// in one run of `config`: for each dynamic instance of an integer or pointer
/// value, its executing lanes must be in γ_sa of the claim, read modulo 2^N
/// ([`SaShape::admits`]); pointers into stack objects count up to the object (the
/// lanes' copies made together are one object, and their offsets follow the shape).
pub fn stride_violations(
    module: &Module,
    r: &Uniformity,
    config: &RunConfig,
) -> Result<Vec<String>, String> {
    stride_violations_from(module, r, config, 0)
}

/// [`stride_violations`] in a thread array whose lane 0 has thread id
/// `first_thread` (one chunk of a larger thread array, as the native backend
/// runs it: the claims of `sa` for [`pllvm_analysis::stride::ThreadIds::Chunk`]).
pub fn stride_violations_from(
    module: &Module,
    r: &Uniformity,
    config: &RunConfig,
    first_thread: u64,
) -> Result<Vec<String>, String> {
    let body = module.functions[r.func]
        .body
        .as_ref()
        .ok_or("the analysed function has no body")?;
    let mut bad: BTreeMap<Inst, String> = BTreeMap::new();
    let mut hook = |i: Inst, lanes: &[(usize, LaneValue)]| {
        if bad.contains_key(&i) {
            return;
        }
        let Some(v) = body.insts[i].result else {
            return;
        };
        let (Some(&claim), Some(bits)) = (r.strides.get(&v), sa_bits(module, body, v)) else {
            return;
        };
        let stack_class = lanes.iter().find_map(|(_, l)| match l {
            LaneValue::Stack { class, .. } => Some(*class),
            _ => None,
        });
        let mut ints: Vec<(usize, Option<u128>)> = Vec::with_capacity(lanes.len());
        let mut mixed = false;
        for (lane, l) in lanes {
            let value = match (l, stack_class) {
                (LaneValue::Undef, _) => None,
                (LaneValue::Int(x), None) => Some(*x),
                (LaneValue::Stack { class, offset }, Some(c)) if *class == c => {
                    Some(u128::from(*offset))
                }
                _ => {
                    mixed = true;
                    None
                }
            };
            ints.push((*lane, value));
        }
        // Lanes pointing into different objects, or some into the stack and some
        // not, are in no strided shape; a varying one only speaks of each lane.
        let holds = if mixed {
            matches!(claim, SaShape::Varying { .. })
                && lanes.iter().all(|(_, l)| match l {
                    LaneValue::Int(x) => claim.admits(bits, &[(0, Some(*x))]),
                    LaneValue::Stack { offset, .. } => {
                        claim.admits(bits, &[(0, Some(u128::from(*offset)))])
                    }
                    _ => true,
                })
        } else {
            claim.admits(bits, &ints)
        };
        if !holds {
            let shown: Vec<String> = lanes
                .iter()
                .map(|(t, l)| match l {
                    LaneValue::Undef => format!("{t}: ⊤"),
                    LaneValue::Int(x) => format!("{t}: {x}"),
                    LaneValue::Stack { offset, .. } => format!("{t}: stack+{offset}"),
                    LaneValue::Other => format!("{t}: ?"),
                })
                .collect();
            bad.insert(
                i,
                format!(
                    "calls %{} {claim}, but one instance had lanes [{}]",
                    body.value_name(v).unwrap_or("?"),
                    shown.join(", ")
                ),
            );
        }
    };
    observe_run_from(module, config, first_thread, &mut hook)?;
    Ok(bad.into_values().collect())
}

/// What [`observe_run_with`] calls with each dynamic instance: the instruction
/// and its executing lanes' values.
pub type InstanceHook<'a> = dyn FnMut(Inst, &[(usize, LaneValue)]) + 'a;

/// [`observe_run`], calling `on_instance` with every dynamic instance of an
/// instruction with a result: the executing lanes whose definition mask is set
/// and their values.
pub fn observe_run_with(
    module: &Module,
    config: &RunConfig,
    on_instance: &mut InstanceHook<'_>,
) -> Result<Observation, String> {
    observe_run_from(module, config, 0, on_instance)
}

/// [`observe_run_with`] in a thread array whose lane 0 has thread id
/// `first_thread` (lane τ's `thread_id` is `first_thread + τ`, as in a launch,
/// [`pllvm_semantics::theta::LaunchPosition`]).
pub fn observe_run_from(
    module: &Module,
    config: &RunConfig,
    first_thread: u64,
    on_instance: &mut InstanceHook<'_>,
) -> Result<Observation, String> {
    let mut m = Machine::new(module, config).map_err(|e| e.to_string())?;
    m.program.launch.first_local_id = first_thread;
    m.record_trace = false;
    // The observer is fed here (with the instance hook), not by the machine.
    m.observe = false;
    let body = m.program.body;
    let width = m.state.env.width();
    let mut record = DivergenceRecord::new(body).with_tokens(module, body, width);
    record.track_objects = true;
    let mut outcome = Outcome::Returned;
    let schedule: Option<Vec<Block>> = match &config.schedule {
        Some(names) => Some(
            names
                .iter()
                .map(|n| {
                    body.block_by_name(n)
                        .ok_or_else(|| format!("bad schedule: no block named {n}"))
                })
                .collect::<Result<_, _>>()?,
        ),
        None => None,
    };
    // Without a schedule, the checked greedy default of `run` (`lowest`, Ch. 5).
    let facts = GreedyFacts::compute(&m.program)
        .with_interp(m.interp)
        .with_exec(m.exec);
    let mut chooser = Chooser::new(&facts, true);
    let mut step_no: usize = 0;
    loop {
        let next = match &schedule {
            Some(s) => match s.get(step_no) {
                Some(&b) => b,
                None => {
                    outcome = if m.state.all_done() {
                        Outcome::Returned
                    } else {
                        Outcome::Incomplete
                    };
                    break;
                }
            },
            None => {
                if m.state.all_done() {
                    outcome = Outcome::Returned;
                    break;
                }
                match chooser.choose(&m, &mut Lowest) {
                    Some((b, _)) => {
                        chooser.stepped(b);
                        b
                    }
                    None => {
                        outcome = Outcome::Incomplete;
                        break;
                    }
                }
            }
        };
        step_no += 1;
        if let Some(ended) = m.checked_step(next).map_err(|e| e.to_string())? {
            outcome = ended;
            break;
        }
        let Some(row) = m.trace.last() else { break };
        let step = BlockStep {
            scheduled: row.scheduled,
            cmask: row.cmask.clone(),
            pmask: row.pmask.clone(),
            active: row.active.clone(),
            succ: row.succ.clone(),
            written: None,
            rules: row.rules,
        };
        record.observe_with(
            body,
            &m.state.env,
            &m.state.mem,
            &step,
            &mut |i, lanes, groups| {
                let values: Vec<(usize, LaneValue)> = lanes
                    .iter()
                    .map(|(lane, val)| (*lane, lane_value(groups, val)))
                    .collect();
                on_instance(i, &values);
            },
        );
    }
    Ok(Observation {
        insts: record.insts.clone(),
        branches: observed_flags(body, |b| record.branches[b].diverged),
        activation: observed_flags(body, |b| record.activation[b]),
        objects: record.objects.clone(),
        outcome,
    })
}

/// A table of one flag per block of `body`.
fn observed_flags(body: &Body, flag: impl Fn(Block) -> bool) -> SecondaryMap<Block, bool> {
    let mut out = SecondaryMap::with_default(false);
    for &b in &body.layout {
        out[b] = flag(b);
    }
    out
}

/// A lane's value for the stride check.
fn lane_value(class: &CopyGroups, v: &Val) -> LaneValue {
    match v {
        Val::Undef => LaneValue::Undef,
        Val::Int(x) => LaneValue::Int(*x),
        Val::Ptr(p) => match p.object.and_then(|o| class.get(&o)) {
            Some(&c) => LaneValue::Stack {
                class: c,
                offset: p.offset,
            },
            None => LaneValue::Int(u128::from(p.address())),
        },
        _ => LaneValue::Other,
    }
}
