//! The stage-wise equivalence checker (docs/transforms.md, "How correctness is
//! checked"): a transformed program run under OBLIVIOUS computes what the
//! original computes under FREEZING.
//!
//! Thesis §3.6-3.7 (Fig. 3.20-3.22) motivates the two interpretations of §4.5:
//! the original SPMD program means what its FR runs compute (a passive lane keeps
//! its values, so each lane computes what it computes alone), while the code a
//! vectorizer emits runs under OBL (a passive lane's values become ⊤, as a SIMD
//! register's masked-off lanes hold garbage). A transform is correct when OBL of
//! its output refines FR of its input. [`check_refines`] decides that for one
//! input (W, arguments, initial memory):
//!
//! - **Outcomes.** An outcome is how a greedy schedule (Def. 12) ends: every lane
//!   returned, undefined behaviour, a resource limit, no block that may be
//!   scheduled, or (when exploration shows that no greedy schedule ends) never.
//!   With it come the lanes' return values and every global's contents, scalar by
//!   scalar ([`crate::machine::GlobalValues`]).
//! - **Refinement of one outcome.** A transformed outcome refines an original one
//!   when both end the same way and, lane by lane, each result the original
//!   defines is the transformed result, and element by element each scalar of a
//!   global the original defines is the transformed one. ⊤ in the original, or a
//!   lane that did not return there, is refined by anything (§4.5: ⊤ is "any
//!   value"). An original outcome with undefined behaviour is refined by anything.
//!   An original outcome cut short by a resource limit says nothing about what the
//!   program computes; a transformed outcome that only such an outcome admits is
//!   counted as inconclusive ([`EquivReport::inconclusive`]) rather than different.
//! - **Refinement of the program.** Greedy schedules of the two programs do not
//!   correspond one to one (a transform adds and merges blocks), so the check is
//!   the set inclusion of refinement: every outcome of the transformed program
//!   refines some outcome of the original. An original with undefined behaviour
//!   on some greedy schedule is refined by anything (as for any nondeterministic
//!   program whose semantics contains undefined behaviour).
//!
//! How the outcomes are found ([`Coverage`]): by exhaustive exploration of every
//! greedy schedule ([`crate::explore::explore`], within [`Bounds`]) when it
//! finishes, by scheduler runs (`lowest`, `highest`, seeded `random`:
//! [`crate::sched`]) when it does not. The report says which ([`Method`]). With
//! scheduler runs only, the original's outcomes are those of the sampled
//! schedules, so a schedule-dependent original could in principle be reported
//! different from a transform that realizes an order no sample took; the
//! generated programs of the property tests are written so that their outcomes do
//! not depend on the schedule.
//!
//! A [`Difference`] says where: the transformed program's schedule (and the
//! schedule of the original outcome it was compared with, the nearest one), and
//! which lane or which element of which global, with the value on each side:
//! `lane 1: original returns 1, transformed returns ⊤ (schedule A,B,B,B,C)`.
//!
//! A check given a deadline ([`EquivConfig::deadline`]) that passes before both
//! programs' outcomes are found ends with [`DifferenceKind::CutOff`]: a check
//! cut off is neither refinement nor a difference.
//!
//! [`check_stages`] checks every stage of a transform pipeline against the
//! original (verifier first), for a front end such as `pllvm transform --check`.

use crate::config::RunConfig;
use crate::explore::{Bounds, Exploration, explore_watched};
use crate::machine::{GlobalValues, Machine, Outcome, TIME_LIMIT};
use crate::sched::{Highest, Lowest, Random, Scheduler};
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::Module;
use pllvm_semantics::rules::Interp;
use pllvm_semantics::value::{Val, display_signed};
use pllvm_semantics::verify::verify_module;
use std::fmt;
use std::ops::ControlFlow;
use std::time::Instant;

/// How the outcomes of the two programs are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Exhaustive exploration of every greedy schedule where it finishes within
    /// the bounds, scheduler runs otherwise (see [`Method`]).
    Auto,
    /// Scheduler runs only (for programs too large to explore).
    Sampled,
}

/// What a check needs besides the two programs.
#[derive(Clone, Debug, PartialEq)]
pub struct EquivConfig {
    /// The inputs both programs run on: W, the arguments, the initial memory,
    /// the function (by name; by default the first definition of each module),
    /// the step limit of scheduler runs, the memory limit. Its `interp` and
    /// `schedule` are not used: the original runs under FREEZING and the
    /// transformed program under OBLIVIOUS, on greedy schedules.
    pub run: RunConfig,
    /// Exploration or scheduler runs.
    pub coverage: Coverage,
    /// How far an exploration may go before the check falls back to runs.
    pub bounds: Bounds,
    /// Seeded `random` scheduler runs made besides `lowest` and `highest`.
    pub random_runs: u64,
    /// When the check must end (`pllvm transform --check --time`, docs/cli.md
    /// "Time and progress"): an exploration or a scheduler run still going then
    /// stops, and the check ends with [`DifferenceKind::CutOff`], never with a
    /// report that claims refinement. `None`: no time limit.
    pub deadline: Option<Instant>,
}

impl Default for EquivConfig {
    fn default() -> Self {
        EquivConfig {
            run: RunConfig {
                observe: false,
                ..RunConfig::default()
            },
            coverage: Coverage::Auto,
            bounds: Bounds {
                max_states: 20_000,
                max_steps: 2_000,
                ..Bounds::default()
            },
            random_runs: 6,
            deadline: None,
        }
    }
}

/// Which program of the pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The program before the transform, run under FREEZING.
    Original,
    /// The program after it, run under OBLIVIOUS.
    Transformed,
}

impl Side {
    /// `original` / `transformed`.
    pub fn name(self) -> &'static str {
        match self {
            Side::Original => "original",
            Side::Transformed => "transformed",
        }
    }

    /// The interpretation this side runs under (§4.5).
    pub fn interp(self) -> Interp {
        match self {
            Side::Original => Interp::Freezing,
            Side::Transformed => Interp::Oblivious,
        }
    }
}

/// How the outcomes compared were found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Method {
    /// Every greedy schedule of both programs was explored.
    Exhaustive,
    /// Every greedy schedule of the original was explored; the exploration of
    /// the transformed program stopped (`why`), and scheduler runs of it were
    /// added to the outcomes it found.
    OriginalExhaustive {
        /// Why the transformed program's exploration is partial.
        why: String,
    },
    /// Scheduler runs of both programs; `why` exploration was not used (`None`
    /// when [`Coverage::Sampled`] asked for it).
    Sampled {
        /// Why the original's exploration did not finish.
        why: Option<String>,
    },
}

impl Method {
    /// Whether every greedy schedule of both programs was compared.
    pub fn is_exhaustive(&self) -> bool {
        matches!(self, Method::Exhaustive)
    }
}

/// What a successful check compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EquivReport {
    /// How the outcomes were found.
    pub method: Method,
    /// Distinct outcomes of the original.
    pub original_outcomes: usize,
    /// Distinct outcomes of the transformed program.
    pub transformed_outcomes: usize,
    /// Scheduler runs made (both programs).
    pub runs: usize,
    /// A schedule on which the original has undefined behaviour, when it has:
    /// then anything refines it and nothing was compared.
    pub original_undefined: Option<Vec<String>>,
    /// Transformed outcomes admitted only by an original outcome that a
    /// resource limit cut short.
    pub inconclusive: usize,
}

impl EquivReport {
    /// One line: `refines: 2 transformed outcomes against 1 original (exhaustive)`.
    pub fn summary(&self) -> String {
        let how = match &self.method {
            Method::Exhaustive => "every greedy schedule explored".to_string(),
            Method::OriginalExhaustive { why } => format!(
                "original explored; transformed explored in part ({why}) and by {} scheduler runs",
                self.runs
            ),
            Method::Sampled { why } => format!(
                "{} scheduler runs{}",
                self.runs,
                why.as_ref()
                    .map_or(String::new(), |w| format!(" (exploration stopped: {w})"))
            ),
        };
        if let Some(schedule) = &self.original_undefined {
            return format!(
                "refines vacuously: the original has undefined behaviour (schedule {}; {how})",
                schedule.join(",")
            );
        }
        let mut s = format!(
            "refines: {} transformed outcome{} against {} original ({how})",
            self.transformed_outcomes,
            if self.transformed_outcomes == 1 {
                ""
            } else {
                "s"
            },
            self.original_outcomes
        );
        if self.inconclusive > 0 {
            s.push_str(&format!(
                "; {} admitted only by original runs cut short by a limit",
                self.inconclusive
            ));
        }
        s
    }
}

/// What differs.
#[derive(Clone, Debug, PartialEq)]
pub enum DifferenceKind {
    /// The two runs end differently (`returned`, `undefined: …`, `limit: …`,
    /// `blocked: …`, `never ends …`).
    Ending {
        /// How the original's run ends.
        original: String,
        /// How the transformed program's run ends.
        transformed: String,
    },
    /// A lane's return value.
    Result {
        /// The lane.
        lane: usize,
        /// What the original returns there (never ⊤).
        original: Val,
        /// What the transformed program returns there (`None`: the lane did
        /// not return).
        transformed: Option<Val>,
        /// The width of the function's integer return type (for signed display).
        int_width: Option<u32>,
    },
    /// One scalar of a global at the end of the run.
    Memory {
        /// `@name`.
        global: String,
        /// The scalar's index path in it (`[3]`; empty for a scalar global).
        element: String,
        /// What the original holds there (never ⊤).
        original: Val,
        /// What the transformed program holds there.
        transformed: Val,
        /// The width of an integer scalar.
        int_width: Option<u32>,
    },
    /// A global of the original that the transformed program lacks (or whose
    /// shape changed).
    MissingGlobal {
        /// `@name`.
        global: String,
    },
    /// One of the programs cannot be run or checked on these inputs: a setup
    /// error, a step no rule applies to, a module that does not verify.
    Unrunnable {
        /// Which program.
        side: Side,
        /// Why.
        message: String,
    },
    /// The check ran out of time ([`EquivConfig::deadline`]) while finding this
    /// program's outcomes: nothing was decided, neither refinement nor a
    /// difference.
    CutOff {
        /// The program whose exploration or run was stopped.
        side: Side,
    },
}

impl DifferenceKind {
    /// Whether this is no difference found but a check the deadline cut off.
    pub fn is_cut_off(&self) -> bool {
        matches!(self, DifferenceKind::CutOff { .. })
    }
}

/// Where the transformed program does not refine the original.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// What differs (boxed: a difference travels in `Err`, which should stay small).
    pub kind: Box<DifferenceKind>,
    /// The transformed program's schedule that shows it (block names).
    pub schedule: Vec<String>,
    /// The schedule of the original outcome compared with (the nearest one).
    pub original_schedule: Vec<String>,
    /// How the transformed outcome was found: `exploration`, or the scheduler
    /// (`lowest`, `highest`, `random:SEED`).
    pub found_by: String,
}

impl Difference {
    /// A difference without schedules: one side cannot be run.
    fn unrunnable(side: Side, message: impl Into<String>) -> Difference {
        Difference {
            kind: Box::new(DifferenceKind::Unrunnable {
                side,
                message: message.into(),
            }),
            schedule: Vec::new(),
            original_schedule: Vec::new(),
            found_by: String::new(),
        }
    }

    /// No difference but a check the deadline stopped on `side`.
    fn cut_off(side: Side) -> Difference {
        Difference {
            kind: Box::new(DifferenceKind::CutOff { side }),
            schedule: Vec::new(),
            original_schedule: Vec::new(),
            found_by: String::new(),
        }
    }
}

/// A value as results and memory print it: signed for integers, ⊤ for undef.
fn show(v: &Val, int_width: Option<u32>) -> String {
    match int_width {
        Some(w) => display_signed(v, w),
        None => v.to_string(),
    }
}

impl fmt::Display for DifferenceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DifferenceKind::Ending {
                original,
                transformed,
            } => write!(f, "original {original}, transformed {transformed}"),
            DifferenceKind::Result {
                lane,
                original,
                transformed,
                int_width,
            } => {
                write!(
                    f,
                    "lane {lane}: original returns {}, ",
                    show(original, *int_width)
                )?;
                match transformed {
                    Some(t) => write!(f, "transformed returns {}", show(t, *int_width)),
                    None => write!(f, "transformed does not return"),
                }
            }
            DifferenceKind::Memory {
                global,
                element,
                original,
                transformed,
                int_width,
            } => write!(
                f,
                "{global}{element}: original holds {}, transformed holds {}",
                show(original, *int_width),
                show(transformed, *int_width)
            ),
            DifferenceKind::MissingGlobal { global } => write!(
                f,
                "{global}: the original has it, the transformed program has no global of that name and shape"
            ),
            DifferenceKind::Unrunnable { side, message } => {
                write!(
                    f,
                    "the {} program cannot be checked: {message}",
                    side.name()
                )
            }
            DifferenceKind::CutOff { side } => write!(
                f,
                "not decided: {TIME_LIMIT} while finding the {} program's outcomes",
                side.name()
            ),
        }
    }
}

impl fmt::Display for Difference {
    /// `lane 1: original returns 1, transformed returns ⊤ (schedule A,B,B,B,C)`;
    /// the original's schedule follows when it is another one, and the scheduler
    /// when the outcome was found by a run rather than by exploration.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if self.schedule.is_empty() && self.original_schedule.is_empty() {
            return Ok(());
        }
        write!(f, " (schedule {}", self.schedule.join(","))?;
        if self.original_schedule != self.schedule {
            write!(f, "; original's {}", self.original_schedule.join(","))?;
        }
        if !self.found_by.is_empty() && self.found_by != EXPLORATION {
            write!(f, "; run by the {} scheduler", self.found_by)?;
        }
        write!(f, ")")
    }
}

/// [`Difference::found_by`] for outcomes found by exploration.
const EXPLORATION: &str = "exploration";

/// How one run ended, by kind (the text says more).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EndKind {
    /// Every lane returned.
    Returned,
    /// Undefined behaviour.
    Undefined,
    /// A resource limit (steps, memory).
    Limit,
    /// No block may be scheduled while lanes wait.
    Blocked,
    /// No greedy schedule ends (an exhaustive exploration without outcomes).
    Never,
}

/// One outcome as the checker compares it.
#[derive(Clone, Debug)]
struct Observed {
    kind: EndKind,
    /// How it ended, as text (`returned`, `undefined: …`).
    ending: String,
    results: Vec<Option<Val>>,
    globals: Vec<GlobalValues>,
    /// A schedule that ends this way.
    schedule: Vec<String>,
    /// `exploration` or the scheduler's name.
    found_by: String,
}

impl Observed {
    /// Whether `other` ended the same way with the same lanes and memory.
    fn same_as(&self, other: &Observed) -> bool {
        self.ending == other.ending
            && self.results == other.results
            && self.globals == other.globals
    }
}

/// Checks that `transformed` under OBLIVIOUS refines `original` under FREEZING
/// on the inputs of `config` (see the module doc for refinement and coverage).
pub fn check_refines(
    original: &Module,
    transformed: &Module,
    config: &EquivConfig,
) -> Result<EquivReport, Difference> {
    Baseline::of(original, config)?.check(transformed, config)
}

/// The original's outcomes under FREEZING, found once and compared with any
/// number of transformed programs (the stages of a pipeline).
#[derive(Clone, Debug)]
pub struct Baseline {
    outcomes: Vec<Observed>,
    /// `None` when every greedy schedule was explored; otherwise the outcomes
    /// are those of scheduler runs, and why (`None`: [`Coverage::Sampled`]).
    sampled: Option<Option<String>>,
    /// Scheduler runs made.
    runs: usize,
    /// The width of the function's integer return type.
    int_width: Option<u32>,
}

impl Baseline {
    /// The outcomes of `original` under FREEZING on the inputs of `config`: every
    /// greedy schedule's when the exploration finishes within the bounds (and
    /// [`Coverage::Auto`] asks for it), else those of scheduler runs.
    pub fn of(original: &Module, config: &EquivConfig) -> Result<Baseline, Difference> {
        let int_width = return_width(original, config);
        let why = match config.coverage {
            Coverage::Sampled => None,
            Coverage::Auto => {
                let explored =
                    explore_side(original, Side::Original, Side::Original.interp(), config)?;
                match explored.truncated.clone() {
                    None => {
                        return Ok(Baseline {
                            outcomes: explored_outcomes(&explored),
                            sampled: None,
                            runs: 0,
                            int_width,
                        });
                    }
                    Some(why) => Some(why),
                }
            }
        };
        let (outcomes, runs) =
            sample_side(original, Side::Original, Side::Original.interp(), config)?;
        Ok(Baseline {
            outcomes,
            sampled: Some(why),
            runs,
            int_width,
        })
    }

    /// Whether every greedy schedule of the original was explored.
    pub fn is_exhaustive(&self) -> bool {
        self.sampled.is_none()
    }

    /// Checks that `transformed` under OBLIVIOUS refines the original: by
    /// exploration when the original was explored (completed by scheduler runs
    /// if the transformed program's exploration stops), by scheduler runs when
    /// the original's outcomes are sampled.
    pub fn check(
        &self,
        transformed: &Module,
        config: &EquivConfig,
    ) -> Result<EquivReport, Difference> {
        self.check_under(transformed, config, Side::Transformed.interp())
    }

    /// [`Baseline::check`] with the transformed program run under `interp`:
    /// under FREEZING, whether a transform changed what a lane computes at all
    /// (a difference under OBLIVIOUS that FREEZING does not show is a passive
    /// lane's value; `pllvm_fuzz`'s `llvm-transforms` oracle tells the two apart).
    pub fn check_under(
        &self,
        transformed: &Module,
        config: &EquivConfig,
        interp: Interp,
    ) -> Result<EquivReport, Difference> {
        let (transformeds, method, runs) = match &self.sampled {
            Some(why) => {
                let (outcomes, runs) = sample_side(transformed, Side::Transformed, interp, config)?;
                let method = Method::Sampled { why: why.clone() };
                (outcomes, method, self.runs + runs)
            }
            None => {
                let explored = explore_side(transformed, Side::Transformed, interp, config)?;
                let mut outcomes = explored_outcomes(&explored);
                match explored.truncated {
                    None => (outcomes, Method::Exhaustive, 0),
                    Some(why) => {
                        let (sampled, runs) =
                            sample_side(transformed, Side::Transformed, interp, config)?;
                        add_distinct(&mut outcomes, sampled);
                        (outcomes, Method::OriginalExhaustive { why }, runs)
                    }
                }
            }
        };
        compare_outcomes(&self.outcomes, &transformeds, method, runs, self.int_width)
    }
}

/// The run inputs of `config` for one side run under `interp` (the side's own,
/// [`Side::interp`], but for [`Baseline::check_under`]): no fixed schedule, no
/// divergence observer.
fn side_config(config: &EquivConfig, interp: Interp) -> RunConfig {
    RunConfig {
        interp,
        schedule: None,
        observe: false,
        ..config.run.clone()
    }
}

/// Every greedy schedule of one side (Def. 12), within the bounds; a
/// [`DifferenceKind::CutOff`] when the deadline stops the search (the deadline
/// is read where the search counts its states, once per state it expands).
fn explore_side(
    module: &Module,
    side: Side,
    interp: Interp,
    config: &EquivConfig,
) -> Result<Exploration, Difference> {
    let mut out_of_time = false;
    let mut watch = |_: &crate::explore::Progress| match config.deadline {
        Some(deadline) if Instant::now() >= deadline => {
            out_of_time = true;
            ControlFlow::Break(TIME_LIMIT.to_string())
        }
        _ => ControlFlow::Continue(()),
    };
    let explored = explore_watched(
        module,
        &side_config(config, interp),
        &config.bounds,
        &mut |_| {},
        &mut watch,
    )
    .map_err(|e| Difference::unrunnable(side, e.to_string()))?;
    if out_of_time {
        return Err(Difference::cut_off(side));
    }
    Ok(explored)
}

/// The outcomes of an exploration; an exhaustive exploration without any means
/// that no greedy schedule ends.
fn explored_outcomes(explored: &Exploration) -> Vec<Observed> {
    let mut out: Vec<Observed> = explored
        .outcomes
        .iter()
        .map(|o| Observed {
            kind: end_kind(&o.ending),
            ending: o.ending.clone(),
            results: o.results.clone(),
            globals: o.globals.clone(),
            schedule: o
                .witness
                .iter()
                .map(|&b| explored.name(b).to_string())
                .collect(),
            found_by: EXPLORATION.into(),
        })
        .collect();
    if out.is_empty() && explored.truncated.is_none() {
        out.push(Observed {
            kind: EndKind::Never,
            ending: "never ends (no greedy schedule terminates, §5.3)".into(),
            results: Vec::new(),
            globals: Vec::new(),
            schedule: Vec::new(),
            found_by: EXPLORATION.into(),
        });
    }
    out
}

/// The kind of an exploration's ending text (`returned`, `undefined: …`,
/// `limit: …`, `blocked: …`, as [`crate::explore::ExploredOutcome::ending`]
/// documents).
fn end_kind(ending: &str) -> EndKind {
    if ending == "returned" {
        EndKind::Returned
    } else if ending.starts_with("undefined") {
        EndKind::Undefined
    } else if ending.starts_with("blocked") {
        EndKind::Blocked
    } else {
        EndKind::Limit
    }
}

/// The distinct outcomes of scheduler runs of one side (`lowest`, `highest`,
/// then seeded `random` ones), and the number of runs.
fn sample_side(
    module: &Module,
    side: Side,
    interp: Interp,
    config: &EquivConfig,
) -> Result<(Vec<Observed>, usize), Difference> {
    let run_config = side_config(config, interp);
    let mut schedulers: Vec<Box<dyn Scheduler>> = vec![Box::new(Lowest), Box::new(Highest)];
    schedulers.extend((1..=config.random_runs).map(|seed| Box::new(Random::new(seed)) as _));
    let mut out = Vec::new();
    let runs = schedulers.len();
    for mut scheduler in schedulers {
        let observed = scheduled_run(
            module,
            side,
            &run_config,
            scheduler.as_mut(),
            config.deadline,
        )?;
        add_distinct(&mut out, vec![observed]);
    }
    Ok((out, runs))
}

/// One greedy run of one side with `scheduler`, stopped by `deadline` as a
/// [`DifferenceKind::CutOff`].
fn scheduled_run(
    module: &Module,
    side: Side,
    run_config: &RunConfig,
    scheduler: &mut dyn Scheduler,
    deadline: Option<Instant>,
) -> Result<Observed, Difference> {
    let mut machine = Machine::new(module, run_config)
        .map_err(|e| Difference::unrunnable(side, e.to_string()))?;
    machine.record_trace = false;
    machine.deadline = deadline;
    let run = machine
        .run_with(scheduler)
        .map_err(|e| Difference::unrunnable(side, e.to_string()))?;
    // A run the deadline stopped says nothing about the program (it is not
    // one of its outcomes, as a step limit's is for the check's inputs).
    if deadline.is_some() && run.outcome == Outcome::Limit(TIME_LIMIT.to_string()) {
        return Err(Difference::cut_off(side));
    }
    let (kind, ending) = match &run.outcome {
        Outcome::Returned => (EndKind::Returned, run.outcome.to_string()),
        Outcome::Undefined(_) => (EndKind::Undefined, run.outcome.to_string()),
        Outcome::Limit(_) | Outcome::OutOfFuel => (EndKind::Limit, run.outcome.to_string()),
        Outcome::Incomplete => (
            EndKind::Blocked,
            "blocked: no block makes progress and synchronizes".to_string(),
        ),
    };
    Ok(Observed {
        kind,
        ending,
        results: machine.results(),
        globals: machine.global_contents(),
        schedule: run
            .schedule
            .iter()
            .map(|&b| machine.program.block_name(b).to_string())
            .collect(),
        found_by: scheduler.name(),
    })
}

/// Appends the outcomes of `more` that `into` does not hold yet.
fn add_distinct(into: &mut Vec<Observed>, more: Vec<Observed>) {
    for o in more {
        if !into.iter().any(|k| k.same_as(&o)) {
            into.push(o);
        }
    }
}

/// Refinement of the program: every transformed outcome refines some original
/// outcome, unless the original has undefined behaviour (see the module doc).
fn compare_outcomes(
    originals: &[Observed],
    transformeds: &[Observed],
    method: Method,
    runs: usize,
    int_width: Option<u32>,
) -> Result<EquivReport, Difference> {
    let mut report = EquivReport {
        method,
        original_outcomes: originals.len(),
        transformed_outcomes: transformeds.len(),
        runs,
        original_undefined: None,
        inconclusive: 0,
    };
    if let Some(ub) = originals.iter().find(|o| o.kind == EndKind::Undefined) {
        report.original_undefined = Some(ub.schedule.clone());
        return Ok(report);
    }
    for t in transformeds {
        let comparable: Vec<&Observed> = originals
            .iter()
            .filter(|o| o.kind != EndKind::Limit)
            .collect();
        let differences: Vec<Vec<DifferenceKind>> = comparable
            .iter()
            .map(|o| outcome_differences(o, t, int_width))
            .collect();
        if differences.iter().any(Vec::is_empty) {
            continue;
        }
        if originals.iter().any(|o| o.kind == EndKind::Limit) {
            report.inconclusive += 1;
            continue;
        }
        return Err(nearest_difference(&comparable, differences, t));
    }
    Ok(report)
}

/// The difference to report for `t`: the first one against the original outcome
/// that ends as `t` does with the fewest differences (else the first outcome).
fn nearest_difference(
    comparable: &[&Observed],
    differences: Vec<Vec<DifferenceKind>>,
    t: &Observed,
) -> Difference {
    let nearest = comparable
        .iter()
        .zip(differences)
        .min_by_key(|(o, d)| (o.kind != t.kind, d.len()));
    match nearest {
        Some((o, d)) => Difference {
            kind: Box::new(d.into_iter().next().unwrap_or(DifferenceKind::Ending {
                original: o.ending.clone(),
                transformed: t.ending.clone(),
            })),
            schedule: t.schedule.clone(),
            original_schedule: o.schedule.clone(),
            found_by: t.found_by.clone(),
        },
        // Only possible if the original has no outcome at all (scheduler runs
        // always give one, an exhaustive exploration gives "never ends").
        None => Difference {
            kind: Box::new(DifferenceKind::Ending {
                original: "with no outcome".into(),
                transformed: t.ending.clone(),
            }),
            schedule: t.schedule.clone(),
            original_schedule: Vec::new(),
            found_by: t.found_by.clone(),
        },
    }
}

/// Refinement of one outcome: every way `t` fails to refine `o`, ending first,
/// then the lanes in order, then the globals' scalars in order; empty when it
/// refines.
fn outcome_differences(o: &Observed, t: &Observed, int_width: Option<u32>) -> Vec<DifferenceKind> {
    if o.kind != t.kind {
        return vec![DifferenceKind::Ending {
            original: o.ending.clone(),
            transformed: t.ending.clone(),
        }];
    }
    let mut out = result_differences(o, t, int_width);
    out.extend(memory_differences(o, t));
    out
}

/// The lanes whose result the original defines and the transformed program
/// does not reproduce.
fn result_differences(o: &Observed, t: &Observed, int_width: Option<u32>) -> Vec<DifferenceKind> {
    let mut out = Vec::new();
    for (lane, original) in o.results.iter().enumerate() {
        // ⊤ or no return in the original: refined by anything (§4.5).
        let Some(original) = original.as_ref().filter(|v| !v.is_undef()) else {
            continue;
        };
        let transformed = t.results.get(lane).cloned().flatten();
        if transformed.as_ref() != Some(original) {
            out.push(DifferenceKind::Result {
                lane,
                original: original.clone(),
                transformed,
                int_width,
            });
        }
    }
    out
}

/// The scalars of globals that the original defines and the transformed program
/// does not reproduce (globals matched by name).
fn memory_differences(o: &Observed, t: &Observed) -> Vec<DifferenceKind> {
    let mut out = Vec::new();
    for global in &o.globals {
        let Some(other) = t
            .globals
            .iter()
            .find(|g| g.name == global.name && g.cells.len() == global.cells.len())
        else {
            out.push(DifferenceKind::MissingGlobal {
                global: global.name.clone(),
            });
            continue;
        };
        for (cell, theirs) in global.cells.iter().zip(&other.cells) {
            if !cell.value.is_undef() && cell.value != theirs.value {
                out.push(DifferenceKind::Memory {
                    global: global.name.clone(),
                    element: cell.path.clone(),
                    original: cell.value.clone(),
                    transformed: theirs.value.clone(),
                    int_width: cell.int_width,
                });
            }
        }
    }
    out
}

/// The width of the checked function's integer return type, if it has one.
fn return_width(module: &Module, config: &EquivConfig) -> Option<u32> {
    let func = match &config.run.function {
        Some(name) => module.function_by_name(name.trim_start_matches('@')),
        None => module.first_definition(),
    }?;
    module.types.int_width(module.functions[func].ret_ty)
}

/// The check of one stage of a pipeline.
#[derive(Clone, Debug, PartialEq)]
pub struct StageCheck {
    /// The stage's name (the pass that produced it).
    pub stage: String,
    /// The verifier's errors on the stage's module (§4.10); empty when it verifies.
    pub verify_errors: Vec<String>,
    /// The refinement check against the original, or why it failed.
    pub result: Result<EquivReport, Difference>,
}

impl StageCheck {
    /// Whether the stage verifies and refines the original.
    pub fn passed(&self) -> bool {
        self.verify_errors.is_empty() && self.result.is_ok()
    }
}

/// Checks every stage of a pipeline against `original`: each stage's module must
/// verify (§4.10) and refine the original ([`check_refines`]). Stages are given
/// as (name, module) pairs, e.g. `stages.iter().map(|s| (s.pass.name(), &s.module))`
/// for the stages `pllvm_codegen::run_passes` returns. Every stage is checked,
/// also after one fails, so that a front end can say which pass broke it first.
/// The original's outcomes are found once ([`Baseline`]).
pub fn check_stages<'a>(
    original: &Module,
    stages: impl IntoIterator<Item = (&'a str, &'a Module)>,
    config: &EquivConfig,
) -> Vec<StageCheck> {
    // The original is explored (or run) once for all stages.
    let baseline = Baseline::of(original, config);
    stages
        .into_iter()
        .map(|(stage, module)| {
            let report = verify_module(module, &SourceMap::default());
            let verify_errors: Vec<String> =
                report.errors.iter().map(|d| d.message.clone()).collect();
            let result = match (verify_errors.first(), &baseline) {
                (Some(first), _) => Err(Difference::unrunnable(
                    Side::Transformed,
                    format!("it does not verify (§4.10): {first}"),
                )),
                (None, Ok(baseline)) => baseline.check(module, config),
                (None, Err(e)) => Err(e.clone()),
            };
            StageCheck {
                stage: stage.to_string(),
                verify_errors,
                result,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The corpus's logstar programs (thesis Fig. 3.20-3.22).
    const LOGSTAR: &str = include_str!("../../corpus/semantics/fig3.20b-logstar-fr.ll");
    const NAIVE_SIMD: &str = include_str!("../../corpus/semantics/fig3.21a-logstar-naive-simd.ll");
    const OBL_NAIVE: &str = include_str!("../../corpus/semantics/fig3.21b-logstar-obl-naive.ll");
    const OBL_TRANSFORMED: &str =
        include_str!("../../corpus/semantics/fig3.22d-logstar-obl-transformed.ll");

    fn parse(text: &str) -> Module {
        match pllvm_semantics::text::parse_module(text) {
            Ok((module, _)) => module,
            Err(e) => panic!("the test program does not parse: {e:?}"),
        }
    }

    /// A configuration of `threads` lanes with `--arg`-style arguments.
    fn config(threads: usize, args: &[&str], coverage: Coverage) -> EquivConfig {
        let mut config = EquivConfig {
            coverage,
            ..EquivConfig::default()
        };
        config.run.threads = threads;
        for arg in args {
            config
                .run
                .add_arg(arg)
                .unwrap_or_else(|e| panic!("bad test argument: {e}"));
        }
        config
    }

    /// Checks `transformed` against `original` on `args` with W = 2, both by
    /// exploration and by scheduler runs, and compares the rendered verdict with
    /// `expect` (`ok` for a refinement, else the difference as displayed).
    fn check(original: &str, transformed: &str, args: &[&str], expect: &str) {
        let (original, transformed) = (parse(original), parse(transformed));
        for coverage in [Coverage::Auto, Coverage::Sampled] {
            let got = match check_refines(&original, &transformed, &config(2, args, coverage)) {
                Ok(report) => {
                    assert_eq!(
                        report.method.is_exhaustive(),
                        coverage == Coverage::Auto,
                        "{report:?}"
                    );
                    "ok".to_string()
                }
                Err(d) => d.to_string(),
            };
            let expect = match coverage {
                Coverage::Auto => expect.to_string(),
                // Scheduler runs name the scheduler that found the outcome.
                Coverage::Sampled => expect.replace(")", "; run by the lowest scheduler)"),
            };
            assert_eq!(got, expect, "{coverage:?}");
        }
    }

    /// Fig. 3.20b: logstar under OBL (no transform) loses lane 1's count, which
    /// FR keeps: the naive run is not faithful (§4.6).
    #[test]
    fn logstar_under_obl_does_not_refine_logstar_under_fr() {
        check(
            LOGSTAR,
            LOGSTAR,
            &["n=88.38,1.5"],
            "lane 1: original returns 1, transformed returns ⊤ (schedule A,B,B,B,C)",
        );
    }

    /// `check_under` FREEZING: logstar refines itself lane by lane (each lane
    /// keeps its values), where under OBLIVIOUS it loses lane 1 (Fig. 3.21b);
    /// the naive SIMD code (Fig. 3.21a) counts too often under either.
    #[test]
    fn check_under_freezing_tells_a_lost_passive_value_from_a_wrong_one() {
        let original = parse(LOGSTAR);
        let cfg = config(2, &["n=88.38,1.5"], Coverage::Auto);
        let baseline = Baseline::of(&original, &cfg).unwrap_or_else(|d| panic!("{d}"));
        assert!(baseline.check(&original, &cfg).is_err());
        assert!(
            baseline
                .check_under(&original, &cfg, Interp::Freezing)
                .is_ok()
        );
        let naive = parse(NAIVE_SIMD);
        assert!(
            baseline
                .check_under(&naive, &cfg, Interp::Freezing)
                .is_err()
        );
    }

    /// Fig. 3.21b: the loop predicate without live-out tracking, under OBL,
    /// against itself under FR and against the original.
    #[test]
    fn the_naive_predicated_loop_loses_lane_1() {
        let expect = "lane 1: original returns 1, transformed returns ⊤ (schedule A,B,B,B,C)";
        check(OBL_NAIVE, OBL_NAIVE, &["n=88.38,1.5"], expect);
        check(LOGSTAR, OBL_NAIVE, &["n=88.38,1.5"], expect);
    }

    /// Fig. 3.21a: the naive SIMD code keeps every lane active, so it agrees with
    /// itself under FR and OBL, but lane 1 counts too often.
    #[test]
    fn the_naive_simd_code_counts_too_often() {
        check(NAIVE_SIMD, NAIVE_SIMD, &["n=88.38,1.5"], "ok");
        check(
            LOGSTAR,
            NAIVE_SIMD,
            &["n=88.38,1.5"],
            "lane 1: original returns 1, transformed returns 3 (schedule A,B,B,B,C)",
        );
    }

    /// Fig. 3.22d: with live-out tracking the transformed logstar refines the
    /// original, on the thesis's inputs and on others.
    #[test]
    fn the_transformed_logstar_refines_the_original() {
        for n in ["n=88.38,1.5", "n=1.5,88.38", "n=0.5,3", "n=7,7"] {
            check(LOGSTAR, OBL_TRANSFORMED, &[n], "ok");
        }
    }

    /// Each lane writes its slice of @out in a divergent branch; the broken
    /// version forgets the predicate on the store of lane 1's side.
    const STORES: &str = "@out = global [2 x i32] zeroinitializer
define void @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %z = icmp eq i32 %t, 0
  br i1 %z, label %B, label %C
B:
  %p0 = getelementptr [2 x i32], ptr @out, i32 0, i32 0
  store i32 10, ptr %p0
  br label %D
C:
  %p1 = getelementptr [2 x i32], ptr @out, i32 0, i32 1
  store i32 11, ptr %p1
  br label %D
D:
  ret void
}
";

    /// Memory is compared element by element, naming the global and the element.
    /// (C comes before B in the block index, §2.5, so the witness runs C first.)
    #[test]
    fn memory_is_compared_element_by_element() {
        let broken = STORES.replace("store i32 11", "store i32 12");
        check(STORES, STORES, &[], "ok");
        check(
            STORES,
            &broken,
            &[],
            "@out[1]: original holds 11, transformed holds 12 (schedule A,C,B,D)",
        );
        // ⊤ in the original's memory is refined by anything.
        let undef = STORES.replace("store i32 11", "store i32 undef");
        check(&undef, STORES, &[], "ok");
        check(
            STORES,
            &undef,
            &[],
            "@out[1]: original holds 11, transformed holds ⊤ (schedule A,C,B,D)",
        );
    }

    /// Undefined behaviour in the original is refined by anything; in the
    /// transformed program alone it is a difference of endings.
    #[test]
    fn undefined_behaviour_refines_only_on_the_original_side() {
        let ub = STORES.replace("store i32 11, ptr %p1", "store i32 11, ptr null");
        let report = check_refines(&parse(&ub), &parse(STORES), &config(2, &[], Coverage::Auto));
        match report {
            Ok(r) => assert!(r.original_undefined.is_some(), "{r:?}"),
            Err(d) => panic!("{d}"),
        }
        let got = check_refines(&parse(STORES), &parse(&ub), &config(2, &[], Coverage::Auto))
            .map_or_else(|d| d.to_string(), |r| format!("{r:?}"));
        assert!(
            got.starts_with("original returned, transformed undefined: "),
            "{got}"
        );
    }

    /// A stage that does not verify is reported, and every stage is checked.
    #[test]
    fn every_stage_is_verified_and_checked() {
        let original = parse(LOGSTAR);
        let good = parse(OBL_TRANSFORMED);
        // %late is used in A before B defines it: not dominated (§4.10).
        let unverified = parse(
            &LOGSTAR
                .replace(
                    "A:\n  br label %B",
                    "A:\n  %early = add i32 %late, 1\n  br label %B",
                )
                .replace(
                    "  %i.inc = add i32 %i, 1\n",
                    "  %i.inc = add i32 %i, 1\n  %late = add i32 %i, 2\n",
                ),
        );
        let stages = [
            ("naive", &original),
            ("unverified", &unverified),
            ("dlt", &good),
        ];
        let checks = check_stages(
            &original,
            stages.iter().map(|(n, m)| (*n, *m)),
            &config(2, &["n=88.38,1.5"], Coverage::Auto),
        );
        let got: Vec<(String, bool, bool)> = checks
            .iter()
            .map(|c| (c.stage.clone(), c.verify_errors.is_empty(), c.passed()))
            .collect();
        assert_eq!(
            got,
            [
                ("naive".to_string(), true, false),
                ("unverified".to_string(), false, false),
                ("dlt".to_string(), true, true),
            ]
        );
        let summary = checks[2].result.as_ref().map(EquivReport::summary);
        assert_eq!(
            summary,
            Ok("refines: 1 transformed outcome against 1 original (every greedy schedule explored)".to_string())
        );
    }

    /// A check whose deadline has passed decides nothing: the exploration and
    /// the scheduler runs (`Coverage::Sampled`) both end it as cut off, never as
    /// a refinement, also for a pair that does refine.
    #[test]
    fn a_check_past_its_deadline_is_cut_off() {
        let (original, transformed) = (parse(LOGSTAR), parse(OBL_TRANSFORMED));
        for coverage in [Coverage::Auto, Coverage::Sampled] {
            let mut config = config(2, &["n=88.38,1.5"], coverage);
            config.deadline = Some(Instant::now());
            let got = check_refines(&original, &transformed, &config).map_err(|d| d.to_string());
            assert_eq!(
                got,
                Err("not decided: time limit reached (--time sets it) while finding the original program's outcomes".to_string()),
                "{coverage:?}"
            );
        }
    }
}
