//! Launches (docs/launch.md): a grid of N threads run as
//! ⌈N/W⌉ thread arrays of W lanes (warps, wavefronts), in parallel on the host's
//! cores, the way a GPU runs a kernel.
//!
//! - **Thread arrays.** Array `a` holds threads `a·W .. a·W + W'`, where W' = W
//!   except for the last array, which has the N mod W threads that are left (a
//!   thread array of fewer lanes, not a masked one: its horizontal builtins range
//!   over W' lanes). Each array is one run of the thesis's machine (Def. 3-5) with
//!   the scheduler of the run (lowest block index by default); a horizontal
//!   builtin (Fig. 4.15) ranges over one array, as on a GPU. Every step is
//!   checked against the greedy constraints of Ch. 5 unless the launch asks for
//!   the unchecked order [`sched::EARLIEST`] (see [`Grid::scheduler`]).
//! - **Work-groups.** Threads are grouped into work-groups of G threads (G a
//!   multiple of W; default: the whole grid is one group). `thread_id` and the
//!   GPU's `workitem.id.x` / `tid.x` give a thread's id within its group,
//!   `workgroup.id.x` / `ctaid.x` the group's id, `ntid.x` G
//!   ([`pllvm_semantics::theta::LaunchPosition`]). A parameter named with
//!   `lane_id` gets the thread's number in thread order instead.
//! - **Dimensions.** A launch of two or three dimensions ([`Grid::shaped`],
//!   [`LaunchDims`]) has work-groups of gx × gy × gz threads, and thread order
//!   is launch order: group by group (group x fastest), and within a group
//!   local x fastest, so a thread array holds W threads of one group in the
//!   order a GPU forms its warps. Every id and size of every dimension comes
//!   from the work-item functions and the targets' id registers; the x
//!   registers (`tid.x`, `ctaid.x`, `ntid.x`) are dimension 0's.
//! - **Arguments.** A uniform argument is the same in every thread; a list of N
//!   values or a range `A..B` of N values gives one value per thread (split
//!   among the arrays in thread order).
//! - **Address spaces.** Global memory (globals and buffers in any address
//!   space but 3) is the grid's, merged as below. Local memory
//!   ([`LOCAL_ADDRSPACE`]: OpenCL `__local`, CUDA `__shared__`; the objects of
//!   [`local_objects`]) is one object per work-group: ⊤ at the group's start,
//!   shared by the group's arrays, never merged nor raced across groups; the
//!   launch's final memory holds the last group's. Private memory (`alloca`)
//!   is per lane.
//! - **Work-groups of several arrays.** A group of G > W threads whose kernel
//!   calls a barrier or uses local memory runs its arrays together
//!   ([`crate::workgroup`]): in phases between barriers on one memory, races
//!   between its arrays within a phase reported with both sites
//!   ([`Launch::group_races`]), the groups in parallel, their memories merged
//!   in group order as the arrays' are below.
//! - **Memory.** The globals and buffers are shared by all arrays. The arrays run
//!   concurrently on the host, so each one runs on its own copy of the initial
//!   memory (copy-on-write: copies share bytes until written), and after the run
//!   the bytes each array changed are merged into one memory in array order:
//!   a later array's write wins. A byte changed by two arrays is a data race
//!   between thread arrays (no GPU orders them without atomics or barriers across
//!   the group): every such byte is reported ([`Race`]), with the values
//!   written, so the merge order never hides one. A write that leaves a byte as
//!   it was is not seen (the merge compares contents), and an array does not see
//!   what another wrote during the launch (it reads the initial contents, which
//!   is one of the results a racing GPU run can give).
//! - **Atomics.** A kernel with `atomicrmw` or `cmpxchg` runs its arrays one
//!   after another in array order on one memory instead (no copies, no merge),
//!   so atomics of different arrays act on one memory.
//! - **Results** are gathered in thread order, whatever order the arrays finish
//!   in, so a launch's output does not depend on `jobs`.
//! - **Time limit.** With [`Grid::time_limit`], the arrays running when it is
//!   over end with a `limit:` outcome ([`TIME_LIMIT`], as a single run's
//!   [`Machine::deadline`]) and the arrays not yet started are not started;
//!   the arrays that finished keep their results and their memory.

use crate::config::{ArgValue, RunConfig, Scalar};
use crate::greedy::GreedyFacts;
use crate::machine::{
    InitialMemory, Machine, Outcome, RunError, SetupError, SetupInput, TIME_LIMIT,
};
use crate::observe::DivergenceRecord;
use crate::run::run_with;
use crate::sched;
use crate::workgroup::{GroupRace, GroupSetting, PhaseAccesses, Split, run_group};
use pllvm_semantics::ir::{Block, FuncId, Module};
use pllvm_semantics::memory::{Byte, Memory, ObjectKind};
use pllvm_semantics::theta::{LaunchDims, LaunchPosition};
use pllvm_semantics::types::TypeData;
use pllvm_semantics::value::{ObjectId, Pointer};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The most threads one launch runs: 2^24 (a GPU grid of 16M threads).
pub const MAX_THREADS: u64 = 1 << 24;

/// The shape of a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    /// N, the threads of the grid (1 to [`MAX_THREADS`]).
    pub threads: u64,
    /// W, the lanes of a thread array (the `threads` of the run configuration).
    pub width: usize,
    /// G, the threads of a work-group (a multiple of W); `None`: the whole grid.
    pub group: Option<u64>,
    /// The shape of a launch of two or three dimensions ([`Grid::shaped`]);
    /// `None`: one dimension of N threads.
    pub dims: Option<LaunchDims>,
    /// Host threads that run arrays at once (at least 1).
    pub jobs: usize,
    /// The parameter that gets each thread's global id (`--lane-id NAME`).
    pub lane_id: Option<String>,
    /// The scheduler each array runs with: a built-in policy of
    /// [`sched::builtin`], every step checked against the greedy constraints of
    /// Ch. 5 ([`run_with`]); `None`: `lowest`, checked the same way (along its
    /// own lowest path, `crate::lowest_path::LowestPath`, so the §5.3 checks cost
    /// about a step per step). [`sched::EARLIEST`] opts out of the checks: the
    /// earliest pending block in layout order ([`Machine::run_earliest_pending`]),
    /// an order that is not always greedy, so its undefined outcomes may be the
    /// order's, not the program's (a barrier after a loop that some lanes left
    /// is reached by those lanes first).
    pub scheduler: Option<String>,
    /// Whether to keep the dynamic divergence record (costs time).
    pub divergence: bool,
    /// How long the launch may run (`--time`): an array running when it is
    /// over ends with the [`TIME_LIMIT`] outcome, and arrays not yet started
    /// are not started ([`ArrayRun::started`]); `None`: no time limit.
    pub time_limit: Option<std::time::Duration>,
}

impl Grid {
    /// N, G and the shape of a launch given per dimension, as `--grid
    /// X[,Y[,Z]]` and `--group x[,y[,z]]` give them (docs/launch.md):
    /// dimensions left out are 1, as in CUDA's `dim3`. One dimension is the
    /// launch of N = X threads in groups of G = x (the last group may be
    /// partial). With more, the groups are uniform, as CUDA's always are and
    /// OpenCL's are unless asked otherwise: every X is a multiple of its x.
    /// Without `group`, the whole grid is one work-group.
    pub fn shaped(
        grid: &[u64],
        group: Option<&[u64]>,
    ) -> Result<(u64, Option<u64>, Option<LaunchDims>), String> {
        let dims_of = |flag: &str, v: &[u64]| -> Result<[u64; 3], String> {
            let text = || v.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
            if v.is_empty() || v.len() > 3 {
                return Err(format!("{flag} {}: give one to three sizes", text()));
            }
            if v.contains(&0) {
                return Err(format!("{flag} {}: every size is at least 1", text()));
            }
            Ok(std::array::from_fn(|d| v.get(d).copied().unwrap_or(1)))
        };
        let extent = dims_of("--grid", grid)?;
        let local = group.map(|g| dims_of("--group", g)).transpose()?;
        let threads = extent
            .iter()
            .try_fold(1u64, |n, &x| n.checked_mul(x))
            .filter(|&n| n <= MAX_THREADS)
            .ok_or_else(|| format!("--grid: a grid has 1 to {MAX_THREADS} threads"))?;
        let one_dim = grid.len() == 1 && group.is_none_or(|g| g.len() == 1);
        if one_dim {
            return Ok((threads, group.map(|g| g[0]), None));
        }
        let local = local.unwrap_or(extent);
        for d in 0..3 {
            if !extent[d].is_multiple_of(local[d]) {
                return Err(format!(
                    "--grid/--group: in dimension {d} the grid's {} threads are not a multiple of the work-group's {} (a launch of several dimensions has whole work-groups)",
                    extent[d], local[d]
                ));
            }
        }
        let dims = LaunchDims {
            group: local,
            groups: std::array::from_fn(|d| extent[d] / local[d]),
        };
        Ok((threads, Some(local.iter().product()), Some(dims)))
    }

    /// Checks N, W, G and jobs; the message names the flag.
    pub fn check(&self) -> Result<(), String> {
        if self.threads == 0 || self.threads > MAX_THREADS {
            return Err(format!(
                "--grid {}: a grid has 1 to {MAX_THREADS} threads",
                self.threads
            ));
        }
        crate::config::check_width(self.width as u128)?;
        if let Some(g) = self.group
            && (g == 0 || !g.is_multiple_of(self.width as u64))
        {
            return Err(format!(
                "--group {g}: a work-group is a positive multiple of the thread array's {} lanes",
                self.width
            ));
        }
        if let Some(dims) = &self.dims {
            let group: u64 = dims.group.iter().product();
            let threads: u64 = (0..3).map(|d| dims.group[d] * dims.groups[d]).product();
            if self.group != Some(group) || self.threads != threads {
                return Err(format!(
                    "a launch shaped {:?} in groups of {:?} has {threads} threads in groups of {group}, not {} in groups of {:?} (build it with Grid::shaped)",
                    dims.groups, dims.group, self.threads, self.group
                ));
            }
        }
        if self.jobs == 0 {
            return Err("--jobs 0: at least one host thread runs the arrays".into());
        }
        if let Some(spec) = self.scheduler.as_deref().filter(|&s| s != sched::EARLIEST) {
            sched::builtin(spec).map(drop)?;
        }
        Ok(())
    }

    /// The number of thread arrays, ⌈N/W⌉.
    pub fn arrays(&self) -> usize {
        self.threads.div_ceil(self.width as u64) as usize
    }

    /// G: the group size (the whole grid when not given).
    pub fn group_size(&self) -> u64 {
        self.group.unwrap_or(self.threads)
    }

    /// Array `a`'s first thread and its lanes.
    pub fn array_threads(&self, a: usize) -> (u64, usize) {
        let first = a as u64 * self.width as u64;
        let lanes = (self.threads - first).min(self.width as u64) as usize;
        (first, lanes)
    }

    /// Array `a`'s place in the launch: its first thread's id within its
    /// work-group, the group and the group's size.
    pub fn position(&self, a: usize) -> LaunchPosition {
        let (first, _) = self.array_threads(a);
        let g = self.group_size();
        LaunchPosition {
            first_local_id: first % g,
            group: first / g,
            group_size: Some(g),
            grid_size: Some(self.threads),
            dims: self.dims,
        }
    }
}

/// What one thread array did.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayRun {
    /// Its index (0-based, in thread order).
    pub index: usize,
    /// Its first thread's global id.
    pub first_thread: u64,
    /// Its lanes (W, or fewer for the last array).
    pub lanes: usize,
    /// How its run ended.
    pub outcome: Outcome,
    /// Each lane's return value as [`Machine::result_lanes`] writes it.
    pub results: Vec<Option<String>>,
    /// Blocks it scheduled.
    pub steps: u64,
    /// Whether it ran: `false` for an array the time limit came before
    /// ([`Grid::time_limit`]), whose outcome is the [`TIME_LIMIT`] one.
    pub started: bool,
}

/// A byte written by two thread arrays of one launch (a data race between
/// arrays: see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct Race {
    /// The object: `@global` or the buffer's name.
    pub object: String,
    /// The byte's offset in it.
    pub offset: u64,
    /// The array that wrote it first in array order, and the byte it wrote
    /// (`None`: ⊤).
    pub first: (usize, Option<u8>),
    /// A later array that wrote it, and its byte (this one is kept).
    pub then: (usize, Option<u8>),
    /// Whether `first` and `then` are work-groups rather than thread arrays (a
    /// launch whose work-groups of several arrays run together,
    /// [`crate::workgroup`]).
    pub by_group: bool,
}

impl std::fmt::Display for Race {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let byte = |b: Option<u8>| b.map_or("⊤".to_string(), |b| format!("0x{b:02x}"));
        let unit = if self.by_group {
            "work-group"
        } else {
            "thread array"
        };
        write!(
            f,
            "{} byte {}: written by {unit} {} ({}) and by {unit} {} ({}, kept)",
            self.object,
            self.offset,
            self.first.0,
            byte(self.first.1),
            self.then.0,
            byte(self.then.1)
        )
    }
}

/// The most races a launch lists (the count is kept beyond).
pub const MAX_RACES_LISTED: usize = 100;

/// A finished launch.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The function run.
    pub func: FuncId,
    /// Every array, in thread order.
    pub arrays: Vec<ArrayRun>,
    /// The memory after the launch: the initial memory with every array's
    /// writes merged in array order.
    pub memory: Memory,
    /// Where the globals and buffers are in [`Launch::memory`].
    pub initial: InitialMemory,
    /// Bytes written by two arrays, the first [`MAX_RACES_LISTED`] of them.
    pub races: Vec<Race>,
    /// How many bytes were written by two arrays (also beyond the list).
    pub race_count: u64,
    /// How many of them two arrays wrote with different values (the result
    /// depends on the order of the arrays).
    pub conflicting_races: u64,
    /// Races within work-groups of several thread arrays: accesses of two
    /// arrays of one group to one byte between the same two barriers, at least
    /// one a write ([`crate::workgroup`]); the first [`MAX_RACES_LISTED`].
    pub group_races: Vec<GroupRace>,
    /// How many bytes raced within work-groups (also beyond the list).
    pub group_race_count: u64,
    /// Whether the work-groups ran as groups of several thread arrays that
    /// share memory and meet at barriers ([`crate::workgroup`]); otherwise
    /// every thread array ran apart.
    pub by_groups: bool,
    /// Warnings of the setup (missing inputs), once.
    pub warnings: Vec<String>,
    /// The merged divergence record (when asked for): an instruction diverged
    /// when it diverged within some array.
    pub divergence: Option<DivergenceRecord>,
    /// Whether the function returns a value.
    pub returns_value: bool,
}

impl Launch {
    /// The launch's outcome: the first array's (in thread order) that did not
    /// return, else returned.
    pub fn outcome(&self) -> Outcome {
        self.arrays
            .iter()
            .map(|a| &a.outcome)
            .find(|o| !matches!(o, Outcome::Returned))
            .cloned()
            .unwrap_or(Outcome::Returned)
    }

    /// Every thread's return value, in thread order.
    pub fn results(&self) -> Vec<Option<String>> {
        self.arrays
            .iter()
            .flat_map(|a| a.results.iter().cloned())
            .collect()
    }
}

/// Why a launch could not run.
#[derive(Clone, Debug, PartialEq)]
pub enum LaunchError {
    /// The inputs are wrong (setup of an array).
    Setup(SetupError),
    /// The machinery failed in an array (a stuck rule).
    Run {
        /// The array.
        array: usize,
        /// What failed.
        error: RunError,
    },
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchError::Setup(e) => write!(f, "{e}"),
            LaunchError::Run { array, error } => write!(f, "thread array {array}: {error}"),
        }
    }
}

impl std::error::Error for LaunchError {}

/// Runs `config`'s function as the launch `grid` describes (see the module
/// documentation). `config.threads` is ignored: W is `grid.width`.
pub fn launch(module: &Module, config: &RunConfig, grid: &Grid) -> Result<Launch, LaunchError> {
    launch_watched(module, config, grid, &|_| {})
}

/// [`launch`], calling `finished` with the number of thread arrays done so far
/// each time an array ends (from the worker that ran it): a front end's
/// progress (`pllvm run --grid` on a terminal, docs/launch.md).
pub fn launch_watched(
    module: &Module,
    config: &RunConfig,
    grid: &Grid,
    finished: &(dyn Fn(usize) + Sync),
) -> Result<Launch, LaunchError> {
    // The time limit counts from here; a limit beyond what the clock can
    // represent is no limit.
    let deadline = grid.time_limit.and_then(|t| Instant::now().checked_add(t));
    grid.check()
        .map_err(|e| LaunchError::Setup(SetupError::about(SetupInput::Threads, e)))?;
    let n = grid.threads as usize;
    // Arguments per thread: one value for all, or exactly N.
    let per_thread = arg_plans(config, n)?;
    let base_config = RunConfig {
        threads: grid.width,
        args: BTreeMap::new(),
        memory: BTreeMap::new(),
        buffers: BTreeMap::new(),
        schedule: None,
        observe: grid.divergence,
        ..config.clone_settings()
    };
    let mut initial = crate::machine::initial_memory(module, config).map_err(LaunchError::Setup)?;
    // The lane-id parameter must exist and not be given otherwise.
    if let Some(lane_id) = &grid.lane_id
        && (per_thread.contains_key(lane_id) || initial.buffers.contains_key(lane_id))
    {
        return Err(LaunchError::Setup(SetupError::about(
            SetupInput::Arg(lane_id.clone()),
            format!("--lane-id {lane_id}: the parameter is given a value already"),
        )));
    }
    // One machine of array 0 checks the whole setup (names, types) before the
    // workers start, and gives the facts every array's scheduler looks up.
    let array_config = |a: usize| -> RunConfig {
        let (first, lanes) = grid.array_threads(a);
        let mut c = RunConfig {
            threads: lanes,
            ..base_config.clone()
        };
        for (name, plan) in &per_thread {
            let v = match plan {
                ArgPlan::Uniform(s) => ArgValue::Uniform(s.clone()),
                ArgPlan::PerThread(all) => {
                    ArgValue::PerLane(all[first as usize..first as usize + lanes].to_vec())
                }
            };
            c.args.insert(name.clone(), v);
        }
        if let Some(lane_id) = &grid.lane_id {
            let ids = (first..first + lanes as u64)
                .map(|t| Scalar::Int(t as i64))
                .collect();
            c.args.insert(lane_id.clone(), ArgValue::PerLane(ids));
        }
        c
    };
    let first =
        Machine::with_memory(module, &array_config(0), &initial).map_err(LaunchError::Setup)?;
    let mut warnings = initial.warnings.clone();
    warnings.extend(first.warnings[initial.warnings.len()..].iter().cloned());
    let func = first.program.func;
    let returns_value = first.returns_value();
    let calls_barrier = first.calls_barrier();
    drop(first);
    // Local memory (addrspace(3)): one object per work-group, fresh (⊤) at the
    // group's start and never merged.
    let locals = local_objects(module, func, &initial);
    for (id, name) in &locals {
        let size = initial.mem.object(*id).map_or(0, |o| o.size());
        let ptr = Pointer {
            object: Some(*id),
            offset: 0,
        };
        initial
            .mem
            .fill_bytes(ptr, size, Byte::Uninit)
            .map_err(|e| LaunchError::Setup(SetupError::new(format!("{name}: {e}"))))?;
    }
    // Work-groups of several arrays run together when their arrays can meet
    // (a barrier) or share local memory; otherwise every array runs apart.
    let by_groups = (calls_barrier || !locals.is_empty()) && grid.group_size() > grid.width as u64;
    let split = if by_groups && calls_barrier {
        Some(
            crate::workgroup::split_at_barriers(module, func)
                .map_err(|e| LaunchError::Setup(SetupError::new(e)))?,
        )
    } else {
        None
    };
    let run_module = split.as_ref().map_or(module, |s| &s.module);
    let first =
        Machine::with_memory(run_module, &array_config(0), &initial).map_err(LaunchError::Setup)?;
    let facts = GreedyFacts::compute(&first.program)
        .with_interp(config.interp)
        .with_exec(config.exec);
    drop(first);
    let arrays = grid.arrays();
    let in_order = uses_atomics(module, func);
    let whole = (func, returns_value, warnings);
    if by_groups {
        let mut launched = launch_by_groups(
            run_module,
            (grid, deadline, finished),
            &array_config,
            (&initial, &locals),
            &facts,
            (split.as_ref(), in_order),
            whole,
        )?;
        if let Some(split) = &split {
            to_original(split, &mut launched);
        }
        return Ok(launched);
    }
    if in_order {
        return launch_in_order(
            module,
            (grid, deadline, finished),
            &array_config,
            (initial, &locals),
            &facts,
            whole,
        );
    }
    let (func, returns_value, warnings) = whole;
    let slots = run_arrays(
        module,
        (grid, deadline, finished),
        &array_config,
        &initial,
        &facts,
    );
    let mut runs = Vec::with_capacity(arrays);
    let mut merge = Merge::new(module, &initial, &locals, false);
    let mut divergence: Option<DivergenceRecord> = None;
    for (a, slot) in slots.into_iter().enumerate() {
        // A missing slot is an array no worker started: the time limit came
        // first, or it follows a failed array (workers stop handing out
        // arrays then; the failure comes later in array order, and is
        // returned below).
        let Some(result) = slot else {
            runs.push(not_started(grid, a));
            continue;
        };
        let (run, mem, record) = result?;
        merge.add(run.index, &mem);
        if let Some(r) = record {
            merge_divergence(module, func, &mut divergence, r);
        }
        runs.push(run);
    }
    Ok(Launch {
        func,
        arrays: runs,
        memory: merge.memory,
        initial,
        races: merge.races,
        race_count: merge.race_count,
        conflicting_races: merge.conflicting,
        group_races: Vec::new(),
        group_race_count: 0,
        by_groups: false,
        warnings,
        divergence,
        returns_value,
    })
}

/// The local memory of a launch of `func` (docs/launch.md, "Address spaces"):
/// the objects of the globals in `addrspace(3)` (OpenCL `__local`, CUDA
/// `__shared__`) and of the buffers bound to `ptr addrspace(3)` parameters,
/// with their names.
pub fn local_objects(
    module: &Module,
    func: FuncId,
    initial: &InitialMemory,
) -> Vec<(ObjectId, String)> {
    let mut locals = Vec::new();
    for (g, data) in module.globals.iter() {
        if data.addrspace == LOCAL_ADDRSPACE
            && let Some(Pointer {
                object: Some(id), ..
            }) = initial.global_pointer(g)
        {
            locals.push((id, format!("@{}", data.name)));
        }
    }
    let fdata = &module.functions[func];
    let body = fdata.body.as_ref();
    for (name, ptr) in &initial.buffers {
        let param = fdata.params.iter().enumerate().find(|(n, p)| {
            n.to_string() == *name
                || body.and_then(|b| b.value_name(p.value)) == Some(name.as_str())
        });
        if let (Some((_, p)), Some(id)) = (param, ptr.object)
            && matches!(module.types.get(p.ty), TypeData::Ptr(LOCAL_ADDRSPACE))
        {
            locals.push((id, name.clone()));
        }
    }
    locals
}

/// The address space of local memory on the GPU targets (amdgcn's LDS,
/// nvptx's shared memory; clang's OpenCL `__local` on both).
pub const LOCAL_ADDRSPACE: u32 = 3;

/// Maps the blocks of a launch run on `split` back to the blocks of `module`,
/// the module the launch was given: the outcomes' blocks and the divergence
/// record.
fn to_original(split: &Split, launched: &mut Launch) {
    for run in &mut launched.arrays {
        if let Outcome::Undefined(ub) = &mut run.outcome {
            ub.block = split.original(ub.block);
        }
    }
    let Some(record) = launched.divergence.as_mut() else {
        return;
    };
    // A cut block's tail holds its terminator, so its branch is the block's;
    // the activation of either part is the block's. The tails' own entries stay
    // (no block of `module` has their keys).
    for (b, origin) in split.origin.iter() {
        if let Some(o) = *origin
            && o != b
        {
            record.branches[o] = record.branches[b];
            record.activation[o] |= record.activation[b];
        }
    }
}

/// The arguments of a launch of `n` threads, from `config`: one value for all
/// threads, or exactly `n`.
fn arg_plans(config: &RunConfig, n: usize) -> Result<BTreeMap<String, ArgPlan>, LaunchError> {
    let mut per_thread: BTreeMap<String, ArgPlan> = BTreeMap::new();
    for (name, value) in &config.args {
        let about =
            |m: String| LaunchError::Setup(SetupError::about(SetupInput::Arg(name.clone()), m));
        let plan = match (value.range_values(), value) {
            (Some(values), _) => ArgPlan::PerThread(values.map_err(about)?),
            (None, ArgValue::PerLane(values)) => ArgPlan::PerThread(values.clone()),
            (None, ArgValue::Uniform(s)) => ArgPlan::Uniform(s.clone()),
        };
        if let ArgPlan::PerThread(values) = &plan
            && values.len() != n
        {
            return Err(about(format!(
                "argument %{name}: {} values given for {n} threads (give one value, or one per thread)",
                values.len()
            )));
        }
        per_thread.insert(name.clone(), plan);
    }
    Ok(per_thread)
}

/// What one thread array's run gives: the run, its memory, its divergence.
type Finished = (ArrayRun, Memory, Option<DivergenceRecord>);

/// A thread array the time limit came before: no run, its lanes without
/// results.
fn not_started(grid: &Grid, a: usize) -> ArrayRun {
    let (first_thread, lanes) = grid.array_threads(a);
    ArrayRun {
        index: a,
        first_thread,
        lanes,
        outcome: Outcome::Limit(TIME_LIMIT.to_string()),
        results: vec![None; lanes],
        steps: 0,
        started: false,
    }
}

/// What the runs of a launch share: the grid, the deadline of its time limit,
/// and the progress callback of [`launch_watched`].
type Watch<'a> = (&'a Grid, Option<Instant>, &'a (dyn Fn(usize) + Sync));

/// Runs every thread array of `grid` apart, on `grid.jobs` workers, each from
/// `initial`; the result of each array by index (`None` for arrays not run
/// once one failed or the deadline passed).
fn run_arrays(
    module: &Module,
    (grid, deadline, finished): Watch<'_>,
    array_config: &(dyn Fn(usize) -> RunConfig + Sync),
    initial: &InitialMemory,
    facts: &GreedyFacts,
) -> Vec<Option<Result<Finished, LaunchError>>> {
    on_workers(
        grid.arrays(),
        grid.jobs,
        deadline,
        facts,
        &|a, facts| {
            run_array(
                module,
                &array_config(a),
                (grid, deadline),
                a,
                initial,
                facts,
            )
        },
        finished,
    )
}

/// Runs `work(i)` for every `i` in `0..count` on `jobs` host threads, each
/// taking the next index from a shared counter, and gives the results by
/// index (`None` for an index not run). No index starts once the deadline
/// has passed or once a run failed (the launch fails anyway). `ended` hears
/// how many runs have ended, after each. The facts keep a cache that is not
/// shared between threads: each worker has its own copy.
fn on_workers<T: Send>(
    count: usize,
    jobs: usize,
    deadline: Option<Instant>,
    facts: &GreedyFacts,
    work: &(dyn Fn(usize, &GreedyFacts) -> Result<T, LaunchError> + Sync),
    ended: &(dyn Fn(usize) + Sync),
) -> Vec<Option<Result<T, LaunchError>>> {
    let next = AtomicUsize::new(0);
    let ended_count = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Result<T, LaunchError>>>> =
        Mutex::new((0..count).map(|_| None).collect());
    let worker = |facts: GreedyFacts| {
        loop {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                next.store(count, Ordering::Relaxed);
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= count {
                return;
            }
            let result = work(i, &facts);
            let failed = result.is_err();
            if let Ok(mut slots) = done.lock() {
                slots[i] = Some(result);
            }
            ended(ended_count.fetch_add(1, Ordering::Relaxed) + 1);
            if failed {
                next.store(count, Ordering::Relaxed);
            }
        }
    };
    let jobs = jobs.min(count).max(1);
    let worker = &worker;
    std::thread::scope(|scope| {
        for _ in 1..jobs {
            let facts = facts.clone();
            scope.spawn(move || worker(facts));
        }
        worker(facts.clone());
    });
    done.into_inner().unwrap_or_else(|p| p.into_inner())
}

/// Whether `func` has an `atomicrmw` or `cmpxchg`: thread arrays then communicate
/// through memory within the launch, and run one after another.
pub fn uses_atomics(module: &Module, func: FuncId) -> bool {
    module.functions[func].body.as_ref().is_some_and(|body| {
        body.insts.values().any(|i| {
            matches!(
                i.kind,
                pllvm_semantics::ir::InstKind::AtomicRmw { .. }
                    | pllvm_semantics::ir::InstKind::CmpXchg { .. }
            )
        })
    })
}

/// A launch of a kernel with atomics: the thread arrays run one after another in
/// array order, each on the memory the previous one left, so that atomics of
/// different arrays act on one memory (a histogram over the whole grid adds up).
/// This extends the lock-step reading of [W-INST-ATOMICRMW] (lanes in lane
/// order) to arrays in array order; there is no merge and no race report, and
/// `jobs` is not used (the order is the definition).
fn launch_in_order(
    module: &Module,
    (grid, deadline, finished): Watch<'_>,
    array_config: &dyn Fn(usize) -> RunConfig,
    (initial, locals): (InitialMemory, &[(ObjectId, String)]),
    facts: &GreedyFacts,
    (func, returns_value, warnings): (FuncId, bool, Vec<String>),
) -> Result<Launch, LaunchError> {
    let mut current = initial.clone();
    let mut runs = Vec::with_capacity(grid.arrays());
    let mut divergence: Option<DivergenceRecord> = None;
    for a in 0..grid.arrays() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            runs.push(not_started(grid, a));
            continue;
        }
        if grid.position(a).first_local_id == 0 {
            // A new work-group: its local memory starts afresh.
            fresh_locals(&mut current.mem, locals);
        }
        let (run, mem, record) = run_array(
            module,
            &array_config(a),
            (grid, deadline),
            a,
            &current,
            facts,
        )?;
        finished(a + 1);
        current.mem = mem;
        if let Some(r) = record {
            merge_divergence(module, func, &mut divergence, r);
        }
        runs.push(run);
    }
    Ok(Launch {
        func,
        arrays: runs,
        memory: current.mem,
        initial,
        races: Vec::new(),
        race_count: 0,
        conflicting_races: 0,
        group_races: Vec::new(),
        group_race_count: 0,
        by_groups: false,
        warnings,
        divergence,
        returns_value,
    })
}

/// Sets every local object of `mem` to ⊤: the local memory of a new
/// work-group (docs/launch.md, "Address spaces").
fn fresh_locals(mem: &mut Memory, locals: &[(ObjectId, String)]) {
    for (id, _) in locals {
        let size = mem.object(*id).map_or(0, |o| o.size());
        let ptr = Pointer {
            object: Some(*id),
            offset: 0,
        };
        // A local object is live and writable (checked when the launch began).
        let _ = mem.fill_bytes(ptr, size, Byte::Uninit);
    }
}

/// The thread arrays of work-group `g`: `a..b`.
fn group_arrays(grid: &Grid, g: usize) -> std::ops::Range<usize> {
    let per_group = (grid.group_size() / grid.width as u64) as usize;
    let start = g * per_group;
    start..(start + per_group).min(grid.arrays())
}

/// What one work-group's run gives: its arrays' runs and divergence records,
/// its memory, and the races within it (the listed ones and the count; the
/// byte table of the last phase is dropped with the group).
struct GroupDone {
    arrays: Vec<(ArrayRun, Option<DivergenceRecord>)>,
    memory: Memory,
    races: Vec<GroupRace>,
    race_count: u64,
}

/// Runs work-group `g` on `memory` ([`run_group`]).
fn run_one_group(
    module: &Module,
    (grid, deadline): (&Grid, Option<Instant>),
    array_config: &dyn Fn(usize) -> RunConfig,
    (initial, memory): (&InitialMemory, Memory),
    facts: &GreedyFacts,
    (g, split): (usize, Option<&Split>),
) -> Result<GroupDone, LaunchError> {
    let range = group_arrays(grid, g);
    let mut machines = Vec::with_capacity(range.len());
    for a in range.clone() {
        let mut machine =
            Machine::with_memory(module, &array_config(a), initial).map_err(LaunchError::Setup)?;
        machine.program.launch = grid.position(a);
        machine.record_trace = false;
        machine.deadline = deadline;
        machines.push(machine);
    }
    let original = |b: Block| split.map_or(b, |s| s.original(b));
    let setting = GroupSetting {
        group: g as u64,
        first_array: range.start,
        scheduler: grid.scheduler.as_deref(),
        facts,
        original: &original,
    };
    let mut accesses = PhaseAccesses::new(MAX_RACES_LISTED);
    let ran = run_group(&mut machines, &setting, memory, &mut accesses)
        .map_err(|(array, error)| LaunchError::Run { array, error })?;
    let arrays = machines
        .iter()
        .zip(ran.outcomes)
        .zip(range)
        .map(|((machine, outcome), a)| {
            let (first_thread, lanes) = grid.array_threads(a);
            let results = if machine.returns_value() {
                machine.result_lanes()
            } else {
                vec![None; lanes]
            };
            let run = ArrayRun {
                index: a,
                first_thread,
                lanes,
                outcome,
                results,
                steps: machine.steps,
                started: true,
            };
            (run, grid.divergence.then(|| machine.divergence.clone()))
        })
        .collect();
    Ok(GroupDone {
        arrays,
        memory: ran.memory,
        races: accesses.races,
        race_count: accesses.race_count,
    })
}

/// A launch whose work-groups of several thread arrays run together
/// ([`crate::workgroup`]): each group in phases on one memory of its own
/// (a copy of the initial memory, local objects ⊤), the groups on `grid.jobs`
/// workers, their memories merged in group order as the arrays' are in a
/// launch of arrays apart (a byte two groups changed is a race between
/// work-groups). With `in_order` (atomics) the groups run one after another,
/// each on the memory the previous one left with its local objects ⊤.
fn launch_by_groups(
    module: &Module,
    (grid, deadline, finished): Watch<'_>,
    array_config: &(dyn Fn(usize) -> RunConfig + Sync),
    (initial, locals): (&InitialMemory, &[(ObjectId, String)]),
    facts: &GreedyFacts,
    (split, in_order): (Option<&Split>, bool),
    (func, returns_value, warnings): (FuncId, bool, Vec<String>),
) -> Result<Launch, LaunchError> {
    let groups = grid
        .arrays()
        .div_ceil((grid.group_size() / grid.width as u64) as usize);
    let ended = AtomicUsize::new(0);
    let run = |g: usize, memory: Memory, facts: &GreedyFacts| {
        let done = run_one_group(
            module,
            (grid, deadline),
            array_config,
            (initial, memory),
            facts,
            (g, split),
        );
        let n = group_arrays(grid, g).len();
        finished(ended.fetch_add(n, Ordering::Relaxed) + n);
        done
    };
    let mut slots: Vec<Option<Result<GroupDone, LaunchError>>> = Vec::with_capacity(groups);
    if in_order {
        let mut current = initial.mem.clone();
        for g in 0..groups {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                slots.push(None);
                continue;
            }
            fresh_locals(&mut current, locals);
            let done = run(g, current.clone(), facts);
            if let Ok(d) = &done {
                current = d.memory.clone();
            }
            let failed = done.is_err();
            slots.push(Some(done));
            if failed {
                break;
            }
        }
        slots.resize_with(groups, || None);
    } else {
        slots = on_workers(
            groups,
            grid.jobs,
            deadline,
            facts,
            &|g, facts| run(g, initial.mem.clone(), facts),
            &|_| {},
        );
    }
    let mut runs = Vec::with_capacity(grid.arrays());
    let mut merge = Merge::new(module, initial, locals, true);
    let mut divergence: Option<DivergenceRecord> = None;
    let mut group_races = Vec::new();
    let mut group_race_count = 0;
    let mut last_memory = None;
    for (g, slot) in slots.into_iter().enumerate() {
        let Some(result) = slot else {
            runs.extend(group_arrays(grid, g).map(|a| not_started(grid, a)));
            continue;
        };
        let done = result?;
        if in_order {
            last_memory = Some(done.memory);
        } else {
            merge.add(g, &done.memory);
        }
        group_race_count += done.race_count;
        for race in done.races {
            if group_races.len() < MAX_RACES_LISTED {
                group_races.push(race);
            }
        }
        for (run, record) in done.arrays {
            if let Some(r) = record {
                merge_divergence(module, func, &mut divergence, r);
            }
            runs.push(run);
        }
    }
    Ok(Launch {
        func,
        arrays: runs,
        memory: last_memory.unwrap_or(merge.memory),
        initial: initial.clone(),
        races: merge.races,
        race_count: merge.race_count,
        conflicting_races: merge.conflicting,
        group_races,
        group_race_count,
        by_groups: true,
        warnings,
        divergence,
        returns_value,
    })
}

/// An argument of a launch: the same in every thread, or one value per thread.
enum ArgPlan {
    Uniform(Scalar),
    PerThread(Vec<Scalar>),
}

impl RunConfig {
    /// This configuration without its inputs (arguments, memory, buffers):
    /// what every thread array of a launch shares.
    fn clone_settings(&self) -> RunConfig {
        RunConfig {
            args: BTreeMap::new(),
            memory: BTreeMap::new(),
            buffers: BTreeMap::new(),
            schedule: self.schedule.clone(),
            function: self.function.clone(),
            ..*self
        }
    }
}

/// Runs thread array `a` on a copy of the initial memory.
fn run_array(
    module: &Module,
    config: &RunConfig,
    (grid, deadline): (&Grid, Option<Instant>),
    a: usize,
    initial: &InitialMemory,
    facts: &GreedyFacts,
) -> Result<(ArrayRun, Memory, Option<DivergenceRecord>), LaunchError> {
    let mut machine = Machine::with_memory(module, config, initial).map_err(LaunchError::Setup)?;
    machine.program.launch = grid.position(a);
    machine.record_trace = false;
    machine.deadline = deadline;
    let outcome = match grid.scheduler.as_deref() {
        Some(sched::EARLIEST) => machine
            .run_earliest_pending()
            .map_err(|error| LaunchError::Run { array: a, error })?,
        spec => {
            let mut policy: Box<dyn sched::Scheduler> = match spec {
                Some(spec) => sched::builtin(spec).map_err(|e| {
                    LaunchError::Setup(SetupError::new(format!("--sched {spec}: {e}")))
                })?,
                None => Box::new(sched::Lowest),
            };
            run_with(&mut machine, facts, policy.as_mut())
                .map_err(|error| LaunchError::Run { array: a, error })?
                .outcome
        }
    };
    let (first_thread, lanes) = grid.array_threads(a);
    let results = if machine.returns_value() {
        machine.result_lanes()
    } else {
        vec![None; lanes]
    };
    let record = grid.divergence.then(|| machine.divergence.clone());
    let steps = machine.steps;
    Ok((
        ArrayRun {
            index: a,
            first_thread,
            lanes,
            outcome,
            results,
            steps,
            started: true,
        },
        machine.state.mem,
        record,
    ))
}

/// Folds `more` into `into` (the first record, when there is none yet): counts
/// add up, divergence is "in some array".
fn merge_divergence(
    module: &Module,
    func: FuncId,
    into: &mut Option<DivergenceRecord>,
    more: DivergenceRecord,
) {
    let Some(into) = into.as_mut() else {
        *into = Some(more);
        return;
    };
    let Some(body) = module.functions[func].body.as_ref() else {
        return;
    };
    for i in body.insts.keys() {
        let o = more.insts[i];
        into.insts[i].instances += o.instances;
        into.insts[i].diverged |= o.diverged;
        into.objects[i] |= more.objects[i];
    }
    for b in body.blocks.keys() {
        let o = more.branches[b];
        into.branches[b].instances += o.instances;
        into.branches[b].diverged |= o.diverged;
        into.activation[b] |= more.activation[b];
    }
    into.steps += more.steps;
}

/// The merge of the arrays' memories in array order (module documentation).
struct Merge {
    /// The merged memory.
    memory: Memory,
    /// The initial memory (to see what an array changed).
    initial: Memory,
    /// The shared objects: globals and buffers, with their names (local
    /// objects excluded).
    shared: Vec<(ObjectId, String)>,
    /// The local objects: never merged; the merged memory keeps the last
    /// unit's (docs/launch.md, "Address spaces").
    locals: Vec<ObjectId>,
    /// Whether the units merged are work-groups (else thread arrays).
    by_group: bool,
    /// Who wrote each byte so far: (object, offset) → (array, byte).
    writers: BTreeMap<(ObjectId, u64), (usize, Byte)>,
    races: Vec<Race>,
    race_count: u64,
    conflicting: u64,
}

/// Bytes compared at once: the chunk size of the memory's byte store (4096), so
/// untouched chunks (shared with the initial memory) compare by pointer.
const MERGE_CHUNK: u64 = 4096;

impl Merge {
    fn new(
        module: &Module,
        initial: &InitialMemory,
        locals: &[(ObjectId, String)],
        by_group: bool,
    ) -> Merge {
        let locals: Vec<ObjectId> = locals.iter().map(|(id, _)| *id).collect();
        let mut shared = Vec::new();
        for g in module.globals.keys() {
            if let Some(Pointer {
                object: Some(id), ..
            }) = initial.global_pointer(g)
            {
                shared.push((id, format!("@{}", module.globals[g].name)));
            }
        }
        for (name, ptr) in &initial.buffers {
            if let Some(id) = ptr.object {
                shared.push((id, name.clone()));
            }
        }
        shared.retain(|(id, _)| !locals.contains(id));
        Merge {
            memory: initial.mem.clone(),
            initial: initial.mem.clone(),
            shared,
            locals,
            by_group,
            writers: BTreeMap::new(),
            races: Vec::new(),
            race_count: 0,
            conflicting: 0,
        }
    }

    /// Merges unit `a`'s final memory `mem` (an array's, or a work-group's).
    fn add(&mut self, a: usize, mem: &Memory) {
        for id in &self.locals {
            let ptr = Pointer {
                object: Some(*id),
                offset: 0,
            };
            let size = mem.object(*id).map_or(0, |o| o.size());
            if let Ok(bytes) = mem.read_bytes(ptr, size) {
                let _ = self.memory.write_bytes(ptr, &bytes);
            }
        }
        for (id, name) in &self.shared {
            let (Some(before), Some(after)) = (self.initial.object(*id), mem.object(*id)) else {
                continue;
            };
            if matches!(after.kind, ObjectKind::Alloca { .. }) || before.size() != after.size() {
                continue;
            }
            let size = before.size();
            let mut at = 0;
            while at < size {
                let n = MERGE_CHUNK.min(size - at);
                if before.bytes.slice(at, n) != after.bytes.slice(at, n) {
                    for offset in at..at + n {
                        let new = after.bytes.get(offset);
                        if new == before.bytes.get(offset) {
                            continue;
                        }
                        if let Some(&(first, old)) = self.writers.get(&(*id, offset)) {
                            self.race_count += 1;
                            if old != new {
                                self.conflicting += 1;
                            }
                            if self.races.len() < MAX_RACES_LISTED {
                                self.races.push(Race {
                                    object: name.clone(),
                                    offset,
                                    first: (first, old.bits()),
                                    then: (a, new.bits()),
                                    by_group: self.by_group,
                                });
                            }
                        }
                        self.writers.insert((*id, offset), (a, new));
                        let ptr = Pointer {
                            object: Some(*id),
                            offset,
                        };
                        // Only writable objects can have changed (a store to a
                        // constant is undefined behaviour, which ended that run).
                        let _ = self.memory.write_bytes(ptr, &[new]);
                    }
                }
                at += n;
            }
        }
    }
}
