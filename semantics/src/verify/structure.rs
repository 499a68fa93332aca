//! Structure and CFG shape (Def. 1): handles point into their arenas, the
//! entry block has no predecessors (LLVM rule), phis come before commands, and a
//! phi has one entry per predecessor edge.

use super::{FunctionChecker, Positions, VerifyError};
use crate::cfg::Cfg;
use crate::entity::SecondaryMap;
use crate::ir::{Block, ConstData, InstKind, Value, ValueDef};

impl FunctionChecker<'_> {
    /// Every handle points into its arena, each block is laid out once, each
    /// instruction placed once, and results and parameters point back to their
    /// definitions. Everything else relies on this, so a failure stops the function.
    pub(super) fn check_handles(&mut self) -> bool {
        let body = self.body;
        let mut problems: Vec<String> = Vec::new();
        // Dense tables over the arenas (handles are indices).
        let mut is_laid_out = vec![false; body.blocks.len()];
        let mut laid_out: Vec<Block> = Vec::with_capacity(body.layout.len());
        for &block in &body.layout {
            if !body.blocks.is_valid(block) {
                problems.push(format!("layout names missing {block:?}"));
            } else if std::mem::replace(&mut is_laid_out[block.as_u32() as usize], true) {
                problems.push(format!(
                    "block %{} is laid out twice",
                    body.blocks[block].name
                ));
            } else {
                laid_out.push(block);
            }
        }
        if laid_out.len() != body.blocks.len() {
            problems.push("some blocks are not in the layout".into());
        }
        let value_ok = |v: Value| body.values.is_valid(v);
        let block_ok = |b: Block| body.blocks.is_valid(b);
        let mut placed = vec![false; body.insts.len()];
        for &block in laid_out.iter() {
            let data = &body.blocks[block];
            if data.predicate.is_some_and(|p| !value_ok(p)) {
                problems.push(format!("predicate of %{} is a missing value", data.name));
            }
            if !data.term.successors().into_iter().all(block_ok) {
                problems.push(format!(
                    "terminator of %{} targets a missing block",
                    data.name
                ));
            }
            if !data.term.operands().into_iter().all(value_ok) {
                problems.push(format!("terminator of %{} uses a missing value", data.name));
            }
            for &inst in data.phis.iter().chain(&data.body) {
                let Some(inst_data) = body.insts.get(inst) else {
                    problems.push(format!("%{} holds missing {inst:?}", data.name));
                    continue;
                };
                if std::mem::replace(&mut placed[inst.as_u32() as usize], true) {
                    problems.push(format!("{inst:?} is placed twice"));
                }
                if !inst_data.kind.operands().into_iter().all(value_ok) {
                    problems.push(format!("{inst:?} uses a missing value"));
                }
                if let InstKind::Phi { incoming, .. } = &inst_data.kind
                    && !incoming.iter().all(|&(_, b)| block_ok(b))
                {
                    problems.push(format!("{inst:?} names a missing incoming block"));
                }
                if let InstKind::Call { callee, .. } = &inst_data.kind
                    && !self.module.functions.is_valid(*callee)
                {
                    problems.push(format!("{inst:?} calls a missing function"));
                }
                match inst_data.result {
                    Some(v) if !value_ok(v) => {
                        problems.push(format!("{inst:?} defines a missing value"))
                    }
                    Some(v) if body.values[v].def != ValueDef::Inst(inst) => problems.push(
                        format!("{inst:?} defines a value that names another definition"),
                    ),
                    _ => {}
                }
            }
        }
        for (index, param) in self.func.params.iter().enumerate() {
            if !value_ok(param.value)
                || body.values[param.value].def != ValueDef::Param(index as u32)
            {
                problems.push(format!("parameter {index} is not its value's definition"));
            }
        }
        for (_, value) in body.values.iter() {
            match &value.def {
                ValueDef::Const(ConstData::Global(g)) if !self.module.globals.is_valid(*g) => {
                    problems.push(format!("constant names missing {g:?}"))
                }
                ValueDef::Const(ConstData::Function(f)) if !self.module.functions.is_valid(*f) => {
                    problems.push(format!("constant names missing {f:?}"))
                }
                ValueDef::Inst(i) if !body.insts.is_valid(*i) => {
                    problems.push(format!("value defined by missing {i:?}"))
                }
                _ => {}
            }
        }
        problems.sort();
        problems.dedup();
        let ok = problems.is_empty();
        for what in problems {
            self.error(self.spans.header, VerifyError::Malformed { what });
        }
        ok
    }

    /// The block and position of every placed instruction.
    pub(super) fn positions(&self) -> Positions {
        let mut positions = SecondaryMap::with_default(None);
        for &block in &self.body.layout {
            let data = &self.body.blocks[block];
            for (index, &inst) in data.phis.iter().chain(&data.body).enumerate() {
                positions[inst] = Some((block, index));
            }
        }
        positions
    }

    /// LLVM: the entry block has no predecessors (so its phis could never resolve).
    pub(super) fn check_entry(&mut self, cfg: &Cfg) {
        let entry = cfg.entry();
        let mut preds: Vec<Block> = cfg.preds(entry).to_vec();
        preds.dedup();
        for pred in preds {
            self.error(
                self.spans.terms[pred],
                VerifyError::EntryHasPreds {
                    entry: self.block_text(entry),
                },
            );
        }
    }

    /// Phis come first (Def. 1): the phi list holds only phis, the command list none.
    pub(super) fn check_phi_order(&mut self, block: Block) {
        let data = &self.body.blocks[block];
        for &inst in &data.phis {
            let kind = &self.body.insts[inst].kind;
            if !kind.is_phi() {
                let error = VerifyError::CommandAmongPhis {
                    opcode: kind.opcode(),
                };
                self.error(self.spans.insts[inst], error);
            }
        }
        for &inst in &data.body {
            if self.body.insts[inst].kind.is_phi() {
                self.error(self.spans.insts[inst], VerifyError::PhiNotFirst);
            }
        }
    }

    /// A phi has one entry per predecessor edge, and entries for the same
    /// predecessor agree (LLVM's rule; thesis §2.2 assumes it).
    pub(super) fn check_phi_incoming(&mut self, cfg: &Cfg, block: Block) {
        // Sorted vectors, not maps: (predecessor, edge count) and, per phi, its
        // entries grouped by predecessor in block order (stable: the first entry
        // of a group stays first); names are formatted only for a message.
        let mut edges: Vec<(Block, usize)> = Vec::new();
        let mut preds: Vec<Block> = cfg.preds(block).to_vec();
        preds.sort_unstable();
        for pred in preds {
            match edges.last_mut() {
                Some((last, count)) if *last == pred => *count += 1,
                _ => edges.push((pred, 1)),
            }
        }
        let mut entries: Vec<(Block, Value)> = Vec::new();
        for &inst in &self.body.blocks[block].phis {
            let InstKind::Phi { incoming, .. } = &self.body.insts[inst].kind else {
                continue;
            };
            let span = self.spans.insts[inst];
            if incoming.is_empty() {
                self.error(span, VerifyError::PhiEmpty);
                continue;
            }
            entries.clear();
            entries.extend(incoming.iter().map(|&(value, pred)| (pred, value)));
            entries.sort_by_key(|&(pred, _)| pred);
            for group in entries.chunk_by(|a, b| a.0 == b.0) {
                let pred = group[0].0;
                let first = group[0].1;
                match edges.binary_search_by_key(&pred, |&(b, _)| b) {
                    Err(_) => self.error(
                        span,
                        VerifyError::PhiNotPred {
                            pred: self.block_text(pred),
                            block: self.block_text(block),
                        },
                    ),
                    Ok(at) if edges[at].1 != group.len() => self.error(
                        span,
                        VerifyError::PhiEdgeCount {
                            pred: self.block_text(pred),
                            block: self.block_text(block),
                            entries: group.len(),
                            edges: edges[at].1,
                        },
                    ),
                    Ok(_) => {}
                }
                if group.iter().any(|&(_, v)| !self.same_value(v, first)) {
                    let pred = self.block_text(pred);
                    self.error(span, VerifyError::PhiConflict { pred });
                }
            }
            for &(pred, _) in &edges {
                if entries.binary_search_by_key(&pred, |&(b, _)| b).is_err() {
                    let pred = self.block_text(pred);
                    self.error(span, VerifyError::PhiMissingPred { pred });
                }
            }
        }
    }
}
