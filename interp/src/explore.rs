//! Exhaustive exploration of every greedy schedule (thesis Def. 12) from the initial
//! state (Def. 4): the model checker the analyses and the backend are checked
//! against. Also the concurrent next blocks of Def. 20 and Theorem 1 of Ch. 7,
//! computed from the explored states.
//!
//! [`explore`] searches the state space breadth first. A state is a whole
//! σ = (𝕄, Δ^W, ℓ_in^W, ℓ_next^W) (Def. 3), identified by a 128-bit fingerprint
//! of all of it, so two schedules that reach the same state share everything
//! after it and it is explored once. Only the states waiting to be expanded are
//! kept whole. The
//! transitions out of a state are the blocks that make progress (Def. 14) and
//! synchronize (Def. 17). Termination preservation (§5.3) is a property of whole
//! schedules, and is applied to the explored graph afterwards: when the initial
//! state can reach an end, every state that cannot is off limits (a greedy schedule
//! that enters it never terminates although one exists that does), and so are the
//! transitions into it. Breadth-first order makes each witness schedule a
//! shortest one and lets the step bound cut every schedule at the same length.
//!
//! [`explore_with`] runs the same search and hands every transition it follows to
//! a visitor ([`Transition`]: the state before, the block step of [BLS-W-STEP]
//! with its masks and successors, the state after), so that a property can be
//! checked in every step of every greedy schedule, as the soundness checks of
//! the divergence analyses do (`proofs/tests/soundness_explore.rs`).
//!
//! An *outcome* is how a schedule ends: every lane returned, undefined behaviour, a
//! resource limit, or no block that may be scheduled; with the lanes' results and
//! the contents of every global (allocas are private and dead at the end, and their
//! object numbers depend on the order of allocation, so they are not compared).

use crate::config::RunConfig;
use crate::greedy::{GreedyFacts, NaturalLoop, candidates, lane_targets, progress};
use crate::machine::{GlobalValues, Machine, SetupError, global_values};
use pllvm_semantics::ir::{Block, FuncId, GlobalId, Module};
use pllvm_semantics::memory::ByteStore;
use pllvm_semantics::rules::step::{BlockStep, lss_w_step};
use pllvm_semantics::rules::{Exec, Interp, Next, Program, Scratch, State, StepError, Ub};
use pllvm_semantics::types::Ty;
use pllvm_semantics::value::{ObjectId, Val, display_signed};
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::ops::ControlFlow;

pub mod graph;
use graph::{StateGraph, Target};

/// In which order the successors of a state are generated (and so which witness
/// schedules are found and which states a state bound cuts off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Lowest block index (§2.5) first.
    Lowest,
    /// Highest block index first.
    Highest,
    /// A seeded shuffle at every state.
    Random(u64),
}

/// How far [`explore`] goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Most distinct states.
    pub max_states: usize,
    /// Longest schedule (blocks scheduled from the initial state).
    pub max_steps: usize,
    /// Successor order.
    pub order: Order,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_states: 100_000,
            max_steps: 10_000,
            order: Order::Lowest,
        }
    }
}

/// One distinct way the program ends.
#[derive(Clone, Debug, PartialEq)]
pub struct ExploredOutcome {
    /// `returned`, `undefined: …`, `limit: …`, or `blocked: …`.
    pub ending: String,
    /// Every lane's return value (`None`: the lane did not terminate).
    pub results: Vec<Option<Val>>,
    /// `[r0, r1, …]` as `pllvm run` prints results.
    pub result_text: String,
    /// `(@global, contents)` for every global, as `pllvm run` prints memory.
    pub memory: Vec<(String, String)>,
    /// Every global's contents as values, scalar by scalar (the same memory as
    /// `memory`, for comparisons by value: `crate::equiv`).
    pub globals: Vec<GlobalValues>,
    /// A schedule that ends this way (a shortest one).
    pub witness: Vec<Block>,
    /// The undefined behaviour, when the ending is `undefined: …`: its rule, lane
    /// and site, for a front end to render at its source position.
    pub undefined: Option<Ub>,
}

/// A pair of concurrent next blocks (Def. 20) and a state that witnesses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConcurrentNext {
    /// The pair, lower arena index first.
    pub blocks: (Block, Block),
    /// A schedule that leads to a witness state.
    pub witness: Vec<Block>,
}

/// A state where a loop header and another block of its loop are concurrent
/// next: a counterexample to Theorem 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theorem1Violation {
    /// The loop header.
    pub header: Block,
    /// The other block of the loop.
    pub other: Block,
    /// A schedule that leads to the state.
    pub witness: Vec<Block>,
}

/// What [`explore`] found.
#[derive(Clone, Debug)]
pub struct Exploration {
    /// The function explored.
    pub func: FuncId,
    /// Distinct states explored (ends not counted).
    pub states: usize,
    /// Transitions (state, block) followed.
    pub transitions: usize,
    /// Why the exploration is not exhaustive, `None` when it is.
    pub truncated: Option<String>,
    /// The distinct outcomes, in the order they were found.
    pub outcomes: Vec<ExploredOutcome>,
    /// Whether some greedy schedule ends (`None`: unknown, the bounds cut it off).
    pub can_terminate: Option<bool>,
    /// Transitions that termination preservation (§5.3) rules out: into states
    /// from which no schedule ends.
    pub pruned: usize,
    /// Whether the states greedy schedules reach contain a cycle: a schedule can
    /// spin forever there (illegal by §5.3 when some schedule ends, as in
    /// Fig. 5.5; the schedulers leave such cycles by state repetition).
    pub spins: bool,
    /// The natural loops of the program (for Theorem 1).
    pub loops: Vec<NaturalLoop>,
    /// Whether the CFG is reducible (Theorem 1 is stated for reducible CFGs).
    pub reducible: bool,
    /// Block names by arena index, for rendering.
    pub block_names: Vec<String>,
    /// Bytes fed to the fingerprint's hashers over the whole search (digests of
    /// unchanged parts of Δ^W count 16 bytes each: `pllvm_semantics::persistent`):
    /// the hashing work, for tests that bound it per state.
    pub fingerprinted_bytes: u64,
    /// Per Cnb pair (Def. 20), the first state (breadth first) that witnesses
    /// it; its schedule is built from `parents` when asked for.
    cnb: BTreeMap<(Block, Block), u32>,
    cnb_schedulable: BTreeMap<(Block, Block), u32>,
    /// How each state was first reached: its parent and the block scheduled
    /// (`None` for the initial state). A witness schedule is read back from it
    /// on demand, so that the exploration holds O(states), not a schedule per
    /// pair (O(states) each).
    parents: Vec<Option<(u32, Block)>>,
}

impl Exploration {
    /// `Cnb` (Def. 20): the unordered pairs of distinct blocks that two different
    /// lanes have their control masks set for (Def. 6) at once in some state a
    /// greedy schedule reaches, where scheduling either block makes progress
    /// (Def. 14); with a shortest witness schedule each.
    ///
    /// Reading of Def. 20: its second condition asks that scheduling either block
    /// "is synchronizing (Definition 17) and makes progress (Definition 14)".
    /// pllvm keeps progress but not synchronization, because the chapter's own
    /// examples need that: in Fig. 7.1b one lane waits at D while the other is at
    /// C, and D is not synchronizing then (C reaches D), yet {C, D} ∈ Cnb; likewise
    /// {B, X} of Fig. 7.1d; and Axiom 1 (a) pairs a block with its own successor,
    /// which is never synchronizing while the other lane waits. Theorem 1 would
    /// also be trivial with synchronization (a lane at the header H makes every
    /// other block of the loop non-synchronizing), while its proof argues about how
    /// the state is reached. Progress stays: a lane with ℓ_next = ⊤ at a uniform
    /// branch (Fig. 5.2) accepts the other side too, but cannot be sent there.
    /// The literal set is [`Exploration::concurrent_next_blocks_schedulable`].
    pub fn concurrent_next_blocks(&self) -> Vec<ConcurrentNext> {
        self.pairs(&self.cnb)
    }

    /// The literal reading of Def. 20: the pairs of two lanes' next blocks where
    /// both blocks make progress (Def. 14) and synchronize (Def. 17) in the state.
    pub fn concurrent_next_blocks_schedulable(&self) -> Vec<ConcurrentNext> {
        self.pairs(&self.cnb_schedulable)
    }

    fn pairs(&self, map: &BTreeMap<(Block, Block), u32>) -> Vec<ConcurrentNext> {
        map.iter()
            .map(|(&blocks, &state)| ConcurrentNext {
                blocks,
                witness: self.path(state),
            })
            .collect()
    }

    /// The schedule that first reached state `n` (breadth first: a shortest one).
    fn path(&self, mut n: u32) -> Vec<Block> {
        let mut out = Vec::new();
        while let Some((p, b)) = self.parents[n as usize] {
            out.push(b);
            n = p;
        }
        out.reverse();
        out
    }

    /// Theorem 1 (Ch. 7) on every explored state: no loop header is concurrent next
    /// with another block of its loop. Returns the counterexamples (none expected;
    /// natural loops only, so irreducible cycles are not checked).
    pub fn theorem_1_violations(&self) -> Vec<Theorem1Violation> {
        // Each loop by its header, found once per pair instead of by a scan.
        let by_header: HashMap<Block, &NaturalLoop> =
            self.loops.iter().map(|l| (l.header, l)).collect();
        let mut out = Vec::new();
        for (&(a, b), &state) in &self.cnb {
            for (h, other) in [(a, b), (b, a)] {
                if let Some(lp) = by_header.get(&h)
                    && lp.contains(other)
                {
                    out.push(Theorem1Violation {
                        header: h,
                        other,
                        witness: self.path(state),
                    });
                }
            }
        }
        out
    }

    /// Whether every greedy schedule gives the same outcome: the exploration is
    /// exhaustive, some schedule ends, and there is exactly one outcome.
    pub fn schedule_independent(&self) -> bool {
        self.truncated.is_none() && self.can_terminate == Some(true) && self.outcomes.len() == 1
    }

    /// The name of `b`.
    pub fn name(&self, b: Block) -> &str {
        self.block_names
            .get(b.as_u32() as usize)
            .map_or("?", String::as_str)
    }

    /// One line per distinct outcome: `ENDING RESULT (witness SCHEDULE)`.
    pub fn outcome_lines(&self) -> Vec<String> {
        self.outcomes
            .iter()
            .map(|o| {
                format!(
                    "{} {} (witness {})",
                    o.ending,
                    o.result_text,
                    self.schedule_text(&o.witness)
                )
            })
            .collect()
    }

    /// `A,B,C` for a schedule.
    pub fn schedule_text(&self, schedule: &[Block]) -> String {
        schedule
            .iter()
            .map(|&b| self.name(b))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The explored graph `graph` (recorded by [`explore_graph`]) in the DOT
    /// language (`pllvm explore --dot`): state nodes `sN` (boxes: ℓ_next per
    /// lane, Def. 3; the control mask, Def. 6, of each block that may be
    /// scheduled; Cnb pairs, Def. 20, filled yellow; states off limits by
    /// termination preservation, §5.3, and the transitions into them grey and
    /// dashed), outcome nodes `oK` (ellipses: green when every lane returned,
    /// red for undefined behaviour, yellow for a limit, grey when blocked), cut
    /// nodes `cutK` (dashed octagons, where a bound stopped the search) and
    /// transitions labelled with the scheduled block. The graph's label says
    /// whether the exploration is exhaustive.
    pub fn dot(&self, graph: &StateGraph) -> String {
        let exploration = self;
        // Quoted; `\n` and `\l` inside stay Graphviz's line breaks.
        let q = |s: &str| format!("\"{}\"", s.replace('"', "\\\""));
        let mut s = String::from("digraph \"pllvm explore\" {\n");
        s.push_str(&format!(
            "  label={}; labelloc=t; fontname=\"monospace\";\n",
            q(&format!(
                "explored {} states, {} transitions, {} outcomes ({})",
                exploration.states,
                exploration.transitions,
                exploration.outcomes.len(),
                match &exploration.truncated {
                    None => "exhaustive".to_string(),
                    Some(why) => format!("truncated: {why}"),
                }
            ))
        ));
        s.push_str(
            "  node [shape=box, fontname=\"monospace\"];\n  edge [fontname=\"monospace\"];\n",
        );
        for (k, node) in graph.states.iter().enumerate() {
            let mut label = format!("s{k}\\lℓnext: {}\\l", node.next.join(" "));
            for (b, bits) in &node.masks {
                label.push_str(&format!("cmask {}: {bits}\\l", b));
            }
            if !node.cnb.is_empty() {
                let pairs: Vec<String> = node
                    .cnb
                    .iter()
                    .map(|(a, b)| format!("{{{a}, {b}}}"))
                    .collect();
                label.push_str(&format!("Cnb: {}\\l", pairs.join(" ")));
            }
            if node.off_limits {
                label.push_str("no end reachable (§5.3)\\l");
            }
            let mut attrs = vec![format!("label={}", q(&label))];
            if node.off_limits {
                attrs.push("style=dashed, color=gray50, fontcolor=gray50".into());
            } else if !node.cnb.is_empty() {
                attrs.push("style=filled, fillcolor=lightyellow".into());
            }
            if k == 0 {
                attrs.push("penwidth=2".into());
            }
            s.push_str(&format!("  \"s{k}\" [{}];\n", attrs.join(", ")));
        }
        for (k, o) in exploration.outcomes.iter().enumerate() {
            let fill = if o.ending == "returned" {
                "palegreen"
            } else if o.ending.starts_with("undefined") {
                "salmon"
            } else if o.ending.starts_with("limit") {
                "khaki"
            } else {
                "lightgray"
            };
            let mut label = format!("outcome {k}: {}\\n{}", o.ending, o.result_text);
            for (g, contents) in &o.memory {
                label.push_str(&format!("\\n{g} = {contents}"));
            }
            s.push_str(&format!(
                "  \"o{k}\" [shape=ellipse, style=filled, fillcolor={fill}, label={}];\n",
                q(&label)
            ));
        }
        for (k, why) in graph.cuts.iter().enumerate() {
            s.push_str(&format!(
                "  \"cut{k}\" [shape=octagon, style=dashed, label={}];\n",
                q(&format!("not explored: {why}"))
            ));
        }
        for e in &graph.edges {
            let to = match e.to {
                Target::State(n) => format!("s{n}"),
                Target::Outcome(k) => format!("o{k}"),
                Target::Cut(k) => format!("cut{k}"),
            };
            let style = match e.to {
                Target::Cut(_) => ", style=dashed",
                // Ruled out by termination preservation (§5.3).
                Target::State(t) if graph.states[t as usize].off_limits => {
                    ", style=dashed, color=gray50, fontcolor=gray50"
                }
                _ => "",
            };
            s.push_str(&format!(
                "  \"s{}\" -> \"{to}\" [label={}{style}];\n",
                e.from,
                q(&e.label)
            ));
        }
        s.push_str("}\n");
        s
    }

    /// The report `pllvm explore` prints.
    pub fn report(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "explored {} states, {} transitions ({})\n",
            self.states,
            self.transitions,
            match &self.truncated {
                None => "exhaustive".to_string(),
                Some(why) => format!("truncated: {why}"),
            }
        ));
        s.push_str(&format!("outcomes: {}\n", self.outcomes.len()));
        for o in &self.outcomes {
            s.push_str(&format!("  {} {}", o.ending, o.result_text));
            for (g, contents) in &o.memory {
                s.push_str(&format!("  {g} = {contents}"));
            }
            s.push_str(&format!(
                "\n    witness: {}\n",
                self.schedule_text(&o.witness)
            ));
        }
        s.push_str(&format!(
            "terminates: {}\n",
            match self.can_terminate {
                Some(true) => "some greedy schedule ends; non-ending schedules are illegal (§5.3)",
                Some(false) => "no greedy schedule ends",
                None => "unknown (bounds reached)",
            }
        ));
        if self.spins {
            s.push_str("spins: some greedy-reachable states form a cycle (a schedule may repeat them forever)\n");
        }
        if self.pruned > 0 {
            s.push_str(&format!(
                "termination preservation (§5.3) rules out {} transitions\n",
                self.pruned
            ));
        }
        s.push_str(&format!(
            "schedule-independent: {}\n",
            if self.schedule_independent() {
                "yes"
            } else if self.truncated.is_some() || self.can_terminate != Some(true) {
                "unknown"
            } else {
                "no"
            }
        ));
        // The pairs only: their witness schedules are not printed.
        let cnb: Vec<String> = self
            .cnb
            .keys()
            .map(|&(a, b)| format!("{{{}, {}}}", self.name(a), self.name(b)))
            .collect();
        s.push_str(&format!(
            "concurrent next blocks (Def. 20): {}\n",
            if cnb.is_empty() {
                "none".to_string()
            } else {
                cnb.join(", ")
            }
        ));
        let literal: Vec<String> = self
            .cnb_schedulable
            .keys()
            .map(|&(a, b)| format!("{{{}, {}}}", self.name(a), self.name(b)))
            .collect();
        s.push_str(&format!(
            "  of which both blocks also synchronize (literal Def. 20): {}\n",
            if literal.is_empty() {
                "none".to_string()
            } else {
                literal.join(", ")
            }
        ));
        let violations = self.theorem_1_violations();
        if violations.is_empty() {
            s.push_str(&format!(
                "theorem 1: holds on every explored state ({} natural loop{})\n",
                self.loops.len(),
                if self.loops.len() == 1 { "" } else { "s" }
            ));
        } else {
            for v in violations {
                s.push_str(&format!(
                    "theorem 1: violated: header {} concurrent next with {} after {}\n",
                    self.name(v.header),
                    self.name(v.other),
                    self.schedule_text(&v.witness)
                ));
            }
        }
        s
    }
}

/// Why [`explore`] could not explore.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExploreError {
    /// The initial state could not be set up.
    Setup(SetupError),
    /// No rule applies in some step (a bug or an unverified program), after the
    /// given schedule.
    Stuck {
        /// The message.
        message: String,
        /// The schedule that gets stuck.
        schedule: Vec<String>,
    },
}

impl std::fmt::Display for ExploreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExploreError::Setup(e) => write!(f, "{e}"),
            ExploreError::Stuck { message, schedule } => {
                write!(f, "{message} (after {})", schedule.join(","))
            }
        }
    }
}

/// A node of the explored graph: a state, how it was first reached, its depth.
struct Node {
    parent: Option<(u32, Block)>,
    depth: usize,
}

/// Distinct outcomes: how the run ended, the results, the globals' bytes.
type OutcomeKey = (String, Vec<Option<Val>>, Vec<ByteStore>);

/// One transition the exploration follows: block `step.scheduled` scheduled in
/// the state `before` gives the state `after` ([LSS-W-STEP], Fig. 4.3).
///
/// States are numbered in the order the breadth-first search first meets them
/// (the initial state is 0); `first_visit` says whether this transition is the one
/// that met `to` first, so a visitor can carry facts about how a state was
/// reached (a parent map, the history of its stack objects) from `from` to `to`.
/// Every node is expanded after the transition that met it first.
pub struct Transition<'a> {
    /// The program being explored (blocks, instructions, names).
    pub program: &'a Program<'a>,
    /// The number of the state before.
    pub from: u32,
    /// The number of the state after, `None` when the state bound kept it out of
    /// the explored graph (the step was still executed and is handed over).
    pub to: Option<u32>,
    /// Whether this transition met `to` first.
    pub first_visit: bool,
    /// σ before the step.
    pub before: &'a State,
    /// What the block did ([BLS-W-STEP]): cmsk^W, pmsk^W, amsk^W and i^W.
    pub step: &'a BlockStep,
    /// σ' after the step.
    pub after: &'a State,
}

/// Explores every greedy schedule (Def. 12) of the program `config` selects in
/// `module`, from its initial state (Def. 4), within `bounds`.
pub fn explore(
    module: &Module,
    config: &RunConfig,
    bounds: &Bounds,
) -> Result<Exploration, ExploreError> {
    explore_with(module, config, bounds, &mut |_| {})
}

/// [`explore`], handing `visit` every transition the search follows, in the
/// order it follows them (breadth first).
///
/// The visitor sees each (state, block) pair of the explored graph once: a state
/// reached by two schedules is expanded once. It sees the transitions that end
/// a schedule with undefined behaviour or a resource limit only through the
/// returned outcomes (such a step has no state after it). The transitions that
/// termination preservation (§5.3) rules out once the whole graph is known
/// ([`Exploration::pruned`]) are among those visited: the visitor sees a
/// superset of the greedy transitions, never fewer.
pub fn explore_with(
    module: &Module,
    config: &RunConfig,
    bounds: &Bounds,
    visit: &mut dyn FnMut(&Transition<'_>),
) -> Result<Exploration, ExploreError> {
    explore_watched(module, config, bounds, visit, &mut |_| {
        ControlFlow::Continue(())
    })
}

/// How far an exploration has come, for [`explore_watched`]'s watcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Distinct states found so far.
    pub states: usize,
    /// Transitions followed so far.
    pub transitions: usize,
    /// States found and not yet expanded.
    pub queued: usize,
    /// The schedule length of the state about to be expanded.
    pub depth: usize,
}

/// [`explore_with`], asking `watch` before expanding each state whether to go
/// on: `ControlFlow::Break(why)` ends the search there (a time limit, Ctrl-C),
/// and the exploration is reported as truncated by `why`, its queued states
/// unexpanded (as the bounds leave them), so that nothing unknown is claimed.
pub fn explore_watched(
    module: &Module,
    config: &RunConfig,
    bounds: &Bounds,
    visit: &mut dyn FnMut(&Transition<'_>),
    watch: &mut dyn FnMut(&Progress) -> ControlFlow<String>,
) -> Result<Exploration, ExploreError> {
    explore_recording(module, config, bounds, visit, watch, None)
}

/// [`explore_watched`], also recording the explored graph (states, transitions
/// labelled with the scheduled block, outcomes and the cuts of the bounds:
/// [`StateGraph`]) for `pllvm explore --dot`.
pub fn explore_graph(
    module: &Module,
    config: &RunConfig,
    bounds: &Bounds,
    watch: &mut dyn FnMut(&Progress) -> ControlFlow<String>,
) -> Result<(Exploration, StateGraph), ExploreError> {
    let mut graph = StateGraph::default();
    let e = explore_recording(module, config, bounds, &mut |_| {}, watch, Some(&mut graph))?;
    Ok((e, graph))
}

/// The search of [`explore_watched`]; records into `graph` when given.
fn explore_recording(
    module: &Module,
    config: &RunConfig,
    bounds: &Bounds,
    visit: &mut dyn FnMut(&Transition<'_>),
    watch: &mut dyn FnMut(&Progress) -> ControlFlow<String>,
    graph: Option<&mut StateGraph>,
) -> Result<Exploration, ExploreError> {
    let machine = Machine::new(module, config).map_err(ExploreError::Setup)?;
    let mut search = Search::new(module, &machine, bounds, visit, graph);
    while let Some(n) = search.queue.pop_front() {
        if let ControlFlow::Break(why) = watch(&search.progress(n)) {
            search.stop(n, why);
            break;
        }
        search.expand(n)?;
    }
    Ok(search.finish())
}

/// A global as an outcome records it: its name (`@g`), the object holding it
/// (`None` when it has none), its element type, and its id.
type GlobalSlot = (String, Option<ObjectId>, Ty, GlobalId);

/// The breadth-first search of [`explore_recording`]: the explored graph so far,
/// the queue of states to expand, the outcomes found, and what the bounds cut.
///
/// States are numbered in the order the search first meets them (the initial
/// state is 0). The per-state tables `states`, `nodes`, `preds`, `ends`,
/// `unexpanded` and `node_cnb` always have one entry per numbered state (a state
/// is numbered and pushed onto all of them at once, by [`Search::discover`]), and
/// `index` maps the fingerprint of every numbered state to its number.
struct Search<'a, 'v> {
    module: &'a Module,
    program: &'a Program<'a>,
    facts: GreedyFacts,
    bounds: &'a Bounds,
    /// The module's globals, in order (an outcome's memory).
    globals: Vec<GlobalSlot>,
    /// The width of the function's integer result, for rendering results signed.
    ret_width: Option<u32>,
    visit: &'v mut dyn FnMut(&Transition<'_>),
    graph: Option<&'v mut StateGraph>,
    /// The states waiting in the queue, whole; an expanded state is dropped
    /// (`None`) and only its fingerprint stays in `index`.
    states: Vec<Option<State>>,
    /// How each state was first reached, and its depth.
    nodes: Vec<Node>,
    /// State fingerprint → state number.
    index: HashMap<u128, u32>,
    /// Per state, the states with a transition into it (once per transition).
    preds: Vec<Vec<u32>>,
    /// Per state, whether some schedule ends there or in one step from it.
    ends: Vec<bool>,
    /// Per state, whether the bounds (or the watcher) left some of its
    /// transitions unfollowed.
    unexpanded: Vec<bool>,
    /// Per expanded state, its concurrent-next pairs (Def. 20) among the
    /// progressing blocks and among the schedulable ones.
    node_cnb: Vec<[Vec<(Block, Block)>; 2]>,
    /// The distinct outcomes, in the order they were found.
    outcomes: Vec<ExploredOutcome>,
    /// Outcome → its index in `outcomes`.
    outcome_keys: HashMap<OutcomeKey, usize>,
    /// Why the exploration is not exhaustive (`None`: so far it is).
    truncated: Option<String>,
    /// Transitions (state, block) followed so far.
    transitions: usize,
    /// The shuffle of [`Order::Random`] (seed 0 otherwise, and unused).
    rng: crate::sched::Random,
    /// States numbered and not yet expanded, in breadth-first order.
    queue: VecDeque<u32>,
    /// Bytes fed to the fingerprint's hashers so far.
    fingerprinted_bytes: u64,
}

impl<'a, 'v> Search<'a, 'v> {
    /// The search with only the initial state of `machine`, numbered 0 and queued.
    fn new(
        module: &'a Module,
        machine: &'a Machine<'a>,
        bounds: &'a Bounds,
        visit: &'v mut dyn FnMut(&Transition<'_>),
        mut graph: Option<&'v mut StateGraph>,
    ) -> Self {
        let program = &machine.program;
        let facts = GreedyFacts::compute(program)
            .with_interp(machine.interp)
            .with_exec(machine.exec)
            .with_termination_budget(0);
        let globals: Vec<GlobalSlot> = module
            .globals
            .iter()
            .map(|(g, data)| {
                (
                    format!("@{}", data.name),
                    machine.global_pointer(g).and_then(|p| p.object),
                    crate::machine::element_type(&module.types, data.ty),
                    g,
                )
            })
            .collect();
        let ret_width = module
            .types
            .int_width(module.functions[program.func].ret_ty);
        let mut index = HashMap::new();
        let (h, fingerprinted_bytes) = fingerprint(&machine.state);
        index.insert(h, 0);
        if let Some(g) = graph.as_deref_mut() {
            g.add_state(0, &machine.state, program);
        }
        Search {
            module,
            program,
            facts,
            bounds,
            globals,
            ret_width,
            visit,
            graph,
            states: vec![Some(machine.state.clone())],
            nodes: vec![Node {
                parent: None,
                depth: 0,
            }],
            index,
            preds: vec![Vec::new()],
            ends: vec![false],
            unexpanded: vec![false],
            node_cnb: vec![Default::default()],
            outcomes: Vec::new(),
            outcome_keys: HashMap::new(),
            truncated: None,
            transitions: 0,
            rng: crate::sched::Random::new(match bounds.order {
                Order::Random(seed) => seed,
                _ => 0,
            }),
            queue: VecDeque::from([0]),
            fingerprinted_bytes,
        }
    }

    /// How far the search has come, with state `n` just taken off the queue.
    fn progress(&self, n: u32) -> Progress {
        Progress {
            states: self.states.len(),
            transitions: self.transitions,
            queued: self.queue.len() + 1,
            depth: self.nodes[n as usize].depth,
        }
    }

    /// The schedule that first reached state `n`.
    fn path(&self, mut n: u32) -> Vec<Block> {
        let mut out = Vec::new();
        while let Some((p, b)) = self.nodes[n as usize].parent {
            out.push(b);
            n = p;
        }
        out.reverse();
        out
    }

    /// Records in the graph (when recording) that a bound cut the transition
    /// `label` out of state `n` for `why`.
    fn cut_edge(&mut self, n: u32, label: &str, why: &str) {
        if let Some(g) = self.graph.as_deref_mut() {
            let cut = g.cut(why);
            g.edge(n, label, cut);
        }
    }

    /// Records in the graph (when recording) the transition `label` from state
    /// `n` to `to`.
    fn edge(&mut self, n: u32, label: &str, to: Target) {
        if let Some(g) = self.graph.as_deref_mut() {
            g.edge(n, label, to);
        }
    }

    /// The watcher said stop with state `n` taken off the queue: `n` and every
    /// queued state stay unexpanded, and the exploration is truncated by `why`.
    fn stop(&mut self, n: u32, why: String) {
        let rest: Vec<u32> = self.queue.drain(..).collect();
        for k in std::iter::once(n).chain(rest) {
            self.unexpanded[k as usize] = true;
            self.cut_edge(k, "", &why);
        }
        self.truncated = Some(match self.truncated.take() {
            None => why,
            Some(before) => format!("{why}; {before}"),
        });
    }

    /// Expands state `n`: an end, a cut of the step bound, a blocked state, or
    /// a transition for every schedulable block, in the order of the bounds.
    fn expand(&mut self, n: u32) -> Result<(), ExploreError> {
        let Some(state) = self.states[n as usize].take() else {
            return Ok(());
        };
        let program = self.program;
        if state.all_done() {
            self.ends[n as usize] = true;
            let k = self.record_end(n, "returned".into(), None, &state, None);
            self.edge(n, "returned", Target::Outcome(k));
            return Ok(());
        }
        if self.nodes[n as usize].depth >= self.bounds.max_steps {
            self.unexpanded[n as usize] = true;
            let why = format!("schedules longer than {} steps", self.bounds.max_steps);
            self.cut_edge(n, "", &why);
            self.truncated.get_or_insert(why);
            return Ok(());
        }
        let mut next = candidates(program, &self.facts, &state);
        if next.is_empty() {
            self.ends[n as usize] = true;
            let waiting: Vec<String> = (0..state.width())
                .filter(|&t| !state.next[t].is_done())
                .map(|t| t.to_string())
                .collect();
            let ending = format!(
                "blocked: no block makes progress and synchronizes (lanes {} wait)",
                waiting.join(", ")
            );
            let k = self.record_end(n, ending, None, &state, None);
            self.edge(n, "blocked", Target::Outcome(k));
            return Ok(());
        }
        self.order(&mut next);
        let progressing: Vec<Block> = crate::sched::pending(program, &state)
            .into_iter()
            .filter(|&b| progress(program, &state, b).is_ok())
            .collect();
        self.node_cnb[n as usize] = [
            cnb_pairs(program, &state, &progressing),
            cnb_pairs(program, &state, &next),
        ];
        if let Some(g) = self.graph.as_deref_mut() {
            g.expanded(n, &state, program, &next, &self.node_cnb[n as usize][0]);
        }
        for b in next {
            self.follow(n, &state, b)?;
        }
        Ok(())
    }

    /// Puts the schedulable blocks `next` in the order of the bounds.
    fn order(&mut self, next: &mut [Block]) {
        match self.bounds.order {
            Order::Lowest => next.sort_by_key(|&b| self.facts.index_of(b)),
            Order::Highest => next.sort_by_key(|&b| std::cmp::Reverse(self.facts.index_of(b))),
            Order::Random(_) => {
                for k in (1..next.len()).rev() {
                    let j = (self.rng.next_u64() % (k as u64 + 1)) as usize;
                    next.swap(k, j);
                }
            }
        }
    }

    /// Follows the transition that schedules `b` in state `n` (`state`): an
    /// outcome, a known state, a new state, or a cut of the state bound.
    fn follow(&mut self, n: u32, state: &State, b: Block) -> Result<(), ExploreError> {
        let program = self.program;
        self.transitions += 1;
        match step_keeping(program, self.facts.interp, self.facts.exec, state, b) {
            Stepped::Stuck(message) => {
                let mut schedule = self.path(n);
                schedule.push(b);
                Err(ExploreError::Stuck {
                    message,
                    schedule: schedule
                        .iter()
                        .map(|&b| program.block_name(b).to_string())
                        .collect(),
                })
            }
            Stepped::Ended(ending, undefined) => {
                self.ends[n as usize] = true;
                let k = self.record_end(n, ending, undefined, state, Some(b));
                self.edge(n, program.block_name(b), Target::Outcome(k));
                Ok(())
            }
            Stepped::State(next_and_step) => {
                let (after, step) = *next_and_step;
                let (h, bytes) = fingerprint(&after);
                self.fingerprinted_bytes += bytes;
                let mut transition = Transition {
                    program,
                    from: n,
                    to: None,
                    first_visit: false,
                    before: state,
                    step: &step,
                    after: &after,
                };
                let target = match self.index.get(&h).copied() {
                    Some(id) => {
                        transition.to = Some(id);
                        (self.visit)(&transition);
                        id
                    }
                    None if self.states.len() >= self.bounds.max_states => {
                        self.unexpanded[n as usize] = true;
                        let why = format!("more than {} states", self.bounds.max_states);
                        self.cut_edge(n, program.block_name(b), &why);
                        self.truncated.get_or_insert(why);
                        (self.visit)(&transition);
                        return Ok(());
                    }
                    None => {
                        let id = self.states.len() as u32;
                        transition.to = Some(id);
                        transition.first_visit = true;
                        (self.visit)(&transition);
                        self.discover(id, n, b, h, after);
                        id
                    }
                };
                self.preds[target as usize].push(n);
                self.edge(n, program.block_name(b), Target::State(target));
                Ok(())
            }
        }
    }

    /// Numbers the new state `after` (fingerprint `h`) `id`, first reached from
    /// state `n` by scheduling `b`, and queues it.
    fn discover(&mut self, id: u32, n: u32, b: Block, h: u128, after: State) {
        if let Some(g) = self.graph.as_deref_mut() {
            g.add_state(id, &after, self.program);
        }
        self.states.push(Some(after));
        self.nodes.push(Node {
            parent: Some((n, b)),
            depth: self.nodes[n as usize].depth + 1,
        });
        self.index.insert(h, id);
        self.preds.push(Vec::new());
        self.ends.push(false);
        self.unexpanded.push(false);
        self.node_cnb.push(Default::default());
        self.queue.push_back(id);
    }

    /// The outcome of a schedule ending in `state` (after scheduling `last` in
    /// state `n`, when the step itself ended the run): its index among the
    /// outcomes, a new one when no schedule ended this way before.
    fn record_end(
        &mut self,
        n: u32,
        ending: String,
        undefined: Option<Ub>,
        state: &State,
        last: Option<Block>,
    ) -> usize {
        let results: Vec<Option<Val>> = state
            .next
            .iter()
            .map(|x| match x {
                Next::Done(v) => Some(v.clone()),
                _ => None,
            })
            .collect();
        let bytes: Vec<ByteStore> = self
            .globals
            .iter()
            .map(|(_, o, _, _)| {
                o.and_then(|o| state.mem.object(o))
                    .map_or(ByteStore::default(), |obj| obj.bytes.clone())
            })
            .collect();
        let key = (ending.clone(), results.clone(), bytes);
        if let Some(&k) = self.outcome_keys.get(&key) {
            return k;
        }
        let mut witness = self.path(n);
        witness.extend(last);
        let outcome = self.outcome(ending, undefined, state, results, witness);
        self.outcome_keys.insert(key, self.outcomes.len());
        self.outcomes.push(outcome);
        self.outcomes.len() - 1
    }

    /// A new outcome: how the run ended, the lanes' `results`, the globals of
    /// `state`, and a `witness` schedule.
    fn outcome(
        &self,
        ending: String,
        undefined: Option<Ub>,
        state: &State,
        results: Vec<Option<Val>>,
        witness: Vec<Block>,
    ) -> ExploredOutcome {
        let module = self.module;
        let result_text = format!(
            "[{}]",
            results
                .iter()
                .map(|r| match r {
                    None => "-".to_string(),
                    Some(v) => match self.ret_width {
                        Some(w) => display_signed(v, w),
                        None => v.to_string(),
                    },
                })
                .collect::<Vec<_>>()
                .join(", ")
        );
        let memory = self
            .globals
            .iter()
            .filter_map(|(name, o, elem, _)| {
                let o = (*o)?;
                Some((name.clone(), state.mem.dump_object(o, &module.types, *elem)))
            })
            .collect();
        let values = self
            .globals
            .iter()
            .filter_map(|(_, o, _, g)| Some(global_values(module, &state.mem, *g, (*o)?)))
            .collect();
        ExploredOutcome {
            ending,
            results,
            result_text,
            memory,
            globals: values,
            witness,
            undefined,
        }
    }

    /// The states from which an end is reachable backwards from `seeds` along
    /// the explored transitions.
    fn backward(&self, seeds: &[bool]) -> Vec<bool> {
        let mut reach = seeds.to_vec();
        let mut work: Vec<u32> = (0..reach.len() as u32)
            .filter(|&k| reach[k as usize])
            .collect();
        while let Some(k) = work.pop() {
            for &p in &self.preds[k as usize] {
                if !reach[p as usize] {
                    reach[p as usize] = true;
                    work.push(p);
                }
            }
        }
        reach
    }

    /// The exploration, once the queue is empty or the watcher stopped it:
    /// termination preservation (§5.3) applied to the explored graph, the
    /// states greedy schedules reach, whether they spin, and the concurrent
    /// next blocks with their witnesses.
    fn finish(mut self) -> Exploration {
        // §5.3: which states can still end (surely: through explored ends only; maybe:
        // also through states the bounds left unexpanded).
        let surely = self.backward(&self.ends);
        let seeds: Vec<bool> = self
            .ends
            .iter()
            .zip(&self.unexpanded)
            .map(|(a, b)| *a || *b)
            .collect();
        let maybe = self.backward(&seeds);
        let can_terminate = if surely[0] {
            Some(true)
        } else if maybe[0] {
            None
        } else {
            Some(false)
        };
        // The states greedy schedules reach: with an end in sight, only through states
        // that can still end (§5.3).
        let allowed = |k: usize| !maybe[0] || maybe[k];
        if let Some(g) = self.graph.as_deref_mut() {
            for (k, node) in g.states.iter_mut().enumerate() {
                node.off_limits = !allowed(k);
            }
        }
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); self.states.len()];
        for (to, ps) in self.preds.iter().enumerate() {
            for &p in ps {
                succs[p as usize].push(to as u32);
            }
        }
        let (reached, pruned) = reached_states(&succs, &allowed);
        let spins = spins(&succs, &reached, &allowed);
        // Breadth-first ids grow with depth, so the first witness is a shortest one.
        let mut cnb: [BTreeMap<(Block, Block), u32>; 2] = Default::default();
        for (k, sets) in self.node_cnb.iter().enumerate() {
            if !reached[k] {
                continue;
            }
            for (map, pairs) in cnb.iter_mut().zip(sets) {
                for &pair in pairs {
                    map.entry(pair).or_insert(k as u32);
                }
            }
        }
        let [cnb, cnb_schedulable] = cnb;
        Exploration {
            func: self.program.func,
            states: self.states.len(),
            transitions: self.transitions,
            truncated: self.truncated,
            outcomes: self.outcomes,
            can_terminate,
            pruned,
            spins,
            loops: self.facts.loops,
            reducible: self.facts.reducible,
            block_names: self
                .program
                .body
                .blocks
                .values()
                .map(|b| b.name.clone())
                .collect(),
            fingerprinted_bytes: self.fingerprinted_bytes,
            cnb,
            cnb_schedulable,
            parents: self.nodes.iter().map(|n| n.parent).collect(),
        }
    }
}

/// The states greedy schedules reach from state 0 along `succs` through
/// `allowed` states only, and how many transitions into states not allowed
/// that rules out (each counted once per transition out of a reached state).
fn reached_states(succs: &[Vec<u32>], allowed: &dyn Fn(usize) -> bool) -> (Vec<bool>, usize) {
    let mut pruned = 0;
    let mut reached = vec![false; succs.len()];
    reached[0] = true;
    let mut work = vec![0u32];
    while let Some(k) = work.pop() {
        for &to in &succs[k as usize] {
            if !allowed(to as usize) {
                pruned += 1;
                continue;
            }
            if !reached[to as usize] {
                reached[to as usize] = true;
                work.push(to);
            }
        }
    }
    (reached, pruned)
}

/// Whether the `reached` states hold a cycle through `allowed` states: Kahn's
/// algorithm cannot remove them all.
fn spins(succs: &[Vec<u32>], reached: &[bool], allowed: &dyn Fn(usize) -> bool) -> bool {
    let mut indegree = vec![0usize; succs.len()];
    for (k, out) in succs.iter().enumerate() {
        if reached[k] {
            for &to in out {
                if reached[to as usize] && allowed(to as usize) {
                    indegree[to as usize] += 1;
                }
            }
        }
    }
    let mut free: Vec<usize> = (0..succs.len())
        .filter(|&k| reached[k] && indegree[k] == 0)
        .collect();
    let mut removed = 0;
    while let Some(k) = free.pop() {
        removed += 1;
        for &to in &succs[k] {
            let to = to as usize;
            if reached[to] && allowed(to) {
                indegree[to] -= 1;
                if indegree[to] == 0 {
                    free.push(to);
                }
            }
        }
    }
    removed < reached.iter().filter(|&&r| r).count()
}

/// What one step of [`explore_with`] gave.
enum Stepped {
    /// The next state and what the block did (boxed: the other variants are small).
    State(Box<(State, BlockStep)>),
    /// The run ended (undefined behaviour, a resource limit): the outcome text,
    /// and the undefined behaviour if that is how it ended.
    Ended(String, Option<Ub>),
    /// No rule applies (a bug or an unverified program); the message.
    Stuck(String),
}

/// Schedules `sc` on a copy of `state` ([LSS-W-STEP]), keeping the block step
/// (`crate::greedy::step_copy`, which the greedy constraints use, drops it).
fn step_keeping(
    program: &Program<'_>,
    interp: Interp,
    exec: Exec,
    state: &State,
    sc: Block,
) -> Stepped {
    let mut next = state.clone();
    let mut scratch = Scratch::default();
    match lss_w_step(program, interp, exec, sc, &mut next, &mut scratch, false) {
        Ok(step) => Stepped::State(Box::new((next, step))),
        Err(StepError::Undefined(ub)) => Stepped::Ended(format!("undefined: {ub}"), Some(ub)),
        Err(StepError::Limit(why)) => Stepped::Ended(format!("limit: {why}"), None),
        Err(StepError::Stuck(s)) => Stepped::Stuck(s.to_string()),
    }
}

/// The pairs of Def. 20 in one state: two different lanes, one with its control
/// mask set for `a`, the other for `b ≠ a` (lower arena index first), both blocks
/// among `allowed` (see [`Exploration::concurrent_next_blocks`] for which).
pub fn cnb_pairs(program: &Program<'_>, state: &State, allowed: &[Block]) -> Vec<(Block, Block)> {
    let targets: Vec<Vec<Block>> = (0..state.width())
        .map(|t| {
            lane_targets(program, state, t)
                .into_iter()
                .filter(|b| allowed.contains(b))
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    for (t, mine) in targets.iter().enumerate() {
        for (u, theirs) in targets.iter().enumerate() {
            if t == u {
                continue;
            }
            for &a in mine {
                for &b in theirs {
                    if a < b {
                        out.push((a, b));
                    }
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A 128-bit fingerprint of a state: two SipHash digests, the second over the
/// state behind a salt. Explored states are identified by it (hash compaction,
/// as explicit-state model checkers do): two different states merge only if both
/// digests collide, with probability about n² / 2^129 for n states.
///
/// Δ^W of more than `HASH_FLAT_MAX` values enters through its 128-bit digest
/// (`pllvm_semantics::persistent`: equal environments have equal digests, and
/// the digest of a state's environment reuses those of the parts its step did
/// not change; a shorter one enters value by value), so a fingerprint costs
/// O(W + memory + what the step changed), not O(values): the same states are
/// told apart and merged as by hashing every column (a different Δ^W changes
/// the digest but for a collision of both halves, 2^-128 per node). Returns the
/// fingerprint and the bytes fed to the two hashers.
fn fingerprint(state: &State) -> (u128, u64) {
    let mut a = Counting(DefaultHasher::new(), 0);
    state.hash(&mut a);
    let mut b = Counting(DefaultHasher::new(), 0);
    0x9e37_79b9_7f4a_7c15_u64.hash(&mut b);
    state.hash(&mut b);
    (
        (u128::from(a.finish()) << 64) | u128::from(b.finish()),
        a.1 + b.1,
    )
}

/// A hasher that counts the bytes written to it.
struct Counting<H>(H, u64);

impl<H: Hasher> Hasher for Counting<H> {
    fn finish(&self) -> u64 {
        self.0.finish()
    }

    fn write(&mut self, bytes: &[u8]) {
        self.1 += bytes.len() as u64;
        self.0.write(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two lanes part at A (lane 0 to B, lane 1 to C) and meet at D. The greedy
    /// schedules are A,B,C,D and A,C,B,D (B and C both synchronize: neither
    /// reaches the other, Def. 17); after B,C and after C,B the state is the same
    /// (each lane came to D from its own block, no memory), so the search meets
    /// it twice and expands it once. Breadth first, lowest block index first:
    /// states 0 (initial), 1 (after A), 2 and 3 (after the first of B and C), 4
    /// (both lanes at D, met from 2 first), 5 (ended).
    const DIAMOND: &str = "define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %z = icmp eq i32 %t, 0
  br i1 %z, label %B, label %C
B:
  br label %D
C:
  br label %D
D:
  %r = phi i32 [ 1, %B ], [ 2, %C ]
  ret i32 %r
}
";

    /// The diamond, parsed, and a run of two lanes.
    fn diamond() -> (Module, RunConfig) {
        let (module, _) = match pllvm_semantics::text::parse_module(DIAMOND) {
            Ok(parsed) => parsed,
            Err(e) => panic!("the test program does not parse: {e:?}"),
        };
        let config = RunConfig {
            threads: 2,
            ..Default::default()
        };
        (module, config)
    }

    /// `units` diamond+loop units in a chain (as `scripts/explore-chain.py`
    /// writes them, with the loop bound 3 as a constant): 8 states per unit at
    /// W = 2, and 8 values per unit (4 constants) that every state holds.
    fn chain(units: usize) -> Module {
        let mut s = String::from(
            "define i32 @f() {\nentry:\n  %tid = call i32 @pllvm.thread_id()\n  br label %h0\n",
        );
        for k in 0..units {
            s.push_str(&format!(
                "h{k}:\n  %c{k} = icmp slt i32 %tid, 1\n  br i1 %c{k}, label %l{k}, label %r{k}\n\
                 l{k}:\n  br label %j{k}\nr{k}:\n  br label %j{k}\nj{k}:\n  br label %L{k}\n\
                 L{k}:\n  %i{k} = phi i32 [ 0, %j{k} ], [ %n{k}, %L{k} ]\n  %n{k} = add i32 %i{k}, 1\n\
                 \x20 %e{k} = icmp sge i32 %n{k}, 3\n  br i1 %e{k}, label %h{}, label %L{k}\n",
                k + 1
            ));
        }
        s.push_str(&format!("h{units}:\n  ret i32 0\n}}\n"));
        match pllvm_semantics::text::parse_module(&s) {
            Ok((module, _)) => module,
            Err(e) => panic!("the chain does not parse: {e:?}"),
        }
    }

    /// The work of copying and fingerprinting per explored state does not grow
    /// with the program: on chains of 10 and 100 units (10x the states, 10x the
    /// values every state holds), the bytes fed to the fingerprint per state
    /// are the same, and the items of Δ^W hashed and copied per state grow by
    /// one more level of the persistent tree (its depth, not the values: 50
    /// and 80 items per state when written). Hashing and copying whole states
    /// grew both 10x.
    #[test]
    fn copying_and_fingerprinting_a_state_costs_the_same_in_a_longer_program() {
        let config = RunConfig {
            threads: 2,
            ..Default::default()
        };
        let per_state = |units: usize| {
            let module = chain(units);
            let before = pllvm_semantics::persistent::work();
            let e = explore(&module, &config, &Bounds::default())
                .unwrap_or_else(|e| panic!("explores: {e}"));
            let after = pllvm_semantics::persistent::work();
            assert!(e.truncated.is_none() && e.outcomes.len() == 1);
            assert_eq!(e.states, 8 * units + 3);
            let states = e.states as f64;
            let env = (after.hashed - before.hashed + after.copied - before.copied) as f64;
            (e.fingerprinted_bytes as f64 / states, env / states)
        };
        let (bytes_small, env_small) = per_state(10);
        let (bytes_large, env_large) = per_state(100);
        assert!(
            bytes_large <= bytes_small * 1.05,
            "fingerprint bytes per state: {bytes_small:.1} at 10 units, {bytes_large:.1} at 100"
        );
        assert!(
            // 83 values are two levels of the tree, 803 three: a path one node
            // longer, at most 2x (the flat environment: 10x).
            env_large <= env_small * 2.0,
            "Δ^W items hashed and copied per state: {env_small:.1} at 10 units, {env_large:.1} at 100"
        );
    }

    #[test]
    fn the_visitor_sees_every_transition_once_with_its_block_step() {
        let (module, config) = diamond();
        let mut seen = Vec::new();
        let mut parted_at_a = false;
        let e = explore_with(&module, &config, &Bounds::default(), &mut |t| {
            let name = t.program.block_name(t.step.scheduled).to_string();
            if name == "A" {
                // Both lanes active, sent to different successors ([PC-ACTIVE]).
                parted_at_a = t.step.active == [true, true] && t.step.succ[0] != t.step.succ[1];
            }
            seen.push((t.from, t.to, t.first_visit, name));
        })
        .unwrap_or_else(|e| panic!("explores: {e}"));
        // Which of B and C comes first is the block index's choice (§2.5 orders
        // the two sides of a branch by the documented DFS); the other comes second.
        let first = seen.get(1).map_or("?", |t| t.3.as_str()).to_string();
        let second = if first == "B" { "C" } else { "B" };
        let expect: Vec<(u32, Option<u32>, bool, String)> = [
            (0, 1, true, "A"),
            (1, 2, true, first.as_str()),
            (1, 3, true, second),
            (2, 4, true, second),
            (3, 4, false, first.as_str()),
            (4, 5, true, "D"),
        ]
        .into_iter()
        .map(|(f, t, new, b)| (f, Some(t), new, b.to_string()))
        .collect();
        assert_eq!(seen, expect);
        assert!(parted_at_a);
        assert_eq!((e.states, e.transitions), (6, 6));
        assert!(e.truncated.is_none());
    }

    /// The graph of `pllvm explore --dot` on the diamond: the six states, the
    /// six transitions named by their blocks, the returned state's edge to the
    /// one outcome; after A the lanes' control masks part (B for lane 0, C for
    /// lane 1) and {B, C} is a Cnb pair (Def. 20).
    #[test]
    fn the_recorded_graph_has_every_state_transition_and_outcome() {
        let (module, config) = diamond();
        let (e, graph) = explore_graph(&module, &config, &Bounds::default(), &mut |_| {
            ControlFlow::Continue(())
        })
        .unwrap_or_else(|e| panic!("explores: {e}"));
        assert_eq!(graph.states.len(), e.states);
        let to_states: Vec<(u32, &str, u32)> = graph
            .edges
            .iter()
            .filter_map(|edge| match edge.to {
                Target::State(t) => Some((edge.from, edge.label.as_str(), t)),
                _ => None,
            })
            .collect();
        assert_eq!(to_states.len(), e.transitions);
        assert_eq!(to_states[0], (0, "A", 1));
        assert_eq!(to_states[5], (4, "D", 5));
        let ends: Vec<_> = graph
            .edges
            .iter()
            .filter(|edge| !matches!(edge.to, Target::State(_)))
            .collect();
        assert_eq!(ends.len(), 1);
        assert_eq!(
            (ends[0].from, ends[0].label.as_str(), ends[0].to),
            (5, "returned", Target::Outcome(0))
        );
        assert_eq!(graph.states[5].next, ["□", "□"]);
        let mut masks = graph.states[1].masks.clone();
        masks.sort();
        assert_eq!(
            masks,
            [
                ("B".to_string(), "10".to_string()),
                ("C".to_string(), "01".to_string())
            ]
        );
        assert_eq!(graph.states[1].cnb.len(), 1);
        assert!(graph.cuts.is_empty() && graph.states.iter().all(|s| !s.off_limits));
        let dot = e.dot(&graph);
        assert!(dot.contains("\"s0\" -> \"s1\" [label=\"A\"];"), "{dot}");
        assert!(
            dot.contains("\"s5\" -> \"o0\" [label=\"returned\"];"),
            "{dot}"
        );
        assert_eq!(dot.matches("shape=ellipse").count(), 1, "{dot}");
    }
}
