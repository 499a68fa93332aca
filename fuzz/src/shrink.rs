//! The shrinker of `pllvm fuzz` (docs/fuzzing.md): delta debugging over a failing
//! [`Case`], keeping a candidate only when the same oracle still fails with the
//! same failure kind.
//!
//! Each round tries, in order, and restarts after every accepted candidate:
//! 1. fewer lanes (1, 2, half, one less), the input columns cut to match;
//! 2. fewer blocks: a conditional branch or `switch` made an unconditional
//!    branch to one of its successors (the blocks no longer reached are
//!    removed, phis lose the arms of removed edges), or a block with one
//!    successor bypassed (its predecessors branch to its successor);
//! 3. fewer instructions: chunks of the phis and commands (halves, quarters,
//!    ..., single ones, as ddmin does), each removed with its uses replaced by
//!    a zero of its type, or (single ones) by one of its own operands of the
//!    same type, or by `undef`;
//! 4. simpler operands: an operand that is not a constant replaced by zero;
//! 5. simpler inputs: an argument column made all zero, or uniform (lane 0's
//!    value everywhere); the globals' initial contents made zero.
//!
//! Every candidate is printed and parsed again (and, unless the oracle is about
//! the verifier, verified, §4.10): a candidate the parser or the verifier
//! rejects is not tried. The search stops when a round accepts nothing or the
//! time budget is spent; the result is the smallest failing case found.

use crate::InputScalar;
use crate::oracles::{Case, Oracle, Verdict, guarded};
use pllvm_codegen::edit::Editor;
use pllvm_semantics::ir::{Block, ConstData, Inst, InstKind, Terminator, Value};
use pllvm_semantics::text::{parse_module, print_module};
use pllvm_semantics::types::TypeData;
use pllvm_semantics::verify::verify_module;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// What a shrink did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShrinkStats {
    /// Candidates the oracle checked.
    pub tries: usize,
    /// Candidates accepted (each one made the case smaller).
    pub accepted: usize,
    /// Whether the time budget ran out before a round accepted nothing.
    pub out_of_time: bool,
}

/// Shrinks `case`, on which `oracle` fails with a failure of kind `kind`,
/// within `budget`. Returns the smallest case found that still fails so, the
/// failure on it, and the statistics.
pub fn shrink(
    case: &Case,
    oracle: &dyn Oracle,
    kind: &str,
    budget: Duration,
) -> (Case, Option<crate::oracles::Failure>, ShrinkStats) {
    let start = Instant::now();
    let mut stats = ShrinkStats::default();
    let mut best = case.clone();
    let mut failure = None;
    let passes: [fn(&Case) -> Vec<Edit>; 5] = [
        lane_edits,
        block_edits,
        inst_edits,
        operand_edits,
        input_edits,
    ];
    // Each round goes through every pass; after an accepted candidate the
    // pass's edits are computed again for the smaller case (ids change when it
    // is parsed again) and the pass goes on from the same position, where the
    // edits before it most likely still fail to apply. A round that accepts
    // nothing ends the search.
    loop {
        let mut progress = false;
        for pass in passes {
            let mut edits = pass(&best);
            let mut k = 0;
            while k < edits.len() {
                if start.elapsed() > budget {
                    stats.out_of_time = true;
                    return (best, failure, stats);
                }
                let candidate = apply(&best, &edits[k]);
                k += 1;
                let Some(candidate) = reparse(candidate, oracle.needs_verified()) else {
                    continue;
                };
                if candidate.hash() == best.hash() || size(&candidate) > size(&best) {
                    continue;
                }
                stats.tries += 1;
                if let Verdict::Fail(f) = guarded(|| oracle.check(&candidate))
                    && f.kind == kind
                {
                    best = candidate;
                    failure = Some(f);
                    stats.accepted += 1;
                    progress = true;
                    edits = pass(&best);
                    k = k.saturating_sub(1);
                }
            }
        }
        if !progress {
            return (best, failure, stats);
        }
    }
}

/// One shrinking step, applied to the case it was computed for.
#[derive(Clone, Debug)]
enum Edit {
    /// Keep the first n lanes.
    Lanes(usize),
    /// Make the block's terminator `br` to the successor.
    Branch(Block, Block),
    /// Send the block's predecessors to its one successor.
    Bypass(Block, Block),
    /// Append the second block, whose one predecessor is the first and
    /// branches only to it, to the first.
    Merge(Block, Block),
    /// Remove the instructions, each use replaced by zero (or undef).
    Remove(Vec<(Block, Inst)>),
    /// Remove the instruction, its uses replaced by the operand.
    RemoveFor(Block, Inst, Value),
    /// Remove the instruction, its uses replaced by undef.
    RemoveUndef(Block, Inst),
    /// Replace the operand of the instruction by zero.
    ZeroOperand(Inst, Value),
    /// Make the argument column zero.
    ZeroColumn(usize),
    /// Make the argument column lane 0's value in every lane.
    UniformColumn(usize),
    /// Make the globals' initial contents zero.
    ZeroGlobals,
}

/// The case after `edit`.
fn apply(c: &Case, edit: &Edit) -> Case {
    match edit {
        Edit::Lanes(n) => Case {
            columns: c.columns.iter().map(|col| col[..*n].to_vec()).collect(),
            width: *n,
            ..c.clone()
        },
        Edit::Branch(b, s) => edited(c, |e| e.body_mut().blocks[*b].term = Terminator::Br(*s)),
        Edit::Bypass(b, s) => edited(c, |e| bypass(e, *b, *s)),
        Edit::Merge(p, b) => edited(c, |e| merge(e, *p, *b)),
        Edit::Remove(insts) => remove_insts(c, insts, |e, _, r| zero(e, r)),
        Edit::RemoveFor(b, i, op) => {
            let op = *op;
            remove_insts(c, &[(*b, *i)], move |e, _, r| {
                (e.ty(op) == e.ty(r) && op != r).then_some(op)
            })
        }
        Edit::RemoveUndef(b, i) => remove_insts(c, &[(*b, *i)], |_, _, _| None),
        Edit::ZeroOperand(i, op) => {
            let (i, op) = (*i, *op);
            edited(c, |e| {
                if let Some(z) = zero(e, op) {
                    let mut kind = e.body().insts[i].kind.clone();
                    pllvm_codegen::edit::for_each_operand_mut(&mut kind, &|v| {
                        if *v == op {
                            *v = z;
                        }
                    });
                    e.body_mut().insts[i].kind = kind;
                }
            })
        }
        Edit::ZeroColumn(k) => {
            let mut z = c.clone();
            let zero = match c.columns[*k].first() {
                Some(InputScalar::Float(_)) => InputScalar::Float(0.0),
                _ => InputScalar::Int(0),
            };
            z.columns[*k] = vec![zero; c.width];
            z
        }
        Edit::UniformColumn(k) => {
            let mut u = c.clone();
            u.columns[*k] = vec![c.columns[*k][0]; c.width];
            u
        }
        Edit::ZeroGlobals => {
            let mut g = c.clone();
            for (_, v) in &mut g.program.globals {
                v.iter_mut().for_each(|x| *x = 0);
            }
            g
        }
    }
}

/// A case's size for the search: instructions, blocks, lanes.
fn size(c: &Case) -> (usize, usize, usize) {
    (c.instructions(), c.blocks(), c.width)
}

/// The candidate printed and parsed again (numbering and names as a file
/// would have them), verified if asked; `None` if that fails.
fn reparse(mut c: Case, verified: bool) -> Option<Case> {
    let name = c.module().functions[c.func()].name.clone();
    let text = print_module(c.module());
    let (module, spans) = parse_module(&text).ok()?;
    if verified && !verify_module(&module, &spans).errors.is_empty() {
        return None;
    }
    c.program.func = module.function_by_name(&name)?;
    c.program.module = module;
    Some(c)
}

/// Fewer lanes: 1, 2, half, one less (each below the current width).
fn lane_edits(c: &Case) -> Vec<Edit> {
    let w = c.width;
    let mut widths: Vec<usize> = vec![1, 2, w / 2, w.saturating_sub(1)];
    widths.retain(|&n| n >= 1 && n < w);
    widths.dedup();
    widths.into_iter().map(Edit::Lanes).collect()
}

/// The case with its body edited by `edit` (on a fresh editor), then unreachable
/// blocks removed and phis fixed.
fn edited(c: &Case, edit: impl FnOnce(&mut Editor)) -> Case {
    let mut e = Editor::new(c.module(), c.func());
    edit(&mut e);
    tidy(&mut e);
    let mut out = c.clone();
    out.program.module = e.finish();
    out
}

/// Removes blocks the entry does not reach and phi arms from blocks that are no
/// longer predecessors; a phi left without arms is replaced by zero.
fn tidy(e: &mut Editor) {
    let Some(entry) = e.body().entry() else {
        return;
    };
    let mut reached: HashSet<Block> = HashSet::from([entry]);
    let mut stack = vec![entry];
    while let Some(b) = stack.pop() {
        for s in e.body().blocks[b].term.successors() {
            if reached.insert(s) {
                stack.push(s);
            }
        }
    }
    e.body_mut().layout.retain(|b| reached.contains(b));
    let preds = e.predecessors();
    let mut gone: HashMap<Value, Value> = HashMap::new();
    for b in e.body().layout.clone() {
        let phis = e.body().blocks[b].phis.clone();
        let mut keep = Vec::new();
        for i in phis {
            let my_preds: HashSet<Block> = preds.get(&b).into_iter().flatten().copied().collect();
            let empty = match &mut e.body_mut().insts[i].kind {
                InstKind::Phi { incoming, .. } => {
                    incoming.retain(|(_, p)| my_preds.contains(p));
                    incoming.is_empty()
                }
                _ => false,
            };
            if empty {
                if let Some(r) = e.body().insts[i].result
                    && let Some(z) = zero(e, r)
                {
                    gone.insert(r, z);
                }
            } else {
                keep.push(i);
            }
        }
        e.body_mut().blocks[b].phis = keep;
    }
    e.replace_uses(&gone);
}

/// A zero constant of `v`'s type (0, 0.0, null), or `None` for other types.
fn zero(e: &mut Editor, v: Value) -> Option<Value> {
    let ty = e.ty(v);
    let c = match e.types().get(ty) {
        TypeData::Int(_) => ConstData::Int(0u32.into()),
        TypeData::F32 | TypeData::F64 => ConstData::Float(0),
        TypeData::Ptr(_) => ConstData::Null,
        _ => return None,
    };
    Some(e.body_mut().add_const(ty, c))
}

/// Fewer blocks: branches made unconditional, blocks bypassed.
fn block_edits(c: &Case) -> Vec<Edit> {
    let Some(body) = c.module().functions[c.func()].body.as_ref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &b in &body.layout {
        if body.blocks[b].term.is_branch_on_value() {
            let mut seen = HashSet::new();
            for s in body.blocks[b].term.successors() {
                if seen.insert(s) {
                    out.push(Edit::Branch(b, s));
                }
            }
        }
    }
    for &b in body.layout.iter().skip(1) {
        let Terminator::Br(s) = body.blocks[b].term else {
            continue;
        };
        if s != b && body.blocks[b].phis.is_empty() {
            out.push(Edit::Bypass(b, s));
        }
    }
    let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
    for &p in &body.layout {
        for s in body.blocks[p].term.successors() {
            preds.entry(s).or_default().push(p);
        }
    }
    for &p in &body.layout {
        let Terminator::Br(b) = body.blocks[p].term else {
            continue;
        };
        let only_from_p = preds.get(&b).is_some_and(|ps| ps.as_slice() == [p]);
        let same_predicate = body.blocks[p].predicate == body.blocks[b].predicate;
        let loops_to_itself = body.blocks[b].term.successors().contains(&b);
        if b != p
            && only_from_p
            && same_predicate
            && !loops_to_itself
            && body.blocks[b].phis.is_empty()
        {
            out.push(Edit::Merge(p, b));
        }
    }
    out
}

/// Moves `b`'s commands and terminator to the end of `p` (its one
/// predecessor, which branches only to it); `b`'s successors' phis take from
/// `p` what they took from `b`, and `b`, unreached, goes.
fn merge(e: &mut Editor, p: Block, b: Block) {
    let body = e.body_mut();
    let commands = std::mem::take(&mut body.blocks[b].body);
    body.blocks[p].body.extend(commands);
    let term = std::mem::replace(&mut body.blocks[b].term, Terminator::Unreachable);
    let successors = term.successors();
    body.blocks[p].term = term;
    for s in successors {
        e.rename_incoming(s, b, p);
    }
}

/// Sends every predecessor of `b` to `s` instead; `s`'s phis take, from each
/// of them, what they took from `b`.
fn bypass(e: &mut Editor, b: Block, s: Block) {
    let preds: Vec<Block> = e.predecessors().get(&b).cloned().unwrap_or_default();
    for &p in &preds {
        e.retarget(p, b, s);
    }
    for i in e.body().blocks[s].phis.clone() {
        if let InstKind::Phi { incoming, .. } = &mut e.body_mut().insts[i].kind {
            let from_b: Vec<Value> = incoming
                .iter()
                .filter(|(_, p)| *p == b)
                .map(|(v, _)| *v)
                .collect();
            incoming.retain(|(_, p)| *p != b);
            if let Some(&v) = from_b.first() {
                for &p in &preds {
                    if !incoming.iter().any(|(_, q)| *q == p) {
                        incoming.push((v, p));
                    }
                }
            }
        }
    }
}

/// Every phi and command of the body, in layout order.
fn all_insts(c: &Case) -> Vec<(Block, Inst)> {
    let Some(body) = c.module().functions[c.func()].body.as_ref() else {
        return Vec::new();
    };
    body.layout
        .iter()
        .flat_map(|&b| {
            let data = &body.blocks[b];
            data.phis
                .iter()
                .chain(&data.body)
                .map(move |&i| (b, i))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Removes `insts`, each use of a result replaced by `image(result)`.
fn remove_insts(
    c: &Case,
    insts: &[(Block, Inst)],
    image: impl Fn(&mut Editor, Inst, Value) -> Option<Value>,
) -> Case {
    edited(c, |e| {
        let mut map = HashMap::new();
        for &(_, i) in insts {
            if let Some(r) = e.body().insts[i].result {
                match image(e, i, r) {
                    Some(v) => {
                        map.insert(r, v);
                    }
                    None => {
                        let ty = e.ty(r);
                        let u = e.undef(ty);
                        map.insert(r, u);
                    }
                }
            }
        }
        let doomed: HashSet<Inst> = insts.iter().map(|&(_, i)| i).collect();
        for &(b, _) in insts {
            let data = &mut e.body_mut().blocks[b];
            data.phis.retain(|i| !doomed.contains(i));
            data.body.retain(|i| !doomed.contains(i));
        }
        e.replace_uses(&map);
    })
}

/// Fewer instructions: chunks (ddmin), then single ones with several images.
fn inst_edits(c: &Case) -> Vec<Edit> {
    let insts = all_insts(c);
    let mut out = Vec::new();
    let mut chunk = insts.len() / 2;
    while chunk >= 2 {
        for part in insts.chunks(chunk) {
            out.push(Edit::Remove(part.to_vec()));
        }
        chunk /= 2;
    }
    let body = c.module().functions[c.func()].body.as_ref();
    for &(b, i) in insts.iter().rev() {
        out.push(Edit::Remove(vec![(b, i)]));
        for op in body
            .map(|body| body.insts[i].kind.operands())
            .unwrap_or_default()
        {
            out.push(Edit::RemoveFor(b, i, op));
        }
        out.push(Edit::RemoveUndef(b, i));
    }
    out
}

/// Simpler operands: one non-constant operand of one command made zero.
fn operand_edits(c: &Case) -> Vec<Edit> {
    let Some(body) = c.module().functions[c.func()].body.as_ref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (_, i) in all_insts(c) {
        if matches!(body.insts[i].kind, InstKind::Phi { .. }) {
            continue;
        }
        for op in body.insts[i].kind.operands() {
            if body.as_const(op).is_none() {
                out.push(Edit::ZeroOperand(i, op));
            }
        }
    }
    out
}

/// Simpler inputs: a column all zero or uniform; the globals zero.
fn input_edits(c: &Case) -> Vec<Edit> {
    let mut out = Vec::new();
    for (k, col) in c.columns.iter().enumerate() {
        let zero = match col.first() {
            Some(InputScalar::Float(_)) => InputScalar::Float(0.0),
            _ => InputScalar::Int(0),
        };
        let kind = c.program.args[k].kind;
        if col.iter().any(|v| *v != zero) && kind != crate::ArgKind::ThreadId {
            out.push(Edit::ZeroColumn(k));
        }
        if col.iter().any(|v| *v != col[0]) && kind == crate::ArgKind::PerLane {
            out.push(Edit::UniformColumn(k));
        }
    }
    if c.program
        .globals
        .iter()
        .any(|(_, v)| v.iter().any(|&x| x != 0))
    {
        out.push(Edit::ZeroGlobals);
    }
    out
}
