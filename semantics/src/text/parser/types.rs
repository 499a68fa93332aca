//! Types (thesis Fig. 4.2: `ty`): scalars, pointers, arrays, vectors, structs
//! and named type definitions.

use super::cursor::{MAX_DEPTH, Parser, UNSUPPORTED_TYPES, int_type_width, squash};
use crate::diag::Span;
use crate::text::error::ParseError;
use crate::text::lexer::{self, Tok};
use crate::types::{MAX_INT_WIDTH, MAX_VECTOR_LEN, Ty, TypeData, TypeTable};

/// The message for a typed pointer (`i32*`, `ptr addrspace(1)*`, `i32 addrspace(1)*`).
pub(super) const TYPED_POINTER: &str =
    "typed pointers are LLVM 14 syntax; write `ptr` (or `ptr addrspace(N)`)";

impl<'s> Parser<'s> {
    pub(super) fn at_type_start(&self) -> bool {
        match self.peek() {
            Tok::Word => {
                let w = self.text();
                matches!(
                    w,
                    "void" | "float" | "double" | "half" | "bfloat" | "ptr" | "label" | "token"
                ) || UNSUPPORTED_TYPES.contains(&w)
                    || int_type_width(w).is_some()
            }
            Tok::LBracket | Tok::LBrace | Tok::Lt | Tok::Local => true,
            _ => false,
        }
    }

    pub(super) fn parse_type(&mut self) -> Result<Ty, ParseError> {
        self.parse_type_at(0)
    }

    pub(super) fn parse_type_at(&mut self, depth: usize) -> Result<Ty, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.err("type nested too deeply"));
        }
        let t = self.cur();
        let ty = match t.kind {
            Tok::Word => {
                let w = self.text();
                self.bump();
                match w {
                    "void" => TypeTable::VOID,
                    "float" => TypeTable::F32,
                    "double" => TypeTable::F64,
                    "half" => self.module.types.intern(TypeData::F16),
                    "bfloat" => self.module.types.intern(TypeData::BF16),
                    "label" => TypeTable::LABEL,
                    "token" => self.module.types.intern(TypeData::Token),
                    "ptr" => {
                        let space = self.parse_addrspace()?;
                        self.module.types.intern(TypeData::Ptr(space))
                    }
                    _ if UNSUPPORTED_TYPES.contains(&w) => {
                        return Err(ParseError::new(
                            t.span,
                            format!("unsupported construct: {w} type"),
                        ));
                    }
                    _ => {
                        let Some(digits) = int_type_width(w) else {
                            return Err(ParseError::new(
                                t.span,
                                format!("expected a type, found '{w}'"),
                            ));
                        };
                        match digits.parse::<u32>() {
                            Ok(n) if (1..=MAX_INT_WIDTH).contains(&n) => self.module.types.int(n),
                            _ => {
                                return Err(ParseError::new(
                                    t.span,
                                    format!(
                                        "integer type width must be between 1 and {MAX_INT_WIDTH}"
                                    ),
                                ));
                            }
                        }
                    }
                }
            }
            Tok::LBracket => {
                self.bump();
                let n = self.expect_u64("an array length")?;
                self.expect_word("x")?;
                let elem = self.parse_type_at(depth + 1)?;
                self.expect(Tok::RBracket, "']'")?;
                self.module.types.intern(TypeData::Array(n, elem))
            }
            Tok::LBrace => {
                self.bump();
                let fields = self.parse_struct_fields(depth)?;
                self.module.types.intern(TypeData::Struct {
                    fields,
                    packed: false,
                })
            }
            Tok::Lt if self.peek_at(1) == Tok::LBrace => {
                self.bump();
                self.bump();
                let fields = self.parse_struct_fields(depth)?;
                self.expect(Tok::Gt, "'>'")?;
                self.module.types.intern(TypeData::Struct {
                    fields,
                    packed: true,
                })
            }
            Tok::Lt if self.peek_at(1) == Tok::Int => {
                self.bump();
                let n_tok = self.cur();
                let n = self.expect_u64("a vector length")?;
                self.expect_word("x")?;
                let elem = self.parse_type_at(depth + 1)?;
                self.expect(Tok::Gt, "'>'")?;
                let types = &self.module.types;
                if !types.is_scalar(elem) {
                    return Err(ParseError::new(
                        t.span.to(self.prev_span()),
                        format!(
                            "vector element type must be an integer, floating-point or pointer type, found {}",
                            types.display(elem)
                        ),
                    ));
                }
                let n = u32::try_from(n)
                    .ok()
                    .filter(|&n| (1..=MAX_VECTOR_LEN).contains(&n));
                let Some(n) = n else {
                    return Err(ParseError::new(
                        n_tok.span,
                        format!("vector length must be between 1 and {MAX_VECTOR_LEN}"),
                    ));
                };
                self.module.types.intern(TypeData::Vector(n, elem))
            }
            Tok::Lt => {
                self.skip_balanced()?;
                return Err(ParseError::new(
                    t.span.to(self.prev_span()),
                    format!(
                        "unsupported construct: vector type {}",
                        squash(self.text_since(t.span))
                    ),
                ));
            }
            Tok::Local => {
                self.bump();
                let name = lexer::name(self.src, &t).into_owned();
                self.named_type(&name, t.span, depth)?
            }
            _ => return Err(self.expected("a type")),
        };
        // `T*` and `T addrspace(N)*`: LLVM 14's typed pointers, refused over
        // the whole spelling.
        let star_at = if self.peek() == Tok::Star {
            Some(0)
        } else if self.is_word("addrspace")
            && self.peek_at(1) == Tok::LParen
            && self.peek_at(2) == Tok::Int
            && self.peek_at(3) == Tok::RParen
            && self.peek_at(4) == Tok::Star
        {
            Some(4)
        } else {
            None
        };
        if let Some(n) = star_at {
            let star = self.toks[self.pos + n].span;
            return Err(ParseError::new(t.span.to(star), TYPED_POINTER));
        }
        Ok(ty)
    }

    /// The fields of `{ T, ... }` after the `{`, and the `}`.
    pub(super) fn parse_struct_fields(&mut self, depth: usize) -> Result<Vec<Ty>, ParseError> {
        let mut fields = Vec::new();
        if self.eat(Tok::RBrace) {
            return Ok(fields);
        }
        loop {
            fields.push(self.parse_type_at(depth + 1)?);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RBrace, "'}'")?;
        Ok(fields)
    }

    /// An optional `addrspace(N)`.
    pub(super) fn parse_addrspace(&mut self) -> Result<u32, ParseError> {
        if !self.eat_word("addrspace") {
            return Ok(0);
        }
        self.expect(Tok::LParen, "'('")?;
        let t = self.cur();
        let n = self.expect_u64("an address space")?;
        let n =
            u32::try_from(n).map_err(|_| ParseError::new(t.span, "address space out of range"))?;
        self.expect(Tok::RParen, "')'")?;
        Ok(n)
    }

    /// Resolves `%name = type T` (definitions may come later in the file).
    pub(super) fn named_type(
        &mut self,
        name: &str,
        span: Span,
        depth: usize,
    ) -> Result<Ty, ParseError> {
        if let Some(&ty) = self.named_types.get(name) {
            return Ok(ty);
        }
        let Some(&(start, end)) = self.type_defs.get(name) else {
            return Err(ParseError::new(
                span,
                format!("use of undefined type %{name}"),
            ));
        };
        if self.resolving.iter().any(|n| n == name) || depth > MAX_DEPTH {
            return Err(ParseError::new(
                span,
                format!("unsupported construct: recursive type %{name}"),
            ));
        }
        let saved = (self.pos, self.end);
        self.pos = start + 1;
        self.end = end;
        self.resolving.push(name.to_string());
        let result = self.parse_type_def_body(depth);
        self.resolving.pop();
        (self.pos, self.end) = saved;
        let ty = result?;
        self.named_types.insert(name.to_string(), ty);
        Ok(ty)
    }

    pub(super) fn parse_type_def_body(&mut self, depth: usize) -> Result<Ty, ParseError> {
        self.expect(Tok::Eq, "'='")?;
        self.expect_word("type")?;
        let ty = self.parse_type_at(depth + 1)?;
        if self.peek() != Tok::Eof {
            return Err(self.expected("end of type definition"));
        }
        Ok(ty)
    }
}
