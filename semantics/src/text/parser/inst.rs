//! Instruction parsing: one opcode at a time, calls, and the integer flags the
//! text can express.

use super::cursor::{
    FAST_MATH_FLAGS, FnState, MASK_FN, PREDICATE_FN, Parsed, Parser, SHADOW_FN_PREFIX,
    is_statement_word,
};
use crate::diag::Span;
use crate::ir::{
    Atomic, BinOp, CastOp, ConstData, FCmpPred, FunctionData, GepIndex, ICmpPred, InlineAsm,
    InstKind, IntFlags, OperandBundle, Ordering, RmwOp,
};
use crate::text::error::ParseError;
use crate::text::lexer::{self, Tok};
use crate::types::{Ty, TypeData, TypeTable};

impl<'s> Parser<'s> {
    /// Skips fast-math flags.
    pub(super) fn skip_fast_math(&mut self) {
        while self.peek() == Tok::Word && FAST_MATH_FLAGS.contains(&self.text()) {
            self.bump();
        }
    }

    ///
    /// Longer than ~150 lines on purpose: one arm per
    /// opcode word, each a few lines of its syntax; one match keeps the grammar of
    /// instructions one table (docs/language.md, "Grammar accepted").
    pub(super) fn parse_inst(&mut self, fs: &mut FnState<'s>) -> Result<Parsed, ParseError> {
        let op_tok = self.cur();
        let op = self.text();
        if let Some(&bin) = BinOp::ALL.iter().find(|b| b.name() == op) {
            self.bump();
            let mut flags = IntFlags::default();
            loop {
                match self.text() {
                    "nuw" if allows_wrap_flags(bin) => flags.nuw = true,
                    "nsw" if allows_wrap_flags(bin) => flags.nsw = true,
                    "exact" if allows_exact(bin) => flags.exact = true,
                    "disjoint" if bin == BinOp::Or => flags.disjoint = true,
                    w if bin.is_float() && FAST_MATH_FLAGS.contains(&w) => {}
                    _ => break,
                }
                self.bump();
            }
            let ty = self.parse_type()?;
            let (lhs, _) = self.parse_value(fs, ty)?;
            self.expect(Tok::Comma, "','")?;
            let (rhs, _) = self.parse_value(fs, ty)?;
            return Ok(Parsed::Inst {
                kind: InstKind::Binary {
                    op: bin,
                    flags,
                    ty,
                    lhs,
                    rhs,
                },
                ty,
            });
        }
        if let Some(&cast) = CastOp::ALL.iter().find(|c| c.name() == op) {
            self.bump();
            let mut flags = IntFlags::default();
            loop {
                match (cast, self.text()) {
                    (CastOp::Trunc, "nuw") => flags.nuw = true,
                    (CastOp::Trunc, "nsw") => flags.nsw = true,
                    (CastOp::ZExt | CastOp::UiToFp, "nneg") => flags.nsw = true,
                    (_, w) if FAST_MATH_FLAGS.contains(&w) => {}
                    _ => break,
                }
                self.bump();
            }
            let from = self.parse_type()?;
            let (arg, _) = self.parse_value(fs, from)?;
            self.expect_word("to")?;
            let to = self.parse_type()?;
            return Ok(Parsed::Inst {
                kind: InstKind::Cast {
                    op: cast,
                    flags,
                    from,
                    arg,
                    to,
                },
                ty: to,
            });
        }
        match op {
            "phi" => {
                self.bump();
                self.skip_fast_math();
                let ty = self.parse_type()?;
                let mut incoming = Vec::new();
                loop {
                    self.expect(Tok::LBracket, "'['")?;
                    let (v, _) = self.parse_value(fs, ty)?;
                    self.expect(Tok::Comma, "','")?;
                    let b = self.use_block(fs)?;
                    self.expect(Tok::RBracket, "']'")?;
                    incoming.push((v, b));
                    if !(self.peek() == Tok::Comma && self.peek_at(1) == Tok::LBracket) {
                        break;
                    }
                    self.bump();
                }
                let shadow = if self.eat_word("shadow") {
                    self.expect(Tok::LParen, "'('")?;
                    let (v, _) = self.parse_value(fs, ty)?;
                    self.expect(Tok::RParen, "')'")?;
                    Some(v)
                } else {
                    None
                };
                Ok(Parsed::Inst {
                    kind: InstKind::Phi {
                        ty,
                        incoming,
                        shadow,
                    },
                    ty,
                })
            }
            "fneg" => {
                self.bump();
                self.skip_fast_math();
                let ty = self.parse_type()?;
                let (arg, _) = self.parse_value(fs, ty)?;
                Ok(Parsed::Inst {
                    kind: InstKind::FNeg { ty, arg },
                    ty,
                })
            }
            "icmp" => {
                self.bump();
                self.eat_word("samesign");
                let w = self.text();
                let Some(&pred) = ICmpPred::ALL.iter().find(|p| p.name() == w) else {
                    return Err(self.expected("an icmp predicate"));
                };
                self.bump();
                let ty = self.parse_type()?;
                let (lhs, _) = self.parse_value(fs, ty)?;
                self.expect(Tok::Comma, "','")?;
                let (rhs, _) = self.parse_value(fs, ty)?;
                Ok(Parsed::Inst {
                    kind: InstKind::ICmp { pred, ty, lhs, rhs },
                    ty: self.module.types.compare_result(ty),
                })
            }
            "fcmp" => {
                self.bump();
                self.skip_fast_math();
                let w = self.text();
                let Some(&pred) = FCmpPred::ALL.iter().find(|p| p.name() == w) else {
                    return Err(self.expected("an fcmp predicate"));
                };
                self.bump();
                let ty = self.parse_type()?;
                let (lhs, _) = self.parse_value(fs, ty)?;
                self.expect(Tok::Comma, "','")?;
                let (rhs, _) = self.parse_value(fs, ty)?;
                Ok(Parsed::Inst {
                    kind: InstKind::FCmp { pred, ty, lhs, rhs },
                    ty: self.module.types.compare_result(ty),
                })
            }
            "select" => {
                self.bump();
                self.skip_fast_math();
                let cond_ty = self.parse_type()?;
                let (cond, _) = self.parse_value(fs, cond_ty)?;
                self.expect(Tok::Comma, "','")?;
                let ty = self.parse_type()?;
                let (if_true, _) = self.parse_value(fs, ty)?;
                self.expect(Tok::Comma, "','")?;
                let t = self.cur();
                let ty2 = self.parse_type()?;
                if ty2 != ty {
                    return Err(ParseError::new(
                        t.span,
                        "select operands have different types",
                    ));
                }
                let (if_false, _) = self.parse_value(fs, ty)?;
                Ok(Parsed::Inst {
                    kind: InstKind::Select {
                        ty,
                        cond,
                        if_true,
                        if_false,
                    },
                    ty,
                })
            }
            "freeze" => {
                self.bump();
                let ty = self.parse_type()?;
                let (arg, _) = self.parse_value(fs, ty)?;
                Ok(Parsed::Inst {
                    kind: InstKind::Freeze { ty, arg },
                    ty,
                })
            }
            "alloca" => {
                self.bump();
                self.eat_word("inalloca");
                let ty = self.parse_type()?;
                let mut count = None;
                let mut align = None;
                let mut space = 0;
                while self.peek() == Tok::Comma && self.peek_at(1) != Tok::Meta {
                    self.bump();
                    if self.eat_word("align") {
                        align = Some(self.expect_u64("an alignment")?);
                    } else if self.is_word("addrspace") {
                        space = self.parse_addrspace()?;
                    } else if count.is_none() && align.is_none() {
                        let count_ty = self.parse_type()?;
                        count = Some(self.parse_value(fs, count_ty)?.0);
                    } else {
                        return Err(self.expected("'align' or 'addrspace'"));
                    }
                }
                let ptr = self.module.types.intern(TypeData::Ptr(space));
                Ok(Parsed::Inst {
                    kind: InstKind::Alloca { ty, count, align },
                    ty: ptr,
                })
            }
            "load" => {
                self.bump();
                if self.is_word("atomic") {
                    return Err(self.err("unsupported construct: atomic load"));
                }
                let volatile = self.eat_word("volatile");
                let ty = self.parse_type()?;
                self.expect(Tok::Comma, "','")?;
                let ptr_ty = self.parse_type()?;
                let (ptr, _) = self.parse_value(fs, ptr_ty)?;
                let align = self.parse_mem_align()?;
                Ok(Parsed::Inst {
                    kind: InstKind::Load {
                        ty,
                        ptr,
                        align,
                        volatile,
                    },
                    ty,
                })
            }
            "store" => {
                self.bump();
                if self.is_word("atomic") {
                    return Err(self.err("unsupported construct: atomic store"));
                }
                let volatile = self.eat_word("volatile");
                let ty = self.parse_type()?;
                let (value, _) = self.parse_value(fs, ty)?;
                self.expect(Tok::Comma, "','")?;
                let ptr_ty = self.parse_type()?;
                let (ptr, _) = self.parse_value(fs, ptr_ty)?;
                let align = self.parse_mem_align()?;
                Ok(Parsed::Inst {
                    kind: InstKind::Store {
                        ty,
                        value,
                        ptr,
                        align,
                        volatile,
                    },
                    ty: TypeTable::VOID,
                })
            }
            "getelementptr" => {
                self.bump();
                let mut inbounds = false;
                loop {
                    match self.text() {
                        "inbounds" | "nuw" | "nusw" => inbounds = true,
                        "inrange" => {
                            return Err(self.err("unsupported construct: getelementptr inrange"));
                        }
                        _ => break,
                    }
                    self.bump();
                }
                let source_ty = self.parse_type()?;
                self.expect(Tok::Comma, "','")?;
                let ptr_ty = self.parse_type()?;
                let (base, _) = self.parse_value(fs, ptr_ty)?;
                let mut indices = Vec::new();
                while self.peek() == Tok::Comma && self.peek_at(1) != Tok::Meta {
                    self.bump();
                    if self.is_word("inrange") {
                        return Err(self.err("unsupported construct: getelementptr inrange"));
                    }
                    let index_ty = self.parse_type()?;
                    let (value, _) = self.parse_value(fs, index_ty)?;
                    indices.push(GepIndex { value });
                }
                Ok(Parsed::Inst {
                    kind: InstKind::Gep {
                        inbounds,
                        source_ty,
                        base,
                        indices,
                    },
                    ty: ptr_ty,
                })
            }
            "call" | "tail" | "musttail" | "notail" => self.parse_call(fs),
            "mask" => {
                self.bump();
                self.expect(Tok::LParen, "'('")?;
                self.expect(Tok::RParen, "')'")?;
                Ok(Parsed::Inst {
                    kind: InstKind::Mask,
                    ty: TypeTable::I1,
                })
            }
            "extractelement" | "insertelement" | "shufflevector" | "extractvalue"
            | "insertvalue" => self.parse_element_inst(fs),
            "atomicrmw" | "cmpxchg" | "fence" => self.parse_atomic_inst(fs),
            _ => Err(ParseError::new(
                op_tok.span,
                format!("unknown instruction '{op}'"),
            )),
        }
    }

    /// `extractelement`, `insertelement`, `shufflevector`, `extractvalue`, `insertvalue`.
    ///
    /// Longer than ~150 lines on purpose: one arm per
    /// opcode of the five, each its syntax; they share the operand parsing above the
    /// match.
    fn parse_element_inst(&mut self, fs: &mut FnState<'s>) -> Result<Parsed, ParseError> {
        let op_tok = self.bump();
        let op = lexer::text(self.src, &op_tok);
        let vector_ty = |p: &Self, ty: Ty, at: Span| {
            p.module.types.vector(ty).ok_or_else(|| {
                ParseError::new(
                    at,
                    format!(
                        "{op} needs a vector type, found {}",
                        p.module.types.display(ty)
                    ),
                )
            })
        };
        let ty_tok = self.cur();
        let ty = self.parse_type()?;
        let (first, _) = self.parse_value(fs, ty)?;
        self.expect(Tok::Comma, "','")?;
        match op {
            "extractelement" => {
                let (_, elem) = vector_ty(self, ty, ty_tok.span)?;
                let index_ty = self.parse_type()?;
                let (index, _) = self.parse_value(fs, index_ty)?;
                Ok(Parsed::Inst {
                    kind: InstKind::ExtractElement {
                        ty,
                        vector: first,
                        index,
                    },
                    ty: elem,
                })
            }
            "insertelement" => {
                vector_ty(self, ty, ty_tok.span)?;
                let elem_ty = self.parse_type()?;
                let (elem, _) = self.parse_value(fs, elem_ty)?;
                self.expect(Tok::Comma, "','")?;
                let index_ty = self.parse_type()?;
                let (index, _) = self.parse_value(fs, index_ty)?;
                Ok(Parsed::Inst {
                    kind: InstKind::InsertElement {
                        ty,
                        vector: first,
                        elem,
                        index,
                    },
                    ty,
                })
            }
            "shufflevector" => {
                let (_, elem) = vector_ty(self, ty, ty_tok.span)?;
                let ty2_tok = self.cur();
                let ty2 = self.parse_type()?;
                if ty2 != ty {
                    return Err(ParseError::new(
                        ty2_tok.span,
                        "shufflevector operands have different types",
                    ));
                }
                let (second, _) = self.parse_value(fs, ty)?;
                self.expect(Tok::Comma, "','")?;
                let mask_tok = self.cur();
                let mask_ty = self.parse_type()?;
                let mask_len = match self.module.types.vector(mask_ty) {
                    Some((n, TypeTable::I32)) => n,
                    _ => {
                        return Err(ParseError::new(
                            mask_tok.span,
                            "shufflevector mask must be a constant <M x i32>",
                        ));
                    }
                };
                let c_tok = self.cur();
                if c_tok.kind == Tok::Local {
                    return Err(ParseError::new(
                        c_tok.span,
                        "shufflevector mask must be a constant of i32 elements, undef or poison",
                    ));
                }
                let c = self.parse_const(mask_ty)?;
                let mask = shuffle_mask(&c, mask_len).ok_or_else(|| {
                    ParseError::new(
                        c_tok.span.to(self.prev_span()),
                        "shufflevector mask must be a constant of i32 elements, undef or poison",
                    )
                })?;
                let result = self.module.types.intern(TypeData::Vector(mask_len, elem));
                Ok(Parsed::Inst {
                    kind: InstKind::ShuffleVector {
                        ty,
                        lhs: first,
                        rhs: second,
                        mask,
                    },
                    ty: result,
                })
            }
            _ => {
                // extractvalue / insertvalue: `first` is the aggregate.
                let elem = if op == "insertvalue" {
                    let elem_ty = self.parse_type()?;
                    let (elem, _) = self.parse_value(fs, elem_ty)?;
                    self.expect(Tok::Comma, "','")?;
                    Some(elem)
                } else {
                    None
                };
                let path_start = self.cur().span;
                let mut indices = Vec::new();
                loop {
                    let t = self.cur();
                    let k = self.expect_u64("a constant index")?;
                    let k = u32::try_from(k)
                        .map_err(|_| ParseError::new(t.span, "index out of range"))?;
                    indices.push(k);
                    if !(self.peek() == Tok::Comma && self.peek_at(1) == Tok::Int) {
                        break;
                    }
                    self.bump();
                }
                let walked = self
                    .module
                    .types
                    .aggregate_path(ty, &indices)
                    .ok_or_else(|| {
                        ParseError::new(
                            path_start.to(self.prev_span()),
                            format!(
                                "indices do not name an element of {}",
                                self.module.types.display(ty)
                            ),
                        )
                    })?;
                Ok(match elem {
                    Some(elem) => Parsed::Inst {
                        kind: InstKind::InsertValue {
                            ty,
                            agg: first,
                            elem,
                            indices,
                        },
                        ty,
                    },
                    None => Parsed::Inst {
                        kind: InstKind::ExtractValue {
                            ty,
                            agg: first,
                            indices,
                        },
                        ty: walked,
                    },
                })
            }
        }
    }

    /// `atomicrmw`, `cmpxchg` and `fence`.
    fn parse_atomic_inst(&mut self, fs: &mut FnState<'s>) -> Result<Parsed, ParseError> {
        let op_tok = self.bump();
        let op = lexer::text(self.src, &op_tok);
        if op == "fence" {
            let atomic = self.parse_atomic_tail()?;
            return Ok(Parsed::Inst {
                kind: InstKind::Fence { atomic },
                ty: TypeTable::VOID,
            });
        }
        let weak = op == "cmpxchg" && self.eat_word("weak");
        let volatile = self.eat_word("volatile");
        let rmw = if op == "atomicrmw" {
            let w = self.text();
            let Some(&rmw) = RmwOp::ALL.iter().find(|o| o.name() == w) else {
                return Err(self.expected("an atomicrmw operation"));
            };
            self.bump();
            Some(rmw)
        } else {
            None
        };
        let ptr_ty = self.parse_type()?;
        let (ptr, _) = self.parse_value(fs, ptr_ty)?;
        self.expect(Tok::Comma, "','")?;
        let ty = self.parse_type()?;
        let (first, _) = self.parse_value(fs, ty)?;
        if let Some(op) = rmw {
            let atomic = self.parse_atomic_tail()?;
            let align = self.parse_mem_align()?;
            return Ok(Parsed::Inst {
                kind: InstKind::AtomicRmw {
                    op,
                    ty,
                    ptr,
                    value: first,
                    atomic,
                    volatile,
                    align,
                },
                ty,
            });
        }
        self.expect(Tok::Comma, "','")?;
        let new_tok = self.cur();
        let new_ty = self.parse_type()?;
        if new_ty != ty {
            return Err(ParseError::new(
                new_tok.span,
                "cmpxchg operands have different types",
            ));
        }
        let (new, _) = self.parse_value(fs, ty)?;
        let atomic = self.parse_atomic_tail()?;
        let failure = self.parse_ordering()?;
        let align = self.parse_mem_align()?;
        let result = self.module.types.intern(TypeData::Struct {
            fields: vec![ty, TypeTable::I1],
            packed: false,
        });
        Ok(Parsed::Inst {
            kind: InstKind::CmpXchg {
                ty,
                ptr,
                cmp: first,
                new,
                atomic,
                failure,
                weak,
                volatile,
                align,
            },
            ty: result,
        })
    }

    /// `[syncscope("name")] ordering`.
    fn parse_atomic_tail(&mut self) -> Result<Atomic, ParseError> {
        let mut scope = None;
        if self.eat_word("syncscope") {
            self.expect(Tok::LParen, "'('")?;
            let t = self.cur();
            if t.kind != Tok::Str {
                return Err(self.expected("a quoted scope name"));
            }
            self.bump();
            let quoted = lexer::text(self.src, &t);
            scope = Some(quoted[1..quoted.len() - 1].to_string());
            self.expect(Tok::RParen, "')'")?;
        }
        let ordering = self.parse_ordering()?;
        Ok(Atomic { ordering, scope })
    }

    /// An atomic ordering word.
    fn parse_ordering(&mut self) -> Result<Ordering, ParseError> {
        let w = self.text();
        let Some(&ordering) = Ordering::ALL.iter().find(|o| o.name() == w) else {
            return Err(self.expected("an atomic ordering"));
        };
        self.bump();
        Ok(ordering)
    }

    /// `[, align N]` after a load or store (metadata attachments are left).
    pub(super) fn parse_mem_align(&mut self) -> Result<Option<u64>, ParseError> {
        if self.peek() == Tok::Comma && self.peek_at(1) == Tok::Word && self.text_at(1) == "align" {
            self.bump();
            self.bump();
            return Ok(Some(self.expect_u64("an alignment")?));
        }
        Ok(None)
    }

    /// `[tail] call [flags] [cc] [attrs] T [(fnty)] @f(args) [fn attrs]`, and the
    /// reserved `@pllvm.*` calls of the export lowering.
    pub(super) fn parse_call(&mut self, fs: &mut FnState<'s>) -> Result<Parsed, ParseError> {
        if !self.is_word("call") {
            self.bump();
        }
        self.expect_word("call")?;
        self.skip_attrs_until_type()?;
        let ret_ty = self.parse_type()?;
        if self.peek() == Tok::LParen {
            // The function type of a variadic callee: implied by the declaration.
            self.bump();
            if !self.eat(Tok::RParen) {
                loop {
                    if self.eat(Tok::Ellipsis) {
                        break;
                    }
                    self.parse_type()?;
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RParen, "')'")?;
            }
        }
        let callee_tok = self.cur();
        let mut asm = None;
        match callee_tok.kind {
            Tok::Global => {
                self.bump();
            }
            Tok::Local => {
                return Err(self.err("unsupported construct: indirect call"));
            }
            Tok::Word if self.text() == "asm" => asm = Some(self.parse_inline_asm()?),
            _ => return Err(self.expected("a function name")),
        }
        let name = match asm {
            Some(_) => "asm".to_string(),
            None => lexer::name(self.src, &callee_tok).into_owned(),
        };
        self.expect(Tok::LParen, "'('")?;
        let mut args = Vec::new();
        let mut arg_tys = Vec::new();
        if !self.eat(Tok::RParen) {
            loop {
                let ty = self.parse_type()?;
                self.parse_param_attrs()?;
                let (v, _) = self.parse_value(fs, ty)?;
                args.push(v);
                arg_tys.push(ty);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "')'")?;
        }
        let mut bundles = Vec::new();
        loop {
            match self.peek() {
                Tok::AttrRef => {
                    self.bump();
                }
                Tok::Word if !is_statement_word(self.text()) => {
                    self.bump();
                    if self.peek() == Tok::LParen {
                        self.skip_balanced()?;
                    }
                }
                Tok::LBracket if bundles.is_empty() => {
                    bundles = self.parse_bundles(fs)?;
                }
                _ => break,
            }
        }
        let sig_error = |what: &str| {
            ParseError::new(
                callee_tok.span,
                format!("@{name} must have the signature {what}"),
            )
        };
        if name == MASK_FN {
            if !args.is_empty() || ret_ty != TypeTable::I1 {
                return Err(sig_error("i1 ()"));
            }
            return Ok(Parsed::Inst {
                kind: InstKind::Mask,
                ty: TypeTable::I1,
            });
        }
        if name == PREDICATE_FN {
            if args.len() != 1 || arg_tys[0] != TypeTable::I1 || ret_ty != TypeTable::VOID {
                return Err(sig_error("void (i1)"));
            }
            return Ok(Parsed::Predicate(args[0]));
        }
        if name.starts_with(SHADOW_FN_PREFIX) {
            if args.len() != 2 || arg_tys.iter().any(|&t| t != ret_ty) {
                return Err(sig_error("T (T, T)"));
            }
            return Ok(Parsed::Shadow {
                phi: args[0],
                shadow: args[1],
                ty: ret_ty,
            });
        }
        let declared =
            |ret_ty: Ty, arg_tys: &[Ty]| FunctionData::declaration(&name, ret_ty, arg_tys);
        if let Some(asm) = asm {
            // Each inline assembly call site gets its own callee, which the
            // parser moves after all other functions once the file is read.
            let f = self.module.functions.push(declared(ret_ty, &arg_tys));
            self.module.inline_asm.insert(f, asm);
            return Ok(Parsed::Inst {
                kind: InstKind::Call {
                    callee: f,
                    ret_ty,
                    args,
                    bundles,
                },
                ty: ret_ty,
            });
        }
        let callee = match self.funcs.get(&name) {
            Some(&f) => f,
            // LLVM's parser declares every `llvm.*` intrinsic a call names
            // implicitly, with the type of the call; pllvm does the same, and for
            // θ's own `pllvm.*` names. One θ does not define is an external
            // function: calling it is undefined behaviour in the lanes that do.
            None if name.starts_with("pllvm.") || name.starts_with("llvm.") => {
                let f = self.module.functions.push(declared(ret_ty, &arg_tys));
                self.funcs.insert(name, f);
                f
            }
            None => {
                let message = if self.globals.contains_key(&name) {
                    format!("unsupported construct: call of global variable @{name}")
                } else {
                    format!("call to undeclared function @{name}")
                };
                return Err(ParseError::new(callee_tok.span, message));
            }
        };
        Ok(Parsed::Inst {
            kind: InstKind::Call {
                callee,
                ret_ty,
                args,
                bundles,
            },
            ty: ret_ty,
        })
    }

    /// `asm {sideeffect | alignstack | inteldialect | unwind} "text", "constraints"`:
    /// an inline assembly callee (LangRef, "Inline Assembler Expressions").
    pub(super) fn parse_inline_asm(&mut self) -> Result<InlineAsm, ParseError> {
        self.expect_word("asm")?;
        let mut asm = InlineAsm {
            text: String::new(),
            constraints: String::new(),
            sideeffect: false,
            alignstack: false,
            inteldialect: false,
            unwind: false,
        };
        loop {
            match self.text() {
                "sideeffect" => asm.sideeffect = true,
                "alignstack" => asm.alignstack = true,
                "inteldialect" => asm.inteldialect = true,
                "unwind" => asm.unwind = true,
                _ => break,
            }
            self.bump();
        }
        let string = |p: &mut Self, what: &str| -> Result<String, ParseError> {
            let t = p.expect(Tok::Str, what)?;
            let quoted = lexer::text(p.src, &t);
            let inner = &quoted[1..quoted.len().saturating_sub(1).max(1)];
            String::from_utf8(lexer::unescape_bytes(inner))
                .map_err(|_| ParseError::new(t.span, format!("{what} is not UTF-8")))
        };
        asm.text = string(self, "the assembly string")?;
        self.expect(Tok::Comma, "','")?;
        asm.constraints = string(self, "the constraint string")?;
        Ok(asm)
    }

    /// `[ "tag"(T v, ...), ... ]`: a call's operand bundles (LLVM LangRef,
    /// "Operand Bundles"), kept as written.
    fn parse_bundles(&mut self, fs: &mut FnState<'s>) -> Result<Vec<OperandBundle>, ParseError> {
        self.expect(Tok::LBracket, "'['")?;
        let mut bundles = Vec::new();
        loop {
            let tag_tok = self.expect(Tok::Str, "an operand bundle tag")?;
            let quoted = lexer::text(self.src, &tag_tok);
            let inner = &quoted[1..quoted.len().saturating_sub(1).max(1)];
            let tag = String::from_utf8_lossy(&lexer::unescape_bytes(inner)).into_owned();
            self.expect(Tok::LParen, "'('")?;
            let mut args = Vec::new();
            if !self.eat(Tok::RParen) {
                loop {
                    let ty = self.parse_type()?;
                    let (v, _) = self.parse_value(fs, ty)?;
                    args.push(v);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RParen, "')'")?;
            }
            bundles.push(OperandBundle { tag, args });
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RBracket, "']'")?;
        Ok(bundles)
    }
}

/// The mask of a `shufflevector` from its constant: `None` elements are `undef` /
/// `poison`; `None` overall if the constant is not a mask of `len` elements.
fn shuffle_mask(c: &ConstData, len: u32) -> Option<Vec<Option<u32>>> {
    let one = |c: &ConstData| match c {
        ConstData::Int(n) => u32::try_from(n).ok().map(Some),
        ConstData::Undef | ConstData::Poison => Some(None),
        ConstData::Zero => Some(Some(0)),
        _ => None,
    };
    match c {
        ConstData::Elems(items) => items.iter().map(one).collect(),
        ConstData::Splat(item) => one(item).map(|m| vec![m; len as usize]),
        other => one(other).map(|m| vec![m; len as usize]),
    }
}

/// Whether `nuw`/`nsw` are allowed on `op`.
pub(crate) fn allows_wrap_flags(op: BinOp) -> bool {
    matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl)
}

/// Whether `exact` is allowed on `op`.
pub(crate) fn allows_exact(op: BinOp) -> bool {
    matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::LShr | BinOp::AShr)
}

/// The flags of a binary operator that the text can express.
pub(crate) fn binary_flags(op: BinOp, flags: IntFlags) -> IntFlags {
    IntFlags {
        nuw: flags.nuw && allows_wrap_flags(op),
        nsw: flags.nsw && allows_wrap_flags(op),
        exact: flags.exact && allows_exact(op),
        disjoint: flags.disjoint && op == BinOp::Or,
    }
}

/// The flags of a cast that the text can express (`nneg` is `nsw`).
pub(crate) fn cast_flags(op: CastOp, flags: IntFlags) -> IntFlags {
    match op {
        CastOp::Trunc => IntFlags {
            nuw: flags.nuw,
            nsw: flags.nsw,
            ..IntFlags::default()
        },
        CastOp::ZExt | CastOp::UiToFp => IntFlags {
            nsw: flags.nsw,
            ..IntFlags::default()
        },
        _ => IntFlags::default(),
    }
}
