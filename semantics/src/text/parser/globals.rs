//! Global variables and their initializers.

use super::cursor::{MAX_DEPTH, Parser, squash};
use crate::ir::{ConstData, GlobalId, GlobalInit};
use crate::text::error::ParseError;
use crate::text::lexer::{self, Tok};
use crate::types::{Ty, TypeData};
use num_bigint::BigUint;

impl<'s> Parser<'s> {
    /// `@g = [linkage...] [addrspace(N)] global|constant T [init] [, align N] ...`.
    pub(super) fn parse_global(&mut self, id: GlobalId) -> Result<(), ParseError> {
        self.bump();
        self.expect(Tok::Eq, "'='")?;
        let mut linkage = Vec::new();
        let mut addrspace = 0;
        let constant = loop {
            if self.peek() != Tok::Word {
                return Err(self.expected("'global' or 'constant'"));
            }
            let t = self.cur();
            match self.text() {
                "global" => break false,
                "constant" => break true,
                "alias" | "ifunc" => {
                    return Err(self.err(format!("unsupported construct: {}", self.text())));
                }
                "addrspace" => addrspace = self.parse_addrspace()?,
                w => {
                    self.bump();
                    if self.peek() == Tok::LParen {
                        self.skip_balanced()?;
                        linkage.push(squash(self.text_since(t.span)));
                    } else {
                        linkage.push(w.to_string());
                    }
                }
            }
        };
        self.bump();
        let ty = self.parse_type()?;
        let init = if matches!(self.peek(), Tok::Eof | Tok::Comma) {
            None
        } else {
            Some(self.parse_init(ty, 0)?)
        };
        let mut align = None;
        while self.eat(Tok::Comma) {
            if self.eat_word("align") {
                align = Some(self.expect_u64("an alignment")?);
            } else {
                // `section`, `comdat`, `partition`, metadata: not part of the IR.
                self.pos = self.end;
            }
        }
        if self.peek() != Tok::Eof {
            return Err(self.expected("',' or end of global"));
        }
        let g = &mut self.module.globals[id];
        g.ty = ty;
        g.addrspace = addrspace;
        g.constant = constant;
        g.init = init;
        g.linkage = linkage;
        g.align = align;
        Ok(())
    }

    /// A global initializer of type `ty`.
    pub(super) fn parse_init(&mut self, ty: Ty, depth: usize) -> Result<GlobalInit, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.err("initializer nested too deeply"));
        }
        let t = self.cur();
        match t.kind {
            Tok::Word if self.text() == "zeroinitializer" => {
                self.bump();
                Ok(GlobalInit::Zero)
            }
            Tok::Word if matches!(self.text(), "undef" | "poison") => {
                self.bump();
                Ok(GlobalInit::Undef)
            }
            Tok::LBracket => {
                let TypeData::Array(n, elem) = *self.module.types.get(ty) else {
                    return Err(self.init_mismatch(ty, "an array"));
                };
                self.bump();
                let mut elems = Vec::new();
                if !self.eat(Tok::RBracket) {
                    loop {
                        elems.push(self.parse_typed_init(elem, depth)?);
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                    self.expect(Tok::RBracket, "']'")?;
                }
                if elems.len() as u64 != n {
                    return Err(ParseError::new(
                        t.span.to(self.prev_span()),
                        format!(
                            "array initializer has {} elements, its type {}",
                            elems.len(),
                            self.module.types.display(ty)
                        ),
                    ));
                }
                Ok(GlobalInit::Aggregate(elems))
            }
            Tok::LBrace | Tok::Lt => {
                let TypeData::Struct { fields, packed } = self.module.types.get(ty).clone() else {
                    return Err(self.init_mismatch(ty, "a struct"));
                };
                let written_packed = t.kind == Tok::Lt;
                if written_packed != packed {
                    return Err(self.init_mismatch(ty, "a struct of other packing"));
                }
                self.bump();
                if written_packed {
                    self.expect(Tok::LBrace, "'{'")?;
                }
                let mut elems = Vec::new();
                if !self.eat(Tok::RBrace) {
                    loop {
                        let Some(&field) = fields.get(elems.len()) else {
                            return Err(self.err("too many struct initializer fields"));
                        };
                        elems.push(self.parse_typed_init(field, depth)?);
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                    self.expect(Tok::RBrace, "'}'")?;
                }
                if written_packed {
                    self.expect(Tok::Gt, "'>'")?;
                }
                if elems.len() != fields.len() {
                    return Err(ParseError::new(
                        t.span.to(self.prev_span()),
                        "struct initializer has too few fields",
                    ));
                }
                Ok(GlobalInit::Aggregate(elems))
            }
            Tok::CStr => {
                let types = &self.module.types;
                let TypeData::Array(n, elem) = *types.get(ty) else {
                    return Err(self.init_mismatch(ty, "a string"));
                };
                if types.int_width(elem) != Some(8) {
                    return Err(self.init_mismatch(ty, "a string"));
                }
                let text = self.text();
                let body = text.get(2..text.len().saturating_sub(1)).unwrap_or("");
                let bytes = lexer::unescape_bytes(body);
                if bytes.len() as u64 != n {
                    return Err(ParseError::new(
                        t.span,
                        format!(
                            "string has {} bytes, its type {}",
                            bytes.len(),
                            types.display(ty)
                        ),
                    ));
                }
                self.bump();
                Ok(GlobalInit::Aggregate(
                    bytes
                        .into_iter()
                        .map(|b| GlobalInit::Scalar(ConstData::Int(BigUint::from(b))))
                        .collect(),
                ))
            }
            _ => {
                if !self.module.types.is_scalar(ty) {
                    return Err(self.init_mismatch(ty, "a scalar"));
                }
                Ok(GlobalInit::Scalar(self.parse_const(ty)?))
            }
        }
    }

    /// `T init` inside an aggregate initializer, `T` being `expect`.
    pub(super) fn parse_typed_init(
        &mut self,
        expect: Ty,
        depth: usize,
    ) -> Result<GlobalInit, ParseError> {
        let t = self.cur();
        let ty = self.parse_type_at(depth + 1)?;
        if ty != expect {
            let types = &self.module.types;
            return Err(ParseError::new(
                t.span.to(self.prev_span()),
                format!(
                    "initializer element has type {}, expected {}",
                    types.display(ty),
                    types.display(expect)
                ),
            ));
        }
        self.parse_init(ty, depth + 1)
    }

    pub(super) fn init_mismatch(&self, ty: Ty, what: &str) -> ParseError {
        self.err(format!(
            "{what} initializer does not fit type {}",
            self.module.types.display(ty)
        ))
    }
}
