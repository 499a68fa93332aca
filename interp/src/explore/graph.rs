//! The graph of explored states (`pllvm explore --dot`): every state σ the
//! greedy schedules (thesis Def. 12) reach, each transition "block `b`
//! scheduled in σ gives σ'" ([LSS-W-STEP], Fig. 4.3), and the outcomes the
//! schedules end in (every lane returned, undefined behaviour naming its rule, a
//! resource limit, no block to schedule) as nodes of their own.
//!
//! `explore::explore_graph` records it while exploring; `explore::explore` and
//! the other entry points record nothing, so the graph costs nothing unless
//! asked for; `Exploration::dot` draws it. States are numbered as the breadth-first search meets them
//! (the initial state of Def. 4 is `s0`); a state met again by another schedule
//! is the same node (the search deduplicates states by fingerprint).

use crate::greedy::lane_targets;
use pllvm_semantics::ir::Block;
use pllvm_semantics::rules::{Next, Program, State};

/// One explored state, as drawn.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateNode {
    /// ℓ_next of each lane (Def. 3): a block name, `⊤` (any successor of
    /// ℓ_in), or `□` (terminated).
    pub next: Vec<String>,
    /// The blocks that may be scheduled next (progress, Def. 14, and
    /// synchronization, Def. 17) with their control masks (Def. 6), lane 0
    /// first, `1` for a set bit; empty for a state that was not expanded.
    pub masks: Vec<(String, String)>,
    /// The concurrent next blocks (Def. 20) this state witnesses.
    pub cnb: Vec<(String, String)>,
    /// No greedy schedule goes through it: some schedule ends, and none from
    /// here does (termination preservation, §5.3).
    pub off_limits: bool,
}

/// Where a transition leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// An explored state, by number.
    State(u32),
    /// An outcome, by its index in the exploration's outcomes.
    Outcome(usize),
    /// Not explored: a bound cut the search here; index into [`StateGraph::cuts`].
    Cut(usize),
}

/// One edge of the graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The state it leaves.
    pub from: u32,
    /// The block scheduled (its name), or what ended the schedule without a
    /// block step (`returned`, `blocked`, or empty for a cut).
    pub label: String,
    /// Where it leads.
    pub to: Target,
}

/// The explored graph: states, transitions, and where bounds cut it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateGraph {
    /// Every explored state, by number.
    pub states: Vec<StateNode>,
    /// Every transition followed, in the order the search followed it.
    pub edges: Vec<Edge>,
    /// Why the search stopped short, one entry per distinct reason
    /// (`more than N states`, `schedules longer than N steps`, a time limit).
    pub cuts: Vec<String>,
}

impl StateGraph {
    /// Records state number `id` (numbers come in order).
    pub(super) fn add_state(&mut self, id: u32, state: &State, program: &Program<'_>) {
        debug_assert_eq!(id as usize, self.states.len());
        let next = state
            .next
            .iter()
            .map(|n| match n {
                Next::Block(b) => program.block_name(*b).to_string(),
                Next::Any => "⊤".to_string(),
                Next::Done(_) => "□".to_string(),
            })
            .collect();
        self.states.push(StateNode {
            next,
            ..StateNode::default()
        });
    }

    /// Records what state `id` offers when it is expanded: the control masks
    /// of the blocks `next` that may be scheduled, and its Cnb pairs.
    pub(super) fn expanded(
        &mut self,
        id: u32,
        state: &State,
        program: &Program<'_>,
        next: &[Block],
        cnb: &[(Block, Block)],
    ) {
        let masks = next
            .iter()
            .map(|&b| {
                let bits: String = (0..state.width())
                    .map(|t| {
                        if lane_targets(program, state, t).contains(&b) {
                            '1'
                        } else {
                            '0'
                        }
                    })
                    .collect();
                (program.block_name(b).to_string(), bits)
            })
            .collect();
        let node = &mut self.states[id as usize];
        node.masks = masks;
        node.cnb = cnb
            .iter()
            .map(|&(a, b)| {
                (
                    program.block_name(a).to_string(),
                    program.block_name(b).to_string(),
                )
            })
            .collect();
    }

    /// Records an edge.
    pub(super) fn edge(&mut self, from: u32, label: impl Into<String>, to: Target) {
        self.edges.push(Edge {
            from,
            label: label.into(),
            to,
        });
    }

    /// The cut node for `why`, made on first use.
    pub(super) fn cut(&mut self, why: &str) -> Target {
        let k = match self.cuts.iter().position(|c| c == why) {
            Some(k) => k,
            None => {
                self.cuts.push(why.to_string());
                self.cuts.len() - 1
            }
        };
        Target::Cut(k)
    }
}
