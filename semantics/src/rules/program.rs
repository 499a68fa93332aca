//! The program a thread array executes: one function body plus the facts the rules
//! look up (CFG edges `E`, the function map θ resolved per call, types).
//!
//! Def. 1 says a P-LLVM program is a block list plus a function map θ. [`Program`]
//! bundles the body with θ already resolved for every call site, so the rules look
//! up `θ(fnc)` in O(1), and with the successor lists of every block (`E`).

use crate::entity::SecondaryMap;
use crate::ir::{Block, Body, FuncId, FunctionData, Inst, InstKind, Module, Value, ValueDef};
use crate::theta::{self, Builtin};
use crate::types::{Ty, TypeData, TypeTable};

/// A function body ready to execute.
#[derive(Debug)]
pub struct Program<'m> {
    /// The module (types, globals, callees).
    pub module: &'m Module,
    /// The executed function.
    pub func: FuncId,
    /// Its body.
    pub body: &'m Body,
    /// `E`: successors of each block in successor-index order.
    pub succs: SecondaryMap<Block, Vec<Block>>,
    /// `θ(fnc)` for each call instruction; `None` for a declared external
    /// function θ does not define (a call to it is undefined behaviour when a
    /// lane executes it, [`crate::rules::cmd::w_cmd_call`]).
    pub callees: SecondaryMap<Inst, Option<Builtin>>,
    /// For a block whose predicate is defined by one of its own commands, the
    /// position of that command in `BlockData::body` (see [`crate::rules::step::bls_w_step`]).
    pub predicate_def_pos: SecondaryMap<Block, Option<usize>>,
    /// The position of each block in `Body::layout` (`None` for a block not laid out).
    pub layout_pos: SecondaryMap<Block, Option<usize>>,
    /// Where this thread array sits in a launch of many (docs/launch.md): what
    /// `thread_id`, `group_id` and `group_size` give (default: the array alone).
    pub launch: theta::LaunchPosition,
}

/// Why a function cannot be executed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProgramError {
    /// The function is only declared.
    NoBody(String),
}

impl std::fmt::Display for ProgramError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProgramError::NoBody(n) => write!(f, "function @{n} has no body to execute"),
        }
    }
}

impl<'m> Program<'m> {
    /// Prepares `func` of `module` for execution.
    pub fn new(module: &'m Module, func: FuncId) -> Result<Self, ProgramError> {
        let data: &FunctionData = &module.functions[func];
        let body = data
            .body
            .as_ref()
            .ok_or_else(|| ProgramError::NoBody(data.name.clone()))?;
        let mut succs = SecondaryMap::with_default(Vec::new());
        let mut callees = SecondaryMap::with_default(None);
        let mut predicate_def_pos = SecondaryMap::with_default(None);
        for (block, bd) in body.blocks.iter() {
            succs[block] = bd.term.successors();
            for &inst in &bd.body {
                if let InstKind::Call { callee, .. } = &body.insts[inst].kind {
                    callees[inst] = theta::resolve(&module.functions[*callee].name);
                }
            }
            if let Some(ValueDef::Inst(def)) = bd.predicate.map(|p| &body.values[p].def) {
                predicate_def_pos[block] = bd.body.iter().position(|i| i == def);
            }
        }
        let mut layout_pos = SecondaryMap::with_default(None);
        for (pos, &block) in body.layout.iter().enumerate() {
            if layout_pos[block].is_none() {
                layout_pos[block] = Some(pos);
            }
        }
        Ok(Program {
            module,
            func,
            body,
            succs,
            callees,
            predicate_def_pos,
            layout_pos,
            launch: theta::LaunchPosition::default(),
        })
    }

    /// The type table.
    pub fn types(&self) -> &'m TypeTable {
        &self.module.types
    }

    /// What the type of `value` is.
    pub fn type_of(&self, value: Value) -> &'m TypeData {
        self.module.types.get(self.body.values[value].ty)
    }

    /// The type handle of `value`.
    pub fn ty(&self, value: Value) -> Ty {
        self.body.values[value].ty
    }

    /// The `i`-th successor of `block`: `(ℓ, i, ℓ') ∈ E`.
    pub fn successor(&self, block: Block, i: u32) -> Option<Block> {
        self.succs[block].get(i as usize).copied()
    }

    /// Whether `(from, i, to) ∈ E` for some `i ∈ ℕ`.
    pub fn has_edge(&self, from: Block, to: Block) -> bool {
        self.succs[from].contains(&to)
    }

    /// The label of `block`, for messages.
    pub fn block_name(&self, block: Block) -> &'m str {
        &self.body.blocks[block].name
    }

    /// `%name` of a value, or its constant text, for messages.
    pub fn value_name(&self, value: Value) -> String {
        match self.body.value_name(value) {
            Some(n) => format!("%{n}"),
            None => format!("{value:?}"),
        }
    }
}
