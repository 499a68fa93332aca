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
use pllvm_semantics::value::{Val, display_signed};
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
    cnb: BTreeMap<(Block, Block), Vec<Block>>,
    cnb_schedulable: BTreeMap<(Block, Block), Vec<Block>>,
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
        Self::pairs(&self.cnb)
    }

    /// The literal reading of Def. 20: the pairs of two lanes' next blocks where
    /// both blocks make progress (Def. 14) and synchronize (Def. 17) in the state.
    pub fn concurrent_next_blocks_schedulable(&self) -> Vec<ConcurrentNext> {
        Self::pairs(&self.cnb_schedulable)
    }

    fn pairs(map: &BTreeMap<(Block, Block), Vec<Block>>) -> Vec<ConcurrentNext> {
        map.iter()
            .map(|(&blocks, witness)| ConcurrentNext {
                blocks,
                witness: witness.clone(),
            })
            .collect()
    }

    /// Theorem 1 (Ch. 7) on every explored state: no loop header is concurrent next
    /// with another block of its loop. Returns the counterexamples (none expected;
    /// natural loops only, so irreducible cycles are not checked).
    pub fn theorem_1_violations(&self) -> Vec<Theorem1Violation> {
        let mut out = Vec::new();
        for (&(a, b), witness) in &self.cnb {
            for (h, other) in [(a, b), (b, a)] {
                if let Some(lp) = self.loops.iter().find(|l| l.header == h)
                    && lp.contains(other)
                {
                    out.push(Theorem1Violation {
                        header: h,
                        other,
                        witness: witness.clone(),
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
        let cnb: Vec<String> = self
            .concurrent_next_blocks()
            .iter()
            .map(|c| format!("{{{}, {}}}", self.name(c.blocks.0), self.name(c.blocks.1)))
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
            .concurrent_next_blocks_schedulable()
            .iter()
            .map(|c| format!("{{{}, {}}}", self.name(c.blocks.0), self.name(c.blocks.1)))
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
    mut graph: Option<&mut StateGraph>,
) -> Result<Exploration, ExploreError> {
    let machine = Machine::new(module, config).map_err(ExploreError::Setup)?;
    let program = &machine.program;
    let facts = GreedyFacts::compute(program)
        .with_interp(machine.interp)
        .with_exec(machine.exec)
        .with_termination_budget(0);
    let globals: Vec<(
        String,
        Option<pllvm_semantics::value::ObjectId>,
        _,
        GlobalId,
    )> = module
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

    // The states waiting in the queue, whole; an expanded state is dropped and
    // only its fingerprint stays in `index`.
    let mut states: Vec<Option<State>> = vec![Some(machine.state.clone())];
    let mut nodes: Vec<Node> = vec![Node {
        parent: None,
        depth: 0,
    }];
    let mut index: HashMap<u128, u32> = HashMap::new();
    index.insert(fingerprint(&machine.state), 0);
    if let Some(g) = graph.as_deref_mut() {
        g.add_state(0, &machine.state, program);
    }
    let mut preds: Vec<Vec<u32>> = vec![Vec::new()];
    let mut ends = vec![false];
    let mut unexpanded = vec![false];
    let mut node_cnb: Vec<[Vec<(Block, Block)>; 2]> = vec![Default::default()];
    let mut outcomes: Vec<ExploredOutcome> = Vec::new();
    let mut outcome_keys: HashMap<OutcomeKey, usize> = HashMap::new();
    let mut truncated: Option<String> = None;
    let mut transitions = 0;
    let mut rng = crate::sched::Random::new(match bounds.order {
        Order::Random(seed) => seed,
        _ => 0,
    });
    let path = |nodes: &[Node], mut n: u32| {
        let mut out = Vec::new();
        while let Some((p, b)) = nodes[n as usize].parent {
            out.push(b);
            n = p;
        }
        out.reverse();
        out
    };

    let mut queue: VecDeque<u32> = VecDeque::from([0]);
    while let Some(n) = queue.pop_front() {
        let so_far = Progress {
            states: states.len(),
            transitions,
            queued: queue.len() + 1,
            depth: nodes[n as usize].depth,
        };
        if let ControlFlow::Break(why) = watch(&so_far) {
            for k in std::iter::once(n).chain(queue.drain(..)) {
                unexpanded[k as usize] = true;
                if let Some(g) = graph.as_deref_mut() {
                    let cut = g.cut(&why);
                    g.edge(k, "", cut);
                }
            }
            truncated = Some(match truncated {
                None => why,
                Some(before) => format!("{why}; {before}"),
            });
            break;
        }
        let Some(state) = states[n as usize].take() else {
            continue;
        };
        let mut record_end = |ending: String,
                              undefined: Option<Ub>,
                              state: &State,
                              last: Option<Block>,
                              nodes: &[Node],
                              outcomes: &mut Vec<ExploredOutcome>|
         -> usize {
            let results: Vec<Option<Val>> = state
                .next
                .iter()
                .map(|x| match x {
                    Next::Done(v) => Some(v.clone()),
                    _ => None,
                })
                .collect();
            let bytes: Vec<ByteStore> = globals
                .iter()
                .map(|(_, o, _, _)| {
                    o.and_then(|o| state.mem.object(o))
                        .map_or(ByteStore::default(), |obj| obj.bytes.clone())
                })
                .collect();
            let key = (ending.clone(), results.clone(), bytes);
            if let Some(&k) = outcome_keys.get(&key) {
                return k;
            }
            let mut witness = path(nodes, n);
            witness.extend(last);
            let result_text = format!(
                "[{}]",
                results
                    .iter()
                    .map(|r| match r {
                        None => "-".to_string(),
                        Some(v) => match ret_width {
                            Some(w) => display_signed(v, w),
                            None => v.to_string(),
                        },
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let memory = globals
                .iter()
                .filter_map(|(name, o, elem, _)| {
                    let o = (*o)?;
                    Some((name.clone(), state.mem.dump_object(o, &module.types, *elem)))
                })
                .collect();
            let values = globals
                .iter()
                .filter_map(|(_, o, _, g)| Some(global_values(module, &state.mem, *g, (*o)?)))
                .collect();
            outcome_keys.insert(key, outcomes.len());
            outcomes.push(ExploredOutcome {
                ending,
                results,
                result_text,
                memory,
                globals: values,
                witness,
                undefined,
            });
            outcomes.len() - 1
        };

        if state.all_done() {
            ends[n as usize] = true;
            let k = record_end("returned".into(), None, &state, None, &nodes, &mut outcomes);
            if let Some(g) = graph.as_deref_mut() {
                g.edge(n, "returned", Target::Outcome(k));
            }
            continue;
        }
        if nodes[n as usize].depth >= bounds.max_steps {
            unexpanded[n as usize] = true;
            let why = format!("schedules longer than {} steps", bounds.max_steps);
            if let Some(g) = graph.as_deref_mut() {
                let cut = g.cut(&why);
                g.edge(n, "", cut);
            }
            truncated.get_or_insert(why);
            continue;
        }
        let mut next = candidates(program, &facts, &state);
        if next.is_empty() {
            ends[n as usize] = true;
            let waiting: Vec<String> = (0..state.width())
                .filter(|&t| !state.next[t].is_done())
                .map(|t| t.to_string())
                .collect();
            let k = record_end(
                format!(
                    "blocked: no block makes progress and synchronizes (lanes {} wait)",
                    waiting.join(", ")
                ),
                None,
                &state,
                None,
                &nodes,
                &mut outcomes,
            );
            if let Some(g) = graph.as_deref_mut() {
                g.edge(n, "blocked", Target::Outcome(k));
            }
            continue;
        }
        match bounds.order {
            Order::Lowest => next.sort_by_key(|&b| facts.index_of(b)),
            Order::Highest => next.sort_by_key(|&b| std::cmp::Reverse(facts.index_of(b))),
            Order::Random(_) => {
                for k in (1..next.len()).rev() {
                    let j = (rng.next_u64() % (k as u64 + 1)) as usize;
                    next.swap(k, j);
                }
            }
        }
        let progressing: Vec<Block> = crate::sched::pending(program, &state)
            .into_iter()
            .filter(|&b| progress(program, &state, b).is_ok())
            .collect();
        node_cnb[n as usize] = [
            cnb_pairs(program, &state, &progressing),
            cnb_pairs(program, &state, &next),
        ];
        if let Some(g) = graph.as_deref_mut() {
            g.expanded(n, &state, program, &next, &node_cnb[n as usize][0]);
        }
        for b in next {
            transitions += 1;
            match step_keeping(program, facts.interp, facts.exec, &state, b) {
                Stepped::Stuck(message) => {
                    let mut schedule = path(&nodes, n);
                    schedule.push(b);
                    return Err(ExploreError::Stuck {
                        message,
                        schedule: schedule
                            .iter()
                            .map(|&b| program.block_name(b).to_string())
                            .collect(),
                    });
                }
                Stepped::Ended(ending, undefined) => {
                    ends[n as usize] = true;
                    let k = record_end(ending, undefined, &state, Some(b), &nodes, &mut outcomes);
                    if let Some(g) = graph.as_deref_mut() {
                        g.edge(n, program.block_name(b), Target::Outcome(k));
                    }
                }
                Stepped::State(next_and_step) => {
                    let (s, step) = *next_and_step;
                    let h = fingerprint(&s);
                    let known = index.get(&h).copied();
                    let target = match known {
                        Some(id) => {
                            visit(&Transition {
                                program,
                                from: n,
                                to: Some(id),
                                first_visit: false,
                                before: &state,
                                step: &step,
                                after: &s,
                            });
                            id
                        }
                        None if states.len() >= bounds.max_states => {
                            unexpanded[n as usize] = true;
                            let why = format!("more than {} states", bounds.max_states);
                            if let Some(g) = graph.as_deref_mut() {
                                let cut = g.cut(&why);
                                g.edge(n, program.block_name(b), cut);
                            }
                            truncated.get_or_insert(why);
                            visit(&Transition {
                                program,
                                from: n,
                                to: None,
                                first_visit: false,
                                before: &state,
                                step: &step,
                                after: &s,
                            });
                            continue;
                        }
                        None => {
                            let id = states.len() as u32;
                            visit(&Transition {
                                program,
                                from: n,
                                to: Some(id),
                                first_visit: true,
                                before: &state,
                                step: &step,
                                after: &s,
                            });
                            if let Some(g) = graph.as_deref_mut() {
                                g.add_state(id, &s, program);
                            }
                            states.push(Some(s));
                            nodes.push(Node {
                                parent: Some((n, b)),
                                depth: nodes[n as usize].depth + 1,
                            });
                            index.insert(h, id);
                            preds.push(Vec::new());
                            ends.push(false);
                            unexpanded.push(false);
                            node_cnb.push(Default::default());
                            queue.push_back(id);
                            id
                        }
                    };
                    preds[target as usize].push(n);
                    if let Some(g) = graph.as_deref_mut() {
                        g.edge(n, program.block_name(b), Target::State(target));
                    }
                }
            }
        }
    }

    // §5.3: which states can still end (surely: through explored ends only; maybe:
    // also through states the bounds left unexpanded).
    let backward = |seeds: &[bool]| {
        let mut reach = seeds.to_vec();
        let mut work: Vec<u32> = (0..reach.len() as u32)
            .filter(|&k| reach[k as usize])
            .collect();
        while let Some(k) = work.pop() {
            for &p in &preds[k as usize] {
                if !reach[p as usize] {
                    reach[p as usize] = true;
                    work.push(p);
                }
            }
        }
        reach
    };
    let surely = backward(&ends);
    let seeds: Vec<bool> = ends
        .iter()
        .zip(&unexpanded)
        .map(|(a, b)| *a || *b)
        .collect();
    let maybe = backward(&seeds);
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
    if let Some(g) = graph {
        for (k, node) in g.states.iter_mut().enumerate() {
            node.off_limits = !allowed(k);
        }
    }
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); states.len()];
    for (to, ps) in preds.iter().enumerate() {
        for &p in ps {
            succs[p as usize].push(to as u32);
        }
    }
    let mut pruned = 0;
    let mut reached = vec![false; states.len()];
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
    // A cycle among the reached states: Kahn's algorithm cannot remove them all.
    let mut indegree = vec![0usize; states.len()];
    for (k, out) in succs.iter().enumerate() {
        if reached[k] {
            for &to in out {
                if reached[to as usize] && allowed(to as usize) {
                    indegree[to as usize] += 1;
                }
            }
        }
    }
    let mut free: Vec<usize> = (0..states.len())
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
    let spins = removed < reached.iter().filter(|&&r| r).count();
    // Breadth-first ids grow with depth, so the first witness is a shortest one.
    let mut cnb: [BTreeMap<(Block, Block), Vec<Block>>; 2] = Default::default();
    for (k, sets) in node_cnb.iter().enumerate() {
        if !reached[k] {
            continue;
        }
        for (map, pairs) in cnb.iter_mut().zip(sets) {
            for &pair in pairs {
                map.entry(pair).or_insert_with(|| path(&nodes, k as u32));
            }
        }
    }
    let [cnb, cnb_schedulable] = cnb;
    Ok(Exploration {
        func: program.func,
        states: states.len(),
        transitions,
        truncated,
        outcomes,
        can_terminate,
        pruned,
        spins,
        loops: facts.loops.clone(),
        reducible: facts.reducible,
        block_names: program
            .body
            .blocks
            .values()
            .map(|b| b.name.clone())
            .collect(),
        cnb,
        cnb_schedulable,
    })
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
fn fingerprint(state: &State) -> u128 {
    let mut a = DefaultHasher::new();
    state.hash(&mut a);
    let mut b = DefaultHasher::new();
    0x9e37_79b9_7f4a_7c15_u64.hash(&mut b);
    state.hash(&mut b);
    (u128::from(a.finish()) << 64) | u128::from(b.finish())
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
