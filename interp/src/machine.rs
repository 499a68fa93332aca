//! The machine: a thread array of W lanes executing one function by the rules of
//! `pllvm_semantics::rules`, driven by a runtime schedule (Def. 5) or a scheduler.
//!
//! Setup builds the initial state of Def. 4: globals become memory objects
//! (initialized, or filled from the run input), arguments are converted to lane
//! values by their parameter types, and every lane starts at the entry with ℓ_in = ⊥.
//! Each step is one [LSS-W-STEP]; the machine records the trace row and feeds the
//! dynamic divergence observer.

pub use crate::config::integer_text;
use crate::config::{ArgValue, RunConfig, Scalar};
use crate::greedy::{self, GreedyFacts};
use crate::observe::DivergenceRecord;
use crate::trace::TraceRow;
use num_bigint::{BigInt, BigUint, Sign};
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{Block, FuncId, GlobalId, Inst, Module};
use pllvm_semantics::memory::{Memory, ObjectKind};
use pllvm_semantics::rules::step::{BlockStep, lss_w_step};
use pllvm_semantics::rules::{
    Env, Exec, Interp, Program, Rule, RuleSet, Scratch, Site, State, StepBuffers, StepError, Stuck,
    Ub,
};
use pllvm_semantics::theta::Builtin;
use pllvm_semantics::types::{Ty, TypeData, TypeTable};
use pllvm_semantics::value::{ObjectId, Pointer, Val, display_signed, wrap_biguint};
use std::collections::BTreeMap;

/// How a run ended (an outcome, not an error: docs/design/style.md §5).
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every lane terminated (the schedule was terminating, Def. 5).
    Returned,
    /// The schedule ran out before every lane terminated (not terminating, Def. 5).
    Incomplete,
    /// Undefined behaviour, naming the rule.
    Undefined(Ub),
    /// A resource limit ended the run.
    Limit(String),
    /// The step limit (`max_steps`) was reached.
    OutOfFuel,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Returned => write!(f, "returned"),
            Outcome::Incomplete => write!(
                f,
                "incomplete: the schedule ended before every lane terminated (Def. 5)"
            ),
            Outcome::Undefined(ub) => write!(f, "undefined: {ub}"),
            Outcome::Limit(why) => write!(f, "limit: {why}"),
            Outcome::OutOfFuel => write!(f, "out of fuel: step limit reached"),
        }
    }
}

/// The reason of the [`Outcome::Limit`] that [`Machine::deadline`] ends a run
/// with.
pub const TIME_LIMIT: &str = "time limit reached (--time sets it)";

/// Why a run could not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupError {
    /// What is wrong, lowercase, naming the input.
    pub message: String,
    /// The run input the error is about, if it is about one: a front end reports
    /// an error about an input its user gave as a flag as a usage error.
    pub input: Option<SetupInput>,
}

/// The run input a [`SetupError`] is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupInput {
    /// The function to run (`--function`).
    Function,
    /// W (`--threads`).
    Threads,
    /// The argument of this name or position (`--arg NAME=...`).
    Arg(String),
    /// The contents of this global, named without `@` (`--mem @G=...`).
    Memory(String),
    /// The buffer of this name (`--buffer NAME=...`).
    Buffer(String),
}

impl SetupError {
    /// An error about the program rather than one input.
    pub fn new(message: impl Into<String>) -> SetupError {
        SetupError {
            message: message.into(),
            input: None,
        }
    }

    /// An error about one run input.
    pub fn about(input: SetupInput, message: impl Into<String>) -> SetupError {
        SetupError {
            message: message.into(),
            input: Some(input),
        }
    }
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// A thread array running one function.
#[derive(Debug)]
pub struct Machine<'m> {
    /// The program.
    pub program: Program<'m>,
    /// 𝓘.
    pub interp: Interp,
    /// How the rules are executed (lane by lane, or by their fast forms).
    pub exec: Exec,
    /// σ.
    pub state: State,
    /// The buffers steps reuse (not part of σ).
    pub scratch: Scratch,
    /// One row per scheduled block; with [`Machine::trace_limit`] `Some(n)`, the
    /// first `n` rows and the latest one (see [`Machine::trace_omitted`]).
    pub trace: Vec<TraceRow>,
    /// Most rows of the trace kept before the latest one (`None`: every row). A
    /// trace costs O(W) host memory per step, so a run of millions of steps keeps
    /// its first rows, counts the rows after them, and keeps the latest row.
    pub trace_limit: Option<usize>,
    /// Rows not kept between the first [`Machine::trace_limit`] rows and the
    /// latest one.
    pub trace_omitted: u64,
    /// What the lanes did that an analysis can be checked against.
    pub divergence: DivergenceRecord,
    /// Whether trace rows record the values written.
    pub record_writes: bool,
    /// Whether the whole trace is kept (otherwise only the last row).
    pub record_trace: bool,
    /// Whether the divergence observer watches the run.
    pub observe: bool,
    /// Whether to count [`Machine::active_lane_insts`].
    pub count_work: bool,
    /// Phis executed by lanes with control mask, plus commands and terminators
    /// executed by active lanes: the useful work, for benchmarks.
    pub active_lane_insts: u64,
    /// Blocks scheduled so far.
    pub steps: u64,
    /// Every rule the run's steps have applied so far, as the rules' dispatchers
    /// recorded them ([`BlockStep::rules`]).
    pub rules_fired: RuleSet,
    /// The step limit.
    pub max_steps: u64,
    /// When the run must end (`--time`, docs/cli.md "run"): a step at or after
    /// it ends the run with [`Outcome::Limit`] ([`TIME_LIMIT`]) instead of
    /// running, as the memory limit does; `None`: no time limit.
    pub deadline: Option<std::time::Instant>,
    globals: SecondaryMap<GlobalId, Option<Pointer>>,
    /// Inputs the run lacks (an argument without a value, an external global
    /// without contents): they start as ⊤, which the user should hear about
    /// before the run rather than as "branches on ⊤" later.
    pub warnings: Vec<String>,
    /// The blocks holding a barrier call, and the CFG facts Def. 17 needs
    /// (`None` when the program has no barrier).
    barriers: Option<Box<Barriers>>,
}

/// The barrier blocks of a program (Def. 18): each block's first barrier call.
#[derive(Debug)]
struct Barriers {
    calls: SecondaryMap<Block, Option<Inst>>,
    facts: GreedyFacts,
}

impl Barriers {
    /// The barrier blocks of `program`, or `None` when it calls no barrier.
    fn of(program: &Program<'_>) -> Option<Box<Barriers>> {
        let mut calls = SecondaryMap::with_default(None);
        let mut any = false;
        for &b in &program.body.layout {
            let first = program.body.blocks[b]
                .body
                .iter()
                .copied()
                .find(|&i| program.callees[i] == Some(Builtin::Barrier));
            if first.is_some() {
                calls[b] = first;
                any = true;
            }
        }
        any.then(|| {
            Box::new(Barriers {
                calls,
                facts: GreedyFacts::compute(program),
            })
        })
    }
}

/// The memory a run starts from (Def. 4's 𝕄): the globals with their
/// initializers and `--mem` contents, and the buffers of the run input. A launch
/// of many thread arrays builds it once and gives every array a copy
/// ([`Machine::with_memory`]; copies share bytes until written).
#[derive(Clone, Debug)]
pub struct InitialMemory {
    /// 𝕄.
    pub mem: Memory,
    /// The object of each global.
    globals: SecondaryMap<GlobalId, Option<Pointer>>,
    /// The buffers (`--buffer`), by name: a pointer to each one's first byte.
    pub buffers: BTreeMap<String, Pointer>,
    /// Inputs the memory lacks (an external global without contents).
    pub warnings: Vec<String>,
}

impl InitialMemory {
    /// The pointer to global `g`'s object.
    pub fn global_pointer(&self, g: GlobalId) -> Option<Pointer> {
        self.globals[g]
    }
}

/// Builds the initial memory of a run of `config` on `module` (see
/// [`InitialMemory`]); checks the function, W and the buffers' parameters first,
/// as [`Machine::new`] does.
pub fn initial_memory(module: &Module, config: &RunConfig) -> Result<InitialMemory, SetupError> {
    {
        let func = pick_function(module, config)?;
        Program::new(module, func).map_err(|e| SetupError::new(e.to_string()))?;
        crate::config::check_width(config.threads as u128)
            .map_err(|e| SetupError::about(SetupInput::Threads, e))?;
        let mut mem = Memory::new(config.memory_limit);
        let types = &module.types;
        let mut globals = SecondaryMap::with_default(None);
        for (g, data) in module.globals.iter() {
            let kind = ObjectKind::Global {
                name: data.name.clone(),
            };
            let size = types.size_of(data.ty).max(1);
            let align = data.align.unwrap_or_else(|| types.align_of(data.ty));
            let ptr = mem
                .allocate(kind, size, align)
                .map_err(|e| SetupError::new(format!("global @{}: {e}", data.name)))?;
            globals[g] = Some(ptr);
        }
        // Initializers first, then run-input contents (which win).
        for (g, data) in module.globals.iter() {
            let Some(ptr) = globals[g] else { continue };
            if let Some(init) = &data.init {
                mem.init_global(types, ptr, data.ty, init)
                    .map_err(|e| SetupError::new(format!("global @{}: {e}", data.name)))?;
            }
        }
        let global_ptr = |g: GlobalId| globals[g].map_or(Val::Undef, Val::Ptr);
        let mut warnings = Vec::new();
        for (name, values) in &config.memory {
            let name = name.trim_start_matches('@');
            let about =
                |message: String| SetupError::about(SetupInput::Memory(name.into()), message);
            let (g, data) = module
                .globals
                .iter()
                .find(|(_, d)| d.name == name)
                .ok_or_else(|| about(format!("--mem: no global @{name}")))?;
            // The values fill the global's scalars in memory order: the elements of
            // an array of scalars, the fields of each element of an array of
            // structs (nested arrays and structs flattened the same way).
            let capacity = scalar_count(types, data.ty);
            if values.len() as u64 > capacity {
                let what = if element_type(types, data.ty) == leaf_type(types, data.ty) {
                    "elements"
                } else {
                    "scalars (struct fields count one each)"
                };
                return Err(about(format!(
                    "--mem @{name}: {} values do not fit {capacity} {what}",
                    values.len(),
                )));
            }
            let base = globals[g].ok_or_else(|| about(format!("global @{name} has no object")))?;
            for (k, s) in values.iter().enumerate() {
                let (offset, elem) = nth_scalar(types, data.ty, k as u64)
                    .ok_or_else(|| about(format!("--mem @{name}[{k}]: no such scalar")))?;
                let v = scalar_to_val(types, elem, s, &global_ptr, module)
                    .map_err(|e| about(format!("--mem @{name}[{k}]: {e}")))?;
                let at = Val::Ptr(Pointer {
                    object: base.object,
                    offset: base.offset + offset,
                });
                mem.store(types, elem, &at, &v)
                    .map_err(|e| about(format!("--mem @{name}[{k}]: {e}")))?;
            }
        }
        // A `constant` global is written once, by its initializer or its run input
        // (above); a store to it during the run is undefined behaviour (LangRef,
        // [W-INST-STORE] through write^W, §4.9.1).
        for (g, data) in module.globals.iter() {
            if let (
                true,
                Some(Pointer {
                    object: Some(id), ..
                }),
            ) = (data.constant, globals[g])
            {
                mem.set_read_only(id, true);
            }
        }
        for (_, data) in module.globals.iter() {
            let given = config
                .memory
                .keys()
                .any(|k| k.trim_start_matches('@') == data.name);
            if data.init.is_none() && !given {
                warnings.push(format!(
                    "global @{} is external and --mem gives it no contents: its bytes start as ⊤",
                    data.name
                ));
            }
        }
        let func = pick_function(module, config)?;
        let fdata = &module.functions[func];
        let params = param_names(module, func);
        let mut buffers = BTreeMap::new();
        for (name, spec) in &config.buffers {
            let about = |m: String| SetupError::about(SetupInput::Buffer(name.clone()), m);
            let bound = params
                .iter()
                .enumerate()
                .find(|(n, p)| *p == name || n.to_string() == *name);
            let Some((n, _)) = bound else {
                return Err(about(format!(
                    "--buffer {name}: @{} has no such parameter (parameters: {})",
                    fdata.name,
                    params
                        .iter()
                        .map(|k| format!("%{k}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            };
            if !matches!(types.get(fdata.params[n].ty), TypeData::Ptr(_)) {
                return Err(about(format!(
                    "--buffer {name}: parameter %{} is a {}, not a pointer",
                    params[n],
                    types.display(fdata.params[n].ty)
                )));
            }
            let ptr = spec
                .allocate(name, &mut mem)
                .map_err(|e| about(format!("--buffer {name}: {e}")))?;
            buffers.insert(name.clone(), ptr);
        }
        Ok(InitialMemory {
            mem,
            globals,
            buffers,
            warnings,
        })
    }
}

/// The name of each parameter of `func` (its position when it has none).
fn param_names(module: &Module, func: FuncId) -> Vec<String> {
    let fdata = &module.functions[func];
    let Some(body) = fdata.body.as_ref() else {
        return (0..fdata.params.len()).map(|n| n.to_string()).collect();
    };
    fdata
        .params
        .iter()
        .enumerate()
        .map(|(n, p)| {
            body.value_name(p.value)
                .map_or(n.to_string(), str::to_string)
        })
        .collect()
}

impl<'m> Machine<'m> {
    /// Sets up the initial state (Def. 4) of `func` (or the configured / first
    /// function) for `config`.
    pub fn new(module: &'m Module, config: &RunConfig) -> Result<Machine<'m>, SetupError> {
        let initial = initial_memory(module, config)?;
        Machine::with_memory(module, config, &initial)
    }

    /// Sets up the initial state (Def. 4) of a run of `config` whose memory is a
    /// copy of `initial` (built by [`initial_memory`] for the same module and
    /// function): the globals and buffers are there, the arguments and the
    /// control state are set up here. Buffers are bound to the parameters of
    /// their names (or positions).
    pub fn with_memory(
        module: &'m Module,
        config: &RunConfig,
        initial: &InitialMemory,
    ) -> Result<Machine<'m>, SetupError> {
        let func = pick_function(module, config)?;
        let program = Program::new(module, func).map_err(|e| SetupError::new(e.to_string()))?;
        let width = crate::config::check_width(config.threads as u128)
            .map_err(|e| SetupError::about(SetupInput::Threads, e))?;
        let types = &module.types;
        let globals = initial.globals.clone();
        let mem = initial.mem.clone();
        let mut warnings = initial.warnings.clone();
        let global_ptr = |g: GlobalId| globals[g].map_or(Val::Undef, Val::Ptr);
        let fdata = &module.functions[func];
        let body = program.body;
        let known: Vec<String> = fdata
            .params
            .iter()
            .enumerate()
            .map(|(n, p)| {
                body.value_name(p.value)
                    .map_or(n.to_string(), str::to_string)
            })
            .collect();
        if let Some(bad) = config
            .args
            .keys()
            .find(|k| !known.contains(k) && k.parse::<usize>().map_or(true, |n| n >= known.len()))
        {
            return Err(SetupError::about(
                SetupInput::Arg(bad.clone()),
                format!(
                    "--arg {bad}: @{} has no such parameter (parameters: {})",
                    fdata.name,
                    known
                        .iter()
                        .map(|k| format!("%{k}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        let mut args: Vec<Vec<Val>> = Vec::with_capacity(fdata.params.len());
        for (n, param) in fdata.params.iter().enumerate() {
            let name = &known[n];
            let by_name = config.args.get_key_value(name);
            let by_position = config.args.get_key_value(&n.to_string());
            if let (Some(_), Some(_)) = (by_name, by_position)
                && name != &n.to_string()
            {
                return Err(SetupError::about(
                    SetupInput::Arg(n.to_string()),
                    format!("--arg: parameter %{name} is given twice, by name and as {n}"),
                ));
            }
            let buffer = initial
                .buffers
                .get(name)
                .or_else(|| initial.buffers.get(&n.to_string()));
            let column = match (by_name.or(by_position), buffer) {
                (Some((key, _)), Some(_)) => {
                    return Err(SetupError::about(
                        SetupInput::Arg(key.clone()),
                        format!("--arg {key}: parameter %{name} is bound to a buffer already"),
                    ));
                }
                (None, Some(&ptr)) => vec![Val::Ptr(ptr); width],
                (None, None) => {
                    warnings.push(format!(
                        "argument %{name} has no value (--arg {name}=...): every lane starts with ⊤"
                    ));
                    vec![Val::Undef; width]
                }
                (Some((key, spec)), None) => {
                    arg_column(types, param.ty, spec, width, &global_ptr, module).map_err(|e| {
                        SetupError::about(
                            SetupInput::Arg(key.clone()),
                            format!("argument %{name}: {e}"),
                        )
                    })?
                }
            };
            args.push(column);
        }
        let env = Env::new(
            &program,
            width,
            &args,
            &global_ptr,
            config.strict,
            config.observe,
        );
        let entry = body
            .entry()
            .ok_or_else(|| SetupError::new(format!("@{} has no blocks", fdata.name)))?;
        let state = State::initial(entry, mem, env);
        let divergence = DivergenceRecord::new(body).with_tokens(module, body, width);
        let barriers = Barriers::of(&program);
        Ok(Machine {
            program,
            interp: config.interp,
            exec: config.exec,
            state,
            scratch: Scratch::default(),
            trace: Vec::new(),
            trace_limit: None,
            trace_omitted: 0,
            divergence,
            record_writes: false,
            record_trace: true,
            observe: config.observe,
            count_work: false,
            active_lane_insts: 0,
            steps: 0,
            rules_fired: RuleSet::EMPTY,
            max_steps: config.max_steps,
            deadline: None,
            globals,
            warnings,
            barriers,
        })
    }

    /// Whether the program calls a barrier (docs/language.md, "Barriers").
    pub fn calls_barrier(&self) -> bool {
        self.barriers.is_some()
    }

    /// A barrier's meaning (Def. 18; docs/launch.md): a block holding a barrier call
    /// (`llvm.amdgcn.s.barrier`, `llvm.nvvm.barrier0`, OpenCL `barrier`, ...) is
    /// a barrier, so scheduling it must be synchronizing (Def. 17) in the state
    /// before the step: no lane waits at a block that reaches it without a back
    /// edge. Greedy schedules make every block a barrier already; a runtime
    /// schedule given by hand, or the unchecked earliest-pending policy of a
    /// launch, may not, and then the step is undefined behaviour of the barrier's
    /// call ([W-CMD-CALL]), as a barrier that lanes reach apart is on a GPU.
    fn barrier_def_18(&self, block: Block) -> Result<(), StepError> {
        let Some(barriers) = &self.barriers else {
            return Ok(());
        };
        let Some(call) = *barriers.calls.get(block) else {
            return Ok(());
        };
        greedy::synchronizing(&self.program, &barriers.facts, &self.state, block).map_err(|v| {
            StepError::Undefined(Ub {
                rule: Rule::WCmdCall,
                lane: v.lane,
                block,
                site: Site::Inst(call),
                message: format!(
                    "barrier scheduled while not synchronizing (Def. 17, Def. 18): {}",
                    v.why
                ),
            })
        })
    }

    /// The pointer to global `g`'s object.
    pub fn global_pointer(&self, g: GlobalId) -> Option<Pointer> {
        self.globals[g]
    }

    /// Schedules `block` ([LSS-W-STEP]) and records the trace row.
    pub fn step(&mut self, block: Block) -> Result<&TraceRow, StepError> {
        let (before_incoming, before_next) = if self.record_trace {
            (self.state.incoming.clone(), self.state.next.clone())
        } else {
            (Vec::new(), Vec::new())
        };
        self.barrier_def_18(block)?;
        let step: BlockStep = lss_w_step(
            &self.program,
            self.interp,
            self.exec,
            block,
            &mut self.state,
            &mut self.scratch,
            self.record_writes,
        )
        .inspect_err(|e| {
            // The rule that met undefined behaviour was applied too (its
            // conclusion is the outcome): [W-CMD-ASM] is applied only so.
            if let StepError::Undefined(ub) = e {
                self.rules_fired.insert(ub.rule);
            }
        })?;
        self.steps += 1;
        if self.count_work {
            let block = &self.program.body.blocks[block];
            let lanes = |m: &[bool]| m.iter().filter(|&&b| b).count() as u64;
            self.active_lane_insts += block.phis.len() as u64 * lanes(&step.cmask)
                + (block.body.len() as u64 + 1) * lanes(&step.active);
        }
        if self.observe {
            self.divergence
                .observe(self.program.body, &self.state.env, &self.state.mem, &step);
        }
        let rules = step.rules;
        self.rules_fired.extend(rules);
        if !self.record_trace {
            // Only the last row is kept: the previous one's vectors are handed
            // back to the next step instead of being freed.
            if let Some(old) = self.trace.pop() {
                self.scratch.recycle_step(StepBuffers {
                    cmask: old.cmask,
                    pmask: old.pmask,
                    active: old.active,
                    succ: old.succ,
                });
            }
            self.trace.clear();
        }
        // Without a recorded trace only the last row is kept, with empty control
        // columns (the state itself holds the control state).
        let row = TraceRow {
            scheduled: block,
            incoming: before_incoming,
            next: before_next,
            cmask: step.cmask,
            pmask: step.pmask,
            active: step.active,
            succ: step.succ,
            written: step.written,
            rules,
        };
        self.keep_row(row);
        Ok(self.trace.last().expect("just kept"))
    }

    /// Keeps `row` as the latest row of the trace: appended while the trace is
    /// within [`Machine::trace_limit`] (plus the latest row), otherwise in place of
    /// the previous latest row, which is counted in [`Machine::trace_omitted`] and
    /// whose vectors go back to the next step.
    fn keep_row(&mut self, row: TraceRow) {
        let full = self.record_trace && self.trace_limit.is_some_and(|n| self.trace.len() > n);
        if !full {
            self.trace.push(row);
            return;
        }
        if let Some(last) = self.trace.last_mut() {
            let old = std::mem::replace(last, row);
            self.trace_omitted += 1;
            self.scratch.recycle_step(StepBuffers {
                cmask: old.cmask,
                pmask: old.pmask,
                active: old.active,
                succ: old.succ,
            });
        }
    }

    /// The blocks a runtime schedule (Def. 5) names, in order; a name that is no
    /// block of the function is a [`RunError::BadSchedule`].
    pub fn schedule_blocks(&self, schedule: &[String]) -> Result<Vec<Block>, RunError> {
        schedule
            .iter()
            .map(|name| {
                self.program
                    .body
                    .block_by_name(name)
                    .ok_or_else(|| RunError::BadSchedule(format!("no block named {name}")))
            })
            .collect()
    }

    /// Executes a runtime schedule (Def. 5) of block names. Stops at the end of
    /// the list, at undefined behaviour, or at the step limit; the rest of a list
    /// after every lane terminated is executed too (every lane is passive then).
    pub fn run_schedule(&mut self, schedule: &[String]) -> Result<Outcome, RunError> {
        let blocks = self.schedule_blocks(schedule)?;
        for b in blocks {
            if let Some(outcome) = self.checked_step(b)? {
                return Ok(outcome);
            }
        }
        Ok(if self.state.all_done() {
            Outcome::Returned
        } else {
            Outcome::Incomplete
        })
    }

    /// One step with fuel and outcome handling: `Some(outcome)` ends the run.
    pub fn checked_step(&mut self, b: Block) -> Result<Option<Outcome>, RunError> {
        if self.steps >= self.max_steps {
            return Ok(Some(Outcome::OutOfFuel));
        }
        // The clock is read at every step, and only when there is a deadline:
        // reading it costs tens of nanoseconds, and a step checked against
        // the greedy constraints of Ch. 5 can take much longer than that.
        if let Some(deadline) = self.deadline
            && std::time::Instant::now() >= deadline
        {
            return Ok(Some(Outcome::Limit(TIME_LIMIT.to_string())));
        }
        match self.step(b) {
            Ok(_) => Ok(None),
            Err(StepError::Undefined(ub)) => Ok(Some(Outcome::Undefined(ub))),
            Err(StepError::Limit(why)) => Ok(Some(Outcome::Limit(why))),
            Err(StepError::Stuck(s)) => Err(RunError::Stuck(s)),
        }
    }

    /// `[r0, r1, …]`: every lane's return value (signed decimal for `iN`, ⊤ for
    /// undef), `-` for a lane that has not terminated.
    pub fn result_text(&self) -> String {
        let lanes: Vec<String> = self
            .result_lanes()
            .into_iter()
            .map(|r| r.unwrap_or_else(|| "-".to_string()))
            .collect();
        format!("[{}]", lanes.join(", "))
    }

    /// Every lane's return value as [`Machine::result_text`] writes it, `None`
    /// for a lane that has not terminated.
    pub fn result_lanes(&self) -> Vec<Option<String>> {
        let ret_ty = self.program.module.functions[self.program.func].ret_ty;
        let width = self.program.types().int_width(ret_ty);
        self.results()
            .iter()
            .map(|r| match (r, width) {
                (None, _) => None,
                (Some(v), Some(w)) => Some(display_signed(v, w)),
                (Some(v), None) => Some(v.to_string()),
            })
            .collect()
    }

    /// Whether the function returns a value (a `void` function's lanes return
    /// nothing, so there is no result to print).
    pub fn returns_value(&self) -> bool {
        let ret_ty = self.program.module.functions[self.program.func].ret_ty;
        !matches!(self.program.types().get(ret_ty), TypeData::Void)
    }

    /// The return value of every lane, `None` for lanes that did not terminate.
    pub fn results(&self) -> Vec<Option<Val>> {
        self.state
            .next
            .iter()
            .map(|n| match n {
                pllvm_semantics::rules::Next::Done(r) => Some(r.clone()),
                _ => None,
            })
            .collect()
    }

    /// The contents of every global now, scalar by scalar ([`global_values`]), in
    /// the module's order of globals.
    pub fn global_contents(&self) -> Vec<GlobalValues> {
        let module = self.program.module;
        module
            .globals
            .keys()
            .filter_map(|g| {
                let object = self.globals[g]?.object?;
                Some(global_values(module, &self.state.mem, g, object))
            })
            .collect()
    }
}

/// One scalar of a global's contents.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryCell {
    /// Where in the global, as an index path: `[3]`, `[1][2]`, `[0].1`; empty for
    /// a global of scalar type.
    pub path: String,
    /// What a load of the scalar's type reads there (⊤ when a byte of it is
    /// uninitialized, §4.9.1).
    pub value: Val,
    /// The width of an integer scalar (to print it signed), `None` otherwise.
    pub int_width: Option<u32>,
}

/// The contents of one global, scalar by scalar in address order: what a
/// comparison of two runs' memories compares element by element (the checker of
/// `crate::equiv`), where the printed contents (`Memory::dump_object`) are text.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalValues {
    /// `@name`.
    pub name: String,
    /// Every scalar of the global's type (arrays and structs flattened).
    pub cells: Vec<MemoryCell>,
}

/// The contents of global `g`, whose object is `object` in `mem`, scalar by
/// scalar. A scalar that cannot be read (an object no longer live) reads as ⊤.
pub fn global_values(module: &Module, mem: &Memory, g: GlobalId, object: ObjectId) -> GlobalValues {
    let data = &module.globals[g];
    let mut cells = Vec::new();
    push_cells(
        &module.types,
        mem,
        object,
        data.ty,
        0,
        String::new(),
        &mut cells,
    );
    GlobalValues {
        name: format!("@{}", data.name),
        cells,
    }
}

/// The scalars of a value of type `ty` at `offset` of `object`, named from `path`.
fn push_cells(
    types: &TypeTable,
    mem: &Memory,
    object: ObjectId,
    ty: Ty,
    offset: u64,
    path: String,
    cells: &mut Vec<MemoryCell>,
) {
    match types.get(ty) {
        TypeData::Array(n, elem) => {
            let step = types.size_of(*elem);
            for k in 0..*n {
                let at = format!("{path}[{k}]");
                push_cells(types, mem, object, *elem, offset + k * step, at, cells);
            }
        }
        TypeData::Struct { fields, .. } => {
            let (offsets, _) = types.struct_layout(ty);
            for (k, (field, field_offset)) in fields.iter().zip(offsets).enumerate() {
                let at = format!("{path}.{k}");
                push_cells(types, mem, object, *field, offset + field_offset, at, cells);
            }
        }
        TypeData::Vector(n, elem) => {
            let step = types.store_size(*elem);
            for k in 0..u64::from(*n) {
                let at = format!("{path}<{k}>");
                push_cells(types, mem, object, *elem, offset + k * step, at, cells);
            }
        }
        TypeData::Void | TypeData::Label | TypeData::Token => {}
        TypeData::Int(_)
        | TypeData::F32
        | TypeData::F64
        | TypeData::F16
        | TypeData::BF16
        | TypeData::Ptr(_) => {
            let at = Val::Ptr(Pointer {
                object: Some(object),
                offset,
            });
            cells.push(MemoryCell {
                path,
                value: mem.load(types, ty, &at).unwrap_or(Val::Undef),
                int_width: types.int_width(ty),
            });
        }
    }
}

/// A failure of the machinery rather than an outcome of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// No rule applies (bug or unverified program).
    Stuck(Stuck),
    /// The schedule names a block the program does not have.
    BadSchedule(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Stuck(s) => write!(f, "{s}"),
            RunError::BadSchedule(why) => write!(f, "bad schedule: {why}"),
        }
    }
}

fn pick_function(module: &Module, config: &RunConfig) -> Result<FuncId, SetupError> {
    match &config.function {
        Some(name) => {
            let name = name.trim_start_matches('@');
            module.function_by_name(name).ok_or_else(|| {
                SetupError::about(SetupInput::Function, format!("no function @{name}"))
            })
        }
        None => module
            .first_definition()
            .ok_or_else(|| SetupError::new("the module defines no function")),
    }
}

/// How many scalars `ty` holds in memory order: 1 for a scalar, `n` times the
/// element's for `[n x T]`, the sum of the fields' for a struct.
fn scalar_count(types: &TypeTable, ty: Ty) -> u64 {
    match types.get(ty) {
        TypeData::Array(n, elem) => n.saturating_mul(scalar_count(types, *elem)),
        TypeData::Struct { fields, .. } => fields
            .iter()
            .fold(0u64, |acc, &f| acc.saturating_add(scalar_count(types, f))),
        _ => 1,
    }
}

/// The byte offset and type of the `k`-th scalar of `ty` in memory order, found
/// without listing the others (a global may hold millions).
fn nth_scalar(types: &TypeTable, ty: Ty, k: u64) -> Option<(u64, Ty)> {
    match types.get(ty) {
        TypeData::Array(n, elem) => {
            let per = scalar_count(types, *elem);
            let index = k.checked_div(per)?;
            if index >= *n {
                return None;
            }
            let (offset, leaf) = nth_scalar(types, *elem, k % per)?;
            Some((index * types.size_of(*elem) + offset, leaf))
        }
        TypeData::Struct { fields, .. } => {
            let (offsets, _) = types.struct_layout(ty);
            let mut k = k;
            for (&f, &at) in fields.iter().zip(&offsets) {
                let count = scalar_count(types, f);
                if k < count {
                    let (offset, leaf) = nth_scalar(types, f, k)?;
                    return Some((at + offset, leaf));
                }
                k -= count;
            }
            None
        }
        _ => (k == 0).then_some((0, ty)),
    }
}

/// The type of the first scalar of `ty` (`ty` itself for a scalar).
fn leaf_type(types: &TypeTable, ty: Ty) -> Ty {
    nth_scalar(types, ty, 0).map_or(ty, |(_, leaf)| leaf)
}

/// The element type a global's contents are given in: an array's (innermost)
/// element type, or the type itself.
pub fn element_type(types: &TypeTable, ty: Ty) -> Ty {
    match types.get(ty) {
        TypeData::Array(_, elem) => element_type(types, *elem),
        _ => ty,
    }
}

fn arg_column(
    types: &TypeTable,
    ty: Ty,
    spec: &ArgValue,
    width: usize,
    global_ptr: &dyn Fn(GlobalId) -> Val,
    module: &Module,
) -> Result<Vec<Val>, String> {
    if let Some(values) = spec.range_values() {
        let values = values?;
        if values.len() != width {
            return Err(format!(
                "the range gives {} values for {width} lanes (A..B excludes B, A..=B includes it)",
                values.len()
            ));
        }
        return values
            .iter()
            .map(|s| scalar_to_val(types, ty, s, global_ptr, module))
            .collect();
    }
    match spec {
        ArgValue::Uniform(s) => Ok(vec![
            scalar_to_val(types, ty, s, global_ptr, module)?;
            width
        ]),
        ArgValue::PerLane(values) => {
            if values.len() != width {
                return Err(format!(
                    "{} values given for {width} lanes (give one value, or exactly W)",
                    values.len()
                ));
            }
            values
                .iter()
                .map(|s| scalar_to_val(types, ty, s, global_ptr, module))
                .collect()
        }
    }
}

/// Converts a written scalar to a lane value of type `ty`.
pub fn scalar_to_val(
    types: &TypeTable,
    ty: Ty,
    s: &Scalar,
    global_ptr: &dyn Fn(GlobalId) -> Val,
    module: &Module,
) -> Result<Val, String> {
    if s.is_undef() {
        return Ok(Val::Undef);
    }
    match types.get(ty) {
        TypeData::Int(w) => {
            let w = *w;
            let big: BigInt = match s {
                Scalar::Bool(b) if w != 1 => return Err(format!("{b} is not an integer (i{w})")),
                _ => s.integer()?,
            };
            check_int_range(&big, w)?;
            let modulus = BigUint::from(1u8) << w;
            let bits = match big.sign() {
                Sign::Minus => {
                    let mag = big.magnitude() % &modulus;
                    (&modulus - mag) % &modulus
                }
                _ => wrap_biguint(w, big.magnitude()),
            };
            Ok(Val::from_biguint(w, bits))
        }
        TypeData::F32 | TypeData::F64 => {
            let f = s.float()?;
            Ok(if matches!(types.get(ty), TypeData::F32) {
                Val::F32((f as f32).to_bits())
            } else {
                Val::F64(f.to_bits())
            })
        }
        TypeData::F16 | TypeData::BF16 => {
            use pllvm_semantics::half::{Small, round_f64};
            let small = if matches!(types.get(ty), TypeData::F16) {
                Small::Half
            } else {
                Small::BFloat
            };
            // The nearest value (ties to even), as `fptrunc double` would give.
            Ok(small.val(round_f64(small, s.float()?)))
        }
        TypeData::Ptr(_) => match s {
            Scalar::Text(t) if t == "null" => Ok(Val::Ptr(Pointer {
                object: None,
                offset: 0,
            })),
            Scalar::Text(t) if t.starts_with('@') => {
                let (name, off) = match t[1..].split_once('+') {
                    Some((n, o)) => (
                        n.trim(),
                        integer_text(o)
                            .and_then(|o| u64::try_from(o).ok())
                            .ok_or_else(|| format!("bad offset in '{t}'"))?,
                    ),
                    None => (&t[1..], 0),
                };
                let (g, data) = module
                    .globals
                    .iter()
                    .find(|(_, d)| d.name == name)
                    .ok_or_else(|| format!("no global @{name}"))?;
                // A pointer may point one past its object (as LLVM's inbounds
                // allows), never further: such an argument is a mistake of the
                // input, not a ⊤ to find later.
                let size = types.size_of(data.ty);
                if off > size {
                    return Err(format!(
                        "'{t}' points past the end of @{name} ({size} byte{})",
                        if size == 1 { "" } else { "s" }
                    ));
                }
                match global_ptr(g) {
                    Val::Ptr(p) => Ok(Val::Ptr(Pointer {
                        object: p.object,
                        offset: p.offset + off,
                    })),
                    other => Ok(other),
                }
            }
            Scalar::Int(i) => Ok(Val::Ptr(Pointer::from_address(*i as u64))),
            Scalar::UInt(u) => Ok(Val::Ptr(Pointer::from_address(*u))),
            Scalar::Text(t) if integer_text(t).is_some() => {
                let address = integer_text(t)
                    .and_then(|a| u64::try_from(a).ok())
                    .ok_or_else(|| format!("'{t}' is not a 64-bit address"))?;
                Ok(Val::Ptr(Pointer::from_address(address)))
            }
            other => Err(format!(
                "{other:?} is not a pointer (use @global[+offset] or null)"
            )),
        },
        _ => Err(format!("cannot pass a value of type {}", types.display(ty))),
    }
}

/// An argument of type `iN` is written signed or unsigned: it must lie in
/// `-2^(N-1) ..= 2^N - 1`. Anything else would be silently wrapped, which hides a
/// mistake of the input.
fn check_int_range(value: &BigInt, width: u32) -> Result<(), String> {
    let low = -(BigInt::from(1u8) << width.saturating_sub(1));
    let high = (BigInt::from(1u8) << width) - 1u8;
    if value < &low || value > &high {
        return Err(format!(
            "{value} does not fit i{width} (from {low} to {high})"
        ));
    }
    Ok(())
}
