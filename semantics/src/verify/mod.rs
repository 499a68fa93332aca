//! The verifier: well-formedness of P-LLVM modules (thesis §4.10, Def. 11, on top of
//! LLVM's own well-formedness rules).
//!
//! [`verify_module`] reports *all* errors of a module, sorted by source position
//! (docs/design/style.md §5), plus notes that are information only. Each message names the
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

//!
//! - **Convergence control tokens** (LLVM's convergent operations document,
//!   "Static Rules" and the intrinsics' own rules): `tokens`.
//!
//! The checks are grouped by family: `structure` (Def. 1 and the CFG), `ssa`
//! (names and dominance), `types`, `predicates` (Def. 11.1, modifiers),
//! `calls` (Def. 11.2) and `tokens` (convergence control).

mod calls;
mod predicates;
mod ssa;
mod structure;
#[cfg(test)]
mod tests;
mod tokens;
mod types;

use crate::cfg::Cfg;
use crate::diag::{Diagnostic, FunctionSpans, SourceMap, Span};
use crate::entity::SecondaryMap;
use crate::ir::{Block, Body, ConstData, FuncId, FunctionData, Inst, Module, Value, ValueDef};
use num_bigint::BigUint;

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
        "call to @{callee}: P-LLVM has no calls to P-LLVM functions (thesis §4.9.2, Def. 11.2); the parser inlines calls that match their definition (docs/language.md)"
    )]
    CallsPllvmFunction { callee: String },
    #[error(
        "call to @{callee}, which is not in the function map θ (Def. 11.2, defined functions): the pllvm.* names are θ's own"
    )]
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
    #[error(
        "a call takes at most one \"convergencectrl\" bundle (convergent operations: convergence tokens)"
    )]
    TokenBundleTwice,
    #[error(
        "a \"convergencectrl\" bundle takes exactly one operand of type token (convergent operations: convergence tokens)"
    )]
    TokenBundleShape,
    #[error(
        "{value} is not a convergence control token: tokens are produced only by calls to llvm.experimental.convergence.entry, .anchor or .loop (convergent operations: convergence control intrinsics)"
    )]
    TokenNotFromControl { value: String },
    #[error(
        "llvm.experimental.convergence.entry in @{func}, which is not convergent: the entry intrinsic occurs only in a convergent function (convergent operations: llvm.experimental.convergence.entry)"
    )]
    EntryOutsideConvergent { func: String },
    #[error(
        "llvm.experimental.convergence.entry occurs only in the entry block (convergent operations: llvm.experimental.convergence.entry)"
    )]
    EntryNotInEntryBlock,
    #[error(
        "{intrinsic} must precede every other convergent operation of its block (convergent operations: {intrinsic})"
    )]
    ControlNotFirst { intrinsic: &'static str },
    #[error("{intrinsic} takes no \"convergencectrl\" bundle (convergent operations: {intrinsic})")]
    ControlWithBundle { intrinsic: &'static str },
    #[error(
        "llvm.experimental.convergence.loop needs a \"convergencectrl\" bundle naming the token of the iteration around it (convergent operations: llvm.experimental.convergence.loop)"
    )]
    LoopWithoutBundle,
    #[error(
        "uncontrolled convergent call to @{callee} in a function with controlled convergent operations: the two cannot be mixed in one function (convergent operations: uncontrolled convergent operations)"
    )]
    MixedConvergence { callee: String },
    #[error(
        "@{func} takes a parameter of type token: only intrinsics take tokens as arguments (convergent operations: convergence tokens)"
    )]
    TokenParameter { func: String },
    #[error(
        "a {opcode} cannot have type token: convergence tokens are not values to choose between (convergent operations: convergence tokens)"
    )]
    TokenChosen { opcode: &'static str },
    #[error(
        "the use of {token} is outside its convergence region's nesting: a convergence region that holds a use of a token holds its definition (convergent operations: convergence regions)"
    )]
    RegionNotNested { token: String },
    #[error(
        "{token} is used inside a cycle that does not contain its definition by a call other than llvm.experimental.convergence.loop: every closed path through a use of a token contains its definition unless the use is a cycle's heart (convergent operations: static rule 1 about closed paths)"
    )]
    TokenUsedAcrossCycle { token: String },
    #[error(
        "the heart using {token} does not dominate {block}, which is on a closed path through it that avoids the token's definition: a heart sits in the header of a natural loop (convergent operations: static rule 4 about closed paths)"
    )]
    HeartNotDominating { token: String, block: String },
    #[error(
        "a second use of {token} on a closed path that does not contain its definition: a cycle has one heart (convergent operations: static rule 2 about closed paths)"
    )]
    TwoHearts { token: String },
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
        self.check_tokens(&cfg, &dom);
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
                ConstData::Zero
                    if self.module.types.get(data.ty) == &crate::types::TypeData::Token =>
                {
                    "none".into()
                }
                ConstData::Zero => "zeroinitializer".into(),
                ConstData::Elems(_) => "a vector or aggregate constant".into(),
                ConstData::Splat(_) => "a splat constant".into(),
                ConstData::Expr(_) => crate::text::print_value(self.module, self.body, value),
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
