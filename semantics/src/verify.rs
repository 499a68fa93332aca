//! The verifier: well-formedness of P-LLVM modules (thesis §4.10, Def. 11, on top of
//! LLVM's own well-formedness rules).
//!
//! [`verify_module`] reports *all* errors of a module, sorted by source position
//! (STYLE §5), plus notes that are information only. Each message names the
//! definition it relies on. What is checked:
//!
//! - **Structure** (Def. 1): a body has blocks; phis come before commands; the entry
//!   block has no predecessors (LLVM rule); handles point into their arenas (the
//!   parser guarantees this, but IR built in memory might not).
//! - **SSA** (thesis §2.2, §4.10): one definition per name (blocks and values share
//!   LLVM's local namespace); every definition dominates its uses. A phi's use of a
//!   value counts at the end of the incoming block. Uses in blocks the entry cannot
//!   reach are exempt, as in LLVM. A phi has one entry per predecessor *edge*: when a
//!   block has two edges to the same successor (a `switch` with two cases to one
//!   block), the phis there list that predecessor twice, with the same value
//!   (LLVM's verifier rule).
//! - **Types** (LLVM LangRef, per instruction): operand and result types match the
//!   instruction; casts are legal; conditions are `i1`; `switch` cases are unique and
//!   fit their type; `getelementptr` indexes are integers and struct indices are `i32`
//!   constants in range; `ret` matches the function; calls match the callee's
//!   declaration; block predicates are `i1`; a shadow operand has the phi's type.
//! - **Def. 11.1** (dominating predicate): a predicate defined in another block is
//!   defined in a dominator of the predicated block. A predicate defined by a command
//!   of the block itself is defined by a `total` command, and every command before
//!   it is `total` too. The thesis states only the second half; the first follows
//!   because the defining command would otherwise run under the mask it computes
//!   (and `mask()`, which cannot be total, cannot define its own block's predicate).
//!   A predicate defined by a phi of the block is fine: phis are resolved before the
//!   activation is computed ([BLS-W-STEP]).
//! - **Def. 11.2** (defined functions): every callee is in the function map θ; a call
//!   to a function with a body is an error (thesis §4.9.2: P-LLVM has no calls to
//!   P-LLVM functions).
//! - **`mask()`** ([W-CMD-MASK], §4.9): the result is `i1` and the command is not
//!   `total`. A phi cannot be `total` either (Fig. 4.2 gives the modifier to commands).
//!
//! Not checked: **Def. 11.3** (predicated def-before-use) is a semantic property
//! ("dependence … is understood in the dynamic, semantical sense"); the interpreter's
//! strict mode checks it during a run. Reducibility is not required: the verifier
//! records it per function and notes each irreducible function.

use crate::cfg::{BlockDomTree, Cfg};
use crate::diag::{Diagnostic, FunctionSpans, SourceMap, Span};
use crate::entity::SecondaryMap;
use crate::ir::{
    Block, Body, CastOp, ConstData, FuncId, FunctionData, GepIndex, Inst, InstKind, Module,
    Terminator, Value, ValueDef,
};
use crate::types::{Ty, TypeData, TypeTable};
use num_bigint::BigUint;
use std::collections::HashSet;

/// What [`verify_module`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Every violation, sorted by span (ties keep the order they were found in).
    pub errors: Vec<Diagnostic>,
    /// Information that does not reject the module, sorted by span.
    pub notes: Vec<Diagnostic>,
    /// Per function with a body, whether its CFG is reducible (thesis §2.4).
    pub reducible: Vec<(FuncId, bool)>,
}

impl VerifyReport {
    /// Whether the module is well-formed.
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Checks every function with a body in `m` (thesis §4.10), using `spans` to place
/// the messages (IR built in memory has no spans: everything is then at offset 0).
pub fn verify_module(m: &Module, spans: &SourceMap) -> VerifyReport {
    let mut report = VerifyReport::default();
    for (id, func) in m.functions.iter() {
        let Some(body) = &func.body else { continue };
        // Borrowed, not cloned: the operand-use table is as large as the program.
        let no_spans = FunctionSpans::default();
        let func_spans = spans.functions.get(&id).unwrap_or(&no_spans);
        let mut checker = FunctionChecker {
            module: m,
            func,
            body,
            spans: func_spans,
            errors: Vec::new(),
        };
        if let Some(cfg_facts) = checker.run() {
            report.reducible.push((id, cfg_facts));
            if !cfg_facts {
                report.notes.push(Diagnostic::note(
                    func_spans.header,
                    format!("function @{} is irreducible (allowed)", func.name),
                ));
            }
        }
        report.errors.extend(
            checker
                .errors
                .into_iter()
                .map(|(span, error)| Diagnostic::error(span, error.to_string())),
        );
    }
    report.errors.sort_by_key(|d| (d.span.lo, d.span.hi));
    report.notes.sort_by_key(|d| (d.span.lo, d.span.hi));
    report
}

/// Where a diagnostic about an operand points: a span, or an operand whose span
/// is looked up in the source map only when there is something to report.
#[derive(Clone, Copy, Debug)]
enum OperandAt {
    Span(Span),
    Operand(Inst, usize),
}

impl From<Span> for OperandAt {
    fn from(span: Span) -> Self {
        OperandAt::Span(span)
    }
}

/// One violation. The `Display` text is the diagnostic message: lowercase, no
/// trailing period, naming the definition it relies on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum VerifyError {
    #[error("function @{func} has no blocks (Def. 1)")]
    NoBlocks { func: String },
    #[error("malformed ir: {what}")]
    Malformed { what: String },
    #[error("multiple definitions of %{name} (SSA, thesis §2.2)")]
    MultipleDefinitions { name: String },
    #[error("use of undefined value {value} (SSA, thesis §2.2)")]
    Undefined { value: String },
    #[error("use of {value} is not dominated by its definition (SSA, thesis §2.2)")]
    NotDominated { value: String },
    #[error(
        "use of {value} on the edge from {pred} is not dominated by its definition (SSA, thesis §2.2)"
    )]
    PhiUseNotDominated { value: String, pred: String },
    #[error("phi has no incoming values (SSA, thesis §2.2)")]
    PhiEmpty,
    #[error("phi has no entry for predecessor {pred} (SSA, thesis §2.2)")]
    PhiMissingPred { pred: String },
    #[error("phi lists {pred}, which is not a predecessor of {block} (SSA, thesis §2.2)")]
    PhiNotPred { pred: String, block: String },
    #[error(
        "phi has {entries} entries for {pred}, which has {edges} edges to {block}: one entry per edge, as in LLVM (SSA, thesis §2.2)"
    )]
    PhiEdgeCount {
        pred: String,
        block: String,
        entries: usize,
        edges: usize,
    },
    #[error("phi has different values for the same predecessor {pred} (SSA, thesis §2.2)")]
    PhiConflict { pred: String },
    #[error("phi after a command: phis come first in a block (Def. 1)")]
    PhiNotFirst,
    #[error("{opcode} among the phis: phis come first in a block (Def. 1)")]
    CommandAmongPhis { opcode: &'static str },
    #[error("a phi cannot be total: the modifier applies to commands (thesis Fig. 4.2)")]
    PhiTotal,
    #[error("branch to the entry block {entry}, which has no predecessors in LLVM (Def. 1)")]
    EntryHasPreds { entry: String },
    #[error("{operand} has type {found}, but {opcode} expects {expected} (LLVM LangRef: {opcode})")]
    OperandType {
        operand: String,
        opcode: &'static str,
        found: String,
        expected: String,
    },
    #[error("{result} has type {found}, but {opcode} produces {expected} (LLVM LangRef: {opcode})")]
    ResultType {
        result: String,
        opcode: &'static str,
        found: String,
        expected: String,
    },
    #[error("{opcode} needs {needs}, found {found} (LLVM LangRef: {opcode})")]
    WrongKind {
        opcode: &'static str,
        needs: &'static str,
        found: String,
    },
    #[error("{opcode} produces no value, so it cannot define {result} (thesis Fig. 4.13a)")]
    ResultOfVoid {
        opcode: &'static str,
        result: String,
    },
    #[error("{opcode} from {from} to {to} is not a legal cast: {why} (LLVM LangRef: {opcode})")]
    IllegalCast {
        opcode: &'static str,
        from: String,
        to: String,
        why: &'static str,
    },
    #[error("switch lists case {value} twice (LLVM LangRef: switch)")]
    DuplicateCase { value: BigUint },
    #[error("switch case {value} does not fit {ty} (LLVM LangRef: switch)")]
    CaseTooWide { value: BigUint, ty: String },
    #[error("getelementptr cannot index into {ty} (LLVM LangRef: getelementptr)")]
    GepIntoScalar { ty: String },
    #[error(
        "getelementptr struct index into {ty} must be an i32 constant below {fields} (LLVM LangRef: getelementptr)"
    )]
    GepStructIndex { ty: String, fields: usize },
    #[error("call to @{callee} returns {expected}, not {found} (LLVM LangRef: call)")]
    CallRetType {
        callee: String,
        found: String,
        expected: String,
    },
    #[error(
        "shadow operand {operand} has type {found}, but the phi has type {expected} (thesis §4.8)"
    )]
    ShadowType {
        operand: String,
        found: String,
        expected: String,
    },
    #[error("ret without a value in function returning {ty} (LLVM LangRef: ret)")]
    RetMissingValue { ty: String },
    #[error("ret with a value in function returning void (LLVM LangRef: ret)")]
    RetUnexpectedValue,
    #[error(
        "call to @{callee} passes {found} arguments, but it takes {expected} (LLVM LangRef: call)"
    )]
    CallArgCount {
        callee: String,
        found: usize,
        expected: String,
    },
    #[error(
        "call to @{callee}: P-LLVM has no calls to P-LLVM functions (thesis §4.9.2, Def. 11.2)"
    )]
    CallsPllvmFunction { callee: String },
    #[error("call to @{callee}, which is not in the function map θ (Def. 11.2, defined functions)")]
    NotInTheta { callee: String },
    #[error("call to @{callee} does not match θ's signature {expected} (Def. 11.2)")]
    ThetaSignature { callee: String, expected: String },
    #[error("block predicate {value} has type {found}, but predicates are i1 (Def. 7)")]
    PredicateType { value: String, found: String },
    #[error(
        "predicate {value} of {block} is defined in {def_block}, which does not dominate {block} (Def. 11.1, dominating predicate)"
    )]
    PredicateNotDominating {
        value: String,
        block: String,
        def_block: String,
    },
    #[error(
        "{opcode} runs before the block predicate {value} is defined, so it must be total (Def. 11.1, dominating predicate)"
    )]
    PredicateNonTotalBefore { opcode: &'static str, value: String },
    #[error(
        "block predicate {value} is defined in its own block, so its definition must be total (Def. 11.1, dominating predicate)"
    )]
    PredicateNonTotalDef { value: String },
    #[error("mask() cannot use the total modifier (thesis §4.9, [W-CMD-MASK])")]
    MaskTotal,
    #[error("mask() returns i1, but {result} has type {found} (thesis §4.9, [W-CMD-MASK])")]
    MaskType { result: String, found: String },
}

/// Where a use happens, for the dominance check.
#[derive(Clone, Copy, Debug)]
enum UseAt {
    /// A command's operand, at position `index` of `block` (phis first, then commands).
    Inst(Block, usize),
    /// A phi's incoming value, read on the edge: at the end of this predecessor.
    Edge(Block),
    /// A terminator's operand: at the end of its block.
    Term(Block),
    /// A phi's shadow operand, read at the entry of `block` when the lane is passive
    /// (§4.8). Besides values of strict dominators it may name any phi of the block,
    /// itself included: phis resolve as a parallel copy, so the shadow reads the
    /// previous value (the idiom `%x = phi … shadow(%x)` of the divergent loop
    /// transform, §9.1, keeps masked-off lanes' values).
    Shadow(Block),
}

/// The verifier's state while checking one function body.
struct FunctionChecker<'a> {
    module: &'a Module,
    func: &'a FunctionData,
    body: &'a Body,
    spans: &'a FunctionSpans,
    errors: Vec<(Span, VerifyError)>,
}

/// Per instruction: the block holding it and its position there (phis first).
type Positions = SecondaryMap<Inst, Option<(Block, usize)>>;

impl FunctionChecker<'_> {
    /// Runs every check; returns whether the CFG is reducible, or `None` when the body
    /// is too malformed to build a CFG.
    fn run(&mut self) -> Option<bool> {
        if self.body.layout.is_empty() {
            self.error(
                self.spans.header,
                VerifyError::NoBlocks {
                    func: self.func.name.clone(),
                },
            );
            return None;
        }
        if !self.check_handles() {
            return None;
        }
        let cfg = Cfg::new(self.body);
        let dom = cfg.dominators();
        let positions = self.positions();
        self.check_names();
        self.check_entry(&cfg);
        for &block in &self.body.layout {
            self.check_phi_order(block);
            self.check_phi_incoming(&cfg, block);
            self.check_predicate(&cfg, &dom, &positions, block);
            let data = &self.body.blocks[block];
            for (index, &inst) in data.phis.iter().chain(&data.body).enumerate() {
                self.check_inst_uses(&cfg, &dom, &positions, block, index, inst);
                self.check_inst_types(inst);
                self.check_modifiers(inst);
                self.check_callee(inst);
            }
            self.check_term(&cfg, &dom, &positions, block);
        }
        // Reducible (§2.4): every retreating edge of the documented DFS goes to a
        // dominator of its source (what `Cfg::is_reducible` computes, reusing `dom`).
        Some(
            cfg.retreating_edges()
                .iter()
                .all(|&(source, target)| dom.dominates(target, source)),
        )
    }

    fn error(&mut self, span: Span, error: VerifyError) {
        self.errors.push((span, error));
    }

    // ----- structure ---------------------------------------------------------------

    /// Every handle points into its arena, each block is laid out once, each
    /// instruction placed once, and results and parameters point back to their
    /// definitions. Everything else relies on this, so a failure stops the function.
    fn check_handles(&mut self) -> bool {
        let body = self.body;
        let mut problems: Vec<String> = Vec::new();
        // Dense tables over the arenas (handles are indices).
        let mut is_laid_out = vec![false; body.blocks.len()];
        let mut laid_out: Vec<Block> = Vec::with_capacity(body.layout.len());
        for &block in &body.layout {
            if !body.blocks.is_valid(block) {
                problems.push(format!("layout names missing {block:?}"));
            } else if std::mem::replace(&mut is_laid_out[block.0 as usize], true) {
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
                if std::mem::replace(&mut placed[inst.0 as usize], true) {
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
    fn positions(&self) -> Positions {
        let mut positions = SecondaryMap::with_default(None);
        for &block in &self.body.layout {
            let data = &self.body.blocks[block];
            for (index, &inst) in data.phis.iter().chain(&data.body).enumerate() {
                positions[inst] = Some((block, index));
            }
        }
        positions
    }

    /// Blocks, parameters and results share one namespace per function (LLVM's local
    /// symbol table); each name is defined once (SSA, §2.2).
    fn check_names(&mut self) {
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

    /// LLVM: the entry block has no predecessors (so its phis could never resolve).
    fn check_entry(&mut self, cfg: &Cfg) {
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
    fn check_phi_order(&mut self, block: Block) {
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
    fn check_phi_incoming(&mut self, cfg: &Cfg, block: Block) {
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

    // ----- SSA dominance -------------------------------------------------------------

    /// Every operand of `inst` (at `index` in `block`) is defined where it is used.
    fn check_inst_uses(
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
    fn check_use(
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
    fn check_term(&mut self, cfg: &Cfg, dom: &BlockDomTree, positions: &Positions, block: Block) {
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

    // ----- Def. 11.1 ---------------------------------------------------------------

    /// The block predicate is `i1` (Def. 7) and dominates its block (Def. 11.1).
    fn check_predicate(
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

    // ----- modifiers, mask(), Def. 11.2 -------------------------------------------

    /// `total` only on commands, never on `mask()`; `mask()` gives `i1`.
    fn check_modifiers(&mut self, inst: Inst) {
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

    /// Def. 11.2: the callee is in θ and is not a P-LLVM function (§4.9.2).
    fn check_callee(&mut self, inst: Inst) {
        let InstKind::Call { callee, .. } = &self.body.insts[inst].kind else {
            return;
        };
        let callee = &self.module.functions[*callee];
        let span = self.spans.insts[inst];
        let name = callee.name.clone();
        if callee.body.is_some() {
            self.error(span, VerifyError::CallsPllvmFunction { callee: name });
        } else {
            match crate::theta::resolve(&name) {
                None => self.error(span, VerifyError::NotInTheta { callee: name }),
                Some(builtin) => {
                    // The call is checked against the declaration elsewhere; here the
                    // declaration is checked against θ, so each mismatch is told once.
                    let types = &self.module.types;
                    let arg_tys: Vec<&crate::types::TypeData> =
                        callee.params.iter().map(|p| types.get(p.ty)).collect();
                    if let Err(expected) =
                        crate::theta::signature_ok(builtin, &arg_tys, types.get(callee.ret_ty))
                    {
                        self.error(
                            span,
                            VerifyError::ThetaSignature {
                                callee: name,
                                expected,
                            },
                        );
                    }
                }
            }
        }
    }

    // ----- types -----------------------------------------------------------------

    /// The type rules of LLVM's LangRef for one phi or command.
    fn check_inst_types(&mut self, inst: Inst) {
        let data = &self.body.insts[inst];
        let types = &self.module.types;
        let span = self.spans.insts[inst];
        let opcode = data.kind.opcode();
        // The type the result must have; `None` for instructions without a value.
        let result_ty: Option<Ty> = match &data.kind {
            InstKind::Phi {
                ty,
                incoming,
                shadow,
            } => {
                if !types.is_sized(*ty) {
                    self.error(
                        span,
                        kind_error(opcode, "a first-class type", types.display(*ty)),
                    );
                }
                for (operand, (value, _)) in incoming.iter().enumerate() {
                    self.expect_operand(OperandAt::Operand(inst, operand), *value, opcode, *ty);
                }
                if let Some(shadow) = shadow {
                    let found = self.body.values[*shadow].ty;
                    if found != *ty {
                        let error = VerifyError::ShadowType {
                            operand: self.value_text(*shadow),
                            found: types.display(found),
                            expected: types.display(*ty),
                        };
                        self.error(self.operand_span(inst, incoming.len()), error);
                    }
                }
                Some(*ty)
            }
            InstKind::Binary {
                op, ty, lhs, rhs, ..
            } => {
                let (fits, needs) = if op.is_float() {
                    (types.is_float(*ty), "a floating-point type")
                } else {
                    (types.int_width(*ty).is_some(), "an integer type")
                };
                if !fits {
                    self.error(span, kind_error(opcode, needs, types.display(*ty)));
                }
                self.expect_operands(inst, &[*lhs, *rhs], opcode, *ty);
                Some(*ty)
            }
            InstKind::FNeg { ty, arg } => {
                if !types.is_float(*ty) {
                    let error = kind_error(opcode, "a floating-point type", types.display(*ty));
                    self.error(span, error);
                }
                self.expect_operands(inst, &[*arg], opcode, *ty);
                Some(*ty)
            }
            InstKind::ICmp { ty, lhs, rhs, .. } => {
                if types.int_width(*ty).is_none() && !types.is_ptr(*ty) {
                    let error =
                        kind_error(opcode, "an integer or pointer type", types.display(*ty));
                    self.error(span, error);
                }
                self.expect_operands(inst, &[*lhs, *rhs], opcode, *ty);
                Some(TypeTable::I1)
            }
            InstKind::FCmp { ty, lhs, rhs, .. } => {
                if !types.is_float(*ty) {
                    let error = kind_error(opcode, "a floating-point type", types.display(*ty));
                    self.error(span, error);
                }
                self.expect_operands(inst, &[*lhs, *rhs], opcode, *ty);
                Some(TypeTable::I1)
            }
            InstKind::Cast {
                op, from, arg, to, ..
            } => {
                if let Err(why) = cast_legal(types, *op, *from, *to) {
                    let error = VerifyError::IllegalCast {
                        opcode,
                        from: types.display(*from),
                        to: types.display(*to),
                        why,
                    };
                    self.error(span, error);
                }
                self.expect_operands(inst, &[*arg], opcode, *from);
                Some(*to)
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => {
                self.expect_operands(inst, &[*cond], opcode, TypeTable::I1);
                let span_true = self.operand_span(inst, 1);
                self.expect_operand(span_true, *if_true, opcode, *ty);
                let span_false = self.operand_span(inst, 2);
                self.expect_operand(span_false, *if_false, opcode, *ty);
                Some(*ty)
            }
            InstKind::Freeze { ty, arg } => {
                self.expect_operands(inst, &[*arg], opcode, *ty);
                Some(*ty)
            }
            InstKind::Alloca { ty, count, .. } => {
                if !types.is_sized(*ty) {
                    self.error(span, kind_error(opcode, "a sized type", types.display(*ty)));
                }
                if let Some(count) = count {
                    let found = self.body.values[*count].ty;
                    if types.int_width(found).is_none() {
                        let error = kind_error(opcode, "an integer count", types.display(found));
                        self.error(self.operand_span(inst, 0), error);
                    }
                }
                // The alloca address space is the data layout's choice: any pointer.
                if let Some(result) = data.result {
                    let found = self.body.values[result].ty;
                    if !types.is_ptr(found) {
                        let error = VerifyError::ResultType {
                            result: self.value_text(result),
                            opcode,
                            found: types.display(found),
                            expected: "ptr".into(),
                        };
                        self.error(span, error);
                    }
                }
                None
            }
            InstKind::Load { ty, ptr, .. } => {
                if !types.is_sized(*ty) {
                    self.error(span, kind_error(opcode, "a sized type", types.display(*ty)));
                }
                self.expect_pointer(self.operand_span(inst, 0), *ptr, opcode);
                Some(*ty)
            }
            InstKind::Store { ty, value, ptr, .. } => {
                if !types.is_sized(*ty) {
                    self.error(span, kind_error(opcode, "a sized type", types.display(*ty)));
                }
                self.expect_operands(inst, &[*value], opcode, *ty);
                self.expect_pointer(self.operand_span(inst, 1), *ptr, opcode);
                None
            }
            InstKind::Gep {
                source_ty,
                base,
                indices,
                ..
            } => {
                self.check_gep(inst, *source_ty, *base, indices);
                Some(self.body.values[*base].ty).filter(|&t| types.is_ptr(t))
            }
            InstKind::Call {
                callee,
                ret_ty,
                args,
            } => {
                self.check_call(inst, *callee, *ret_ty, args);
                (!matches!(types.get(*ret_ty), TypeData::Void)).then_some(*ret_ty)
            }
            InstKind::Mask => None, // Checked by `check_modifiers` with its own message.
        };
        let Some(result) = data.result else { return };
        let produces_nothing = matches!(data.kind, InstKind::Store { .. })
            || matches!(&data.kind, InstKind::Call { ret_ty, .. } if matches!(types.get(*ret_ty), TypeData::Void));
        if produces_nothing {
            let error = VerifyError::ResultOfVoid {
                opcode,
                result: self.value_text(result),
            };
            self.error(span, error);
            return;
        }
        if let Some(expected) = result_ty {
            let found = self.body.values[result].ty;
            if found != expected {
                let error = VerifyError::ResultType {
                    result: self.value_text(result),
                    opcode,
                    found: types.display(found),
                    expected: types.display(expected),
                };
                self.error(span, error);
            }
        }
    }

    /// `getelementptr`: a pointer base, a sized source type, integer indices; after
    /// the first index each one steps into an array (any integer) or a struct (an
    /// `i32` constant below the field count).
    fn check_gep(&mut self, inst: Inst, source_ty: Ty, base: Value, indices: &[GepIndex]) {
        let types = &self.module.types;
        let opcode = "getelementptr";
        let span = self.spans.insts[inst];
        if !types.is_sized(source_ty) {
            self.error(
                span,
                kind_error(opcode, "a sized type", types.display(source_ty)),
            );
        }
        self.expect_pointer(self.operand_span(inst, 0), base, opcode);
        let mut current = source_ty;
        for (position, index) in indices.iter().enumerate() {
            let operand_span = self.operand_span(inst, position + 1);
            let index_ty = self.body.values[index.value].ty;
            if types.int_width(index_ty).is_none() {
                let error = kind_error(opcode, "integer indices", types.display(index_ty));
                self.error(operand_span, error);
                return;
            }
            if position == 0 {
                continue; // The first index steps over the pointer itself.
            }
            match types.get(current) {
                TypeData::Array(_, elem) => current = *elem,
                TypeData::Struct { fields, .. } => {
                    let field = match self.body.as_const(index.value) {
                        Some(ConstData::Int(n)) if index_ty == TypeTable::I32 => {
                            usize::try_from(n).ok().filter(|&n| n < fields.len())
                        }
                        _ => None,
                    };
                    let Some(field) = field else {
                        let error = VerifyError::GepStructIndex {
                            ty: types.display(current),
                            fields: fields.len(),
                        };
                        self.error(operand_span, error);
                        return;
                    };
                    current = fields[field];
                }
                _ => {
                    let ty = types.display(current);
                    self.error(operand_span, VerifyError::GepIntoScalar { ty });
                    return;
                }
            }
        }
    }

    /// A call matches its callee's declaration: argument count and types, and the
    /// return type.
    fn check_call(&mut self, inst: Inst, callee: FuncId, ret_ty: Ty, args: &[Value]) {
        let types = &self.module.types;
        let callee = &self.module.functions[callee];
        let span = self.spans.insts[inst];
        let count_ok = if callee.variadic {
            args.len() >= callee.params.len()
        } else {
            args.len() == callee.params.len()
        };
        if !count_ok {
            let expected = if callee.variadic {
                format!("at least {}", callee.params.len())
            } else {
                callee.params.len().to_string()
            };
            let error = VerifyError::CallArgCount {
                callee: callee.name.clone(),
                found: args.len(),
                expected,
            };
            self.error(span, error);
        }
        for (operand, (arg, param)) in args.iter().zip(&callee.params).enumerate() {
            self.expect_operand(self.operand_span(inst, operand), *arg, "call", param.ty);
        }
        if ret_ty != callee.ret_ty {
            let error = VerifyError::CallRetType {
                callee: callee.name.clone(),
                found: types.display(ret_ty),
                expected: types.display(callee.ret_ty),
            };
            self.error(span, error);
        }
    }

    /// Each of `values` (operands 0, 1, … of `inst`) has type `expected`.
    fn expect_operands(
        &mut self,
        inst: Inst,
        values: &[Value],
        opcode: &'static str,
        expected: Ty,
    ) {
        for (operand, &value) in values.iter().enumerate() {
            self.expect_operand(OperandAt::Operand(inst, operand), value, opcode, expected);
        }
    }

    /// `value` has type `expected`.
    fn expect_operand(
        &mut self,
        span: impl Into<OperandAt>,
        value: Value,
        opcode: &'static str,
        expected: Ty,
    ) {
        let found = self.body.values[value].ty;
        if found != expected {
            let span = self.at(span.into());
            let types = &self.module.types;
            let error = VerifyError::OperandType {
                operand: self.value_text(value),
                opcode,
                found: types.display(found),
                expected: types.display(expected),
            };
            self.error(span, error);
        }
    }

    /// `value` is a pointer.
    fn expect_pointer(&mut self, span: Span, value: Value, opcode: &'static str) {
        let found = self.body.values[value].ty;
        if !self.module.types.is_ptr(found) {
            let error = VerifyError::OperandType {
                operand: self.value_text(value),
                opcode,
                found: self.module.types.display(found),
                expected: "a pointer".into(),
            };
            self.error(span, error);
        }
    }

    // ----- spans and names ---------------------------------------------------------

    /// The span `at` stands for.
    fn at(&self, at: OperandAt) -> Span {
        match at {
            OperandAt::Span(span) => span,
            OperandAt::Operand(inst, operand) => self.operand_span(inst, operand),
        }
    }

    /// The span of operand `operand` of `inst` (or of the instruction).
    fn operand_span(&self, inst: Inst, operand: usize) -> Span {
        self.spans
            .operand_uses
            .get(&(inst, operand))
            .copied()
            .unwrap_or(self.spans.insts[inst])
    }

    /// The span of the definition of `value`, or of its instruction.
    fn value_span(&self, value: Value, inst: Inst) -> Span {
        let span = self.spans.values[value];
        if span == Span::default() {
            self.spans.insts[inst]
        } else {
            span
        }
    }

    /// `%name` of a named value, the constant's text, or `an unnamed value`.
    fn value_text(&self, value: Value) -> String {
        let data = &self.body.values[value];
        if let Some(name) = &data.name {
            return format!("%{name}");
        }
        match &data.def {
            ValueDef::Const(c) => match c {
                ConstData::Int(n) => n.to_string(),
                ConstData::Float(bits) => format!("float 0x{bits:X}"),
                ConstData::Null => "null".into(),
                ConstData::Undef => "undef".into(),
                ConstData::Poison => "poison".into(),
                ConstData::Zero => "zeroinitializer".into(),
                ConstData::Global(g) => self
                    .module
                    .globals
                    .get(*g)
                    .map_or_else(|| format!("{g:?}"), |g| format!("@{}", g.name)),
                ConstData::Function(f) => self
                    .module
                    .functions
                    .get(*f)
                    .map_or_else(|| format!("{f:?}"), |f| format!("@{}", f.name)),
            },
            _ => "an unnamed value".into(),
        }
    }

    /// Whether `a` and `b` are the same value: one handle, or equal constants of
    /// one type (each constant operand in the text is its own handle).
    fn same_value(&self, a: Value, b: Value) -> bool {
        if a == b {
            return true;
        }
        let (a, b) = (&self.body.values[a], &self.body.values[b]);
        a.ty == b.ty
            && matches!((&a.def, &b.def), (ValueDef::Const(x), ValueDef::Const(y)) if x == y)
    }

    /// `%label` of a block.
    fn block_text(&self, block: Block) -> String {
        format!("%{}", self.body.blocks[block].name)
    }
}

/// A [`VerifyError::WrongKind`].
fn kind_error(opcode: &'static str, needs: &'static str, found: String) -> VerifyError {
    VerifyError::WrongKind {
        opcode,
        needs,
        found,
    }
}

/// Whether `op` may convert `from` to `to` (LLVM LangRef, "Conversion Operations");
/// the error says which rule fails.
fn cast_legal(types: &TypeTable, op: CastOp, from: Ty, to: Ty) -> Result<(), &'static str> {
    let int = |t: Ty| types.int_width(t);
    let float_bits = |t: Ty| match types.get(t) {
        TypeData::F32 => Some(32u32),
        TypeData::F64 => Some(64),
        _ => None,
    };
    let check = |ok: bool, why: &'static str| if ok { Ok(()) } else { Err(why) };
    match op {
        CastOp::Trunc => match (int(from), int(to)) {
            (Some(a), Some(b)) => check(b < a, "the result must be narrower"),
            _ => Err("both types must be integers"),
        },
        CastOp::ZExt | CastOp::SExt => match (int(from), int(to)) {
            (Some(a), Some(b)) => check(b > a, "the result must be wider"),
            _ => Err("both types must be integers"),
        },
        CastOp::FpTrunc => match (float_bits(from), float_bits(to)) {
            (Some(a), Some(b)) => check(b < a, "the result must be narrower"),
            _ => Err("both types must be floating-point"),
        },
        CastOp::FpExt => match (float_bits(from), float_bits(to)) {
            (Some(a), Some(b)) => check(b > a, "the result must be wider"),
            _ => Err("both types must be floating-point"),
        },
        CastOp::FpToSi | CastOp::FpToUi => check(
            float_bits(from).is_some() && int(to).is_some(),
            "it converts floating-point to integer",
        ),
        CastOp::SiToFp | CastOp::UiToFp => check(
            int(from).is_some() && float_bits(to).is_some(),
            "it converts integer to floating-point",
        ),
        CastOp::PtrToInt => check(
            types.is_ptr(from) && int(to).is_some(),
            "it converts a pointer to an integer",
        ),
        CastOp::IntToPtr => check(
            int(from).is_some() && types.is_ptr(to),
            "it converts an integer to a pointer",
        ),
        CastOp::AddrSpaceCast => match (types.get(from), types.get(to)) {
            (TypeData::Ptr(a), TypeData::Ptr(b)) => check(a != b, "the address spaces must differ"),
            _ => Err("both types must be pointers"),
        },
        CastOp::Bitcast => match (types.get(from), types.get(to)) {
            (TypeData::Ptr(a), TypeData::Ptr(b)) => check(
                a == b,
                "pointers keep their address space (use addrspacecast)",
            ),
            (TypeData::Ptr(_), _) | (_, TypeData::Ptr(_)) => {
                Err("pointers convert only to pointers (use ptrtoint or inttoptr)")
            }
            _ => {
                let bits = |t: Ty| int(t).or(float_bits(t));
                match (bits(from), bits(to)) {
                    (Some(a), Some(b)) => check(a == b, "the sizes must be equal"),
                    _ => Err("both types must be non-aggregate first-class types"),
                }
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinOp, BlockData, ICmpPred, InstData, IntFlags, Param, ValueData};
    use crate::types::TypeData;

    /// Builds one function `@f` by hand (the text parser is another module).
    struct Builder {
        module: Module,
        body: Body,
        params: Vec<Param>,
        ret_ty: Ty,
    }

    impl Builder {
        fn new(ret_ty: Ty) -> Self {
            Builder {
                module: Module::default(),
                body: Body::default(),
                params: Vec::new(),
                ret_ty,
            }
        }
        fn param(&mut self, name: &str, ty: Ty) -> Value {
            let value = self.body.values.push(ValueData {
                ty,
                name: Some(name.into()),
                def: ValueDef::Param(self.params.len() as u32),
            });
            self.params.push(Param {
                ty,
                attrs: Vec::new(),
                value,
            });
            value
        }
        fn block(&mut self, name: &str) -> Block {
            let block = self.body.blocks.push(BlockData {
                name: name.into(),
                predicate: None,
                phis: Vec::new(),
                body: Vec::new(),
                term: Terminator::Unreachable,
            });
            self.body.layout.push(block);
            block
        }
        fn int(&mut self, ty: Ty, n: u64) -> Value {
            self.body.add_const(ty, ConstData::Int(BigUint::from(n)))
        }
        /// Appends `name = kind` (a phi goes to the phis) with result type `ty`.
        fn inst(&mut self, block: Block, name: Option<&str>, ty: Ty, kind: InstKind) -> Value {
            self.inst_full(block, name, ty, kind, false)
        }
        fn inst_full(
            &mut self,
            block: Block,
            name: Option<&str>,
            ty: Ty,
            kind: InstKind,
            total: bool,
        ) -> Value {
            let inst = self.body.insts.next_key();
            let value = self.body.values.push(ValueData {
                ty,
                name: name.map(Into::into),
                def: ValueDef::Inst(inst),
            });
            let is_phi = kind.is_phi();
            self.body.insts.push(InstData {
                kind,
                result: Some(value),
                total,
            });
            let data = &mut self.body.blocks[block];
            if is_phi {
                &mut data.phis
            } else {
                &mut data.body
            }
            .push(inst);
            value
        }
        /// Appends a command without a result (a store or a void call).
        fn void_inst(&mut self, block: Block, kind: InstKind) {
            let inst = self.body.insts.push(InstData {
                kind,
                result: None,
                total: false,
            });
            self.body.blocks[block].body.push(inst);
        }
        fn add(&mut self, block: Block, name: &str, lhs: Value, rhs: Value) -> Value {
            let kind = InstKind::Binary {
                op: BinOp::Add,
                flags: IntFlags::default(),
                ty: TypeTable::I32,
                lhs,
                rhs,
            };
            self.inst(block, Some(name), TypeTable::I32, kind)
        }
        fn term(&mut self, block: Block, term: Terminator) {
            self.body.blocks[block].term = term;
        }
        fn declare(&mut self, name: &str, ret_ty: Ty, params: &[Ty]) -> FuncId {
            let params = params
                .iter()
                .map(|&ty| Param {
                    ty,
                    attrs: Vec::new(),
                    value: Value(0),
                })
                .collect();
            self.module.functions.push(FunctionData {
                name: name.into(),
                ret_ty,
                params,
                cconv: None,
                variadic: false,
                body: None,
            })
        }
        fn finish(mut self) -> Module {
            let f = FunctionData {
                name: "f".into(),
                ret_ty: self.ret_ty,
                params: self.params,
                cconv: None,
                variadic: false,
                body: Some(self.body),
            };
            self.module.functions.push(f);
            self.module
        }
    }

    /// Verifies `module` and compares the error messages with `expect`.
    fn check(module: Module, expect: &[&str]) -> VerifyReport {
        let report = verify_module(&module, &SourceMap::default());
        let messages: Vec<&str> = report.errors.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, expect);
        report
    }

    /// `entry: br %c, a, b; a: br j; b: br j; j: ret` with `%x` defined in `a`.
    fn diamond(use_in_join: bool) -> Module {
        let mut b = Builder::new(TypeTable::I32);
        let c = b.param("c", TypeTable::I1);
        let n = b.param("n", TypeTable::I32);
        let entry = b.block("entry");
        let left = b.block("a");
        let right = b.block("b");
        let join = b.block("j");
        b.term(
            entry,
            Terminator::CondBr {
                cond: c,
                if_true: left,
                if_false: right,
            },
        );
        let x = b.add(left, "x", n, n);
        b.term(left, Terminator::Br(join));
        b.term(right, Terminator::Br(join));
        let ret = if use_in_join {
            x
        } else {
            let zero = b.int(TypeTable::I32, 0);
            let phi = InstKind::Phi {
                ty: TypeTable::I32,
                incoming: vec![(x, left), (zero, right)],
                shadow: None,
            };
            b.inst(join, Some("p"), TypeTable::I32, phi)
        };
        b.term(join, Terminator::Ret(Some(ret)));
        b.finish()
    }

    #[test]
    fn well_formed_diamond_passes() {
        let report = check(diamond(false), &[]);
        assert_eq!(report.reducible, vec![(FuncId(0), true)]);
        assert!(report.notes.is_empty());
    }

    #[test]
    fn use_not_dominated() {
        check(
            diamond(true),
            &["use of %x is not dominated by its definition (SSA, thesis §2.2)"],
        );
    }

    #[test]
    fn phi_use_counts_at_end_of_incoming_block() {
        // The phi reads %x on the edge from %b, where %x (defined in %a) is not available.
        let mut module = diamond(false);
        let body = module.functions[FuncId(0)].body.as_mut().expect("defined");
        let phi = body.blocks[Block(3)].phis[0];
        if let InstKind::Phi { incoming, .. } = &mut body.insts[phi].kind {
            incoming.swap(0, 1);
            incoming[0].1 = Block(1);
            incoming[1].1 = Block(2);
        }
        check(
            module,
            &[
                "use of %x on the edge from %b is not dominated by its definition (SSA, thesis §2.2)",
            ],
        );
    }

    #[test]
    fn same_block_order_and_unreachable_exemption() {
        let mut b = Builder::new(TypeTable::VOID);
        let entry = b.block("entry");
        let dead = b.block("dead");
        // %y uses %x, defined after it, in the entry block.
        let placeholder = b.int(TypeTable::I32, 1);
        let y = b.add(entry, "y", placeholder, placeholder);
        let x = b.add(entry, "x", placeholder, placeholder);
        b.term(entry, Terminator::Ret(None));
        // In an unreachable block the same mistake is exempt, as in LLVM.
        let z = b.add(dead, "z", placeholder, placeholder);
        let w = b.add(dead, "w", placeholder, placeholder);
        b.term(dead, Terminator::Ret(None));
        let mut module = b.finish();
        let body = module.functions[FuncId(0)].body.as_mut().expect("defined");
        for (user, used) in [(y, x), (z, w)] {
            let inst = body.def_inst(user).expect("instruction");
            if let InstKind::Binary { lhs, .. } = &mut body.insts[inst].kind {
                *lhs = used;
            }
        }
        check(
            module,
            &["use of %x is not dominated by its definition (SSA, thesis §2.2)"],
        );
    }

    #[test]
    fn phi_incoming_must_match_predecessor_edges() {
        // entry: switch to %j twice and to %k; %j's phi lists entry once.
        let mut b = Builder::new(TypeTable::VOID);
        let s = b.param("s", TypeTable::I32);
        let entry = b.block("entry");
        let j = b.block("j");
        let k = b.block("k");
        b.term(
            entry,
            Terminator::Switch {
                ty: TypeTable::I32,
                cond: s,
                default: j,
                cases: vec![(BigUint::from(1u8), j), (BigUint::from(1u8), k)],
            },
        );
        let one = b.int(TypeTable::I32, 1);
        let two = b.int(TypeTable::I32, 2);
        let phi = InstKind::Phi {
            ty: TypeTable::I32,
            incoming: vec![(one, entry)],
            shadow: None,
        };
        b.inst(j, Some("p"), TypeTable::I32, phi);
        let conflicting = InstKind::Phi {
            ty: TypeTable::I32,
            incoming: vec![(one, entry), (two, entry), (one, k)],
            shadow: None,
        };
        b.inst(j, Some("q"), TypeTable::I32, conflicting);
        let missing = InstKind::Phi {
            ty: TypeTable::I32,
            incoming: vec![],
            shadow: None,
        };
        b.inst(k, Some("r"), TypeTable::I32, missing);
        b.term(j, Terminator::Ret(None));
        b.term(k, Terminator::Ret(None));
        check(
            b.finish(),
            &[
                "switch lists case 1 twice (LLVM LangRef: switch)",
                "phi has 1 entries for %entry, which has 2 edges to %j: one entry per edge, as in LLVM (SSA, thesis §2.2)",
                "phi has different values for the same predecessor %entry (SSA, thesis §2.2)",
                "phi lists %k, which is not a predecessor of %j (SSA, thesis §2.2)",
                "phi has no incoming values (SSA, thesis §2.2)",
            ],
        );
    }

    #[test]
    fn names_and_entry_predecessors() {
        let mut b = Builder::new(TypeTable::VOID);
        let n = b.param("x", TypeTable::I32);
        let entry = b.block("entry");
        let missing_phi = b.block("loop");
        b.add(entry, "x", n, n);
        b.term(entry, Terminator::Br(missing_phi));
        let phi = InstKind::Phi {
            ty: TypeTable::I32,
            incoming: vec![(n, entry)],
            shadow: None,
        };
        b.inst(missing_phi, Some("loop"), TypeTable::I32, phi);
        b.term(missing_phi, Terminator::Br(entry));
        check(
            b.finish(),
            &[
                "multiple definitions of %x (SSA, thesis §2.2)",
                "multiple definitions of %loop (SSA, thesis §2.2)",
                "branch to the entry block %entry, which has no predecessors in LLVM (Def. 1)",
            ],
        );
    }

    #[test]
    fn type_errors() {
        let mut b = Builder::new(TypeTable::I32);
        let x = b.param("x", TypeTable::I32);
        let f = b.param("f", TypeTable::F32);
        let p = b.param("p", TypeTable::PTR);
        let entry = b.block("entry");
        b.add(entry, "a", x, f);
        let fadd = InstKind::Binary {
            op: BinOp::FAdd,
            flags: IntFlags::default(),
            ty: TypeTable::I32,
            lhs: x,
            rhs: x,
        };
        b.inst(entry, Some("b"), TypeTable::I32, fadd);
        let icmp = InstKind::ICmp {
            pred: ICmpPred::Eq,
            ty: TypeTable::PTR,
            lhs: p,
            rhs: p,
        };
        b.inst(entry, Some("c"), TypeTable::I32, icmp);
        let zext = InstKind::Cast {
            op: CastOp::ZExt,
            flags: IntFlags::default(),
            from: TypeTable::I32,
            arg: x,
            to: TypeTable::I8,
        };
        b.inst(entry, Some("d"), TypeTable::I8, zext);
        let select = InstKind::Select {
            ty: TypeTable::I32,
            cond: x,
            if_true: x,
            if_false: x,
        };
        b.inst(entry, Some("e"), TypeTable::I32, select);
        let load = InstKind::Load {
            ty: TypeTable::VOID,
            ptr: x,
            align: None,
            volatile: false,
        };
        b.inst(entry, Some("g"), TypeTable::VOID, load);
        b.term(entry, Terminator::Ret(None));
        check(
            b.finish(),
            &[
                "%f has type float, but add expects i32 (LLVM LangRef: add)",
                "fadd needs a floating-point type, found i32 (LLVM LangRef: fadd)",
                "%c has type i32, but icmp produces i1 (LLVM LangRef: icmp)",
                "zext from i32 to i8 is not a legal cast: the result must be wider (LLVM LangRef: zext)",
                "%x has type i32, but select expects i1 (LLVM LangRef: select)",
                "load needs a sized type, found void (LLVM LangRef: load)",
                "%x has type i32, but load expects a pointer (LLVM LangRef: load)",
                "ret without a value in function returning i32 (LLVM LangRef: ret)",
            ],
        );
    }

    #[test]
    fn casts() {
        let mut t = TypeTable::new();
        let p3 = t.intern(TypeData::Ptr(3));
        let i16 = t.int(16);
        let ok = [
            (CastOp::Trunc, TypeTable::I32, TypeTable::I8),
            (CastOp::SExt, TypeTable::I1, TypeTable::I64),
            (CastOp::FpExt, TypeTable::F32, TypeTable::F64),
            (CastOp::FpTrunc, TypeTable::F64, TypeTable::F32),
            (CastOp::FpToSi, TypeTable::F64, i16),
            (CastOp::UiToFp, i16, TypeTable::F32),
            (CastOp::Bitcast, TypeTable::I32, TypeTable::F32),
            (CastOp::Bitcast, TypeTable::PTR, TypeTable::PTR),
            (CastOp::PtrToInt, p3, TypeTable::I64),
            (CastOp::IntToPtr, TypeTable::I64, p3),
            (CastOp::AddrSpaceCast, TypeTable::PTR, p3),
        ];
        for (op, from, to) in ok {
            assert_eq!(cast_legal(&t, op, from, to), Ok(()), "{}", op.name());
        }
        let bad = [
            (CastOp::Trunc, TypeTable::I8, TypeTable::I8),
            (CastOp::ZExt, TypeTable::F32, TypeTable::F64),
            (CastOp::FpExt, TypeTable::F64, TypeTable::F32),
            (CastOp::FpToUi, TypeTable::I32, TypeTable::I32),
            (CastOp::Bitcast, TypeTable::I64, TypeTable::F32),
            (CastOp::Bitcast, TypeTable::I64, TypeTable::PTR),
            (CastOp::Bitcast, TypeTable::PTR, p3),
            (CastOp::AddrSpaceCast, TypeTable::PTR, TypeTable::PTR),
            (CastOp::IntToPtr, TypeTable::PTR, TypeTable::PTR),
        ];
        for (op, from, to) in bad {
            assert!(cast_legal(&t, op, from, to).is_err(), "{}", op.name());
        }
    }

    #[test]
    fn gep_and_store() {
        let mut b = Builder::new(TypeTable::VOID);
        let p = b.param("p", TypeTable::PTR);
        let i = b.param("i", TypeTable::I64);
        let entry = b.block("entry");
        let pair = b.module.types.intern(TypeData::Struct {
            fields: vec![TypeTable::I32, TypeTable::F64],
            packed: false,
        });
        let array = b.module.types.intern(TypeData::Array(4, pair));
        let zero = b.int(TypeTable::I64, 0);
        let one = b.int(TypeTable::I32, 1);
        let two = b.int(TypeTable::I32, 2);
        let gep = |indices: Vec<Value>| InstKind::Gep {
            inbounds: true,
            source_ty: array,
            base: p,
            indices: indices
                .into_iter()
                .map(|value| crate::ir::GepIndex { value })
                .collect(),
        };
        b.inst(entry, Some("ok"), TypeTable::PTR, gep(vec![zero, i, one]));
        b.inst(entry, Some("var"), TypeTable::PTR, gep(vec![zero, i, i]));
        b.inst(entry, Some("far"), TypeTable::PTR, gep(vec![zero, i, two]));
        b.inst(
            entry,
            Some("deep"),
            TypeTable::PTR,
            gep(vec![zero, i, one, zero]),
        );
        let store = InstKind::Store {
            ty: TypeTable::I32,
            value: i,
            ptr: p,
            align: None,
            volatile: false,
        };
        b.inst(entry, Some("z"), TypeTable::VOID, store);
        b.term(entry, Terminator::Ret(None));
        check(
            b.finish(),
            &[
                "getelementptr struct index into { i32, double } must be an i32 constant below 2 (LLVM LangRef: getelementptr)",
                "getelementptr struct index into { i32, double } must be an i32 constant below 2 (LLVM LangRef: getelementptr)",
                "getelementptr cannot index into double (LLVM LangRef: getelementptr)",
                "%i has type i64, but store expects i32 (LLVM LangRef: store)",
                "store produces no value, so it cannot define %z (thesis Fig. 4.13a)",
            ],
        );
    }

    #[test]
    fn calls_and_theta() {
        let mut b = Builder::new(TypeTable::VOID);
        let x = b.param("x", TypeTable::F32);
        let sqrt = b.declare("sqrtf", TypeTable::F32, &[TypeTable::F32]);
        let mystery = b.declare("mystery", TypeTable::VOID, &[]);
        let entry = b.block("entry");
        let call = |callee, ret_ty, args: Vec<Value>| InstKind::Call {
            callee,
            ret_ty,
            args,
        };
        b.inst(
            entry,
            Some("ok"),
            TypeTable::F32,
            call(sqrt, TypeTable::F32, vec![x]),
        );
        b.inst(
            entry,
            Some("few"),
            TypeTable::F32,
            call(sqrt, TypeTable::F32, vec![]),
        );
        b.inst(
            entry,
            Some("ret"),
            TypeTable::I32,
            call(sqrt, TypeTable::I32, vec![x]),
        );
        b.void_inst(entry, call(mystery, TypeTable::VOID, vec![]));
        // A call to @f itself: a P-LLVM function.
        b.void_inst(entry, call(FuncId(2), TypeTable::VOID, vec![x]));
        b.term(entry, Terminator::Ret(None));
        check(
            b.finish(),
            &[
                "call to @sqrtf passes 0 arguments, but it takes 1 (LLVM LangRef: call)",
                "call to @sqrtf returns float, not i32 (LLVM LangRef: call)",
                "call to @mystery, which is not in the function map θ (Def. 11.2, defined functions)",
                "call to @f: P-LLVM has no calls to P-LLVM functions (thesis §4.9.2, Def. 11.2)",
            ],
        );
    }

    #[test]
    fn predicates_def_11_1() {
        let mut b = Builder::new(TypeTable::VOID);
        let c = b.param("c", TypeTable::I1);
        let n = b.param("n", TypeTable::I32);
        let entry = b.block("entry");
        let left = b.block("a");
        let join = b.block("j");
        let own = b.block("own");
        let by_phi = b.block("phi");
        b.term(
            entry,
            Terminator::CondBr {
                cond: c,
                if_true: left,
                if_false: join,
            },
        );
        let not = InstKind::Binary {
            op: BinOp::Xor,
            flags: IntFlags::default(),
            ty: TypeTable::I1,
            lhs: c,
            rhs: c,
        };
        let in_a = b.inst(left, Some("q"), TypeTable::I1, not.clone());
        b.term(left, Terminator::Br(join));
        b.body.blocks[join].predicate = Some(in_a);
        b.term(join, Terminator::Br(own));
        // %own: a non-total add, then the predicate defined by a non-total xor.
        b.add(own, "s", n, n);
        let own_pred = b.inst(own, Some("m"), TypeTable::I1, not.clone());
        b.body.blocks[own].predicate = Some(own_pred);
        b.term(own, Terminator::Br(by_phi));
        // %phi: predicate from its own phi, then a mask() (fine), a total mask().
        let t = b.int(TypeTable::I1, 1);
        let phi = InstKind::Phi {
            ty: TypeTable::I1,
            incoming: vec![(t, own)],
            shadow: Some(c),
        };
        let phi_pred = b.inst(by_phi, Some("pp"), TypeTable::I1, phi);
        b.body.blocks[by_phi].predicate = Some(phi_pred);
        b.inst(by_phi, Some("mk"), TypeTable::I1, InstKind::Mask);
        b.inst_full(by_phi, Some("mt"), TypeTable::I32, InstKind::Mask, true);
        b.term(by_phi, Terminator::Ret(None));
        check(
            b.finish(),
            &[
                "predicate %q of %j is defined in %a, which does not dominate %j (Def. 11.1, dominating predicate)",
                "add runs before the block predicate %m is defined, so it must be total (Def. 11.1, dominating predicate)",
                "block predicate %m is defined in its own block, so its definition must be total (Def. 11.1, dominating predicate)",
                "mask() cannot use the total modifier (thesis §4.9, [W-CMD-MASK])",
                "mask() returns i1, but %mt has type i32 (thesis §4.9, [W-CMD-MASK])",
            ],
        );
    }

    #[test]
    fn shadow_operands() {
        // loop: %x = phi [0, entry], [%x, loop] shadow(%x) (the §9.1 idiom) is fine;
        // a shadow naming a later command of the block, or of another type, is not.
        let mut b = Builder::new(TypeTable::VOID);
        let c = b.param("c", TypeTable::I1);
        let entry = b.block("entry");
        let body = b.block("loop");
        let exit = b.block("exit");
        b.term(entry, Terminator::Br(body));
        let zero = b.int(TypeTable::I32, 0);
        let x_value = b.body.values.next_key();
        let phi = InstKind::Phi {
            ty: TypeTable::I32,
            incoming: vec![(zero, entry), (x_value, body)],
            shadow: Some(x_value),
        };
        let x = b.inst(body, Some("x"), TypeTable::I32, phi);
        assert_eq!(x, x_value);
        let later_value = Value(x_value.0 + 2);
        let phi = InstKind::Phi {
            ty: TypeTable::I32,
            incoming: vec![(zero, entry), (zero, body)],
            shadow: Some(later_value),
        };
        b.inst(body, Some("y"), TypeTable::I32, phi);
        let later = b.add(body, "later", x, x);
        assert_eq!(later, later_value);
        let phi = InstKind::Phi {
            ty: TypeTable::I32,
            incoming: vec![(zero, entry), (zero, body)],
            shadow: Some(c),
        };
        b.inst(body, Some("z"), TypeTable::I32, phi);
        b.term(
            body,
            Terminator::CondBr {
                cond: c,
                if_true: body,
                if_false: exit,
            },
        );
        b.term(exit, Terminator::Ret(None));
        check(
            b.finish(),
            &[
                "use of %later is not dominated by its definition (SSA, thesis §2.2)",
                "shadow operand %c has type i1, but the phi has type i32 (thesis §4.8)",
            ],
        );
    }

    #[test]
    fn irreducible_is_a_note() {
        let mut b = Builder::new(TypeTable::VOID);
        let c = b.param("c", TypeTable::I1);
        let entry = b.block("entry");
        let x = b.block("x");
        let y = b.block("y");
        b.term(
            entry,
            Terminator::CondBr {
                cond: c,
                if_true: x,
                if_false: y,
            },
        );
        b.term(
            x,
            Terminator::CondBr {
                cond: c,
                if_true: y,
                if_false: x,
            },
        );
        b.term(y, Terminator::Br(x));
        let report = check(b.finish(), &[]);
        assert_eq!(report.reducible, vec![(FuncId(0), false)]);
        let notes: Vec<&str> = report.notes.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(notes, ["function @f is irreducible (allowed)"]);
    }

    #[test]
    fn malformed_handles_do_not_panic() {
        let mut b = Builder::new(TypeTable::VOID);
        let entry = b.block("entry");
        b.term(entry, Terminator::Br(Block(9)));
        b.body.blocks[entry].predicate = Some(Value(42));
        check(
            b.finish(),
            &[
                "malformed ir: predicate of %entry is a missing value",
                "malformed ir: terminator of %entry targets a missing block",
            ],
        );
        let mut empty = Builder::new(TypeTable::VOID);
        empty.body.layout.clear();
        check(empty.finish(), &["function @f has no blocks (Def. 1)"]);
    }
}
