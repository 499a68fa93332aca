//! The canonical printer of P-LLVM text (thesis Fig. 4.2 in LLVM syntax), and the
//! line layout shared with the export lowering of `super::export`.
//!
//! Canonical form: header lines, a blank line, globals, then every function in
//! handle order, blocks separated by blank lines, two-space indentation, operand
//! types spelled out as LLVM does, flags in LLVM's order (`nuw nsw exact disjoint`),
//! integers in signed decimal (`i1` as `true`/`false`), floats in shortest
//! round-trip decimal with an exponent (`1.5e0`) or, for infinities and NaNs, as
//! the `double` bit pattern (`0x7FF0000000000000`). Attribute groups, metadata and
//! call-site attributes are not part of the IR and are not printed. Unnamed values
//! print as `%_N` and unnamed blocks as `_bN` (N the handle index); the parser reads
//! those names back as "unnamed".

use super::lexer::is_name_byte;
use super::parser::{binary_flags, cast_flags, f32_bits_to_f64, wrap_to_width};
use crate::entity::EntityRef;
use crate::ir::{
    Block, Body, CastOp, ConstData, ConstExpr, FuncId, GepFlags, GlobalInit, InlineAsm, Inst,
    InstKind, IntFlags, Module, Terminator, Value,
};
use crate::types::{Ty, TypeData, TypeTable};
use num_bigint::BigUint;
use num_traits::{One, ToPrimitive};
use std::fmt::Write;

/// Canonical P-LLVM text, or plain LLVM IR for `export_llvm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The canonical P-LLVM text.
    Canonical,
    /// Plain LLVM IR: the additions lowered to calls and metadata, and numeric
    /// names quoted so that LLVM's numbering rules do not apply.
    Export,
}

/// `name`, quoted with `\XX` escapes unless it is a plain LLVM name or a number.
pub(crate) fn quote_name(name: &str) -> String {
    let bytes = name.as_bytes();
    let numeric = !bytes.is_empty() && bytes.iter().all(u8::is_ascii_digit);
    let plain =
        !bytes.is_empty() && !bytes[0].is_ascii_digit() && bytes.iter().all(|&b| is_name_byte(b));
    if numeric || plain {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len() + 2);
    out.push('"');
    for &b in bytes {
        if b == b'"' || b == b'\\' || !(0x20..0x7f).contains(&b) {
            let _ = write!(out, "\\{b:02X}");
        } else {
            out.push(b as char);
        }
    }
    out.push('"');
    out
}

/// `%name` as the text spells it.
/// A string as LLVM's text writes it: `"..."` with `"`, `\\` and bytes outside
/// printable ASCII as `\XX`.
pub(crate) fn quote_string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        if (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\' {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\{b:02X}"));
        }
    }
    out.push('"');
    out
}

pub(crate) fn local_name(name: &str) -> String {
    format!("%{}", quote_name(name))
}

/// A `double` bit pattern as the text spells it.
pub(crate) fn format_double(bits: u64) -> String {
    let d = f64::from_bits(bits);
    if !d.is_finite() {
        return format!("0x{bits:016X}");
    }
    let s = format!("{d:e}");
    match s.split_once('e') {
        Some((mantissa, exp)) if !mantissa.contains('.') => format!("{mantissa}.0e{exp}"),
        _ => s,
    }
}

/// Prints pieces of a module.
pub(crate) struct Printer<'m> {
    m: &'m Module,
    mode: Mode,
}

impl<'m> Printer<'m> {
    pub(crate) fn new(m: &'m Module, mode: Mode) -> Self {
        Printer { m, mode }
    }

    fn ty(&self, t: Ty) -> String {
        self.m.types.display(t)
    }

    /// A name without sigil; in export mode numbers are quoted.
    fn sym(&self, name: &str) -> String {
        if self.mode == Mode::Export && !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit())
        {
            format!("\"{name}\"")
        } else {
            quote_name(name)
        }
    }

    /// The name a value is printed under (without `%`).
    pub(crate) fn value_sym(&self, body: &Body, v: Value) -> String {
        match body.values.get(v).and_then(|d| d.name.as_deref()) {
            Some(name) => self.sym(name),
            None => format!("_{}", v.index()),
        }
    }

    fn block_sym(&self, body: &Body, b: Block) -> String {
        match body.blocks.get(b) {
            Some(data) if !data.name.is_empty() => self.sym(&data.name),
            _ => format!("_b{}", b.index()),
        }
    }

    fn value_ty(&self, body: &Body, v: Value) -> Ty {
        body.values.get(v).map_or(TypeTable::VOID, |d| d.ty)
    }

    /// A value as an operand (`%x`, `7`, `@g`, ...).
    pub(crate) fn value(&self, body: &Body, v: Value) -> String {
        match body.values.get(v) {
            Some(data) => match body.as_const(v) {
                Some(c) => self.constant(data.ty, c),
                None => format!("%{}", self.value_sym(body, v)),
            },
            None => format!("%_{}", v.index()),
        }
    }

    /// `T v`.
    fn typed(&self, body: &Body, v: Value) -> String {
        format!(
            "{} {}",
            self.ty(self.value_ty(body, v)),
            self.value(body, v)
        )
    }

    fn label(&self, body: &Body, b: Block) -> String {
        format!("label %{}", self.block_sym(body, b))
    }

    /// A constant of type `ty`.
    fn constant(&self, ty: Ty, c: &ConstData) -> String {
        match c {
            ConstData::Int(x) => match self.m.types.int_width(ty) {
                Some(w) => format_int(x, w),
                None => x.to_string(),
            },
            ConstData::Float(bits) if self.m.types.get(ty) == &TypeData::F16 => {
                format!("0xH{:04X}", *bits as u16)
            }
            ConstData::Float(bits) if self.m.types.get(ty) == &TypeData::BF16 => {
                format!("0xR{:04X}", *bits as u16)
            }
            ConstData::Float(bits) => {
                if self.m.types.get(ty) == &TypeData::F32 {
                    format_double(f32_bits_to_f64(*bits as u32))
                } else {
                    format_double(*bits)
                }
            }
            ConstData::Null => "null".into(),
            ConstData::Undef => "undef".into(),
            ConstData::Poison => "poison".into(),
            ConstData::Zero if self.m.types.get(ty) == &TypeData::Token => "none".into(),
            ConstData::Zero => "zeroinitializer".into(),
            ConstData::Global(g) => match self.m.globals.get(*g) {
                Some(data) => format!("@{}", quote_name(&data.name)),
                None => format!("@_global{}", g.index()),
            },
            ConstData::Function(f) => format!("@{}", self.function_name(*f)),
            ConstData::Elems(items) => {
                let types = &self.m.types;
                let elems: Vec<String> = items
                    .iter()
                    .enumerate()
                    .map(|(k, item)| {
                        let elem = types.element_at(ty, k as u64).unwrap_or(ty);
                        format!("{} {}", self.ty(elem), self.constant(elem, item))
                    })
                    .collect();
                match types.get(ty) {
                    TypeData::Vector(..) => format!("<{}>", elems.join(", ")),
                    TypeData::Array(..) => format!("[{}]", elems.join(", ")),
                    TypeData::Struct { packed: true, .. } => {
                        format!("<{{ {} }}>", elems.join(", "))
                    }
                    _ if elems.is_empty() => "{}".into(),
                    _ => format!("{{ {} }}", elems.join(", ")),
                }
            }
            ConstData::Splat(item) => {
                let elem = self.m.types.scalar_of(ty);
                format!("splat ({} {})", self.ty(elem), self.constant(elem, item))
            }
            ConstData::Expr(e) => self.const_expr(e),
        }
    }

    /// A constant expression as LLVM 22 prints it: `addrspacecast (ptr
    /// addrspace(3) @s to ptr)`, `getelementptr inbounds nuw inrange(-4, 12)
    /// ([4 x i32], ptr @g, i64 0, i64 1)`.
    fn const_expr(&self, e: &ConstExpr) -> String {
        match e {
            ConstExpr::Cast { op, from, arg, to } => format!(
                "{} ({} {} to {})",
                op.name(),
                self.ty(*from),
                self.constant(*from, arg),
                self.ty(*to)
            ),
            ConstExpr::Gep {
                flags,
                inrange,
                source_ty,
                base_ty,
                base,
                indices,
            } => {
                let mut s = format!("getelementptr{}", gep_flag_words(*flags));
                if let Some((lo, hi)) = inrange {
                    let _ = write!(s, " inrange({lo}, {hi})");
                }
                let _ = write!(
                    s,
                    " ({}, {} {}",
                    self.ty(*source_ty),
                    self.ty(*base_ty),
                    self.constant(*base_ty, base)
                );
                for (ity, index) in indices {
                    let _ = write!(s, ", {} {}", self.ty(*ity), self.constant(*ity, index));
                }
                s.push(')');
                s
            }
        }
    }

    fn function_name(&self, f: FuncId) -> String {
        match self.m.functions.get(f) {
            Some(data) => quote_name(&data.name),
            None => format!("_fn{}", f.index()),
        }
    }

    // ----- module level -------------------------------------------------------

    /// The whole module.
    pub(crate) fn module(&self) -> String {
        let mut out = String::new();
        for h in &self.m.header {
            out.push_str(h);
            out.push('\n');
        }
        if !self.m.globals.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            for (_, g) in self.m.globals.iter() {
                out.push_str(&self.global(g));
                out.push('\n');
            }
        }
        for f in self.m.functions.keys() {
            if self.m.inline_asm.contains_key(&f) {
                continue; // Written at its call, as LLVM writes it.
            }
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&self.function(f));
        }
        out
    }

    fn global(&self, g: &crate::ir::GlobalData) -> String {
        let mut s = format!("@{} =", quote_name(&g.name));
        for word in &g.linkage {
            s.push(' ');
            s.push_str(word);
        }
        if g.addrspace != 0 {
            let _ = write!(s, " addrspace({})", g.addrspace);
        }
        s.push_str(if g.constant { " constant " } else { " global " });
        s.push_str(&self.ty(g.ty));
        if let Some(init) = &g.init {
            s.push(' ');
            s.push_str(&self.init(g.ty, init, 0));
        }
        if let Some(a) = g.align {
            let _ = write!(s, ", align {a}");
        }
        s
    }

    fn init(&self, ty: Ty, init: &GlobalInit, depth: usize) -> String {
        match init {
            GlobalInit::Zero => "zeroinitializer".into(),
            GlobalInit::Undef => "undef".into(),
            GlobalInit::Scalar(c) => self.constant(ty, c),
            GlobalInit::Aggregate(_) if depth > 64 => "undef".into(),
            GlobalInit::Aggregate(elems) => match self.m.types.get(ty) {
                TypeData::Array(_, elem) => {
                    let elem = *elem;
                    let bytes: Option<Vec<u8>> = (self.m.types.int_width(elem) == Some(8))
                        .then(|| {
                            elems
                                .iter()
                                .map(|e| match e {
                                    GlobalInit::Scalar(ConstData::Int(x)) => x.to_u8(),
                                    _ => None,
                                })
                                .collect()
                        })
                        .flatten();
                    match bytes {
                        Some(bytes) if !bytes.is_empty() => c_string(&bytes),
                        _ => {
                            let parts: Vec<String> = elems
                                .iter()
                                .map(|e| {
                                    format!("{} {}", self.ty(elem), self.init(elem, e, depth + 1))
                                })
                                .collect();
                            format!("[{}]", parts.join(", "))
                        }
                    }
                }
                TypeData::Struct { fields, packed } => {
                    let parts: Vec<String> = fields
                        .iter()
                        .zip(elems)
                        .map(|(&f, e)| format!("{} {}", self.ty(f), self.init(f, e, depth + 1)))
                        .collect();
                    let inner = if parts.is_empty() {
                        "{}".to_string()
                    } else {
                        format!("{{ {} }}", parts.join(", "))
                    };
                    if *packed { format!("<{inner}>") } else { inner }
                }
                _ => "undef".into(),
            },
        }
    }

    /// One function: `declare ...` or `define ... { ... }`.
    pub(crate) fn function(&self, f: FuncId) -> String {
        let Some(func) = self.m.functions.get(f) else {
            return String::new();
        };
        let mut s = String::new();
        s.push_str(if func.body.is_some() {
            "define "
        } else {
            "declare "
        });
        if let Some(cc) = &func.cconv {
            s.push_str(cc);
            s.push(' ');
        }
        let _ = write!(s, "{} @{}(", self.ty(func.ret_ty), quote_name(&func.name));
        let mut params: Vec<String> = Vec::new();
        for p in &func.params {
            let mut text = self.ty(p.ty);
            for a in &p.attrs {
                text.push(' ');
                text.push_str(a);
            }
            if let Some(body) = &func.body {
                text.push_str(" %");
                text.push_str(&self.value_sym(body, p.value));
            }
            params.push(text);
        }
        if func.variadic {
            params.push("...".into());
        }
        s.push_str(&params.join(", "));
        s.push(')');
        if func.convergent {
            s.push_str(" convergent");
        }
        let Some(body) = &func.body else {
            s.push('\n');
            return s;
        };
        s.push_str(" {\n");
        for (k, &b) in body.layout.iter().enumerate() {
            if k > 0 {
                s.push('\n');
            }
            self.block(body, b, &mut s);
        }
        s.push_str("}\n");
        s
    }

    fn block(&self, body: &Body, b: Block, s: &mut String) {
        let Some(data) = body.blocks.get(b) else {
            return;
        };
        let _ = writeln!(s, "{}:", self.block_sym(body, b));
        if self.mode == Mode::Canonical {
            if let Some(p) = data.predicate {
                let _ = writeln!(s, "  predicate {}", self.value(body, p));
            }
            for &i in data.phis.iter().chain(&data.body) {
                let _ = writeln!(s, "  {}", self.inst(body, i));
            }
        } else {
            self.export_block_insts(body, b, s);
        }
        let _ = writeln!(s, "  {}", self.terminator(body, &data.term));
    }

    /// The instructions of a block in export form: shadow phis renamed `%x.phi`,
    /// then their shadow selectors, the predicate marker (after the phis, or after
    /// the command defining the predicate), and the commands.
    fn export_block_insts(&self, body: &Body, b: Block, s: &mut String) {
        let data = &body.blocks[b];
        let mut selectors = Vec::new();
        for &i in &data.phis {
            let Some(inst) = body.insts.get(i) else {
                continue;
            };
            if let (
                InstKind::Phi {
                    ty,
                    shadow: Some(sh),
                    ..
                },
                Some(r),
            ) = (&inst.kind, inst.result)
            {
                let name = self.value_sym(body, r);
                let phi_name = match body.values.get(r).and_then(|d| d.name.as_deref()) {
                    Some(n) => quote_name(&format!("{n}.phi")),
                    None => format!("_{}.phi", r.index()),
                };
                let _ = writeln!(s, "  %{phi_name} = {}", self.inst_rhs(body, i));
                let t = self.ty(*ty);
                selectors.push(format!(
                    "%{name} = call {t} @{}({t} %{phi_name}, {})",
                    quote_name(&shadow_fn_name(&self.m.types, *ty)),
                    self.typed(body, *sh)
                ));
            } else {
                let _ = writeln!(s, "  {}", self.inst(body, i));
            }
        }
        for sel in selectors {
            let _ = writeln!(s, "  {sel}");
        }
        let marker = data
            .predicate
            .map(|p| format!("call void @pllvm.predicate({})", self.typed(body, p)));
        let defined_here = data.predicate.and_then(|p| {
            let def = body.def_inst(p)?;
            data.body.contains(&def).then_some(def)
        });
        let marker_now = marker.as_ref().filter(|_| defined_here.is_none());
        if let Some(m) = marker_now {
            let _ = writeln!(s, "  {m}");
        }
        for &i in &data.body {
            let _ = writeln!(s, "  {}", self.inst(body, i));
            let marker_here = marker.as_ref().filter(|_| defined_here == Some(i));
            if let Some(m) = marker_here {
                let _ = writeln!(s, "  {m}");
            }
        }
    }

    // ----- instructions -------------------------------------------------------

    /// One phi or command: `%x = ...` with `total` (or its export attachment).
    pub(crate) fn inst(&self, body: &Body, i: Inst) -> String {
        let Some(data) = body.insts.get(i) else {
            return format!("<invalid inst {}>", i.index());
        };
        let mut s = String::new();
        if let Some(r) = data.result {
            let _ = write!(s, "%{} = ", self.value_sym(body, r));
        }
        s.push_str(&self.inst_rhs(body, i));
        if data.total {
            s.push_str(match self.mode {
                Mode::Canonical => " total",
                Mode::Export => ", !pllvm.total !0",
            });
        }
        s
    }

    /// The right-hand side of an instruction, without `total`.
    ///
    /// Longer than ~150 lines on purpose: one arm per
    /// [`InstKind`] variant, each its text; one exhaustive match is the printed
    /// grammar of instructions and makes the compiler ask for a new kind's text.
    fn inst_rhs(&self, body: &Body, i: Inst) -> String {
        let Some(data) = body.insts.get(i) else {
            return String::new();
        };
        let v = |x: Value| self.value(body, x);
        let tv = |x: Value| self.typed(body, x);
        match &data.kind {
            InstKind::Phi {
                ty,
                incoming,
                shadow,
            } => {
                let arms: Vec<String> = incoming
                    .iter()
                    .map(|&(x, b)| format!("[ {}, %{} ]", v(x), self.block_sym(body, b)))
                    .collect();
                let mut s = format!("phi {} {}", self.ty(*ty), arms.join(", "));
                if let (Some(sh), Mode::Canonical) = (shadow, self.mode) {
                    let _ = write!(s, " shadow({})", v(*sh));
                }
                s
            }
            InstKind::Binary {
                op,
                flags,
                ty,
                lhs,
                rhs,
            } => format!(
                "{}{} {} {}, {}",
                op.name(),
                flag_words(binary_flags(*op, *flags), false),
                self.ty(*ty),
                v(*lhs),
                v(*rhs)
            ),
            InstKind::FNeg { ty, arg } => format!("fneg {} {}", self.ty(*ty), v(*arg)),
            InstKind::ICmp { pred, ty, lhs, rhs } => format!(
                "icmp {} {} {}, {}",
                pred.name(),
                self.ty(*ty),
                v(*lhs),
                v(*rhs)
            ),
            InstKind::FCmp { pred, ty, lhs, rhs } => format!(
                "fcmp {} {} {}, {}",
                pred.name(),
                self.ty(*ty),
                v(*lhs),
                v(*rhs)
            ),
            InstKind::Cast {
                op,
                flags,
                from,
                arg,
                to,
            } => {
                let nneg = matches!(op, CastOp::ZExt | CastOp::UiToFp);
                format!(
                    "{}{} {} {} to {}",
                    op.name(),
                    flag_words(cast_flags(*op, *flags), nneg),
                    self.ty(*from),
                    v(*arg),
                    self.ty(*to)
                )
            }
            InstKind::Select {
                cond,
                if_true,
                if_false,
                ..
            } => format!("select {}, {}, {}", tv(*cond), tv(*if_true), tv(*if_false)),
            InstKind::Freeze { ty, arg } => format!("freeze {} {}", self.ty(*ty), v(*arg)),
            InstKind::Alloca { ty, count, align } => {
                let mut s = format!("alloca {}", self.ty(*ty));
                if let Some(c) = count {
                    let _ = write!(s, ", {}", tv(*c));
                }
                if let Some(a) = align {
                    let _ = write!(s, ", align {a}");
                }
                let space =
                    data.result
                        .and_then(|r| match self.m.types.get(self.value_ty(body, r)) {
                            TypeData::Ptr(n) if *n != 0 => Some(*n),
                            _ => None,
                        });
                if let Some(n) = space {
                    let _ = write!(s, ", addrspace({n})");
                }
                s
            }
            InstKind::Load {
                ty,
                ptr,
                align,
                volatile,
            } => {
                let mut s = format!(
                    "load{} {}, {}",
                    if *volatile { " volatile" } else { "" },
                    self.ty(*ty),
                    tv(*ptr)
                );
                if let Some(a) = align {
                    let _ = write!(s, ", align {a}");
                }
                s
            }
            InstKind::Store {
                ty,
                value,
                ptr,
                align,
                volatile,
            } => {
                let mut s = format!(
                    "store{} {} {}, {}",
                    if *volatile { " volatile" } else { "" },
                    self.ty(*ty),
                    v(*value),
                    tv(*ptr)
                );
                if let Some(a) = align {
                    let _ = write!(s, ", align {a}");
                }
                s
            }
            InstKind::Gep {
                inbounds,
                source_ty,
                base,
                indices,
            } => {
                let mut s = format!(
                    "getelementptr{} {}, {}",
                    if *inbounds { " inbounds" } else { "" },
                    self.ty(*source_ty),
                    tv(*base)
                );
                for i in indices {
                    let _ = write!(s, ", {}", tv(i.value));
                }
                s
            }
            InstKind::Call {
                callee,
                ret_ty,
                args,
                bundles,
            } => {
                let mut s = format!("call {}", self.ty(*ret_ty));
                if let Some(f) = self.m.functions.get(*callee).filter(|f| f.variadic) {
                    let mut tys: Vec<String> = f.params.iter().map(|p| self.ty(p.ty)).collect();
                    tys.push("...".into());
                    let _ = write!(s, " ({})", tys.join(", "));
                }
                let args: Vec<String> = args.iter().map(|&a| tv(a)).collect();
                match self.m.inline_asm(*callee) {
                    Some(asm) => {
                        let _ = write!(s, " {}({})", inline_asm(asm), args.join(", "));
                    }
                    None => {
                        let name = self.function_name(*callee);
                        let _ = write!(s, " @{name}({})", args.join(", "));
                    }
                }
                if !bundles.is_empty() {
                    let written: Vec<String> = bundles
                        .iter()
                        .map(|b| {
                            let ops: Vec<String> = b.args.iter().map(|&a| tv(a)).collect();
                            format!("{}({})", quote_string(&b.tag), ops.join(", "))
                        })
                        .collect();
                    let _ = write!(s, " [ {} ]", written.join(", "));
                }
                s
            }
            InstKind::Mask => match self.mode {
                Mode::Canonical => "mask()".into(),
                Mode::Export => "call i1 @pllvm.mask()".into(),
            },
            InstKind::ExtractElement { vector, index, .. } => {
                format!("extractelement {}, {}", tv(*vector), tv(*index))
            }
            InstKind::InsertElement {
                vector,
                elem,
                index,
                ..
            } => format!(
                "insertelement {}, {}, {}",
                tv(*vector),
                tv(*elem),
                tv(*index)
            ),
            InstKind::ShuffleVector { lhs, rhs, mask, .. } => {
                let elems: Vec<String> = mask
                    .iter()
                    .map(|m| match m {
                        Some(k) => format!("i32 {k}"),
                        None => "i32 poison".into(),
                    })
                    .collect();
                format!(
                    "shufflevector {}, {}, <{} x i32> <{}>",
                    tv(*lhs),
                    tv(*rhs),
                    mask.len(),
                    elems.join(", ")
                )
            }
            InstKind::ExtractValue { agg, indices, .. } => {
                format!("extractvalue {}, {}", tv(*agg), index_list(indices))
            }
            InstKind::InsertValue {
                agg, elem, indices, ..
            } => format!(
                "insertvalue {}, {}, {}",
                tv(*agg),
                tv(*elem),
                index_list(indices)
            ),
            InstKind::AtomicRmw {
                op,
                ptr,
                value,
                atomic,
                volatile,
                align,
                ..
            } => {
                let mut s = format!(
                    "atomicrmw{} {} {}, {} {}",
                    if *volatile { " volatile" } else { "" },
                    op.name(),
                    tv(*ptr),
                    tv(*value),
                    atomic_words(atomic)
                );
                if let Some(a) = align {
                    let _ = write!(s, ", align {a}");
                }
                s
            }
            InstKind::CmpXchg {
                ptr,
                cmp,
                new,
                atomic,
                failure,
                weak,
                volatile,
                align,
                ..
            } => {
                let mut s = format!(
                    "cmpxchg{}{} {}, {}, {} {} {}",
                    if *weak { " weak" } else { "" },
                    if *volatile { " volatile" } else { "" },
                    tv(*ptr),
                    tv(*cmp),
                    tv(*new),
                    atomic_words(atomic),
                    failure.name()
                );
                if let Some(a) = align {
                    let _ = write!(s, ", align {a}");
                }
                s
            }
            InstKind::Fence { atomic } => format!("fence {}", atomic_words(atomic)),
        }
    }

    /// A terminator (a `switch` spans several lines).
    pub(crate) fn terminator(&self, body: &Body, term: &Terminator) -> String {
        match term {
            Terminator::Br(b) => format!("br {}", self.label(body, *b)),
            Terminator::CondBr {
                cond,
                if_true,
                if_false,
            } => format!(
                "br {}, {}, {}",
                self.typed(body, *cond),
                self.label(body, *if_true),
                self.label(body, *if_false)
            ),
            Terminator::Switch {
                ty,
                cond,
                default,
                cases,
            } => {
                let t = self.ty(*ty);
                let mut s = format!(
                    "switch {t} {}, {} [",
                    self.value(body, *cond),
                    self.label(body, *default)
                );
                let width = self.m.types.int_width(*ty).unwrap_or(64);
                for (x, b) in cases {
                    let _ = write!(
                        s,
                        "\n    {t} {}, {}",
                        format_int(x, width),
                        self.label(body, *b)
                    );
                }
                s.push_str("\n  ]");
                s
            }
            Terminator::Ret(None) => "ret void".into(),
            Terminator::Ret(Some(v)) => format!("ret {}", self.typed(body, *v)),
            Terminator::Unreachable => "unreachable".into(),
        }
    }
}

/// ` nuw nsw exact disjoint` (those set); with `nneg`, `nsw` is spelled `nneg`.
/// `asm sideeffect "text", "constraints"` as LLVM writes an inline assembly callee.
pub(crate) fn inline_asm(asm: &InlineAsm) -> String {
    let mut s = String::from("asm");
    for (set, word) in [
        (asm.sideeffect, " sideeffect"),
        (asm.alignstack, " alignstack"),
        (asm.inteldialect, " inteldialect"),
        (asm.unwind, " unwind"),
    ] {
        if set {
            s.push_str(word);
        }
    }
    let _ = write!(
        s,
        " {}, {}",
        quote_string(&asm.text),
        quote_string(&asm.constraints)
    );
    s
}

/// ` inbounds`, ` nusw`, ` nuw` in LLVM's order (`inbounds` implies `nusw`).
pub(crate) fn gep_flag_words(flags: GepFlags) -> String {
    let mut s = String::new();
    if flags.inbounds {
        s.push_str(" inbounds");
    } else if flags.nusw {
        s.push_str(" nusw");
    }
    if flags.nuw {
        s.push_str(" nuw");
    }
    s
}

fn flag_words(flags: IntFlags, nneg: bool) -> String {
    let mut s = String::new();
    if flags.nuw {
        s.push_str(" nuw");
    }
    if flags.nsw {
        s.push_str(if nneg { " nneg" } else { " nsw" });
    }
    if flags.exact {
        s.push_str(" exact");
    }
    if flags.disjoint {
        s.push_str(" disjoint");
    }
    s
}

/// An `iN` bit pattern as signed decimal (`i1` as `true`/`false`).
pub(crate) fn format_int(x: &BigUint, width: u32) -> String {
    let x = wrap_to_width(x, width);
    if width == 1 {
        return if x.bits() == 0 { "false" } else { "true" }.into();
    }
    let small = x.to_u128().filter(|_| width <= 127);
    if let Some(v) = small {
        let half = 1u128 << (width - 1);
        return if v >= half {
            format!("-{}", (1u128 << width) - v)
        } else {
            v.to_string()
        };
    }
    let half = BigUint::one() << (width - 1);
    if x >= half {
        format!("-{}", (BigUint::one() << width) - x)
    } else {
        x.to_string()
    }
}

/// `c"..."` with LLVM's `\XX` escapes.
fn c_string(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 3);
    s.push_str("c\"");
    for &b in bytes {
        if b == b'"' || b == b'\\' || !(0x20..0x7f).contains(&b) {
            let _ = write!(s, "\\{b:02X}");
        } else {
            s.push(b as char);
        }
    }
    s.push('"');
    s
}

/// The constant index path of `extractvalue` / `insertvalue`.
fn index_list(indices: &[u32]) -> String {
    let words: Vec<String> = indices.iter().map(u32::to_string).collect();
    words.join(", ")
}

/// `[syncscope("s")] ordering` of an atomic instruction.
fn atomic_words(atomic: &crate::ir::Atomic) -> String {
    match &atomic.scope {
        Some(scope) => format!("syncscope(\"{scope}\") {}", atomic.ordering.name()),
        None => atomic.ordering.name().to_string(),
    }
}

/// The name of the export lowering's shadow selector for type `ty`
/// (`pllvm.shadow.i32`, `pllvm.shadow.f32`, `pllvm.shadow.p1`, ...).
pub(crate) fn shadow_fn_name(types: &TypeTable, ty: Ty) -> String {
    format!(
        "{}{}",
        super::parser::SHADOW_FN_PREFIX,
        mangle(types, ty, 0)
    )
}

fn mangle(types: &TypeTable, ty: Ty, depth: usize) -> String {
    if depth > 64 {
        return "x".into();
    }
    match types.get(ty) {
        TypeData::Void => "void".into(),
        TypeData::Label => "label".into(),
        TypeData::Token => "token".into(),
        TypeData::Int(w) => format!("i{w}"),
        TypeData::F32 => "f32".into(),
        TypeData::F64 => "f64".into(),
        TypeData::F16 => "f16".into(),
        TypeData::BF16 => "bf16".into(),
        TypeData::Ptr(n) => format!("p{n}"),
        TypeData::Array(n, e) => format!("a{n}.{}", mangle(types, *e, depth + 1)),
        TypeData::Vector(n, e) => format!("v{n}.{}", mangle(types, *e, depth + 1)),
        TypeData::Struct { fields, packed } => {
            let inner: Vec<String> = fields
                .iter()
                .map(|f| mangle(types, *f, depth + 1))
                .collect();
            format!(
                "{}{}.{}.e",
                if *packed { "sp" } else { "s" },
                fields.len(),
                inner.join(".")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(bits: u64, expect: &str) {
        assert_eq!(format_double(bits), expect);
    }

    #[test]
    fn doubles() {
        check(1.0f64.to_bits(), "1.0e0");
        check((-0.0f64).to_bits(), "-0.0e0");
        check(0.1f64.to_bits(), "1.0e-1");
        check(f64::INFINITY.to_bits(), "0x7FF0000000000000");
        check(1.5e300f64.to_bits(), "1.5e300");
    }

    #[test]
    fn ints_and_names() {
        assert_eq!(format_int(&BigUint::from(255u32), 8), "-1");
        assert_eq!(format_int(&BigUint::from(127u32), 8), "127");
        assert_eq!(format_int(&BigUint::from(1u32), 1), "true");
        assert_eq!(
            format_int(&((BigUint::one() << 200u32) - BigUint::one()), 200),
            "-1"
        );
        assert_eq!(quote_name("x.y"), "x.y");
        assert_eq!(quote_name("12"), "12");
        assert_eq!(quote_name("12.phi"), "\"12.phi\"");
        assert_eq!(quote_name("a b\"c"), "\"a b\\22c\"");
    }
}
