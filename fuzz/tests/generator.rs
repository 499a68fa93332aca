//! The random program generator (`pllvm_fuzz::generate`): reproducible from its
//! seed, every program well-formed (thesis §4.10, checked by the verifier and by an
//! independent dominance check here), irreducible CFGs exactly when asked for
//! (§2.4), and every feature knob produces its feature.

use pllvm_fuzz::{GenConfig, Generated, generate};
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::{Body, InstKind, Terminator, Value, ValueDef};
use pllvm_semantics::verify::verify_module;
use std::collections::HashMap;

const SEEDS: u64 = 500;

fn configs() -> Vec<(&'static str, GenConfig)> {
    vec![
        ("small", GenConfig::small()),
        ("full", GenConfig::full()),
        ("lane_local", GenConfig::lane_local()),
        ("reducible", GenConfig::reducible()),
        ("plain", GenConfig::plain()),
    ]
}

fn body(g: &Generated) -> &Body {
    g.module.functions[g.func]
        .body
        .as_ref()
        .expect("the generated function has a body")
}

#[test]
fn same_seed_same_module() {
    for (name, cfg) in configs() {
        for seed in 0..SEEDS {
            let a = generate(seed, &cfg);
            let b = generate(seed, &cfg);
            assert_eq!(a, b, "{name}: seed {seed} is not reproducible");
        }
        assert_ne!(
            generate(1, &cfg).module,
            generate(2, &cfg).module,
            "{name}: different seeds gave one program"
        );
    }
}

#[test]
fn every_program_verifies() {
    for (name, cfg) in configs() {
        for seed in 0..SEEDS {
            let g = generate(seed, &cfg);
            let report = verify_module(&g.module, &SourceMap::default());
            let messages: Vec<&str> = report.errors.iter().map(|d| d.message.as_str()).collect();
            assert!(messages.is_empty(), "{name}: seed {seed}: {messages:?}");
        }
    }
}

/// Where `v` is defined: `(block, position)`, phis before commands; `None` for
/// parameters and constants.
fn def_sites(body: &Body) -> HashMap<Value, (u32, usize)> {
    let mut sites = HashMap::new();
    for &block in &body.layout {
        let data = &body.blocks[block];
        for (pos, &inst) in data.phis.iter().chain(&data.body).enumerate() {
            if let Some(v) = body.insts[inst].result {
                sites.insert(v, (block.as_u32(), pos));
            }
        }
    }
    sites
}

/// SSA dominance checked here independently of the verifier: every command's
/// operand is defined earlier in its block or in a dominating block; a phi's
/// incoming value dominates the end of its incoming block; a shadow operand
/// strictly dominates the phi's block; a block predicate is defined in a strict
/// dominator or by a `total` command preceded only by `total` commands (Def. 11.1).
#[test]
fn definitions_dominate_uses() {
    for (name, cfg) in configs() {
        for seed in 0..SEEDS {
            let g = generate(seed, &cfg);
            let body = body(&g);
            let cfg_graph = Cfg::new(body);
            let dom = cfg_graph.dominators();
            let sites = def_sites(body);
            let available_at = |v: Value, block: u32, pos: usize| -> bool {
                match body.values[v].def {
                    ValueDef::Param(_) | ValueDef::Const(_) => true,
                    ValueDef::Inst(_) => match sites.get(&v) {
                        None => false,
                        Some(&(b, p)) if b == block => p < pos,
                        Some(&(b, _)) => dom.strictly_dominates(
                            pllvm_semantics::ir::Block::from_u32(b),
                            pllvm_semantics::ir::Block::from_u32(block),
                        ),
                    },
                }
            };
            for &block in &body.layout {
                let data = &body.blocks[block];
                let n_phis = data.phis.len();
                for (pos, &inst) in data.phis.iter().chain(&data.body).enumerate() {
                    match &body.insts[inst].kind {
                        InstKind::Phi {
                            incoming, shadow, ..
                        } => {
                            for &(v, pred) in incoming {
                                let end =
                                    body.blocks[pred].phis.len() + body.blocks[pred].body.len();
                                assert!(
                                    available_at(v, pred.as_u32(), end),
                                    "{name}: seed {seed}: phi in {} takes {v:?} from {}",
                                    data.name,
                                    body.blocks[pred].name
                                );
                            }
                            if let Some(s) = shadow {
                                assert!(
                                    available_at(*s, block.as_u32(), 0),
                                    "{name}: seed {seed}: shadow {s:?} in {}",
                                    data.name
                                );
                            }
                        }
                        kind => {
                            for v in kind.operands() {
                                assert!(
                                    available_at(v, block.as_u32(), pos),
                                    "{name}: seed {seed}: {v:?} used in {} before its definition",
                                    data.name
                                );
                            }
                        }
                    }
                }
                for v in data.term.operands() {
                    assert!(
                        available_at(v, block.as_u32(), usize::MAX),
                        "{name}: seed {seed}: terminator of {}",
                        data.name
                    );
                }
                if let Some(p) = data.predicate {
                    let own = data
                        .body
                        .iter()
                        .position(|&i| body.insts[i].result == Some(p));
                    match own {
                        Some(at) => assert!(
                            data.body[..=at].iter().all(|&i| body.insts[i].total),
                            "{name}: seed {seed}: predicate of {} after a non-total command",
                            data.name
                        ),
                        None => assert!(
                            available_at(p, block.as_u32(), n_phis),
                            "{name}: seed {seed}: predicate of {} does not dominate it",
                            data.name
                        ),
                    }
                    assert!(
                        matches!(data.term, Terminator::Br(_)),
                        "{name}: seed {seed}: predicated block {} has several successors",
                        data.name
                    );
                }
            }
        }
    }
}

#[test]
fn irreducible_cfgs_exactly_when_asked() {
    for (name, cfg) in configs() {
        let mut irreducible = 0;
        for seed in 0..SEEDS {
            let g = generate(seed, &cfg);
            let reducible = Cfg::new(body(&g)).is_reducible();
            assert_eq!(
                reducible,
                g.stats.irreducible == 0,
                "{name}: seed {seed}: reducible = {reducible} but {} irreducible regions",
                g.stats.irreducible
            );
            if !reducible {
                irreducible += 1;
            }
        }
        if cfg.irreducible {
            assert!(
                irreducible >= SEEDS as usize / 10,
                "{name}: only {irreducible} irreducible CFGs"
            );
        } else {
            assert_eq!(irreducible, 0, "{name}: irreducible CFGs without the knob");
        }
    }
}

/// Occurrences of each feature in one program, read off the IR.
#[derive(Default, Debug)]
struct Census {
    switches: usize,
    predicates: usize,
    self_predicates: usize,
    shadow_phis: usize,
    totals: usize,
    masks: usize,
    horizontal: usize,
    thread_id_calls: usize,
    loads: usize,
    stores: usize,
    allocas: usize,
    float_ops: usize,
    wide_ints: usize,
    widths: std::collections::BTreeSet<u32>,
}

fn census(g: &Generated) -> Census {
    let body = body(g);
    let types = &g.module.types;
    let mut c = Census::default();
    for &block in &body.layout {
        let data = &body.blocks[block];
        if matches!(data.term, Terminator::Switch { .. }) {
            c.switches += 1;
        }
        if let Some(p) = data.predicate {
            c.predicates += 1;
            if data.body.iter().any(|&i| body.insts[i].result == Some(p)) {
                c.self_predicates += 1;
            }
        }
        for &inst in data.phis.iter().chain(&data.body) {
            let data = &body.insts[inst];
            if data.total {
                c.totals += 1;
            }
            match &data.kind {
                InstKind::Phi {
                    shadow: Some(_), ..
                } => c.shadow_phis += 1,
                InstKind::Mask => c.masks += 1,
                InstKind::Load { .. } => c.loads += 1,
                InstKind::Store { .. } => c.stores += 1,
                InstKind::Alloca { .. } => c.allocas += 1,
                InstKind::Binary { op, .. } if op.is_float() => c.float_ops += 1,
                InstKind::Call { callee, .. } => {
                    let name = &g.module.functions[*callee].name;
                    if name == "pllvm.thread_id" {
                        c.thread_id_calls += 1;
                    } else {
                        c.horizontal += 1;
                    }
                }
                _ => {}
            }
            let width = data.result.and_then(|v| types.int_width(body.values[v].ty));
            if let Some(w) = width {
                c.widths.insert(w);
                if w > 64 {
                    c.wide_ints += 1;
                }
            }
        }
    }
    c
}

#[test]
fn each_knob_produces_its_feature() {
    let mut on = Census::default();
    let mut stats = pllvm_fuzz::Stats::default();
    let full = GenConfig::full();
    for seed in 0..SEEDS {
        let g = generate(seed, &full);
        let c = census(&g);
        on.switches += c.switches;
        on.predicates += c.predicates;
        on.self_predicates += c.self_predicates;
        on.shadow_phis += c.shadow_phis;
        on.totals += c.totals;
        on.masks += c.masks;
        on.horizontal += c.horizontal;
        on.loads += c.loads;
        on.stores += c.stores;
        on.allocas += c.allocas;
        on.float_ops += c.float_ops;
        on.wide_ints += c.wide_ints;
        on.widths.extend(c.widths);
        let s = &g.stats;
        stats.loops += s.loops;
        stats.multi_exit_loops += s.multi_exit_loops;
        stats.nested_loops += s.nested_loops;
        stats.branch_on_tid += s.branch_on_tid;
        stats.branch_on_load += s.branch_on_load;
        stats.branch_on_uniform += s.branch_on_uniform;
        stats.branch_on_counter += s.branch_on_counter;
        stats.branch_on_value += s.branch_on_value;
        stats.divergent_bounds += s.divergent_bounds;
    }
    let floor = SEEDS as usize / 5;
    for (feature, count) in [
        ("switch", on.switches),
        ("block predicate", on.predicates),
        ("predicate defined in its block", on.self_predicates),
        ("shadow phi", on.shadow_phis),
        ("total", on.totals),
        ("mask()", on.masks),
        ("horizontal builtin", on.horizontal),
        ("load", on.loads),
        ("store", on.stores),
        ("alloca", on.allocas),
        ("float op", on.float_ops),
        ("integer wider than 64", on.wide_ints),
        ("loop", stats.loops),
        ("loop with several exits", stats.multi_exit_loops),
        ("nested loop", stats.nested_loops),
        ("branch on the thread id", stats.branch_on_tid),
        ("branch on loaded data", stats.branch_on_load),
        ("branch on a uniform argument", stats.branch_on_uniform),
        ("branch on a loop counter", stats.branch_on_counter),
        ("loop with a varying trip bound", stats.divergent_bounds),
    ] {
        assert!(
            count >= floor,
            "full: {feature} appears {count} times in {SEEDS} programs"
        );
    }
    assert!(
        on.widths.contains(&1) && on.widths.contains(&128) && on.widths.len() > 20,
        "widths {:?}",
        on.widths
    );

    // Switched off, a feature never appears.
    for seed in 0..SEEDS {
        let c = census(&generate(seed, &GenConfig::plain()));
        assert_eq!(
            (
                c.switches,
                c.predicates,
                c.shadow_phis,
                c.totals,
                c.masks,
                c.horizontal
            ),
            (0, 0, 0, 0, 0, 0),
            "plain: seed {seed}"
        );
        assert_eq!(
            (c.loads, c.stores, c.allocas, c.float_ops, c.wide_ints),
            (0, 0, 0, 0, 0),
            "plain: seed {seed}"
        );
        let lane_local = generate(seed, &GenConfig::lane_local());
        let c = census(&lane_local);
        assert_eq!(
            (c.masks, c.horizontal, c.thread_id_calls),
            (0, 0, 0),
            "lane_local: seed {seed}"
        );
        assert!(
            lane_local
                .args
                .iter()
                .any(|a| a.name == "tid" && a.kind == pllvm_fuzz::ArgKind::ThreadId)
        );
    }
}

#[test]
fn size_knob_bounds_the_cfg() {
    for seed in 0..SEEDS {
        let small = GenConfig::small();
        let g = generate(seed, &small);
        // Each statement checks the budget before it starts; one arm may overrun it
        // by the blocks of the statement in progress.
        assert!(
            body(&g).layout.len() <= small.max_blocks + 6,
            "seed {seed}: {} blocks",
            body(&g).layout.len()
        );
    }
}
