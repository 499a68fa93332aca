//! Control divergence: `local_joins`, `PushDef`, `local_exits` and `global_joins`
//! (thesis Ch. 7, Listings 4-7).
//!
//! Given a divergent terminator, [`global_joins`] finds the blocks that are sync
//! dependent on it (Axiom 1: two threads may reach them at once from different
//! predecessors) and the loop exits that are temporal dependent on it (Axiom 2:
//! threads may leave through them in different iterations). It calls
//! [`local_joins`] for the split in its innermost loop, then for each loop that
//! the split makes divergent, collapsed into a partially divergent node (Def. 21)
//! whose successors are the loop's exits: divergent exits are divergent
//! successors, the other exits uniform ones.
//!
//! ## Reading of the listings
//! - The traversal of Listing 4 (`rpo(0, max(BlockIndex()))`) visits the blocks of
//!   `ParentLoop` (an interval of the block index, §2.5) in index order, starting
//!   after the partially divergent node: after the split block, or after the last
//!   block of a collapsed loop. Blocks before it have no `DomMap` entry except a
//!   header reached by the split's own back edge, and propagating from that header
//!   would take the back edge that `local_joins` must not take (§7.1). Blocks
//!   outside `ParentLoop` receive definitions but are not traversed.
//! - `local_exits` (Listing 6) compares each reached exit's entry with the entry
//!   of `ParentLoop`'s header, which the latch's back edge filled in. `DivLoop`
//!   starts at the virtual top-level loop ε and descends towards the split while
//!   it contains the divergent exit, so it ends as the largest loop around the
//!   split that no divergent exit stays in.
//! - Listing 7 recurses with `DivSuccSet' = Exits(DivLoop) ∩ LoopJoins` and
//!   `UniSuccSet' = Exits(DivLoop) ∖ DivSuccSet'` in `lp(DivLoop)`; every loop from
//!   `ParentLoop` out to `DivLoop` is divergent (threads leave it in different
//!   iterations).
//! - A `switch` with several cases to one block has that block once among the
//!   successors: threads taking either case reach the same block together.
//!
//! The listings assume a reducible CFG; irreducible bodies have no [`CfgFacts`].
//!
//! ## Where the traversal may stop
//! [`local_joins`] is Listing 4 as printed: it visits the rest of `ParentLoop`'s
//! interval and returns the whole `DomMap`. [`global_joins`] asks only for the
//! joins and exits, and at the top level (`ParentLoop` = ε) it stops as soon as
//! the outcome is settled: when every block ahead that has a `DomMap` entry
//! carries the same definition `d`, and no loop begun behind is still open (no
//! back edge can reach a visited block). From there on only `d` is pushed, to
//! blocks that hold `d` or nothing, so no further block becomes a join; ε has no
//! exits to reach. A diamond then costs its own blocks, not the rest of the CFG,
//! and the analysis of a long chain of branches stays linear. The exhaustive
//! checks of `proofs/tests/control_divergence.rs` run on [`global_joins`].

use crate::facts::CfgFacts;
use crate::loops::LoopId;
use crate::tables::BlockMap;
use pllvm_semantics::ir::Block;
use std::collections::HashMap;

/// A `DomMap` entry (Listing 4): `⊥` is represented by absence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Def {
    /// `u`: reached only through uniform successors.
    Uniform,
    /// A block: the node all forward paths from the divergent successors to here
    /// share last (Theorem 2).
    Block(Block),
}

/// A partially divergent node (Def. 21): where the traversal starts, and the
/// partition of its successors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartialNode {
    /// The node's last block index: the split block's, or a collapsed loop's
    /// largest; the traversal starts right after it.
    pub last_index: u32,
    /// `DivSuccSet`: successors that threads may take independently.
    pub div_succs: Vec<Block>,
    /// `UniSuccSet`: successors of which the threads take at most one together.
    pub uni_succs: Vec<Block>,
}

impl PartialNode {
    /// The terminator of `split` with divergent successors `div_succs` (the others
    /// are uniform).
    pub fn split(facts: &CfgFacts, split: Block, div_succs: &[Block]) -> Self {
        let mut div: Vec<Block> = div_succs.to_vec();
        div.sort_unstable();
        div.dedup();
        let mut uni: Vec<Block> = facts
            .cfg
            .succs(split)
            .iter()
            .copied()
            .filter(|s| !div.contains(s))
            .collect();
        uni.sort_unstable();
        uni.dedup();
        PartialNode {
            last_index: facts.index.index(split),
            div_succs: div,
            uni_succs: uni,
        }
    }

    /// The loop `l` collapsed into one node whose divergent successors are
    /// `div_exits` and uniform successors its other exits (§7.3, Fig. 7.6).
    pub fn collapsed_loop(facts: &CfgFacts, l: LoopId, div_exits: &[Block]) -> Self {
        let exits = facts.loops.exits(l);
        let mut div: Vec<Block> = exits
            .iter()
            .copied()
            .filter(|e| div_exits.contains(e))
            .collect();
        div.sort_unstable();
        let mut uni: Vec<Block> = exits.iter().copied().filter(|e| !div.contains(e)).collect();
        uni.sort_unstable();
        let last_index = loop_last_index(facts, l);
        PartialNode {
            last_index,
            div_succs: div,
            uni_succs: uni,
        }
    }
}

/// The largest block index in loop `l`: a loop is an interval of the block
/// index starting at its header (§2.5), so the header's index plus its size
/// less one (O(1), where the span of its block list cost its size per call).
fn loop_last_index(facts: &CfgFacts, l: LoopId) -> u32 {
    let size = facts.loops.blocks(l).len() as u32;
    facts.index.index(facts.loops.header(l)) + size.saturating_sub(1)
}

/// The result of [`local_joins`] (Listing 4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalJoins {
    /// `SyncBlocks`: blocks sync dependent on the node, ascending.
    pub sync: Vec<Block>,
    /// `DivLoopExits`: reached exits of `ParentLoop` that are temporal divergent.
    pub div_loop_exits: Vec<Block>,
    /// `DivLoop`: the loop to collapse next (`None` is ε: nothing left to do).
    pub div_loop: Option<LoopId>,
    /// `ReachedExits`: exits of `ParentLoop` the traversal reached, ascending.
    pub reached_exits: Vec<Block>,
    /// The final `DomMap` (absent entries are `⊥`).
    pub dom_map: BlockMap<Option<Def>>,
}

/// The state `PushDef` updates (the data of Listings 4-5). `DomMap` is sparse:
/// a traversal touches only the blocks it reaches.
struct State<'a> {
    facts: &'a CfgFacts,
    parent_loop: Option<LoopId>,
    dom_map: HashMap<Block, Def>,
    sync: Vec<Block>,
    reached_exits: Vec<Block>,
    /// The index position the traversal has visited up to.
    visited: u32,
    /// Per definition, how many blocks ahead of `visited` carry it.
    ahead: HashMap<Def, usize>,
}

impl State<'_> {
    /// `PushDef(b, d)` (Listing 5): control reaches `b` along an edge carrying `d`.
    fn push_def(&mut self, b: Block, d: Def) {
        let previous = self.dom_map.get(&b).copied();
        let next = match previous {
            Some(other) if other != d => {
                if !self.sync.contains(&b) {
                    self.sync.push(b);
                }
                Def::Block(b)
            }
            _ => d,
        };
        self.dom_map.insert(b, next);
        if self.facts.index.index(b) > self.visited && previous != Some(next) {
            if let Some(old) = previous {
                self.leave_ahead(old);
            }
            *self.ahead.entry(next).or_insert(0) += 1;
        }
        let in_parent = self
            .parent_loop
            .is_none_or(|l| self.facts.loops.contains(l, b));
        if !in_parent && !self.reached_exits.contains(&b) {
            self.reached_exits.push(b);
        }
    }

    /// One block carrying `d` is no longer ahead of the traversal.
    fn leave_ahead(&mut self, d: Def) {
        if let Some(count) = self.ahead.get_mut(&d) {
            *count -= 1;
            if *count == 0 {
                self.ahead.remove(&d);
            }
        }
    }

    /// Whether the rest of a top-level traversal after `position` can change
    /// nothing but `DomMap` entries (see the module documentation).
    fn settled(&self, position: usize) -> bool {
        if self.parent_loop.is_some() || self.ahead.len() > 1 {
            return false;
        }
        let Some(&next) = self.facts.index.order().get(position + 1) else {
            return true;
        };
        // A loop around `next` that begins before it is still open.
        let loops = &self.facts.loops;
        let mut around = loops.loop_of(next);
        while let Some(l) = around {
            if loops.header(l) != next {
                return self.ahead.is_empty();
            }
            around = loops.parent(l);
        }
        true
    }
}

/// How far [`traverse`] goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extent {
    /// The whole interval (Listing 4 as printed, the complete `DomMap`).
    Interval,
    /// Until the joins and exits are settled (see the module documentation).
    UntilSettled,
}

/// `local_joins` (Listing 4): sync dependences of `node` reachable without a back
/// edge of `parent_loop` (its innermost loop, `None` for ε), and, by
/// [`local_exits`], the temporal divergent exits of `parent_loop`.
pub fn local_joins(
    facts: &CfgFacts,
    node: &PartialNode,
    parent_loop: Option<LoopId>,
) -> LocalJoins {
    let (state, local) = traverse(facts, node, parent_loop, Extent::Interval, &mut 0);
    let mut dom_map = BlockMap::filled(facts.cfg.len(), None);
    for (&b, &d) in &state.dom_map {
        dom_map[b] = Some(d);
    }
    LocalJoins { dom_map, ..local }
}

/// Listing 4's traversal to `extent`: the state it leaves and the result without
/// its `DomMap` (left empty).
fn traverse<'a>(
    facts: &'a CfgFacts,
    node: &PartialNode,
    parent_loop: Option<LoopId>,
    extent: Extent,
    work: &mut usize,
) -> (State<'a>, LocalJoins) {
    let mut state = State {
        facts,
        parent_loop,
        dom_map: HashMap::new(),
        sync: Vec::new(),
        reached_exits: Vec::new(),
        visited: node.last_index,
        ahead: HashMap::new(),
    };
    // Initialize DomMap (lines 3-8).
    for &s in &node.div_succs {
        state.push_def(s, Def::Block(s));
    }
    for &s in &node.uni_succs {
        state.push_def(s, Def::Uniform);
    }
    // Compute DomMap (lines 9-16) over the rest of ParentLoop's index interval.
    let end = match parent_loop {
        Some(l) => loop_last_index(facts, l),
        None => facts.index.order().len().saturating_sub(1) as u32,
    };
    let order = facts.index.order();
    let hops = (extent == Extent::UntilSettled).then(|| facts.hops());
    let mut position = node.last_index as usize + 1;
    while position <= end as usize {
        let Some(&b) = order.get(position) else { break };
        *work += 1;
        state.visited = position as u32;
        let mut next = position + 1;
        if let Some(d) = state.dom_map.get(&b).copied() {
            state.leave_ahead(d);
            // Over a single-entry interval inside `ParentLoop`, `d` reaches only
            // the interval's exit (see `crate::hops`).
            match hops
                .and_then(|h| h.from(position as u32))
                .filter(|h| h.end <= end + 1)
            {
                Some(hop) => {
                    next = hop.end as usize;
                    state.visited = hop.end - 1;
                    if hop.to_exit
                        && let Some(&x) = order.get(next)
                    {
                        state.push_def(x, d);
                    }
                }
                None => {
                    for &s in facts.cfg.succs(b) {
                        state.push_def(s, d);
                    }
                }
            }
        }
        if extent == Extent::UntilSettled && state.settled(next - 1) {
            break;
        }
        position = next;
    }
    let (div_loop, div_loop_exits) = if extent == Extent::UntilSettled {
        local_exits(
            facts,
            parent_loop,
            |b| state.dom_map.get(&b).copied(),
            &state.reached_exits,
        )
    } else {
        local_exits_reference(
            facts,
            parent_loop,
            |b| state.dom_map.get(&b).copied(),
            &state.reached_exits,
        )
    };
    let mut sync = state.sync.clone();
    sync.sort_unstable();
    let mut reached_exits = state.reached_exits.clone();
    reached_exits.sort_unstable();
    let local = LocalJoins {
        sync,
        div_loop_exits,
        div_loop,
        reached_exits,
        dom_map: BlockMap::filled(0, None),
    };
    (state, local)
}

/// `local_exits` (Listing 6): the reached exits of `parent_loop` whose `DomMap`
/// entry differs from its header's (Axiom 2), and `DivLoop`.
///
/// Listing 6 descends from ε along the loops around the node while they hold
/// the divergent exit ([`local_exits_reference`]). Its depth after an exit `e`
/// is `max(depth, 1 + c(e))`, where `c(e)` is the depth of the innermost loop
/// around `parent_loop` that holds `e` (those loops are exactly the first
/// `c(e)` of the chain, and `c(e)` is less than `parent_loop`'s depth since `e`
/// is an exit of it). `c(e)` is found climbing from `parent_loop`, and `DivLoop`
/// climbing to that depth, so a nest costs the loops between `parent_loop` and
/// `DivLoop` per call instead of its whole depth.
pub fn local_exits(
    facts: &CfgFacts,
    parent_loop: Option<LoopId>,
    dom_map: impl Fn(Block) -> Option<Def>,
    reached_exits: &[Block],
) -> (Option<LoopId>, Vec<Block>) {
    let Some(parent) = parent_loop else {
        // ε has no exits.
        return (None, Vec::new());
    };
    let loops = &facts.loops;
    let mut depth = 0u32;
    let mut div_loop_exits = Vec::new();
    let header_def = dom_map(loops.header(parent));
    for &e in reached_exits {
        if dom_map(e) != header_def {
            div_loop_exits.push(e);
            let mut around = Some(parent);
            while let Some(l) = around {
                if loops.contains(l, e) {
                    break;
                }
                around = loops.parent(l);
            }
            let holding = around.map_or(0, |l| loops.loop_depth(l));
            depth = depth.max(holding + 1).min(loops.loop_depth(parent));
        }
    }
    div_loop_exits.sort_unstable();
    let div_loop = loops.ancestor_at_depth(parent, depth);
    (div_loop, div_loop_exits)
}

/// [`local_exits`] as the listing reads: `DivLoop` descends the chain of loops
/// around `parent_loop` from ε (the reference for the property tests; its chain
/// costs the nesting depth per call).
pub fn local_exits_reference(
    facts: &CfgFacts,
    parent_loop: Option<LoopId>,
    dom_map: impl Fn(Block) -> Option<Def>,
    reached_exits: &[Block],
) -> (Option<LoopId>, Vec<Block>) {
    let Some(parent) = parent_loop else {
        // ε has no exits.
        return (None, Vec::new());
    };
    // The loops around the node, outermost first; depth k means chain[k - 1].
    let mut chain = facts.loops.ancestors(facts.loops.header(parent));
    chain.reverse();
    let mut depth = 0usize;
    let mut div_loop_exits = Vec::new();
    let header_def = dom_map(facts.loops.header(parent));
    let mut reached: Vec<Block> = reached_exits.to_vec();
    reached.sort_unstable_by_key(|&e| facts.index.index(e));
    for e in reached {
        if dom_map(e) != header_def {
            div_loop_exits.push(e);
            // Descend from ε towards the node while the exit stays inside.
            while depth < chain.len() && (depth == 0 || facts.loops.contains(chain[depth - 1], e)) {
                depth += 1;
            }
        }
    }
    div_loop_exits.sort_unstable();
    let div_loop = depth.checked_sub(1).map(|k| chain[k]);
    (div_loop, div_loop_exits)
}

/// The result of [`global_joins`] (Listing 7).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Joins {
    /// `PathJoins`: blocks sync dependent on the split, ascending.
    pub sync: Vec<Block>,
    /// `LoopJoins`: divergent loop exits (temporal dependences), ascending.
    pub temporal: Vec<Block>,
    /// Loops that threads may leave in different iterations, innermost first.
    pub divergent_loops: Vec<LoopId>,
}

/// `global_joins` (Listing 7): every sync and temporal dependence of the terminator
/// of `split` when its successors `div_succs` are divergent (all successors for an
/// ordinary divergent branch).
///
/// Each round walks only until its outcome is settled (module documentation)
/// and hops over single-entry intervals of the block index ([`crate::hops`]:
/// one label passes such an interval unchanged, so its joins, exits and the
/// label at its exit are what the full walk finds). The result equals
/// [`global_joins_reference`], which walks every interval as Listing 4 is
/// printed (checked on generated CFGs by the property tests below).
pub fn global_joins(facts: &CfgFacts, split: Block, div_succs: &[Block]) -> Joins {
    global_joins_with(facts, split, div_succs, Extent::UntilSettled, &mut 0)
}

/// [`global_joins`] and the number of block-index positions its walks visited
/// (the work the hops and the early stop save; tests bound it).
pub fn global_joins_counted(facts: &CfgFacts, split: Block, div_succs: &[Block]) -> (Joins, usize) {
    let mut work = 0;
    let joins = global_joins_with(facts, split, div_succs, Extent::UntilSettled, &mut work);
    (joins, work)
}

/// Listing 7 with Listings 4 and 6 as printed: every round walks the rest of
/// `ParentLoop`'s interval block by block. The reference for [`global_joins`].
pub fn global_joins_reference(facts: &CfgFacts, split: Block, div_succs: &[Block]) -> Joins {
    global_joins_with(facts, split, div_succs, Extent::Interval, &mut 0)
}

fn global_joins_with(
    facts: &CfgFacts,
    split: Block,
    div_succs: &[Block],
    extent: Extent,
    work: &mut usize,
) -> Joins {
    let mut joins = Joins::default();
    let mut node = PartialNode::split(facts, split, div_succs);
    let mut parent_loop = facts.loops.loop_of(split);
    // Each round is one invocation of Listing 7; the recursion is a tail call.
    loop {
        let (_, local) = traverse(facts, &node, parent_loop, extent, work);
        joins.sync.extend(&local.sync);
        joins.temporal.extend(&local.div_loop_exits);
        let Some(div_loop) = local.div_loop else {
            break;
        };
        let mut current = parent_loop;
        while let Some(l) = current {
            joins.divergent_loops.push(l);
            if l == div_loop {
                break;
            }
            current = facts.loops.parent(l);
        }
        node = PartialNode::collapsed_loop(facts, div_loop, &local.div_loop_exits);
        parent_loop = facts.loops.parent(div_loop);
    }
    joins.sync.sort_unstable();
    joins.sync.dedup();
    joins.temporal.sort_unstable();
    joins.temporal.dedup();
    #[cfg(feature = "seeded-bugs")]
    if seeded_bug("join") {
        // The seeded bug: the last sync join is dropped.
        joins.sync.pop();
    }
    joins
}

/// Whether `PLLVM_SEEDED_BUG` (comma-separated) names the seeded bug `name`
/// (only with the `seeded-bugs` feature; `pllvm fuzz`'s own test, docs/fuzzing.md).
#[cfg(feature = "seeded-bugs")]
fn seeded_bug(name: &str) -> bool {
    static BUGS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUGS.get_or_init(|| std::env::var("PLLVM_SEEDED_BUG").unwrap_or_default())
        .split(',')
        .any(|b| b == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{arb_cfg, blk, graph_body, names, nested_spec, spec_of};
    use proptest::prelude::*;

    /// `global_joins` of `split` with all successors divergent, as names:
    /// (sync, temporal, divergent loop headers).
    fn check(spec: &str, split: &str, sync: &[&str], temporal: &[&str], loops: &[&str]) {
        let body = graph_body(spec);
        let facts = CfgFacts::compute(&body).expect("reducible");
        let split = blk(&body, split);
        let joins = global_joins(&facts, split, facts.cfg.succs(split));
        assert_eq!(names(&body, joins.sync.clone()), sync, "sync of {spec}");
        assert_eq!(
            names(&body, joins.temporal.clone()),
            temporal,
            "temporal of {spec}"
        );
        let headers = joins.divergent_loops.iter().map(|&l| facts.loops.header(l));
        assert_eq!(names(&body, headers), loops, "divergent loops of {spec}");
    }

    #[test]
    fn fig_7_1a_diamond() {
        check("A: B C; B: D; C: D; D:", "A", &["D"], &[], &[]);
    }

    #[test]
    fn fig_7_1c_self_loop() {
        // E → B, B → {X, B}: X is temporal dependent on B (Fig. 7.1c-d).
        check("E: B; B: X B; X:", "B", &[], &["X"], &["B"]);
    }

    #[test]
    fn fig_7_3_walkthrough() {
        // Rebuilt from §7.1: loop header A branches to B and D; B → C → D; D is the
        // latch (D → A) and leaves to E; C leaves to F; E and F join at X.
        // local_joins finds D. DomMap[A] (filled by the latch D) is D, and so is
        // DomMap[E], so by Listing 6 only F is a divergent exit: threads reach E only
        // through the join D, together. (The prose of §7.1 calls both E and F
        // temporal divergent; the listing is more precise.) The loop collapses into
        // a node with divergent exit F and uniform exit E, which join at X.
        check(
            "P: A; A: B D; B: C; C: D F; D: A E; E: X; F: X; X:",
            "A",
            &["D", "X"],
            &["F"],
            &["A"],
        );
    }

    #[test]
    fn uniform_exits_of_a_partially_divergent_loop_do_not_join() {
        // Fig. 7.6/7.7b in miniature: the loop {H, D, L} has uniform exits U1 (from
        // H) and U2 (from L) and a divergent exit V (from D's divergent branch).
        // U1 and U2 join at J, but only uniform paths reach them: not sync.
        let body = graph_body("P: H; H: D U1; D: L V; L: H U2; U1: J; U2: J; V: K; J: K; K:");
        let facts = CfgFacts::compute(&body).expect("reducible");
        let d = blk(&body, "D");
        let joins = global_joins(&facts, d, facts.cfg.succs(d));
        assert_eq!(names(&body, joins.temporal.clone()), ["V"]);
        assert_eq!(names(&body, joins.sync.clone()), ["K"]);
    }

    #[test]
    fn nested_loop_divergence_propagates_outwards() {
        // Inner loop {I, B} in outer loop {H, I, B, C}; B's branch leaves the inner
        // loop to C or X (leaving both). C returns to H; X and the outer exit Y join.
        // C and X are temporal divergent exits of the inner loop, X also of the outer
        // one (DomMap[H] = C from the latch C); Y is reached only from H, uniform.
        check(
            "E: H; H: I Y; I: B; B: I C X; C: H; X: Z; Y: Z; Z:",
            "B",
            &["Z"],
            &["C", "X"],
            &["I", "H"],
        );
    }

    #[test]
    fn switch_with_repeated_target() {
        check("A: B B C; B: D; C: D; D:", "A", &["D"], &[], &[]);
        check("A: B B; B:", "A", &[], &[], &[]);
    }

    #[test]
    fn fig_7_7a_rebuilt() {
        // Rebuilt from the prose of §7.4.1 (the figure's block 6 is not described
        // and left out): loop b0..b5 with header b0 and latch b5, divergent b2 with
        // successors b3 and b5, b3 → b4, b4 → b5; exit b7 leaves from b1 (not
        // forward-reachable from b2), exits b8 and b9 from b3 and b4.
        let body = graph_body(
            "b0: b1; b1: b2 b7; b2: b3 b5; b3: b4 b8; b4: b5 b9; b5: b0; b7: b10; b8: b10; b9: b10; b10:",
        );
        let facts = CfgFacts::compute(&body).expect("reducible");
        let b2 = blk(&body, "b2");
        let parent = facts.loops.loop_of(b2);
        let local = local_joins(
            &facts,
            &PartialNode::split(&facts, b2, facts.cfg.succs(b2)),
            parent,
        );
        assert_eq!(names(&body, local.sync.clone()), ["b5"]);
        assert_eq!(names(&body, local.reached_exits.clone()), ["b8", "b9"]);
        assert_eq!(names(&body, local.div_loop_exits.clone()), ["b8", "b9"]);
        assert_eq!(local.div_loop, parent);
    }

    #[test]
    fn fig_7_9b_join_before_the_ipdom() {
        // Rebuilt from §7.5: A branches on p to B and C, B on q to D and E; C → D,
        // D → F, E → F. With p varying, x is varying at D although ipdom(A) = F;
        // with only q varying, D has one path from B and is not a join.
        let body = graph_body("A: B C; B: D E; C: D; D: F; E: F; F:");
        let facts = CfgFacts::compute(&body).expect("reducible");
        assert_eq!(facts.postdom.ipdom(blk(&body, "A")), Some(blk(&body, "F")));
        let joins_of = |split: &str| {
            let b = blk(&body, split);
            names(&body, global_joins(&facts, b, facts.cfg.succs(b)).sync)
        };
        assert_eq!(joins_of("A"), ["D", "F"]);
        assert_eq!(joins_of("B"), ["F"]);
    }

    #[test]
    fn local_joins_dom_map_theorem_2() {
        // Listing 9 on the DAG A → {B, C}, B → {D, E}, C → E, D → F, E → F.
        let body = graph_body("A: B C; B: D E; C: E; D: F; E: F; F:");
        let facts = CfgFacts::compute(&body).expect("reducible");
        let a = blk(&body, "A");
        let local = local_joins(
            &facts,
            &PartialNode::split(&facts, a, facts.cfg.succs(a)),
            None,
        );
        let def = |n: &str| local.dom_map[blk(&body, n)];
        assert_eq!(def("D"), Some(Def::Block(blk(&body, "B"))));
        assert_eq!(def("E"), Some(Def::Block(blk(&body, "E"))));
        assert_eq!(def("F"), Some(Def::Block(blk(&body, "F"))));
        assert_eq!(names(&body, local.sync), ["E", "F"]);
    }

    /// The walks of every divergent branch of 2,000 nested ifs, and of 2,000
    /// nested loops, visit a bounded number of block-index positions per block
    /// (the full walks of Listing 4 visit d^2 / 2), and find what the reference
    /// finds.
    #[test]
    fn nested_ifs_and_loops_cost_linear_work() {
        for kind in ["ifs", "loops"] {
            let body = graph_body(&nested_spec(kind, 2000));
            let facts = CfgFacts::compute(&body).expect("reducible");
            let mut total = 0usize;
            for &b in &body.layout {
                let succs = facts.cfg.succs(b);
                if succs.len() < 2 {
                    continue;
                }
                let (joins, work) = global_joins_counted(&facts, b, succs);
                total += work;
                assert_eq!(joins, global_joins_reference(&facts, b, succs), "{kind}");
            }
            let blocks = body.layout.len();
            assert!(
                total <= 4 * blocks,
                "{kind}: {total} positions for {blocks} blocks"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// `global_joins` (hops, early stop, the climbing `local_exits`) equals
        /// Listing 7 as printed on every reachable split of random reducible CFGs (loops
        /// with divergent exits, nested loops, several latches), with all
        /// successors divergent and with only the first one.
        #[test]
        fn global_joins_equals_the_reference_on_generated_cfgs(succs in arb_cfg()) {
            let body = graph_body(&spec_of(&succs));
            let Ok(facts) = CfgFacts::compute(&body) else {
                return Ok(());
            };
            for &b in &body.layout {
                let all = facts.cfg.succs(b);
                // An unreachable split is no question the analyses ask (in
                // unreachable code a cycle need not be a natural loop, and the
                // early stop does not look for one).
                if all.len() < 2 || !facts.cfg.reachable(b) {
                    continue;
                }
                for div in [all, &all[..1]] {
                    prop_assert_eq!(
                        global_joins(&facts, b, div),
                        global_joins_reference(&facts, b, div),
                        "{} split {:?} div {:?}", spec_of(&succs), b, div
                    );
                }
            }
        }
    }
}
