//! What the generator is asked for and what it gives back: the configuration
//! ([`GenConfig`]), the kernel's parameters ([`ArgSpec`], [`BufferSpec`]), the
//! program with its inputs ([`Generated`]) and what it contains ([`Stats`]).
//! The builder reads the configuration and fills these in; the property tests
//! and the fuzzing oracles read them.

use pllvm_semantics::ir::{FuncId, Module};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What to generate: size limits and feature switches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// Most blocks of the function (a soft limit; the entry and the final block
    /// always exist).
    pub max_blocks: usize,
    /// Deepest nest of cycles (natural loops and irreducible regions).
    pub max_loop_depth: usize,
    /// Largest trip count bound `K` of a counter test (at least 1).
    pub max_trip_count: u32,
    /// Most commands a run of straight-line code adds to one block.
    pub max_insts_per_block: usize,
    /// Most cases of a `switch`.
    pub max_switch_cases: usize,
    /// Lanes whose stores are disjoint: each written buffer has one slice per lane
    /// for this many lanes (a power of two).
    pub max_threads: u32,
    /// Elements of a lane's slice of a written buffer, and of an alloca (power of two).
    pub slice_len: u32,
    /// Irreducible two-entry cycles.
    pub irreducible: bool,
    /// `switch` terminators.
    pub switches: bool,
    /// Block predicates (Def. 7, Def. 11.1).
    pub predicates: bool,
    /// Block predicates defined by a `total` compare at the head of the predicated
    /// block itself (the second case of Def. 11.1); without it predicates come
    /// from dominating blocks only.
    pub self_predicates: bool,
    /// Phis with a `shadow` operand (§4.8).
    pub shadow_phis: bool,
    /// The `total` modifier on pure commands ([W-CMD-TOTAL]).
    pub total: bool,
    /// `mask()` ([W-CMD-MASK]).
    pub mask: bool,
    /// The horizontal builtins `@pllvm.any`, `@pllvm.all`, `@pllvm.popcount`,
    /// `@pllvm.ballot` (Fig. 4.15).
    pub horizontal: bool,
    /// Global buffers, allocas, loads (gathers) and stores (scatters).
    pub memory: bool,
    /// `float` and `double` values.
    pub floats: bool,
    /// Integer widths above 64 (up to 128).
    pub wide_ints: bool,
    /// Lane-local programs: the thread id is the parameter `%tid`, no `mask()` and
    /// no horizontal builtins (whatever the two switches above say), and no value a
    /// passive execution can change escapes its block (see the module doc).
    pub lane_local: bool,
    /// Predicated blocks that end in `br c, %then, %join` with `%then -> %join` (an
    /// if-then whose branch block is predicated): lanes whose predicate is false
    /// leave it with ℓ_next = ⊤ and accept both `%then` and `%join` (Def. 6), the
    /// case of Def. 17 that semantics/RULES.md, "Readings", 3 decides. Without it
    /// a predicated block ends in an unconditional `br`.
    pub predicated_branches: bool,
    /// Loads from a written buffer read only the lane's own slice, as in
    /// lane-local programs: no lane reads what another lane writes, so the order
    /// in which divergent paths run does not show in memory.
    pub own_slice_reads: bool,
    /// Buffers indexed the way clang indexes `a[i]` by the thread id, the accesses
    /// the native backend makes contiguous: the written buffers' slices are
    /// interleaved (lane `l`'s element `k` at `l + k·lanes`, not `l·slice + k`)
    /// and some loads from a read-only buffer read `zext(tid) & (len - 1)`.
    pub thread_indexed: bool,
}

impl GenConfig {
    /// Small programs with every feature: quick to run, easy to read.
    pub fn small() -> Self {
        GenConfig {
            max_blocks: 14,
            max_loop_depth: 2,
            max_trip_count: 3,
            max_insts_per_block: 3,
            max_switch_cases: 3,
            max_threads: 8,
            slice_len: 4,
            irreducible: true,
            switches: true,
            predicates: true,
            self_predicates: true,
            shadow_phis: true,
            total: true,
            mask: true,
            horizontal: true,
            memory: true,
            floats: true,
            wide_ints: true,
            lane_local: false,
            predicated_branches: false,
            own_slice_reads: false,
            thread_indexed: false,
        }
    }

    /// Small loop-free programs (no loops, no irreducible cycles) whose greedy
    /// schedules (Def. 12) all give one outcome: predicated blocks may branch
    /// ([`GenConfig::predicated_branches`]) and lanes read only their own slices of
    /// written buffers ([`GenConfig::own_slice_reads`]), so no data race makes two
    /// orders of divergent paths differ. Every other feature of
    /// [`GenConfig::small`] stays.
    pub fn acyclic() -> Self {
        GenConfig {
            max_loop_depth: 0,
            irreducible: false,
            predicated_branches: true,
            own_slice_reads: true,
            ..GenConfig::small()
        }
    }

    /// Larger programs with every feature.
    pub fn full() -> Self {
        GenConfig {
            max_blocks: 40,
            max_loop_depth: 3,
            max_trip_count: 4,
            max_insts_per_block: 5,
            max_switch_cases: 4,
            ..GenConfig::small()
        }
    }

    /// Programs whose FR lock-step run equals independent runs of the lanes: no
    /// horizontal builtins, no `mask()`, the thread id as the argument `%tid`.
    pub fn lane_local() -> Self {
        GenConfig {
            max_blocks: 24,
            max_loop_depth: 2,
            mask: false,
            horizontal: false,
            lane_local: true,
            ..GenConfig::full()
        }
    }

    /// Every feature except irreducible cycles.
    pub fn reducible() -> Self {
        GenConfig {
            irreducible: false,
            ..GenConfig::full()
        }
    }

    /// Straight-line-heavy programs without any optional feature (only branches,
    /// loops and integer arithmetic): the baseline for feature counts.
    pub fn plain() -> Self {
        GenConfig {
            irreducible: false,
            switches: false,
            predicates: false,
            self_predicates: false,
            shadow_phis: false,
            total: false,
            mask: false,
            horizontal: false,
            memory: false,
            floats: false,
            wide_ints: false,
            ..GenConfig::full()
        }
    }

    /// Whether `mask()` may appear.
    pub fn uses_mask(&self) -> bool {
        self.mask && !self.lane_local
    }

    /// Whether horizontal builtins may appear.
    pub fn uses_horizontal(&self) -> bool {
        self.horizontal && !self.lane_local
    }
}

/// How a parameter is fed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// The same value in every lane.
    Uniform,
    /// Any value per lane.
    PerLane,
    /// The lane's thread id τ (Def. 2): lane τ gets τ. Only in lane-local programs.
    ThreadId,
}

/// A parameter's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgTy {
    /// `iN`.
    Int(u32),
    /// `double`.
    Double,
}

/// One parameter of the generated function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgSpec {
    /// Its name without `%`.
    pub name: String,
    /// Its type.
    pub ty: ArgTy,
    /// Uniform, per lane, or the thread id.
    pub kind: ArgKind,
}

/// One input value of a run (typed by the parameter it is for).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InputScalar {
    /// An integer (signed; the run reduces it modulo 2^N).
    Int(i128),
    /// A float.
    Float(f64),
}

/// A global buffer `@name = global [len x iN] zeroinitializer`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferSpec {
    /// Its name without `@`.
    pub name: String,
    /// The element width N.
    pub elem_bits: u32,
    /// Its number of elements (a power of two).
    pub len: u64,
    /// `Some(s)` for a written buffer: lane τ touches only elements
    /// `[(τ mod max_threads)·s, (τ mod max_threads)·s + s)`. `None` for a buffer the
    /// program only reads.
    pub slice: Option<u64>,
}

/// Counts of the features one program contains (for the feature tests).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Natural loops.
    pub loops: usize,
    /// Loops with more than one exiting edge.
    pub multi_exit_loops: usize,
    /// Loops nested in another cycle.
    pub nested_loops: usize,
    /// Irreducible two-entry cycles.
    pub irreducible: usize,
    /// `switch` terminators.
    pub switches: usize,
    /// Conditional branches (and switches) on the thread id.
    pub branch_on_tid: usize,
    /// ... on loaded data.
    pub branch_on_load: usize,
    /// ... on a uniform argument.
    pub branch_on_uniform: usize,
    /// ... on a loop counter.
    pub branch_on_counter: usize,
    /// ... on another value.
    pub branch_on_value: usize,
    /// Loops whose trip bound is not a constant.
    pub divergent_bounds: usize,
    /// Break edges out of a loop body (several exits).
    pub breaks: usize,
}

impl Stats {
    /// Each count with its name, for a campaign's mix of programs (how many
    /// programs of a `pllvm fuzz` campaign hold each construct).
    pub fn named(&self) -> [(&'static str, usize); 13] {
        [
            ("loops", self.loops),
            ("multi_exit_loops", self.multi_exit_loops),
            ("nested_loops", self.nested_loops),
            ("irreducible", self.irreducible),
            ("switches", self.switches),
            ("branch_on_tid", self.branch_on_tid),
            ("branch_on_load", self.branch_on_load),
            ("branch_on_uniform", self.branch_on_uniform),
            ("branch_on_counter", self.branch_on_counter),
            ("branch_on_value", self.branch_on_value),
            ("divergent_bounds", self.divergent_bounds),
            ("breaks", self.breaks),
            ("programs", 1),
        ]
    }
}

/// A generated program and what a run of it needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    /// The module: `@kernel`, the buffers and the builtin declarations.
    pub module: Module,
    /// `@kernel`.
    pub func: FuncId,
    /// The parameters of `@kernel`, in order.
    pub args: Vec<ArgSpec>,
    /// Initial memory: each buffer's name and its elements.
    pub globals: Vec<(String, Vec<i64>)>,
    /// The buffers, in the order of `globals`.
    pub buffers: Vec<BufferSpec>,
    /// The configuration's `max_threads` (slices repeat beyond it).
    pub max_threads: u32,
    /// What the program contains.
    pub stats: Stats,
}

impl InputScalar {
    /// The run-input scalar for this value (integers that do not fit `i64` as
    /// decimal text, which the interpreter reads at any width).
    pub fn to_scalar(&self) -> pllvm_interp::config::Scalar {
        use pllvm_interp::config::Scalar;
        match self {
            InputScalar::Int(i) => match i64::try_from(*i) {
                Ok(small) => Scalar::Int(small),
                Err(_) => Scalar::Text(i.to_string()),
            },
            InputScalar::Float(f) => Scalar::Float(*f),
        }
    }
}

impl Generated {
    /// The parameters the generator feeds uniformly, by name: what
    /// `--uniform-args` (`Options::uniform_args`) declares for its programs.
    pub fn uniform_args(&self) -> Vec<String> {
        self.args
            .iter()
            .filter(|a| a.kind == ArgKind::Uniform)
            .map(|a| a.name.clone())
            .collect()
    }

    /// A run of `@kernel` under `interp` with the argument `columns` (one value per
    /// lane each, as [`Generated::inputs`] makes them; W is their length) and the
    /// buffers' initial contents.
    pub fn run_config(
        &self,
        columns: &[(String, Vec<InputScalar>)],
        interp: pllvm_semantics::rules::Interp,
    ) -> pllvm_interp::RunConfig {
        use pllvm_interp::config::{ArgValue, Scalar};
        let mut config = pllvm_interp::RunConfig {
            threads: columns.first().map_or(1, |(_, c)| c.len()),
            interp,
            function: Some(self.module.functions[self.func].name.clone()),
            ..Default::default()
        };
        for (name, column) in columns {
            config.args.insert(
                name.clone(),
                ArgValue::PerLane(column.iter().map(InputScalar::to_scalar).collect()),
            );
        }
        for (name, values) in &self.globals {
            config.memory.insert(
                name.clone(),
                values.iter().map(|&v| Scalar::Int(v)).collect(),
            );
        }
        config
    }

    /// `InitShapes` (thesis Listing 1) matching how the generator meant each
    /// parameter: uniform parameters uniform, per-lane and thread-id ones varying.
    pub fn init_shapes(&self) -> pllvm_analysis::result::InitShapes {
        use pllvm_analysis::shape::Shape;
        pllvm_analysis::result::InitShapes {
            params: self
                .args
                .iter()
                .map(|a| match a.kind {
                    ArgKind::Uniform => Shape::Uniform,
                    ArgKind::PerLane | ArgKind::ThreadId => Shape::Varying,
                })
                .collect(),
        }
    }

    /// The FR run of `@kernel` with `width` lanes on the inputs drawn from
    /// `input_seed`; with a `policy`, that scheduler's greedy schedule (Def. 12) is
    /// run first and fixed as the run's `schedule`, so observers replay it. A
    /// non-greedy step of the scheduler is an error.
    pub fn scheduled_run(
        &self,
        width: usize,
        input_seed: u64,
        policy: Option<&mut dyn pllvm_interp::sched::Scheduler>,
    ) -> Result<pllvm_interp::RunConfig, String> {
        let mut run = self.run_config(
            &self.inputs(input_seed, width),
            pllvm_semantics::rules::Interp::Freezing,
        );
        if let Some(policy) = policy {
            let body = self.module.functions[self.func]
                .body
                .as_ref()
                .ok_or("@kernel has no body")?;
            let mut machine =
                pllvm_interp::Machine::new(&self.module, &run).map_err(|e| e.to_string())?;
            let scheduled = machine.run_with(policy).map_err(|e| e.to_string())?;
            if let Some(v) = scheduled.violations.first() {
                return Err(format!("the scheduler took a non-greedy step: {v:?}"));
            }
            run.schedule = Some(
                scheduled
                    .schedule
                    .iter()
                    .map(|b| body.blocks[*b].name.clone())
                    .collect(),
            );
        }
        Ok(run)
    }

    /// Inputs for a run with `lanes` lanes, drawn from `seed`: one column per
    /// parameter, in parameter order, each with `lanes` values (a uniform
    /// parameter repeats one value; a thread-id parameter is `0, 1, …`).
    pub fn inputs(&self, seed: u64, lanes: usize) -> Vec<(String, Vec<InputScalar>)> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x1a2b_3c4d_5e6f_7081);
        self.args
            .iter()
            .map(|arg| {
                let draw = |rng: &mut ChaCha8Rng| match arg.ty {
                    ArgTy::Int(w) => {
                        let v: i128 = match rng.gen_range(0..4) {
                            0 => rng.gen_range(-4..4),
                            1 => rng.gen_range(0..64),
                            2 => i128::from(rng.r#gen::<i32>()),
                            _ => rng.r#gen::<i64>().into(),
                        };
                        InputScalar::Int(if w < 128 {
                            v.rem_euclid(1i128 << w.min(126))
                        } else {
                            v
                        })
                    }
                    ArgTy::Double => InputScalar::Float(f64::from(rng.gen_range(-64i32..64)) / 4.0),
                };
                let column = match arg.kind {
                    ArgKind::Uniform => {
                        let v = draw(&mut rng);
                        vec![v; lanes]
                    }
                    ArgKind::PerLane => (0..lanes).map(|_| draw(&mut rng)).collect(),
                    ArgKind::ThreadId => (0..lanes).map(|l| InputScalar::Int(l as i128)).collect(),
                };
                (arg.name.clone(), column)
            })
            .collect()
    }

    /// The element range of `buffer` that `lane` may write (its slice), or `None`
    /// for a read-only buffer.
    pub fn lane_slice(&self, buffer: usize, lane: usize) -> Option<std::ops::Range<usize>> {
        let spec = self.buffers.get(buffer)?;
        let slice = usize::try_from(spec.slice?).ok()?;
        let start = (lane % self.max_threads as usize) * slice;
        Some(start..start + slice)
    }
}
