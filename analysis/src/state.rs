//! What the abstract transformers may read of the analysis state of thesis
//! Definition 19 (`Shapes` and the block sets `sdep*`, `tdep*`, `adep*`, `cdep*`),
//! with the points-to facts of §6.5.2 and the stack objects found varying.
//!
//! The worklist engine ([`crate::engine`]) owns the state and implements
//! `DaState`; the [DA-*] transformers ([`crate::transfer`]) and the refinements of
//! the value lattice (the sa-lattice of Ch. 10, [`crate::stride`]) only read it.

use crate::shape::Shape;
use pllvm_semantics::ir::{Block, Body, Inst, Module, Value};
use std::collections::BTreeSet;

/// A read-only view of the analysis state (Definition 19).
pub(crate) trait DaState {
    /// The module of the analysed function (callees are classified by name).
    fn module(&self) -> &Module;
    /// The analysed body.
    fn body(&self) -> &Body;
    /// The block holding `inst` (`Block(id)` in the rules).
    fn block_of(&self, inst: Inst) -> Option<Block>;
    /// The basic shape stored for `value` (`Shapes(id)`).
    fn basic(&self, value: Value) -> Shape;
    /// Whether `block` is in `sdep* ∪ tdep*` ([DA-PHI-D]).
    fn joined(&self, block: Block) -> bool;
    /// Whether `block` is in `cdep*` ([DA-SPHI-D]).
    fn control_divergent(&self, block: Block) -> bool;
    /// Whether `block` is in `adep*` ([DA-DMASK], `pmsk` of [DA-STORE-D]).
    fn activation_divergent(&self, block: Block) -> bool;
    /// Whether a use in `user` of `value` sees it varying because lanes may have
    /// left a loop around its definition in different iterations (the LCSSA rule).
    fn live_out_varying(&self, user: Block, value: Value) -> bool;
    /// Whether the stack object of `alloca` was found varying.
    fn alloca_varying(&self, alloca: Inst) -> bool;
    /// `aliased_allocas(ptr)` (§6.5.2): the stack objects `ptr` may point into.
    fn aliased_allocas(&self, ptr: Value) -> BTreeSet<Inst>;
    /// Whether `value` may point into a stack object (§6.5.2).
    fn may_be_stack(&self, value: Value) -> bool;
}
