//! Partial control-flow linearization (thesis Ch. 8, Listing 8; loops §8.3;
//! predicates and phis §8.4-8.5 in [`crate::predicates`]).
//!
//! Listing 8 visits the blocks in block-index order (§2.5) on the CFG without its
//! back edges and draws new successors: a uniform branch keeps one successor per
//! successor index, `next = min(T ∪ {s})`; a divergent branch gets the single
//! successor `next = min(T ∪ S)`; every other candidate `t` is *deferred* to
//! `next` (the pair `(next, t)` joins the deferral relation `D`), which makes `t`
//! post-dominate `next` in the new CFG `G_ℓ` (Lemma 8). `T` is what `D` defers to
//! the block being visited. The back edges are then put back at the unique latch
//! of each loop (§8.3), which is sound because the loops are uniform: the
//! deferrals a latch sees lead out of the loop and also travel along its exits.
//!
//! # Before Listing 8
//! The input is checked first, so that every refusal names a construct of the
//! program the user gave ([`crate::error`]): reducible (§2.4), unpredicated
//! (§8.5), and every loop uniform per the pipeline's analysis ("loop %H is
//! divergent: run dlt first"). Then the CFG gets the normal form Listing 8 and
//! §8.3 assume: one exit block (one sink), a dedicated preheader for every loop
//! and a unique latch (§2.4, `pllvm_analysis::normalize`), and no block the entry
//! cannot reach.
//!
//! # Cost
//! `D` is one persistent ordered set per block, keyed by block index, so `min` is
//! the first element: a treap with structure shared between versions
//! (`DeferSet`), so that a uniform branch hands `T` to each of its successors
//! without copying it and a union of two versions of one set costs the elements
//! they differ in, not their size. The ordered sets copied per extra successor
//! (`listing_8_reference`, kept for the tests) cost d^2 / 2 elements on d nested
//! ifs each guarded by a BOSCC gadget. [`Work`] counts the tree nodes allocated
//! so tests can bound them without timing.

use crate::edit::Editor;
use crate::error::{Site, TransformError};
use crate::pass::PassContext;
use crate::predicates::{self, Original};
use crate::prepare;
use pllvm_analysis::block_index::block_index;
use pllvm_analysis::control_dep::control_dependence;
use pllvm_analysis::loops::LoopInfo;
use pllvm_analysis::postdom::PostDomTree;
use pllvm_analysis::result::Uniformity;
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::{Block, Body, FuncId, Module, Terminator};
#[cfg(test)]
use std::collections::BTreeSet;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// [Listing 8] Partially linearizes `func`: divergent branches are if-converted,
/// uniform ones kept (Ch. 8).
pub fn partial_linearization(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
) -> Result<(Module, Vec<String>), TransformError> {
    let out = linearize(module, func, cx, Settings::partial())?;
    Ok((out.module, out.notes))
}

/// Which branches Listing 8 treats as uniform (keeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branches {
    /// Those the analysis calls uniform: partial linearization (Ch. 8).
    Uniform,
    /// Only the uniform branches that control a loop: its latch and exiting
    /// branches, and the branches inside the loop those are control dependent on
    /// (so loops stay loops and keep their exits); full if-conversion.
    LoopControl,
}

/// How [`linearize`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Which branches are kept.
    pub branches: Branches,
    /// Whether blocks whose activation the analysis calls uniform go without a
    /// predicate (Theorem 4: such a block is reached in `G_ℓ` only when its
    /// predicate is true in every lane). Only sound with [`Branches::Uniform`].
    pub elide_uniform_predicates: bool,
}

impl Settings {
    /// Partial linearization as the thesis states it (Listing 8 and Theorem 4).
    pub fn partial() -> Settings {
        Settings {
            branches: Branches::Uniform,
            elide_uniform_predicates: true,
        }
    }

    /// Full if-conversion: every branch but the loops' own is linearized.
    pub fn full() -> Settings {
        Settings {
            branches: Branches::LoopControl,
            elide_uniform_predicates: false,
        }
    }
}

/// The counts of Listing 8's work on one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Blocks visited (line 3).
    pub blocks: u64,
    /// Edges of `E_ℓ` drawn (lines 9 and 15).
    pub edges: u64,
    /// Tree nodes the deferral relation allocates (lines 8-10 and 14-16): the
    /// paths an insert, a `min` taken out, a split or a union copies
    /// (`DeferSet`); a set shared by the successors of a uniform branch, or
    /// moved whole, costs nothing.
    pub deferral_inserts: u64,
}

/// A linearized function: the module, the notes, and the work Listing 8 did.
#[derive(Clone, Debug)]
pub struct Linearized {
    /// The module with the function linearized and predicated.
    pub module: Module,
    /// One line per decision.
    pub notes: Vec<String>,
    /// What Listing 8 did.
    pub work: Work,
}

/// Linearizes `func` of `module` with `settings`: checks the input, puts the CFG
/// in normal form, runs Listing 8 with the back edges re-inserted (§8.3), and
/// predicates the blocks (§8.4-8.5).
pub fn linearize(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
    settings: Settings,
) -> Result<Linearized, TransformError> {
    let pass = cx.pass.name();
    prepare::require_reducible(module, func, pass)?;
    prepare::require_unpredicated(module, func, pass)?;
    let uniformity = cx.analyze(module, func)?;
    linearize_analyzed(module, func, cx, settings, &uniformity)
}

/// [`linearize`] with the pipeline's analysis of `func` already at hand.
pub fn linearize_analyzed(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
    settings: Settings,
    uniformity: &Uniformity,
) -> Result<Linearized, TransformError> {
    let pass = cx.pass.name();
    let input_loops = prepare::require_reducible(module, func, pass)?;
    prepare::require_unpredicated(module, func, pass)?;
    let input = prepare::body_of(module, func, pass)?;
    require_uniform_loops(func, input, &input_loops, uniformity, pass)?;
    let input_blocks = input.blocks.len();

    let normal = normal_form(module, func, pass)?;
    let body = prepare::body_of(&normal, func, pass)?;
    let loops = LoopInfo::compute(body)
        .map_err(|e| TransformError::new(pass, Site::Function(func), format!("internal: {e}")))?;
    let cfg = Cfg::new(body);
    let dag = Dag::new(body, &cfg, &loops);
    let keeps = kept_branches(body, &dag, &loops, uniformity, input_blocks, settings);
    let mut work = Work::default();
    let folded = listing_8(&dag, &keeps, &mut work);
    require_exits_kept(func, body, &dag, &loops, &folded, pass)?;

    let exit = body
        .layout
        .iter()
        .copied()
        .find(|&b| matches!(body.blocks[b].term, Terminator::Ret(_)));
    let unpredicated: HashSet<Block> = dag
        .blocks
        .iter()
        .copied()
        .filter(|&b| {
            Some(b) == exit
                || Some(b) == dag.blocks.first().copied()
                || (settings.elide_uniform_predicates
                    && (b.as_u32() as usize) < input_blocks
                    && uniformity.activation[b].is_uniform())
        })
        .collect();
    let terms: HashMap<Block, Terminator> = dag
        .blocks
        .iter()
        .map(|&b| (b, body.blocks[b].term.clone()))
        .collect();
    let dom = cfg.dominators();

    let mut ed = Editor::new(&normal, func);
    let mut notes = rewrite_terminators(&mut ed, &dag, &folded);
    require_headers_kept(&ed, func, &dag, &loops, &terms, pass)?;
    let original = Original {
        order: &dag.blocks,
        terms: &terms,
        loops: &loops,
        dom: &dom,
        unpredicated: &unpredicated,
    };
    notes.extend(predicates::predicate_blocks(&mut ed, &original));
    lay_out_in_block_index_order(&mut ed, &dag);
    Ok(Linearized {
        module: ed.finish(),
        notes,
        work,
    })
}

/// §8.3: partial linearization needs uniform loops. A loop is divergent if the
/// analysis says its exits are temporally divergent, or if an exiting block has a
/// divergent branch with a successor inside the loop (lanes would stay and leave).
/// Returns the headers of the divergent loops, outermost first.
pub fn divergent_loops(body: &Body, loops: &LoopInfo, uniformity: &Uniformity) -> Vec<Block> {
    loops
        .loops()
        .filter(|&l| {
            let header = loops.header(l);
            let temporal = uniformity.divergent_loops.contains(&header)
                || loops
                    .exits(l)
                    .iter()
                    .any(|x| uniformity.loop_exits.get(x).is_some_and(|s| s.is_varying()));
            let splitting = loops.exiting(l).iter().any(|&x| {
                uniformity.terminators[x].is_varying()
                    && body.blocks[x]
                        .term
                        .successors()
                        .iter()
                        .any(|&s| loops.contains(l, s))
            });
            temporal || splitting
        })
        .map(|l| loops.header(l))
        .collect()
}

/// Refuses the first divergent loop ([`divergent_loops`]), naming its header.
fn require_uniform_loops(
    func: FuncId,
    body: &Body,
    loops: &LoopInfo,
    uniformity: &Uniformity,
    pass: &'static str,
) -> Result<(), TransformError> {
    match divergent_loops(body, loops, uniformity).first() {
        None => Ok(()),
        Some(&header) => Err(TransformError::new(
            pass,
            Site::Block(func, header),
            format!(
                "loop %{} is divergent: {}",
                body.blocks[header].name,
                run_dlt_first(pass)
            ),
        )),
    }
}

/// What to do about a divergent loop: run dlt first (`ifconv` runs it itself, so
/// a divergent loop there is one dlt left).
fn run_dlt_first(pass: &str) -> String {
    if pass == "ifconv" {
        "the divergent loop transform did not make it uniform (thesis §9.1)".into()
    } else {
        format!("run dlt first (--pass dlt,{pass})")
    }
}

/// The normal form Listing 8 runs on: one exit block (`prepare::unify_exits`), no
/// unreachable block, a dedicated preheader and a unique latch per loop (§2.4).
/// The loops are funnelled with the [`Editor`] (fresh names in O(1), one layout
/// pass at the end), so the normal form costs time linear in the body.
fn normal_form(
    module: &Module,
    func: FuncId,
    pass: &'static str,
) -> Result<Module, TransformError> {
    let mut ed = Editor::new(module, func);
    prepare::unify_exits(&mut ed);
    remove_unreachable(ed.body_mut());
    let loops = LoopInfo::compute(ed.body())
        .map_err(|e| TransformError::new(pass, Site::Function(func), format!("internal: {e}")))?;
    insert_preheaders(&mut ed, &loops);
    unify_latches(&mut ed, &loops);
    Ok(ed.finish())
}

/// §2.4: every loop header whose predecessors outside the loop are not exactly
/// one block branching only to it gets a new preheader funnelling those edges.
fn insert_preheaders(ed: &mut Editor, loops: &LoopInfo) {
    let cfg = Cfg::new(ed.body());
    for l in loops.loops() {
        let header = loops.header(l);
        let mut outside: Vec<Block> = cfg
            .preds(header)
            .iter()
            .copied()
            .filter(|&p| !loops.contains(l, p))
            .collect();
        outside.sort_unstable();
        outside.dedup();
        let dedicated =
            matches!(outside.as_slice(), [p] if cfg.succs(*p).iter().all(|&s| s == header));
        if dedicated || outside.is_empty() {
            continue;
        }
        let stem = format!("{}.preheader", ed.block_name(header));
        ed.funnel(header, &outside, &stem, None);
    }
}

/// §2.4: every loop with several latches gets one new latch they branch to.
fn unify_latches(ed: &mut Editor, loops: &LoopInfo) {
    for l in loops.loops() {
        let latches = loops.latches(l);
        let [.., last] = latches else { continue };
        if latches.len() < 2 {
            continue;
        }
        let header = loops.header(l);
        let stem = format!("{}.latch", ed.block_name(header));
        ed.funnel(header, latches, &stem, Some(*last));
    }
}

/// Drops the blocks the entry cannot reach (§2.2 excludes them): out of the
/// layout, without successors, and without arms in the phis of reachable blocks.
fn remove_unreachable(body: &mut Body) {
    let cfg = Cfg::new(body);
    let dead: HashSet<Block> = body
        .layout
        .iter()
        .copied()
        .filter(|&b| !cfg.reachable(b))
        .collect();
    if dead.is_empty() {
        return;
    }
    body.layout.retain(|b| !dead.contains(b));
    for &b in &dead {
        body.blocks[b].term = Terminator::Unreachable;
    }
    for b in body.layout.clone() {
        for phi in body.blocks[b].phis.clone() {
            if let pllvm_semantics::ir::InstKind::Phi { incoming, .. } = &mut body.insts[phi].kind {
                incoming.retain(|(_, from)| !dead.contains(from));
            }
        }
    }
}

/// The CFG without its back edges (§8.3), in block-index order (§2.5).
struct Dag {
    /// The reachable blocks by increasing block index: position `k` is block
    /// `blocks[k]`.
    blocks: Vec<Block>,
    /// The position of each block (by arena index; `u32::MAX` if unreachable).
    position: Vec<u32>,
    /// Per position: the edges `(successor index, target position)` that are not
    /// back edges, in successor-index order.
    succs: Vec<Vec<(usize, u32)>>,
    /// Per position: the back edges `(successor index, header)` (§8.3).
    back: Vec<Vec<(usize, Block)>>,
}

impl Dag {
    fn new(body: &Body, cfg: &Cfg, loops: &LoopInfo) -> Dag {
        let index = block_index(body);
        let blocks: Vec<Block> = index
            .order()
            .iter()
            .copied()
            .filter(|&b| cfg.reachable(b))
            .collect();
        let mut position = vec![u32::MAX; body.blocks.len()];
        for (k, &b) in blocks.iter().enumerate() {
            position[b.as_u32() as usize] = k as u32;
        }
        let mut succs = Vec::with_capacity(blocks.len());
        let mut back = Vec::with_capacity(blocks.len());
        for &b in &blocks {
            let mut forward = Vec::new();
            let mut backward = Vec::new();
            for (i, s) in body.blocks[b].term.successors().into_iter().enumerate() {
                if loops.is_back_edge(b, s) {
                    backward.push((i, s));
                } else {
                    forward.push((i, position[s.as_u32() as usize]));
                }
            }
            succs.push(forward);
            back.push(backward);
        }
        Dag {
            blocks,
            position,
            succs,
            back,
        }
    }

    fn position(&self, b: Block) -> u32 {
        self.position
            .get(b.as_u32() as usize)
            .copied()
            .unwrap_or(u32::MAX)
    }
}

/// Which blocks Listing 8 treats as ending in a uniform branch (by position):
/// unconditional branches and returns always; a branch on a value when the
/// analysis calls it uniform and, for full if-conversion, it controls a loop.
fn kept_branches(
    body: &Body,
    dag: &Dag,
    loops: &LoopInfo,
    uniformity: &Uniformity,
    input_blocks: usize,
    settings: Settings,
) -> Vec<bool> {
    let loop_control = match settings.branches {
        Branches::Uniform => None,
        Branches::LoopControl => Some(loop_control_branches(body, loops)),
    };
    dag.blocks
        .iter()
        .map(|&b| {
            if !body.blocks[b].term.is_branch_on_value() || (b.as_u32() as usize) >= input_blocks {
                return true;
            }
            let uniform = !uniformity.terminators[b].is_varying();
            uniform && loop_control.as_ref().is_none_or(|set| set.contains(&b))
        })
        .collect()
}

/// The branches that control a loop: its latches and exiting blocks, and, inside
/// the loop, every block one of those is control dependent on (§2.3), closed
/// under that relation. Keeping them keeps every exit an exit.
fn loop_control_branches(body: &Body, loops: &LoopInfo) -> HashSet<Block> {
    let cdep = control_dependence(body, &PostDomTree::compute(body));
    let mut keep = HashSet::new();
    for l in loops.loops() {
        let mut work: Vec<Block> = loops
            .exiting(l)
            .iter()
            .chain(loops.latches(l))
            .copied()
            .collect();
        while let Some(x) = work.pop() {
            if !keep.insert(x) {
                continue;
            }
            for &a in &cdep[x] {
                if loops.contains(l, a) && !keep.contains(&a) {
                    work.push(a);
                }
            }
        }
    }
    keep
}

/// What Listing 8 drew for one block.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Folded {
    /// Lines 7-11: one new target position per successor index of the DAG.
    Uniform(Vec<(usize, u32)>),
    /// Lines 13-16: the single new successor (`None`: the block has none).
    Divergent(Option<u32>),
}

/// A persistent set of positions for the deferral relation: a treap whose
/// priorities are a fixed bijective mix of the key, so that a set has one shape
/// whoever built it. Cloning shares the tree (O(1)); an insert or a `pop_first`
/// copies one path (O(log n) expected); a union recurses only where the two trees
/// are different nodes, so the union of two versions of one set that differ in
/// k elements costs O(k log n), however large they are.
///
/// Listing 8 copies `T` once per extra successor of a uniform branch (line 8
/// reads `T ∪ {s}` per successor): with ordered sets that is d^2 / 2 elements on
/// d nested ifs each guarded by a BOSCC gadget (a uniform branch), whose copies
/// meet again at the joins. Shared, a copy is free and the joins merge versions
/// of one set.
#[derive(Clone, Default)]
struct DeferSet(Option<Rc<DeferNode>>);

struct DeferNode {
    key: u32,
    left: DeferSet,
    right: DeferSet,
}

/// The treap priority of `key`: a bijection of `u32` (an odd multiplier and
/// xor-shifts are each invertible), so distinct keys have distinct priorities.
fn defer_priority(key: u32) -> u32 {
    let mut x = key.wrapping_mul(0x9E37_79B1);
    x ^= x >> 16;
    x = x.wrapping_mul(0x85EB_CA6B);
    x ^= x >> 13;
    x
}

impl DeferSet {
    fn node(key: u32, left: DeferSet, right: DeferSet, work: &mut Work) -> DeferSet {
        work.deferral_inserts += 1;
        DeferSet(Some(Rc::new(DeferNode { key, left, right })))
    }

    fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The elements below `key`, whether `key` is one, and those above it.
    fn split(&self, key: u32, work: &mut Work) -> (DeferSet, bool, DeferSet) {
        let Some(n) = &self.0 else {
            return (DeferSet::default(), false, DeferSet::default());
        };
        if key == n.key {
            (n.left.clone(), true, n.right.clone())
        } else if key < n.key {
            let (l, found, r) = n.left.split(key, work);
            (l, found, DeferSet::node(n.key, r, n.right.clone(), work))
        } else {
            let (l, found, r) = n.right.split(key, work);
            (DeferSet::node(n.key, n.left.clone(), l, work), found, r)
        }
    }

    /// `self ∪ other`; a subtree both share is taken as it is.
    fn union(&self, other: &DeferSet, work: &mut Work) -> DeferSet {
        let (a, b) = match (&self.0, &other.0) {
            (None, _) => return other.clone(),
            (_, None) => return self.clone(),
            (Some(a), Some(b)) if Rc::ptr_eq(a, b) => return self.clone(),
            (Some(a), Some(b)) => (a, b),
        };
        if a.key == b.key {
            let left = a.left.union(&b.left, work);
            let right = a.right.union(&b.right, work);
            return DeferSet::node(a.key, left, right, work);
        }
        let (top, rest) = if defer_priority(a.key) > defer_priority(b.key) {
            (a, other)
        } else {
            (b, self)
        };
        let (l, _, r) = rest.split(top.key, work);
        let left = top.left.union(&l, work);
        let right = top.right.union(&r, work);
        DeferSet::node(top.key, left, right, work)
    }

    fn insert(&mut self, key: u32, work: &mut Work) {
        let single = DeferSet::node(key, DeferSet::default(), DeferSet::default(), work);
        *self = self.union(&single, work);
    }

    /// Removes and returns the least element.
    fn pop_first(&mut self, work: &mut Work) -> Option<u32> {
        let n = self.0.clone()?;
        if n.left.is_empty() {
            *self = n.right.clone();
            return Some(n.key);
        }
        let mut left = n.left.clone();
        let first = left.pop_first(work);
        *self = DeferSet::node(n.key, left, n.right.clone(), work);
        first
    }
}

/// The deferral relation `D` of Listing 8: per position, the positions deferred
/// to that block, as persistent sets ([`DeferSet`]).
struct Deferral {
    sets: Vec<DeferSet>,
}

impl Deferral {
    /// Line 2: `D ← ∅`.
    fn new(len: usize) -> Deferral {
        Deferral {
            sets: vec![DeferSet::default(); len],
        }
    }

    /// Lines 5 and 18: `T ← {s | (b, s) ∈ D}`, then `D ← D \ {(b, s)}`. Line 18 may
    /// run first because `T` is read before and `D(b)` never again (App. B.1.1).
    fn take(&mut self, b: u32) -> DeferSet {
        self.sets
            .get_mut(b as usize)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Lines 10 and 16: `D ← D ∪ {(next, t) | t ∈ targets}`.
    fn defer(&mut self, next: u32, targets: DeferSet, work: &mut Work) {
        let Some(set) = self.sets.get_mut(next as usize) else {
            return;
        };
        *set = set.union(&targets, work);
    }
}

/// [Listing 8] Lines 1-20 on the DAG: the new successors of every block.
fn listing_8(dag: &Dag, keeps: &[bool], work: &mut Work) -> Vec<Folded> {
    let mut deferral = Deferral::new(dag.blocks.len());
    let mut folded = Vec::with_capacity(dag.blocks.len());
    for (b, succs) in dag.succs.iter().enumerate() {
        let b = b as u32;
        work.blocks += 1;
        let t = deferral.take(b);
        let f = if keeps.get(b as usize).copied().unwrap_or(true) {
            fold_uniform_branch(t, succs, &mut deferral, work)
        } else {
            fold_divergent_branch(t, succs, &mut deferral, work)
        };
        folded.push(f);
    }
    folded
}

/// [Listing 8, lines 6-11] A uniform branch: for each successor index `i` with
/// target `s`, `next ← min(T ∪ {s})`, the edge `(b, i, next)`, and the rest of
/// `T ∪ {s}` deferred to `next` (each edge reads `T` shared, not copied).
fn fold_uniform_branch(
    t: DeferSet,
    succs: &[(usize, u32)],
    deferral: &mut Deferral,
    work: &mut Work,
) -> Folded {
    let mut edges = Vec::with_capacity(succs.len());
    for &(i, s) in succs {
        let mut candidates = t.clone();
        candidates.insert(s, work);
        let Some(next) = candidates.pop_first(work) else {
            continue;
        };
        deferral.defer(next, candidates, work);
        edges.push((i, next));
        work.edges += 1;
    }
    Folded::Uniform(edges)
}

/// [Listing 8, lines 12-16] A divergent branch: `next ← min(T ∪ S)`, the single
/// edge `(b, 0, next)`, and the rest of `T ∪ S` deferred to `next`.
fn fold_divergent_branch(
    mut t: DeferSet,
    succs: &[(usize, u32)],
    deferral: &mut Deferral,
    work: &mut Work,
) -> Folded {
    for &(_, s) in succs {
        t.insert(s, work);
    }
    let Some(next) = t.pop_first(work) else {
        return Folded::Divergent(None);
    };
    deferral.defer(next, t, work);
    work.edges += 1;
    Folded::Divergent(Some(next))
}

/// The deferral relation `D` of Listing 8 as ordered sets, each copied for the
/// extra successors of a uniform branch: the reference that [`Deferral`] is
/// tested against (the copies cost d^2 / 2 on d nested ifs under BOSCC gadgets).
#[cfg(test)]
struct DeferralReference {
    sets: Vec<BTreeSet<u32>>,
}

#[cfg(test)]
impl DeferralReference {
    /// Line 2: `D ← ∅`.
    fn new(len: usize) -> DeferralReference {
        DeferralReference {
            sets: vec![BTreeSet::new(); len],
        }
    }

    /// Lines 5 and 18: `T ← {s | (b, s) ∈ D}`, then `D ← D \ {(b, s)}`. Line 18 may
    /// run first because `T` is read before and `D(b)` never again (App. B.1.1).
    fn take(&mut self, b: u32) -> BTreeSet<u32> {
        self.sets
            .get_mut(b as usize)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Lines 10 and 16: `D ← D ∪ {(next, t) | t ∈ targets}`, merging the smaller
    /// set into the larger.
    fn defer(&mut self, next: u32, mut targets: BTreeSet<u32>, work: &mut Work) {
        let Some(set) = self.sets.get_mut(next as usize) else {
            return;
        };
        if set.len() < targets.len() {
            std::mem::swap(set, &mut targets);
        }
        work.deferral_inserts += targets.len() as u64;
        set.extend(targets);
    }
}

/// [Listing 8] Lines 1-20 on the DAG: the new successors of every block.
#[cfg(test)]
fn listing_8_reference(dag: &Dag, keeps: &[bool], work: &mut Work) -> Vec<Folded> {
    let mut deferral = DeferralReference::new(dag.blocks.len());
    let mut folded = Vec::with_capacity(dag.blocks.len());
    for (b, succs) in dag.succs.iter().enumerate() {
        let b = b as u32;
        work.blocks += 1;
        let t = deferral.take(b);
        let f = if keeps.get(b as usize).copied().unwrap_or(true) {
            fold_uniform_branch_reference(t, succs, &mut deferral, work)
        } else {
            fold_divergent_branch_reference(t, succs, &mut deferral, work)
        };
        folded.push(f);
    }
    folded
}

/// [Listing 8, lines 6-11] A uniform branch: for each successor index `i` with
/// target `s`, `next ← min(T ∪ {s})`, the edge `(b, i, next)`, and the rest of
/// `T ∪ {s}` deferred to `next`.
#[cfg(test)]
fn fold_uniform_branch_reference(
    t: BTreeSet<u32>,
    succs: &[(usize, u32)],
    deferral: &mut DeferralReference,
    work: &mut Work,
) -> Folded {
    let mut edges = Vec::with_capacity(succs.len());
    let mut rest = Some(t);
    for (k, &(i, s)) in succs.iter().enumerate() {
        // The last edge takes T itself; the others copy it.
        let mut candidates = if k + 1 == succs.len() {
            rest.take().unwrap_or_default()
        } else {
            let copy = rest.clone().unwrap_or_default();
            work.deferral_inserts += copy.len() as u64;
            copy
        };
        candidates.insert(s);
        let Some(next) = candidates.pop_first() else {
            continue;
        };
        deferral.defer(next, candidates, work);
        edges.push((i, next));
        work.edges += 1;
    }
    Folded::Uniform(edges)
}

/// [Listing 8, lines 12-16] A divergent branch: `next ← min(T ∪ S)`, the single
/// edge `(b, 0, next)`, and the rest of `T ∪ S` deferred to `next`.
#[cfg(test)]
fn fold_divergent_branch_reference(
    mut t: BTreeSet<u32>,
    succs: &[(usize, u32)],
    deferral: &mut DeferralReference,
    work: &mut Work,
) -> Folded {
    t.extend(succs.iter().map(|&(_, s)| s));
    let Some(next) = t.pop_first() else {
        return Folded::Divergent(None);
    };
    deferral.defer(next, t, work);
    work.edges += 1;
    Folded::Divergent(Some(next))
}

/// After Listing 8: an exit edge of a uniform loop must still leave the loop.
/// (If it is folded into the loop, the exit was control dependent on a divergent
/// branch inside it, so lanes could leave in different iterations: the loop is
/// divergent, whatever the analysis said.)
fn require_exits_kept(
    func: FuncId,
    body: &Body,
    dag: &Dag,
    loops: &LoopInfo,
    folded: &[Folded],
    pass: &'static str,
) -> Result<(), TransformError> {
    for (k, f) in folded.iter().enumerate() {
        let a = dag.blocks[k];
        let Folded::Uniform(edges) = f else { continue };
        for &(i, next) in edges {
            let Some(&(_, s)) = dag.succs[k].iter().find(|&&(j, _)| j == i) else {
                continue;
            };
            let s = dag.blocks[s as usize];
            let next = dag.blocks[next as usize];
            for l in loops.ancestors(a) {
                if loops.contains(l, s) {
                    break;
                }
                if loops.contains(l, next) {
                    let header = loops.header(l);
                    return Err(TransformError::new(
                        pass,
                        Site::Block(func, header),
                        format!(
                            "loop %{} is divergent: its exit %{} -> %{} depends on a divergent branch inside the loop; {}",
                            body.blocks[header].name,
                            body.blocks[a].name,
                            body.blocks[s].name,
                            run_dlt_first(pass)
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Puts `E_ℓ` into the terminators: a uniform branch keeps its kind and condition
/// with its targets replaced per successor index (back edges re-inserted, §8.3),
/// a divergent one becomes `br label %next`. Returns the notes.
fn rewrite_terminators(ed: &mut Editor, dag: &Dag, folded: &[Folded]) -> Vec<String> {
    let mut notes = Vec::new();
    for (k, f) in folded.iter().enumerate() {
        let b = dag.blocks[k];
        let old = ed.body().blocks[b].term.clone();
        let name = |ed: &Editor, x: Block| format!("%{}", ed.block_name(x));
        let new = match f {
            Folded::Divergent(None) => old.clone(),
            Folded::Divergent(Some(next)) => {
                let next = dag.blocks[*next as usize];
                notes.push(format!(
                    "linearized divergent branch in {} -> {}",
                    name(ed, b),
                    name(ed, next)
                ));
                Terminator::Br(next)
            }
            Folded::Uniform(edges) => {
                let mut targets = old.successors();
                for &(i, next) in edges {
                    if let Some(t) = targets.get_mut(i) {
                        *t = dag.blocks[next as usize];
                    }
                }
                for &(i, header) in &dag.back[k] {
                    if let Some(t) = targets.get_mut(i) {
                        *t = header;
                    }
                }
                let new = with_targets(&old, &targets);
                let listed = |ed: &Editor, list: &[Block]| {
                    list.iter()
                        .map(|&x| name(ed, x))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                if old.is_branch_on_value() {
                    let mut note = format!("kept uniform branch in {}", name(ed, b));
                    if new != old {
                        note.push_str(&format!(" (now -> {})", listed(ed, &new.successors())));
                    }
                    notes.push(note);
                } else if new != old {
                    notes.push(format!(
                        "redirected {} -> {} (was -> {})",
                        name(ed, b),
                        listed(ed, &new.successors()),
                        listed(ed, &old.successors())
                    ));
                }
                new
            }
        };
        ed.body_mut().blocks[b].term = new;
    }
    notes
}

/// `term` with its successors replaced by `targets` (in successor-index order);
/// a branch on a value whose targets Listing 8 made all coincide becomes an
/// unconditional `br` (one that had a single target already stays as written).
fn with_targets(term: &Terminator, targets: &[Block]) -> Terminator {
    let single = |list: &[Block]| {
        list.split_first()
            .is_some_and(|(f, rest)| rest.iter().all(|t| t == f))
    };
    if term.is_branch_on_value()
        && single(targets)
        && !single(&term.successors())
        && let Some(&first) = targets.first()
    {
        return Terminator::Br(first);
    }
    let at = |i: usize, default: Block| targets.get(i).copied().unwrap_or(default);
    match term {
        Terminator::Br(b) => Terminator::Br(at(0, *b)),
        Terminator::CondBr {
            cond,
            if_true,
            if_false,
        } => Terminator::CondBr {
            cond: *cond,
            if_true: at(0, *if_true),
            if_false: at(1, *if_false),
        },
        Terminator::Switch {
            ty,
            cond,
            default,
            cases,
        } => Terminator::Switch {
            ty: *ty,
            cond: *cond,
            default: at(0, *default),
            cases: cases
                .iter()
                .enumerate()
                .map(|(k, (c, t))| (c.clone(), at(k + 1, *t)))
                .collect(),
        },
        other => other.clone(),
    }
}

/// Lays the blocks out in block-index order: every edge of `G_ℓ` but a back edge
/// then points down the text, as the linearized program runs.
fn lay_out_in_block_index_order(ed: &mut Editor, dag: &Dag) {
    ed.body_mut().layout = dag.blocks.clone();
}

/// §8.3 keeps a loop header's two edges (dedicated preheader, latch); the header
/// predicate and the header phis rely on it.
fn require_headers_kept(
    ed: &Editor,
    func: FuncId,
    dag: &Dag,
    loops: &LoopInfo,
    before: &HashMap<Block, Terminator>,
    pass: &'static str,
) -> Result<(), TransformError> {
    let mut edges: HashMap<Block, (usize, usize)> = HashMap::new();
    for b in &dag.blocks {
        for s in before
            .get(b)
            .map(Terminator::successors)
            .unwrap_or_default()
        {
            if loops.is_header(s) {
                edges.entry(s).or_default().0 += 1;
            }
        }
        for s in ed.body().blocks[*b].term.successors() {
            if loops.is_header(s) {
                edges.entry(s).or_default().1 += 1;
            }
        }
    }
    for (header, (old, new)) in edges {
        if old != new || dag.position(header) == u32::MAX {
            return Err(TransformError::new(
                pass,
                Site::Block(func, header),
                format!(
                    "internal: partial linearization changed the edges into the loop header %{}",
                    ed.block_name(header)
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs Listing 8 on a DAG given by position: `succs[k]` are the targets of
    /// block `k` in successor-index order, `uniform[k]` whether its branch is kept;
    /// compares the new successors of every block with `expect` (one list per
    /// block: per successor index for a uniform branch, the single `next` for a
    /// divergent one).
    fn check(succs: &[&[u32]], uniform: &[bool], expect: &[&[u32]]) {
        let dag = Dag {
            blocks: (0..succs.len() as u32).map(Block::from_u32).collect(),
            position: (0..succs.len() as u32).collect(),
            succs: succs
                .iter()
                .map(|list| list.iter().copied().enumerate().collect())
                .collect(),
            back: vec![Vec::new(); succs.len()],
        };
        let mut work = Work::default();
        let folded = listing_8(&dag, uniform, &mut work);
        let got: Vec<Vec<u32>> = folded
            .iter()
            .map(|f| match f {
                Folded::Uniform(edges) => edges.iter().map(|&(_, n)| n).collect(),
                Folded::Divergent(next) => next.iter().copied().collect(),
            })
            .collect();
        let want: Vec<Vec<u32>> = expect.iter().map(|l| l.to_vec()).collect();
        assert_eq!(got, want);
        assert_eq!(work.blocks, succs.len() as u64);
        assert_eq!(
            folded,
            listing_8_reference(&dag, uniform, &mut Work::default())
        );
    }

    /// A DAG by position from successor lists (every target after its block).
    fn dag_of(succs: &[Vec<u32>]) -> Dag {
        Dag {
            blocks: (0..succs.len() as u32).map(Block::from_u32).collect(),
            position: (0..succs.len() as u32).collect(),
            succs: succs
                .iter()
                .map(|list| list.iter().copied().enumerate().collect())
                .collect(),
            back: vec![Vec::new(); succs.len()],
        }
    }

    /// `ifs D` of `scripts/nested-cfg.py` with a BOSCC gadget on every if, in
    /// block-index order: `i_k` (uniform) -> `g_k`, `j_k`; `g_k` (divergent) ->
    /// `i_{k+1}`, `j_k`; the body -> `j_{D-1}`; `j_k` -> `j_{k-1}`; `j_0` -> exit.
    fn guarded_ifs(depth: u32) -> (Vec<Vec<u32>>, Vec<bool>) {
        let i = |k: u32| 2 * k;
        let g = |k: u32| 2 * k + 1;
        let body = 2 * depth;
        let j = |k: u32| body + depth - k;
        let exit = body + depth + 1;
        let mut succs = vec![Vec::new(); exit as usize + 1];
        let mut uniform = vec![true; exit as usize + 1];
        for k in 0..depth {
            succs[i(k) as usize] = vec![g(k), j(k)];
            let inner = if k + 1 == depth { body } else { i(k + 1) };
            succs[g(k) as usize] = vec![inner, j(k)];
            uniform[g(k) as usize] = false;
            succs[j(k) as usize] = vec![if k == 0 { exit } else { j(k - 1) }];
        }
        succs[body as usize] = vec![j(depth - 1)];
        (succs, uniform)
    }

    /// 2,000 nested ifs each under a BOSCC gadget: the ordered sets copy `T` at
    /// every gadget (d^2 / 2 elements); the shared sets allocate a bounded number
    /// of tree nodes per block, and draw the same edges.
    #[test]
    fn guarded_nested_ifs_cost_linear_work() {
        let (succs, uniform) = guarded_ifs(2000);
        let dag = dag_of(&succs);
        let mut work = Work::default();
        let folded = listing_8(&dag, &uniform, &mut work);
        let mut reference = Work::default();
        assert_eq!(folded, listing_8_reference(&dag, &uniform, &mut reference));
        let blocks = succs.len() as u64;
        assert!(
            reference.deferral_inserts > 100 * blocks,
            "the reference copies: {reference:?}"
        );
        assert!(
            work.deferral_inserts <= 40 * blocks,
            "{} nodes for {blocks} blocks",
            work.deferral_inserts
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Listing 8 with shared sets draws the edges the ordered sets draw, on
        /// random DAGs (targets after their block) with random uniform branches.
        #[test]
        fn shared_sets_equal_the_ordered_sets_on_generated_dags(
            raw in proptest::collection::vec(
                (proptest::collection::vec(0u32..6, 0..4), proptest::bool::ANY),
                1..24,
            )
        ) {
            let n = raw.len() as u32;
            let succs: Vec<Vec<u32>> = raw
                .iter()
                .enumerate()
                .map(|(b, (targets, _))| {
                    let ahead = n - b as u32 - 1;
                    if ahead == 0 {
                        return Vec::new();
                    }
                    targets.iter().map(|t| b as u32 + 1 + t % ahead).collect()
                })
                .collect();
            let uniform: Vec<bool> = raw.iter().map(|(_, u)| *u).collect();
            let dag = dag_of(&succs);
            let fast = listing_8(&dag, &uniform, &mut Work::default());
            let reference = listing_8_reference(&dag, &uniform, &mut Work::default());
            proptest::prop_assert_eq!(fast, reference);
        }
    }

    /// A divergent diamond 0 -> {1, 2} -> 3: 0 -> 1 -> 2 -> 3 (§8.1).
    #[test]
    fn divergent_diamond() {
        check(
            &[&[1, 2], &[3], &[3], &[]],
            &[false, true, true, true],
            &[&[1], &[2], &[3], &[]],
        );
    }

    /// The same diamond with a uniform branch keeps both edges.
    #[test]
    fn uniform_diamond() {
        check(
            &[&[1, 2], &[3], &[3], &[]],
            &[true, true, true, true],
            &[&[1, 2], &[3], &[3], &[]],
        );
    }

    /// Fig. 8.5: 0 divergent to {1, 5}; 1 uniform to {2, 3}; 2, 3 -> 4 -> 5. The
    /// deferred 5 travels along both edges of 1, which stay (Theorem 5).
    #[test]
    fn uniform_branch_under_a_deferral() {
        check(
            &[&[1, 5], &[2, 3], &[4], &[4], &[5], &[]],
            &[false, true, true, true, true, true],
            &[&[1], &[2, 3], &[4], &[4], &[5], &[]],
        );
    }

    /// A uniform branch whose edge is not dominated: 0 divergent to {1, 2}; 1
    /// uniform to {2, 3}; 2 -> 3. Both edges of 1 fold to 2 (line 8: min(T ∪ {s})).
    #[test]
    fn uniform_branch_folded_by_a_smaller_deferral() {
        check(
            &[&[1, 2], &[2, 3], &[3], &[]],
            &[false, true, true, true],
            &[&[1], &[2, 2], &[3], &[]],
        );
    }

    /// Line 14 takes the minimum over T ∪ S: a deferred block that comes before
    /// the block's own successor is visited first.
    #[test]
    fn deferred_block_before_own_successor() {
        // 0 divergent to {1, 3}; 1 divergent to {2, 4}; 2 -> 4; 3 -> 4.
        // 0: next 1, D(1) = {3}; 1: T = {3}, S = {2, 4}: next 2, D(2) = {3, 4};
        // 2: T = {3, 4}, S = {4}: next 3, D(3) = {4}; 3: 4.
        check(
            &[&[1, 3], &[2, 4], &[4], &[4], &[]],
            &[false, false, true, true, true],
            &[&[1], &[2], &[3], &[4], &[]],
        );
    }
}
