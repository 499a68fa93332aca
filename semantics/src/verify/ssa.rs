//! SSA (thesis §2.2, §4.10): one definition per name, and every definition
//! dominates its uses (a phi's use counts at the end of the incoming block); the
//! terminator's uses and type rules.

use super::types::kind_error;
use super::{FunctionChecker, OperandAt, Positions, UseAt, VerifyError};
use crate::cfg::{BlockDomTree, Cfg};
use crate::diag::Span;
use crate::ir::{Block, Inst, InstKind, Terminator, Value, ValueDef};
use crate::types::{TypeData, TypeTable};
use std::collections::HashSet;

impl FunctionChecker<'_> {
    /// Blocks, parameters and results share one namespace per function (LLVM's local
    /// symbol table); each name is defined once (SSA, §2.2).
    pub(super) fn check_names(&mut self) {
        let body = self.body;
        // One entry per name of the function: the parser's name hasher, not SipHash.
        let mut definitions: Vec<(Span, &str)> = Vec::new();
        for param in &self.func.params {
            if let Some(name) = body.value_name(param.value) {
                definitions.push((self.spans.values[param.value], name));
            }
        }
        for &block in &body.layout {
            let data = &body.blocks[block];
            definitions.push((self.spans.blocks[block], &data.name));
            for &inst in data.phis.iter().chain(&data.body) {
                if let Some(v) = body.insts[inst].result
                    && let Some(name) = body.value_name(v)
                {
                    definitions.push((self.value_span(v, inst), name));
                }
            }
        }
        // Sized once (no rehashing while it fills).
        let mut seen: HashSet<&str, crate::text::NameHasher> =
            HashSet::with_capacity_and_hasher(definitions.len(), Default::default());
        for (span, name) in definitions {
            if !seen.insert(name) {
                self.error(
                    span,
                    VerifyError::MultipleDefinitions {
                        name: name.to_string(),
                    },
                );
            }
        }
    }

    /// Every operand of `inst` (at `index` in `block`) is defined where it is used.
    pub(super) fn check_inst_uses(
        &mut self,
        cfg: &Cfg,
        dom: &BlockDomTree,
        positions: &Positions,
        block: Block,
        index: usize,
        inst: Inst,
    ) {
        let kind = &self.body.insts[inst].kind;
        let incoming_count = match kind {
            InstKind::Phi { incoming, .. } => incoming.len(),
            _ => 0,
        };
        for (operand, value) in kind.operands().into_iter().enumerate() {
            let at = match kind {
                InstKind::Phi { incoming, .. } if operand < incoming_count => {
                    UseAt::Edge(incoming[operand].1)
                }
                InstKind::Phi { .. } => UseAt::Shadow(block),
                _ => UseAt::Inst(block, index),
            };
            // The span is looked up only if the use is wrong.
            let span = OperandAt::Operand(inst, operand);
            self.check_use(cfg, dom, positions, at, value, span);
        }
    }

    /// The dominance rule of SSA for one use (thesis §2.2, §4.10).
    pub(super) fn check_use(
        &mut self,
        cfg: &Cfg,
        dom: &BlockDomTree,
        positions: &Positions,
        at: UseAt,
        value: Value,
        span: impl Into<OperandAt>,
    ) {
        let ValueDef::Inst(def) = self.body.values[value].def else {
            return; // Parameters and constants are defined everywhere.
        };
        let Some((def_block, def_index)) = positions[def] else {
            let value = self.value_text(value);
            self.error(self.at(span.into()), VerifyError::Undefined { value });
            return;
        };
        let (use_block, dominated) = match at {
            UseAt::Inst(block, index) if block == def_block => (block, def_index < index),
            UseAt::Shadow(block) if block == def_block => {
                (block, def_index < self.body.blocks[block].phis.len())
            }
            UseAt::Inst(block, _)
            | UseAt::Shadow(block)
            | UseAt::Edge(block)
            | UseAt::Term(block) => (block, dom.dominates(def_block, block)),
        };
        // LLVM exempts uses in unreachable blocks: no execution reaches them.
        if dominated || !cfg.reachable(use_block) {
            return;
        }
        let value = self.value_text(value);
        let error = match at {
            UseAt::Edge(pred) => VerifyError::PhiUseNotDominated {
                value,
                pred: self.block_text(pred),
            },
            _ => VerifyError::NotDominated { value },
        };
        self.error(self.at(span.into()), error);
    }

    /// The terminator's operands are used at the end of its block; its type rules.
    pub(super) fn check_term(
        &mut self,
        cfg: &Cfg,
        dom: &BlockDomTree,
        positions: &Positions,
        block: Block,
    ) {
        let term = &self.body.blocks[block].term;
        let span = self.spans.terms[block];
        for value in term.operands() {
            self.check_use(cfg, dom, positions, UseAt::Term(block), value, span);
        }
        let types = &self.module.types;
        match term {
            Terminator::Br(_) | Terminator::Unreachable => {}
            Terminator::CondBr { cond, .. } => {
                self.expect_operand(span, *cond, "br", TypeTable::I1);
            }
            Terminator::Switch {
                ty, cond, cases, ..
            } => {
                let Some(width) = types.int_width(*ty) else {
                    let found = types.display(*ty);
                    self.error(span, kind_error("switch", "an integer type", found));
                    return;
                };
                self.expect_operand(span, *cond, "switch", *ty);
                let mut seen = HashSet::new();
                for (value, _) in cases {
                    if value.bits() > u64::from(width) {
                        let error = VerifyError::CaseTooWide {
                            value: value.clone(),
                            ty: types.display(*ty),
                        };
                        self.error(span, error);
                    }
                    if !seen.insert(value) {
                        let value = value.clone();
                        self.error(span, VerifyError::DuplicateCase { value });
                    }
                }
            }
            Terminator::Ret(value) => {
                let ret_ty = self.func.ret_ty;
                match (value, types.get(ret_ty)) {
                    (None, TypeData::Void) => {}
                    (None, _) => self.error(
                        span,
                        VerifyError::RetMissingValue {
                            ty: types.display(ret_ty),
                        },
                    ),
                    (Some(_), TypeData::Void) => self.error(span, VerifyError::RetUnexpectedValue),
                    (Some(v), _) => self.expect_operand(span, *v, "ret", ret_ty),
                }
            }
        }
    }
}
