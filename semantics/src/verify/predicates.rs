//! Block predicates (Def. 7, Def. 11.1) and the modifiers: `total` and
//! `mask()` ([W-CMD-MASK], §4.9).

use super::{FunctionChecker, Positions, VerifyError};
use crate::cfg::{BlockDomTree, Cfg};
use crate::diag::Span;
use crate::ir::{Block, Inst, InstKind, ValueDef};
use crate::types::TypeTable;

impl FunctionChecker<'_> {
    /// The block predicate is `i1` (Def. 7) and dominates its block (Def. 11.1).
    pub(super) fn check_predicate(
        &mut self,
        cfg: &Cfg,
        dom: &BlockDomTree,
        positions: &Positions,
        block: Block,
    ) {
        let data = &self.body.blocks[block];
        let Some(predicate) = data.predicate else {
            return;
        };
        let span = if self.spans.predicates[block] != Span::default() {
            self.spans.predicates[block]
        } else {
            self.spans.blocks[block]
        };
        let found = self.body.values[predicate].ty;
        if found != TypeTable::I1 {
            let error = VerifyError::PredicateType {
                value: self.value_text(predicate),
                found: self.module.types.display(found),
            };
            self.error(span, error);
        }
        let ValueDef::Inst(def) = self.body.values[predicate].def else {
            return;
        };
        let Some((def_block, def_index)) = positions[def] else {
            let value = self.value_text(predicate);
            self.error(span, VerifyError::Undefined { value });
            return;
        };
        if def_block != block {
            if cfg.reachable(block) && !dom.dominates(def_block, block) {
                let error = VerifyError::PredicateNotDominating {
                    value: self.value_text(predicate),
                    block: self.block_text(block),
                    def_block: self.block_text(def_block),
                };
                self.error(span, error);
            }
            return;
        }
        // Defined in the block itself: phis resolve before the activation is computed,
        // commands up to the definition must run without it.
        let n_phis = data.phis.len();
        if def_index < n_phis {
            return;
        }
        for &inst in &data.body[..def_index - n_phis] {
            let inst_data = &self.body.insts[inst];
            if !inst_data.total {
                let error = VerifyError::PredicateNonTotalBefore {
                    opcode: inst_data.kind.opcode(),
                    value: self.value_text(predicate),
                };
                self.error(self.spans.insts[inst], error);
            }
        }
        if !self.body.insts[def].total {
            let value = self.value_text(predicate);
            self.error(
                self.spans.insts[def],
                VerifyError::PredicateNonTotalDef { value },
            );
        }
    }

    /// `total` only on commands, never on `mask()`; `mask()` gives `i1`.
    pub(super) fn check_modifiers(&mut self, inst: Inst) {
        let data = &self.body.insts[inst];
        let span = self.spans.insts[inst];
        match &data.kind {
            InstKind::Phi { .. } if data.total => self.error(span, VerifyError::PhiTotal),
            InstKind::Mask => {
                if data.total {
                    self.error(span, VerifyError::MaskTotal);
                }
                if let Some(result) = data.result {
                    let found = self.body.values[result].ty;
                    if found != TypeTable::I1 {
                        let error = VerifyError::MaskType {
                            result: self.value_text(result),
                            found: self.module.types.display(found),
                        };
                        self.error(span, error);
                    }
                }
            }
            _ => {}
        }
    }
}
