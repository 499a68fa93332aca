//! The P-LLVM IR (thesis Fig. 4.2, Def. 1) as arenas of typed indices (docs/design/style.md §2).
//!
//! A [`Module`] holds globals, functions and a type table. A function with a body
//! is a P-LLVM program `prg ::= b̄`: its blocks `ℓ val_msk φ̄ c̄ tmn` are
//! [`BlockData`], its commands and phis are [`InstData`] in one arena, and every
//! operand is a [`Value`]: a parameter, the result of an instruction, or a constant
//! (constants live in the same arena, so the rules see one kind of operand, like
//! `val ::= id | cnst`). Data is kept apart from order: `Body::layout` is the block
//! order (its first block is the entry, Def. 1) and `BlockData::{phis, body}` the
//! instruction order. Source positions live in [`crate::diag::SourceMap`], never here.

use crate::entity;
use crate::entity::PrimaryMap;
use crate::types::{Ty, TypeData, TypeTable};
use num_bigint::BigUint;

entity!(
    /// A basic block `ℓ` of a function body.
    Block,
    "block"
);
entity!(
    /// A phi or command of a function body.
    Inst,
    "inst"
);
entity!(
    /// An SSA value `val`: parameter, instruction result or constant.
    Value,
    "v"
);
entity!(
    /// A function of a module (defined or only declared).
    FuncId,
    "fn"
);
entity!(
    /// A global variable of a module.
    GlobalId,
    "global"
);

/// A whole `.ll` file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    /// Interned types.
    pub types: TypeTable,
    /// Global variables, in source order.
    pub globals: PrimaryMap<GlobalId, GlobalData>,
    /// Functions (definitions and declarations), in source order.
    pub functions: PrimaryMap<FuncId, FunctionData>,
    /// `source_filename`, `target datalayout` and `target triple` lines, verbatim.
    pub header: Vec<String>,
    /// The inline assembly a call names (`call i32 asm sideeffect "...", "=v,v"(i32
    /// %x)`): each is a function of its own, without a body and never printed as
    /// a `declare`, that the calls name by its [`FuncId`]; these functions come
    /// after all others (the normal form's order).
    pub inline_asm: std::collections::BTreeMap<FuncId, InlineAsm>,
}

/// An inline assembly callee (LangRef, "Inline Assembler Expressions"):
/// `asm [sideeffect] [alignstack] [inteldialect] [unwind] "text", "constraints"`.
/// pllvm does not execute it (running it is undefined behaviour,
/// [`crate::rules::cmd::w_cmd_asm`]); the analyses read its constraints.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InlineAsm {
    /// The assembly text, unescaped.
    pub text: String,
    /// The constraint string, unescaped (`"=v,v"`, `"=r,r,~{memory}"`).
    pub constraints: String,
    /// `sideeffect`.
    pub sideeffect: bool,
    /// `alignstack`.
    pub alignstack: bool,
    /// `inteldialect`.
    pub inteldialect: bool,
    /// `unwind`.
    pub unwind: bool,
}

impl InlineAsm {
    /// The constraint codes, one per comma-separated entry, in order (LangRef,
    /// "Inline Asm Constraint String"): outputs (`=v`), inputs (`v`), clobbers
    /// (`~{memory}`), label operands of `callbr` (`!i`). A target's uniformity
    /// rule for inline asm reads the output codes (AMDGPU: an output in a VGPR,
    /// `v`, is divergent; one in an SGPR, `s`, is not).
    pub fn constraint_codes(&self) -> Vec<&str> {
        if self.constraints.is_empty() {
            return Vec::new();
        }
        self.constraints.split(',').map(str::trim).collect()
    }
    /// The output constraints (codes starting with `=`), without the `=`.
    pub fn outputs(&self) -> Vec<&str> {
        self.constraint_codes()
            .into_iter()
            .filter_map(|c| c.strip_prefix('='))
            .collect()
    }
}

impl Module {
    /// The inline assembly `f` stands for, if it is an inline assembly callee.
    pub fn inline_asm(&self, f: FuncId) -> Option<&InlineAsm> {
        self.inline_asm.get(&f)
    }
}

impl Module {
    /// The function called `name` (without `@`).
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(id, _)| id)
    }
    /// The first function with a body: the default program of a file.
    pub fn first_definition(&self) -> Option<FuncId> {
        self.functions
            .iter()
            .find(|(_, f)| f.body.is_some())
            .map(|(id, _)| id)
    }
}

/// A global variable `@name = [linkage] global|constant T init`.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalData {
    /// Name without `@`.
    pub name: String,
    /// The type of the object the global points to.
    pub ty: Ty,
    /// Address space of the global's pointer.
    pub addrspace: u32,
    /// Whether declared `constant` (stores to it are undefined behaviour).
    pub constant: bool,
    /// The initializer; `None` for `external` globals, whose contents come from the run's input.
    pub init: Option<GlobalInit>,
    /// Linkage and other words before `global`, verbatim (`internal`, `addrspace(3)` ...).
    pub linkage: Vec<String>,
    /// Explicit alignment.
    pub align: Option<u64>,
}

/// A global's initializer.
#[derive(Clone, Debug, PartialEq)]
pub enum GlobalInit {
    /// `zeroinitializer`.
    Zero,
    /// `undef` or `poison`: the object starts uninitialized (§4.9.1 reads give ⊤).
    Undef,
    /// Scalar constant.
    Scalar(ConstData),
    /// `[T a, T b, ...]`, `{ ... }` or `c"..."`: one initializer per element.
    Aggregate(Vec<GlobalInit>),
}

/// A function: signature, and a body when defined.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionData {
    /// Name without `@`.
    pub name: String,
    /// Return type (`void` for none).
    pub ret_ty: Ty,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Calling convention (`amdgpu_kernel`, `spir_kernel`, `ptx_kernel`, ...), if any.
    pub cconv: Option<String>,
    /// Whether the signature ends in `...`.
    pub variadic: bool,
    /// The `convergent` function attribute (LLVM LangRef, "Function Attributes"),
    /// written after the parameters or through an attribute group `#N`: a call
    /// to this function is a convergent operation
    /// ([`crate::theta::is_convergent_call`]).
    pub convergent: bool,
    /// The body; `None` for a `declare`.
    pub body: Option<Body>,
}

impl FunctionData {
    /// `declare RET @name(ARGS...)`: a declaration without attributes, as
    /// LLVM's parser makes for an intrinsic a call names without declaring it.
    pub fn declaration(name: &str, ret_ty: Ty, args: &[Ty]) -> Self {
        FunctionData {
            name: name.to_string(),
            ret_ty,
            params: args
                .iter()
                .enumerate()
                .map(|(i, &ty)| Param {
                    ty,
                    attrs: Vec::new(),
                    value: Value::from_u32(i as u32),
                })
                .collect(),
            cconv: None,
            variadic: false,
            convergent: false,
            body: None,
        }
    }

    /// Whether the calling convention makes this function a GPU entry point (a
    /// kernel, or a compute or pixel shader). Which of its arguments are uniform
    /// is the target's rule, not this (`amdgpu_ps` and `amdgpu_cs` make only
    /// `inreg` and `byval` ones uniform: the analysis crate's `target::ARG_RULES`).
    pub fn is_kernel(&self) -> bool {
        matches!(
            self.cconv.as_deref(),
            Some("amdgpu_kernel" | "spir_kernel" | "ptx_kernel" | "amdgpu_cs" | "amdgpu_ps")
        )
    }
}

/// A function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Its type.
    pub ty: Ty,
    /// Parameter attributes as written (`noundef`, `inreg`, `byval(i32)`, `align 4`).
    pub attrs: Vec<String>,
    /// The value the body refers to it by (only meaningful with a body).
    pub value: Value,
}

impl Param {
    /// Whether marked `inreg` (LLVM's AMDGPU analysis then calls it uniform).
    pub fn is_inreg(&self) -> bool {
        self.attrs.iter().any(|a| a == "inreg")
    }
}

/// The body of a defined function: the P-LLVM program `prg` of Def. 1.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Body {
    /// Block data.
    pub blocks: PrimaryMap<Block, BlockData>,
    /// Block order; `layout[0]` is the entry block.
    pub layout: Vec<Block>,
    /// Phis and commands.
    pub insts: PrimaryMap<Inst, InstData>,
    /// Parameters, results and constants.
    pub values: PrimaryMap<Value, ValueData>,
}

impl Body {
    /// The entry block (Def. 1: the first block of `prg`).
    pub fn entry(&self) -> Option<Block> {
        self.layout.first().copied()
    }
    /// The CFG successors of `block`, in successor-index order (`(ℓ, i, ℓ') ∈ E`).
    pub fn successors(&self, block: Block) -> Vec<Block> {
        self.blocks[block].term.successors()
    }
    /// The block called `name`.
    pub fn block_by_name(&self, name: &str) -> Option<Block> {
        self.layout
            .iter()
            .copied()
            .find(|&b| self.blocks[b].name == name)
    }
    /// The value named `%name` (parameters and results).
    pub fn value_by_name(&self, name: &str) -> Option<Value> {
        self.values
            .iter()
            .find(|(_, v)| v.name.as_deref() == Some(name))
            .map(|(id, _)| id)
    }
    /// The name of `value` as the text spells it (`%x`, `%0`), or `None` for constants.
    pub fn value_name(&self, value: Value) -> Option<&str> {
        self.values[value].name.as_deref()
    }
    /// The constant behind `value`, if it is one.
    pub fn as_const(&self, value: Value) -> Option<&ConstData> {
        match &self.values[value].def {
            ValueDef::Const(c) => Some(c),
            _ => None,
        }
    }
    /// The instruction defining `value`, if any.
    pub fn def_inst(&self, value: Value) -> Option<Inst> {
        match self.values[value].def {
            ValueDef::Inst(i) => Some(i),
            _ => None,
        }
    }
    /// Adds a constant value (callers may share one value between uses).
    pub fn add_const(&mut self, ty: Ty, c: ConstData) -> Value {
        self.values.push(ValueData {
            ty,
            name: None,
            def: ValueDef::Const(c),
        })
    }
}

/// What a [`Value`] is.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueData {
    /// Its type.
    pub ty: Ty,
    /// Its name without `%` (numbered values keep their digits), `None` for constants
    /// and for results a printer numbers.
    pub name: Option<String>,
    /// Where it comes from.
    pub def: ValueDef,
}

/// Where a value comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueDef {
    /// The n-th function parameter.
    Param(u32),
    /// The result of a phi or command.
    Inst(Inst),
    /// A constant `cnst`.
    Const(ConstData),
}

/// A constant operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstData {
    /// An `iN` literal, as its bit pattern reduced modulo 2^N (`true` is 1 of `i1`).
    Int(BigUint),
    /// A `float` / `double` literal as its IEEE bit pattern (f32 bits in the low 32).
    Float(u64),
    /// `null` (a pointer without provenance, address 0).
    Null,
    /// `undef`: ⊤ in every lane.
    Undef,
    /// `poison`: also ⊤ (P-LLVM has one undefined value).
    Poison,
    /// `zeroinitializer` of a scalar type.
    Zero,
    /// `@name` of a global variable: a pointer to its object.
    Global(GlobalId),
    /// `@name` of a function used as a value.
    Function(FuncId),
    /// A vector or aggregate constant, one constant per element: `<T a, T b>`,
    /// `{ T a, U b }`, `[T a, T b]` (element types come from the constant's type).
    Elems(Vec<ConstData>),
    /// `splat (T c)`: a vector with `c` in every element.
    Splat(Box<ConstData>),
    /// A constant expression (LangRef "Constant Expressions"): a cast or a
    /// `getelementptr` of constants, the same value in every lane.
    Expr(Box<ConstExpr>),
}

/// A constant expression: an operation on constants that LLVM writes inline as
/// an operand, `addrspacecast (ptr addrspace(3) @s to ptr)` or
/// `getelementptr inbounds ([4 x i32], ptr @g, i64 0, i64 1)`. Its value is the
/// operation's result on the constants, by the instruction's own rule
/// (docs/language.md, "Constant expressions").
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstExpr {
    /// `op (from c to to)`: LLVM 22 keeps `trunc`, `ptrtoint`, `inttoptr`,
    /// `bitcast` and `addrspacecast` as constant expressions.
    Cast {
        /// The cast.
        op: CastOp,
        /// The operand's type.
        from: Ty,
        /// The operand.
        arg: ConstData,
        /// The result type.
        to: Ty,
    },
    /// `getelementptr [flags] [inrange(lo, hi)] (T, ptr c, iN k...)`.
    Gep {
        /// `inbounds` / `nusw` / `nuw`.
        flags: GepFlags,
        /// `inrange(lo, hi)`: byte offsets around the result that loads and stores
        /// through it may reach (kept and printed; LangRef makes an access
        /// outside them undefined, pllvm does not check it).
        inrange: Option<(i64, i64)>,
        /// The source element type `T`.
        source_ty: Ty,
        /// The base pointer's type.
        base_ty: Ty,
        /// The base pointer.
        base: ConstData,
        /// The indices with their integer types.
        indices: Vec<(Ty, ConstData)>,
    },
}

/// The flags of a `getelementptr` (LangRef: `inbounds` implies `nusw`, so
/// `nusw` is set only without `inbounds`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GepFlags {
    /// `inbounds`: the result stays within the base's object (else poison).
    pub inbounds: bool,
    /// `nusw`: the offset arithmetic does not overflow signed (else poison).
    pub nusw: bool,
    /// `nuw`: the offset arithmetic does not overflow unsigned (else poison).
    pub nuw: bool,
}

/// A block `ℓ val_msk φ̄ c̄ tmn` (thesis Fig. 4.2, Def. 1).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockData {
    /// The label `ℓ` without `%`.
    pub name: String,
    /// `val_msk`, the block predicate (Def. 7); `None` is the constant `true`.
    pub predicate: Option<Value>,
    /// The phis `φ̄`, in order.
    pub phis: Vec<Inst>,
    /// The commands `c̄`, in order.
    pub body: Vec<Inst>,
    /// The terminator `tmn`.
    pub term: Terminator,
}

/// A phi or command with its result.
#[derive(Clone, Debug, PartialEq)]
pub struct InstData {
    /// What it computes.
    pub kind: InstKind,
    /// The `id` it assigns; `None` for `store` and void calls (the `z = store p v`
    /// sugar of Fig. 4.13a).
    pub result: Option<Value>,
    /// The `total` modifier (`id = inst total`, [W-CMD-TOTAL]).
    pub total: bool,
}

/// Integer and float binary operators (`bop`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul`
    Mul,
    /// `udiv`
    UDiv,
    /// `sdiv`
    SDiv,
    /// `urem`
    URem,
    /// `srem`
    SRem,
    /// `shl`
    Shl,
    /// `lshr`
    LShr,
    /// `ashr`
    AShr,
    /// `and`
    And,
    /// `or`
    Or,
    /// `xor`
    Xor,
    /// `fadd`
    FAdd,
    /// `fsub`
    FSub,
    /// `fmul`
    FMul,
    /// `fdiv`
    FDiv,
    /// `frem`
    FRem,
}

impl BinOp {
    /// Every operator, for parsers and generators.
    pub const ALL: [BinOp; 18] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::UDiv,
        BinOp::SDiv,
        BinOp::URem,
        BinOp::SRem,
        BinOp::Shl,
        BinOp::LShr,
        BinOp::AShr,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::FAdd,
        BinOp::FSub,
        BinOp::FMul,
        BinOp::FDiv,
        BinOp::FRem,
    ];
    /// The opcode as spelled in the text.
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::UDiv => "udiv",
            BinOp::SDiv => "sdiv",
            BinOp::URem => "urem",
            BinOp::SRem => "srem",
            BinOp::Shl => "shl",
            BinOp::LShr => "lshr",
            BinOp::AShr => "ashr",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::FAdd => "fadd",
            BinOp::FSub => "fsub",
            BinOp::FMul => "fmul",
            BinOp::FDiv => "fdiv",
            BinOp::FRem => "frem",
        }
    }
    /// Whether it operates on floats.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem
        )
    }
}

/// Poison-generating flags of integer operators (`nuw`, `nsw`, `exact`, `disjoint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct IntFlags {
    /// `nuw`: unsigned overflow gives ⊤.
    pub nuw: bool,
    /// `nsw`: signed overflow gives ⊤.
    pub nsw: bool,
    /// `exact`: a non-zero remainder (or shifted-out one bits) gives ⊤.
    pub exact: bool,
    /// `disjoint` on `or`: common set bits give ⊤.
    pub disjoint: bool,
}

/// `icmp` predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ICmpPred {
    /// `eq`
    Eq,
    /// `ne`
    Ne,
    /// `ugt`
    Ugt,
    /// `uge`
    Uge,
    /// `ult`
    Ult,
    /// `ule`
    Ule,
    /// `sgt`
    Sgt,
    /// `sge`
    Sge,
    /// `slt`
    Slt,
    /// `sle`
    Sle,
}

impl ICmpPred {
    /// Every predicate.
    pub const ALL: [ICmpPred; 10] = [
        ICmpPred::Eq,
        ICmpPred::Ne,
        ICmpPred::Ugt,
        ICmpPred::Uge,
        ICmpPred::Ult,
        ICmpPred::Ule,
        ICmpPred::Sgt,
        ICmpPred::Sge,
        ICmpPred::Slt,
        ICmpPred::Sle,
    ];
    /// The predicate as spelled in the text.
    pub fn name(self) -> &'static str {
        match self {
            ICmpPred::Eq => "eq",
            ICmpPred::Ne => "ne",
            ICmpPred::Ugt => "ugt",
            ICmpPred::Uge => "uge",
            ICmpPred::Ult => "ult",
            ICmpPred::Ule => "ule",
            ICmpPred::Sgt => "sgt",
            ICmpPred::Sge => "sge",
            ICmpPred::Slt => "slt",
            ICmpPred::Sle => "sle",
        }
    }

    /// The predicate with its operands swapped: `a P b` iff `b P.swapped() a`.
    pub fn swapped(self) -> ICmpPred {
        use ICmpPred::*;
        match self {
            Eq => Eq,
            Ne => Ne,
            Ugt => Ult,
            Uge => Ule,
            Ult => Ugt,
            Ule => Uge,
            Sgt => Slt,
            Sge => Sle,
            Slt => Sgt,
            Sle => Sge,
        }
    }

    /// The predicate that holds exactly when this one does not.
    pub fn inverse(self) -> ICmpPred {
        use ICmpPred::*;
        match self {
            Eq => Ne,
            Ne => Eq,
            Ugt => Ule,
            Uge => Ult,
            Ult => Uge,
            Ule => Ugt,
            Sgt => Sle,
            Sge => Slt,
            Slt => Sge,
            Sle => Sgt,
        }
    }
}

/// `fcmp` predicates (ordered `o*`, unordered `u*`, and the constant ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FCmpPred {
    /// `false`
    False,
    /// `oeq`
    Oeq,
    /// `ogt`
    Ogt,
    /// `oge`
    Oge,
    /// `olt`
    Olt,
    /// `ole`
    Ole,
    /// `one`
    One,
    /// `ord`
    Ord,
    /// `ueq`
    Ueq,
    /// `ugt`
    Ugt,
    /// `uge`
    Uge,
    /// `ult`
    Ult,
    /// `ule`
    Ule,
    /// `une`
    Une,
    /// `uno`
    Uno,
    /// `true`
    True,
}

impl FCmpPred {
    /// Every predicate.
    pub const ALL: [FCmpPred; 16] = [
        FCmpPred::False,
        FCmpPred::Oeq,
        FCmpPred::Ogt,
        FCmpPred::Oge,
        FCmpPred::Olt,
        FCmpPred::Ole,
        FCmpPred::One,
        FCmpPred::Ord,
        FCmpPred::Ueq,
        FCmpPred::Ugt,
        FCmpPred::Uge,
        FCmpPred::Ult,
        FCmpPred::Ule,
        FCmpPred::Une,
        FCmpPred::Uno,
        FCmpPred::True,
    ];
    /// The predicate as spelled in the text.
    pub fn name(self) -> &'static str {
        match self {
            FCmpPred::False => "false",
            FCmpPred::Oeq => "oeq",
            FCmpPred::Ogt => "ogt",
            FCmpPred::Oge => "oge",
            FCmpPred::Olt => "olt",
            FCmpPred::Ole => "ole",
            FCmpPred::One => "one",
            FCmpPred::Ord => "ord",
            FCmpPred::Ueq => "ueq",
            FCmpPred::Ugt => "ugt",
            FCmpPred::Uge => "uge",
            FCmpPred::Ult => "ult",
            FCmpPred::Ule => "ule",
            FCmpPred::Une => "une",
            FCmpPred::Uno => "uno",
            FCmpPred::True => "true",
        }
    }
}

/// Cast operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    /// `zext` (may carry `nneg`)
    ZExt,
    /// `sext`
    SExt,
    /// `trunc` (may carry `nuw`/`nsw`)
    Trunc,
    /// `fptosi`
    FpToSi,
    /// `fptoui`
    FpToUi,
    /// `sitofp`
    SiToFp,
    /// `uitofp` (may carry `nneg`)
    UiToFp,
    /// `fpext`
    FpExt,
    /// `fptrunc`
    FpTrunc,
    /// `bitcast`
    Bitcast,
    /// `ptrtoint`
    PtrToInt,
    /// `inttoptr`
    IntToPtr,
    /// `addrspacecast`
    AddrSpaceCast,
}

impl CastOp {
    /// Every cast.
    pub const ALL: [CastOp; 13] = [
        CastOp::ZExt,
        CastOp::SExt,
        CastOp::Trunc,
        CastOp::FpToSi,
        CastOp::FpToUi,
        CastOp::SiToFp,
        CastOp::UiToFp,
        CastOp::FpExt,
        CastOp::FpTrunc,
        CastOp::Bitcast,
        CastOp::PtrToInt,
        CastOp::IntToPtr,
        CastOp::AddrSpaceCast,
    ];
    /// The opcode as spelled in the text.
    pub fn name(self) -> &'static str {
        match self {
            CastOp::ZExt => "zext",
            CastOp::SExt => "sext",
            CastOp::Trunc => "trunc",
            CastOp::FpToSi => "fptosi",
            CastOp::FpToUi => "fptoui",
            CastOp::SiToFp => "sitofp",
            CastOp::UiToFp => "uitofp",
            CastOp::FpExt => "fpext",
            CastOp::FpTrunc => "fptrunc",
            CastOp::Bitcast => "bitcast",
            CastOp::PtrToInt => "ptrtoint",
            CastOp::IntToPtr => "inttoptr",
            CastOp::AddrSpaceCast => "addrspacecast",
        }
    }

    /// Whether `op` may convert `from` to `to` (LLVM LangRef, "Conversion Operations");
    /// the error says which rule fails.
    pub fn check_types(self, types: &TypeTable, from: Ty, to: Ty) -> Result<(), &'static str> {
        let op = self;
        // Element-wise casts of vectors: both sides vectors of one length, the element
        // types legal for the scalar cast. A bitcast may change the shape (below).
        if op != CastOp::Bitcast {
            match (types.vector(from), types.vector(to)) {
                (Some((n, a)), Some((m, b))) => {
                    if n != m {
                        return Err("vectors must have the same length");
                    }
                    return op.check_types(types, a, b);
                }
                (None, None) => {}
                _ => return Err("both types must be vectors, or neither"),
            }
        }
        let int = |t: Ty| types.int_width(t);
        let float_bits = |t: Ty| match types.get(t) {
            TypeData::F16 | TypeData::BF16 => Some(16u32),
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
                (TypeData::Ptr(a), TypeData::Ptr(b)) => {
                    check(a != b, "the address spaces must differ")
                }
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
                    let bits = |t: Ty| match types.vector(t) {
                        Some((n, elem)) => int(elem)
                            .or(float_bits(elem))
                            .and_then(|w| w.checked_mul(n)),
                        None => int(t).or(float_bits(t)),
                    };
                    match (bits(from), bits(to)) {
                        (Some(a), Some(b)) => check(a == b, "the sizes must be equal"),
                        _ => Err("both types must be non-aggregate first-class types"),
                    }
                }
            },
        }
    }
}

/// An operand bundle of a call: `"tag"(T v, ...)` (LLVM LangRef, "Operand
/// Bundles"), such as `"convergencectrl"(token %t)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OperandBundle {
    /// The tag, without quotes.
    pub tag: String,
    /// The operands, in order.
    pub args: Vec<Value>,
}

/// One index of a `getelementptr`.
#[derive(Clone, Debug, PartialEq)]
pub struct GepIndex {
    /// The index value (any integer type; struct field indices are constants).
    pub value: Value,
}

/// What a phi or command computes (`inst`, `phi` and `mask()` of Fig. 4.2).
#[derive(Clone, Debug, PartialEq)]
pub enum InstKind {
    /// `phi ty [v, ℓ]... [shadow(v)]` (§4.8).
    Phi {
        /// Result type.
        ty: Ty,
        /// Incoming `(value, block)` pairs.
        incoming: Vec<(Value, Block)>,
        /// The shadow operand `val_s`, taken under passive execution.
        shadow: Option<Value>,
    },
    /// `op [flags] ty a, b`.
    Binary {
        /// Operator.
        op: BinOp,
        /// Integer flags (ignored on float ops; fast-math flags are dropped).
        flags: IntFlags,
        /// Operand type.
        ty: Ty,
        /// Left operand.
        lhs: Value,
        /// Right operand.
        rhs: Value,
    },
    /// `fneg ty a`.
    FNeg {
        /// Operand type.
        ty: Ty,
        /// Operand.
        arg: Value,
    },
    /// `icmp pred ty a, b` (result `i1`).
    ICmp {
        /// Predicate.
        pred: ICmpPred,
        /// Operand type (integer or pointer).
        ty: Ty,
        /// Left operand.
        lhs: Value,
        /// Right operand.
        rhs: Value,
    },
    /// `fcmp pred ty a, b` (result `i1`).
    FCmp {
        /// Predicate.
        pred: FCmpPred,
        /// Operand type.
        ty: Ty,
        /// Left operand.
        lhs: Value,
        /// Right operand.
        rhs: Value,
    },
    /// `op [flags] from a to to`.
    Cast {
        /// Operator.
        op: CastOp,
        /// `nuw`/`nsw` on `trunc`; `nneg` is recorded as `nsw` on `zext`/`uitofp`.
        flags: IntFlags,
        /// Source type.
        from: Ty,
        /// Operand.
        arg: Value,
        /// Destination type.
        to: Ty,
    },
    /// `select i1 c, ty a, ty b` (`terop`).
    Select {
        /// Result type.
        ty: Ty,
        /// Condition.
        cond: Value,
        /// Value if true.
        if_true: Value,
        /// Value if false.
        if_false: Value,
    },
    /// `freeze ty a`: ⊤ becomes an arbitrary but fixed value (pllvm picks zero).
    Freeze {
        /// Type.
        ty: Ty,
        /// Operand.
        arg: Value,
    },
    /// `alloca ty [, iN count] [, align a]` ([W-INST-ALLOCA]).
    Alloca {
        /// Allocated element type.
        ty: Ty,
        /// Element count (default 1).
        count: Option<Value>,
        /// Alignment.
        align: Option<u64>,
    },
    /// `load ty, ptr p [, align a]` ([W-INST-LOAD]).
    Load {
        /// Loaded type.
        ty: Ty,
        /// Address.
        ptr: Value,
        /// Alignment.
        align: Option<u64>,
        /// `volatile`.
        volatile: bool,
    },
    /// `store ty v, ptr p [, align a]` ([W-INST-STORE]).
    Store {
        /// Stored value's type.
        ty: Ty,
        /// Stored value.
        value: Value,
        /// Address.
        ptr: Value,
        /// Alignment.
        align: Option<u64>,
        /// `volatile`.
        volatile: bool,
    },
    /// `getelementptr [inbounds] T, ptr p, idx...` (`elemptr`, §4.9.1).
    Gep {
        /// `inbounds` (and `nuw`/`nusw` are kept as `inbounds`-like).
        inbounds: bool,
        /// The source element type `T`.
        source_ty: Ty,
        /// Base pointer.
        base: Value,
        /// Indices.
        indices: Vec<GepIndex>,
    },
    /// `call ret @f(args) [bundles]` (`callop`, [W-CMD-CALL]); `θ` resolves `f`
    /// by name.
    Call {
        /// Callee.
        callee: FuncId,
        /// Return type.
        ret_ty: Ty,
        /// Arguments.
        args: Vec<Value>,
        /// Operand bundles (`[ "convergencectrl"(token %t) ]`), kept and printed
        /// back; θ's functions do not read them.
        bundles: Vec<OperandBundle>,
    },
    /// `id = mask()` ([W-CMD-MASK]): the activation of the block.
    Mask,
    /// `extractelement <N x T> v, iK i`: element `i` of a vector (⊤ if out of range).
    ExtractElement {
        /// The vector type `<N x T>`.
        ty: Ty,
        /// The vector.
        vector: Value,
        /// The element index (any integer type).
        index: Value,
    },
    /// `insertelement <N x T> v, T e, iK i`: the vector with element `i` replaced.
    InsertElement {
        /// The vector type `<N x T>`.
        ty: Ty,
        /// The vector.
        vector: Value,
        /// The new element.
        elem: Value,
        /// The element index (any integer type).
        index: Value,
    },
    /// `shufflevector <N x T> a, <N x T> b, <M x i32> mask`: element k of the
    /// result is element `mask[k]` of the concatenation `a ++ b`.
    ShuffleVector {
        /// The operand vector type `<N x T>`.
        ty: Ty,
        /// First operand.
        lhs: Value,
        /// Second operand.
        rhs: Value,
        /// The constant mask; `None` is an `undef` / `poison` element (result ⊤).
        mask: Vec<Option<u32>>,
    },
    /// `extractvalue T agg, i, j...`: the element at a constant index path.
    ExtractValue {
        /// The aggregate type.
        ty: Ty,
        /// The aggregate.
        agg: Value,
        /// The index path (at least one index).
        indices: Vec<u32>,
    },
    /// `insertvalue T agg, U e, i, j...`: the aggregate with one element replaced.
    InsertValue {
        /// The aggregate type.
        ty: Ty,
        /// The aggregate.
        agg: Value,
        /// The new element.
        elem: Value,
        /// The index path (at least one index).
        indices: Vec<u32>,
    },
    /// `atomicrmw [volatile] op ptr p, T v [syncscope(..)] ordering [, align a]`
    /// ([W-INST-ATOMICRMW]): the old value; memory gets `op(old, v)`.
    AtomicRmw {
        /// The operation.
        op: RmwOp,
        /// The value type `T`.
        ty: Ty,
        /// Address.
        ptr: Value,
        /// Operand.
        value: Value,
        /// Ordering and synchronization scope, kept for printing.
        atomic: Atomic,
        /// `volatile`.
        volatile: bool,
        /// Alignment.
        align: Option<u64>,
    },
    /// `cmpxchg [weak] [volatile] ptr p, T cmp, T new [syncscope(..)] succ fail
    /// [, align a]` ([W-INST-CMPXCHG]): `{ T old, i1 success }`.
    CmpXchg {
        /// The value type `T`.
        ty: Ty,
        /// Address.
        ptr: Value,
        /// Expected value.
        cmp: Value,
        /// Value stored when the old value equals `cmp`.
        new: Value,
        /// Success ordering and scope.
        atomic: Atomic,
        /// Failure ordering.
        failure: Ordering,
        /// `weak` (pllvm never fails spuriously: a weak cmpxchg behaves as a strong one).
        weak: bool,
        /// `volatile`.
        volatile: bool,
        /// Alignment.
        align: Option<u64>,
    },
    /// `fence [syncscope(..)] ordering` ([W-INST-FENCE]).
    Fence {
        /// Ordering and scope.
        atomic: Atomic,
    },
}

/// The operation of an `atomicrmw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmwOp {
    /// `xchg`: the new value is the operand.
    Xchg,
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `and`
    And,
    /// `nand`: `!(old & v)`.
    Nand,
    /// `or`
    Or,
    /// `xor`
    Xor,
    /// `max` (signed).
    Max,
    /// `min` (signed).
    Min,
    /// `umax`
    UMax,
    /// `umin`
    UMin,
    /// `fadd`
    FAdd,
    /// `fsub`
    FSub,
    /// `fmax` (`llvm.maxnum`).
    FMax,
    /// `fmin` (`llvm.minnum`).
    FMin,
    /// `uinc_wrap`: `old >= v ? 0 : old + 1`.
    UIncWrap,
    /// `udec_wrap`: `old == 0 || old > v ? v : old - 1`.
    UDecWrap,
}

impl RmwOp {
    /// Every operation.
    pub const ALL: [RmwOp; 17] = [
        RmwOp::Xchg,
        RmwOp::Add,
        RmwOp::Sub,
        RmwOp::And,
        RmwOp::Nand,
        RmwOp::Or,
        RmwOp::Xor,
        RmwOp::Max,
        RmwOp::Min,
        RmwOp::UMax,
        RmwOp::UMin,
        RmwOp::FAdd,
        RmwOp::FSub,
        RmwOp::FMax,
        RmwOp::FMin,
        RmwOp::UIncWrap,
        RmwOp::UDecWrap,
    ];
    /// The operation as spelled in the text.
    pub fn name(self) -> &'static str {
        match self {
            RmwOp::Xchg => "xchg",
            RmwOp::Add => "add",
            RmwOp::Sub => "sub",
            RmwOp::And => "and",
            RmwOp::Nand => "nand",
            RmwOp::Or => "or",
            RmwOp::Xor => "xor",
            RmwOp::Max => "max",
            RmwOp::Min => "min",
            RmwOp::UMax => "umax",
            RmwOp::UMin => "umin",
            RmwOp::FAdd => "fadd",
            RmwOp::FSub => "fsub",
            RmwOp::FMax => "fmax",
            RmwOp::FMin => "fmin",
            RmwOp::UIncWrap => "uinc_wrap",
            RmwOp::UDecWrap => "udec_wrap",
        }
    }
    /// Whether it operates on floats (the others on integers; `xchg` on either).
    pub fn is_float(self) -> bool {
        matches!(self, RmwOp::FAdd | RmwOp::FSub | RmwOp::FMax | RmwOp::FMin)
    }
}

/// An atomic ordering. pllvm runs one memory in lock step, so every ordering
/// means the same there; it is kept so that the printer and the export give it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ordering {
    /// `unordered`
    Unordered,
    /// `monotonic`
    Monotonic,
    /// `acquire`
    Acquire,
    /// `release`
    Release,
    /// `acq_rel`
    AcqRel,
    /// `seq_cst`
    SeqCst,
}

impl Ordering {
    /// Every ordering.
    pub const ALL: [Ordering; 6] = [
        Ordering::Unordered,
        Ordering::Monotonic,
        Ordering::Acquire,
        Ordering::Release,
        Ordering::AcqRel,
        Ordering::SeqCst,
    ];
    /// The ordering as spelled in the text.
    pub fn name(self) -> &'static str {
        match self {
            Ordering::Unordered => "unordered",
            Ordering::Monotonic => "monotonic",
            Ordering::Acquire => "acquire",
            Ordering::Release => "release",
            Ordering::AcqRel => "acq_rel",
            Ordering::SeqCst => "seq_cst",
        }
    }
}

/// The ordering and `syncscope("...")` of an atomic instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atomic {
    /// The (success) ordering.
    pub ordering: Ordering,
    /// The synchronization scope name, `None` for the default (system) scope.
    pub scope: Option<String>,
}

impl InstKind {
    /// Every value operand, in text order (phi incoming values, then shadow).
    pub fn operands(&self) -> Vec<Value> {
        match self {
            InstKind::Phi {
                incoming, shadow, ..
            } => incoming
                .iter()
                .map(|(v, _)| *v)
                .chain(shadow.iter().copied())
                .collect(),
            InstKind::Binary { lhs, rhs, .. }
            | InstKind::ICmp { lhs, rhs, .. }
            | InstKind::FCmp { lhs, rhs, .. } => vec![*lhs, *rhs],
            InstKind::FNeg { arg, .. }
            | InstKind::Cast { arg, .. }
            | InstKind::Freeze { arg, .. } => vec![*arg],
            InstKind::Select {
                cond,
                if_true,
                if_false,
                ..
            } => vec![*cond, *if_true, *if_false],
            InstKind::Alloca { count, .. } => count.iter().copied().collect(),
            InstKind::Load { ptr, .. } => vec![*ptr],
            InstKind::Store { value, ptr, .. } => vec![*value, *ptr],
            InstKind::Gep { base, indices, .. } => std::iter::once(*base)
                .chain(indices.iter().map(|i| i.value))
                .collect(),
            InstKind::Call { args, bundles, .. } => args
                .iter()
                .chain(bundles.iter().flat_map(|b| &b.args))
                .copied()
                .collect(),
            InstKind::Mask => Vec::new(),
            InstKind::ExtractElement { vector, index, .. } => vec![*vector, *index],
            InstKind::InsertElement {
                vector,
                elem,
                index,
                ..
            } => vec![*vector, *elem, *index],
            InstKind::ShuffleVector { lhs, rhs, .. } => vec![*lhs, *rhs],
            InstKind::ExtractValue { agg, .. } => vec![*agg],
            InstKind::InsertValue { agg, elem, .. } => vec![*agg, *elem],
            InstKind::AtomicRmw { ptr, value, .. } => vec![*ptr, *value],
            InstKind::CmpXchg { ptr, cmp, new, .. } => vec![*ptr, *cmp, *new],
            InstKind::Fence { .. } => Vec::new(),
        }
    }
    /// Every value operand, mutably, in [`InstKind::operands`] order.
    pub fn operands_mut(&mut self) -> Vec<&mut Value> {
        match self {
            InstKind::Phi {
                incoming, shadow, ..
            } => incoming
                .iter_mut()
                .map(|(v, _)| v)
                .chain(shadow.iter_mut())
                .collect(),
            InstKind::Binary { lhs, rhs, .. }
            | InstKind::ICmp { lhs, rhs, .. }
            | InstKind::FCmp { lhs, rhs, .. }
            | InstKind::ShuffleVector { lhs, rhs, .. } => vec![lhs, rhs],
            InstKind::FNeg { arg, .. }
            | InstKind::Cast { arg, .. }
            | InstKind::Freeze { arg, .. } => vec![arg],
            InstKind::Select {
                cond,
                if_true,
                if_false,
                ..
            } => vec![cond, if_true, if_false],
            InstKind::Alloca { count, .. } => count.iter_mut().collect(),
            InstKind::Load { ptr, .. } => vec![ptr],
            InstKind::Store { value, ptr, .. } => vec![value, ptr],
            InstKind::Gep { base, indices, .. } => std::iter::once(base)
                .chain(indices.iter_mut().map(|i| &mut i.value))
                .collect(),
            InstKind::Call { args, .. } => args.iter_mut().collect(),
            InstKind::Mask | InstKind::Fence { .. } => Vec::new(),
            InstKind::ExtractElement { vector, index, .. } => vec![vector, index],
            InstKind::InsertElement {
                vector,
                elem,
                index,
                ..
            } => vec![vector, elem, index],
            InstKind::ExtractValue { agg, .. } => vec![agg],
            InstKind::InsertValue { agg, elem, .. } => vec![agg, elem],
            InstKind::AtomicRmw { ptr, value, .. } => vec![ptr, value],
            InstKind::CmpXchg { ptr, cmp, new, .. } => vec![ptr, cmp, new],
        }
    }
    /// Whether this is a phi.
    pub fn is_phi(&self) -> bool {
        matches!(self, InstKind::Phi { .. })
    }
    /// The opcode word, for messages and traces.
    pub fn opcode(&self) -> &'static str {
        match self {
            InstKind::Phi { .. } => "phi",
            InstKind::Binary { op, .. } => op.name(),
            InstKind::FNeg { .. } => "fneg",
            InstKind::ICmp { .. } => "icmp",
            InstKind::FCmp { .. } => "fcmp",
            InstKind::Cast { op, .. } => op.name(),
            InstKind::Select { .. } => "select",
            InstKind::Freeze { .. } => "freeze",
            InstKind::Alloca { .. } => "alloca",
            InstKind::Load { .. } => "load",
            InstKind::Store { .. } => "store",
            InstKind::Gep { .. } => "getelementptr",
            InstKind::Call { .. } => "call",
            InstKind::Mask => "mask",
            InstKind::ExtractElement { .. } => "extractelement",
            InstKind::InsertElement { .. } => "insertelement",
            InstKind::ShuffleVector { .. } => "shufflevector",
            InstKind::ExtractValue { .. } => "extractvalue",
            InstKind::InsertValue { .. } => "insertvalue",
            InstKind::AtomicRmw { .. } => "atomicrmw",
            InstKind::CmpXchg { .. } => "cmpxchg",
            InstKind::Fence { .. } => "fence",
        }
    }
}

/// A terminator `tmn` (Fig. 4.2, extended with LLVM's `switch` and `unreachable`).
///
/// Successor indices (`i ∈ ℕ` of [PC-ACTIVE]) follow LLVM's successor order:
/// `br ℓ` has successor 0; `br c, ℓ0, ℓ1` has 0 (true) and 1 (false); `switch` has
/// the default at 0 and case k at k + 1.
#[derive(Clone, Debug, PartialEq)]
pub enum Terminator {
    /// `br label ℓ`.
    Br(Block),
    /// `br i1 c, label ℓ0, label ℓ1`.
    CondBr {
        /// Condition `val_cnd`.
        cond: Value,
        /// Successor 0, taken when `cond` is true.
        if_true: Block,
        /// Successor 1, taken when `cond` is false.
        if_false: Block,
    },
    /// `switch ty v, label default [ ty c, label ℓ ... ]`.
    Switch {
        /// Scrutinee type.
        ty: Ty,
        /// Scrutinee.
        cond: Value,
        /// Successor 0.
        default: Block,
        /// Case values (bit patterns of `ty`) and successors 1, 2, ...
        cases: Vec<(BigUint, Block)>,
    },
    /// `ret ty v` or `ret void`.
    Ret(Option<Value>),
    /// `unreachable`: an active lane reaching it is undefined behaviour.
    Unreachable,
}

impl Terminator {
    /// The successors in successor-index order (duplicates kept: index matters).
    pub fn successors(&self) -> Vec<Block> {
        match self {
            Terminator::Br(b) => vec![*b],
            Terminator::CondBr {
                if_true, if_false, ..
            } => vec![*if_true, *if_false],
            Terminator::Switch { default, cases, .. } => std::iter::once(*default)
                .chain(cases.iter().map(|(_, b)| *b))
                .collect(),
            Terminator::Ret(_) | Terminator::Unreachable => Vec::new(),
        }
    }
    /// Value operands.
    pub fn operands(&self) -> Vec<Value> {
        match self {
            Terminator::CondBr { cond, .. } | Terminator::Switch { cond, .. } => vec![*cond],
            Terminator::Ret(Some(v)) => vec![*v],
            _ => Vec::new(),
        }
    }
    /// Whether this terminator can send lanes different ways (`br` on a value, `switch`).
    pub fn is_branch_on_value(&self) -> bool {
        matches!(self, Terminator::CondBr { .. } | Terminator::Switch { .. })
    }
}
