//! The definite reaching definitions of POPL'21 §6 (Def. 6.4,
//! `pllvm_analysis::reaching_defs`) against what SSA already knows, and the
//! uniformity transformer v2 (Def. 6.6) with the data flow against the SSA
//! shortcut the `popl` analysis used before (`ReachingDefinitions::SsaDominance`):
//! - on generated programs (irreducible ones included: the data flow needs no
//!   loops), `rd p x` is the dominator-tree path from the block defining `x` down
//!   to `p` (for a parameter: `rt` and every dominator of `p`), and the definition
//!   of every used value reaches the use;
//! - on generated reducible programs, as generated (uses outside the loop that
//!   defines them: not in LCSSA) and after `normalize::lcssa`, `popl` gives the
//!   same shape to every value, terminator, activation and stack object with
//!   either way of finding reaching definitions.

use pllvm_analysis::CfgFacts;
use pllvm_analysis::normalize::lcssa;
use pllvm_analysis::popl::{ReachingDefinitions, analyze_with};
use pllvm_analysis::reaching_defs::{Point, ReachingDefs};
use pllvm_analysis::result::Uniformity;
use pllvm_fuzz::{GenConfig, generate};
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::{Block, Body, InstKind, ValueDef};

fn small_reducible() -> GenConfig {
    GenConfig {
        irreducible: false,
        ..GenConfig::small()
    }
}

/// `rd` against the closed form of SSA, for every value and block; returns how
/// many (value, block) pairs were compared.
fn check_closed_form(body: &Body) -> Result<usize, String> {
    let cfg = Cfg::new(body);
    let dom = cfg.dominators();
    let rd = ReachingDefs::compute(body, &cfg);
    let name = |p: Point| match p {
        Point::Root => "rt".to_string(),
        Point::Block(b) => body.blocks[b].name.clone(),
    };
    let mut compared = 0;
    for (x, data) in body.values.iter() {
        if matches!(data.def, ValueDef::Const(_)) {
            continue;
        }
        let d = rd.def_block(x);
        for &p in &body.layout {
            if !cfg.reachable(p) {
                continue;
            }
            let expect: Vec<Point> = match d {
                None => std::iter::once(Point::Root)
                    .chain(
                        body.layout
                            .iter()
                            .filter(|&&q| dom.dominates(q, p))
                            .map(|&q| Point::Block(q)),
                    )
                    .collect(),
                Some(d) if dom.dominates(d, p) => body
                    .layout
                    .iter()
                    .filter(|&&q| dom.dominates(d, q) && dom.dominates(q, p))
                    .map(|&q| Point::Block(q))
                    .collect(),
                // Outside the dominance region the definition never reaches p
                // definitely; p itself always does.
                Some(d) => {
                    let got = rd.rd(Point::Block(p), x);
                    if got.contains(Point::Block(d)) || !got.contains(Point::Block(p)) {
                        return Err(format!(
                            "rd {} %{}: {:?}",
                            body.blocks[p].name,
                            body.value_name(x).unwrap_or("?"),
                            got.iter().map(name).collect::<Vec<_>>()
                        ));
                    }
                    compared += 1;
                    continue;
                }
            };
            let mut got: Vec<Point> = rd.rd(Point::Block(p), x).iter().collect();
            let mut expect = expect;
            got.sort();
            expect.sort();
            if got != expect {
                return Err(format!(
                    "rd {} %{}: data flow {:?}, dominator tree {:?}",
                    body.blocks[p].name,
                    body.value_name(x).unwrap_or("?"),
                    got.iter().map(|&q| name(q)).collect::<Vec<_>>(),
                    expect.iter().map(|&q| name(q)).collect::<Vec<_>>()
                ));
            }
            compared += 1;
        }
    }
    // Every use is reached definitely by its definition (Def. 6.2): a command of
    // p reads at point p, a phi's incoming value for q → p at point q.
    for &b in &body.layout {
        if !cfg.reachable(b) {
            continue;
        }
        let data = &body.blocks[b];
        let mut uses: Vec<(pllvm_semantics::ir::Value, Block)> = Vec::new();
        for &i in data.phis.iter().chain(&data.body) {
            match &body.insts[i].kind {
                InstKind::Phi { incoming, .. } => uses.extend(incoming.iter().copied()),
                kind => uses.extend(kind.operands().into_iter().map(|v| (v, b))),
            }
        }
        uses.extend(data.term.operands().into_iter().map(|v| (v, b)));
        for (v, at) in uses {
            if let Some(d) = rd.def_block(v)
                && cfg.reachable(at)
                && !rd.reaches(Point::Block(d), Point::Block(at), v)
            {
                return Err(format!(
                    "the definition of %{} in {} does not reach its use at {}",
                    body.value_name(v).unwrap_or("?"),
                    body.blocks[d].name,
                    body.blocks[at].name
                ));
            }
        }
    }
    Ok(compared)
}

#[test]
fn data_flow_is_the_dominator_tree_path_on_generated_programs() {
    let mut compared = 0;
    for (config, seeds) in [
        (GenConfig::small(), 0..1000u64),
        (GenConfig::full(), 0..400),
    ] {
        for seed in seeds {
            let g = generate(seed, &config);
            let Some(body) = g.module.functions[g.func].body.as_ref() else {
                continue;
            };
            compared += check_closed_form(body).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }
    eprintln!("{compared} (value, block) pairs compared");
    assert!(compared > 100_000, "only {compared} pairs");
}

/// Whether the two results give every entity the same shape; the first
/// difference otherwise.
fn same_shapes(body: &Body, a: &Uniformity, b: &Uniformity) -> Result<(), String> {
    for (v, _) in body.values.iter() {
        if a.values[v] != b.values[v] {
            return Err(format!(
                "%{}: data flow {}, shortcut {}",
                body.value_name(v).unwrap_or("?"),
                a.values[v],
                b.values[v]
            ));
        }
    }
    for &bl in &body.layout {
        if a.terminators[bl] != b.terminators[bl] || a.activation[bl] != b.activation[bl] {
            return Err(format!("block {}", body.blocks[bl].name));
        }
    }
    if a.allocas != b.allocas {
        return Err("stack objects".into());
    }
    Ok(())
}

/// Uses of a uniform value outside a loop that contains its definition (what
/// LCSSA forbids and what Def. 6.6's `lsplits` is about): `(uniform at the use,
/// varying at the use)` by the rule of Def. 6.6, where the use is varying when
/// an exit of such a loop reaches it without a back edge and is a join of a
/// varying split.
fn uses_leaving_a_loop(body: &Body, facts: &CfgFacts, r: &Uniformity) -> (usize, usize) {
    let rd = ReachingDefs::compute(body, &facts.cfg);
    let joins = |e: Block| r.sync_joins.contains(&e) || r.temporal_joins.contains(&e);
    let (mut kept, mut varying) = (0, 0);
    for &b in &body.layout {
        let data = &body.blocks[b];
        let mut uses = Vec::new();
        for &i in data.phis.iter().chain(&data.body) {
            match &body.insts[i].kind {
                InstKind::Phi { incoming, .. } => uses.extend(incoming.iter().copied()),
                kind => uses.extend(kind.operands().into_iter().map(|v| (v, b))),
            }
        }
        uses.extend(data.term.operands().into_iter().map(|v| (v, b)));
        for (v, at) in uses {
            let Some(d) = rd.def_block(v) else { continue };
            if !r.values[v].is_uniform() || d == at {
                continue;
            }
            let left: Vec<_> = facts
                .loops
                .ancestors(d)
                .into_iter()
                .filter(|&l| !facts.loops.contains(l, at))
                .collect();
            if left.is_empty() {
                continue;
            }
            let divergent_exit = left.iter().any(|&l| {
                facts
                    .loops
                    .exits(l)
                    .iter()
                    .any(|&e| (e == at || facts.reach.reaches(e, at)) && joins(e))
            });
            if divergent_exit {
                varying += 1;
            } else {
                kept += 1;
            }
        }
    }
    (kept, varying)
}

#[test]
fn popl_with_the_data_flow_agrees_with_the_ssa_shortcut() {
    let (mut programs, mut lcssa_phis) = (0, 0);
    // Per form (as generated, in LCSSA): programs with a uniform value used
    // outside a loop of its definition, and such uses kept uniform / made varying.
    let mut leaving = [(0usize, 0usize, 0usize); 2];
    for (config, seeds) in [
        (small_reducible(), 0..1500u64),
        (GenConfig::reducible(), 0..600),
    ] {
        for seed in seeds {
            let g = generate(seed, &config);
            let Some(body) = g.module.functions[g.func].body.as_ref() else {
                continue;
            };
            let init = g.init_shapes();
            let mut normalized = body.clone();
            let inserted = lcssa(&mut normalized)
                .unwrap_or_else(|e| panic!("seed {seed}: a reducible program: {e}"));
            lcssa_phis += inserted;
            for (form, (label, b)) in [("as generated", body), ("in LCSSA", &normalized)]
                .into_iter()
                .enumerate()
            {
                let facts = CfgFacts::compute(b).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
                let run = |how| analyze_with(&g.module, g.func, b, &facts, &init, how);
                let flow = run(ReachingDefinitions::DataFlow);
                let shortcut = run(ReachingDefinitions::SsaDominance);
                if let Err(e) = same_shapes(b, &flow, &shortcut) {
                    panic!(
                        "seed {seed} ({label}): {e}\n{}",
                        pllvm_semantics::text::print_module(&g.module)
                    );
                }
                let (kept, varying) = uses_leaving_a_loop(b, &facts, &flow);
                let entry = &mut leaving[form];
                entry.0 += usize::from(kept + varying > 0);
                entry.1 += kept;
                entry.2 += varying;
                programs += 1;
            }
        }
    }
    eprintln!(
        "{programs} analyses compared, {lcssa_phis} LCSSA phis inserted; uniform values used \
         outside a loop of their definition (programs, uses kept uniform, uses made varying): \
         as generated {:?}, in LCSSA {:?}",
        leaving[0], leaving[1]
    );
    assert!(programs == 4200, "{programs}");
    // The comparison covers the case §6 is about, both ways.
    assert!(
        leaving[0].0 > 200 && leaving[0].1 > 200 && leaving[0].2 > 50,
        "too few non-LCSSA uses: {:?}",
        leaving[0]
    );
}
