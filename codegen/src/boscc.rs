//! The BOSCC gadget (thesis §9.2, Fig. 9.5-9.6): "branch on superword condition
//! code" built from plain P-LLVM before partial linearization.
//!
//! For a block `b` whose unique predecessor `a` reaches it over a divergent
//! branch `a → {b, c}`, the gadget splits `a` at its terminator (Fig. 9.5b): `a`
//! keeps its phis and commands (it is the thesis's `any(b)`) and ends in the
//! uniform branch `br i1 %any, label %a.boscc, label %c`, where
//! `%any = @pllvm.any(mask() ∧ cond(a→b))`; the new block `a.boscc` holds `a`'s
//! divergent branch. When no lane of `a` takes the edge to `b`, every lane goes
//! to `c` directly. Partial linearization keeps the `any` branch (Theorem 5: `a`
//! dominates both its edges, and the branch is uniform in `a`'s dominance region),
//! so the linearized program skips `b` and every block `b` dominates whenever
//! `b`'s mask is all false (Fig. 9.5c).
//!
//! The condition is masked with `mask()` (the activation of `a`, [W-CMD-MASK])
//! in a `total` `select`, because a horizontal builtin reads its argument in every
//! lane (Fig. 4.15), and lanes that do not run `a` hold stale or ⊤ values there.
//!
//! [`Policy`] says where gadgets go; the default [`Policy::Heuristic`] is
//! documented there.

use crate::edit::Editor;
use crate::error::{Site, TransformError};
use crate::pass::PassContext;
use crate::predicates::edge_condition;
use crate::prepare;
use pllvm_analysis::loops::LoopInfo;
use pllvm_analysis::result::Uniformity;
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::{Block, Body, FuncId, InstKind, Module, Terminator, Value};
use pllvm_semantics::types::TypeTable;
use std::collections::{HashMap, HashSet};

pub use crate::pass::Policy;

/// The number of commands from which a dominance region outside loops is worth
/// a gadget under [`Policy::Heuristic`].
pub const HEAVY_REGION: usize = 8;

/// One gadget to insert: the divergent branch in `a` guards the edge to `b`; `c`
/// is `a`'s other successor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Gadget {
    a: Block,
    b: Block,
    c: Block,
}

/// [§9.2] Inserts BOSCC gadgets into `func` where `cx.options.boscc` says.
pub fn insert_gadgets(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
) -> Result<(Module, Vec<String>), TransformError> {
    let pass = cx.pass.name();
    let loops = prepare::require_reducible(module, func, pass)?;
    prepare::require_unpredicated(module, func, pass)?;
    let body = prepare::body_of(module, func, pass)?;
    let policy = &cx.options.boscc;
    if *policy == Policy::None {
        return Ok((
            module.clone(),
            vec!["no BOSCC gadget (--boscc none)".into()],
        ));
    }
    let uniformity = cx.analyze(module, func)?;
    let gadgets = choose_gadgets(module, func, body, &loops, &uniformity, policy, pass)?;
    let mut ed = Editor::new(module, func);
    let mut notes = Vec::new();
    for g in &gadgets {
        notes.push(install_gadget(&mut ed, *g));
    }
    if notes.is_empty() {
        notes.push("no edge worth a BOSCC gadget".into());
    }
    Ok((ed.finish(), notes))
}

/// Why the edge into `b` cannot get a gadget, or the gadget (§9.2: `b` has the
/// unique predecessor `a`, whose branch to it is divergent).
fn eligibility(
    body: &Body,
    cfg: &Cfg,
    loops: &LoopInfo,
    uniformity: &Uniformity,
    b: Block,
) -> Result<Gadget, String> {
    let name = |x: Block| format!("%{}", body.blocks[x].name);
    let [a] = cfg.preds(b) else {
        return Err(format!(
            "{} has {} predecessor edges, not one",
            name(b),
            cfg.preds(b).len()
        ));
    };
    let a = *a;
    let Terminator::CondBr {
        if_true, if_false, ..
    } = body.blocks[a].term
    else {
        return Err(format!("{} does not end in a conditional branch", name(a)));
    };
    let c = if if_true == b { if_false } else { if_true };
    if c == b || a == b {
        return Err(format!("{} branches to {} on both edges", name(a), name(b)));
    }
    if !uniformity.terminators[a].is_varying() {
        return Err(format!("the branch in {} is uniform", name(a)));
    }
    let same_loop = loops.loop_of(a) == loops.loop_of(b) && loops.loop_of(a) == loops.loop_of(c);
    if !same_loop || loops.is_header(b) || loops.is_header(c) {
        return Err(format!("the edges of {} enter or leave a loop", name(a)));
    }
    Ok(Gadget { a, b, c })
}

/// The gadgets `policy` asks for, one per branch, in layout order.
fn choose_gadgets(
    module: &Module,
    func: FuncId,
    body: &Body,
    loops: &LoopInfo,
    uniformity: &Uniformity,
    policy: &Policy,
    pass: &'static str,
) -> Result<Vec<Gadget>, TransformError> {
    let cfg = Cfg::new(body);
    let mut chosen: Vec<Gadget> = Vec::new();
    let mut guarded: HashSet<Block> = HashSet::new();
    match policy {
        Policy::None => {}
        Policy::Blocks(names) => {
            for n in names {
                let b = body.block_by_name(n).ok_or_else(|| {
                    TransformError::new(
                        pass,
                        Site::Function(func),
                        format!(
                            "--boscc: @{} has no block %{n}",
                            module.functions[func].name
                        ),
                    )
                })?;
                let g = eligibility(body, &cfg, loops, uniformity, b)
                    .and_then(|g| {
                        if guarded.contains(&g.a) {
                            Err(format!(
                                "the branch in %{} already guards a block",
                                body.blocks[g.a].name
                            ))
                        } else {
                            Ok(g)
                        }
                    })
                    .map_err(|why| {
                        TransformError::new(
                            pass,
                            Site::Block(func, b),
                            format!("--boscc: %{n} cannot get a BOSCC gadget (thesis §9.2): {why}"),
                        )
                    })?;
                guarded.insert(g.a);
                chosen.push(g);
            }
        }
        Policy::All | Policy::Heuristic => {
            let heavy = match policy {
                Policy::Heuristic => Some(heavy_regions(module, body, &cfg, loops, uniformity)),
                _ => None,
            };
            for &b in &body.layout {
                let Ok(g) = eligibility(body, &cfg, loops, uniformity, b) else {
                    continue;
                };
                if guarded.contains(&g.a) || heavy.as_ref().is_some_and(|h| !h.contains(&b)) {
                    continue;
                }
                guarded.insert(g.a);
                chosen.push(g);
            }
        }
    }
    Ok(chosen)
}

/// The blocks whose dominance region [`Policy::Heuristic`] finds worth skipping.
fn heavy_regions(
    module: &Module,
    body: &Body,
    cfg: &Cfg,
    loops: &LoopInfo,
    uniformity: &Uniformity,
) -> HashSet<Block> {
    let dom = cfg.dominators();
    // Own weight and heaviness of each block, then summed over the dominator tree
    // bottom up (children come after their parent in reverse postorder).
    let mut commands: HashMap<Block, usize> = HashMap::new();
    let mut costly: HashMap<Block, bool> = HashMap::new();
    let rpo = cfg.reverse_postorder();
    for &b in &rpo {
        let data = &body.blocks[b];
        let expensive = loops.is_header(b)
            || data.body.iter().any(|&i| match &body.insts[i].kind {
                InstKind::Load { .. } | InstKind::Store { .. } | InstKind::Alloca { .. } => true,
                InstKind::Call { callee, .. } => {
                    !module.functions[*callee].name.starts_with("pllvm.")
                }
                _ => false,
            });
        commands.insert(b, data.body.len());
        costly.insert(b, expensive);
    }
    for &b in rpo.iter().rev() {
        if let Some(parent) = dom.idom(b) {
            let n = commands.get(&b).copied().unwrap_or(0);
            let c = costly.get(&b).copied().unwrap_or(false);
            *commands.entry(parent).or_default() += n;
            *costly.entry(parent).or_default() |= c;
        }
    }
    rpo.into_iter()
        .filter(|&b| {
            let cascade =
                body.blocks[b].term.is_branch_on_value() && uniformity.terminators[b].is_varying();
            let heavy = commands.get(&b).is_some_and(|&n| n >= HEAVY_REGION);
            let in_loop = loops.loop_of(b).is_some();
            costly.get(&b).copied().unwrap_or(false) || (!in_loop && (heavy || cascade))
        })
        .collect()
}

/// Fig. 9.5b: `a` keeps its phis and commands and branches on `any` to the new
/// block `a.boscc`, which takes `a`'s divergent branch, or straight to `c`.
fn install_gadget(ed: &mut Editor, g: Gadget) -> String {
    let Gadget { a, b, c } = g;
    let divergent = ed.body().blocks[a].term.clone();
    let a_name = ed.block_name(a).to_string();
    let b_name = ed.block_name(b).to_string();
    let c_name = ed.block_name(c).to_string();
    let cond = match edge_condition(ed, a, &divergent, b) {
        Some(v) => v,
        None => ed.const_bool(true),
    };
    let mask = ed.append(
        a,
        InstKind::Mask,
        TypeTable::I1,
        &format!("{a_name}.mask"),
        false,
    );
    let guarded = ed.and_guarded(a, mask, cond, &format!("{a_name}.to.{b_name}.active"));
    let any = ed.call_builtin(
        a,
        "any",
        TypeTable::I1,
        &[(guarded, TypeTable::I1)],
        &format!("any.{b_name}"),
        true,
    );
    let split = ed.new_block(&format!("{a_name}.boscc"), divergent);
    ed.place_after(split, a);
    ed.body_mut().blocks[a].term = Terminator::CondBr {
        cond: any,
        if_true: split,
        if_false: c,
    };
    ed.rename_incoming(b, a, split);
    duplicate_incoming(ed, c, a, split);
    let split_name = ed.block_name(split).to_string();
    format!(
        "BOSCC gadget for %{b_name}: %{a_name} branches on %{} to %{split_name} (the divergent branch) or skips to %{c_name}",
        ed.stem(any)
    )
}

/// The phis of `block` get, for every arm from `from`, the same arm from `also`.
fn duplicate_incoming(ed: &mut Editor, block: Block, from: Block, also: Block) {
    for phi in ed.body().blocks[block].phis.clone() {
        if let InstKind::Phi { incoming, .. } = &mut ed.body_mut().insts[phi].kind {
            let extra: Vec<(Value, Block)> = incoming
                .iter()
                .filter(|&&(_, p)| p == from)
                .map(|&(v, _)| (v, also))
                .collect();
            incoming.extend(extra);
        }
    }
}
