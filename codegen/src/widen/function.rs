//! The chunk function of one kernel: its prologue (the lanes that exist, the
//! arguments, the globals, the stack objects) and every block of the transformed
//! program widened command by command, each after the rule of thesis Ch. 4 it
//! reproduces.
//!
//! Names: `%v<N>` is value N of the kernel (every instruction result and parameter
//! is defined under that name, so a phi may name a value its block precedes in
//! layout), `%b<N>` block N, `%t<N>` temporaries, `%g.<N>` the address of global N.
//!
//! This file holds the emitter's state (`Emitter`) and the entry [`emit`];
//! its methods are in files by family: `builder` (temporaries, instructions,
//! intrinsic calls declared on first use, types), `operands` (constants and
//! the forms of values), `masks` (existing lanes, activation, reductions of
//! masks), `blocks` (blocks, phis, terminators), `prologue`, `commands` (the
//! dispatch and the arithmetic), `memory` (allocas, loads, stores) and `calls`
//! (θ's builtins and math functions).
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "[RULE] names the thesis's rules, not items"
)]

mod blocks;
mod builder;
mod calls;
mod commands;
mod masks;
mod memory;
mod operands;
mod prologue;

use super::repr::{self, Repr};
use super::target::{CONTIGUOUS, Declarations, MaskRepr, PASS, VectorTarget};
use crate::error::{Site, TransformError};
use crate::kernel::Kernel;
use num_bigint::BigUint;
use pllvm_analysis::result::Uniformity;
use pllvm_analysis::sa_shape::SaShape;
use pllvm_semantics::cfg::{BlockDomTree, Cfg};
use pllvm_semantics::entity::{EntityRef, SecondaryMap};
use pllvm_semantics::ir::{
    BinOp, Block, Body, CastOp, ConstData, FuncId, FunctionData, Inst, InstKind, Module,
    Terminator, Value, ValueDef,
};
use pllvm_semantics::theta::{self, Builtin};
use pllvm_semantics::types::{Ty, TypeData};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;

/// What the emitter of one kernel is given besides the kernel.
pub struct Setup<'a> {
    /// W, the lanes of a chunk.
    pub width: usize,
    /// How varying `i1` values are held.
    pub mask: MaskRepr,
    /// The divergence analysis of the kernel (which values stay scalar).
    pub uniformity: &'a Uniformity,
    /// The `sa` analysis's shapes (thesis Fig. 10.4), for contiguous accesses.
    pub strides: &'a BTreeMap<Value, SaShape>,
    /// The instruction set (how reductions are best spelled for it).
    pub target: VectorTarget,
    /// The kernel is the output of partial linearization or full
    /// if-conversion ([`super::WidenOptions::linearized`]).
    pub linearized: bool,
    /// Emit a second body for full chunks ([`super::WidenOptions::full_chunks`]).
    pub full_chunks: bool,
}

/// In which form an operand is wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// One scalar of the value's type.
    Scalar,
    /// `<W x T>`; for `i1` the mask representation (`<W x i1>` or `<W x i32>`).
    Vector,
    /// `<W x i1>` (only for `i1` values): what masks and selects take.
    Bits,
}

/// An error at `site`.
fn refuse(site: Site, message: impl Into<String>) -> TransformError {
    TransformError::new(PASS, site, message)
}

/// The emitter's state for one kernel.
struct Emitter<'a, 'd> {
    module: &'a Module,
    body: &'a Body,
    func: FuncId,
    setup: &'a Setup<'a>,
    repr: SecondaryMap<Value, Repr>,
    decls: &'d mut Declarations,
    /// The text of the block being emitted (and of the prologue).
    out: String,
    /// Lines hoisted to the prologue (stack objects of constant size).
    prologue_allocas: String,
    next_tmp: usize,
    /// The activation of the block being emitted, in the vector form of `i1`
    /// (the mask representation).
    amask: String,
    /// The activation as `<W x i1>`, once computed in the block.
    amask_bits: Option<String>,
    /// `<W x i1>` forms of `<W x i32>` masks computed in the block being emitted.
    bits_cache: BTreeMap<Value, String>,
    /// Which values may be LLVM poison or undef ([`repr::may_be_poison`]).
    poison: SecondaryMap<Value, bool>,
    /// Which `i1` vectors are false in the lanes that do not exist
    /// ([`repr::confined`]).
    confined: SecondaryMap<Value, bool>,
    /// Splats of scalar parameters, computed once in the prologue: (value,
    /// form) → name.
    param_splats: BTreeMap<(Value, bool), String>,
    /// Float results whose NaN the program can observe: made the preferred NaN
    /// where they are computed ([`super::nan`]).
    nan_results: HashSet<Value>,
    /// The dominator tree of the kernel's CFG.
    doms: BlockDomTree,
    /// The block being emitted.
    current: Block,
    /// The block of every instruction.
    inst_block: BTreeMap<Inst, Block>,
    /// Every `any`/`all` of the kernel by (is `any`, [`reduction_key`]): its
    /// block and result.
    reductions: BTreeMap<(bool, Value), Vec<(Block, Value)>>,
    /// Phis of `i1` reductions placed at the top of a block (after its phis).
    extra_phis: BTreeMap<Block, String>,
    /// Per block, its predecessors in layout order with how many edges each
    /// sends there: the arms of its phis (computed once, not per phi).
    edges_into: BTreeMap<Block, Vec<(Block, usize)>>,
    /// Whether the block has a predicate (so its activation may be empty).
    predicated: bool,
    /// `reduce.or(amask)` of the block, once computed.
    any_active: Option<String>,
    /// Phi operands materialized in predecessors: (phi, predecessor) → text.
    phi_args: BTreeMap<(Inst, Block), String>,
    /// Which chunks the function body runs ([`Lanes`]).
    lanes: Lanes,
}

/// Which chunks a chunk function body is emitted for. A launch of n threads
/// runs all its chunks but the last with every lane existing (count = W), so
/// the chunk function dispatches on `count` to a body where the existence mask
/// is the constant all-true, which llc folds away (no `and` with it, plain
/// loads and stores of the argument and result words, one register freed in
/// every loop), and to the general body for a tail chunk (count < W).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lanes {
    /// count = W: every lane exists.
    Full,
    /// Any count (1 ≤ count ≤ W): the lanes `lane < count` exist.
    Any,
}

/// The chunk function of `kernel` (the native ABI: `void(i64 base, i64 count,
/// ptr args, i64 n, ptr ret, ptr globals)`), recording the declarations it uses.
pub fn emit(
    kernel: &Kernel<'_>,
    setup: &Setup<'_>,
    decls: &mut Declarations,
) -> Result<String, TransformError> {
    let module = kernel.module;
    let func = kernel.function;
    let data = &module.functions[func];
    let body = data
        .body
        .as_ref()
        .ok_or_else(|| refuse(Site::Function(func), format!("@{} has no body", data.name)))?;
    check(module, func, data, body, setup.uniformity, setup.linearized)?;
    let reprs = repr::decide(module, body, setup.uniformity);
    let mut inst_block = BTreeMap::new();
    for &block in &body.layout {
        let b = &body.blocks[block];
        for &inst in b.phis.iter().chain(&b.body) {
            inst_block.insert(inst, block);
        }
    }
    let mut reductions: BTreeMap<(bool, Value), Vec<(Block, Value)>> = BTreeMap::new();
    for (&inst, &block) in &inst_block {
        let data = &body.insts[inst];
        if let (InstKind::Call { callee, args, .. }, Some(result)) = (&data.kind, data.result)
            && let Some(b @ (Builtin::Any | Builtin::All)) =
                theta::resolve(&module.functions[*callee].name)
            && let Some(&arg) = args.first()
        {
            let key = reduction_key(body, &inst_block, arg);
            reductions
                .entry((b == Builtin::Any, key))
                .or_default()
                .push((block, result));
        }
    }
    let confined = repr::confined(module, body, &reprs);
    let prepared = Prepared {
        reprs,
        inst_block,
        reductions,
        confined,
    };
    let part = format!("pllvm_part_{}", kernel.name);
    let full = format!("pllvm_full_{}", kernel.name);
    let chunk = format!("pllvm_chunk_{}", kernel.name);
    if setup.width == 1 {
        // count = 1 = W in every chunk.
        return chunk_body(kernel, setup, decls, &prepared, Lanes::Full, &chunk);
    }
    if !setup.full_chunks {
        return chunk_body(kernel, setup, decls, &prepared, Lanes::Any, &chunk);
    }
    let mut text = chunk_body(kernel, setup, decls, &prepared, Lanes::Full, &full)?;
    text.push_str(&chunk_body(
        kernel,
        setup,
        decls,
        &prepared,
        Lanes::Any,
        &part,
    )?);
    let params = "i64 %base, i64 %count, ptr %args, i64 %n, ptr %ret, ptr %globals";
    let _ = write!(
        text,
        "define internal void @{chunk}({params}) {{\n\
         entry:\n  %full = icmp eq i64 %count, {w}\n  br i1 %full, label %full.chunk, label %part.chunk\n\
         full.chunk:\n  tail call void @{full}({params})\n  ret void\n\
         part.chunk:\n  tail call void @{part}({params})\n  ret void\n}}\n",
        w = setup.width
    );
    Ok(text)
}

/// What [`chunk_body`] needs of the kernel, computed once for its bodies.
struct Prepared {
    reprs: SecondaryMap<Value, Repr>,
    inst_block: BTreeMap<Inst, Block>,
    reductions: BTreeMap<(bool, Value), Vec<(Block, Value)>>,
    confined: SecondaryMap<Value, bool>,
}

/// One body of the chunk function of `kernel`, for the chunks `lanes` says,
/// as the function `@name` with the ABI's parameters.
fn chunk_body(
    kernel: &Kernel<'_>,
    setup: &Setup<'_>,
    decls: &mut Declarations,
    prepared: &Prepared,
    lanes: Lanes,
    name: &str,
) -> Result<String, TransformError> {
    let module = kernel.module;
    let func = kernel.function;
    let data = &module.functions[func];
    let body = data
        .body
        .as_ref()
        .ok_or_else(|| refuse(Site::Function(func), format!("@{} has no body", data.name)))?;
    let mut e = Emitter {
        module,
        body,
        func,
        setup,
        repr: prepared.reprs.clone(),
        decls,
        out: String::new(),
        prologue_allocas: String::new(),
        next_tmp: 0,
        amask: String::new(),
        amask_bits: None,
        bits_cache: BTreeMap::new(),
        poison: repr::may_be_poison(module, body),
        confined: prepared.confined.clone(),
        param_splats: BTreeMap::new(),
        nan_results: super::nan::observed_nan_results(module, body),
        doms: Cfg::new(body).dominators(),
        current: body
            .entry()
            .ok_or_else(|| refuse(Site::Function(func), "the function has no blocks"))?,
        inst_block: prepared.inst_block.clone(),
        reductions: prepared.reductions.clone(),
        extra_phis: BTreeMap::new(),
        edges_into: edges_into(body),
        predicated: false,
        any_active: None,
        phi_args: BTreeMap::new(),
        lanes,
    };
    e.amask = e.existing_vector();
    let mut blocks = Vec::new();
    for &block in &body.layout {
        e.out.clear();
        e.block(block)?;
        blocks.push((block, std::mem::take(&mut e.out)));
    }
    let prologue = e.prologue(data)?;
    let mut text = format!(
        "define internal void @{name}(i64 %base, i64 %count, ptr %args, i64 %n, ptr %ret, ptr %globals) {{\nprologue:\n"
    );
    text.push_str(&prologue);
    for (block, commands) in blocks {
        let _ = writeln!(text, "b{}:", block.index());
        for &phi in &body.blocks[block].phis {
            text.push_str(&e.phi(block, phi)?);
        }
        if let Some(extra) = e.extra_phis.get(&block) {
            text.push_str(extra);
        }
        text.push_str(&commands);
    }
    text.push_str("}\n");
    Ok(text)
}

/// Per block, its predecessors in layout order with the number of edges each
/// sends there.
fn edges_into(body: &Body) -> BTreeMap<Block, Vec<(Block, usize)>> {
    let mut into: BTreeMap<Block, Vec<(Block, usize)>> = BTreeMap::new();
    for &pred in &body.layout {
        let succs = body.blocks[pred].term.successors();
        let mut seen: Vec<Block> = Vec::new();
        for &s in &succs {
            if !seen.contains(&s) {
                seen.push(s);
                let edges = succs.iter().filter(|&&x| x == s).count();
                into.entry(s).or_default().push((pred, edges));
            }
        }
    }
    into
}

/// The checks that run before anything is emitted: types the ABI carries, and
/// that every branch is uniform or a BOSCC branch on `any`/`all` (thesis §9.2),
/// unless the kernel is `linearized` (see [`super::WidenOptions::linearized`]).
fn check(
    module: &Module,
    func: FuncId,
    data: &FunctionData,
    body: &Body,
    uniformity: &Uniformity,
    linearized: bool,
) -> Result<(), TransformError> {
    let types = &module.types;
    for (k, p) in data.params.iter().enumerate() {
        if !abi_scalar(types.get(p.ty)) {
            let name = body.value_name(p.value).unwrap_or("?");
            return Err(refuse(
                Site::Function(func),
                format!(
                    "parameter {k} (%{name}) has type {}: the native ABI passes only integers of at most 64 bits, float, double and ptr",
                    types.display(p.ty)
                ),
            ));
        }
    }
    let ret = types.get(data.ret_ty);
    if !matches!(ret, TypeData::Void) && !abi_scalar(ret) {
        return Err(refuse(
            Site::Function(func),
            format!(
                "the return type {} is not an integer of at most 64 bits, float, double or ptr (the native ABI)",
                types.display(data.ret_ty)
            ),
        ));
    }
    for &block in &body.layout {
        let b = &body.blocks[block];
        for &inst in b.phis.iter().chain(&b.body) {
            if let Some(result) = body.insts[inst].result {
                let ty = body.values[result].ty;
                if !abi_scalar(types.get(ty)) {
                    return Err(refuse(
                        Site::Inst(func, inst),
                        format!(
                            "`{}` yields a value of type {}: widening takes integers of at most 64 bits, float, double and ptr",
                            body.insts[inst].kind.opcode(),
                            types.display(ty)
                        ),
                    ));
                }
            }
        }
        // The condition's shape decides, not the terminator's: in a block whose
        // activation varies (a predicated block of the linearized CFG) the
        // analysis calls every terminator varying, but lanes whose predicate is
        // false are passive and take any successor (ℓ_next = ⊤, Def. 6), so a
        // condition uniform among the active lanes is a uniform branch. With no
        // lane active any direction is an outcome of the transformed program.
        if let Terminator::CondBr { cond, .. } | Terminator::Switch { cond, .. } = &b.term
            && !linearized
            && uniformity.value(*cond).is_varying()
            && !repr::is_any_or_all(module, body, *cond)
        {
            return Err(refuse(
                Site::Terminator(func, block),
                format!(
                    "the branch of block %{} is divergent and not on @pllvm.any: widening needs the output of the transforms (`--pass dlt,boscc,pl`), where every branch is uniform",
                    b.name
                ),
            ));
        }
    }
    Ok(())
}

/// Whether a value of this type fits one 64-bit argument word (and one vector lane).
fn abi_scalar(ty: &TypeData) -> bool {
    match ty {
        TypeData::Int(w) => *w <= 64,
        TypeData::F32 | TypeData::F64 | TypeData::Ptr(_) => true,
        _ => false,
    }
}

/// What `any`/`all` of `arg` reduces: `arg` itself, or `x` when `arg` is
/// `select(mask(), x, false)` (either way round) with `mask()` in a block
/// without predicate, where the activation is the existing lanes, which the
/// reductions range over anyway.
fn reduction_key(body: &Body, inst_block: &BTreeMap<Inst, Block>, arg: Value) -> Value {
    let Some(inst) = body.def_inst(arg) else {
        return arg;
    };
    let InstKind::Select {
        cond,
        if_true,
        if_false,
        ..
    } = &body.insts[inst].kind
    else {
        return arg;
    };
    let is_false = matches!(body.as_const(*if_false), Some(ConstData::Int(k)) if !k.bit(0));
    let existing_mask = |v: Value| {
        body.def_inst(v).is_some_and(|i| {
            matches!(body.insts[i].kind, InstKind::Mask)
                && inst_block
                    .get(&i)
                    .is_some_and(|b| body.blocks[*b].predicate.is_none())
        })
    };
    if !is_false {
        return arg;
    }
    if existing_mask(*cond) {
        *if_true
    } else if existing_mask(*if_true) {
        *cond
    } else {
        arg
    }
}

/// The bits of the `double` equal to the `float` with bits `f` (LLVM writes float
/// constants as doubles). A NaN keeps its payload, shifted into place.
fn f32_as_double_bits(f: u32) -> u64 {
    let value = f32::from_bits(f);
    if value.is_nan() {
        let sign = u64::from(f >> 31) << 63;
        let payload = u64::from(f & 0x7F_FFFF) << 29;
        sign | (0x7FFu64 << 52) | payload
    } else {
        f64::from(value).to_bits()
    }
}

/// Whether `PLLVM_SEEDED_BUG` (comma-separated) names the seeded bug `name`
/// (only with the `seeded-bugs` feature; `pllvm fuzz`'s own test, docs/fuzzing.md):
/// `blend` swaps the arms of a per-lane `select`.
#[cfg(feature = "seeded-bugs")]
fn seeded_bug(name: &str) -> bool {
    static BUGS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUGS.get_or_init(|| std::env::var("PLLVM_SEEDED_BUG").unwrap_or_default())
        .split(',')
        .any(|b| b == name)
}
