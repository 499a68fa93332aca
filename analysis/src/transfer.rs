//! The abstract transformers of thesis §6.5 (Fig. 6.5-6.8, 6.10, 6.13): one
//! function per [DA-*] rule, and the dispatchers that choose between them.
//!
//! A transformer `[[c]]# = VarAllocas, NewShape` (Listing 1, line 14) reads the
//! analysis state through `DaState` and returns the stack objects the command
//! makes varying and the shape of its result. The worklist that applies them to a
//! fixpoint is [`crate::engine`]. Cases the thesis leaves open (calls, stack
//! addresses, `total`, uses outside a loop) are decided in the dispatchers, as the
//! module documentation of [`crate::thesis`] records.

use crate::calls::{CallKind, call_kind};
use crate::shape::Shape;
use crate::state::DaState;
use pllvm_semantics::ir::{Block, CastOp, ICmpPred, Inst, InstKind, Terminator, Value, ValueDef};
use std::collections::BTreeSet;

/// The shape of a use of `v` in block `user`: [DA-CONST] for a constant, [DA-ID]
/// otherwise (Fig. 6.5).
pub(crate) fn operand<S: DaState + ?Sized>(state: &S, user: Block, v: Value) -> Shape {
    match &state.body().values[v].def {
        ValueDef::Const(_) => da_const(),
        ValueDef::Param(_) | ValueDef::Inst(_) => da_id(state, user, v),
    }
}

/// [DA-CONST] (Fig. 6.5): a constant is uniform.
fn da_const() -> Shape {
    Shape::Uniform
}

/// [DA-ID] (Fig. 6.5): `[[id]]# = Shapes(id)`, read in block `user`. A value read
/// outside the loop that defines it is varying when lanes may have left that loop in
/// different iterations (as if an LCSSA phi sat between, §6.3).
fn da_id<S: DaState + ?Sized>(state: &S, user: Block, v: Value) -> Shape {
    // Premise: Shapes(id).
    let shape = state.basic(v);
    if shape != Shape::Bottom && state.live_out_varying(user, v) {
        return Shape::Varying;
    }
    shape
}

/// The shape of `v` read in *every* lane (for `total`, [W-CMD-TOTAL]): uniform only
/// for a constant, a parameter, a `total` result, or a value of a block outside
/// `adep*` (executed by every lane).
fn absolute<S: DaState + ?Sized>(state: &S, user: Block, v: Value) -> Shape {
    let s = operand(state, user, v);
    if s != Shape::Uniform {
        return s;
    }
    match &state.body().values[v].def {
        ValueDef::Const(_) | ValueDef::Param(_) => Shape::Uniform,
        ValueDef::Inst(i) => {
            if state.body().insts[*i].total {
                return Shape::Uniform;
            }
            match state.block_of(*i) {
                Some(d) if !state.activation_divergent(d) => Shape::Uniform,
                _ => Shape::Varying,
            }
        }
    }
}

/// The side-effect free operations over `shapes`: [DA-DARITH] if one is `v`,
/// [DA-UARITH] if all are `u`, ⊥ otherwise (no rule applies yet).
pub(crate) fn arith(shapes: impl IntoIterator<Item = Shape>) -> Shape {
    let mut all_uniform = true;
    for s in shapes {
        match s {
            Shape::Varying => return da_darith(),
            Shape::Bottom => all_uniform = false,
            Shape::Uniform => {}
        }
    }
    if all_uniform {
        da_uarith()
    } else {
        Shape::Bottom
    }
}

/// [DA-DARITH] (Fig. 6.6): an operation with a varying operand is varying.
fn da_darith() -> Shape {
    Shape::Varying
}

/// [DA-UARITH] (Fig. 6.6): an operation whose operands are all uniform is uniform.
fn da_uarith() -> Shape {
    Shape::Uniform
}

/// `compute_transformer` (Listing 1, line 14) for instruction `i`:
/// `(VarAllocas, NewShape)`. Chooses the transformer by the instruction's kind.
pub(crate) fn compute_transformer<S: DaState + ?Sized>(
    state: &S,
    i: Inst,
) -> (BTreeSet<Inst>, Shape) {
    let Some(b) = state.block_of(i) else {
        return (BTreeSet::new(), Shape::Bottom);
    };
    let data = &state.body().insts[i];
    let op = |v: Value| {
        if data.total {
            absolute(state, b, v)
        } else {
            operand(state, b, v)
        }
    };
    let none = BTreeSet::new;
    match &data.kind {
        InstKind::Phi {
            incoming, shadow, ..
        } => (none(), phi(state, b, incoming, shadow.is_some())),
        InstKind::Mask => (none(), mask(state, b)),
        InstKind::Load { ptr, .. } => (none(), load(op(*ptr))),
        InstKind::Store { value, ptr, .. } => (
            store(state, b, *ptr, op(*value).join(op(*ptr))),
            Shape::Bottom,
        ),
        InstKind::Alloca { count, .. } => (none(), alloca(state, i, count.iter().map(|&c| op(c)))),
        InstKind::Cast {
            op: CastOp::PtrToInt,
            arg,
            ..
        } if state.may_be_stack(*arg) => (none(), stack_address()),
        InstKind::ICmp { pred, lhs, rhs, .. }
            if !matches!(pred, ICmpPred::Eq | ICmpPred::Ne)
                && (state.may_be_stack(*lhs) || state.may_be_stack(*rhs)) =>
        {
            (none(), stack_address())
        }
        InstKind::Call { callee, args, .. } => {
            match call_kind(state.module(), *callee, args.len()) {
                CallKind::ThreadId | CallKind::Source => (none(), Shape::Varying),
                CallKind::Horizontal | CallKind::AlwaysUniform => (none(), Shape::Uniform),
                CallKind::Pure => (none(), arith(args.iter().map(|&a| op(a)))),
                CallKind::NoEffect => (none(), Shape::Uniform),
                CallKind::Write { dst, data: deps } => {
                    let Some(&p) = args.get(dst) else {
                        return (none(), Shape::Bottom);
                    };
                    let data_shape =
                        arith(deps.iter().filter_map(|&k| args.get(k)).map(|&a| op(a)));
                    (store(state, b, p, data_shape.join(op(p))), Shape::Bottom)
                }
            }
        }
        InstKind::AtomicRmw { ptr, .. } | InstKind::CmpXchg { ptr, .. } => {
            (atomic_write(state, *ptr), Shape::Varying)
        }
        // [DA-UARITH] / [DA-DARITH]: side-effect free operations (the vector and
        // aggregate element instructions among them: varying iff an operand is).
        kind => (none(), arith(kind.operands().into_iter().map(op))),
    }
}

/// An `alloca`'s shape is its object's (Fig. 6.11), and the element count's: the
/// pointers into a uniform object are uniform (each lane's own copy, at the same
/// offset).
fn alloca<S: DaState + ?Sized>(state: &S, i: Inst, count: impl Iterator<Item = Shape>) -> Shape {
    let own = if state.alloca_varying(i) {
        Shape::Varying
    } else {
        Shape::Uniform
    };
    arith(count.chain([own]))
}

/// `ptrtoint` and ordered comparisons of stack addresses are varying: the
/// addresses of the lanes' private copies differ.
fn stack_address() -> Shape {
    Shape::Varying
}

/// The transformer of a phi in block `b` (Fig. 6.7, 6.8): chooses [DA-PHI-D] /
/// [DA-PHI-U], or for a shadow phi [DA-SPHI-D] / [DA-SPHI-U].
fn phi<S: DaState + ?Sized>(
    state: &S,
    b: Block,
    incoming: &[(Value, Block)],
    shadow: bool,
) -> Shape {
    let joined = state.joined(b);
    match (shadow, joined) {
        (false, true) => da_phi_d(),
        (false, false) => da_phi_u(state, incoming),
        // A shadow phi also turns varying when the control mask of its block does:
        // the passive lanes see the shadow operand.
        (true, _) if joined || state.control_divergent(b) => da_sphi_d(),
        (true, _) => da_sphi_u(state, incoming),
    }
}

/// [DA-PHI-D] (Fig. 6.7): a phi in a block of `sdep* ∪ tdep*` is varying.
fn da_phi_d() -> Shape {
    Shape::Varying
}

/// [DA-PHI-U] (Fig. 6.7): otherwise `id# = ⊔ [[val_j]]#`, each operand read at the
/// end of its incoming block (a join, so that loop-carried phis leave ⊥ before their
/// back-edge value does).
fn da_phi_u<S: DaState + ?Sized>(state: &S, incoming: &[(Value, Block)]) -> Shape {
    Shape::join_all(incoming.iter().map(|&(v, q)| operand(state, q, v)))
}

/// [DA-SPHI-D] (Fig. 6.8): a shadow phi in a block of `cdep* ∪ sdep* ∪ tdep*` is
/// varying.
fn da_sphi_d() -> Shape {
    Shape::Varying
}

/// [DA-SPHI-U] (Fig. 6.8): otherwise `id# = ⊔ [[val_j]]#`, as [DA-PHI-U].
fn da_sphi_u<S: DaState + ?Sized>(state: &S, incoming: &[(Value, Block)]) -> Shape {
    Shape::join_all(incoming.iter().map(|&(v, q)| operand(state, q, v)))
}

/// The transformer of `mask()` in block `b` (Fig. 6.6): [DA-DMASK] or [DA-UMASK].
fn mask<S: DaState + ?Sized>(state: &S, b: Block) -> Shape {
    if state.activation_divergent(b) {
        da_dmask()
    } else {
        da_umask()
    }
}

/// [DA-DMASK] (Fig. 6.6): `mask()` in a block of `adep*` is varying.
fn da_dmask() -> Shape {
    Shape::Varying
}

/// [DA-UMASK] (Fig. 6.6): `mask()` in a block outside `adep*` is uniform.
fn da_umask() -> Shape {
    Shape::Uniform
}

/// The transformer of a load through a pointer of shape `ptr` (Fig. 6.10):
/// [DA-LOAD-D] or [DA-LOAD-U]; ⊥ while the pointer is ⊥.
pub(crate) fn load(ptr: Shape) -> Shape {
    match ptr {
        Shape::Varying => da_load_d(),
        Shape::Uniform => da_load_u(),
        Shape::Bottom => Shape::Bottom,
    }
}

/// [DA-LOAD-D] (Fig. 6.10): a load through a varying pointer is varying.
fn da_load_d() -> Shape {
    Shape::Varying
}

/// [DA-LOAD-U] (Fig. 6.10): a load through a uniform pointer is uniform.
fn da_load_u() -> Shape {
    Shape::Uniform
}

/// The transformer of a store (or a memory intrinsic) through `ptr` in block `b`
/// (Fig. 6.10): [DA-STORE-D] when the data or the pointer (`operands`, their join)
/// or `pmsk` (the block in `adep*`) is varying, [DA-STORE-U] otherwise (while an
/// operand is ⊥ no object turns varying either).
fn store<S: DaState + ?Sized>(state: &S, b: Block, ptr: Value, operands: Shape) -> BTreeSet<Inst> {
    let pmsk = state.activation_divergent(b);
    if operands.is_varying() || pmsk {
        da_store_d(state, ptr)
    } else {
        da_store_u()
    }
}

/// `atomicrmw` and `cmpxchg` (pllvm's reading; the thesis has no atomics): the
/// active lanes act one after another, each reading what the previous one wrote,
/// so the result is varying (LLVM's AMDGPU and NVPTX targets call them sources of
/// divergence); as writes, the objects they may touch turn varying as under
/// [DA-STORE-D], whatever the operands.
fn atomic_write<S: DaState + ?Sized>(state: &S, ptr: Value) -> BTreeSet<Inst> {
    da_store_d(state, ptr)
}

/// [DA-STORE-D] (Fig. 6.10): `P = aliased_allocas(val_ptr)` turn varying.
fn da_store_d<S: DaState + ?Sized>(state: &S, ptr: Value) -> BTreeSet<Inst> {
    state.aliased_allocas(ptr)
}

/// [DA-STORE-U] (Fig. 6.10): no stack object turns varying.
fn da_store_u() -> BTreeSet<Inst> {
    BTreeSet::new()
}

/// [DA-JOIN-D] (Fig. 6.13): an Alloca SSA `Join` of `alloca` in a block of
/// `sdep* ∪ tdep*` makes the object varying.
pub(crate) fn da_join_d<S: DaState + ?Sized>(
    state: &S,
    block: Block,
    alloca: Inst,
) -> Option<Inst> {
    // Premise: Block(#id) ∈ sdep* ∪ tdep*.
    state.joined(block).then_some(alloca)
}

/// The transformer of a terminator: `v` if it may send the active lanes to
/// different successors (§6.3; successor indices, as [PC-ACTIVE] numbers them: a
/// `switch` whose cases share a block still picks different indices).
pub(crate) fn terminator_transformer<S: DaState + ?Sized>(state: &S, b: Block) -> Shape {
    let data = &state.body().blocks[b];
    let mut succs = data.term.successors();
    succs.sort_unstable();
    succs.dedup();
    let cond = match &data.term {
        Terminator::CondBr { cond, .. } | Terminator::Switch { cond, .. } => {
            operand(state, b, *cond)
        }
        _ => Shape::Uniform,
    };
    // A lane whose predicate is false takes any successor ([PC-ND-BRANCH]).
    let predicate = match data.predicate {
        Some(p) if succs.len() > 1 => operand(state, b, p),
        _ => Shape::Uniform,
    };
    arith([cond, predicate])
}
