//! What every transform checks before its first change, and the normal form they
//! share: one exit block.
//!
//! The transforms take SPMD code as a front end writes it (thesis §8.5: partial
//! linearization "relies on proper predication of the code inside the blocks",
//! which it adds itself): no block predicates and no `total` commands in the
//! input, because the predicates a transform adds would change what those mean.
//! The checks name the first offending construct ([`Site`]) so that the front end
//! can print `file:line:col`.

use crate::edit::Editor;
use crate::error::{Site, TransformError};
use pllvm_analysis::loops::LoopInfo;
use pllvm_semantics::ir::{
    BinOp, Block, Body, ConstData, FuncId, InstKind, Module, Terminator, Value,
};
use pllvm_semantics::types::TypeTable;

/// The body of `func`, or an error naming the declaration.
pub fn body_of<'m>(
    module: &'m Module,
    func: FuncId,
    pass: &'static str,
) -> Result<&'m Body, TransformError> {
    module.functions[func].body.as_ref().ok_or_else(|| {
        TransformError::new(
            pass,
            Site::Function(func),
            format!(
                "@{} is only declared: there is no body to transform",
                module.functions[func].name
            ),
        )
    })
}

/// Refuses a block predicate other than `true` (Def. 7) and a `total` command
/// ([W-CMD-TOTAL]) with a side effect: the input must be unpredicated SPMD code.
/// Side-effect-free `total` commands (the mask arithmetic and horizontal builtins
/// the divergent loop transform emits) are fine: after linearization a block may
/// run with no active lane, and a pure command then only recomputes a value.
pub fn require_unpredicated(
    module: &Module,
    func: FuncId,
    pass: &'static str,
) -> Result<(), TransformError> {
    let body = body_of(module, func, pass)?;
    for &b in &body.layout {
        let data = &body.blocks[b];
        if let Some(p) = data.predicate
            && !is_true(body, p)
        {
            return Err(TransformError::new(
                pass,
                Site::Block(func, b),
                format!(
                    "unsupported construct: block %{} has a predicate; {pass} takes unpredicated SPMD code and adds the predicates itself (thesis §8.5)",
                    data.name
                ),
            ));
        }
        for &i in data.phis.iter().chain(&data.body) {
            if body.insts[i].total && !is_pure(module, &body.insts[i].kind) {
                return Err(TransformError::new(
                    pass,
                    Site::Inst(func, i),
                    format!(
                        "unsupported construct: a `total` {} in block %{}; a transform may schedule a block where no lane is active, so only side-effect-free commands may be `total` in its input",
                        body.insts[i].kind.opcode(),
                        data.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Refuses an irreducible CFG (thesis §2.4: the routes built on natural loops).
pub fn require_reducible(
    module: &Module,
    func: FuncId,
    pass: &'static str,
) -> Result<LoopInfo, TransformError> {
    let body = body_of(module, func, pass)?;
    LoopInfo::compute(body).map_err(|e| {
        TransformError::new(
            pass,
            Site::Function(func),
            format!(
                "{}; {pass} needs natural loops (thesis §2.4, §8.3): use --pass reconverge, which handles irreducible control flow",
                e.in_function(&module.functions[func].name)
            ),
        )
    })
}

/// Whether `v` is the constant `true`.
pub fn is_true(body: &Body, v: Value) -> bool {
    matches!(body.as_const(v), Some(ConstData::Int(n)) if *n == 1u32.into())
}

/// Gives the function one exit block: every `ret` becomes a branch to a new block
/// `exit` that returns a phi of the returned values, and every `unreachable`
/// becomes a branch there with `undef` (a lane reaching `unreachable` is undefined
/// behaviour in the input, so any result refines it). Returns the exit block; a
/// function with exactly one `ret` and no `unreachable` keeps it.
pub fn unify_exits(ed: &mut Editor) -> Option<Block> {
    let layout = ed.body().layout.clone();
    let sinks: Vec<Block> = layout
        .iter()
        .copied()
        .filter(|&b| {
            matches!(
                ed.body().blocks[b].term,
                Terminator::Ret(_) | Terminator::Unreachable
            )
        })
        .collect();
    if let [only] = sinks[..]
        && matches!(ed.body().blocks[only].term, Terminator::Ret(_))
    {
        return Some(only);
    }
    if sinks.is_empty() {
        return None;
    }
    let ret_ty = ed.module().functions[ed.func()].ret_ty;
    let exit = ed.new_block("exit", Terminator::Unreachable);
    ed.place_at_end(exit);
    let mut arms = Vec::new();
    for b in sinks {
        let returned = match ed.body().blocks[b].term {
            Terminator::Ret(v) => v,
            _ => None,
        };
        if ret_ty != TypeTable::VOID {
            let v = match returned {
                Some(v) => v,
                None => ed.undef(ret_ty),
            };
            arms.push((v, b));
        }
        ed.body_mut().blocks[b].term = Terminator::Br(exit);
    }
    let ret = if ret_ty == TypeTable::VOID {
        None
    } else {
        Some(ed.phi(exit, ret_ty, arms, None, "retval"))
    };
    ed.body_mut().blocks[exit].term = Terminator::Ret(ret);
    Some(exit)
}

/// Whether `kind` has no side effect and cannot be undefined behaviour in a lane
/// that did not need it: arithmetic, comparisons, casts, `select`, `freeze`,
/// `getelementptr`, `mask()`, the vector and aggregate element instructions, and
/// the builtins of Fig. 4.15 (`@pllvm.*`).
pub fn is_pure(module: &Module, kind: &InstKind) -> bool {
    match kind {
        InstKind::Binary { op, .. } => {
            !matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem)
        }
        InstKind::Phi { .. }
        | InstKind::FNeg { .. }
        | InstKind::ICmp { .. }
        | InstKind::FCmp { .. }
        | InstKind::Cast { .. }
        | InstKind::Select { .. }
        | InstKind::Freeze { .. }
        | InstKind::Gep { .. }
        | InstKind::Mask => true,
        InstKind::Call { callee, .. } => module.functions[*callee].name.starts_with("pllvm."),
        InstKind::Alloca { .. } | InstKind::Load { .. } | InstKind::Store { .. } => false,
        InstKind::ExtractElement { .. }
        | InstKind::InsertElement { .. }
        | InstKind::ShuffleVector { .. }
        | InstKind::ExtractValue { .. }
        | InstKind::InsertValue { .. } => true,
        InstKind::AtomicRmw { .. } | InstKind::CmpXchg { .. } | InstKind::Fence { .. } => false,
    }
}
