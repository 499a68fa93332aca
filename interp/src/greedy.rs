//! Greedy schedules (thesis Ch. 5, Def. 12-18): the constraints a scheduled block
//! must satisfy, one function per definition, and legality as an explanation.
//!
//! A runtime schedule is any block list (Def. 5). A *greedy* schedule (Def. 12)
//! makes progress (§5.1, Def. 13-14), schedules only synchronizing blocks, so that
//! every block is a barrier (§5.2, Def. 15-18), and preserves termination (§5.3).
//! [`legality`] says for any state which blocks are legal next and, for every other
//! block, which definition it violates and which lane witnesses it, e.g.
//! `D: not synchronizing (Def. 17): lane 1 waits at C, C reaches D without a back edge`.
//!
//! # Readings of the definitions
//! The thesis states three of the definitions in a form whose literal reading
//! contradicts its own examples; pllvm follows the examples and says so here.
//! - **Def. 14, stalling.** Clause 2 holds vacuously for a block that no lane can
//!   reach from its ℓ_in, yet §5.1 says progress implies "that at least one thread
//!   will have an active control mask for that block" (the stalling of Fig. 5.1 is
//!   what progress excludes). pllvm requires a lane whose control mask (Def. 6) is
//!   set for the block, and then clause 1 or clause 2.
//! - **Def. 17, where a ⊤ lane waits** (semantics/RULES.md, "Readings", 3).
//!   Def. 17 quantifies over every lane t and every ℓ ∈ fwdreaching(ℓ_sync) with
//!   cmask(t, ℓ). A lane whose ℓ_next is a block waits there, literally. A lane
//!   whose ℓ_next = ⊤ accepts every successor of its ℓ_in (Def. 6); pllvm counts
//!   such a successor s, as the text does, with two exceptions. (a) An edge
//!   ℓ_in → s that is a back edge (Def. 15): literally, the lane of Fig. 5.5 that
//!   executed the loop B passively accepts B again, B reaches the exit C, and C
//!   would never be synchronizing, although §5.3 calls A, B, C, D "synchronizing in
//!   every scheduled block"; §5.2's prose says "no passive thread reaches this
//!   block without taking a backedge", and the lane reaches B only by one. (b) A
//!   lane with a non-empty guide set (Def. 13): progress (Def. 14) never carries it
//!   to a successor that is not some lane's ℓ_next, and those lanes are counted
//!   themselves; literally, a lane left ⊤ at A while a sibling branched actively
//!   from A to C would block C through its other successor B (B → C), and B makes
//!   no progress, so no block could be scheduled. The lanes whose control mask is set
//!   for the scheduled block are counted too (the text's ∀t): a predicated A that
//!   is false for every lane, A → {B, C} and B → C, may then continue only with B,
//!   so loop-free code has one greedy outcome where [PC-ND-BRANCH] leaves no real
//!   choice (`corpus/schedules/reading-def17-skip-predicated.ll`).
//! - **§5.3, termination preservation**, is a property of whole schedules ("all
//!   non-terminating schedules are illegal, if a legal terminating schedule
//!   exists"). A single step is illegal under it when every continuation from the
//!   state it leads to runs forever while another legal step can still terminate;
//!   [`legality`] decides this by a bounded search ([`GreedyFacts::termination_budget`]
//!   states per candidate; an exhausted budget counts as "may terminate"). The rest
//!   of §5.3, a schedule that could leave a spin at every step but never does, is
//!   the scheduler's business: the scheduler loop (`run_with`) detects the spin by state
//!   repetition and chooses differently.
//!
//! # CFG facts
//! Forward reachability (Def. 15-16), the block index (§2.5), natural loops (§2.4)
//! and post-dominators (§2.3) come from `pllvm_analysis`. The back edges of Def. 15
//! are the retreating edges of the documented DFS (`pllvm_semantics::cfg::dfs`,
//! successor-index order from the entry): for a reducible CFG exactly the back
//! edges of §2.4; for an irreducible one they depend on the search, and the
//! documented search fixes them.

use pllvm_analysis::block_index::block_index;
use pllvm_analysis::loops::LoopInfo;
use pllvm_analysis::postdom::PostDomTree;
use pllvm_analysis::reach::ForwardReach;
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::Block;
use pllvm_semantics::rules::masks::cmask;
use pllvm_semantics::rules::step::lss_w_step;
use pllvm_semantics::rules::{Exec, Interp, Next, Program, Scratch, State, StepError};
use std::cell::Cell;
use std::collections::HashSet;
use std::fmt;

/// A natural loop (§2.4): the blocks of the back edges into one header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NaturalLoop {
    /// The loop header: the target of the back edges, which dominates them.
    pub header: Block,
    /// The latch blocks (sources of the back edges).
    pub latches: Vec<Block>,
    /// Every block of the loop, the header included, in arena order.
    pub blocks: Vec<Block>,
}

impl NaturalLoop {
    /// Whether `block` belongs to the loop.
    pub fn contains(&self, block: Block) -> bool {
        self.blocks.binary_search(&block).is_ok()
    }
}

/// The CFG facts the constraints of Ch. 5 and the schedulers look up, computed
/// once per program.
#[derive(Clone, Debug)]
pub struct GreedyFacts {
    /// `Backedges` (§2.4, Def. 15): the retreating edges of the documented DFS.
    pub back_edges: Vec<(Block, Block)>,
    /// `BlockIndex` (§2.5, `pllvm_analysis::block_index`) by arena index: a
    /// topological order of the CFG without back edges, loops contiguous, ties
    /// broken by the reverse postorder of the documented DFS.
    pub block_index: Vec<u32>,
    /// The natural loops (§2.4), one per header (back edges into one header are
    /// merged, as `pllvm_analysis::loops::LoopInfo` does).
    pub loops: Vec<NaturalLoop>,
    /// The immediate post-dominator of each block (§2.3), by arena index: `None`
    /// when the block's only post-dominator is the virtual exit, or when it reaches
    /// no exit.
    pub ipdom: Vec<Option<Block>>,
    /// Whether the CFG is reducible (§2.4).
    pub reducible: bool,
    /// The interpretation the §5.3 search steps states with (the run's 𝓘).
    pub interp: Interp,
    /// How the §5.3 search executes the rules (the run's [`Exec`]).
    pub exec: Exec,
    /// How many states the §5.3 search may visit per candidate block; 0 turns the
    /// search off (then only Def. 14 and Def. 17 decide legality).
    pub termination_budget: usize,
    /// `fwdreaching` (Def. 16).
    forward: ForwardReach,
    /// Per block (arena index): whether a forward path from it (Def. 15, the
    /// empty path included) reaches the source of a back edge or a block with a
    /// predicate (Def. 7). From a state whose lanes all wait at blocks without
    /// this mark, no state repeats and no lane gets ℓ_next = ⊤, so the §5.3
    /// search cannot answer "never terminates" ([`GreedyFacts::may_spin`]).
    spin_prone: Vec<bool>,
    /// Work done so far with these facts (see [`GreedyWork`]).
    work: GreedyWork,
}

/// Counters of the work the greedy checks did (for tests and benchmarks that
/// measure work instead of time).
#[derive(Clone, Debug, Default)]
pub struct GreedyWork {
    /// Blocks checked for progress and synchronization (Def. 14, 17).
    pub checks: Cell<u64>,
    /// States the §5.3 search expanded ([`can_terminate`]).
    pub search_states: Cell<u64>,
}

impl GreedyWork {
    pub(crate) fn add(counter: &Cell<u64>, n: u64) {
        counter.set(counter.get().saturating_add(n));
    }
}

impl GreedyFacts {
    /// The facts of `program`, for FREEZING runs and a §5.3 budget of 256 states
    /// per candidate (see [`GreedyFacts::with_interp`]).
    pub fn compute(program: &Program<'_>) -> GreedyFacts {
        let body = program.body;
        let cfg = Cfg::new(body);
        let forward = ForwardReach::compute(body);
        let back_edges = forward.back_edges().to_vec();
        let (loops, reducible) = match LoopInfo::compute(body) {
            Ok(info) => (
                info.loops()
                    .map(|l| {
                        let mut blocks = info.blocks(l).to_vec();
                        blocks.sort_unstable();
                        NaturalLoop {
                            header: info.header(l),
                            latches: info.latches(l).to_vec(),
                            blocks,
                        }
                    })
                    .collect(),
                true,
            ),
            Err(_) => (natural_loops(&cfg, &back_edges), false),
        };
        let index = block_index(body);
        let block_index = (0..cfg.len() as u32)
            .map(|b| index.index(Block::from_u32(b)))
            .collect();
        let postdom = PostDomTree::compute(body);
        let ipdom = (0..cfg.len() as u32)
            .map(|b| postdom.ipdom(Block::from_u32(b)))
            .collect();
        let spin_prone = spin_prone(program, &forward);
        GreedyFacts {
            back_edges,
            block_index,
            loops,
            ipdom,
            reducible,
            interp: Interp::Freezing,
            exec: Exec::default(),
            termination_budget: 256,
            forward,
            spin_prone,
            work: GreedyWork::default(),
        }
    }

    /// The work the checks did with these facts so far.
    pub fn work(&self) -> &GreedyWork {
        &self.work
    }

    /// Whether the §5.3 search may answer "no schedule terminates" for a step
    /// from `state`: some lane has ℓ_next = ⊤, or waits at a block from which a
    /// forward path reaches a back edge or a predicated block. Otherwise (see
    /// [`termination_preserving`]) every step leaves the states that follow
    /// acyclic, without ⊤ lanes and never blocked, so the search cannot say "no".
    pub fn may_spin(&self, state: &State) -> bool {
        state.next.iter().any(|n| match n {
            Next::Block(b) => self
                .spin_prone
                .get(b.as_u32() as usize)
                .copied()
                .unwrap_or(true),
            Next::Any => true,
            Next::Done(_) => false,
        })
    }

    /// The same facts for runs executed by `exec` (the §5.3 search steps states).
    pub fn with_exec(mut self, exec: Exec) -> GreedyFacts {
        self.exec = exec;
        self
    }

    /// The same facts for runs under `interp` (the §5.3 search steps states).
    pub fn with_interp(mut self, interp: Interp) -> GreedyFacts {
        self.interp = interp;
        self
    }

    /// The same facts with another §5.3 search budget (0: no search).
    pub fn with_termination_budget(mut self, states: usize) -> GreedyFacts {
        self.termination_budget = states;
        self
    }

    /// Whether `a ∈ fwdreaching(z)` (Def. 16): a non-empty path from `a` to `z`
    /// that takes no back edge (a forward reaching path, Def. 15).
    pub fn forward_reaches(&self, a: Block, z: Block) -> bool {
        self.forward.reaches(a, z)
    }

    /// `fwdreaching(z)` (Def. 16), in arena order (computed on demand: linear in
    /// the CFG).
    pub fn fwdreaching(&self, z: Block) -> Vec<Block> {
        self.forward.fwd_reaching(z)
    }

    /// `BlockIndex(b)` (§2.5).
    pub fn index_of(&self, b: Block) -> u32 {
        self.block_index
            .get(b.as_u32() as usize)
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// Whether `(from, to)` is a back edge (Def. 15).
    pub fn is_back_edge(&self, from: Block, to: Block) -> bool {
        self.back_edges.binary_search(&(from, to)).is_ok()
    }

    /// The natural loop with header `h`, if `h` is a loop header.
    pub fn loop_of_header(&self, h: Block) -> Option<&NaturalLoop> {
        self.loops.iter().find(|l| l.header == h)
    }
}

/// [`GreedyFacts::may_spin`] per block: the blocks from which a forward path
/// (Def. 15), the empty one included, reaches the source of a back edge or a block
/// with a predicate (Def. 7), by a backward search over the forward edges from
/// those blocks. Linear in the CFG.
fn spin_prone(program: &Program<'_>, forward: &ForwardReach) -> Vec<bool> {
    let len = program.body.blocks.len();
    let mut prone = vec![false; len];
    let mut stack: Vec<Block> = forward.back_edges().iter().map(|&(from, _)| from).collect();
    stack.extend(
        program
            .body
            .blocks
            .iter()
            .filter(|(_, data)| data.predicate.is_some())
            .map(|(b, _)| b),
    );
    while let Some(b) = stack.pop() {
        match prone.get_mut(b.as_u32() as usize) {
            Some(mark) if !*mark => {
                *mark = true;
                stack.extend(forward.forward_preds(b).iter().copied());
            }
            _ => {}
        }
    }
    prone
}

/// The natural loops (§2.4) of an irreducible CFG, which `LoopInfo` refuses: for
/// each header `y` of retreating edges `x → y` with `y` dominating `x`, `y` and
/// every block that reaches a latch `x` without passing `y`. Theorem 1 is checked
/// on these; the cycles with several entries have no header and are not.
fn natural_loops(cfg: &Cfg, back_edges: &[(Block, Block)]) -> Vec<NaturalLoop> {
    let dom = cfg.dominators();
    let mut loops: Vec<NaturalLoop> = Vec::new();
    for &(latch, header) in back_edges {
        if !dom.dominates(header, latch) {
            continue;
        }
        let at = match loops.iter().position(|l| l.header == header) {
            Some(at) => at,
            None => {
                loops.push(NaturalLoop {
                    header,
                    latches: Vec::new(),
                    blocks: vec![header],
                });
                loops.len() - 1
            }
        };
        let lp = &mut loops[at];
        lp.latches.push(latch);
        let mut stack = vec![latch];
        while let Some(b) = stack.pop() {
            if lp.blocks.contains(&b) {
                continue;
            }
            lp.blocks.push(b);
            stack.extend(cfg.preds(b).iter().copied().filter(|&p| cfg.reachable(p)));
        }
    }
    for lp in &mut loops {
        lp.blocks.sort_unstable();
    }
    loops
}

/// Whether a block may be scheduled next, and if not, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Scheduling the block keeps the schedule greedy (Def. 12).
    Legal,
    /// Scheduling the block breaks a definition of Ch. 5.
    Illegal {
        /// `Def. 14` (progress), `Def. 17` (synchronization) or `§5.3`
        /// (termination preservation).
        definition: &'static str,
        /// The lane that witnesses the violation, if one lane does.
        lane: Option<usize>,
        /// The witness in words, lowercase.
        why: String,
    },
}

/// The verdict on one block in one state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Legality {
    /// The block.
    pub block: Block,
    /// Whether it may be scheduled next.
    pub verdict: Verdict,
}

impl Legality {
    /// Whether the block is legal.
    pub fn is_legal(&self) -> bool {
        self.verdict == Verdict::Legal
    }

    /// `B: legal` or `D: not synchronizing (Def. 17): lane 1 waits at C, ...`,
    /// with block names from `program`.
    pub fn render(&self, program: &Program<'_>) -> String {
        format!("{}: {}", program.block_name(self.block), self.verdict)
    }
}

/// One schedule constraint of thesis Ch. 5 that a greedy schedule (Def. 12) meets
/// at every step, as `docs/semantics.md` shows it: the definition a violation cites
/// ([`Violation::definition`]), its name, the function of this module that decides
/// it, and the definition in the thesis's notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Constraint {
    /// `"Def. 14"`, `"Def. 17"` or `"§5.3"`, as [`Verdict::Illegal`] cites it.
    pub definition: &'static str,
    /// What the thesis calls the property.
    pub name: &'static str,
    /// The `pub fn` of `interp/src/greedy.rs` that decides it.
    pub function: &'static str,
    /// The definition in the thesis's notation (Unicode).
    pub notation: &'static str,
}

/// The three properties of a greedy schedule (Def. 12): progress, every block a
/// barrier (synchronization), termination preservation; in the order
/// [`legality`] checks them.
pub const CONSTRAINTS: [Constraint; 3] = [
    Constraint {
        definition: "Def. 14",
        name: "Progress",
        function: "progress",
        notation: "Guides(σ, τ) = { ℓnext(τ') ∈ S | ℓin(τ) = ℓin(τ'), τ' ∈ 𝒯 }      (Def. 13)\n\
                   scheduling ℓsc makes progress if\n\
                   1. ∃τ ∈ 𝒯. ℓnext(τ) = ℓsc, or\n\
                   2. ∀τ ∈ 𝒯. (ℓin(τ) → ℓsc) ∈ E ⟹ Guides(σ, τ) = {}",
    },
    Constraint {
        definition: "Def. 17",
        name: "Synchronization (every block a barrier, Def. 18)",
        function: "synchronizing",
        notation: "fwdreaching(z) = { a ∈ V | ∃π ∈ a →⁺ z. π takes no back edge }      (Def. 15, 16)\n\
                   scheduling ℓsync is synchronizing if\n\
                   ∀t ∈ 𝒯. ℓ ∈ fwdreaching(ℓsync) ⟹ ¬cmask ℓin(t) ℓnext(t) ℓ\n\
                   (read as semantics/RULES.md, Readings 3, decides)",
    },
    Constraint {
        definition: "§5.3",
        name: "Termination preservation",
        function: "termination_preserving",
        notation: "if some finite schedule of progressing, synchronizing steps from σ\n\
                   leads every lane to □, no step may leave σ for a state from which none does",
    },
];

/// What violating `definition` is called in messages.
pub fn headline(definition: &str) -> &'static str {
    match definition {
        "Def. 14" => "no progress",
        "Def. 17" => "not synchronizing",
        "§5.3" => "does not preserve termination",
        _ => "not greedy",
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Legal => write!(f, "legal"),
            Verdict::Illegal {
                definition, why, ..
            } => write!(f, "{} ({definition}): {why}", headline(definition)),
        }
    }
}

/// A broken constraint: the definition, the witness lane and the words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The definition (see [`Verdict::Illegal`]).
    pub definition: &'static str,
    /// The witness lane.
    pub lane: Option<usize>,
    /// Why, lowercase.
    pub why: String,
}

impl Violation {
    fn into_verdict(self) -> Verdict {
        Verdict::Illegal {
            definition: self.definition,
            lane: self.lane,
            why: self.why,
        }
    }
}

/// The blocks lane `lane` has its control mask set for (Def. 6): its ℓ_next, or
/// with ℓ_next = ⊤ every successor of its ℓ_in; nothing once it terminated.
pub fn lane_targets(program: &Program<'_>, state: &State, lane: usize) -> Vec<Block> {
    match (&state.next[lane], state.incoming[lane]) {
        (Next::Block(b), _) => vec![*b],
        (Next::Any, Some(from)) => {
            let mut out = program.succs[from].clone();
            out.sort_unstable();
            out.dedup();
            out
        }
        (Next::Any, None) | (Next::Done(_), _) => Vec::new(),
    }
}

/// `Guides(σ, τ)` (Def. 13): the blocks that lanes with the same ℓ_in as `lane`
/// have as their ℓ_next: where the other lanes that executed the same terminator
/// actively branched. Sorted by arena index, without duplicates.
pub fn guides(state: &State, lane: usize) -> Vec<Block> {
    let from = state.incoming[lane];
    let mut out: Vec<Block> = state
        .incoming
        .iter()
        .zip(&state.next)
        .filter(|(i, _)| **i == from)
        .filter_map(|(_, n)| match n {
            Next::Block(b) => Some(*b),
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Progress (Def. 14) of scheduling `sc` in `state`: some lane has its control mask
/// set for `sc` (no stalling, Fig. 5.1), and either (1) some lane has ℓ_next = `sc`,
/// or (2) every lane with an edge ℓ_in → `sc` has an empty guide set (Def. 13), so
/// no lane that branched actively from that terminator went elsewhere (Fig. 5.2).
pub fn progress(program: &Program<'_>, state: &State, sc: Block) -> Result<(), Violation> {
    let width = state.width();
    let name = |b: Block| program.block_name(b);
    if !(0..width).any(|t| cmask(program, state.incoming[t], &state.next[t], sc)) {
        let why = if state.all_done() {
            format!(
                "every lane has terminated; no lane's control mask is set for {}",
                name(sc)
            )
        } else {
            format!("no lane's control mask is set for {} (stalling)", name(sc))
        };
        return Err(Violation {
            definition: "Def. 14",
            lane: None,
            why,
        });
    }
    // Clause 1: ∃τ. ℓ_next(τ) = ℓ_sc.
    if state.next.contains(&Next::Block(sc)) {
        return Ok(());
    }
    // Clause 2: ∀τ. (ℓ_in(τ) → ℓ_sc) ∈ E ⟹ Guides(σ, τ) = {}. The witness is a lane
    // the step would carry to `sc` (cmask set) if there is one.
    let mut witnesses: Vec<usize> = (0..width)
        .filter(|&t| {
            state.incoming[t].is_some_and(|from| program.has_edge(from, sc))
                && !guides(state, t).is_empty()
        })
        .collect();
    witnesses.sort_by_key(|&t| !cmask(program, state.incoming[t], &state.next[t], sc));
    match witnesses.first() {
        None => Ok(()),
        Some(&t) => {
            let g: Vec<&str> = guides(state, t).into_iter().map(name).collect();
            let from = state.incoming[t].map_or("⊥", name);
            Err(Violation {
                definition: "Def. 14",
                lane: Some(t),
                why: format!(
                    "no lane has next = {}, and lane {t} (in {from}) has guide set {{{}}} (Def. 13)",
                    name(sc),
                    g.join(", ")
                ),
            })
        }
    }
}

/// Synchronization (Def. 17) of scheduling `sc` in `state`: no lane waits
/// ([`waiting_blocks`], see the module doc) at a block of `fwdreaching(sc)`
/// (Def. 16), that is, at a block from which `sc` is reached without a back edge
/// (Def. 15).
pub fn synchronizing(
    program: &Program<'_>,
    facts: &GreedyFacts,
    state: &State,
    sc: Block,
) -> Result<(), Violation> {
    let name = |b: Block| program.block_name(b);
    // Most lanes wait at one of a few blocks: the last block asked about and
    // its answer are kept, and a lane waiting at a block (the common case)
    // needs no list of its waiting blocks.
    let mut last: Option<(Block, bool)> = None;
    let mut reaches = |at: Block| match last {
        Some((b, answer)) if b == at => answer,
        _ => {
            let answer = facts.forward_reaches(at, sc);
            last = Some((at, answer));
            answer
        }
    };
    for t in 0..state.width() {
        let listed;
        let waiting: &[Block] = match &state.next[t] {
            Next::Done(_) => continue,
            Next::Block(b) if *b == sc => continue,
            Next::Block(b) => std::slice::from_ref(b),
            Next::Any => {
                listed = waiting_blocks(program, facts, state, t, sc);
                &listed
            }
        };
        for &at in waiting {
            if reaches(at) {
                let waits = match &state.next[t] {
                    Next::Any => format!(
                        "accepts {} (next = ⊤ after {})",
                        name(at),
                        state.incoming[t].map_or("⊥", name)
                    ),
                    _ => format!("waits at {}", name(at)),
                };
                return Err(Violation {
                    definition: "Def. 17",
                    lane: Some(t),
                    why: format!(
                        "lane {t} {waits}, {} reaches {} without a back edge",
                        name(at),
                        name(sc)
                    ),
                });
            }
        }
    }
    Ok(())
}

/// The blocks ℓ with cmask(t, ℓ) (Def. 6) that Def. 17 counts for lane `t` (module
/// doc, "Readings"): its ℓ_next if that is a block; with ℓ_next = ⊤ and an empty
/// guide set (Def. 13), every successor of its ℓ_in along an edge that is not a
/// back edge (Def. 15); nothing for a guided ⊤ lane (its guides are other lanes'
/// ℓ_next, counted there) or a terminated one. `sc` itself is left out: it is not
/// in fwdreaching(sc), since forward edges form no cycle.
pub fn waiting_blocks(
    program: &Program<'_>,
    facts: &GreedyFacts,
    state: &State,
    t: usize,
    sc: Block,
) -> Vec<Block> {
    match (&state.next[t], state.incoming[t]) {
        (Next::Block(b), _) if *b == sc => Vec::new(),
        (Next::Block(b), _) => vec![*b],
        (Next::Any, Some(from)) => {
            let mut out: Vec<Block> = program.succs[from]
                .iter()
                .copied()
                .filter(|&s| s != sc && !facts.is_back_edge(from, s))
                .collect();
            if out.is_empty() || !guides(state, t).is_empty() {
                return Vec::new();
            }
            out.sort_unstable();
            out.dedup();
            out
        }
        (Next::Any, None) | (Next::Done(_), _) => Vec::new(),
    }
}

/// Progress (Def. 14) and synchronization (Def. 17, every block a barrier, Def. 18)
/// of scheduling `sc`: the local part of Def. 12.
pub fn progress_and_sync(
    program: &Program<'_>,
    facts: &GreedyFacts,
    state: &State,
    sc: Block,
) -> Result<(), Violation> {
    GreedyWork::add(&facts.work.checks, 1);
    progress(program, state, sc)?;
    synchronizing(program, facts, state, sc)
}

/// The blocks some lane has its control mask set for (Def. 6), in layout order
/// (blocks outside the layout left out): the only blocks that can make progress
/// (Def. 14). Costs O(W log W), whatever the size of the CFG.
pub fn pending_blocks(program: &Program<'_>, state: &State) -> Vec<Block> {
    let mut pending: Vec<(usize, Block)> = Vec::new();
    let mut add = |b: Block| {
        if let Some(pos) = *program.layout_pos.get(b)
            && pending.last() != Some(&(pos, b))
        {
            pending.push((pos, b));
        }
    };
    for t in 0..state.width() {
        match &state.next[t] {
            // The common case, without a list per lane (see `lane_targets`).
            Next::Block(b) => add(*b),
            Next::Any => lane_targets(program, state, t)
                .into_iter()
                .for_each(&mut add),
            Next::Done(_) => {}
        }
    }
    pending.sort_unstable();
    pending.dedup();
    pending.into_iter().map(|(_, b)| b).collect()
}

/// The blocks that make progress and synchronize in `state` (Def. 14, 17), in
/// layout order: the steps of Def. 12 before termination preservation.
pub fn candidates(program: &Program<'_>, facts: &GreedyFacts, state: &State) -> Vec<Block> {
    // Only a block some lane has its control mask set for can make progress, so
    // the lanes' targets are the only blocks worth checking.
    pending_blocks(program, state)
        .into_iter()
        .filter(|&b| progress_and_sync(program, facts, state, b).is_ok())
        .collect()
}

/// Where one step leads.
#[derive(Clone, Debug)]
pub enum Stepped {
    /// The next state (boxed: a state is large next to the other variants).
    State(Box<State>),
    /// The step ended the run with an outcome (undefined behaviour, a resource
    /// limit); the outcome as text.
    Ended(String),
    /// No rule applies (a bug or an unverified program); the message.
    Stuck(String),
}

/// Schedules `sc` on a copy of `state` ([LSS-W-STEP]) under `interp`, executed
/// by `exec` (with scratch buffers of its own).
pub fn step_copy(
    program: &Program<'_>,
    interp: Interp,
    exec: Exec,
    state: &State,
    sc: Block,
) -> Stepped {
    let mut next = state.clone();
    let mut scratch = Scratch::default();
    match lss_w_step(program, interp, exec, sc, &mut next, &mut scratch, false) {
        Ok(_) => Stepped::State(Box::new(next)),
        Err(StepError::Undefined(ub)) => Stepped::Ended(format!("undefined: {ub}")),
        Err(StepError::Limit(why)) => Stepped::Ended(format!("limit: {why}")),
        Err(StepError::Stuck(s)) => Stepped::Stuck(s.to_string()),
    }
}

/// The answer of the bounded §5.3 search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CanTerminate {
    /// A schedule of progressing, synchronizing steps ends the run.
    Yes,
    /// Every such schedule runs forever (the whole reachable state space was seen).
    No,
    /// The budget ran out first.
    Unknown,
}

/// Whether some schedule of progressing and synchronizing steps (Def. 14, 17) leads
/// from `state` to its end: every lane terminated, or an outcome that ends the run
/// (undefined behaviour, a limit). A depth-first search over distinct states (states
/// are compared whole, so a repeated state is a cycle), lowest block index first,
/// visiting at most `budget` states: [`can_terminate_reference`], hashing each
/// state once (the seen states are kept by their hash, compared whole on a match).
pub fn can_terminate(
    program: &Program<'_>,
    facts: &GreedyFacts,
    state: &State,
    budget: usize,
) -> CanTerminate {
    let mut seen = SeenStates::default();
    let mut stack = vec![state.clone()];
    while let Some(s) = stack.pop() {
        if s.all_done() {
            return CanTerminate::Yes;
        }
        let hash = SeenStates::hash(&s);
        if seen.contains(hash, &s) {
            continue;
        }
        if seen.len >= budget {
            return CanTerminate::Unknown;
        }
        GreedyWork::add(&facts.work.search_states, 1);
        let mut next = candidates(program, facts, &s);
        // Highest index pushed first, so the lowest index is explored first.
        next.sort_by_key(|&b| std::cmp::Reverse(facts.index_of(b)));
        let mut children = Vec::with_capacity(next.len());
        for b in next {
            match step_copy(program, facts.interp, facts.exec, &s, b) {
                Stepped::Ended(_) | Stepped::Stuck(_) => return CanTerminate::Yes,
                Stepped::State(n) => children.push(*n),
            }
        }
        seen.insert(hash, s);
        // A child seen already is skipped when it is popped.
        stack.extend(children);
    }
    CanTerminate::No
}

/// A hash of the whole state (𝕄, Δ^W, ℓ_in^W, ℓ_next^W) with a fixed seed, the
/// same in every run: the key of the §5.3 search's seen states, of the spin guard
/// and of [`crate::lowest_path::LowestPath`]. Equal states have equal hashes; states with different
/// hashes differ, which is the only direction the checks rely on without
/// comparing whole states.
pub fn state_hash(state: &State) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0).hash_one(state)
}

/// The states a search has seen, by hash (each state hashed once per visit).
#[derive(Default)]
struct SeenStates {
    by_hash: std::collections::HashMap<u64, Vec<State>>,
    len: usize,
}

impl SeenStates {
    fn hash(state: &State) -> u64 {
        state_hash(state)
    }

    fn contains(&self, hash: u64, state: &State) -> bool {
        self.by_hash
            .get(&hash)
            .is_some_and(|states| states.contains(state))
    }

    fn insert(&mut self, hash: u64, state: State) {
        self.by_hash.entry(hash).or_default().push(state);
        self.len += 1;
    }
}

/// Whether some schedule of progressing and synchronizing steps (Def. 14, 17) leads
/// from `state` to its end: every lane terminated, or an outcome that ends the run
/// (undefined behaviour, a limit). A depth-first search over distinct states (states
/// are compared whole, so a repeated state is a cycle), lowest block index first,
/// visiting at most `budget` states. The definition as first written, kept as the
/// reference that [`can_terminate`] is checked against.
pub fn can_terminate_reference(
    program: &Program<'_>,
    facts: &GreedyFacts,
    state: &State,
    budget: usize,
) -> CanTerminate {
    let mut seen: HashSet<State> = HashSet::new();
    let mut stack = vec![state.clone()];
    while let Some(s) = stack.pop() {
        if s.all_done() {
            return CanTerminate::Yes;
        }
        if seen.contains(&s) {
            continue;
        }
        if seen.len() >= budget {
            return CanTerminate::Unknown;
        }
        let mut next = candidates(program, facts, &s);
        // Highest index pushed first, so the lowest index is explored first.
        next.sort_by_key(|&b| std::cmp::Reverse(facts.index_of(b)));
        let mut children = Vec::with_capacity(next.len());
        for b in next {
            match step_copy(program, facts.interp, facts.exec, &s, b) {
                Stepped::Ended(_) | Stepped::Stuck(_) => return CanTerminate::Yes,
                Stepped::State(n) => children.push(*n),
            }
        }
        seen.insert(s);
        stack.extend(children.into_iter().filter(|c| !seen.contains(c)));
    }
    CanTerminate::No
}

/// Termination preservation (§5.3) among `candidates` (blocks that make progress
/// and synchronize): the candidates after which no schedule ends, when another
/// candidate can still end the run, each with its violation. Empty when there are
/// fewer than two candidates or the budget is 0.
///
/// Equal to [`termination_preserving_reference`] (`proofs/tests/greedy_fast_checks.rs`
/// checks it on generated programs), without a search where none can say "no":
/// when no lane has ℓ_next = ⊤ and every lane waits at a block from which no
/// forward path reaches a back edge or a predicated block
/// ([`GreedyFacts::may_spin`] is false), then in every state a step leads to
/// (1) the same holds: a scheduled block is some lane's ℓ_next, so it has no
/// predicate (every active lane gets a successor index, not ⊤) and is not the
/// source of a back edge (its lanes move along forward edges); (2) a state whose
/// lanes have not all terminated has a block that makes progress and
/// synchronizes: the ℓ_next latest in a topological order of the forward edges
/// (some lane waits there, Def. 14 clause 1, and no other lane's ℓ_next reaches
/// it, Def. 17); (3) each step moves some lane forward and no lane back, so no
/// state repeats and every schedule ends. So every search finds an end or runs
/// out of budget, and none answers [`CanTerminate::No`]: nothing is ruled out.
/// Elsewhere one path per candidate, stepped in place, usually shows the same
/// (`lowest_path_escapes`); only where it does not do the searches run.
pub fn termination_preserving(
    program: &Program<'_>,
    facts: &GreedyFacts,
    state: &State,
    candidates: &[Block],
) -> Vec<(Block, Violation)> {
    if candidates.len() < 2 || facts.termination_budget == 0 || !facts.may_spin(state) {
        return Vec::new();
    }
    // No candidate can answer "no" if each one's lowest-index path ends or
    // passes more states than the budget: then no search is needed either.
    if candidates
        .iter()
        .all(|&b| lowest_path_escapes(program, facts, state, b))
    {
        return Vec::new();
    }
    let answers: Vec<(Block, CanTerminate)> = candidates
        .iter()
        .map(|&b| {
            let answer = match step_copy(program, facts.interp, facts.exec, state, b) {
                Stepped::Ended(_) | Stepped::Stuck(_) => CanTerminate::Yes,
                Stepped::State(next) => {
                    can_terminate(program, facts, &next, facts.termination_budget)
                }
            };
            (b, answer)
        })
        .collect();
    spin_violations(program, state, &answers)
}

/// Whether the search after scheduling `b` surely does not answer
/// [`CanTerminate::No`], shown by one path: from the state after `b`, always the
/// candidate with the lowest block index, stepped in place (one copy of the
/// state, not one per visited state). The search answers "no" exactly when the
/// states reachable after `b` include no end and number at most the budget; so
/// an end on the path (every lane terminated, or a step that ends the run), or
/// more distinct states on it than the budget (distinct hashes are distinct
/// states), rules "no" out. `false` (a hash met again, or a state where nothing
/// can be scheduled) decides nothing: then the search runs.
pub fn lowest_path_escapes(
    program: &Program<'_>,
    facts: &GreedyFacts,
    state: &State,
    b: Block,
) -> bool {
    let mut s = state.clone();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut at = b;
    let mut scratch = Scratch::default();
    loop {
        let step = lss_w_step(
            program,
            facts.interp,
            facts.exec,
            at,
            &mut s,
            &mut scratch,
            false,
        );
        if step.is_err() {
            // Undefined behaviour, a limit or a stuck step: the search's "yes".
            return true;
        }
        if s.all_done() {
            return true;
        }
        GreedyWork::add(&facts.work.search_states, 1);
        if !seen.insert(SeenStates::hash(&s)) {
            return false;
        }
        if seen.len() > facts.termination_budget {
            return true;
        }
        let next = candidates(program, facts, &s);
        match next.into_iter().min_by_key(|&n| facts.index_of(n)) {
            Some(n) => at = n,
            None => return false,
        }
    }
}

/// The violations of §5.3 given each candidate's answer: none unless some
/// candidate can end the run; then every candidate after which nothing ends.
fn spin_violations(
    program: &Program<'_>,
    state: &State,
    answers: &[(Block, CanTerminate)],
) -> Vec<(Block, Violation)> {
    let Some(&(good, _)) = answers.iter().find(|(_, a)| *a == CanTerminate::Yes) else {
        return Vec::new();
    };
    answers
        .iter()
        .filter(|(_, a)| *a == CanTerminate::No)
        .map(|&(b, _)| {
            let lane = (0..state.width()).find(|&t| !state.next[t].is_done());
            (
                b,
                Violation {
                    definition: "§5.3",
                    lane,
                    why: format!(
                        "after {} no schedule ever terminates every lane (the states repeat), while after {} one does",
                        program.block_name(b),
                        program.block_name(good)
                    ),
                },
            )
        })
        .collect()
}

/// Termination preservation (§5.3) among `candidates` (blocks that make progress
/// and synchronize): the candidates after which no schedule ends, when another
/// candidate can still end the run, each with its violation. Empty when there are
/// fewer than two candidates or the budget is 0. The definition as first written
/// (every candidate searched), kept as the reference that
/// [`termination_preserving`] is checked against.
pub fn termination_preserving_reference(
    program: &Program<'_>,
    facts: &GreedyFacts,
    state: &State,
    candidates: &[Block],
) -> Vec<(Block, Violation)> {
    if candidates.len() < 2 || facts.termination_budget == 0 {
        return Vec::new();
    }
    let answers: Vec<(Block, CanTerminate)> = candidates
        .iter()
        .map(|&b| {
            let answer = match step_copy(program, facts.interp, facts.exec, state, b) {
                Stepped::Ended(_) | Stepped::Stuck(_) => CanTerminate::Yes,
                Stepped::State(next) => {
                    can_terminate_reference(program, facts, &next, facts.termination_budget)
                }
            };
            (b, answer)
        })
        .collect();
    let Some(&(good, _)) = answers.iter().find(|(_, a)| *a == CanTerminate::Yes) else {
        return Vec::new();
    };
    answers
        .iter()
        .filter(|(_, a)| *a == CanTerminate::No)
        .map(|&(b, _)| {
            let lane = (0..state.width()).find(|&t| !state.next[t].is_done());
            (
                b,
                Violation {
                    definition: "§5.3",
                    lane,
                    why: format!(
                        "after {} no schedule ever terminates every lane (the states repeat), while after {} one does",
                        program.block_name(b),
                        program.block_name(good)
                    ),
                },
            )
        })
        .collect()
}

/// Legality as an explanation (Def. 12-18): for every block of `program`, in
/// layout order, whether scheduling it next in `state` keeps the schedule greedy,
/// and if not, the first definition it violates (progress, Def. 14; then
/// synchronization, Def. 17; then termination preservation, §5.3) with its
/// witness lane. Linear in the CFG (a display of every block); a run uses
/// [`pending_legality`].
pub fn legality(program: &Program<'_>, facts: &GreedyFacts, state: &State) -> Vec<Legality> {
    let pending = pending_legality(program, facts, state);
    program
        .body
        .layout
        .iter()
        .map(|&block| match pending.iter().find(|l| l.block == block) {
            Some(l) => l.clone(),
            None => verdict_of(program, facts, state, block),
        })
        .collect()
}

/// [`legality`] of the pending blocks only ([`pending_blocks`]: the blocks some
/// lane has its control mask set for), in layout order; every other block is
/// illegal by Def. 14 (no lane's control mask is set for it, [`verdict_of`]).
/// Costs what the lanes' targets cost, whatever the size of the CFG.
pub fn pending_legality(
    program: &Program<'_>,
    facts: &GreedyFacts,
    state: &State,
) -> Vec<Legality> {
    let mut out = pending_verdicts(program, facts, state);
    rule_out_spins(program, facts, state, &mut out);
    out
}

/// The verdicts of progress and synchronization (Def. 14, 17) on the pending
/// blocks, in layout order: [`pending_legality`] before §5.3.
pub fn pending_verdicts(
    program: &Program<'_>,
    facts: &GreedyFacts,
    state: &State,
) -> Vec<Legality> {
    pending_blocks(program, state)
        .into_iter()
        .map(|block| verdict_of(program, facts, state, block))
        .collect()
}

/// Termination preservation (§5.3) over `verdicts` of Def. 14 and 17: the
/// legal blocks after which no schedule ends, when another can still end the
/// run, get their violation ([`termination_preserving`]).
pub fn rule_out_spins(
    program: &Program<'_>,
    facts: &GreedyFacts,
    state: &State,
    verdicts: &mut [Legality],
) {
    let legal = legal_blocks(verdicts);
    for (block, violation) in termination_preserving(program, facts, state, &legal) {
        if let Some(l) = verdicts.iter_mut().find(|l| l.block == block) {
            l.verdict = violation.into_verdict();
        }
    }
}

/// The verdict of progress and synchronization (Def. 14, 17) on one block, before
/// termination preservation (§5.3), which compares the legal blocks.
pub fn verdict_of(
    program: &Program<'_>,
    facts: &GreedyFacts,
    state: &State,
    block: Block,
) -> Legality {
    Legality {
        block,
        verdict: match progress_and_sync(program, facts, state, block) {
            Ok(()) => Verdict::Legal,
            Err(v) => v.into_verdict(),
        },
    }
}

/// The legal blocks of a [`legality`] list.
pub fn legal_blocks(verdicts: &[Legality]) -> Vec<Block> {
    verdicts
        .iter()
        .filter(|l| l.is_legal())
        .map(|l| l.block)
        .collect()
}
