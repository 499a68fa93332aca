//! The divergent loop transform (thesis §9.1, with §3.6 and Fig. 3.20-3.22):
//! every loop that lanes may leave in different iterations or by different exits
//! becomes a *uniform* loop, which all lanes that enter it leave together, in the
//! same iteration and by the same exit edge.
//!
//! # What a divergent loop becomes
//!
//! For a loop with header `H`, preheader `P`, latch `B` and exit edges `a_k → X_k`
//! (thesis Fig. 9.2-9.3, names as there):
//!
//! ```text
//! P ─► NewH ──stay──► Guard ──live──► H … body …  B ─────────────► L ──again──► NewH
//!        │              └──¬live─────────────────────────────────► L    │
//!        │                          a_k ──► E_k ──────────────────► L    │
//!        └──¬stay──► Disp ◄─────────────────────────────────────────¬again
//!                     └──X_1.track──► X_1 | … ──► X_n
//! ```
//!
//! - Phase 1, the basic structure (`phase1_basic_structure`): a new header
//!   `NewH` with `%live = phi i1 [true, P], [%live.upd, L] shadow(false)` (the
//!   lanes that still run the body; `shadow(false)`: a lane elsewhere in the
//!   program is not in the loop), the loop branch `br i1 %stay, Guard, Disp` on
//!   `%m = mask()`, `%go = select i1 %m, i1 %live, i1 false total` and `%stay =
//!   any(%go) total`, the block `Guard` (`br i1 %live, H, L`: the body runs only
//!   for live lanes), and the new latch `L` with `%live.upd`. The header phis of
//!   `H` move to `NewH`; their latch arm reads a phi of `L` that forwards the
//!   latch's value (a lane that is not going round again has no next value:
//!   `undef` there). The old latch branches to `L` instead of `H`.
//! - Phase 2, rebounding the exits (`phase2_rebound_exits`): every exit edge
//!   `a_k → X_k` becomes `a_k → E_k → L`. In `L`, a lane's incoming block says
//!   what it did in this iteration: it left by exit k (from `E_k`), it had left
//!   before (from `Guard`), or it stays (from `B`). Phi pairs carry the state
//!   across iterations: `%live`/`%live.upd` (false from `E_k` and `Guard`, true
//!   from `B`), one exit tracker per exit edge but the last, `%X_k.track` in
//!   `NewH` and `%X_k.track.upd` in `L` (true from `E_k`, else kept), and one
//!   live-out tracker per value of the loop used after it, `%v.out` in `NewH` and
//!   `%v.track` in `L` (`%v` from every `E_k` whose exiting block `%v` dominates,
//!   else kept). A live-out value that is a header phi `%h`, or the value of its
//!   latch arm, is instead *held* by `%h` itself: `%h.next` keeps `%h` (or takes
//!   the value) on the edges that do not go round, so the lane keeps what it
//!   left with and needs no tracker pair (an optimization of §9.1's scheme for
//!   the native code (docs/native.md): a tracker pair is a loop-carried vector
//!   register; see `hold_plan`).
//! - The dispatch (`dispatch`): `L` tests as `NewH` does (`%again = any(%go.next)`
//!   on `%live.upd`, see "Bottom test" below) and branches to `NewH` or `Disp`.
//!   `Disp` merges the trackers of its two predecessors (`%X_k.track.final`,
//!   `%v.final`: the `NewH` value or the `L` value) and sends each lane to the
//!   exit it took, by a cascade of branches on the exit trackers (`Disp: br
//!   %X_1.track.final, X_1, Disp.X_2` …, the last exit is the remaining case).
//!   Every use of a live-out value outside the loop reads `%v.final`. The
//!   normalization gives every exit block a single predecessor edge (dedicated
//!   exits), so each exit edge has a landing block of its own, its exit block,
//!   and the exit-block phis (`phi [v, a_k]`) read `[v.final, Disp…]` with
//!   distinct predecessors. An exit block with several exit edges (not after the
//!   normalization) gets a landing block per edge.
//!
//! Under OBLIVIOUS the transformed loop computes what the original computes
//! under FREEZING (§3.6.1): a lane that left runs only `NewH`, `Guard` and `L`
//! actively, whose phis keep its state, and is passive in the body, whose values
//! it no longer reads. The loop's exits are uniform: `%stay` and `%again` are
//! horizontal `any`s and so the same in every lane. `%m`/`%go` make the tests
//! robust for partial linearization, which may schedule `NewH` where a lane's
//! predicate is false: `mask()` and `total` commands are assigned in every lane
//! ([W-CMD-MASK], [W-CMD-TOTAL]), so `%stay` is defined everywhere and a lane
//! whose activation is false never keeps the loop running.
//!
//! ## Bottom test
//!
//! §9.1 tests only in `NewH`. With that shape the body blocks reach the loop's
//! exit only through the back edge `L → NewH`, so no body block is in
//! `fwdreaching` (Def. 16) of a block after the loop, and a greedy schedule
//! (Def. 12) may run the lanes that left an *outer* transformed loop (from its
//! `Guard` to its `L`, `NewH` and `Disp`) while other lanes are still inside the
//! inner one: Theorem 1 does not hold for that shape (`explore` reports "header
//! O.newh concurrent next with I.guard"). Under OBLIVIOUS the lanes still inside
//! then see the outer `NewH`'s values overwritten with ⊤ (an active lane branching
//! on ⊤ in `explore` of the nested loop of `differential/tests/dlt.rs`). Testing in `L`
//! too makes every block of the loop reach `Disp` along forward edges, so `L` and
//! every block after the loop are barriers for the lanes inside: the lanes leave
//! the loop together. `NewH` keeps its own test (the shape partial linearization
//! relies on); it is taken only when the loop is entered with no live lane.
//!
//! # Which loops
//!
//! The analysis ([`PassContext::analyze`], on the normalized program) decides. A
//! loop `O` is *divergent* if its header is in `divergent_loops`, or one of its
//! exits is temporally divergent (`loop_exits`), or some varying terminator `t`
//! of a block `b` of `O` reaches an exit of `O` along a path inside `O` that
//! neither enters `O`'s header nor takes the back edge of a *uniform* inner loop,
//! and the lanes parting at `t` need not meet again before an exit: `b` has no
//! post-dominator in `O`'s forward graph (exit edges, back edges and inner latches
//! leading to one end, `forward_ipdoms`) ([`classify`]). The argument: lanes
//! that start an iteration of `O` together at its header, and part only at
//! terminators whose lanes meet again at a forward post-dominator `p` (a barrier
//! they all reach without a back edge, where they continue together) or at
//! uniform terminators, take the same edges on every block from which an exit is
//! reachable; so they leave by the same exit edge, or all leave the part of `O`
//! from which the exits are reachable within the iteration. From there they can
//! only go back to the header, and the greedy schedule reconverges them at the
//! unique latch before it, so they start the next iteration together again. A
//! uniform inner loop is entered and left together, so the varying terminators
//! inside it (which by its own verdict reach its exits only through its back
//! edge) do not part lanes across `O`'s iterations: its back edge is not followed.
//! A divergent inner loop's back edge is followed: a lane leaving it early may
//! take an exit of `O` (an exit edge that leaves several loops at once) or reach
//! one from an exit that stays in `O` while others keep iterating the inner loop.
//! On the transform's own output every loop is uniform by this rule (`Guard`'s
//! lanes meet at `L`, the `Disp` cascade's lanes at the outer `L`), so running the
//! transform again keeps every loop.
//!
//! A *uniform* loop that some of its blocks leave only through its back edge (a
//! `while` loop tested at its header), inside a divergent loop, would let lanes
//! that left the outer loop run ahead while the others are in it, as described
//! under "Bottom test" (`explore` finds a ⊤ result). Such a loop is transformed
//! too (note `uniform, but left only through its header inside the divergent loop
//! %O, made bottom-tested`): the transform works on any loop, and its output is
//! bottom-tested. Uniform loops elsewhere are kept as they are.
//!
//! Loops are transformed innermost first, one nesting depth at a time: an inner
//! loop's transform adds blocks and values to every loop around it (its `Disp`
//! cascade and its trackers, which the outer transform then tracks in turn), so
//! the loops of each depth read the loops, dominators and uses of the program as
//! it stands after the deeper ones; the loops of one depth are disjoint and read
//! the same facts. The facts are read once per round and updated as each loop
//! is transformed (`Nest`, linear on a nest of loops); the reference route
//! reads them anew from the whole program before each depth (`Level`).

use crate::edit::{Editor, Placements, for_each_operand_mut};
use crate::error::{Site, TransformError};
use crate::pass::PassContext;
use crate::prepare;
use pllvm_analysis::loops::{LoopId, LoopInfo};
use pllvm_analysis::normalize;
use pllvm_analysis::result::Uniformity;
use pllvm_semantics::cfg::{BlockDomTree, Cfg};
use pllvm_semantics::ir::{Block, Body, FuncId, Inst, InstKind, Module, Terminator, Value};
use pllvm_semantics::types::{Ty, TypeTable};
use std::collections::{HashMap, HashSet};

const PASS: &str = "dlt";

pub use crate::pass::{Fault, LiveOuts};

/// [§9.1] Makes every divergent loop of `func` uniform; returns the module and one
/// note per loop (`loop %H: divergent (…), made uniform: …` or `loop %H: uniform,
/// kept`), innermost loops first.
///
/// The transform runs in rounds until the analysis, run on its output, finds no
/// divergent loop ([`classify`] on the output): a loop that is uniform in the
/// input can stop being *provably* uniform once an enclosing loop is transformed.
/// Its trip count may depend on a value of the enclosing loop's header, which the
/// transform turns into a phi of `NewH` fed by the new latch `L`, where lanes that
/// left (from `Guard`, `undef`) meet lanes that stay: the analysis calls that phi
/// varying, although every lane *live* in the body agrees. Partial linearization
/// needs loops the analysis proves uniform (§8.3), so such a loop is transformed
/// in the next round (its note says so). Each round transforms at least one loop
/// and a transformed loop stays uniform (a transform of the output keeps every
/// loop), so there are at most as many rounds as loops.
///
/// # Cost
///
/// Each round reads the facts of its (normalized) program once: the analysis,
/// the loops, the CFG, dominators and the uses of every value (`Nest`), and
/// keeps them up to date as the loops are transformed, deepest first: a loop's
/// facts are composed from its own blocks and its children's summaries, so a
/// block is read in the one loop it belongs to, not once per loop around it
/// (the argument that the kept facts equal a fresh reading is `Nest`'s doc).
/// A loop an earlier round made uniform is not classified again
/// (`classify_settled`). On a nest of d divergent loops the transform then
/// costs two rounds of O(V + E) work each (up to the analysis and hash maps),
/// where the reference route ([`divergent_loop_transform_reference`]) reads
/// the whole program once per nesting depth and searches every loop of the
/// nest again in the second round: O(d (V + E)). Both give the same output,
/// byte for byte (`proofs/tests/dlt_generated.rs`,
/// `incremental_route_equals_the_reference`), and the module's counted-work
/// test bounds the work on 2,000 nested loops.
pub fn divergent_loop_transform(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
) -> Result<(Module, Vec<String>), TransformError> {
    transform_rounds(module, func, cx, Route::Incremental, &mut Work::default())
}

/// [`divergent_loop_transform`] as first written, kept as the reference the
/// incremental route is tested against (`proofs/tests/dlt_generated.rs`, and the
/// counted-work test of this module): every round classifies every loop, and
/// the facts of the program are read anew from the whole function before each
/// nesting depth ([`Level`]). Same output, byte for byte.
#[doc(hidden)]
pub fn divergent_loop_transform_reference(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
) -> Result<(Module, Vec<String>), TransformError> {
    transform_rounds(module, func, cx, Route::Reference, &mut Work::default())
}

/// How the rounds read the facts they need: see [`divergent_loop_transform`]
/// and [`divergent_loop_transform_reference`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    /// The facts of the normalized program are read once per round and kept up
    /// to date loop by loop ([`Nest`]); a loop an earlier round made uniform is
    /// not classified again ([`classify_settled`]).
    Incremental,
    /// The facts are read from the whole program before each nesting depth
    /// ([`Level`]), and every loop is classified in every round.
    Reference,
}

/// What the transform read, counted (for the counted-work test: a nest of d
/// loops must cost O(d) of each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Facts read from the whole function (`level`): once per round on the
    /// incremental route, once per transformed nesting depth on the reference.
    pub full_levels: usize,
    /// Blocks, summary entries and use sites read to compose loop facts
    /// (`Nest::compose`).
    pub composed: usize,
    /// Blocks visited by the classification's searches (`varying_reach`,
    /// `forward_ipdoms`).
    pub classify_visits: usize,
    /// Rounds run.
    pub rounds: usize,
}

/// The rounds of [`divergent_loop_transform`] on `route`, counting into `work`.
fn transform_rounds(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
    route: Route,
    work: &mut Work,
) -> Result<(Module, Vec<String>), TransformError> {
    // Input checks, on the program the user gave (their sites name its constructs).
    prepare::require_reducible(module, func, PASS)?;
    prepare::require_unpredicated(module, func, PASS)?;
    // The headers (`NewH`) of the loops made uniform so far: a transformed loop
    // stays uniform (see [`classify_settled`]).
    let mut settled: HashSet<Block> = HashSet::new();
    let (mut out, mut notes, _) = one_round(
        module,
        func,
        cx,
        cx.options.fault,
        route,
        &mut settled,
        work,
    )?;
    out = hold_back_after_uniform_loops(&out, func, &mut notes)?;
    // A round after the last transforming one finds nothing to do: at most one
    // round per loop, and one more to see that.
    let rounds = loop_info(&out, func)?.len() + 2;
    for round in 2..=rounds {
        let (next, more, transformed) = one_round(&out, func, cx, None, route, &mut settled, work)?;
        if transformed == 0 {
            return Ok((out, notes));
        }
        out = next;
        notes.extend(
            more.into_iter()
                .filter(|n| !n.ends_with("uniform, kept"))
                .map(|n| {
                    format!(
                        "round {round}: {n} (uniform in the input, but no longer provably uniform after an enclosing loop's transform)"
                    )
                }),
        );
    }
    Err(internal(
        func,
        "the divergent loop transform did not reach a program whose loops are all uniform",
    ))
}

/// The loops the transform keeps (uniform ones) must still hold back the blocks
/// after them while their lanes iterate: Def. 17 lets a block run while a lane
/// waits only at blocks that do not forward-reach it, and a latch whose only way
/// on is the back edge forward-reaches nothing after the loop. A uniform
/// header-tested loop inside a divergent region would then let the lanes outside
/// it run a join after it, which runs again when the loop's lanes leave, and
/// under OBLIVIOUS the second run overwrites the first group's values with ⊤
/// (found by the reconverging route's exhaustive small-CFG check). Such a latch
/// gets a never-taken edge to the loop's exits, the normal form the reconverging
/// route uses (`reconverge::normal_form::latches_reach`);
/// a loop this transform made uniform already tests its exit in its new latch.
fn hold_back_after_uniform_loops(
    module: &Module,
    func: FuncId,
    notes: &mut Vec<String>,
) -> Result<Module, TransformError> {
    use crate::reconverge::normal_form::{Reach, latches_reach};
    latches_reach(module, func, notes, Reach::SomeExit)
}

/// One round of the transform: classify the loops of the (normalized) program and
/// transform the divergent ones. Returns the module, the notes and how many loops
/// were transformed; adds the headers of the transformed loops to `settled`.
fn one_round(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
    fault: Option<Fault>,
    route: Route,
    settled: &mut HashSet<Block>,
    work: &mut Work,
) -> Result<(Module, Vec<String>, usize), TransformError> {
    work.rounds += 1;
    let normalized = normalize_input(module, func)?;
    let uniformity = cx.analyze(&normalized, func)?;
    let body = prepare::body_of(&normalized, func, PASS)?;
    let loops = loop_info(&normalized, func)?;
    let cfg = Cfg::new(body);
    let no_settled = HashSet::new();
    let known = match route {
        Route::Incremental => &*settled,
        Route::Reference => &no_settled,
    };
    let verdicts = classify_settled(
        &normalized,
        func,
        &cfg,
        &loops,
        &uniformity,
        known,
        &mut work.classify_visits,
    );
    let inside = header_tested_inside_divergent(&cfg, &loops, &verdicts);
    // Innermost first, one nesting depth at a time (see [`Level`]).
    let mut by_depth: Vec<(u32, Block)> = verdicts
        .iter()
        .filter(|v| v.reason.is_some() || inside.contains_key(&v.header))
        .filter_map(|v| {
            let l = loops.loop_with_header(v.header)?;
            Some((loops.loop_depth(l), v.header))
        })
        .collect();
    by_depth.sort_by_key(|&(d, _)| std::cmp::Reverse(d));
    let live_outs = cx.options.live_outs;
    let (ed, mut made) = match route {
        Route::Reference => {
            transform_by_level_reference(&normalized, func, &by_depth, fault, live_outs, work)?
        }
        Route::Incremental => {
            match transform_by_level(&normalized, func, &loops, &by_depth, fault, live_outs, work)?
            {
                Some(done) => done,
                None => transform_by_level_reference(
                    &normalized,
                    func,
                    &by_depth,
                    fault,
                    live_outs,
                    work,
                )?,
            }
        }
    };
    settled.extend(made.values().map(|(_, newh)| *newh));
    let mut notes = Vec::new();
    for v in verdicts {
        let name = body.blocks[v.header].name.clone();
        let done = made.remove(&v.header).map(|(n, _)| n).unwrap_or_default();
        match (v.reason, inside.get(&v.header)) {
            (None, None) => notes.push(format!("loop %{name}: uniform, kept")),
            (None, Some(&outer)) => notes.push(format!(
                "loop %{name}: uniform, but left only through its header inside the divergent loop %{}, made bottom-tested: {done}",
                body.blocks[outer].name
            )),
            (Some(reason), _) => notes.push(format!(
                "loop %{name}: divergent ({reason}), made uniform: {done}"
            )),
        }
    }
    Ok((ed.finish(), notes, by_depth.len()))
}

/// What one round's transforms made, by the old header of each transformed
/// loop: the note's tail and the loop's new header `NewH`.
type Made = HashMap<Block, (String, Block)>;

/// Transforms the loops of `by_depth` (deepest first) on a copy of
/// `normalized`, reading the facts of the program anew from the whole function
/// before each nesting depth ([`Level`]): the reference route.
fn transform_by_level_reference(
    normalized: &Module,
    func: FuncId,
    by_depth: &[(u32, Block)],
    fault: Option<Fault>,
    live_outs: LiveOuts,
    work: &mut Work,
) -> Result<(Editor, Made), TransformError> {
    let mut ed = Editor::new(normalized, func);
    let mut made = Made::new();
    let mut first_fault = fault;
    let mut k = 0;
    while k < by_depth.len() {
        let depth = by_depth[k].0;
        let level = level(&mut ed)?;
        work.full_levels += 1;
        while k < by_depth.len() && by_depth[k].0 == depth {
            let header = by_depth[k].1;
            let facts = loop_facts(&level, func, header)?;
            let done = transform_loop(&mut ed, &facts, first_fault.take(), live_outs);
            made.insert(header, (done.note, done.newh));
            k += 1;
        }
    }
    Ok((ed, made))
}

/// The program the transform works on: one exit block ([`prepare::unify_exits`],
/// so a `ret` inside a loop becomes a loop exit) and the loop normal forms of
/// thesis §2.4 (preheaders, unique latches, dedicated exits, LCSSA). Refuses a
/// loop without any exit, and a loop whose header is the entry block.
fn normalize_input(module: &Module, func: FuncId) -> Result<Module, TransformError> {
    let mut ed = Editor::new(module, func);
    prepare::unify_exits(&mut ed);
    let mut out = ed.finish();
    let body = out.functions[func]
        .body
        .as_mut()
        .ok_or_else(|| internal(func, "the body vanished"))?;
    normalize::normalize_loops(body).map_err(|e| {
        TransformError::new(
            PASS,
            Site::Function(func),
            e.in_function(&module.functions[func].name).to_string(),
        )
    })?;
    let loops = loop_info(&out, func)?;
    let body = prepare::body_of(&out, func, PASS)?;
    for l in loops.loops() {
        let h = loops.header(l);
        if loops.exits(l).is_empty() {
            return Err(TransformError::new(
                PASS,
                Site::Block(func, h),
                format!(
                    "unsupported construct: the loop with header %{} has no exit (no edge leaves it and it holds no `ret`); dlt makes lanes leave a loop together and needs a loop that can be left",
                    body.blocks[h].name
                ),
            ));
        }
        if Some(h) == body.entry() {
            return Err(TransformError::new(
                PASS,
                Site::Block(func, h),
                format!(
                    "unsupported construct: the entry block %{} is a loop header; dlt needs a preheader to enter the loop from (LLVM forbids branches to the entry block)",
                    body.blocks[h].name
                ),
            ));
        }
    }
    Ok(out)
}

/// The loops of `func`, or an internal error (the input was checked reducible,
/// and the transforms keep it so).
fn loop_info(module: &Module, func: FuncId) -> Result<LoopInfo, TransformError> {
    let body = prepare::body_of(module, func, PASS)?;
    LoopInfo::compute(body).map_err(|e| internal(func, &e.to_string()))
}

fn internal(func: FuncId, why: &str) -> TransformError {
    TransformError::new(PASS, Site::Function(func), format!("internal error: {why}"))
}

/// The verdict on one loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The loop's header.
    pub header: Block,
    /// Why it is divergent (`exit %X varying`, `branch of %b varying, reaches exit
    /// %X`), or `None`: uniform.
    pub reason: Option<String>,
}

/// Which loops of `func` are divergent, innermost first (a child before its
/// parent); see the module doc for the rule and its argument.
pub fn classify(
    module: &Module,
    func: FuncId,
    cfg: &Cfg,
    loops: &LoopInfo,
    uniformity: &Uniformity,
) -> Vec<Verdict> {
    classify_settled(
        module,
        func,
        cfg,
        loops,
        uniformity,
        &HashSet::new(),
        &mut 0,
    )
}

/// [`classify`], taking the loops headed by a block of `settled` as uniform
/// without a search; counts the blocks the searches visit into `visits`.
///
/// `settled` holds the headers `NewH` of the loops an earlier round made
/// uniform. Such a loop is uniform by the rule of [`classify`] (the module doc,
/// "Which loops"): its only exit edges leave `NewH` and `L` on `%stay` and
/// `%again`, horizontal `any`s that every analysis finds uniform ([DA-*]: a
/// `total` builtin whose value is the same in every lane), so no exit is
/// varying or temporally divergent; and a varying terminator inside it reaches
/// the exits only through `L`, the forward post-dominator of every block of the
/// loop (`Guard`'s lanes, the body's and the exit blocks' `E_k` all meet there),
/// so `varying_reach` finds no candidate. What a later round changes around
/// the loop (an enclosing loop's transform) adds no edge into it other than to
/// `NewH` and none out of it. Skipping the search makes the rounds after the
/// first cost the loops still kept, not the whole nest again: on a nest of d
/// transformed loops the second round searches nothing, where the reference
/// route searches d loops of up to d levels each. The property test
/// `incremental_route_equals_the_reference` (`proofs/tests/dlt_generated.rs`)
/// compares both routes.
fn classify_settled(
    module: &Module,
    func: FuncId,
    cfg: &Cfg,
    loops: &LoopInfo,
    uniformity: &Uniformity,
    settled: &HashSet<Block>,
    visits: &mut usize,
) -> Vec<Verdict> {
    let Some(body) = module.functions[func].body.as_ref() else {
        return Vec::new();
    };
    let name = |b: Block| body.blocks[b].name.as_str();
    // Loop ids follow the reverse postorder of the headers: an inner loop's header
    // comes after its parent's, so descending ids put children first.
    let mut order: Vec<LoopId> = loops.loops().collect();
    order.sort_by(|a, b| b.cmp(a));
    let pos: HashMap<Block, usize> = body
        .layout
        .iter()
        .enumerate()
        .map(|(k, &b)| (b, k))
        .collect();
    let mut uniform_loops: HashSet<LoopId> = HashSet::new();
    let mut verdicts = Vec::new();
    for l in order {
        let header = loops.header(l);
        if settled.contains(&header) {
            uniform_loops.insert(l);
            verdicts.push(Verdict {
                header,
                reason: None,
            });
            continue;
        }
        let exits = loops.exits(l);
        let mut reason = exits
            .iter()
            .find(|&&x| {
                uniformity
                    .loop_exits
                    .get(&x)
                    .is_some_and(|s| s.is_varying())
                    || uniformity.temporal_joins.contains(&x)
            })
            .map(|&x| format!("exit %{} varying", name(x)));
        if reason.is_none() && uniformity.divergent_loops.contains(&header) {
            reason = Some("temporally divergent".to_string());
        }
        if reason.is_none() {
            let (found, visited) =
                varying_reach(body, &pos, cfg, loops, l, &uniform_loops, uniformity);
            *visits += visited;
            reason = found
                .map(|(b, x)| format!("branch of %{} varying, reaches exit %{}", name(b), name(x)));
        }
        if reason.is_none() {
            uniform_loops.insert(l);
        }
        verdicts.push(Verdict { header, reason });
    }
    verdicts
}

/// A block of `l` whose terminator is varying, that reaches an exit of `l` inside
/// `l` without entering `l`'s header or following a uniform inner loop's back edge
/// (a backward search from the exit edges), and whose lanes need not meet again
/// before an exit ([`forward_ipdoms`]); with the exit it reaches, and the number
/// of blocks the two searches visited.
fn varying_reach(
    body: &pllvm_semantics::ir::Body,
    pos: &HashMap<Block, usize>,
    cfg: &Cfg,
    loops: &LoopInfo,
    l: LoopId,
    uniform_loops: &HashSet<LoopId>,
    uniformity: &Uniformity,
) -> (Option<(Block, Block)>, usize) {
    let header = loops.header(l);
    // Whether the edge x → y inside `l` may be followed.
    let follow = |x: Block, y: Block| {
        if y == header {
            return false;
        }
        match loops.loop_with_header(y) {
            Some(inner) if uniform_loops.contains(&inner) => !loops.contains(inner, x),
            _ => true,
        }
    };
    // Every block of `l` that reaches an exit that way, with the exit.
    let mut reached: HashMap<Block, Block> = HashMap::new();
    let mut stack = Vec::new();
    for &a in loops.exiting(l) {
        if let Some(&x) = cfg.succs(a).iter().find(|&&s| !loops.contains(l, s)) {
            reached.insert(a, x);
            stack.push(a);
        }
    }
    while let Some(y) = stack.pop() {
        let x = reached[&y];
        for &p in cfg.preds(y) {
            if loops.contains(l, p) && follow(p, y) && !reached.contains_key(&p) {
                reached.insert(p, x);
                stack.push(p);
            }
        }
    }
    let meet = forward_ipdoms(cfg, loops, l);
    let visits = reached.len() + meet.len();
    // In layout order, so that the reason a note gives is deterministic.
    let mut candidates: Vec<Block> = reached.keys().copied().collect();
    candidates.sort_by_key(|b| pos.get(b).copied().unwrap_or(usize::MAX));
    let found = candidates
        .into_iter()
        .filter(|b| body.blocks[*b].term.is_branch_on_value())
        .find(|b| {
            reached.contains_key(b)
                && uniformity.terminators[*b].is_varying()
                && meet.get(b).copied().flatten().is_none()
        })
        .map(|b| (b, reached[&b]));
    (found, visits)
}

/// The uniform loops that some block of cannot leave without a back edge (a loop
/// tested only at its header, a `while` loop), nested in a divergent loop, by
/// header, with the innermost divergent loop around them. The transform makes
/// them bottom-tested too (see the module doc, "Bottom test"): otherwise the lanes
/// that left the divergent loop could run ahead while the others are inside.
fn header_tested_inside_divergent(
    cfg: &Cfg,
    loops: &LoopInfo,
    verdicts: &[Verdict],
) -> HashMap<Block, Block> {
    let divergent: HashSet<Block> = verdicts
        .iter()
        .filter(|v| v.reason.is_some())
        .map(|v| v.header)
        .collect();
    let mut out = HashMap::new();
    for v in verdicts.iter().filter(|v| v.reason.is_none()) {
        let Some(l) = loops.loop_with_header(v.header) else {
            continue;
        };
        let mut up = loops.parent(l);
        let outer = loop {
            match up {
                None => break None,
                Some(p) if divergent.contains(&loops.header(p)) => break Some(loops.header(p)),
                Some(p) => up = loops.parent(p),
            }
        };
        if let Some(outer) = outer
            && !forward_complete(cfg, loops, l)
        {
            out.insert(v.header, outer);
        }
    }
    out
}

/// Whether every block of `l` reaches an exit of `l` along forward edges (no back
/// edge, Def. 15): a backward search from the exiting blocks.
fn forward_complete(cfg: &Cfg, loops: &LoopInfo, l: LoopId) -> bool {
    let mut reached: HashSet<Block> = loops.exiting(l).iter().copied().collect();
    let mut stack: Vec<Block> = reached.iter().copied().collect();
    while let Some(y) = stack.pop() {
        for &p in cfg.preds(y) {
            if loops.contains(l, p) && !loops.is_back_edge(p, y) && reached.insert(p) {
                stack.push(p);
            }
        }
    }
    loops.blocks(l).iter().all(|b| reached.contains(b))
}

/// The immediate post-dominator of every block of `l` in its *forward* graph: the
/// blocks of `l` with every edge that is not a back edge (Def. 15), where an exit
/// edge, an edge back to `l`'s header and a block left without successors (an
/// inner latch) lead to one virtual end (`None`). When `Some(p)`, every lane
/// leaving the block reaches `p` along forward edges before it can leave `l` or
/// go round, so the greedy schedule (every block a barrier, Def. 17-18) makes the
/// lanes that parted there meet again at `p`, and `p` decides for all of them
/// together: the block's divergence does not reach an exit. (Without the forward
/// condition the meeting is not guaranteed: a lane inside an inner loop that exits
/// only at its header does not reach `p` without a back edge, and the others may
/// pass `p` first.)
fn forward_ipdoms(cfg: &Cfg, loops: &LoopInfo, l: LoopId) -> HashMap<Block, Option<Block>> {
    let header = loops.header(l);
    let succs = |x: Block| -> Vec<Option<Block>> {
        let mut out: Vec<Option<Block>> = Vec::new();
        for &s in cfg.succs(x) {
            if !loops.contains(l, s) || s == header {
                out.push(None);
            } else if !loops.is_back_edge(x, s) {
                out.push(Some(s));
            }
        }
        if out.is_empty() {
            out.push(None);
        }
        out
    };
    // Postorder of the forward graph from the header (it is acyclic: a reducible
    // CFG without its back edges), iteratively.
    let mut post = Vec::new();
    let mut seen: HashSet<Block> = HashSet::from([header]);
    let mut stack = vec![(header, succs(header), 0usize)];
    while let Some((x, ss, k)) = stack.last_mut() {
        if let Some(&s) = ss.get(*k) {
            *k += 1;
            if let Some(s) = s
                && seen.insert(s)
            {
                let next = succs(s);
                stack.push((s, next, 0));
            }
        } else {
            post.push(*x);
            stack.pop();
        }
    }
    // Sinks first: a block's successors have their immediate post-dominators.
    let mut ipdom: HashMap<Block, Option<Block>> = HashMap::new();
    let mut depth: HashMap<Block, usize> = HashMap::new();
    let depth_of = |d: &HashMap<Block, usize>, x: Option<Block>| x.map_or(0, |b| d[&b]);
    for &x in &post {
        let mut acc: Option<Option<Block>> = None;
        for s in succs(x) {
            acc = Some(match acc {
                None => s,
                Some(a) => {
                    // Nearest common ancestor in the post-dominator tree.
                    let (mut a, mut b) = (a, s);
                    while a != b {
                        if depth_of(&depth, a) >= depth_of(&depth, b) {
                            a = a.and_then(|x| ipdom[&x]);
                        } else {
                            b = b.and_then(|x| ipdom[&x]);
                        }
                    }
                    a
                }
            });
        }
        let p = acc.flatten();
        ipdom.insert(x, p);
        depth.insert(x, depth_of(&depth, p) + 1);
    }
    ipdom
}

/// Transforms the loops of `by_depth` (deepest first) on a copy of
/// `normalized`, reading the facts of the program once ([`Nest`]) and keeping
/// them up to date loop by loop: the incremental route. `None` when the program
/// has a shape the incremental facts do not cover (an exit block reached by two
/// exit edges of one loop, which needs a landing block; a dominance question
/// about a block inside a transformed loop); the caller then takes the
/// reference route ([`transform_by_level_reference`]) on the same input.
///
/// The loops are visited by nesting depth, deepest first, every loop (kept or
/// transformed) of a depth before the next: a loop's facts are composed from
/// its own blocks and its children's summaries ([`Nest::compose`]), so each
/// block is read once, in the loop it belongs to, not once per loop around it.
/// The transforms of one depth read the facts composed before any of them, as
/// the reference's loops of one depth read one [`Level`]; the new blocks get
/// their layout keys after the depth ([`Nest::key_placements`]), where the
/// reference applies the placements.
fn transform_by_level(
    normalized: &Module,
    func: FuncId,
    loops: &LoopInfo,
    by_depth: &[(u32, Block)],
    fault: Option<Fault>,
    live_outs: LiveOuts,
    work: &mut Work,
) -> Result<Option<(Editor, Made)>, TransformError> {
    let mut ed = Editor::new(normalized, func);
    let mut made = Made::new();
    let Some(shallowest) = by_depth.last().map(|&(d, _)| d) else {
        return Ok(Some((ed, made)));
    };
    let level = level(&mut ed)?;
    work.full_levels += 1;
    let mut nest = Nest::new(level);
    let to_transform: HashSet<Block> = by_depth.iter().map(|&(_, h)| h).collect();
    // Every loop at depth `shallowest` or deeper, by depth; within a depth in
    // descending id, the order of `by_depth` (built from `classify`'s order).
    let mut at_depth: Vec<Vec<LoopId>> = Vec::new();
    for l in loops.loops() {
        let d = loops.loop_depth(l) as usize;
        if d < shallowest as usize {
            continue;
        }
        if at_depth.len() <= d {
            at_depth.resize(d + 1, Vec::new());
        }
        at_depth[d].push(l);
    }
    let mut first_fault = fault;
    for d in (shallowest as usize..at_depth.len()).rev() {
        let mut level_loops = at_depth[d].clone();
        level_loops.sort_by(|a, b| b.cmp(a));
        let mut pending = Vec::new();
        for &l in &level_loops {
            let composed = nest.compose(ed.body(), l, &mut work.composed);
            if to_transform.contains(&loops.header(l)) {
                let mut targets = HashSet::new();
                if !composed.exit_edges.iter().all(|&(_, x)| targets.insert(x)) {
                    return Ok(None);
                }
                pending.push((l, composed));
            } else {
                nest.summaries.insert(l, composed);
            }
        }
        if pending.is_empty() {
            continue;
        }
        let mut done_here = Vec::with_capacity(pending.len());
        for (l, composed) in pending {
            let facts = nest.facts(l, &composed);
            let done = transform_loop(&mut ed, &facts, first_fault.take(), live_outs);
            let exits: Vec<Block> = facts.exit_edges.iter().map(|&(_, x)| x).collect();
            nest.record(ed.body(), l, &composed, &exits, &done);
            done_here.push((l, composed.last, done));
        }
        nest.key_placements(ed.take_placements());
        for (l, last, done) in done_here {
            nest.summaries
                .insert(l, nest.transformed_summary(last, &done));
            made.insert(loops.header(l), (done.note, done.newh));
        }
    }
    if nest.unsupported.get() {
        return Ok(None);
    }
    let layout = nest.layout(ed.body());
    ed.body_mut().layout = layout;
    Ok(Some((ed, made)))
}

/// A block's place in the layout, comparable as the layout orders blocks: an
/// original block at position `p` is `[(0, p, 0), END]`; a block placed before
/// or after an anchor `a` is `a`'s key without its `END`, then `(-1, batch,
/// k)` (before) or `(1, -batch, k)` (after), then `END`, where `batch` counts
/// the times the placements were applied and `k` is the block's place in its
/// anchor's list. The editor emits an anchor's before-list, the anchor, then
/// its after-list, each listed block with its own lists around it; applying
/// placements in batches puts a later batch's before-blocks nearer the anchor
/// than an earlier batch's (after them) and its after-blocks nearer too
/// (before them). Lexicographic order on these keys is that order: `-1 < 0 <
/// 1` puts a block's before-list, the block (`END`), its after-list in turn,
/// and the batch component orders the batches as described.
type LayoutKey = Vec<(i8, i64, u64)>;

/// The `END` of a [`LayoutKey`]: the anchor itself among its placed blocks.
const KEY_END: (i8, i64, u64) = (0, 0, 0);

/// A loop's facts as its parent composes them ([`Nest::compose`]).
#[derive(Clone, Debug, Default)]
struct Composed {
    /// Exit edges, in layout order of the exiting block, then successor order.
    exit_edges: Vec<(Block, Block)>,
    /// Values defined in the loop and read outside it, in definition order.
    live_outs: Vec<LiveOut>,
    /// The loop's last block in layout order.
    last: Option<Block>,
}

/// A value defined in a loop and read outside it.
#[derive(Clone, Debug)]
struct LiveOut {
    value: Value,
    /// Its defining block, and its place among that block's phis and commands.
    block: Block,
    index: usize,
    /// The places outside the loop that read it.
    uses: Vec<UseSite>,
}

/// The facts of one round's program, read once ([`level`]) and kept up to date
/// as the loops are transformed, deepest first (the incremental route,
/// [`transform_by_level`]).
///
/// Why the kept facts are what a fresh [`Level`] would read. The program is
/// normalized (preheaders, one latch, dedicated exits, LCSSA), so no exit block
/// is a loop header, and a transform of a loop `T` changes the program only in
/// these ways: the edge from `T`'s preheader goes to the new `NewH`, the latch
/// and every exiting block of `T` branch into the new `L` (through `E_k`), the
/// exit blocks are reached from the cascade `Disp …` instead of from `T`, their
/// phis name the cascade block as predecessor, and every use outside `T` of a
/// value of `T` reads its `%v.final` in `Disp`. Hence, for the blocks that are
/// not in a transformed loop:
///
/// - *Loops.* The loop tree keeps its shape: `T` with `NewH`, `Guard`, `L` and
///   the `E_k` is the loop `T` (entered at `NewH` only, left from `NewH` and `L`
///   to `Disp` only), every other block stays in the loops it was in, and a
///   cascade block `D_k` (which tests the k-th exit, `X_k`, and passes the rest
///   on) lies in the loops `X_k` lies in: the exits are sorted deepest first and
///   all lie in loops around `T`, which form a chain, so `X_k`'s loop is the
///   innermost of its own and the later exits' loops. `Disp` itself lies in
///   `T`'s parent: a path from `T`'s header to the parent's latch leaves `T` at
///   an exit inside the parent (the latch is not in `T`, whose exit blocks are
///   not headers). [`Nest::contains`] answers membership from the loop tree
///   read once and the loop recorded for each new block.
/// - *Header predecessors.* No transform adds or removes an edge into a loop
///   header (exit blocks are not headers; a preheader is retargeted, not
///   removed), so each loop's entries and latches are read from the CFG read
///   once.
/// - *Exit edges.* A block of a loop `O` not inside a transformed loop is an
///   own block of `O` (original, or a cascade block recorded in `O`) or lies in
///   a kept child; a transformed child is left only to its `Disp`, inside `O`.
///   So `O`'s exit edges are its own blocks' edges leaving `O` and its kept
///   children's exit edges leaving `O`, read from their summaries.
/// - *Live-outs.* A value of a transformed child `T` is read outside `T` only
///   by `T`'s `Disp` (every other outside use was rewritten to its final), which
///   lies in `O`; so `O`'s live-outs are values of its own blocks and live-outs
///   of its kept children, and their uses are the uses read once plus the uses
///   rewritten to each final (recorded when its loop is transformed) plus the
///   cascade's own reads: a transform adds no other use of a value outside the
///   loop it transforms.
/// - *Dominance.* A path through `T`'s region in the new program enters at
///   `NewH` from the preheader and leaves at some `X_k`, as an old path enters
///   at the header and leaves at some `X_k`, so for blocks outside transformed
///   loops dominance is unchanged; a cascade block `D_k` is reached only
///   through `NewH`, and `Disp` is passed by every path that passes `T`'s
///   region, so `D_k` is dominated as `T`'s header was and `Disp` dominates what
///   `T`'s header dominated outside `T` ([`Nest::dominates`]).
/// - *Layout.* Each new block's [`LayoutKey`] orders it as the editor's
///   placements, applied after each depth, order it.
///
/// Each block is read in the one loop it belongs to, each summary entry once
/// by the parent (an exit edge or live-out that leaves several loops once per
/// loop it leaves), and each use once per loop its value is a candidate
/// live-out of: O(V + E + uses) per round on a nest, against the reference's
/// O(d (V + E)) for d nesting depths.
struct Nest {
    level: Level,
    /// The innermost loop of each new block (`None`: outside every loop).
    new_loop: HashMap<Block, Option<LoopId>>,
    /// The cascade blocks: the transformed loop and the exit each tests.
    cascade: HashMap<Block, (LoopId, usize)>,
    /// The cascade blocks whose innermost loop is the key.
    own_new: HashMap<LoopId, Vec<Block>>,
    /// The summaries of the loops of the depths done.
    summaries: HashMap<LoopId, Composed>,
    /// Layout keys of the new blocks.
    keys: HashMap<Block, LayoutKey>,
    /// How many times placements were applied.
    batch: i64,
    /// Set when a question fell outside what the kept facts answer.
    unsupported: std::cell::Cell<bool>,
}

impl Nest {
    fn new(level: Level) -> Nest {
        Nest {
            level,
            new_loop: HashMap::new(),
            cascade: HashMap::new(),
            own_new: HashMap::new(),
            summaries: HashMap::new(),
            keys: HashMap::new(),
            batch: 0,
            unsupported: std::cell::Cell::new(false),
        }
    }

    /// The innermost loop of `b`.
    fn loop_of(&self, b: Block) -> Option<LoopId> {
        match self.new_loop.get(&b) {
            Some(&l) => l,
            None => self.level.loops.loop_of(b),
        }
    }

    /// Whether loop `l` contains block `b` (an interval test on the loop
    /// tree's preorder, as [`LoopInfo::contains`]).
    fn contains(&self, l: LoopId, b: Block) -> bool {
        let Some(m) = self.loop_of(b) else {
            return false;
        };
        let (first, last) = self.level.loops.preorder(l);
        let (at, _) = self.level.loops.preorder(m);
        first <= at && at <= last
    }

    /// The number of loops around `b`.
    fn depth(&self, b: Block) -> u32 {
        self.loop_of(b)
            .map_or(0, |l| self.level.loops.loop_depth(l))
    }

    /// The layout key of `b` (see [`LayoutKey`]).
    fn key(&self, b: Block) -> LayoutKey {
        match self.keys.get(&b) {
            Some(k) => k.clone(),
            None => {
                let p = self.level.pos.get(&b).copied().unwrap_or(usize::MAX);
                vec![(0, p as i64, 0), KEY_END]
            }
        }
    }

    /// Whether `a` dominates `b` in the program as it stands, for blocks
    /// outside the transformed loops (see the type's doc, "Dominance"): old
    /// blocks as the dominator tree read once says, a cascade block `D_k` of
    /// `T` as `T`'s header, `Disp` of `T` over a block outside `T` as `T`'s
    /// header; within one cascade, `D_j` dominates `D_k` for `j ≤ k`. Any other
    /// question marks the nest unsupported (the route falls back).
    fn dominates(&self, a: Block, b: Block) -> bool {
        if a == b {
            return true;
        }
        let loops = &self.level.loops;
        let stand_in = |x: Block| -> Option<Block> {
            match self.cascade.get(&x) {
                Some(&(t, _)) => Some(loops.header(t)),
                None if self.new_loop.contains_key(&x) => None,
                None => Some(x),
            }
        };
        let answer = match (self.cascade.get(&a), self.cascade.get(&b)) {
            (Some(&(ta, ka)), Some(&(tb, kb))) if ta == tb => Some(ka <= kb),
            (Some(&(ta, 0)), _) => stand_in(b)
                .filter(|&y| !loops.contains(ta, y))
                .map(|y| self.level.dom.dominates(loops.header(ta), y)),
            (Some(_), _) => None,
            (None, _) => match (stand_in(a), stand_in(b)) {
                (Some(x), Some(y)) => Some(self.level.dom.dominates(x, y)),
                _ => None,
            },
        };
        answer.unwrap_or_else(|| {
            self.unsupported.set(true);
            false
        })
    }

    /// The uses of `v` outside loop `l`, from `sites`.
    fn outside(&self, l: LoopId, sites: &[UseSite]) -> Vec<UseSite> {
        sites
            .iter()
            .copied()
            .filter(|u| u.block(&self.level).is_some_and(|b| !self.contains(l, b)))
            .collect()
    }

    /// The facts of loop `l` for its parent and for its own transform: its own
    /// blocks (the original ones in no child loop, and the cascade blocks
    /// recorded in it) read from `body`, and its children's summaries.
    fn compose(&self, body: &Body, l: LoopId, work: &mut usize) -> Composed {
        let own_new = self.own_new.get(&l).map(Vec::as_slice).unwrap_or(&[]);
        let mut exit_edges: Vec<(Block, Block)> = Vec::new();
        let mut live_outs: Vec<LiveOut> = Vec::new();
        let mut last: Option<(LayoutKey, Block)> = None;
        let later = |b: Block, last: &mut Option<(LayoutKey, Block)>| {
            let k = self.key(b);
            if last.as_ref().is_none_or(|(m, _)| k > *m) {
                *last = Some((k, b));
            }
        };
        for &b in self.level.loops.own_blocks(l).iter().chain(own_new) {
            *work += 1;
            later(b, &mut last);
            let data = &body.blocks[b];
            let mut seen = HashSet::new();
            for s in data.term.successors() {
                if !self.contains(l, s) && seen.insert(s) {
                    exit_edges.push((b, s));
                }
            }
            for (index, &i) in data.phis.iter().chain(&data.body).enumerate() {
                let Some(v) = body.insts[i].result else {
                    continue;
                };
                let sites = self.level.users.get(&v).map(Vec::as_slice).unwrap_or(&[]);
                *work += sites.len();
                let uses = self.outside(l, sites);
                if !uses.is_empty() {
                    live_outs.push(LiveOut {
                        value: v,
                        block: b,
                        index,
                        uses,
                    });
                }
            }
        }
        for c in self.level.loops.children(l) {
            let Some(child) = self.summaries.get(c) else {
                self.unsupported.set(true);
                continue;
            };
            *work += 1 + child.exit_edges.len() + child.live_outs.len();
            if let Some(b) = child.last {
                later(b, &mut last);
            }
            exit_edges.extend(
                child
                    .exit_edges
                    .iter()
                    .copied()
                    .filter(|&(_, x)| !self.contains(l, x)),
            );
            for out in &child.live_outs {
                *work += out.uses.len();
                let uses = self.outside(l, &out.uses);
                if !uses.is_empty() {
                    live_outs.push(LiveOut {
                        uses,
                        ..out.clone()
                    });
                }
            }
        }
        // Layout order (a block's edges stay in successor order: stable sort).
        exit_edges.sort_by_cached_key(|&(b, _)| self.key(b));
        live_outs.sort_by_cached_key(|o| (self.key(o.block), o.index));
        Composed {
            exit_edges,
            live_outs,
            last: last.map(|(_, b)| b),
        }
    }

    /// The [`LoopFacts`] of loop `l` from its composed facts, as [`loop_facts`]
    /// reads them from a [`Level`].
    fn facts<'n>(&'n self, l: LoopId, composed: &Composed) -> LoopFacts<'n> {
        let header = self.level.loops.header(l);
        let (latches, entries): (Vec<Block>, Vec<Block>) = self
            .level
            .cfg
            .preds(header)
            .iter()
            .partition(|&&p| self.contains(l, p));
        let mut exit_edges = composed.exit_edges.clone();
        exit_edges.sort_by_key(|&(_, x)| std::cmp::Reverse(self.depth(x)));
        let mut outside_uses: Vec<UseSite> = composed
            .live_outs
            .iter()
            .flat_map(|o| o.uses.iter().copied())
            .collect();
        outside_uses.sort_by_key(|u| format!("{u:?}"));
        outside_uses.dedup();
        LoopFacts {
            header,
            blocks: Members::Nest(self, l),
            entries,
            latches,
            exit_edges,
            live_outs: composed
                .live_outs
                .iter()
                .map(|o| (o.value, o.block))
                .collect(),
            outside_uses,
            dom: Dominance::Nest(self),
            last: composed.last.unwrap_or(header),
        }
    }

    /// Records what the transform of loop `l` made: the loops of the new blocks,
    /// the cascade, the uses the cascade reads and the uses rewritten to the
    /// finals. `exits` are the exit blocks in the order the cascade tests them.
    fn record(
        &mut self,
        body: &Body,
        l: LoopId,
        composed: &Composed,
        exits: &[Block],
        done: &Done,
    ) {
        for &b in [done.newh, done.guard, done.latch]
            .iter()
            .chain(&done.rebound)
        {
            self.new_loop.insert(b, Some(l));
        }
        for (k, &d) in done.disp.iter().enumerate() {
            let m = exits.get(k).and_then(|&x| self.loop_of(x));
            self.new_loop.insert(d, m);
            self.cascade.insert(d, (l, k));
            if let Some(m) = m {
                self.own_new.entry(m).or_default().push(d);
            }
            let data = &body.blocks[d];
            for &i in data.phis.iter().chain(&data.body) {
                self.level.inst_block.insert(i, d);
                for v in body.insts[i].kind.operands() {
                    self.level
                        .users
                        .entry(v)
                        .or_default()
                        .push(UseSite::Inst(i));
                }
            }
            for v in data.term.operands().into_iter().chain(data.predicate) {
                self.level
                    .users
                    .entry(v)
                    .or_default()
                    .push(UseSite::Block(d));
            }
        }
        for out in &composed.live_outs {
            if let Some(&fin) = done.finals.get(&out.value) {
                self.level
                    .users
                    .entry(fin)
                    .or_default()
                    .extend(out.uses.iter().copied());
            }
        }
    }

    /// The summary of a transformed loop: left only to its `Disp` (from `NewH`
    /// and `L`), read outside only by `Disp`, which lies in the parent (see the
    /// type's doc), and its last block the latest of its old last block and the
    /// blocks the transform placed.
    fn transformed_summary(&self, last: Option<Block>, done: &Done) -> Composed {
        let placed = [done.newh, done.guard, done.latch];
        let last = last
            .into_iter()
            .chain(placed)
            .chain(done.rebound.iter().copied())
            .max_by_key(|&b| self.key(b));
        let exit_edges = match done.disp.first() {
            Some(&d) => vec![(done.newh, d), (done.latch, d)],
            None => Vec::new(),
        };
        Composed {
            exit_edges,
            live_outs: Vec::new(),
            last,
        }
    }

    /// Gives the blocks placed since the last call their [`LayoutKey`]s: one
    /// batch of placements, as the reference applies them before the next
    /// depth.
    fn key_placements(&mut self, placed: Placements) {
        self.batch += 1;
        if !placed.at_end.is_empty() {
            self.unsupported.set(true);
        }
        let mut anchor_of: HashMap<Block, (Block, (i8, i64, u64))> = HashMap::new();
        for (&anchor, list) in &placed.before {
            for (k, &b) in list.iter().enumerate() {
                anchor_of.insert(b, (anchor, (-1, self.batch, k as u64)));
            }
        }
        for (&anchor, list) in &placed.after {
            for (k, &b) in list.iter().enumerate() {
                anchor_of.insert(b, (anchor, (1, -self.batch, k as u64)));
            }
        }
        let mut blocks: Vec<Block> = anchor_of.keys().copied().collect();
        blocks.sort();
        for b in blocks {
            // Walk up to an anchor with a key, then key the chain back down.
            let mut chain = vec![b];
            while let Some(&(a, _)) = anchor_of.get(chain.last().expect("non-empty")) {
                if self.keys.contains_key(&a) || !anchor_of.contains_key(&a) {
                    break;
                }
                chain.push(a);
            }
            for &x in chain.iter().rev() {
                if self.keys.contains_key(&x) {
                    continue;
                }
                let (a, step) = anchor_of[&x];
                let mut key = self.key(a);
                key.pop();
                key.push(step);
                key.push(KEY_END);
                self.keys.insert(x, key);
            }
        }
    }

    /// The final layout: the blocks of the layout read once and every new
    /// block, in key order.
    fn layout(&self, body: &Body) -> Vec<Block> {
        let mut blocks: Vec<Block> = body.layout.clone();
        let mut new: Vec<Block> = self.keys.keys().copied().collect();
        new.sort();
        blocks.extend(new);
        blocks.sort_by_cached_key(|&b| self.key(b));
        blocks
    }
}

/// The program as it stands before the loops of one nesting depth are
/// transformed: its loops, CFG, dominators, where each value is defined and
/// where it is used. The loops of one depth are disjoint, and a transform changes
/// only its own loop, the uses of its own values and its exits' phis, so the
/// facts of one level serve every loop of that depth; an outer loop reads a
/// later level, after its inner loops changed it. The cost is linear per level;
/// the reference route reads one per transformed depth, the incremental route
/// one per round (the start of a [`Nest`]).
struct Level {
    module: Module,
    loops: LoopInfo,
    dom: BlockDomTree,
    cfg: Cfg,
    /// Layout position of every laid-out block.
    pos: HashMap<Block, usize>,
    /// The block of every phi and command.
    inst_block: HashMap<Inst, Block>,
    /// Where each value is read: by a phi or command, or by a block's terminator
    /// or predicate.
    users: HashMap<Value, Vec<UseSite>>,
}

/// A place that reads a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum UseSite {
    /// A phi (arm or shadow) or command.
    Inst(Inst),
    /// A block's terminator or predicate.
    Block(Block),
}

impl UseSite {
    /// The block the use is in (at the level's time).
    fn block(self, level: &Level) -> Option<Block> {
        match self {
            UseSite::Inst(i) => level.inst_block.get(&i).copied(),
            UseSite::Block(b) => Some(b),
        }
    }
}

/// Reads a [`Level`] from the editor's current program.
fn level(ed: &mut Editor) -> Result<Level, TransformError> {
    let func = ed.func();
    let module = ed.snapshot();
    let body = prepare::body_of(&module, func, PASS)?;
    let loops = LoopInfo::compute(body).map_err(|e| internal(func, &e.to_string()))?;
    let cfg = Cfg::new(body);
    let dom = cfg.dominators();
    let pos = body
        .layout
        .iter()
        .enumerate()
        .map(|(k, &b)| (b, k))
        .collect();
    let mut inst_block = HashMap::new();
    let mut users: HashMap<Value, Vec<UseSite>> = HashMap::new();
    for &b in &body.layout {
        let data = &body.blocks[b];
        for &i in data.phis.iter().chain(&data.body) {
            inst_block.insert(i, b);
            for v in body.insts[i].kind.operands() {
                users.entry(v).or_default().push(UseSite::Inst(i));
            }
        }
        for v in data.term.operands().into_iter().chain(data.predicate) {
            users.entry(v).or_default().push(UseSite::Block(b));
        }
    }
    Ok(Level {
        module,
        loops,
        dom,
        cfg,
        pos,
        inst_block,
        users,
    })
}

/// What one loop looks like before its transform, read from its [`Level`].
struct LoopFacts<'l> {
    header: Block,
    /// The loop's blocks: a set read from a [`Level`], or the loop in a [`Nest`].
    blocks: Members<'l>,
    /// Outside predecessors of the header (the preheader after normalization).
    entries: Vec<Block>,
    /// Predecessors of the header inside the loop (the unique latch).
    latches: Vec<Block>,
    /// Exit edges (exiting block, exit block), deepest exit first, then layout.
    exit_edges: Vec<(Block, Block)>,
    /// Values defined in the loop and used outside it, in definition order, with
    /// their defining blocks.
    live_outs: Vec<(Value, Block)>,
    /// The uses outside the loop of the live-out values.
    outside_uses: Vec<UseSite>,
    /// Dominance in the program as it stands.
    dom: Dominance<'l>,
    /// The last block of the loop in layout order (where `L` goes).
    last: Block,
}

/// The blocks of the loop [`LoopFacts`] describes.
enum Members<'l> {
    /// Read from a [`Level`].
    Set(HashSet<Block>),
    /// The loop `l` of a [`Nest`] ([`Nest::contains`]).
    Nest(&'l Nest, LoopId),
}

impl Members<'_> {
    /// Whether `b` is a block of the loop.
    fn contains(&self, b: &Block) -> bool {
        match self {
            Members::Set(set) => set.contains(b),
            Members::Nest(nest, l) => nest.contains(*l, *b),
        }
    }
}

/// Dominance for [`LoopFacts`].
enum Dominance<'l> {
    /// The dominator tree of a [`Level`].
    Tree(&'l BlockDomTree),
    /// Derived from the dominator tree a [`Nest`] read once ([`Nest::dominates`]).
    Nest(&'l Nest),
}

impl Dominance<'_> {
    /// Whether `a` dominates `b`.
    fn dominates(&self, a: Block, b: Block) -> bool {
        match self {
            Dominance::Tree(dom) => dom.dominates(a, b),
            Dominance::Nest(nest) => nest.dominates(a, b),
        }
    }
}

/// Reads [`LoopFacts`] for the loop with `header` from `level`, in time linear in
/// the loop's size and the uses of its values.
fn loop_facts<'l>(
    level: &'l Level,
    func: FuncId,
    header: Block,
) -> Result<LoopFacts<'l>, TransformError> {
    let body = prepare::body_of(&level.module, func, PASS)?;
    let loops = &level.loops;
    let l = loops
        .loop_with_header(header)
        .ok_or_else(|| internal(func, "a loop to transform has lost its header"))?;
    let blocks: HashSet<Block> = loops.blocks(l).iter().copied().collect();
    let (latches, entries): (Vec<Block>, Vec<Block>) = level
        .cfg
        .preds(header)
        .iter()
        .partition(|p| blocks.contains(p));
    // The loop's blocks in layout order.
    let mut laid: Vec<Block> = loops.blocks_in_rpo(l);
    laid.sort_by_key(|b| level.pos.get(b).copied().unwrap_or(usize::MAX));
    let last = laid.last().copied().unwrap_or(header);
    let mut exit_edges = Vec::new();
    for &b in &laid {
        let mut seen = HashSet::new();
        for s in body.blocks[b].term.successors() {
            if !blocks.contains(&s) && seen.insert(s) {
                exit_edges.push((b, s));
            }
        }
    }
    // Deepest exit first: the cascade then tests the exits that stay in more of
    // the surrounding loops before those that leave more of them.
    exit_edges.sort_by_key(|&(_, x)| std::cmp::Reverse(loops.depth(x)));
    // Definitions in the loop, and those among them read outside it.
    let mut live_outs = Vec::new();
    let mut outside_uses = Vec::new();
    for &b in &laid {
        let data = &body.blocks[b];
        for &i in data.phis.iter().chain(&data.body) {
            let Some(v) = body.insts[i].result else {
                continue;
            };
            let outside: Vec<UseSite> = level
                .users
                .get(&v)
                .into_iter()
                .flatten()
                .copied()
                .filter(|u| u.block(level).is_some_and(|ub| !blocks.contains(&ub)))
                .collect();
            if !outside.is_empty() {
                live_outs.push((v, b));
                outside_uses.extend(outside);
            }
        }
    }
    outside_uses.sort_by_key(|u| format!("{u:?}"));
    outside_uses.dedup();
    Ok(LoopFacts {
        header,
        blocks: Members::Set(blocks),
        entries,
        latches,
        exit_edges,
        live_outs,
        outside_uses,
        dom: Dominance::Tree(&level.dom),
        last,
    })
}

/// The blocks and values one transform made (phase 1 and 2), for the next phase
/// and the note.
struct Built {
    newh: Block,
    guard: Block,
    latch: Block,
    live_upd: Value,
    /// One per exit edge, in [`LoopFacts::exit_edges`] order.
    rebound: Vec<Block>,
    /// Exit trackers, one per exit edge but the last: (`X.track` in `NewH`,
    /// `X.track.upd` in `L`).
    exit_tracks: Vec<(Value, Value)>,
    /// `(v, v.out, v.track)` per live-out value; a value held in a header phi
    /// `h` (see [`phase2_rebound_exits`]) is `(v, h, h.next)`.
    outs: Vec<(Value, Value, Value)>,
    /// Each moved header phi and its forwarding phi `h.next` in `L`.
    forwards: HashMap<Value, Value>,
    /// The header phis whose latch arms all read one value, by that value.
    latch_values: HashMap<Value, Value>,
}

/// What [`transform_loop`] made: the note's tail, the new blocks and the
/// live-out values' finals.
struct Done {
    note: String,
    newh: Block,
    guard: Block,
    latch: Block,
    /// The `E_k`, in [`LoopFacts::exit_edges`] order.
    rebound: Vec<Block>,
    /// The dispatch cascade, `Disp` first.
    disp: Vec<Block>,
    /// Each live-out value's `%v.final` in `Disp`.
    finals: HashMap<Value, Value>,
}

/// Transforms the loop `facts` describes.
fn transform_loop(
    ed: &mut Editor,
    facts: &LoopFacts,
    fault: Option<Fault>,
    live_outs: LiveOuts,
) -> Done {
    let mut built = phase1_basic_structure(ed, facts);
    phase2_rebound_exits(ed, facts, &mut built, fault, live_outs);
    let (disp, finals) = dispatch(ed, facts, &built);
    let names = |ed: &Editor, bs: &[Block]| {
        bs.iter()
            .map(|&b| format!("%{}", ed.block_name(b)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut note = format!(
        "NewH %{}, Guard %{}, L %{}, E {}, Disp {}",
        ed.block_name(built.newh),
        ed.block_name(built.guard),
        ed.block_name(built.latch),
        names(ed, &built.rebound),
        names(ed, &disp),
    );
    if !built.outs.is_empty() {
        let outs: Vec<String> = built
            .outs
            .iter()
            .map(|&(v, out, _)| {
                if v == out {
                    format!("%{} held", ed.stem(v))
                } else if built.forwards.contains_key(&out) {
                    format!("%{} held in %{}", ed.stem(v), ed.stem(out))
                } else {
                    format!("%{} as %{}", ed.stem(v), ed.stem(out))
                }
            })
            .collect();
        note.push_str(&format!(", live-outs {}", outs.join(" ")));
    }
    Done {
        note,
        newh: built.newh,
        guard: built.guard,
        latch: built.latch,
        rebound: built.rebound,
        disp,
        finals,
    }
}

/// [§9.1 phase 1] The basic loop structure: `NewH` (with `%live`, the moved header
/// phis and the uniform loop branch on `%stay`), `Guard` and the new latch `L`;
/// the entry edges go to `NewH`, the old latch to `L`.
fn phase1_basic_structure(ed: &mut Editor, facts: &LoopFacts) -> Built {
    let h = facts.header;
    let hname = ed.block_name(h).to_string();
    let newh = ed.new_block(&format!("{hname}.newh"), Terminator::Unreachable);
    let latch = ed.new_block(&format!("{hname}.newlatch"), Terminator::Br(newh));
    let guard = ed.new_block(&format!("{hname}.guard"), Terminator::Unreachable);
    ed.place_before(newh, h);
    ed.place_before(guard, h);

    // %live = phi i1 [true, P]…, [%live.upd, L] shadow(false); %live.upd is built
    // empty here and gets its arms in phase 2.
    let t = ed.const_bool(true);
    let f = ed.const_bool(false);
    let live_upd = ed.phi(latch, TypeTable::I1, Vec::new(), None, "live.upd");
    let mut arms: Vec<(Value, Block)> = facts.entries.iter().map(|&p| (t, p)).collect();
    arms.push((live_upd, latch));
    let live = ed.phi(newh, TypeTable::I1, arms, Some(f), "live");

    // The header phis move to NewH: outside arms stay, the latch arms become one
    // arm from L reading a forwarding phi there.
    let moved = std::mem::take(&mut ed.body_mut().blocks[h].phis);
    let mut forwards = HashMap::new();
    let mut latch_values = HashMap::new();
    for &phi in &moved {
        let (ty, incoming) = match &ed.body().insts[phi].kind {
            InstKind::Phi { ty, incoming, .. } => (*ty, incoming.clone()),
            _ => continue,
        };
        let (inside, outside): (Vec<_>, Vec<_>) = incoming
            .into_iter()
            .partition(|(_, p)| facts.blocks.contains(p));
        let stem = ed.body().insts[phi]
            .result
            .map_or_else(|| "v".to_string(), |r| ed.stem(r));
        let same = inside
            .first()
            .map(|&(v, _)| v)
            .filter(|&first| inside.iter().all(|&(v, _)| v == first));
        let next = ed.phi(latch, ty, inside, None, &format!("{stem}.next"));
        if let Some(h) = ed.body().insts[phi].result {
            forwards.insert(h, next);
            if let Some(v) = same {
                latch_values.insert(v, h);
            }
        }
        if let InstKind::Phi { incoming, .. } = &mut ed.body_mut().insts[phi].kind {
            *incoming = outside;
            incoming.push((next, latch));
        }
    }
    ed.body_mut().blocks[newh].phis.extend(moved);

    // %m = mask(); %go = select i1 %m, i1 %live, i1 false total;
    // %stay = any(%go) total; br i1 %stay, Guard, Disp (Disp comes with the dispatch).
    let m = ed.append(newh, InstKind::Mask, TypeTable::I1, "m", false);
    let go = ed.select(newh, TypeTable::I1, (m, live, f), "go", true);
    let stay = ed.call_builtin(
        newh,
        "any",
        TypeTable::I1,
        &[(go, TypeTable::I1)],
        "stay",
        true,
    );
    ed.body_mut().blocks[newh].term = Terminator::CondBr {
        cond: stay,
        if_true: guard,
        if_false: newh, // replaced by Disp in [`dispatch`]
    };
    ed.body_mut().blocks[guard].term = Terminator::CondBr {
        cond: live,
        if_true: h,
        if_false: latch,
    };
    for &p in &facts.entries {
        ed.retarget(p, h, newh);
    }
    for &p in &facts.latches {
        ed.retarget(p, h, latch);
    }
    Built {
        newh,
        guard,
        latch,
        live_upd,
        rebound: Vec::new(),
        exit_tracks: Vec::new(),
        outs: Vec::new(),
        forwards,
        latch_values,
    }
}

/// [§9.1 phase 2] Rebounds every exit edge `a → X` through a new block `E` to `L`
/// and builds the phi pairs that carry the state across iterations: `%live.upd`,
/// the exit trackers and the live-out trackers.
fn phase2_rebound_exits(
    ed: &mut Editor,
    facts: &LoopFacts,
    built: &mut Built,
    fault: Option<Fault>,
    live_outs: LiveOuts,
) {
    let hname = ed.block_name(facts.header).to_string();
    let (t, f) = (ed.const_bool(true), ed.const_bool(false));
    let latch = built.latch;
    for &(a, x) in &facts.exit_edges {
        let xname = ed.block_name(x).to_string();
        let e = ed.new_block(&format!("{hname}.e.{xname}"), Terminator::Br(latch));
        ed.place_after(e, a);
        ed.retarget(a, x, e);
        built.rebound.push(e);
    }
    // L goes after the loop's last block, and after that block's E if it has one.
    let anchor = facts
        .exit_edges
        .iter()
        .zip(&built.rebound)
        .filter(|&(&(a, _), _)| a == facts.last)
        .map(|(_, &e)| e)
        .next_back()
        .unwrap_or(facts.last);
    ed.place_after(latch, anchor);
    // L's predecessors: Guard, the old latches, the E blocks.
    let mut preds: Vec<Block> = vec![built.guard];
    preds.extend(facts.latches.iter().copied());
    preds.extend(built.rebound.iter().copied());
    let rebound: HashSet<Block> = built.rebound.iter().copied().collect();

    // %live.upd: true from the old latch (the lane goes round again), false from
    // Guard (it had left) and from every E (it leaves now).
    let arms = preds
        .iter()
        .map(|&p| {
            let stays = facts.latches.contains(&p);
            (if stays { t } else { f }, p)
        })
        .collect();
    set_arms(ed, built.live_upd, arms);

    // Live-out values *held* in a header phi `h` need no tracker: `h`'s
    // forwarding phi `h.next` in `L` takes, on every edge that does not go round,
    // the value the lane leaves with instead of `undef`, and `h` keeps it from
    // then on (from `Guard`, `h.next` reads `h`). That value is `h` itself when
    // `h` is read after the loop (the header dominates every exiting block), or
    // the value `v` of `h`'s latch arms when `v` is read after the loop: from
    // the exit edges whose exiting block `v` dominates `h.next` reads `v`, and
    // from the others `h` (no use after the loop reads `v` past such an exit).
    // `v.final` in `Disp` then reads `h` (from `NewH`) or `h.next` (from `L`).
    // A tracker costs two phis (a loop-carried register in the widened code)
    // and a select per exit edge; holding costs the select of `h.next` that the
    // predication of `L` makes anyway (the native backend,
    // docs/native.md). Each header phi holds one
    // value at most: itself first, else its latch value.
    let held = hold_plan(facts, built, fault, live_outs);
    // The forwarding phis of phase 1 read the held value, or undef, on the edges
    // that do not go round.
    for &phi in &ed.body().blocks[latch].phis.clone() {
        let Some(next) = ed.body().insts[phi].result else {
            continue;
        };
        if next == built.live_upd {
            continue;
        }
        let ty = ed.ty(next);
        let undef = ed.undef(ty);
        let hold = held
            .iter()
            .find(|(_, hold)| hold.next == next)
            .map(|(&v, &hold)| (v, hold));
        let arms: Vec<(Value, Block)> = preds
            .iter()
            .filter(|p| !facts.latches.contains(p))
            .map(|&p| {
                let Some((v, hold)) = hold else {
                    return (undef, p);
                };
                let exiting = facts
                    .exit_edges
                    .iter()
                    .zip(&built.rebound)
                    .find(|&(_, &e)| e == p)
                    .map(|(&(a, _), _)| a);
                match exiting {
                    Some(a) if v != hold.phi && facts.dom.dominates(hold.def, a) => (v, p),
                    _ => (hold.phi, p),
                }
            })
            .collect();
        if let InstKind::Phi { incoming, .. } = &mut ed.body_mut().insts[phi].kind {
            incoming.extend(arms);
        }
    }

    exit_trackers(ed, facts, built, &preds, (t, f));

    // Live-out trackers: %v.out = phi [undef, P], [%v.track, L]; %v.track = phi
    // [%v, E_k] where %v dominates the exiting block, [%v.out, every other edge].
    for (k, &(v, def)) in facts.live_outs.iter().enumerate() {
        if let Some(hold) = held.get(&v) {
            built.outs.push((v, hold.phi, hold.next));
            continue;
        }
        let ty: Ty = ed.ty(v);
        let stem = ed.stem(v);
        let undef = ed.undef(ty);
        let track = ed.phi(latch, ty, Vec::new(), None, &format!("{stem}.track"));
        let mut arms: Vec<(Value, Block)> = facts.entries.iter().map(|&p| (undef, p)).collect();
        arms.push((track, latch));
        let out = ed.phi(built.newh, ty, arms, None, &format!("{stem}.out"));
        let keep = if k == 0 && fault == Some(Fault::DropLiveOutTracker) {
            undef
        } else {
            out
        };
        let arms = preds
            .iter()
            .map(|&p| {
                let exit = facts
                    .exit_edges
                    .iter()
                    .zip(&built.rebound)
                    .find(|&(_, &e)| e == p);
                match exit {
                    Some((&(a, _), _)) if rebound.contains(&p) && facts.dom.dominates(def, a) => {
                        (v, p)
                    }
                    _ => (keep, p),
                }
            })
            .collect();
        set_arms(ed, track, arms);
        built.outs.push((v, out, track));
    }
}

/// The exit trackers of phase 2 ([`phase2_rebound_exits`]), one per exit edge
/// but the last; `preds` are `L`'s predecessors, `(t, f)` the constants true and
/// false.
fn exit_trackers(
    ed: &mut Editor,
    facts: &LoopFacts,
    built: &mut Built,
    preds: &[Block],
    (t, f): (Value, Value),
) {
    let latch = built.latch;
    // Exit trackers, one per exit edge but the last (the dispatch's remaining case):
    // %X.track = phi [false, P], [%X.track.upd, L]; %X.track.upd = phi [true, E_X],
    // [%X.track, every other edge].
    let n = facts.exit_edges.len();
    for (k, &(_, x)) in facts
        .exit_edges
        .iter()
        .enumerate()
        .take(n.saturating_sub(1))
    {
        let xname = ed.block_name(x).to_string();
        let upd = ed.phi(
            latch,
            TypeTable::I1,
            Vec::new(),
            None,
            &format!("{xname}.track.upd"),
        );
        let mut arms: Vec<(Value, Block)> = facts.entries.iter().map(|&p| (f, p)).collect();
        arms.push((upd, latch));
        let track = ed.phi(
            built.newh,
            TypeTable::I1,
            arms,
            None,
            &format!("{xname}.track"),
        );
        let e = built.rebound[k];
        let arms = preds
            .iter()
            .map(|&p| (if p == e { t } else { track }, p))
            .collect();
        set_arms(ed, upd, arms);
        built.exit_tracks.push((track, upd));
    }
}

/// How a live-out value is held (see [`phase2_rebound_exits`]).
#[derive(Clone, Copy)]
struct Hold {
    /// The header phi `h` that keeps it.
    phi: Value,
    /// `h`'s forwarding phi in `L`.
    next: Value,
    /// The block defining the live-out value.
    def: Block,
}

/// The live-out values held in header phis, by value: each header phi read
/// after the loop holds itself, then each header phi left over holds the value
/// of its latch arms if that is read after the loop. The seeded fault keeps the
/// first live-out value on a tracker (which it then breaks). None under
/// [`LiveOuts::Tracked`].
fn hold_plan(
    facts: &LoopFacts,
    built: &Built,
    fault: Option<Fault>,
    live_outs: LiveOuts,
) -> HashMap<Value, Hold> {
    if live_outs == LiveOuts::Tracked {
        return HashMap::new();
    }
    let candidates = facts
        .live_outs
        .iter()
        .enumerate()
        .filter(|&(k, _)| !(k == 0 && fault == Some(Fault::DropLiveOutTracker)))
        .map(|(_, &out)| out);
    let mut held = HashMap::new();
    let mut taken = HashSet::new();
    for (v, def) in candidates.clone() {
        if let Some(&next) = built.forwards.get(&v) {
            taken.insert(v);
            held.insert(v, Hold { phi: v, next, def });
        }
    }
    for (v, def) in candidates {
        if held.contains_key(&v) {
            continue;
        }
        if let Some(&h) = built.latch_values.get(&v)
            && taken.insert(h)
        {
            let next = built.forwards[&h];
            held.insert(v, Hold { phi: h, next, def });
        }
    }
    held
}

/// [§9.1] The dispatch: `NewH` leaves to `Disp`, which sends each lane to the exit
/// edge it took (a cascade of branches on the exit trackers); every use of a
/// live-out value outside the loop reads its tracker. Returns the dispatch blocks
/// and each live-out value's `%v.final`.
fn dispatch(
    ed: &mut Editor,
    facts: &LoopFacts,
    built: &Built,
) -> (Vec<Block>, HashMap<Value, Value>) {
    let hname = ed.block_name(facts.header).to_string();
    let n = facts.exit_edges.len();
    // The landing block of each exit edge: its exit block when that has no other
    // edge from the loop, else a new block per edge.
    let mut from_loop: HashMap<Block, usize> = HashMap::new();
    for &(_, x) in &facts.exit_edges {
        *from_loop.entry(x).or_default() += 1;
    }
    let mut landing = Vec::with_capacity(n);
    for &(a, x) in &facts.exit_edges {
        if from_loop[&x] == 1 {
            landing.push(x);
        } else {
            let xname = ed.block_name(x).to_string();
            let d = ed.new_block(&format!("{hname}.land.{xname}"), Terminator::Br(x));
            ed.place_before(d, x);
            ed.rename_incoming(x, a, d);
            landing.push(d);
        }
    }
    // The cascade: Disp tests the first exit's tracker, Disp.X_k the k-th; the last
    // exit is what remains. `arrives_from[k]` is the block that branches to the
    // k-th landing block.
    let first = ed.new_block(&format!("{hname}.disp"), Terminator::Unreachable);
    ed.place_after(first, built.latch);
    let mut disp = vec![first];
    for k in 1..n.saturating_sub(1) {
        let xname = ed.block_name(facts.exit_edges[k].1).to_string();
        let b = ed.new_block(&format!("{hname}.disp.{xname}"), Terminator::Unreachable);
        ed.place_after(b, built.latch);
        disp.push(b);
    }
    // L tests too: `%again = any(select(mask(), %live.upd, false))`, so that every
    // block of the loop reaches the exit without a back edge (see the module doc,
    // "Bottom test"). Disp merges the trackers of the two exits.
    let f = ed.const_bool(false);
    let m = ed.append(built.latch, InstKind::Mask, TypeTable::I1, "m.next", false);
    let go = ed.select(
        built.latch,
        TypeTable::I1,
        (m, built.live_upd, f),
        "go.next",
        true,
    );
    let again = ed.call_builtin(
        built.latch,
        "any",
        TypeTable::I1,
        &[(go, TypeTable::I1)],
        "again",
        true,
    );
    ed.body_mut().blocks[built.latch].term = Terminator::CondBr {
        cond: again,
        if_true: built.newh,
        if_false: first,
    };
    let mut exit_final = Vec::with_capacity(built.exit_tracks.len());
    for &(track, upd) in &built.exit_tracks {
        let stem = format!("{}.final", ed.stem(track));
        let arms = vec![(track, built.newh), (upd, built.latch)];
        exit_final.push(ed.phi(first, TypeTable::I1, arms, None, &stem));
    }
    let mut finals = Vec::with_capacity(built.outs.len());
    for &(v, out, track) in &built.outs {
        let ty = ed.ty(v);
        let stem = format!("{}.final", ed.stem(v));
        let arms = vec![(out, built.newh), (track, built.latch)];
        finals.push((v, ed.phi(first, ty, arms, None, &stem)));
    }
    let mut arrives_from = vec![first; n];
    if n == 1 {
        ed.body_mut().blocks[first].term = Terminator::Br(landing[0]);
    } else {
        for (k, &b) in disp.iter().enumerate() {
            let last = k + 1 == disp.len();
            let rest = if last { landing[n - 1] } else { disp[k + 1] };
            ed.body_mut().blocks[b].term = Terminator::CondBr {
                cond: exit_final[k],
                if_true: landing[k],
                if_false: rest,
            };
            arrives_from[k] = b;
            if last {
                arrives_from[n - 1] = b;
            }
        }
    }
    if let Terminator::CondBr { if_false, .. } = &mut ed.body_mut().blocks[built.newh].term {
        *if_false = first;
    }
    // The exit phis' arms from the exiting blocks now come from the dispatch (a
    // landing block of its own took them over above), and every use outside the
    // loop reads the trackers.
    for (k, &(a, x)) in facts.exit_edges.iter().enumerate() {
        if landing[k] == x {
            ed.rename_incoming(x, a, arrives_from[k]);
        }
    }
    let outs: HashMap<Value, Value> = finals.into_iter().collect();
    for &u in &facts.outside_uses {
        rewrite_use(ed, u, &outs);
    }
    (disp, outs)
}

/// Replaces at `site` every use of a key of `map` with its image.
fn rewrite_use(ed: &mut Editor, site: UseSite, map: &HashMap<Value, Value>) {
    let image = |v: &mut Value| {
        if let Some(&n) = map.get(v) {
            *v = n;
        }
    };
    match site {
        UseSite::Inst(i) => for_each_operand_mut(&mut ed.body_mut().insts[i].kind, &image),
        UseSite::Block(b) => {
            let data = &mut ed.body_mut().blocks[b];
            if let Some(p) = &mut data.predicate {
                image(p);
            }
            match &mut data.term {
                Terminator::CondBr { cond, .. } | Terminator::Switch { cond, .. } => image(cond),
                Terminator::Ret(Some(v)) => image(v),
                _ => {}
            }
        }
    }
}

/// Sets the arms of the phi defining `phi`.
fn set_arms(ed: &mut Editor, phi: Value, arms: Vec<(Value, Block)>) {
    if let Some(inst) = ed.body().def_inst(phi)
        && let InstKind::Phi { incoming, .. } = &mut ed.body_mut().insts[inst].kind
    {
        *incoming = arms;
    }
}

#[cfg(test)]
mod tests {
    //! The shape §9.1 and the next pass rely on, block by block, on logstar.

    use super::*;
    use crate::pass::{Options, Pass};
    use pllvm_semantics::text::{parse_module, print_function};

    /// Runs dlt on `src` and compares the printed block `block` with `expect`
    /// (lines trimmed).
    fn check(src: &str, block: &str, expect: &[&str]) {
        let m = parse_module(src).expect("parses").0;
        let func = m.first_definition().expect("a function");
        let options = Options::default();
        let cx = PassContext {
            options: &options,
            pass: Pass::Dlt,
        };
        let (out, _) = divergent_loop_transform(&m, func, &cx).expect("transforms");
        let text = print_function(&out, func);
        let lines: Vec<&str> = text
            .lines()
            .skip_while(|l| l.trim() != format!("{block}:"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty() && !l.starts_with('}'))
            .map(str::trim)
            .collect();
        assert_eq!(lines, expect, "\n{text}");
    }

    const LOGSTAR: &str = include_str!("../../corpus/semantics/fig3.20b-logstar-fr.ll");

    /// `scripts/nested-cfg.py loops D`: D nested loops whose trip counts are
    /// the thread id, every one divergent, every exit temporally divergent.
    fn nested_loops(depth: usize) -> String {
        let mut out = vec![
            "define i32 @nested(i32 %n) {".to_string(),
            "entry:".into(),
            "  %tid = call i32 @pllvm.thread_id()".into(),
            "  br label %h0".into(),
        ];
        for k in 0..depth {
            let pred = if k == 0 {
                "%entry".to_string()
            } else {
                format!("%h{}", k - 1)
            };
            let next = if k + 1 == depth {
                "body".to_string()
            } else {
                format!("h{}", k + 1)
            };
            out.push(format!("h{k}:"));
            out.push(format!(
                "  %i{k} = phi i32 [ 0, {pred} ], [ %i{k}.n, %l{k} ]"
            ));
            out.push(format!("  br label %{next}"));
        }
        out.push("body:".into());
        out.push("  %v = add i32 %n, 1".into());
        out.push(format!("  br label %l{}", depth - 1));
        for k in (0..depth).rev() {
            let leave = if k == 0 {
                "exit".to_string()
            } else {
                format!("l{}", k - 1)
            };
            out.push(format!("l{k}:"));
            out.push(format!("  %i{k}.n = add i32 %i{k}, 1"));
            out.push(format!("  %c{k} = icmp slt i32 %i{k}.n, %tid"));
            out.push(format!("  br i1 %c{k}, label %h{k}, label %{leave}"));
        }
        out.push("exit:".into());
        out.push("  ret i32 %i0.n".into());
        out.push("}".into());
        out.join("\n") + "\n"
    }

    /// Runs both routes on `src`, counting; returns the outputs printed with
    /// their notes, and the work.
    fn routes(src: &str) -> ((String, Work), (String, Work)) {
        let m = parse_module(src).expect("parses").0;
        let func = m.first_definition().expect("a function");
        let options = Options::default();
        let cx = PassContext {
            options: &options,
            pass: Pass::Dlt,
        };
        let run = |route| {
            let mut work = Work::default();
            let (out, notes) =
                transform_rounds(&m, func, &cx, route, &mut work).expect("transforms");
            let made = notes.iter().filter(|n| n.contains("made uniform")).count();
            (
                format!(
                    "{made}\n{}\n{}",
                    print_function(&out, func),
                    notes.join("\n")
                ),
                work,
            )
        };
        (run(Route::Incremental), run(Route::Reference))
    }

    /// The counted-work test: on 2,000 nested divergent loops the incremental
    /// route reads the whole function once per round (two rounds: the second
    /// finds every loop settled and searches nothing), composes each loop's
    /// facts from a bounded number of blocks, summary entries and uses per
    /// block, and transforms all 2,000 loops. The reference, on a nest of 40
    /// (the same output), reads the whole function once per nesting depth.
    #[test]
    fn a_nest_of_2000_loops_costs_linear_work() {
        let depth = 2000;
        let m = parse_module(&nested_loops(depth)).expect("parses").0;
        let func = m.first_definition().expect("a function");
        let options = Options::default();
        let cx = PassContext {
            options: &options,
            pass: Pass::Dlt,
        };
        let mut work = Work::default();
        let (out, notes) =
            transform_rounds(&m, func, &cx, Route::Incremental, &mut work).expect("transforms");
        let made = notes.iter().filter(|n| n.contains("made uniform")).count();
        assert_eq!(made, depth, "every loop is divergent");
        let blocks = out.functions[func]
            .body
            .as_ref()
            .expect("a body")
            .layout
            .len();
        assert_eq!(work.rounds, 2, "{work:?}");
        assert_eq!(work.full_levels, 1, "{work:?}");
        assert_eq!(work.classify_visits, 0, "{work:?}");
        assert!(
            work.composed <= 3 * blocks,
            "{} composition steps for {blocks} blocks",
            work.composed
        );

        let ((fast, fast_work), (reference, reference_work)) = routes(&nested_loops(40));
        assert_eq!(fast, reference);
        assert!(fast.starts_with("40\n"));
        assert_eq!(fast_work.full_levels, 1);
        assert_eq!(reference_work.full_levels, 40, "{reference_work:?}");
        assert!(
            reference_work.classify_visits > 40 * 40,
            "{reference_work:?}"
        );
    }

    #[test]
    fn newh_holds_live_the_moved_header_phis_the_trackers_and_the_uniform_test() {
        check(
            LOGSTAR,
            "B.newh",
            &[
                "%live = phi i1 [ true, %A ], [ %live.upd, %B.newlatch ] shadow(false)",
                "%x = phi double [ %n, %A ], [ %x.next, %B.newlatch ]",
                "%i = phi i32 [ 0, %A ], [ %i.next, %B.newlatch ]",
                // %i.inc (the latch arm of %i) is read after the loop: %i holds
                // it, no tracker pair.
                "%m = mask()",
                "%go = select i1 %m, i1 %live, i1 false total",
                "%stay = call i1 @pllvm.any(i1 %go) total",
                "br i1 %stay, label %B.guard, label %B.disp",
            ],
        );
    }

    #[test]
    fn guard_runs_the_body_for_live_lanes_only() {
        check(
            LOGSTAR,
            "B.guard",
            &["br i1 %live, label %B, label %B.newlatch"],
        );
    }

    #[test]
    fn the_old_latch_and_the_exit_are_rebounded_to_l() {
        check(
            LOGSTAR,
            "B",
            &[
                "%i.inc = add i32 %i, 1",
                "%x.log = call double @llvm.log.f64(double %x)",
                "%x.gt.one = fcmp ogt double %x.log, 1.0e0",
                "br i1 %x.gt.one, label %B.newlatch, label %B.e.C",
            ],
        );
        check(LOGSTAR, "B.e.C", &["br label %B.newlatch"]);
    }

    #[test]
    fn l_updates_live_and_the_trackers_by_incoming_edge_and_tests_again() {
        check(
            LOGSTAR,
            "B.newlatch",
            &[
                "%live.upd = phi i1 [ false, %B.guard ], [ true, %B ], [ false, %B.e.C ]",
                "%x.next = phi double [ %x.log, %B ], [ undef, %B.guard ], [ undef, %B.e.C ]",
                // A lane that leaves takes %i.inc along; one that had left keeps %i.
                "%i.next = phi i32 [ %i.inc, %B ], [ %i, %B.guard ], [ %i.inc, %B.e.C ]",
                "%m.next = mask()",
                "%go.next = select i1 %m.next, i1 %live.upd, i1 false total",
                "%again = call i1 @pllvm.any(i1 %go.next) total",
                "br i1 %again, label %B.newh, label %B.disp",
            ],
        );
    }

    #[test]
    fn disp_merges_the_trackers_and_the_exit_reads_them() {
        check(
            LOGSTAR,
            "B.disp",
            &[
                "%i.inc.final = phi i32 [ %i, %B.newh ], [ %i.next, %B.newlatch ]",
                "br label %C",
            ],
        );
        check(
            LOGSTAR,
            "C",
            &[
                "%i.inc.lcssa = phi i32 [ %i.inc.final, %B.disp ]",
                "%n.gt.one = fcmp ogt double %n, 1.0e0",
                "%r = select i1 %n.gt.one, i32 %i.inc.lcssa, i32 0",
                "ret i32 %r",
            ],
        );
    }

    #[test]
    fn two_exits_dispatch_on_the_first_exit_tracker() {
        let src = "
define i32 @f(i32 %n) {
A:
  br label %H
H:
  %i = phi i32 [ 0, %A ], [ %i1, %B ]
  %c = icmp eq i32 %i, %n
  br i1 %c, label %X, label %B
B:
  %i1 = add i32 %i, 1
  %d = icmp slt i32 %i1, 5
  br i1 %d, label %H, label %Y
X:
  ret i32 %i
Y:
  ret i32 -1
}
";
        check(
            src,
            "H.disp",
            &[
                "%X.track.final = phi i1 [ %X.track, %H.newh ], [ %X.track.upd, %H.newlatch ]",
                "%i.final = phi i32 [ %i, %H.newh ], [ %i.next, %H.newlatch ]",
                "br i1 %X.track.final, label %X, label %Y",
            ],
        );
        check(
            src,
            "H.newlatch",
            &[
                "%live.upd = phi i1 [ false, %H.guard ], [ true, %B ], [ false, %H.e.X ], [ false, %H.e.Y ]",
                // %i is read after the loop: held in its header phi, no tracker.
                "%i.next = phi i32 [ %i1, %B ], [ %i, %H.guard ], [ %i, %H.e.X ], [ %i, %H.e.Y ]",
                "%X.track.upd = phi i1 [ %X.track, %H.guard ], [ %X.track, %B ], [ true, %H.e.X ], [ %X.track, %H.e.Y ]",
                "%m.next = mask()",
                "%go.next = select i1 %m.next, i1 %live.upd, i1 false total",
                "%again = call i1 @pllvm.any(i1 %go.next) total",
                "br i1 %again, label %H.newh, label %H.disp",
            ],
        );
    }
}
