//! Control divergence checked exhaustively over all small CFGs (thesis Ch. 7,
//! Theorem 2 and Listings 4-7; POPL'21 Def. 4.18 and Algorithm 1).
//!
//! Every CFG of up to `PLLVM_CFG_BLOCKS` blocks (default 5) whose blocks end in
//! `ret`, `br`, a two-way `br` or a three-way `switch` to distinct blocks, all
//! reachable from the entry, is enumerated by `pllvm_proofs::small_cfgs::for_each_cfg`
//! once per labelling in which the documented DFS (successors in ascending order)
//! visits the blocks in label order; every other labelling of the same graph is
//! isomorphic to one of these ([`generator_matches_brute_force_filter`] checks the
//! generator against a filter over all successor choices up to 4 blocks).
//!
//! Six blocks: there are 1,082,874 such labellings of 5 blocks (277,856
//! isomorphism classes) but 168,603,624 of 6 (25,707,235 classes; 24,837,549
//! labellings reducible with a branch). [`joins_agree_on_six_block_cfgs_up_to_isomorphism`]
//! checks all of them exhaustively under two restrictions: up to isomorphism
//! (entry fixed; one labelling per class), and every block reaches a `ret` (no
//! block is stuck in an infinite loop): 962,787 classes, about two minutes with the
//! workspace's test-profile opt-level 3 for this crate, `pllvm-analysis` and
//! `pllvm-semantics`. Six-block CFGs with blocks that cannot return get a seeded
//! sample (`joins_agree_with_disjoint_paths_on_sampled_six_block_cfgs`).
//!
//! The seeded sample draws `PLLVM_CFG_SAMPLES` (default 20,000) 6-block CFGs;
//! failures name the CFG as an
//! edge list (`0→1 0→2 1→3 2→3 3`); generated reducible programs get the same agreement check and the block
//! index and forward reachability properties.

use pllvm_analysis::CfgFacts;
use pllvm_analysis::disjoint::splits_joins;
use pllvm_analysis::head_rewired::HeadRewired;
use pllvm_analysis::joins::{PartialNode, global_joins, local_joins};
use pllvm_proofs::small_cfgs::{edge_list, for_each_cfg};
use pllvm_semantics::cfg::{Cfg, Graph, dfs};
use pllvm_semantics::ir::{Block, BlockData, Body, Terminator, Value, ValueData, ValueDef};
use pllvm_semantics::text::parse_module;
use pllvm_semantics::types::Ty;

/// The largest number of blocks enumerated.
fn max_blocks() -> usize {
    std::env::var("PLLVM_CFG_BLOCKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
}

/// Successor lists a block may have among `n` blocks: none, one, or two or three
/// distinct blocks in ascending order.
fn options(n: usize) -> Vec<Vec<u32>> {
    let n = n as u32;
    let mut all = vec![Vec::new()];
    all.extend((0..n).map(|a| vec![a]));
    for a in 0..n {
        for b in a + 1..n {
            all.push(vec![a, b]);
        }
    }
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                all.push(vec![a, b, c]);
            }
        }
    }
    all
}

/// Whether the documented DFS of the graph `choice` (successor lists from
/// `options`) visits every block, in label order: the brute-force filter that
/// [`for_each_cfg`] must agree with.
fn is_canonical(options: &[Vec<u32>], choice: &[usize]) -> bool {
    let n = choice.len();
    let mut visited = 0u32;
    let mut next_label = 0u32;
    // Stack of (node, next successor position); at most n deep.
    let mut stack = [(0u32, 0usize); 8];
    let mut depth = 0usize;
    visited |= 1;
    next_label += 1;
    stack[0] = (0, 0);
    depth += 1;
    while depth > 0 {
        let (node, at) = stack[depth - 1];
        let succs = &options[choice[node as usize]];
        match succs.get(at) {
            Some(&s) => {
                stack[depth - 1].1 += 1;
                if visited & (1 << s) == 0 {
                    if s != next_label {
                        return false;
                    }
                    visited |= 1 << s;
                    next_label += 1;
                    stack[depth] = (s, 0);
                    depth += 1;
                }
            }
            None => depth -= 1,
        }
    }
    next_label as usize == n
}

/// The types of `i1 %c` and `i32 %x`, taken from a parsed template.
fn param_types() -> (Ty, Ty) {
    let (module, _) = parse_module("define void @t(i1 %c, i32 %x) {\ne:\n  ret void\n}\n")
        .unwrap_or_else(|e| panic!("template: {e:?}"));
    let body = module
        .functions
        .values()
        .next()
        .and_then(|f| f.body.clone())
        .expect("body");
    let c = body.value_by_name("c").expect("%c");
    let x = body.value_by_name("x").expect("%x");
    (body.values[c].ty, body.values[x].ty)
}

/// A body whose CFG is `graph` (node `i` is `Block(i)`), built directly.
fn body_of(graph: &Graph, (i1, i32): (Ty, Ty)) -> Body {
    let mut body = Body::default();
    let param = |index: u32, ty: Ty, name: &str| ValueData {
        ty,
        name: Some(name.to_string()),
        def: ValueDef::Param(index),
    };
    let c: Value = body.values.push(param(0, i1, "c"));
    let x: Value = body.values.push(param(1, i32, "x"));
    for node in 0..graph.len() as u32 {
        let targets: Vec<Block> = graph
            .successors(node)
            .iter()
            .map(|&t| Block::from_u32(t))
            .collect();
        let term = match targets.as_slice() {
            [] => Terminator::Ret(None),
            [only] => Terminator::Br(*only),
            [yes, no] => Terminator::CondBr {
                cond: c,
                if_true: *yes,
                if_false: *no,
            },
            [default, cases @ ..] => Terminator::Switch {
                ty: i32,
                cond: x,
                default: *default,
                cases: cases
                    .iter()
                    .enumerate()
                    .map(|(k, &b)| ((k as u32 + 1).into(), b))
                    .collect(),
            },
        };
        let block = body.blocks.push(BlockData {
            name: format!("b{node}"),
            predicate: None,
            phis: Vec::new(),
            body: Vec::new(),
            term,
        });
        body.layout.push(block);
    }
    body
}

/// The CFG as an edge list, for failure messages.
fn edges(graph: &Graph) -> String {
    let succs: Vec<Vec<u32>> = (0..graph.len() as u32)
        .map(|b| graph.successors(b).to_vec())
        .collect();
    edge_list(&succs)
}

/// Every simple path of `graph` from `start` as (end, bit set of its nodes).
fn paths_from(graph: &Graph, start: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut stack = vec![(start, 1u32 << start)];
    while let Some((node, mask)) = stack.pop() {
        out.push((node, mask));
        for &s in graph.successors(node) {
            if mask & (1 << s) == 0 {
                stack.push((s, mask | (1 << s)));
            }
        }
    }
    out
}

/// The blocks `z` reached from two different `sources` by paths of `graph` that
/// share only `z` (and avoid `avoid`, the split itself), ascending.
fn brute_joins(graph: &Graph, sources: &[u32], avoid: Option<u32>) -> Vec<Block> {
    let avoid_mask = avoid.map_or(0, |a| 1u32 << a);
    let paths: Vec<Vec<(u32, u32)>> = sources
        .iter()
        .map(|&s| {
            paths_from(graph, s)
                .into_iter()
                .filter(|&(_, m)| m & avoid_mask == 0)
                .collect()
        })
        .collect();
    let mut joins = Vec::new();
    for z in 0..graph.len() as u32 {
        let found = (0..sources.len()).any(|i| {
            (i + 1..sources.len()).any(|j| {
                paths[i].iter().filter(|p| p.0 == z).any(|&(_, mi)| {
                    paths[j]
                        .iter()
                        .filter(|p| p.0 == z)
                        .any(|&(_, mj)| mi & mj == 1 << z)
                })
            })
        });
        if found {
            joins.push(Block::from_u32(z));
        }
    }
    joins
}

/// Tallies, so the test can say what it covered.
#[derive(Default, Debug)]
struct Counts {
    graphs: usize,
    reducible: usize,
    acyclic: usize,
    splits: usize,
    partitions: usize,
}

/// Theorem 2 and Lemma 5 for one partition on an acyclic CFG.
fn check_theorem_2(graph: &Graph, facts: &CfgFacts, split: Block, div: &[Block]) {
    let node = PartialNode::split(facts, split, div);
    let local = local_joins(facts, &node, None);
    // Paths from the split, first edge to q, as (q, end, mask).
    let mut paths: Vec<(u32, u32, u32)> = Vec::new();
    for &q in facts.cfg.succs(split) {
        for (end, mask) in paths_from(graph, q.as_u32()) {
            paths.push((q.as_u32(), end, mask));
        }
    }
    let reachable = |p: u32| paths.iter().any(|&(_, e, _)| e == p);
    for p in 0..graph.len() as u32 {
        // Lemma 5: DomMap[p] ≠ ⊥ iff a path split →⁺ p exists (acyclic case).
        assert_eq!(
            local.dom_map[Block::from_u32(p)].is_some(),
            reachable(p),
            "Lemma 5 at b{p}, split {split:?}, div {div:?}, CFG {}",
            edges(graph)
        );
    }
    for p in 0..graph.len() as u32 {
        for p2 in 0..graph.len() as u32 {
            let (Some(d), Some(d2)) = (
                local.dom_map[Block::from_u32(p)],
                local.dom_map[Block::from_u32(p2)],
            ) else {
                continue;
            };
            if p == p2 {
                continue;
            }
            let disjoint = paths.iter().filter(|t| t.1 == p).any(|&(q, _, m)| {
                paths.iter().filter(|t| t.1 == p2).any(|&(q2, _, m2)| {
                    m & m2 == 0
                        && (div.contains(&Block::from_u32(q)) || div.contains(&Block::from_u32(q2)))
                })
            });
            assert_eq!(
                d != d2,
                disjoint,
                "Theorem 2 for b{p} ({d:?}) and b{p2} ({d2:?}), split {split:?}, div {div:?}, CFG {}",
                edges(graph)
            );
        }
    }
}

/// All checks of the module doc on one graph.
fn check_graph(graph: &Graph, types: (Ty, Ty), counts: &mut Counts) {
    let n = graph.len();
    counts.graphs += 1;
    let body = body_of(graph, types);
    let Ok(facts) = CfgFacts::compute(&body) else {
        return;
    };
    counts.reducible += 1;
    let acyclic = facts.loops.is_empty();
    counts.acyclic += usize::from(acyclic);
    let star = HeadRewired::compute(&body, &facts.loops);
    let cfg: &Cfg = &facts.cfg;
    for split in (0..n as u32).map(Block::from_u32) {
        let mut succs: Vec<u32> = cfg.succs(split).iter().map(|b| b.as_u32()).collect();
        succs.sort_unstable();
        succs.dedup();
        if succs.len() < 2 || !cfg.reachable(split) {
            continue;
        }
        counts.splits += 1;
        // Def. 4.18 by enumeration on G⋆ vs labelDisj.
        let expect_star = brute_joins(star.graph(), &succs, None);
        let popl = splits_joins(&body, &star, split);
        assert_eq!(
            popl,
            expect_star,
            "labelDisj vs Def. 4.18, split {split:?}, CFG {}",
            edges(graph)
        );
        let joins = global_joins(&facts, split, cfg.succs(split));
        if acyclic {
            let expect = brute_joins(graph, &succs, Some(split.as_u32()));
            assert_eq!(
                joins.sync,
                expect,
                "global_joins vs disjoint paths, split {split:?}, CFG {}",
                edges(graph)
            );
            assert!(joins.temporal.is_empty());
            // Every non-empty set of divergent successors.
            for bits in 1u32..(1 << succs.len()) {
                let div: Vec<Block> = succs
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| bits & (1 << i) != 0)
                    .map(|(_, &s)| Block::from_u32(s))
                    .collect();
                counts.partitions += 1;
                check_theorem_2(graph, &facts, split, &div);
            }
        }
        let mut thesis: Vec<Block> = joins.sync.iter().chain(&joins.temporal).copied().collect();
        thesis.sort_unstable();
        thesis.dedup();
        assert_eq!(
            thesis,
            expect_star,
            "global_joins vs Def. 4.18, split {split:?}, CFG {}",
            edges(graph)
        );
    }
}

/// The DFS-simulating generator of `pllvm_proofs::small_cfgs` produces exactly the
/// labellings that survive the brute-force filter over all successor choices.
#[test]
fn generator_matches_brute_force_filter() {
    for n in 1..=4 {
        let options = options(n);
        let mut expect: Vec<Vec<Vec<u32>>> = Vec::new();
        let mut choice = vec![0usize; n];
        'odometer: loop {
            if is_canonical(&options, &choice) {
                expect.push(choice.iter().map(|&c| options[c].clone()).collect());
            }
            let mut position = 0;
            loop {
                if position == n {
                    break 'odometer;
                }
                choice[position] += 1;
                if choice[position] < options.len() {
                    break;
                }
                choice[position] = 0;
                position += 1;
            }
        }
        let mut got: Vec<Vec<Vec<u32>>> = Vec::new();
        for_each_cfg(n, &mut |succs| got.push(succs.to_vec()));
        expect.sort();
        got.sort();
        let total = got.len();
        got.dedup();
        assert_eq!(got.len(), total, "{n} blocks: a labelling produced twice");
        assert_eq!(got, expect, "{n} blocks");
        eprintln!("{n} blocks: {total} labellings");
    }
}

#[test]
fn joins_agree_with_disjoint_paths() {
    let types = param_types();
    let mut counts = Counts::default();
    for n in 2..=max_blocks() {
        for_each_cfg(n, &mut |succs| {
            check_graph(&Graph::from_succs(succs.to_vec()), types, &mut counts)
        });
    }
    eprintln!("exhaustive: {counts:?}");
    assert!(counts.acyclic > 0 && counts.reducible > counts.acyclic);
}

/// Every 6-block CFG up to isomorphism (entry fixed) that is reducible, has a
/// branch and whose every block reaches a `ret`, through the checks of
/// [`joins_agree_with_disjoint_paths`]. Each class is checked once, in the first
/// DFS-ordered labelling the generator produces.
///
/// Long mode (`PLLVM_LONG=1`) reads all 168,603,624 labellings (about three
/// minutes on two cores, most of it the isomorphism codes); the default reads
/// every 32nd labelling in the generator's order (the generator still walks all of
/// them, about a third of the default's time), which still meets many classes
/// (every class has several labellings) and keeps every check and assertion: a
/// class that breaks a check fails the test in whichever of its labellings is read.
#[test]
fn joins_agree_on_six_block_cfgs_up_to_isomorphism() {
    use pllvm_proofs::small_cfgs::{
        every_block_reaches_exit, is_reducible, isomorphism_code, relabellings,
    };
    let types = param_types();
    let relabel = relabellings(6);
    let mut seen = std::collections::HashSet::new();
    let mut labellings = 0usize;
    let mut counts = Counts::default();
    let stride = crate::test_cases(32, 1);
    for_each_cfg(6, &mut |succs| {
        labellings += 1;
        if !labellings.is_multiple_of(stride) {
            return;
        }
        if !succs.iter().any(|s| s.len() >= 2)
            || !every_block_reaches_exit(succs)
            || !is_reducible(succs)
            || !seen.insert(isomorphism_code(succs, &relabel))
        {
            return;
        }
        check_graph(&Graph::from_succs(succs.to_vec()), types, &mut counts);
    });
    eprintln!(
        "6 blocks: {labellings} labellings (every {stride}th read), {} classes checked: {counts:?}",
        seen.len()
    );
    assert_eq!(counts.graphs, counts.reducible, "{counts:?}");
    assert!(counts.acyclic > 0 && counts.reducible > counts.acyclic);
}

/// A seeded sample of 6-block CFGs (any labelling, self-loops allowed, blocks that
/// cannot return included, unlike the exhaustive 6-block test) gets the same
/// checks; `PLLVM_CFG_SAMPLES` sets how many graphs are drawn, else 5,000 by
/// default and 20,000 in the long mode (`PLLVM_LONG=1`): the default still
/// requires over 250 reducible graphs among its draws, with self-loops and blocks
/// that cannot return, the shapes the exhaustive test leaves out.
#[test]
fn joins_agree_with_disjoint_paths_on_sampled_six_block_cfgs() {
    use rand::{Rng, SeedableRng};
    if max_blocks() >= 6 {
        return;
    }
    let samples: usize = std::env::var("PLLVM_CFG_SAMPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(crate::test_cases(5_000, 20_000));
    let types = param_types();
    let options = options(6);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x6b10c5);
    let mut counts = Counts::default();
    for _ in 0..samples {
        let succs: Vec<Vec<u32>> = (0..6)
            .map(|_| options[rng.gen_range(0..options.len())].clone())
            .collect();
        let graph = Graph::from_succs(succs);
        if dfs(&graph, 0).preorder.len() == 6 {
            check_graph(&graph, types, &mut counts);
        }
    }
    eprintln!("sampled: {counts:?}");
    assert!(counts.reducible > samples / 20, "{counts:?}");
}

/// The block index (§2.5), forward reachability (Def. 16) and the agreement of
/// `global_joins` with Def. 4.18 on generated reducible programs, before and after
/// the loop normalizations: the index is topological without back edges, every
/// loop is an interval starting at its header, and every dominance region that
/// does not cross a loop boundary is an interval (the module doc of
/// `pllvm_analysis::block_index` shows why crossing regions cannot all be).
#[test]
fn cfg_facts_on_generated_programs() {
    let mut splits = 0usize;
    for seed in 0..300u64 {
        let g = pllvm_fuzz::generate(seed, &pllvm_fuzz::GenConfig::reducible());
        let Some(original) = g.module.functions[g.func].body.clone() else {
            panic!("seed {seed}: no body")
        };
        let mut normalized = original.clone();
        pllvm_analysis::normalize::normalize_loops(&mut normalized)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        for body in [&original, &normalized] {
            let facts = CfgFacts::compute(body).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            check_block_index(seed, body, &facts);
            check_forward_reach(seed, body, &facts);
            let star = HeadRewired::compute(body, &facts.loops);
            for &split in &body.layout {
                let mut succs = facts.cfg.succs(split).to_vec();
                succs.sort_unstable();
                succs.dedup();
                if succs.len() < 2 || !facts.cfg.reachable(split) {
                    continue;
                }
                splits += 1;
                let joins = global_joins(&facts, split, &succs);
                let mut thesis: Vec<Block> =
                    joins.sync.iter().chain(&joins.temporal).copied().collect();
                thesis.sort_unstable();
                thesis.dedup();
                assert_eq!(
                    thesis,
                    splits_joins(body, &star, split),
                    "seed {seed}, split {split:?}"
                );
            }
        }
    }
    assert!(splits > 1000, "only {splits} splits");
}

fn check_block_index(seed: u64, body: &Body, facts: &CfgFacts) {
    let index = &facts.index;
    let reachable: Vec<Block> = body
        .layout
        .iter()
        .copied()
        .filter(|&b| facts.cfg.reachable(b))
        .collect();
    for &x in &reachable {
        for &y in facts.cfg.succs(x) {
            if !facts.loops.is_back_edge(x, y) {
                assert!(
                    index.index(x) < index.index(y),
                    "seed {seed}: {x:?} → {y:?} not forward"
                );
            }
        }
    }
    let is_interval = |blocks: &[Block]| {
        index
            .span(blocks)
            .is_some_and(|(lo, hi)| (hi - lo + 1) as usize == blocks.len())
    };
    for l in facts.loops.loops() {
        assert!(
            is_interval(facts.loops.blocks(l)),
            "seed {seed}: loop {l:?} not compact"
        );
        assert_eq!(
            index.span(facts.loops.blocks(l)).map(|s| s.0),
            Some(index.index(facts.loops.header(l)))
        );
    }
    for &d in &reachable {
        let region: Vec<Block> = reachable
            .iter()
            .copied()
            .filter(|&b| facts.dom.dominates(d, b))
            .collect();
        let crosses = facts.loops.loops().any(|l| {
            let blocks = facts.loops.blocks(l);
            let inside = blocks.iter().filter(|b| region.contains(b)).count();
            inside > 0
                && inside < blocks.len()
                && !region.iter().all(|b| facts.loops.contains(l, *b))
        });
        if !crosses {
            assert!(
                is_interval(&region),
                "seed {seed}: dominance region of {d:?} not compact"
            );
        }
    }
}

fn check_forward_reach(seed: u64, body: &Body, facts: &CfgFacts) {
    for &a in &body.layout {
        if !facts.cfg.reachable(a) {
            continue;
        }
        // Blocks reachable from `a` by a non-empty path without back edges.
        let mut seen = vec![false; facts.cfg.len()];
        let mut work: Vec<Block> = facts
            .cfg
            .succs(a)
            .iter()
            .copied()
            .filter(|&s| !facts.loops.is_back_edge(a, s))
            .collect();
        while let Some(b) = work.pop() {
            if std::mem::replace(&mut seen[b.as_u32() as usize], true) {
                continue;
            }
            work.extend(
                facts
                    .cfg
                    .succs(b)
                    .iter()
                    .copied()
                    .filter(|&s| !facts.loops.is_back_edge(b, s)),
            );
        }
        for &z in &body.layout {
            assert_eq!(
                facts.reach.reaches(a, z),
                seen[z.as_u32() as usize],
                "seed {seed}: {a:?} fwd-reaches {z:?}"
            );
        }
    }
}
