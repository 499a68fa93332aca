//! Helpers for the unit tests of this crate: parse a test program, build a body from
//! a compact CFG description, name blocks.

use crate::skeleton::skeleton_text;
use pllvm_semantics::ir::{Block, Body};

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
