//! Step 1 of the reconverging route: irreducible cycles become natural loops.
//!
//! Cycles, entries and headers are those of LLVM's "Convergence and Uniformity"
//! (its cycle terminology, built by `pllvm_analysis::cycles`): an irreducible
//! cycle has several entries, blocks with a predecessor outside the cycle. The
//! construction is the one LLVM's FixIrreducible pass uses: a new block, the
//! *dispatch*, becomes the cycle's only entry. Every edge into an entry, from
//! outside the cycle or from inside it, is redirected to the dispatch, which
//! records the entry the edge went to in an entry-index phi and branches there.
//! The dispatch then dominates the cycle, and the edges from inside it are the
//! back edges of a natural loop headed by the dispatch (thesis §2.4). A cycle
//! nested in the fixed one is irreducible or not in the hierarchy recomputed
//! afterwards; cycles are fixed outermost first until none is left.
//!
//! # Why FREEZING behaviour is kept
//! A lane that took the edge `P → Eⱼ` now takes `P → dispatch → Eⱼ`: `P` gives
//! the entry-index phi the value `j` and the dispatch sends exactly the lanes
//! with index `j` to `Eⱼ`. The phis of `Eⱼ` read, through a phi of the dispatch,
//! the value the edge `P → Eⱼ` carried. So every lane runs the blocks of its
//! original path in the original order with the original values; the dispatch
//! has no side effect and defines only its own phis. Under FREEZING a lane's
//! values depend only on what that lane executed (a passive lane keeps its
//! registers, §3.6), so each lane computes what it computed before. Uses that a
//! definition inside the cycle no longer dominates (the dispatch opened paths no
//! lane takes) are repaired by SSA construction ([`super::repair`]).

use super::repair::{PASS, internal_error};
use super::repair::{predecessor_edges, repair_dominance};
use crate::edit::{Editor, set_successor};
use crate::error::TransformError;
use crate::prepare::body_of;
use pllvm_analysis::cycles::{Cycle, CycleInfo};
use pllvm_semantics::ir::{Block, FuncId, ICmpPred, InstKind, Module, Terminator, Value};
use pllvm_semantics::types::TypeTable;
use std::collections::HashMap;

/// Fixes every irreducible cycle of `func`, outermost first (see the module doc);
/// one note per cycle.
pub(super) fn natural_loops(
    module: &Module,
    func: FuncId,
    notes: &mut Vec<String>,
) -> Result<Module, TransformError> {
    let mut current = module.clone();
    // Each round fixes the irreducible cycles of the least depth (disjoint, so
    // one dispatch does not touch another cycle's entries); the cycles found
    // nested in them afterwards are smaller, so the rounds are bounded.
    let limit = body_of(module, func, PASS)?.layout.len() + 1;
    for _ in 0..limit {
        let body = body_of(&current, func, PASS)?;
        let info = CycleInfo::compute(body);
        let cycles = outermost_irreducible(&info);
        if cycles.is_empty() {
            return Ok(current);
        }
        let mut ed = Editor::new(&current, func);
        for cycle in &cycles {
            notes.push(dispatch_entries(&mut ed, cycle));
        }
        repair_dominance(&mut ed);
        current = ed.finish();
    }
    Err(internal_error(
        func,
        "irreducible cycles remain after as many rounds as there are blocks",
    ))
}

/// The irreducible cycles of the least depth among irreducible cycles.
fn outermost_irreducible(info: &CycleInfo) -> Vec<Cycle> {
    let irreducible: Vec<&Cycle> = info
        .ids()
        .map(|id| info.cycle(id))
        .filter(|c| !c.is_reducible())
        .collect();
    let Some(depth) = irreducible.iter().map(|c| c.depth).min() else {
        return Vec::new();
    };
    irreducible
        .into_iter()
        .filter(|c| c.depth == depth)
        .cloned()
        .collect()
}

/// One edge into the dispatch block.
struct DispatchArm {
    /// The block the edge comes from.
    from: Block,
    /// The entry index it gives the entry-index phi.
    index: Value,
    /// For each entry the edge leads to, the values the entry's phis take on it.
    values: HashMap<Block, Vec<Option<Value>>>,
}

/// LLVM's FixIrreducible construction for one cycle (see the module doc):
/// redirects every edge into an entry to a new dispatch block with an
/// entry-index phi and moves the entries' phis there; returns the note.
fn dispatch_entries(ed: &mut Editor, cycle: &Cycle) -> String {
    let entries: Vec<Block> = cycle.entries.iter().map(|&n| Block::from_u32(n)).collect();
    let index_of: HashMap<Block, u64> = entries
        .iter()
        .enumerate()
        .map(|(j, &e)| (e, j as u64))
        .collect();
    let Some(&header) = entries.first() else {
        return "a cycle without entries was left alone".to_string();
    };
    let dispatch = ed.new_block("irr.dispatch", Terminator::Unreachable);
    ed.place_before(dispatch, header);
    let preds = predecessor_edges(ed.body());
    // The value each entry's phi takes on the edge from `p` (its first arm for `p`).
    let arm_value = |ed: &Editor, phi_owner: Block, phi_index: usize, p: Block| -> Option<Value> {
        let inst = ed.body().blocks[phi_owner].phis[phi_index];
        match &ed.body().insts[inst].kind {
            InstKind::Phi { incoming, .. } => {
                incoming.iter().find(|&&(_, b)| b == p).map(|&(v, _)| v)
            }
            _ => None,
        }
    };
    // Every predecessor block of an entry, each once, in layout order.
    let mut sources: Vec<Block> = Vec::new();
    for &e in &entries {
        for &p in preds.get(&e).map(Vec::as_slice).unwrap_or(&[]) {
            if !sources.contains(&p) {
                sources.push(p);
            }
        }
    }
    let position: HashMap<Block, usize> = ed
        .body()
        .layout
        .iter()
        .enumerate()
        .map(|(i, &b)| (b, i))
        .collect();
    sources.sort_by_key(|b| position.get(b).copied().unwrap_or(usize::MAX));
    let mut arms: Vec<DispatchArm> = Vec::new();
    for p in sources {
        for (from, index, targets) in redirect_source(ed, p, dispatch, &index_of) {
            let mut values = HashMap::new();
            for e in targets {
                let n = ed.body().blocks[e].phis.len();
                let vs = (0..n).map(|k| arm_value(ed, e, k, p)).collect();
                values.insert(e, vs);
            }
            arms.push(DispatchArm {
                from,
                index,
                values,
            });
        }
    }
    // The entry-index phi and, per phi of an entry, its dispatch phi.
    let index_arms: Vec<(Value, Block)> = arms.iter().map(|a| (a.index, a.from)).collect();
    let index = ed.phi(dispatch, TypeTable::I32, index_arms, None, "irr.entry");
    for &e in &entries {
        let phis = ed.body().blocks[e].phis.clone();
        for (k, phi) in phis.into_iter().enumerate() {
            let Some(result) = ed.body().insts[phi].result else {
                continue;
            };
            let ty = ed.ty(result);
            let undef = ed.undef(ty);
            let dispatch_arms: Vec<(Value, Block)> = arms
                .iter()
                .map(|a| {
                    let v = a
                        .values
                        .get(&e)
                        .and_then(|vs| vs.get(k).copied().flatten())
                        .unwrap_or(undef);
                    (v, a.from)
                })
                .collect();
            let stem = ed.stem(result);
            let moved = ed.phi(dispatch, ty, dispatch_arms, None, &stem);
            if let InstKind::Phi { incoming, .. } = &mut ed.body_mut().insts[phi].kind {
                *incoming = vec![(moved, dispatch)];
            }
        }
    }
    ed.body_mut().blocks[dispatch].term = dispatch_terminator(ed, dispatch, index, &entries);
    let names: Vec<String> = entries
        .iter()
        .map(|&e| format!("%{}", ed.block_name(e)))
        .collect();
    format!(
        "irreducible cycle of {} blocks with entries {} became a natural loop: %{} dispatches on the entry index %{}",
        cycle.nodes().len(),
        names.join(", "),
        ed.block_name(dispatch),
        ed.stem(index),
    )
}

/// Redirects the edges of `p` that go to an entry to `dispatch`. Returns one
/// `(block, entry index, entries)` per new edge into the dispatch: `p` itself
/// with a constant index when it has one edge into the entries; `p` with a
/// `select` on its condition when both edges of a conditional branch go to two
/// entries; and, for a `switch` with several edges into the entries, one new
/// block per such edge (so that every edge into the dispatch has a block of its
/// own and its own constant index).
fn redirect_source(
    ed: &mut Editor,
    p: Block,
    dispatch: Block,
    index_of: &HashMap<Block, u64>,
) -> Vec<(Block, Value, Vec<Block>)> {
    let term = ed.body().blocks[p].term.clone();
    let is_entry = |b: &Block| index_of.contains_key(b);
    let constant = |ed: &mut Editor, e: Block| {
        let j = index_of.get(&e).copied().unwrap_or(0);
        ed.const_int(TypeTable::I32, j)
    };
    match term {
        Terminator::Br(e) if is_entry(&e) => {
            ed.retarget(p, e, dispatch);
            let j = constant(ed, e);
            vec![(p, j, vec![e])]
        }
        Terminator::CondBr {
            cond,
            if_true,
            if_false,
        } => match (is_entry(&if_true), is_entry(&if_false)) {
            (true, true) if if_true != if_false => {
                let (jt, jf) = (constant(ed, if_true), constant(ed, if_false));
                let select = ed.select(p, TypeTable::I32, (cond, jt, jf), "irr.entry.from", false);
                ed.body_mut().blocks[p].term = Terminator::Br(dispatch);
                vec![(p, select, vec![if_true, if_false])]
            }
            (true, true) => {
                ed.body_mut().blocks[p].term = Terminator::Br(dispatch);
                let j = constant(ed, if_true);
                vec![(p, j, vec![if_true])]
            }
            (true, false) | (false, true) => {
                let e = if is_entry(&if_true) {
                    if_true
                } else {
                    if_false
                };
                ed.retarget(p, e, dispatch);
                let j = constant(ed, e);
                vec![(p, j, vec![e])]
            }
            (false, false) => Vec::new(),
        },
        Terminator::Switch { .. } => {
            let slots: Vec<Block> = ed.body().blocks[p].term.successors();
            let into: Vec<usize> = (0..slots.len()).filter(|&s| is_entry(&slots[s])).collect();
            if into.len() == 1 {
                let e = slots[into[0]];
                ed.retarget(p, e, dispatch);
                let j = constant(ed, e);
                return vec![(p, j, vec![e])];
            }
            let mut out = Vec::new();
            let mut anchor = p;
            for s in into {
                let e = slots[s];
                let stem = format!("{}.to.{}", ed.block_name(p), ed.block_name(e));
                let split = ed.new_block(&stem, Terminator::Br(dispatch));
                ed.place_after(split, anchor);
                anchor = split;
                set_successor(&mut ed.body_mut().blocks[p].term, s, split);
                let j = constant(ed, e);
                // The value the entry's phis take on this edge is their arm for
                // `p`, which the caller reads; the entries' phis are rebuilt.
                out.push((split, j, vec![e]));
            }
            out
        }
        _ => Vec::new(),
    }
}

/// The dispatch's branch on the entry index: `br (index == 0), E0, E1` for two
/// entries, a `switch` with the last entry as default for more.
fn dispatch_terminator(
    ed: &mut Editor,
    dispatch: Block,
    index: Value,
    entries: &[Block],
) -> Terminator {
    match entries {
        [] => Terminator::Unreachable,
        [only] => Terminator::Br(*only),
        [first, second] => {
            let zero = ed.const_int(TypeTable::I32, 0);
            let cond = ed.icmp(
                dispatch,
                ICmpPred::Eq,
                TypeTable::I32,
                (index, zero),
                "irr.to.first",
                false,
            );
            Terminator::CondBr {
                cond,
                if_true: *first,
                if_false: *second,
            }
        }
        [init @ .., last] => Terminator::Switch {
            ty: TypeTable::I32,
            cond: index,
            default: *last,
            cases: init
                .iter()
                .enumerate()
                .map(|(j, &e)| (num_bigint::BigUint::from(j as u64), e))
                .collect(),
        },
    }
}

#[cfg(test)]
mod tests {
    //! Step 1 alone: each input's CFG after the dispatch construction, derived
    //! by hand from the module doc, and the output verifies and is reducible.
    use super::natural_loops;
    use crate::shape::cfg_lines;
    use pllvm_semantics::cfg::Cfg;
    use pllvm_semantics::diag::SourceMap;
    use pllvm_semantics::text::{parse_module, print_module};
    use pllvm_semantics::verify::verify_module;

    fn check(src: &str, expect: &[&str]) {
        let (module, _) = parse_module(src).unwrap_or_else(|e| panic!("{e:?}"));
        let func = module
            .first_definition()
            .unwrap_or_else(|| panic!("no function"));
        let mut notes = Vec::new();
        let out = natural_loops(&module, func, &mut notes).unwrap_or_else(|e| panic!("{e}"));
        let printed = print_module(&out);
        let report = verify_module(&out, &SourceMap::default());
        assert!(report.is_ok(), "{:?}\n{printed}", report.errors);
        let body = out.functions[func]
            .body
            .as_ref()
            .unwrap_or_else(|| panic!("no body"));
        assert!(Cfg::new(body).is_reducible(), "{printed}");
        assert_eq!(cfg_lines(body), expect, "{printed}");
    }

    #[test]
    fn two_entries_one_dispatch() {
        // DFS: e, a, b: `a` is the header, `b` the second entry. `e` branches
        // to both, so it selects the index and jumps to the dispatch.
        check(
            "define i32 @f(i1 %c, i32 %v) {
e:
  br i1 %c, label %a, label %b
a:
  %x = phi i32 [ 1, %e ], [ %y, %b ]
  br label %b
b:
  %y = phi i32 [ 2, %e ], [ %x, %a ]
  br i1 %c, label %a, label %out
out:
  ret i32 %y
}",
            &[
                "e -> irr.dispatch",
                "irr.dispatch -> a, b",
                "a -> irr.dispatch",
                "b -> irr.dispatch, out",
                "out -> ret",
            ],
        );
    }

    #[test]
    fn switch_into_three_entries_gets_an_edge_block_per_entry() {
        // The switch has three edges into the entries a, b, c: each gets a
        // block of its own with a constant index; three entries dispatch on a
        // switch whose default is the last entry.
        check(
            "define i32 @f(i32 %k, i1 %p) {
e:
  switch i32 %k, label %a [ i32 1, label %b
                            i32 2, label %c ]
a:
  br label %b
b:
  br label %c
c:
  br i1 %p, label %a, label %x
x:
  ret i32 0
}",
            &[
                "e -> e.to.a, e.to.b, e.to.c",
                "e.to.a -> irr.dispatch",
                "e.to.b -> irr.dispatch",
                "e.to.c -> irr.dispatch",
                "irr.dispatch -> c, a, b",
                "a -> irr.dispatch",
                "b -> irr.dispatch",
                "c -> irr.dispatch, x",
                "x -> ret",
            ],
        );
    }
}
