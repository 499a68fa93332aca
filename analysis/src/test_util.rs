//! Helpers for the unit tests of this crate: parse a test program, build a body from
//! a compact CFG description, name blocks.

use crate::skeleton::skeleton_text;
use pllvm_semantics::ir::{Block, Body};
use proptest::prelude::*;

/// Parses a module for unit tests and returns the body of its first definition.
pub(crate) fn test_body(src: &str) -> Body {
    let (module, _) = match pllvm_semantics::text::parse_module(src) {
        Ok(parsed) => parsed,
        Err(errors) => panic!("test program does not parse: {errors:?}"),
    };
    let func = module.first_definition().expect("a definition");
    module.functions[func].body.clone().expect("a body")
}

/// A body from a compact CFG description (tests): `"A: B C; B: D; C: D; D:"` lists
/// each block with its successors; the first block is the entry.
pub(crate) fn graph_body(spec: &str) -> Body {
    let entries: Vec<(String, Vec<String>)> = spec
        .split(';')
        .filter(|e| !e.trim().is_empty())
        .map(|entry| {
            let (name, targets) = entry.split_once(':').expect("`name: succs`");
            (
                name.trim().to_string(),
                targets.split_whitespace().map(str::to_string).collect(),
            )
        })
        .collect();
    let names: Vec<String> = entries.iter().map(|(n, _)| n.clone()).collect();
    let succs: Vec<Vec<usize>> = entries
        .iter()
        .map(|(_, targets)| {
            targets
                .iter()
                .map(|t| names.iter().position(|n| n == t).expect("known block"))
                .collect()
        })
        .collect();
    test_body(&skeleton_text(&names, &succs))
}

/// The block called `name` in `body` (tests).
pub(crate) fn blk(body: &Body, name: &str) -> Block {
    body.block_by_name(name)
        .unwrap_or_else(|| panic!("no block {name}"))
}

/// The names of `blocks` (tests).
pub(crate) fn names(body: &Body, blocks: impl IntoIterator<Item = Block>) -> Vec<String> {
    blocks
        .into_iter()
        .map(|b| body.blocks[b].name.clone())
        .collect()
}

/// `ifs D` and `loops D` of `scripts/nested-cfg.py` as graph specs.
pub(crate) fn nested_spec(kind: &str, depth: usize) -> String {
    let mut spec = String::new();
    if kind == "ifs" {
        spec.push_str("entry: i0;");
        for k in 0..depth {
            spec.push_str(&format!(" i{k}: i{} j{k};", k + 1));
        }
        spec.push_str(&format!(" i{depth}: j{};", depth - 1));
        for k in (0..depth).rev() {
            let next = if k == 0 {
                "exit".to_string()
            } else {
                format!("j{}", k - 1)
            };
            spec.push_str(&format!(" j{k}: {next};"));
        }
    } else {
        spec.push_str("entry: h0;");
        for k in 0..depth {
            let next = if k + 1 == depth {
                "body".to_string()
            } else {
                format!("h{}", k + 1)
            };
            spec.push_str(&format!(" h{k}: {next};"));
        }
        spec.push_str(&format!(" body: l{};", depth - 1));
        for k in (0..depth).rev() {
            let out = if k == 0 {
                "exit".to_string()
            } else {
                format!("l{}", k - 1)
            };
            spec.push_str(&format!(" l{k}: h{k} {out};"));
        }
    }
    spec.push_str(" exit:");
    spec
}

/// Structured control flow: blocks, sequences, ifs and loops (whose
/// latch branch exits), nested.
#[derive(Clone, Debug)]
pub(crate) enum Shape {
    Block,
    Seq(Box<Shape>, Box<Shape>),
    If(Box<Shape>, Box<Shape>),
    Loop(Box<Shape>),
}

fn arb_shape() -> impl Strategy<Value = Shape> {
    Just(Shape::Block).prop_recursive(5, 24, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Shape::Seq(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Shape::If(Box::new(a), Box::new(b))),
            inner.prop_map(|a| Shape::Loop(Box::new(a))),
        ]
    })
}

/// Adds the blocks of `shape` to `succs`: its entry and its exit (a block
/// whose successors are still to come). The entry is the first block added.
fn lower(shape: &Shape, succs: &mut Vec<Vec<u32>>) -> (u32, u32) {
    let new = |succs: &mut Vec<Vec<u32>>| {
        succs.push(Vec::new());
        (succs.len() - 1) as u32
    };
    match shape {
        Shape::Block => {
            let b = new(succs);
            (b, b)
        }
        Shape::Seq(a, b) => {
            let (ea, xa) = lower(a, succs);
            let (eb, xb) = lower(b, succs);
            succs[xa as usize].push(eb);
            (ea, xb)
        }
        Shape::If(a, b) => {
            let c = new(succs);
            let (ea, xa) = lower(a, succs);
            let (eb, xb) = lower(b, succs);
            let j = new(succs);
            succs[c as usize].extend([ea, eb]);
            succs[xa as usize].push(j);
            succs[xb as usize].push(j);
            (c, j)
        }
        Shape::Loop(a) => {
            let h = new(succs);
            let (ea, xa) = lower(a, succs);
            let latch = new(succs);
            let x = new(succs);
            succs[h as usize].push(ea);
            succs[xa as usize].push(latch);
            succs[latch as usize].extend([h, x]);
            (h, x)
        }
    }
}

/// Structured CFGs with up to three extra edges between random blocks:
/// early loop exits, side entries, irreducible cycles.
pub(crate) fn arb_structured() -> impl Strategy<Value = Vec<Vec<u32>>> {
    (
        arb_shape(),
        proptest::collection::vec((0u32..64, 0u32..64), 0..3),
    )
        .prop_map(|(shape, extra)| {
            let mut succs = Vec::new();
            lower(&shape, &mut succs);
            let n = succs.len() as u32;
            for (from, to) in extra {
                succs[(from % n) as usize].push(to % n);
            }
            succs
        })
}

/// Random CFGs: structured ones with a few extra edges, or unstructured.
pub(crate) fn arb_cfg() -> impl Strategy<Value = Vec<Vec<u32>>> {
    prop_oneof![arb_structured(), arb_unstructured()]
}

/// A random CFG as successor lists: mostly forward edges (a third of them to
/// one of the next three blocks), some to any block (back edges, and
/// irreducible cycles the tests skip or keep).
fn arb_unstructured() -> impl Strategy<Value = Vec<Vec<u32>>> {
    (2usize..16).prop_flat_map(|n| {
        proptest::collection::vec(proptest::collection::vec((0..n as u32, 0u8..4), 0..4), n)
            .prop_map(move |raw| {
                raw.into_iter()
                    .enumerate()
                    .map(|(i, targets)| {
                        targets
                            .into_iter()
                            .map(|(t, kind)| {
                                // Near forward edges make nested diamonds.
                                let ahead = (n - i - 1) as u32;
                                let near = ahead.min(if kind == 1 { 3 } else { ahead });
                                if kind > 0 && near > 0 {
                                    (i + 1) as u32 + t % near
                                } else {
                                    t
                                }
                            })
                            .collect()
                    })
                    .collect()
            })
    })
}

pub(crate) fn spec_of(succs: &[Vec<u32>]) -> String {
    succs
        .iter()
        .enumerate()
        .map(|(i, ts)| {
            let ts: Vec<String> = ts.iter().map(|t| format!("b{t}")).collect();
            format!("b{i}: {}", ts.join(" "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}
