//! The chunk function of one kernel: its prologue (the lanes that exist, the
//! arguments, the globals, the stack objects) and every block of the transformed
//! program widened command by command, each after the rule of thesis Ch. 4 it
//! reproduces.
//!
//! Names: `%v<N>` is value N of the kernel (every instruction result and parameter
//! is defined under that name, so a phi may name a value its block precedes in
//! layout), `%b<N>` block N, `%t<N>` temporaries, `%g.<N>` the address of global N.
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "[RULE] names the thesis's rules, not items"
)]

use super::repr::{self, Repr};
use super::{CONTIGUOUS, Declarations, MaskRepr, PASS, VectorTarget};
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

impl Emitter<'_, '_> {
    // ----- text helpers -------------------------------------------------------

    fn tmp(&mut self) -> String {
        self.next_tmp += 1;
        format!("%t{}", self.next_tmp)
    }

    fn line(&mut self, text: impl AsRef<str>) {
        self.out.push_str("  ");
        self.out.push_str(text.as_ref());
        self.out.push('\n');
    }

    fn declare(&mut self, site: Site, name: &str, line: String) -> Result<(), TransformError> {
        self.decls.add(name, line).map_err(|m| refuse(site, m))
    }

    fn w(&self) -> usize {
        self.setup.width
    }

    /// The scalar LLVM type of `ty` (every pointer is `ptr`: the native address
    /// spaces are one).
    fn sty(&self, ty: Ty) -> String {
        match self.module.types.get(ty) {
            TypeData::Int(w) => format!("i{w}"),
            TypeData::F32 => "float".into(),
            TypeData::F64 => "double".into(),
            TypeData::Ptr(_) => "ptr".into(),
            TypeData::Void => "void".into(),
            _ => self.module.types.display(ty),
        }
    }

    fn is_i1(&self, ty: Ty) -> bool {
        self.module.types.int_width(ty) == Some(1)
    }

    /// The element type of `ty`'s vectors (the mask representation for `i1`).
    fn ety(&self, ty: Ty) -> String {
        if self.is_i1(ty) && self.setup.mask == MaskRepr::I32 {
            "i32".into()
        } else {
            self.sty(ty)
        }
    }

    fn vty(&self, ty: Ty) -> String {
        format!("<{} x {}>", self.w(), self.ety(ty))
    }

    fn bits_ty(&self) -> String {
        format!("<{} x i1>", self.w())
    }

    /// The type text of a value in `form`.
    fn form_ty(&self, ty: Ty, form: Form) -> String {
        match form {
            Form::Scalar => self.sty(ty),
            Form::Vector => self.vty(ty),
            Form::Bits => self.bits_ty(),
        }
    }

    fn ty_of(&self, v: Value) -> Ty {
        self.body.values[v].ty
    }

    fn name(v: Value) -> String {
        format!("%v{}", v.index())
    }

    // ----- constants ----------------------------------------------------------

    /// A constant as a scalar operand. `undef`/`poison` become zero, a refinement of
    /// ⊤ (pllvm's own `freeze` picks zero too), so no LLVM poison enters the code.
    fn constant(&self, site: Site, ty: Ty, c: &ConstData) -> Result<String, TransformError> {
        let types = &self.module.types;
        Ok(match c {
            ConstData::Int(bits) => {
                let w = types.int_width(ty).unwrap_or(64);
                let raw = bits.iter_u64_digits().next().unwrap_or(0);
                if w == 1 {
                    if raw & 1 == 1 {
                        "true".into()
                    } else {
                        "false".into()
                    }
                } else {
                    let shift = 64 - w;
                    (((raw << shift) as i64) >> shift).to_string()
                }
            }
            ConstData::Float(bits) => match types.get(ty) {
                TypeData::F32 => format!("0x{:016X}", f32_as_double_bits(*bits as u32)),
                _ => format!("0x{bits:016X}"),
            },
            ConstData::Null => "null".into(),
            ConstData::Undef | ConstData::Poison | ConstData::Zero => match types.get(ty) {
                TypeData::Int(1) => "false".into(),
                TypeData::Int(_) => "0".into(),
                TypeData::F32 | TypeData::F64 => "0.0".into(),
                _ => "null".into(),
            },
            ConstData::Global(g) => format!("%g.{}", g.index()),
            ConstData::Elems(_) | ConstData::Splat(_) => {
                return Err(refuse(
                    site,
                    "a vector or aggregate constant: the native backend widens scalars only",
                ));
            }
            ConstData::Function(f) => {
                return Err(refuse(
                    site,
                    format!(
                        "@{} is used as a value: function pointers are not widened",
                        self.module.functions[*f].name
                    ),
                ));
            }
        })
    }

    // ----- operands -----------------------------------------------------------

    /// `text`, a float of type `ty` in `form`, with a NaN made the preferred NaN
    /// (positive, quiet, payload 0), the one pllvm's float operations return
    /// ([`super::nan`]): x86 would give its negative default NaN.
    fn preferred_nan(&mut self, ty: Ty, text: &str, form: Form) -> String {
        let t = self.form_ty(ty, form);
        // LLVM writes float constants as the bits of the equal double.
        let nan = "0x7FF8000000000000";
        let (is_nan, canonical) = (self.tmp(), self.tmp());
        self.line(format!("{is_nan} = fcmp uno {t} {text}, {text}"));
        let preferred = if form == Form::Vector {
            format!("splat ({} {nan})", self.sty(ty))
        } else {
            nan.to_string()
        };
        let cond = if form == Form::Vector {
            format!("<{} x i1>", self.w())
        } else {
            "i1".to_string()
        };
        self.line(format!(
            "{canonical} = select {cond} {is_nan}, {t} {preferred}, {t} {text}"
        ));
        canonical
    }

    /// `scalar` of type `ty` broadcast to every lane, in `form` (`Vector` or `Bits`).
    fn splat(&mut self, ty: Ty, scalar: &str, form: Form) -> String {
        let w = self.w();
        let (elem, value) =
            if form == Form::Vector && self.is_i1(ty) && self.setup.mask == MaskRepr::I32 {
                let t = self.tmp();
                self.line(format!("{t} = select i1 {scalar}, i32 -1, i32 0"));
                ("i32".to_string(), t)
            } else if form == Form::Bits {
                ("i1".to_string(), scalar.to_string())
            } else {
                (self.sty(ty), scalar.to_string())
            };
        let ins = self.tmp();
        self.line(format!(
            "{ins} = insertelement <{w} x {elem}> poison, {elem} {value}, i64 0"
        ));
        let out = self.tmp();
        self.line(format!(
            "{out} = shufflevector <{w} x {elem}> {ins}, <{w} x {elem}> poison, <{w} x i32> zeroinitializer"
        ));
        out
    }

    /// A constant splat `scalar` of type `ty` in `form` (`Vector` or `Bits`), as a
    /// constant expression; the address of a global (loaded in the prologue) is
    /// splat by instructions.
    fn const_splat(&mut self, ty: Ty, scalar: &str, form: Form) -> String {
        if scalar.starts_with('%') {
            return self.splat(ty, scalar, form);
        }
        let i32_mask = form == Form::Vector && self.is_i1(ty) && self.setup.mask == MaskRepr::I32;
        let (elem, value) = if i32_mask {
            (
                "i32".to_string(),
                if scalar == "true" { "-1" } else { "0" }.to_string(),
            )
        } else if form == Form::Bits {
            ("i1".to_string(), scalar.to_string())
        } else {
            (self.sty(ty), scalar.to_string())
        };
        if matches!(value.as_str(), "0" | "false" | "null" | "0.0") {
            "zeroinitializer".into()
        } else {
            format!("splat ({elem} {value})")
        }
    }

    /// `text`, the form `ty_text` of value `v`, frozen if `v` may be LLVM poison
    /// or undef ([`repr::may_be_poison`]): what a branch, a reduction, an
    /// activation or a divisor reads must be a value.
    fn frozen(&mut self, v: Value, ty_text: &str, text: String) -> String {
        if !self.poison[v] || matches!(self.body.values[v].def, ValueDef::Const(_)) {
            return text;
        }
        let f = self.tmp();
        self.line(format!("{f} = freeze {ty_text} {text}"));
        f
    }

    /// Operand `v` in `form`, emitting the conversion it needs (a splat of a
    /// scalar, the sign bits of an `<W x i32>` mask).
    fn get(&mut self, site: Site, v: Value, form: Form) -> Result<String, TransformError> {
        let ty = self.ty_of(v);
        let scalar_text = match &self.body.values[v].def {
            ValueDef::Const(c) => Some(self.constant(site, ty, c)?),
            _ if self.repr[v] == Repr::Scalar => Some(Self::name(v)),
            _ => None,
        };
        match (scalar_text, form) {
            (Some(s), Form::Scalar) => Ok(s),
            (Some(s), form) if matches!(self.body.values[v].def, ValueDef::Const(_)) => {
                Ok(self.const_splat(ty, &s, form))
            }
            (Some(s), form) if matches!(self.body.values[v].def, ValueDef::Param(_)) => {
                // Parameters are defined in the prologue: splat them there once.
                let key = (v, form == Form::Bits);
                if let Some(name) = self.param_splats.get(&key) {
                    return Ok(name.clone());
                }
                let name = format!("%splat.{}.{}", v.index(), u8::from(key.1));
                self.param_splats.insert(key, name.clone());
                let _ = s;
                Ok(name)
            }
            (Some(s), form) => Ok(self.splat(ty, &s, form)),
            (None, Form::Scalar) => Err(refuse(
                site,
                "internal: a varying value is needed as a scalar".to_string(),
            )),
            (None, Form::Vector) => Ok(Self::name(v)),
            (None, Form::Bits) => {
                if self.setup.mask == MaskRepr::I32 {
                    if let Some(t) = self.bits_cache.get(&v) {
                        return Ok(t.clone());
                    }
                    // The sign bit: lanes are 0 or -1, and LLVM selects blends
                    // and masked accesses on the sign bit without a compare.
                    let t = self.tmp();
                    let w = self.w();
                    self.line(format!(
                        "{t} = icmp slt <{w} x i32> {}, zeroinitializer",
                        Self::name(v)
                    ));
                    self.bits_cache.insert(v, t.clone());
                    Ok(t)
                } else {
                    Ok(Self::name(v))
                }
            }
        }
    }

    /// Operand `v` as the vector form of a vector result: `Bits` for `i1` when
    /// `bits`, else `Vector`.
    fn vec_operand(&mut self, site: Site, v: Value, bits: bool) -> Result<String, TransformError> {
        let form = if bits && self.is_i1(self.ty_of(v)) {
            Form::Bits
        } else {
            Form::Vector
        };
        self.get(site, v, form)
    }

    /// Defines `result` (as `%vN`) from `text`, which holds the value in `form`,
    /// converting to the result's representation. A no-op `bitcast` names the value.
    fn bind(&mut self, result: Value, text: &str, form: Form) {
        let ty = self.ty_of(result);
        let canonical;
        let text = if self.nan_results.contains(&result) && form != Form::Bits {
            canonical = self.preferred_nan(ty, text, form);
            canonical.as_str()
        } else {
            text
        };
        let name = Self::name(result);
        let want = self.repr[result];
        match (want, form) {
            (Repr::Scalar, Form::Scalar) | (Repr::Vector, Form::Vector) => {
                let t = self.form_ty(ty, form);
                self.line(format!("{name} = bitcast {t} {text} to {t}"));
            }
            (Repr::Vector, Form::Bits) => {
                let w = self.w();
                if self.setup.mask == MaskRepr::I32 {
                    self.line(format!("{name} = sext <{w} x i1> {text} to <{w} x i32>"));
                } else {
                    self.line(format!("{name} = bitcast <{w} x i1> {text} to <{w} x i1>"));
                }
            }
            (Repr::Vector, Form::Scalar) => {
                let s = self.splat(ty, text, Form::Vector);
                let t = self.vty(ty);
                self.line(format!("{name} = bitcast {t} {s} to {t}"));
            }
            (Repr::Scalar, _) => {
                // A vector where a scalar was decided cannot arise (repr is closed
                // upwards); take the first active lane to stay total.
                let t = self.form_ty(ty, form);
                let lane = self.first_active_index();
                let s = self.sty(ty);
                let e = self.tmp();
                self.line(format!("{e} = extractelement {t} {text}, i64 {lane}"));
                if form == Form::Vector && self.is_i1(ty) && self.setup.mask == MaskRepr::I32 {
                    self.line(format!("{name} = trunc i32 {e} to i1"));
                } else {
                    self.line(format!("{name} = bitcast {s} {e} to {s}"));
                }
            }
        }
    }

    // ----- masks --------------------------------------------------------------

    /// The lanes that exist as `<W x i1>`: `%exists`, or all-true in a body
    /// for full chunks.
    fn existing_bits(&self) -> String {
        match self.lanes {
            Lanes::Full => "splat (i1 true)".into(),
            Lanes::Any => "%exists".into(),
        }
    }

    /// The lanes that exist in the mask representation: `%exists.v`, or
    /// all-true in a body for full chunks.
    fn existing_vector(&self) -> String {
        match (self.lanes, self.setup.mask) {
            (Lanes::Full, MaskRepr::I1) => "splat (i1 true)".into(),
            (Lanes::Full, MaskRepr::I32) => "splat (i32 -1)".into(),
            (Lanes::Any, _) => "%exists.v".into(),
        }
    }

    /// `mask ∧ exists` for a mask `mask` of type `mt` in the mask
    /// representation: `mask` itself in a body for full chunks.
    fn and_existing(&mut self, mt: &str, mask: String) -> String {
        if self.lanes == Lanes::Full {
            return mask;
        }
        let t = self.tmp();
        self.line(format!("{t} = and {mt} {mask}, %exists.v"));
        t
    }

    /// The `<W x i1>` mask a command runs under: the activation `amsk`
    /// ([BLS-W-STEP]), or every existing lane for a `total` command ([W-CMD-TOTAL]).
    fn mask_of(&mut self, total: bool) -> String {
        if total {
            self.existing_bits()
        } else {
            self.amask_bits()
        }
    }

    /// The activation as `<W x i1>` (the sign bits of an `<W x i32>` mask,
    /// computed once per block).
    fn amask_bits(&mut self) -> String {
        if self.setup.mask == MaskRepr::I1 {
            return self.amask.clone();
        }
        if let Some(bits) = &self.amask_bits {
            return bits.clone();
        }
        let bits = if self.amask == self.existing_vector() {
            self.existing_bits()
        } else {
            let w = self.w();
            let t = self.tmp();
            self.line(format!(
                "{t} = icmp slt <{w} x i32> {}, zeroinitializer",
                self.amask
            ));
            t
        };
        self.amask_bits = Some(bits.clone());
        bits
    }

    /// Whether some lane runs a command, as a scalar `i1`: `None` when that is
    /// certain (an unpredicated block or a `total` command: at least lane 0 exists).
    fn some_active(&mut self, total: bool) -> Option<String> {
        if total || !self.predicated {
            return None;
        }
        if let Some(a) = &self.any_active {
            return Some(a.clone());
        }
        let a = self.reduce("or", &self.amask.clone());
        self.any_active = Some(a.clone());
        Some(a)
    }

    /// `llvm.vector.reduce.<op>` (`or`: some lane, `and`: every lane) of an
    /// `i1` vector in its vector form, as a scalar `i1`. An `<W x i32>` mask is
    /// reduced as `i32` lanes compared with zero (lanes are 0 or -1): LLVM
    /// folds the halves together and tests once (`vptest`), where a `<W x i1>`
    /// built from it would be packed lane by lane first.
    fn reduce(&mut self, op: &str, vec: &str) -> String {
        let w = self.w();
        if self.setup.mask == MaskRepr::I1 {
            let name = format!("llvm.vector.reduce.{op}.v{w}i1");
            let _ = self
                .decls
                .add(&name, format!("declare i1 @{name}(<{w} x i1>)"));
            let t = self.tmp();
            self.line(format!("{t} = call i1 @{name}(<{w} x i1> {vec})"));
            return t;
        }
        // Fold the halves together down to one register of 32-bit lanes.
        let native = match self.setup.target {
            VectorTarget::Avx2 => 8,
            VectorTarget::Avx512 => 16,
            VectorTarget::Neon => 4,
        };
        let mut lanes = w;
        let mut x = vec.to_string();
        while lanes > native && lanes.is_multiple_of(2) {
            let half = lanes / 2;
            let lo: Vec<String> = (0..half).map(|l| format!("i32 {l}")).collect();
            let hi: Vec<String> = (half..lanes).map(|l| format!("i32 {l}")).collect();
            let (a, b, c) = (self.tmp(), self.tmp(), self.tmp());
            self.line(format!(
                "{a} = shufflevector <{lanes} x i32> {x}, <{lanes} x i32> poison, <{half} x i32> <{}>",
                lo.join(", ")
            ));
            self.line(format!(
                "{b} = shufflevector <{lanes} x i32> {x}, <{lanes} x i32> poison, <{half} x i32> <{}>",
                hi.join(", ")
            ));
            self.line(format!("{c} = {op} <{half} x i32> {a}, {b}"));
            x = c;
            lanes = half;
        }
        let out = self.tmp();
        if self.setup.target == VectorTarget::Neon {
            // No sign-mask move on NEON: a horizontal max/min of the lanes.
            let name = format!("llvm.vector.reduce.{op}.v{lanes}i32");
            let _ = self
                .decls
                .add(&name, format!("declare i32 @{name}(<{lanes} x i32>)"));
            let t = self.tmp();
            self.line(format!("{t} = call i32 @{name}(<{lanes} x i32> {x})"));
            self.line(format!("{out} = icmp ne i32 {t}, 0"));
        } else {
            // The sign bits as an integer (`vmovmskps`), tested once.
            let s = self.tmp();
            self.line(format!(
                "{s} = icmp slt <{lanes} x i32> {x}, zeroinitializer"
            ));
            let b = self.tmp();
            self.line(format!("{b} = bitcast <{lanes} x i1> {s} to i{lanes}"));
            if op == "or" {
                self.line(format!("{out} = icmp ne i{lanes} {b}, 0"));
            } else {
                self.line(format!("{out} = icmp eq i{lanes} {b}, -1"));
            }
        }
        out
    }

    /// The index of the first lane of the activation (0 if none is active): the
    /// lane that speaks for all at a uniform branch.
    fn first_active_index(&mut self) -> String {
        let w = self.w();
        let mask = self.amask_bits();
        let name = format!("llvm.cttz.i{w}");
        let _ = self
            .decls
            .add(&name, format!("declare i{w} @{name}(i{w}, i1 immarg)"));
        let bits = self.tmp();
        self.line(format!("{bits} = bitcast <{w} x i1> {mask} to i{w}"));
        let z = self.tmp();
        self.line(format!("{z} = call i{w} @{name}(i{w} {bits}, i1 false)"));
        let over = self.tmp();
        self.line(format!("{over} = icmp uge i{w} {z}, {w}"));
        let idx = self.tmp();
        self.line(format!("{idx} = select i1 {over}, i{w} 0, i{w} {z}"));
        let wide = self.tmp();
        if w == 64 {
            self.line(format!("{wide} = bitcast i64 {idx} to i64"));
        } else if w > 64 {
            self.line(format!("{wide} = trunc i{w} {idx} to i64"));
        } else {
            self.line(format!("{wide} = zext i{w} {idx} to i64"));
        }
        wide
    }

    /// Whether `v` is held as one scalar: a value the analysis keeps uniform, or a
    /// constant.
    fn is_scalar(&self, v: Value) -> bool {
        self.repr[v] == Repr::Scalar || matches!(self.body.values[v].def, ValueDef::Const(_))
    }

    /// `v` as one scalar: itself if scalar, else its first active lane. Used where
    /// the lanes agree: a uniform branch condition (§6.3) or a uniform address.
    fn scalar_of(&mut self, site: Site, v: Value) -> Result<String, TransformError> {
        if self.is_scalar(v) {
            return self.get(site, v, Form::Scalar);
        }
        let ty = self.ty_of(v);
        let vec = self.get(site, v, Form::Vector)?;
        let idx = self.first_active_index();
        let vt = self.vty(ty);
        let e = self.tmp();
        self.line(format!("{e} = extractelement {vt} {vec}, i64 {idx}"));
        if self.is_i1(ty) && self.setup.mask == MaskRepr::I32 {
            let b = self.tmp();
            self.line(format!("{b} = trunc i32 {e} to i1"));
            return Ok(b);
        }
        Ok(e)
    }

    // ----- blocks -------------------------------------------------------------

    /// One block: the activation after the phis, the commands, the phi operands of
    /// the successors, the terminator ([BLS-W-STEP], thesis §4.7).
    fn block(&mut self, block: Block) -> Result<(), TransformError> {
        let data = &self.body.blocks[block];
        self.current = block;
        self.any_active = None;
        self.amask_bits = None;
        self.bits_cache.clear();
        match data.predicate {
            None => {
                self.amask = self.existing_vector();
                self.predicated = false;
            }
            Some(p) => {
                // amsk = cmsk ∧ pmsk (Def. 8), cmsk being the existing lanes; the
                // predicate is frozen: a ⊤ predicate under cmask is undefined in
                // P-LLVM, and LLVM must not see poison in a mask.
                let site = Site::Block(self.func, block);
                let mt = self.vty(self.ty_of(p));
                if self.is_scalar(p) {
                    let s = self.get(site, p, Form::Scalar)?;
                    let f = self.frozen(p, "i1", s);
                    let am = self.tmp();
                    let existing = self.existing_vector();
                    self.line(format!(
                        "{am} = select i1 {f}, {mt} {existing}, {mt} zeroinitializer"
                    ));
                    self.amask = am;
                } else {
                    let vec = self.get(site, p, Form::Vector)?;
                    let f = self.frozen(p, &mt, vec);
                    self.amask = if self.confined[p] {
                        f
                    } else {
                        self.and_existing(&mt, f)
                    };
                }
                self.predicated = true;
            }
        }
        for &inst in &data.body {
            self.command(inst)?;
        }
        // Phi operands of the successors, materialized here (a splat of a scalar
        // must be computed in the predecessor).
        let mut seen = BTreeSet::new();
        for succ in data.term.successors() {
            if !seen.insert(succ) {
                continue;
            }
            for &phi in &self.body.blocks[succ].phis {
                let InstKind::Phi { incoming, .. } = &self.body.insts[phi].kind else {
                    continue;
                };
                let Some(&(v, _)) = incoming.iter().find(|(_, b)| *b == block) else {
                    return Err(refuse(
                        Site::Inst(self.func, phi),
                        format!("the phi lists no value for the edge from %{}", data.name),
                    ));
                };
                let result = self.body.insts[phi]
                    .result
                    .ok_or_else(|| refuse(Site::Inst(self.func, phi), "a phi without a result"))?;
                let form = match self.repr[result] {
                    Repr::Scalar => Form::Scalar,
                    Repr::Vector => Form::Vector,
                };
                let site = Site::Inst(self.func, phi);
                let text = if form == Form::Scalar
                    && self.repr[v] == Repr::Vector
                    && !matches!(self.body.values[v].def, ValueDef::Const(_))
                {
                    self.scalar_of(site, v)?
                } else {
                    self.get(site, v, form)?
                };
                self.phi_args.insert((phi, block), text);
            }
        }
        self.terminator(block)
    }

    /// A phi ([evalphi], §4.8): under uniform control every existing lane has
    /// cmask 1 and came along the edge the chunk took, so the LLVM phi is exact
    /// and a shadow operand is never taken.
    fn phi(&self, block: Block, phi: Inst) -> Result<String, TransformError> {
        let site = Site::Inst(self.func, phi);
        let InstKind::Phi { ty, .. } = &self.body.insts[phi].kind else {
            return Err(refuse(site, "internal: a phi list holds a non-phi"));
        };
        let result = self.body.insts[phi]
            .result
            .ok_or_else(|| refuse(site, "a phi without a result"))?;
        let t = match self.repr[result] {
            Repr::Scalar => self.sty(*ty),
            Repr::Vector => self.vty(*ty),
        };
        let mut arms = Vec::new();
        for &(pred, edges) in self.edges_into.get(&block).map_or(&[][..], Vec::as_slice) {
            let text = self.phi_args.get(&(phi, pred)).ok_or_else(|| {
                refuse(
                    site,
                    format!(
                        "the phi lists no value for the edge from %{}",
                        self.body.blocks[pred].name
                    ),
                )
            })?;
            for _ in 0..edges {
                arms.push(format!("[ {text}, %b{} ]", pred.index()));
            }
        }
        Ok(format!(
            "  {} = phi {t} {}\n",
            Self::name(result),
            arms.join(", ")
        ))
    }

    /// The terminator (`evalterm`, Fig. 4.9). A branch is uniform here: its
    /// condition is frozen (a passive lane's ⊤ must not become LLVM poison) and, if
    /// held per lane, read from the first active lane.
    fn terminator(&mut self, block: Block) -> Result<(), TransformError> {
        let site = Site::Terminator(self.func, block);
        let term = &self.body.blocks[block].term;
        match term {
            Terminator::Br(target) => self.line(format!("br label %b{}", target.index())),
            Terminator::CondBr {
                cond,
                if_true,
                if_false,
            } => {
                let c = self.scalar_of(site, *cond)?;
                let f = self.frozen(*cond, "i1", c);
                self.line(format!(
                    "br i1 {f}, label %b{}, label %b{}",
                    if_true.index(),
                    if_false.index()
                ));
            }
            Terminator::Switch {
                ty,
                cond,
                default,
                cases,
            } => {
                let c = self.scalar_of(site, *cond)?;
                let st = self.sty(*ty);
                let f = self.frozen(*cond, &st, c);
                let mut arms = String::new();
                for (value, target) in cases {
                    let k = self.constant(site, *ty, &ConstData::Int(value.clone()))?;
                    let _ = write!(arms, " {st} {k}, label %b{}", target.index());
                }
                self.line(format!(
                    "switch {st} {f}, label %b{} [{arms} ]",
                    default.index()
                ));
            }
            Terminator::Ret(value) => {
                // □(r) in the active lanes (Fig. 4.9): lane l's result to ret[base + l].
                if let Some(v) = value {
                    let words = self.words_of(site, *v)?;
                    let w = self.w();
                    let at = self.tmp();
                    self.line(format!("{at} = getelementptr i64, ptr %ret, i64 %base"));
                    let name = format!("llvm.masked.store.v{w}i64.p0");
                    self.declare(
                        site,
                        &name,
                        format!("declare void @{name}(<{w} x i64>, ptr, i32 immarg, <{w} x i1>)"),
                    )?;
                    let mask = self.amask_bits();
                    self.line(format!(
                        "call void @{name}(<{w} x i64> {words}, ptr {at}, i32 8, <{w} x i1> {mask})"
                    ));
                }
                self.line("ret void");
            }
            // An active lane reaching it is undefined behaviour; no lane is.
            Terminator::Unreachable => self.line("ret void"),
        }
        Ok(())
    }

    /// `v` as `<W x i64>` argument words of the ABI ("bits": integers
    /// zero-extended, float as its 32 bits, double as its 64, ptr as the address).
    fn words_of(&mut self, site: Site, v: Value) -> Result<String, TransformError> {
        let ty = self.ty_of(v);
        let w = self.w();
        let vec = self.vec_operand(site, v, true)?;
        let t = self.tmp();
        match self.module.types.get(ty) {
            TypeData::Int(1) => self.line(format!("{t} = zext <{w} x i1> {vec} to <{w} x i64>")),
            TypeData::Int(64) => {
                self.line(format!("{t} = bitcast <{w} x i64> {vec} to <{w} x i64>"))
            }
            TypeData::Int(b) => self.line(format!("{t} = zext <{w} x i{b}> {vec} to <{w} x i64>")),
            TypeData::F32 => {
                let i = self.tmp();
                self.line(format!("{i} = bitcast <{w} x float> {vec} to <{w} x i32>"));
                self.line(format!("{t} = zext <{w} x i32> {i} to <{w} x i64>"));
            }
            TypeData::F64 => {
                self.line(format!("{t} = bitcast <{w} x double> {vec} to <{w} x i64>"))
            }
            TypeData::Ptr(_) => {
                self.line(format!("{t} = ptrtoint <{w} x ptr> {vec} to <{w} x i64>"))
            }
            _ => {
                return Err(refuse(
                    site,
                    "a returned value of a type the ABI does not carry",
                ));
            }
        }
        Ok(t)
    }

    // ----- the prologue -------------------------------------------------------

    /// The entry of the chunk: which lanes exist (`lane < count`; the others are
    /// masked off from the start), the thread ids, the globals' addresses, the
    /// arguments and the stack objects.
    fn prologue(&mut self, data: &FunctionData) -> Result<String, TransformError> {
        self.out.clear();
        let w = self.w();
        let lanes: Vec<String> = (0..w).map(|l| format!("i64 {l}")).collect();
        let lanes = format!("<{}>", lanes.join(", "));
        if self.lanes == Lanes::Any {
            self.existing_lanes();
        }
        self.line(format!(
            "%base.ins = insertelement <{w} x i64> poison, i64 %base, i64 0"
        ));
        self.line(format!(
            "%base.splat = shufflevector <{w} x i64> %base.ins, <{w} x i64> poison, <{w} x i32> zeroinitializer"
        ));
        self.line(format!("%thread.id = add <{w} x i64> %base.splat, {lanes}"));
        for (g, _) in self.module.globals.iter() {
            let k = g.index();
            self.line(format!(
                "%g.slot.{k} = getelementptr ptr, ptr %globals, i64 {k}"
            ));
            self.line(format!("%g.{k} = load ptr, ptr %g.slot.{k}, align 8"));
        }
        self.amask = self.existing_vector();
        self.amask_bits = None;
        self.bits_cache.clear();
        self.predicated = false;
        let site = Site::Function(self.func);
        for (k, param) in data.params.iter().enumerate() {
            let at = self.tmp();
            self.line(format!("{at} = mul i64 %n, {k}"));
            let idx = self.tmp();
            self.line(format!("{idx} = add i64 {at}, %base"));
            let slot = self.tmp();
            self.line(format!("{slot} = getelementptr i64, ptr %args, i64 {idx}"));
            let ty = param.ty;
            if self.repr[param.value] == Repr::Scalar {
                // A uniform parameter: lane 0 (which always exists) speaks for all.
                let word = self.tmp();
                self.line(format!("{word} = load i64, ptr {slot}, align 8"));
                let v = self.value_of_words(ty, &word, "i64");
                self.bind(param.value, &v, Form::Scalar);
            } else {
                let name = format!("llvm.masked.load.v{w}i64.p0");
                self.declare(
                    site,
                    &name,
                    format!(
                        "declare <{w} x i64> @{name}(ptr, i32 immarg, <{w} x i1>, <{w} x i64>)"
                    ),
                )?;
                let words = self.tmp();
                let existing = self.existing_bits();
                self.line(format!(
                    "{words} = call <{w} x i64> @{name}(ptr {slot}, i32 8, <{w} x i1> {existing}, <{w} x i64> zeroinitializer)"
                ));
                let v = self.value_of_words(ty, &words, &format!("<{w} x i64>"));
                let form = if self.is_i1(ty) {
                    Form::Bits
                } else {
                    Form::Vector
                };
                self.bind(param.value, &v, form);
            }
        }
        for ((v, bits), name) in std::mem::take(&mut self.param_splats) {
            let ty = self.ty_of(v);
            let form = if bits { Form::Bits } else { Form::Vector };
            let s = self.splat(ty, &Self::name(v), form);
            let t = self.form_ty(ty, form);
            self.line(format!("{name} = bitcast {t} {s} to {t}"));
        }
        let allocas = std::mem::take(&mut self.prologue_allocas);
        self.out.push_str(&allocas);
        let entry = self
            .body
            .entry()
            .ok_or_else(|| refuse(site, "the function has no blocks"))?;
        self.line(format!("br label %b{}", entry.index()));
        Ok(std::mem::take(&mut self.out))
    }

    /// `%exists` and `%exists.v`: the lanes that exist (`lane < count`).
    fn existing_lanes(&mut self) {
        let w = self.w();
        // Compared in 32 bits (W <= 256; count <= W by the ABI, clamped all
        // the same): half the registers of an i64 compare.
        let lanes32: Vec<String> = (0..w).map(|l| format!("i32 {l}")).collect();
        let lanes32 = format!("<{}>", lanes32.join(", "));
        self.line(format!("%count.big = icmp ugt i64 %count, {w}"));
        self.line(format!(
            "%count.min = select i1 %count.big, i64 {w}, i64 %count"
        ));
        self.line("%count.32 = trunc i64 %count.min to i32");
        self.line(format!(
            "%count.ins = insertelement <{w} x i32> poison, i32 %count.32, i64 0"
        ));
        self.line(format!(
            "%count.splat = shufflevector <{w} x i32> %count.ins, <{w} x i32> poison, <{w} x i32> zeroinitializer"
        ));
        self.line(format!(
            "%exists = icmp ult <{w} x i32> {lanes32}, %count.splat"
        ));
        match self.setup.mask {
            MaskRepr::I32 => self.line(format!(
                "%exists.v = sext <{w} x i1> %exists to <{w} x i32>"
            )),
            MaskRepr::I1 => self.line(format!(
                "%exists.v = bitcast <{w} x i1> %exists to <{w} x i1>"
            )),
        }
    }

    /// A value of type `ty` from argument words (`word_ty` is `i64` or `<W x i64>`);
    /// `i1` comes out as `i1` / `<W x i1>`.
    fn value_of_words(&mut self, ty: Ty, words: &str, word_ty: &str) -> String {
        let vector = word_ty.starts_with('<');
        let wrap = |elem: &str| {
            if vector {
                format!(
                    "<{} x {elem}>",
                    word_ty[1..].split(' ').next().unwrap_or("1")
                )
            } else {
                elem.to_string()
            }
        };
        let t = self.tmp();
        match self.module.types.get(ty) {
            TypeData::Int(64) => self.line(format!("{t} = bitcast {word_ty} {words} to {word_ty}")),
            TypeData::Int(b) => {
                let to = wrap(&format!("i{b}"));
                self.line(format!("{t} = trunc {word_ty} {words} to {to}"));
            }
            TypeData::F32 => {
                let i = self.tmp();
                let i32t = wrap("i32");
                self.line(format!("{i} = trunc {word_ty} {words} to {i32t}"));
                let ft = wrap("float");
                self.line(format!("{t} = bitcast {i32t} {i} to {ft}"));
            }
            TypeData::F64 => {
                let ft = wrap("double");
                self.line(format!("{t} = bitcast {word_ty} {words} to {ft}"));
            }
            _ => {
                let pt = wrap("ptr");
                self.line(format!("{t} = inttoptr {word_ty} {words} to {pt}"));
            }
        }
        t
    }

    // ----- commands -----------------------------------------------------------

    /// `icmp` / `fcmp` (`opcode` with its predicate) of `operands` into `r`: `<W x i1>`
    /// when `vector`, a scalar `i1` otherwise; `bits` reads `i1` operands as
    /// `<W x i1>` (an `icmp` of masks).
    #[allow(
        clippy::too_many_arguments,
        reason = "the instruction's parts, as the other emitters of this impl take them"
    )]
    fn compare(
        &mut self,
        site: Site,
        r: Value,
        opcode: &str,
        ty: Ty,
        operands: (Value, Value),
        vector: bool,
        bits: bool,
    ) -> Result<(), TransformError> {
        let (form, a) = self.operand(site, operands.0, vector, bits)?;
        let (_, b) = self.operand(site, operands.1, vector, bits)?;
        let tt = self.form_ty(ty, form);
        let t = self.tmp();
        self.line(format!("{t} = {opcode} {tt} {a}, {b}"));
        self.bind(r, &t, if vector { Form::Bits } else { Form::Scalar });
        Ok(())
    }

    /// One command (`computecmd`, Fig. 4.12).
    fn command(&mut self, inst: Inst) -> Result<(), TransformError> {
        let site = Site::Inst(self.func, inst);
        let data = &self.body.insts[inst];
        let total = data.total;
        let result = data.result;
        let vector = result.is_some_and(|r| self.repr[r] == Repr::Vector);
        match &data.kind {
            InstKind::ExtractElement { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. }
            | InstKind::ExtractValue { .. }
            | InstKind::InsertValue { .. }
            | InstKind::AtomicRmw { .. }
            | InstKind::CmpXchg { .. }
            | InstKind::Fence { .. } => Err(refuse(
                site,
                format!(
                    "{}: the native backend does not compile vector or aggregate values or atomics",
                    data.kind.opcode()
                ),
            )),
            InstKind::Phi { .. } => Err(refuse(site, "a phi among the commands")),
            InstKind::Mask => {
                // [W-CMD-MASK]: the activation, in every lane.
                let r = result.ok_or_else(|| refuse(site, "mask() without a result"))?;
                let m = self.amask.clone();
                self.bind(r, &m, Form::Vector);
                Ok(())
            }
            InstKind::Binary {
                op, ty, lhs, rhs, ..
            } => {
                let r = result.ok_or_else(|| refuse(site, "a binary operator without a result"))?;
                self.binary(site, r, *op, *ty, *lhs, *rhs, total, vector)
            }
            InstKind::FNeg { ty, arg } => {
                let r = result.ok_or_else(|| refuse(site, "fneg without a result"))?;
                let (form, a) = self.operand(site, *arg, vector, false)?;
                let t = self.tmp();
                let tt = self.form_ty(*ty, form);
                self.line(format!("{t} = fneg {tt} {a}"));
                self.bind(r, &t, form);
                Ok(())
            }
            InstKind::ICmp { pred, ty, lhs, rhs } => {
                let r = result.ok_or_else(|| refuse(site, "icmp without a result"))?;
                let opcode = format!("icmp {}", pred.name());
                self.compare(site, r, &opcode, *ty, (*lhs, *rhs), vector, true)
            }
            InstKind::FCmp { pred, ty, lhs, rhs } => {
                let r = result.ok_or_else(|| refuse(site, "fcmp without a result"))?;
                let opcode = format!("fcmp {}", pred.name());
                self.compare(site, r, &opcode, *ty, (*lhs, *rhs), vector, false)
            }
            InstKind::Cast {
                op, from, arg, to, ..
            } => {
                let r = result.ok_or_else(|| refuse(site, "a cast without a result"))?;
                self.cast(site, r, *op, *from, *arg, *to, vector)
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => {
                let r = result.ok_or_else(|| refuse(site, "select without a result"))?;
                let form = if vector { Form::Vector } else { Form::Scalar };
                // An `undef` arm is ⊤ in the lanes that choose it: the other
                // arm is a refinement of the whole select (no blend at all).
                let undef = |v: Value| {
                    matches!(
                        self.body.as_const(v),
                        Some(ConstData::Undef | ConstData::Poison)
                    )
                };
                let only = match (undef(*if_true), undef(*if_false)) {
                    (true, false) => Some(*if_false),
                    (false, true) => Some(*if_true),
                    _ if if_true == if_false => Some(*if_true),
                    _ => None,
                };
                if let Some(v) = only {
                    let a = self.get(site, v, form)?;
                    self.bind(r, &a, form);
                    return Ok(());
                }
                if vector && self.is_i1(*ty) {
                    return self.mask_select(site, r, *cond, *if_true, *if_false);
                }
                let scalar_cond = self.is_scalar(*cond);
                let c = if scalar_cond {
                    self.get(site, *cond, Form::Scalar)?
                } else {
                    self.get(site, *cond, Form::Bits)?
                };
                let ct = if scalar_cond {
                    "i1".to_string()
                } else {
                    self.bits_ty()
                };
                let a = self.get(site, *if_true, form)?;
                let b = self.get(site, *if_false, form)?;
                #[cfg(feature = "seeded-bugs")]
                let (a, b) = if !scalar_cond && seeded_bug("blend") {
                    // The seeded bug: a per-lane select blends the wrong way.
                    (b, a)
                } else {
                    (a, b)
                };
                let tt = self.form_ty(*ty, form);
                let t = self.tmp();
                self.line(format!("{t} = select {ct} {c}, {tt} {a}, {tt} {b}"));
                self.bind(r, &t, form);
                Ok(())
            }
            InstKind::Freeze { ty, arg } => {
                let r = result.ok_or_else(|| refuse(site, "freeze without a result"))?;
                let form = if vector { Form::Vector } else { Form::Scalar };
                let a = self.get(site, *arg, form)?;
                let tt = self.form_ty(*ty, form);
                let t = self.frozen(*arg, &tt, a);
                self.bind(r, &t, form);
                Ok(())
            }
            InstKind::Gep {
                source_ty,
                base,
                indices,
                ..
            } => {
                let r = result.ok_or_else(|| refuse(site, "getelementptr without a result"))?;
                // `inbounds` is dropped: it makes poison, which a passive lane's
                // address must not be.
                let form = if vector { Form::Vector } else { Form::Scalar };
                let b = self.get(site, *base, form)?;
                let bt = if vector {
                    format!("<{} x ptr>", self.w())
                } else {
                    "ptr".into()
                };
                let mut parts = vec![format!("{bt} {b}")];
                for index in indices {
                    let v = index.value;
                    let it = self.ty_of(v);
                    let iform = if vector && self.repr[v] == Repr::Vector {
                        Form::Vector
                    } else {
                        Form::Scalar
                    };
                    let text = if iform == Form::Scalar {
                        self.get(site, v, Form::Scalar)?
                    } else {
                        self.get(site, v, Form::Vector)?
                    };
                    parts.push(format!("{} {text}", self.form_ty(it, iform)));
                }
                let src = self.module.types.display(*source_ty);
                let t = self.tmp();
                self.line(format!("{t} = getelementptr {src}, {}", parts.join(", ")));
                self.bind(r, &t, form);
                Ok(())
            }
            InstKind::Alloca { ty, count, align } => {
                let r = result.ok_or_else(|| refuse(site, "alloca without a result"))?;
                self.alloca(site, r, *ty, *count, *align)
            }
            InstKind::Load { ty, ptr, align, .. } => {
                let r = result.ok_or_else(|| refuse(site, "load without a result"))?;
                self.load(site, r, *ty, *ptr, *align, total)
            }
            InstKind::Store {
                ty,
                value,
                ptr,
                align,
                ..
            } => self.store(site, *ty, *value, *ptr, *align, total),
            InstKind::Call {
                callee,
                ret_ty,
                args,
                ..
            } => self.call(site, result, *callee, *ret_ty, args, total),
        }
    }

    /// A `select` of `i1` vectors as bit operations on the mask representation
    /// (lanes of a mask are 0 or all ones, so `c ? a : b` is `(c & a) | (~c & b)`,
    /// with the constant arms folded: `select c, a, false` is `c & a`, `select c,
    /// true, b` is `c | b`): no blend and no conversion of `<W x i32>` masks.
    fn mask_select(
        &mut self,
        site: Site,
        r: Value,
        cond: Value,
        if_true: Value,
        if_false: Value,
    ) -> Result<(), TransformError> {
        let ty = self.ty_of(r);
        let mt = self.vty(ty);
        let ones = match self.setup.mask {
            MaskRepr::I1 => "splat (i1 true)",
            MaskRepr::I32 => "splat (i32 -1)",
        };
        let konst = |e: &Self, v: Value| match e.body.as_const(v) {
            Some(ConstData::Int(k)) => Some(k.bit(0)),
            Some(ConstData::Zero) => Some(false),
            _ => None,
        };
        let scalar_cond = self.is_scalar(cond);
        if scalar_cond {
            // A uniform condition picks one whole vector.
            let cs = self.get(site, cond, Form::Scalar)?;
            let a = self.get(site, if_true, Form::Vector)?;
            let b = self.get(site, if_false, Form::Vector)?;
            let t = self.tmp();
            self.line(format!("{t} = select i1 {cs}, {mt} {a}, {mt} {b}"));
            self.bind(r, &t, Form::Vector);
            return Ok(());
        }
        let c = self.get(site, cond, Form::Vector)?;
        let not = |e: &mut Self, x: &str| {
            let t = e.tmp();
            e.line(format!("{t} = xor {mt} {x}, {ones}"));
            t
        };
        let op = |e: &mut Self, o: &str, x: &str, y: &str| {
            let t = e.tmp();
            e.line(format!("{t} = {o} {mt} {x}, {y}"));
            t
        };
        let out = match (konst(self, if_true), konst(self, if_false)) {
            (Some(true), Some(false)) => c,
            (Some(false), Some(true)) => not(self, &c),
            (Some(a), Some(b)) if a == b => self.get(site, if_true, Form::Vector)?,
            // `c & a` with `a` one scalar for every lane: pick `c` or zero by
            // `a` (no broadcast of a scalar into a mask).
            (_, Some(false)) if self.repr[if_true] == Repr::Scalar => {
                let a = self.get(site, if_true, Form::Scalar)?;
                let t = self.tmp();
                self.line(format!(
                    "{t} = select i1 {a}, {mt} {c}, {mt} zeroinitializer"
                ));
                t
            }
            (_, Some(false)) => {
                let a = self.get(site, if_true, Form::Vector)?;
                op(self, "and", &c, &a)
            }
            (Some(true), _) => {
                let b = self.get(site, if_false, Form::Vector)?;
                op(self, "or", &c, &b)
            }
            (Some(false), _) => {
                let b = self.get(site, if_false, Form::Vector)?;
                let nc = not(self, &c);
                op(self, "and", &nc, &b)
            }
            (_, Some(true)) => {
                let a = self.get(site, if_true, Form::Vector)?;
                let nc = not(self, &c);
                op(self, "or", &nc, &a)
            }
            _ => {
                let a = self.get(site, if_true, Form::Vector)?;
                let b = self.get(site, if_false, Form::Vector)?;
                let ca = op(self, "and", &c, &a);
                let nc = not(self, &c);
                let nb = op(self, "and", &nc, &b);
                op(self, "or", &ca, &nb)
            }
        };
        self.bind(r, &out, Form::Vector);
        Ok(())
    }

    /// An operand of a lane-wise operator: the scalar, or (for a vector result) the
    /// vector form, `<W x i1>` for an `i1` operand when `bits` (comparisons).
    fn operand(
        &mut self,
        site: Site,
        v: Value,
        vector: bool,
        bits: bool,
    ) -> Result<(Form, String), TransformError> {
        if vector {
            let form = if bits && self.is_i1(self.ty_of(v)) {
                Form::Bits
            } else {
                Form::Vector
            };
            Ok((form, self.get(site, v, form)?))
        } else {
            Ok((Form::Scalar, self.get(site, v, Form::Scalar)?))
        }
    }

    /// A binary operator, lane by lane, without `nsw`/`nuw`/`exact` (they make
    /// poison where P-LLVM's passive lanes only hold ⊤). A divisor is
    /// `select(m, freeze(d), 1)` so that a passive or missing lane never traps, and
    /// `sdiv`/`srem` of the smallest integer by -1 divides by 1 instead (the
    /// wrapped quotient, remainder 0) so that no lane overflows the divider.
    #[allow(clippy::too_many_arguments, reason = "the parts of the binary command")]
    fn binary(
        &mut self,
        site: Site,
        r: Value,
        op: BinOp,
        ty: Ty,
        lhs: Value,
        rhs: Value,
        total: bool,
        vector: bool,
    ) -> Result<(), TransformError> {
        let i1 = self.is_i1(ty);
        // and/or/xor work on either mask representation; other i1 arithmetic on bits.
        let bitwise = matches!(op, BinOp::And | BinOp::Or | BinOp::Xor);
        let form = if !vector {
            Form::Scalar
        } else if i1 && !bitwise {
            Form::Bits
        } else {
            Form::Vector
        };
        let a = self.get(site, lhs, form)?;
        let mut b = self.get(site, rhs, form)?;
        let tt = self.form_ty(ty, form);
        // A constant divisor other than 0 (and -1 for the signed operators)
        // traps in no lane: it stays a constant, which LLVM divides by with
        // shifts and multiplications instead of one `idiv` per lane.
        let bits = self.module.types.int_width(ty).unwrap_or(64);
        let safe_constant = match self.body.as_const(rhs) {
            Some(ConstData::Int(d)) => {
                let all_ones = (BigUint::from(1u8) << bits) - 1u8;
                *d != BigUint::from(0u8)
                    && !(matches!(op, BinOp::SDiv | BinOp::SRem) && *d == all_ones)
            }
            _ => false,
        };
        if matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem) && !safe_constant {
            let elem = if form == Form::Bits {
                "i1".to_string()
            } else {
                self.sty(ty)
            };
            let one = if elem == "i1" {
                "true".to_string()
            } else {
                "1".to_string()
            };
            let one_v = if form == Form::Scalar {
                one.clone()
            } else {
                format!("splat ({elem} {one})")
            };
            let fd = self.frozen(rhs, &tt, b);
            let guarded = if form == Form::Scalar {
                match self.some_active(total) {
                    Some(any) => {
                        let g = self.tmp();
                        self.line(format!("{g} = select i1 {any}, {tt} {fd}, {tt} {one_v}"));
                        g
                    }
                    None => fd,
                }
            } else {
                let m = self.mask_of(total);
                let g = self.tmp();
                self.line(format!(
                    "{g} = select {} {m}, {tt} {fd}, {tt} {one_v}",
                    self.bits_ty()
                ));
                g
            };
            b = guarded;
            if matches!(op, BinOp::SDiv | BinOp::SRem) && !i1 {
                let bits = self.module.types.int_width(ty).unwrap_or(64);
                let min = if bits == 64 {
                    i64::MIN.to_string()
                } else {
                    (-(1i64 << (bits - 1))).to_string()
                };
                let (min_v, m1_v, ct) = if form == Form::Scalar {
                    (min, "-1".to_string(), "i1".to_string())
                } else {
                    (
                        format!("splat ({elem} {min})"),
                        format!("splat ({elem} -1)"),
                        self.bits_ty(),
                    )
                };
                let fa = self.frozen(lhs, &tt, a.clone());
                let is_min = self.tmp();
                self.line(format!("{is_min} = icmp eq {tt} {fa}, {min_v}"));
                let is_m1 = self.tmp();
                self.line(format!("{is_m1} = icmp eq {tt} {b}, {m1_v}"));
                let ov = self.tmp();
                self.line(format!("{ov} = and {ct} {is_min}, {is_m1}"));
                let g = self.tmp();
                self.line(format!("{g} = select {ct} {ov}, {tt} {one_v}, {tt} {b}"));
                b = g;
            }
        }
        let t = self.tmp();
        self.line(format!("{t} = {} {tt} {a}, {b}", op.name()));
        self.bind(r, &t, form);
        Ok(())
    }

    /// A cast, lane by lane, without flags; pointers of every address space are
    /// one `ptr`, so `addrspacecast` is a no-op.
    #[allow(clippy::too_many_arguments, reason = "the parts of the cast command")]
    fn cast(
        &mut self,
        site: Site,
        r: Value,
        op: CastOp,
        from: Ty,
        arg: Value,
        to: Ty,
        vector: bool,
    ) -> Result<(), TransformError> {
        let from_i1 = self.is_i1(from);
        let to_i1 = self.is_i1(to);
        let (in_form, out_form) = if !vector {
            (Form::Scalar, Form::Scalar)
        } else if from_i1 && to_i1 {
            (Form::Vector, Form::Vector)
        } else {
            (
                if from_i1 { Form::Bits } else { Form::Vector },
                if to_i1 { Form::Bits } else { Form::Vector },
            )
        };
        let a = self.get(site, arg, in_form)?;
        let ft = self.form_ty(from, in_form);
        let tt = self.form_ty(to, out_form);
        let word = match op {
            CastOp::AddrSpaceCast => "bitcast",
            op if from_i1 && to_i1 => {
                let _ = op;
                "bitcast"
            }
            op => op.name(),
        };
        let t = self.tmp();
        self.line(format!("{t} = {word} {ft} {a} to {tt}"));
        self.bind(r, &t, out_form);
        Ok(())
    }

    /// [W-INST-ALLOCA]: a private object per lane. One stack block of W objects,
    /// each lane's pointer `base + lane · stride`; of constant size it is placed in
    /// the prologue (an object per chunk, reused by a loop's iterations: the
    /// previous iteration's object is no longer read through a live pointer in
    /// the transformed kernels; a dynamic size is allocated where it stands).
    fn alloca(
        &mut self,
        site: Site,
        r: Value,
        ty: Ty,
        count: Option<Value>,
        align: Option<u64>,
    ) -> Result<(), TransformError> {
        let types = &self.module.types;
        let size = types.size_of(ty);
        let obj_align = align.unwrap_or(0).max(types.align_of(ty)).max(1);
        let w = self.w() as u64;
        let constant_count = match count {
            None => Some(1u64),
            Some(c) => match self.body.as_const(c) {
                Some(ConstData::Int(n)) => n.iter_u64_digits().next().or(Some(0)),
                _ => None,
            },
        };
        let name = Self::name(r);
        match constant_count {
            Some(n) => {
                let stride = size
                    .saturating_mul(n)
                    .next_multiple_of(obj_align)
                    .max(obj_align);
                let total = stride.saturating_mul(w);
                if total > 1 << 30 {
                    return Err(refuse(
                        site,
                        format!("alloca of {total} bytes for {w} lanes is too large"),
                    ));
                }
                let offsets: Vec<String> = (0..w).map(|l| format!("i64 {}", l * stride)).collect();
                let raw = format!("%alloca.{}", r.index());
                let _ = writeln!(
                    self.prologue_allocas,
                    "  {raw} = alloca i8, i64 {total}, align {}",
                    obj_align.max(16)
                );
                let _ = writeln!(
                    self.prologue_allocas,
                    "  {name} = getelementptr i8, ptr {raw}, <{w} x i64> <{}>",
                    offsets.join(", ")
                );
                Ok(())
            }
            None => {
                let c = count.ok_or_else(|| refuse(site, "internal: alloca count"))?;
                if self.repr[c] == Repr::Vector {
                    return Err(refuse(
                        site,
                        "alloca with a varying element count: every lane's object must have one size to be widened",
                    ));
                }
                let ct = self.ty_of(c);
                let cs = self.get(site, c, Form::Scalar)?;
                let c64 = self.tmp();
                match types.int_width(ct) {
                    Some(64) => self.line(format!("{c64} = bitcast i64 {cs} to i64")),
                    Some(b) => self.line(format!("{c64} = zext i{b} {cs} to i64")),
                    None => return Err(refuse(site, "alloca count is not an integer")),
                }
                let bytes = self.tmp();
                self.line(format!("{bytes} = mul i64 {c64}, {size}"));
                let padded = self.tmp();
                self.line(format!("{padded} = add i64 {bytes}, {}", obj_align - 1));
                let stride = self.tmp();
                self.line(format!(
                    "{stride} = and i64 {padded}, {}",
                    !(obj_align - 1) as i64
                ));
                let all = self.tmp();
                self.line(format!("{all} = mul i64 {stride}, {w}"));
                let raw = self.tmp();
                self.line(format!(
                    "{raw} = alloca i8, i64 {all}, align {}",
                    obj_align.max(16)
                ));
                let s = self.splat_i64(&stride);
                let lanes: Vec<String> = (0..w).map(|l| format!("i64 {l}")).collect();
                let off = self.tmp();
                self.line(format!(
                    "{off} = mul <{w} x i64> {s}, <{}>",
                    lanes.join(", ")
                ));
                self.line(format!(
                    "{name} = getelementptr i8, ptr {raw}, <{w} x i64> {off}"
                ));
                Ok(())
            }
        }
    }

    fn splat_i64(&mut self, scalar: &str) -> String {
        let w = self.w();
        let ins = self.tmp();
        self.line(format!(
            "{ins} = insertelement <{w} x i64> poison, i64 {scalar}, i64 0"
        ));
        let out = self.tmp();
        self.line(format!(
            "{out} = shufflevector <{w} x i64> {ins}, <{w} x i64> poison, <{w} x i32> zeroinitializer"
        ));
        out
    }

    /// The memory type of a loaded or stored `ty`: `i1` is a byte (its store size,
    /// §4.9.1's layout); integers other than 8, 16, 32, 64 bits are refused.
    fn mem_ty(&self, site: Site, ty: Ty) -> Result<(String, String, u64), TransformError> {
        let (t, suffix) = match self.module.types.get(ty) {
            TypeData::Int(1) | TypeData::Int(8) => ("i8".to_string(), "i8".to_string()),
            TypeData::Int(w @ (16 | 32 | 64)) => (format!("i{w}"), format!("i{w}")),
            TypeData::F32 => ("float".into(), "f32".into()),
            TypeData::F64 => ("double".into(), "f64".into()),
            TypeData::Ptr(_) => ("ptr".into(), "p0".into()),
            _ => {
                return Err(refuse(
                    site,
                    format!(
                        "a memory access of type {}: widening takes i1, i8, i16, i32, i64, float, double and ptr",
                        self.module.types.display(ty)
                    ),
                ));
            }
        };
        let size = self.module.types.store_size(ty);
        Ok((t, suffix, size))
    }

    /// The alignment an access of `ty` states: the written `align`, else the
    /// type's ABI alignment (every vector access carries one explicitly).
    fn mem_align(&self, ty: Ty, align: Option<u64>) -> u64 {
        align
            .unwrap_or_else(|| self.module.types.align_of(ty))
            .max(1)
    }

    /// The base address of a contiguous access through `ptr` (the `sa` analysis
    /// proves lane l's address is `base + l · size`, thesis Ch. 10), taken from
    /// the first active lane as `ptr[f] - f · size`; `None` if not proven.
    fn contiguous_base(&mut self, ptr: Value, size: u64) -> Option<String> {
        if size == 0 || !(self.strided(ptr, i128::from(size)) || self.gep_of_unit_stride(ptr, size))
        {
            return None;
        }
        let w = self.w();
        let idx = self.first_active_index();
        let p = Self::name(ptr);
        let lane_ptr = self.tmp();
        self.line(format!(
            "{lane_ptr} = extractelement <{w} x ptr> {p}, i64 {idx}"
        ));
        let back = self.tmp();
        self.line(format!("{back} = mul i64 {idx}, -{size}"));
        let base = self.tmp();
        self.line(format!(
            "{base} = getelementptr i8, ptr {lane_ptr}, i64 {back}"
        ));
        Some(self.frozen(ptr, "ptr", base))
    }

    /// Whether the `sa` analysis gives `v` the shape `(stride, a)` (Fig. 10.4).
    fn strided(&self, v: Value, stride: i128) -> bool {
        matches!(self.setup.strides.get(&v), Some(SaShape::Strided { stride: s, .. }) if *s == stride)
    }

    /// Whether `ptr` is a `getelementptr` from a scalar base whose indices are all
    /// scalar but one, an `i64` of sa-shape `(s, a)` (thesis Fig. 10.4) stepping
    /// over elements of `e` bytes with `s · e = size`: lane l's address is then
    /// exactly `base + l · size` (the `i64` index needs no extension, so the
    /// affine form cannot wrap between the lanes). This reads the index's shape,
    /// not the pointer's: `sa` gives an `inbounds` address of non-uniform lanes a
    /// varying shape (a lane out of bounds is ⊤ there), while the widened
    /// `getelementptr` drops `inbounds` and computes the plain sum in every lane.
    fn gep_of_unit_stride(&self, ptr: Value, size: u64) -> bool {
        let Some(inst) = self.body.def_inst(ptr) else {
            return false;
        };
        let InstKind::Gep {
            source_ty,
            base,
            indices,
            ..
        } = &self.body.insts[inst].kind
        else {
            return false;
        };
        if !self.is_scalar(*base) {
            return false;
        }
        let types = &self.module.types;
        let mut current = *source_ty;
        let mut varying = None;
        for (k, index) in indices.iter().enumerate() {
            // The type this index steps over (as the interpreter's `gep` walks).
            if k > 0 {
                let step = match types.get(current) {
                    TypeData::Array(_, elem) => Some(*elem),
                    // A field index is a constant: scalar, no stride.
                    TypeData::Struct { .. } => match self.body.as_const(index.value) {
                        Some(ConstData::Int(f)) => u64::try_from(f)
                            .ok()
                            .and_then(|f| types.element_at(current, f)),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(step) = step else { return false };
                current = step;
            }
            if self.is_scalar(index.value) {
                continue;
            }
            if varying.is_some() {
                return false;
            }
            varying = Some((index.value, types.size_of(current)));
        }
        let Some((index, element)) = varying else {
            return false;
        };
        let Some(SaShape::Strided { stride, .. }) = self.setup.strides.get(&index) else {
            return false;
        };
        types.int_width(self.ty_of(index)) == Some(64)
            && u64::try_from(*stride)
                .ok()
                .and_then(|s| s.checked_mul(element))
                == Some(size)
    }

    /// `<1 x i1>` holding the scalar `some` (for a masked scalar access).
    fn one_lane_mask(&mut self, some: &str) -> String {
        let m = self.tmp();
        self.line(format!(
            "{m} = insertelement <1 x i1> poison, i1 {some}, i64 0"
        ));
        m
    }

    /// [W-INST-LOAD]: `read^W` in the active lanes only (a passive lane's address
    /// may point anywhere and is never touched): a masked contiguous load where the
    /// `sa` analysis proves stride 1, a masked gather otherwise; a uniform address
    /// is read once (masked by "some lane is active" when the block may run with
    /// none).
    fn load(
        &mut self,
        site: Site,
        r: Value,
        ty: Ty,
        ptr: Value,
        align: Option<u64>,
        total: bool,
    ) -> Result<(), TransformError> {
        let (mt, suffix, size) = self.mem_ty(site, ty)?;
        let a = self.mem_align(ty, align);
        let w = self.w();
        let i1 = self.is_i1(ty);
        let scalar_ptr = self.is_scalar(ptr);
        if scalar_ptr || self.repr[r] == Repr::Scalar {
            let p = self.scalar_of(site, ptr)?;
            let loaded = match self.some_active(total) {
                None => {
                    let t = self.tmp();
                    self.line(format!("{t} = load {mt}, ptr {p}, align {a}"));
                    t
                }
                Some(any) => {
                    let name = format!("llvm.masked.load.v1{suffix}.p0");
                    self.declare(
                        site,
                        &name,
                        format!(
                            "declare <1 x {mt}> @{name}(ptr, i32 immarg, <1 x i1>, <1 x {mt}>)"
                        ),
                    )?;
                    let m = self.one_lane_mask(&any);
                    let v = self.tmp();
                    self.line(format!(
                        "{v} = call <1 x {mt}> @{name}(ptr {p}, i32 {a}, <1 x i1> {m}, <1 x {mt}> zeroinitializer)"
                    ));
                    let t = self.tmp();
                    self.line(format!("{t} = extractelement <1 x {mt}> {v}, i64 0"));
                    t
                }
            };
            let value = if i1 {
                let t = self.tmp();
                self.line(format!("{t} = trunc i8 {loaded} to i1"));
                t
            } else {
                loaded
            };
            self.bind(r, &value, Form::Scalar);
            return Ok(());
        }
        let m = self.mask_of(total);
        let vt = format!("<{w} x {mt}>");
        let v = self.tmp();
        if let Some(base) = self.contiguous_base(ptr, size) {
            let name = format!("llvm.masked.load.v{w}{suffix}.p0");
            self.declare(
                site,
                &name,
                format!("declare {vt} @{name}(ptr, i32 immarg, <{w} x i1>, {vt})"),
            )?;
            self.line(format!(
                "{v} = call {vt} @{name}(ptr {base}, i32 {a}, <{w} x i1> {m}, {vt} zeroinitializer) {CONTIGUOUS}"
            ));
        } else {
            let name = format!("llvm.masked.gather.v{w}{suffix}.v{w}p0");
            self.declare(
                site,
                &name,
                format!("declare {vt} @{name}(<{w} x ptr>, i32 immarg, <{w} x i1>, {vt})"),
            )?;
            let p = Self::name(ptr);
            self.line(format!(
                "{v} = call {vt} @{name}(<{w} x ptr> {p}, i32 {a}, <{w} x i1> {m}, {vt} zeroinitializer)"
            ));
        }
        if i1 {
            let t = self.tmp();
            self.line(format!("{t} = trunc {vt} {v} to <{w} x i1>"));
            self.bind(r, &t, Form::Bits);
        } else {
            self.bind(r, &v, Form::Vector);
        }
        Ok(())
    }

    /// [W-INST-STORE]: `write^W` in the active lanes only: masked contiguous store,
    /// scatter, or one masked scalar store for a uniform address and value. Lanes
    /// storing different values to one address: the scatter's last lane wins (the
    /// thesis leaves it unspecified, §4.9.1).
    fn store(
        &mut self,
        site: Site,
        ty: Ty,
        value: Value,
        ptr: Value,
        align: Option<u64>,
        total: bool,
    ) -> Result<(), TransformError> {
        let (mt, suffix, size) = self.mem_ty(site, ty)?;
        let a = self.mem_align(ty, align);
        let w = self.w();
        let i1 = self.is_i1(ty);
        if self.is_scalar(ptr) && self.is_scalar(value) {
            let p = self.get(site, ptr, Form::Scalar)?;
            let mut v = self.get(site, value, Form::Scalar)?;
            if i1 {
                let t = self.tmp();
                self.line(format!("{t} = zext i1 {v} to i8"));
                v = t;
            }
            match self.some_active(total) {
                None => self.line(format!("store {mt} {v}, ptr {p}, align {a}")),
                Some(any) => {
                    let name = format!("llvm.masked.store.v1{suffix}.p0");
                    self.declare(
                        site,
                        &name,
                        format!("declare void @{name}(<1 x {mt}>, ptr, i32 immarg, <1 x i1>)"),
                    )?;
                    let m = self.one_lane_mask(&any);
                    let one = self.tmp();
                    self.line(format!(
                        "{one} = insertelement <1 x {mt}> poison, {mt} {v}, i64 0"
                    ));
                    self.line(format!(
                        "call void @{name}(<1 x {mt}> {one}, ptr {p}, i32 {a}, <1 x i1> {m})"
                    ));
                }
            }
            return Ok(());
        }
        let vt = format!("<{w} x {mt}>");
        let mut v = self.vec_operand(site, value, true)?;
        if i1 {
            let t = self.tmp();
            self.line(format!("{t} = zext <{w} x i1> {v} to {vt}"));
            v = t;
        }
        let m = self.mask_of(total);
        let contiguous = if self.is_scalar(ptr) {
            None
        } else {
            self.contiguous_base(ptr, size)
        };
        if let Some(base) = contiguous {
            let name = format!("llvm.masked.store.v{w}{suffix}.p0");
            self.declare(
                site,
                &name,
                format!("declare void @{name}({vt}, ptr, i32 immarg, <{w} x i1>)"),
            )?;
            self.line(format!(
                "call void @{name}({vt} {v}, ptr {base}, i32 {a}, <{w} x i1> {m}) {CONTIGUOUS}"
            ));
        } else {
            let name = format!("llvm.masked.scatter.v{w}{suffix}.v{w}p0");
            self.declare(
                site,
                &name,
                format!("declare void @{name}({vt}, <{w} x ptr>, i32 immarg, <{w} x i1>)"),
            )?;
            let p = self.get(site, ptr, Form::Vector)?;
            self.line(format!(
                "call void @{name}({vt} {v}, <{w} x ptr> {p}, i32 {a}, <{w} x i1> {m})"
            ));
        }
        Ok(())
    }

    /// [W-CMD-CALL] with θ (Fig. 4.14-4.15): the builtins of Fig. 4.15 over the
    /// chunk's existing lanes, pure math per lane (one scalar call per lane: the
    /// callee's own C or LLVM function, so results are those of the platform's
    /// library), the intrinsics without effect dropped.
    fn call(
        &mut self,
        site: Site,
        result: Option<Value>,
        callee: FuncId,
        ret_ty: Ty,
        args: &[Value],
        total: bool,
    ) -> Result<(), TransformError> {
        let name = self.module.functions[callee].name.clone();
        let Some(builtin) = theta::resolve(&name) else {
            return Err(refuse(
                site,
                format!(
                    "a call of @{name}, which θ does not know: only builtins and math functions are widened"
                ),
            ));
        };
        let w = self.w();
        let _ = total;
        match builtin {
            Builtin::ThreadId => {
                let r = result.ok_or_else(|| refuse(site, "thread_id without a result"))?;
                let bits = self.module.types.int_width(ret_ty).unwrap_or(64);
                let t = self.tmp();
                if bits == 64 {
                    self.line(format!(
                        "{t} = bitcast <{w} x i64> %thread.id to <{w} x i64>"
                    ));
                } else {
                    self.line(format!(
                        "{t} = trunc <{w} x i64> %thread.id to <{w} x i{bits}>"
                    ));
                }
                self.bind(r, &t, Form::Vector);
                Ok(())
            }
            Builtin::Any | Builtin::All | Builtin::Popcount | Builtin::Ballot => {
                let r =
                    result.ok_or_else(|| refuse(site, "a horizontal builtin without a result"))?;
                let arg = *args
                    .first()
                    .ok_or_else(|| refuse(site, format!("@{name} needs an argument")))?;
                if matches!(builtin, Builtin::Any | Builtin::All)
                    && let Some(known) = self.known_reduction(builtin == Builtin::Any, arg, r)
                {
                    self.bind(r, &known, Form::Scalar);
                    return Ok(());
                }
                // The input is frozen if it may be LLVM poison (a passive lane's
                // ⊤ must not be poison in a reduction) and the lanes that do not
                // exist are left out (unless they are false already).
                let mt = self.vty(self.ty_of(arg));
                let vec = self.get(site, arg, Form::Vector)?;
                let f = self.frozen(arg, &mt, vec);
                let confined =
                    self.confined[arg] && !matches!(self.body.values[arg].def, ValueDef::Const(_));
                let existing = if confined {
                    f.clone()
                } else {
                    self.and_existing(&mt, f.clone())
                };
                let out = match builtin {
                    Builtin::Any => self.reduce("or", &existing),
                    Builtin::All if self.lanes == Lanes::Full => self.reduce("and", &f),
                    Builtin::All => {
                        let missing = self.tmp();
                        let ones = match self.setup.mask {
                            MaskRepr::I1 => "splat (i1 true)",
                            MaskRepr::I32 => "splat (i32 -1)",
                        };
                        self.line(format!("{missing} = xor {mt} %exists.v, {ones}"));
                        let m = self.tmp();
                        self.line(format!("{m} = or {mt} {f}, {missing}"));
                        self.reduce("and", &m)
                    }
                    _ => {
                        let m = if self.setup.mask == MaskRepr::I32 {
                            let t = self.tmp();
                            self.line(format!("{t} = icmp slt {mt} {existing}, zeroinitializer"));
                            t
                        } else {
                            existing
                        };
                        let int = self.tmp();
                        self.line(format!("{int} = bitcast <{w} x i1> {m} to i{w}"));
                        let counted = if builtin == Builtin::Popcount {
                            let cname = format!("llvm.ctpop.i{w}");
                            self.declare(site, &cname, format!("declare i{w} @{cname}(i{w})"))?;
                            let c = self.tmp();
                            self.line(format!("{c} = call i{w} @{cname}(i{w} {int})"));
                            c
                        } else {
                            int
                        };
                        let rb = self.module.types.int_width(ret_ty).ok_or_else(|| {
                            refuse(site, format!("@{name} must return an integer"))
                        })?;
                        let t = self.tmp();
                        match rb.cmp(&(w as u32)) {
                            std::cmp::Ordering::Equal => {
                                self.line(format!("{t} = bitcast i{w} {counted} to i{w}"))
                            }
                            std::cmp::Ordering::Less => {
                                self.line(format!("{t} = trunc i{w} {counted} to i{rb}"))
                            }
                            std::cmp::Ordering::Greater => {
                                self.line(format!("{t} = zext i{w} {counted} to i{rb}"))
                            }
                        }
                        t
                    }
                };
                self.bind(r, &out, Form::Scalar);
                Ok(())
            }
            Builtin::Math(_) => self.math(site, result, &name, ret_ty, args),
            Builtin::Assume | Builtin::LifetimeStart | Builtin::LifetimeEnd | Builtin::NoOp => {
                Ok(())
            }
            Builtin::Memset | Builtin::Memcpy | Builtin::Memmove => Err(refuse(
                site,
                format!("a call of @{name}: memory intrinsics are not widened"),
            )),
            Builtin::GroupId | Builtin::GroupSize => Err(refuse(
                site,
                format!("a call of @{name}: work-groups exist only in `pllvm run --grid`"),
            )),
            Builtin::MbcntLo
            | Builtin::MbcntHi
            | Builtin::ReadFirstLane
            | Builtin::ReadLane
            | Builtin::WaveBallot
            | Builtin::LaneId
            | Builtin::WaveSize
            | Builtin::Barrier
            | Builtin::WorkItem(_)
            | Builtin::GridDim(..)
            | Builtin::ConvergenceControl => Err(refuse(
                site,
                format!(
                    "a call of @{name}: the targets' wave operations, barriers and work-item functions are not widened"
                ),
            )),
        }
    }

    /// The value of `any(arg)` (`is_any`) or `all(arg)` when the kernel has
    /// computed it already: a reduction of the same [`reduction_key`] in a
    /// block that strictly dominates this one, or, for a key that is a phi of
    /// this block, a phi of the reductions that end each predecessor (the
    /// loop test of the latch is the header's test of the next iteration:
    /// `any` of a constant is that constant, lane 0 always existing).
    fn known_reduction(&mut self, is_any: bool, arg: Value, result: Value) -> Option<String> {
        let key = reduction_key(self.body, &self.inst_block, arg);
        let available = |e: &Self, key: Value, at: Block, strict: bool| {
            e.reductions.get(&(is_any, key)).and_then(|found| {
                found.iter().find_map(|&(b, r)| {
                    let ok = if strict {
                        e.doms.strictly_dominates(b, at)
                    } else {
                        b == at || e.doms.strictly_dominates(b, at)
                    };
                    (ok && r != result).then(|| Self::name(r))
                })
            })
        };
        if let Some(name) = available(self, key, self.current, true) {
            return Some(name);
        }
        let inst = self.body.def_inst(key)?;
        let InstKind::Phi { incoming, .. } = &self.body.insts[inst].kind else {
            return None;
        };
        if self.inst_block.get(&inst) != Some(&self.current) {
            return None;
        }
        let mut arms = Vec::new();
        let into = self
            .edges_into
            .get(&self.current)
            .cloned()
            .unwrap_or_default();
        for (pred, edges) in into {
            let &(v, _) = incoming.iter().find(|(_, b)| *b == pred)?;
            let text = match self.body.as_const(v) {
                Some(ConstData::Int(k)) => if k.bit(0) { "true" } else { "false" }.to_string(),
                Some(ConstData::Zero) => "false".to_string(),
                Some(_) => return None,
                None => available(self, v, pred, false)?,
            };
            for _ in 0..edges {
                arms.push(format!("[ {text}, %b{} ]", pred.index()));
            }
        }
        let t = self.tmp();
        let line = format!("  {t} = phi i1 {}\n", arms.join(", "));
        self.extra_phis
            .entry(self.current)
            .or_default()
            .push_str(&line);
        Some(t)
    }

    /// A pure math function: one call, or one call per lane for a vector result
    /// (constant arguments such as `immarg` flags stay constants).
    fn math(
        &mut self,
        site: Site,
        result: Option<Value>,
        name: &str,
        ret_ty: Ty,
        args: &[Value],
    ) -> Result<(), TransformError> {
        let r =
            result.ok_or_else(|| refuse(site, format!("a call of @{name} without a result")))?;
        let rt = self.sty(ret_ty);
        let arg_tys: Vec<String> = args.iter().map(|&a| self.sty(self.ty_of(a))).collect();
        let immarg: Vec<String> = args
            .iter()
            .zip(&arg_tys)
            .map(|(&a, t)| {
                let is_flag = name.starts_with("llvm.")
                    && t == "i1"
                    && matches!(self.body.values[a].def, ValueDef::Const(_));
                if is_flag {
                    format!("{t} immarg")
                } else {
                    t.clone()
                }
            })
            .collect();
        self.declare(
            site,
            name,
            format!("declare {rt} @{name}({})", immarg.join(", ")),
        )?;
        if self.repr[r] == Repr::Scalar {
            let mut parts = Vec::new();
            for (&a, t) in args.iter().zip(&arg_tys) {
                parts.push(format!("{t} {}", self.get(site, a, Form::Scalar)?));
            }
            let t = self.tmp();
            self.line(format!("{t} = call {rt} @{name}({})", parts.join(", ")));
            self.bind(r, &t, Form::Scalar);
            return Ok(());
        }
        let w = self.w();
        let mut vectors = Vec::new();
        for &a in args {
            let scalar = self.is_scalar(a);
            if scalar {
                vectors.push((true, self.get(site, a, Form::Scalar)?));
            } else {
                vectors.push((false, self.vec_operand(site, a, true)?));
            }
        }
        let elem_is_i1 = self.is_i1(ret_ty);
        let mut acc = "poison".to_string();
        let acc_ty = format!("<{w} x {rt}>");
        for lane in 0..w {
            let mut parts = Vec::new();
            for ((scalar, text), t) in vectors.iter().zip(&arg_tys) {
                if *scalar {
                    parts.push(format!("{t} {text}"));
                } else {
                    let e = self.tmp();
                    self.line(format!(
                        "{e} = extractelement <{w} x {t}> {text}, i64 {lane}"
                    ));
                    parts.push(format!("{t} {e}"));
                }
            }
            let c = self.tmp();
            self.line(format!("{c} = call {rt} @{name}({})", parts.join(", ")));
            let next = self.tmp();
            self.line(format!(
                "{next} = insertelement {acc_ty} {acc}, {rt} {c}, i64 {lane}"
            ));
            acc = next;
        }
        self.bind(r, &acc, if elem_is_i1 { Form::Bits } else { Form::Vector });
        Ok(())
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
