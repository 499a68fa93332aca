//! The shape of a transform's output as text: one line per block in layout
//! order, `A -> B, C` (successors in successor-index order), `A [p] -> ...` when
//! the block has a predicate (Def. 7) other than `true`, `A -> ret` /
//! `A -> unreachable` for a block without successors. Corpus files state the
//! shape a transform promises with `; expect transform NAME cfg:` and `pllvm
//! transform --cfg` prints it.

use crate::prepare::is_true;
use pllvm_semantics::ir::{Body, Terminator};

/// The CFG of `body`, one line per block (see the module doc).
pub fn cfg_lines(body: &Body) -> Vec<String> {
    body.layout
        .iter()
        .map(|&b| {
            let data = &body.blocks[b];
            let predicated = data.predicate.is_some_and(|p| !is_true(body, p));
            let mark = if predicated { " [p]" } else { "" };
            let succs = match &data.term {
                Terminator::Ret(_) => "ret".to_string(),
                Terminator::Unreachable => "unreachable".to_string(),
                t => t
                    .successors()
                    .iter()
                    .map(|&s| body.blocks[s].name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            format!("{}{mark} -> {succs}", data.name)
        })
        .collect()
}
