//! Constant expressions as operands (LangRef "Constant Expressions"): the casts
//! LLVM 22 keeps as constants and `getelementptr`, nested to any depth up to
//! [`MAX_DEPTH`], in instruction operands, phi incomings, call arguments and
//! global initializers (wherever [`Parser::parse_const`] reads a constant).

use super::cursor::{MAX_DEPTH, Parser};
use crate::ir::{CastOp, ConstData, ConstExpr, GepFlags};
use crate::text::error::ParseError;
use crate::text::lexer::Tok;
use crate::types::{Ty, TypeData, TypeTable};

/// The casts that are constant expressions in LLVM 22 (its parser answers
/// "zext constexprs are no longer supported" for the others, removed in LLVM 18).
pub(super) const CONST_CASTS: [CastOp; 5] = [
    CastOp::Trunc,
    CastOp::PtrToInt,
    CastOp::IntToPtr,
    CastOp::Bitcast,
    CastOp::AddrSpaceCast,
];

impl<'s> Parser<'s> {
    /// A constant expression of type `ty` starting at the opcode word `op`, or
    /// `None` when `op` starts none (the caller reports what it expected).
    pub(super) fn parse_const_expr(&mut self, ty: Ty) -> Option<Result<ConstData, ParseError>> {
        let op = self.text();
        let cast = CastOp::ALL.iter().copied().find(|c| c.name() == op);
        if cast.is_none() && op != "getelementptr" {
            return None;
        }
        if self.const_depth >= MAX_DEPTH {
            return Some(Err(self.err("constant expression nested too deeply")));
        }
        self.const_depth += 1;
        let parsed = match cast {
            Some(cast) => self.parse_cast_expr(cast, ty),
            None => self.parse_gep_expr(ty),
        };
        self.const_depth -= 1;
        Some(parsed.map(|e| ConstData::Expr(Box::new(e))))
    }

    /// `op (T c to U)`, `U` being `ty`.
    fn parse_cast_expr(&mut self, op: CastOp, ty: Ty) -> Result<ConstExpr, ParseError> {
        let start = self.cur();
        if !CONST_CASTS.contains(&op) {
            return Err(ParseError::new(
                start.span,
                format!(
                    "'{}' is not a constant expression since LLVM 18 (LLVM 22 keeps trunc, \
                     ptrtoint, inttoptr, bitcast, addrspacecast and getelementptr): compute it \
                     with a '{}' instruction",
                    op.name(),
                    op.name()
                ),
            ));
        }
        self.bump();
        self.expect(Tok::LParen, "'('")?;
        let from = self.parse_type()?;
        let arg = self.parse_const(from)?;
        self.expect_word("to")?;
        let to_at = self.cur();
        let to = self.parse_type()?;
        let to_span = to_at.span.to(self.prev_span());
        self.expect(Tok::RParen, "')'")?;
        let types = &self.module.types;
        if let Err(why) = op.check_types(types, from, to) {
            return Err(ParseError::new(
                start.span.to(self.prev_span()),
                format!(
                    "invalid constant expression: {} from {} to {}: {why}",
                    op.name(),
                    types.display(from),
                    types.display(to)
                ),
            ));
        }
        if to != ty {
            return Err(ParseError::new(
                to_span,
                format!(
                    "constant expression has type {}, used here as {}",
                    types.display(to),
                    types.display(ty)
                ),
            ));
        }
        Ok(ConstExpr::Cast { op, from, arg, to })
    }

    /// `getelementptr [inbounds|nusw|nuw]... [inrange(lo, hi)] (T, ptr c, iN k...)`
    /// of type `ty` (the base's pointer type); the indices step through `T` as the
    /// instruction's do (struct indices `i32` constants below the field count).
    fn parse_gep_expr(&mut self, ty: Ty) -> Result<ConstExpr, ParseError> {
        let start = self.cur();
        self.bump();
        let mut flags = GepFlags::default();
        let mut inrange = None;
        loop {
            match self.text() {
                "inbounds" => flags.inbounds = true,
                "nusw" => flags.nusw = true,
                "nuw" => flags.nuw = true,
                "inrange" if inrange.is_none() && self.peek_at(1) == Tok::LParen => {
                    self.bump();
                    self.bump();
                    let lo = self.expect_i64("the start of inrange")?;
                    self.expect(Tok::Comma, "','")?;
                    let hi = self.expect_i64("the end of inrange")?;
                    self.expect(Tok::RParen, "')'")?;
                    if lo > hi {
                        return Err(ParseError::new(
                            start.span.to(self.prev_span()),
                            format!("inrange({lo}, {hi}) is empty: its start is after its end"),
                        ));
                    }
                    inrange = Some((lo, hi));
                    continue;
                }
                _ => break,
            }
            self.bump();
        }
        flags.nusw &= !flags.inbounds;
        self.expect(Tok::LParen, "'('")?;
        let source_at = self.cur();
        let source_ty = self.parse_type()?;
        if !self.module.types.is_sized(source_ty) {
            return Err(ParseError::new(
                source_at.span,
                format!(
                    "getelementptr needs a sized source type, not {}",
                    self.module.types.display(source_ty)
                ),
            ));
        }
        self.expect(Tok::Comma, "','")?;
        let base_at = self.cur();
        let base_ty = self.parse_type()?;
        if !self.module.types.is_ptr(base_ty) {
            return Err(ParseError::new(
                base_at.span,
                format!(
                    "the base of a getelementptr constant is a pointer, not {}",
                    self.module.types.display(base_ty)
                ),
            ));
        }
        let base = self.parse_const(base_ty)?;
        let mut indices = Vec::new();
        let mut current = source_ty;
        while self.eat(Tok::Comma) {
            if self.is_word("inrange") {
                return Err(self.err(
                    "'inrange' before an index is LLVM 18 syntax: write \
                     'getelementptr inrange(lo, hi) (...)' with byte offsets",
                ));
            }
            let index_at = self.cur();
            let index_ty = self.parse_type()?;
            if self.module.types.int_width(index_ty).is_none() {
                return Err(ParseError::new(
                    index_at.span,
                    format!(
                        "getelementptr indices are integers, not {}",
                        self.module.types.display(index_ty)
                    ),
                ));
            }
            let value_at = self.cur();
            let index = self.parse_const(index_ty)?;
            if !indices.is_empty() {
                current = self.gep_step(current, index_ty, &index, value_at.span)?;
            }
            indices.push((index_ty, index));
        }
        self.expect(Tok::RParen, "')'")?;
        if base_ty != ty {
            let types = &self.module.types;
            return Err(ParseError::new(
                start.span.to(self.prev_span()),
                format!(
                    "constant expression has type {}, used here as {}",
                    types.display(base_ty),
                    types.display(ty)
                ),
            ));
        }
        Ok(ConstExpr::Gep {
            flags,
            inrange,
            source_ty,
            base_ty,
            base,
            indices,
        })
    }

    /// The type an index after the first steps into from `current`: an array's
    /// element, or the struct field an `i32` constant names.
    fn gep_step(
        &self,
        current: Ty,
        index_ty: Ty,
        index: &ConstData,
        span: crate::diag::Span,
    ) -> Result<Ty, ParseError> {
        let types = &self.module.types;
        match types.get(current) {
            TypeData::Array(_, elem) => Ok(*elem),
            TypeData::Struct { fields, .. } => {
                let field = match index {
                    ConstData::Int(n) if index_ty == TypeTable::I32 => {
                        usize::try_from(n).ok().filter(|&n| n < fields.len())
                    }
                    _ => None,
                };
                field.map(|f| fields[f]).ok_or_else(|| {
                    ParseError::new(
                        span,
                        format!(
                            "a getelementptr index into {} is an i32 constant below {}",
                            types.display(current),
                            fields.len()
                        ),
                    )
                })
            }
            _ => Err(ParseError::new(
                span,
                format!(
                    "getelementptr cannot index into {} (arrays and structs only)",
                    types.display(current)
                ),
            )),
        }
    }

    /// A possibly negative decimal integer that fits `i64`.
    fn expect_i64(&mut self, what: &str) -> Result<i64, ParseError> {
        if self.peek() != Tok::Int {
            return Err(self.expected(what));
        }
        let n = self
            .text()
            .parse::<i64>()
            .map_err(|_| self.err(format!("{what} does not fit 64 bits")))?;
        self.bump();
        Ok(n)
    }
}
