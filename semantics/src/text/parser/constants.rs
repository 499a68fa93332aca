//! Constants as operands: scalars, vector and aggregate constants, `splat`
//! (constant expressions are `super::cexpr`).

use super::cursor::{Parser, f64_bits_to_f32, is_statement_word, parse_int_literal};
use crate::half;
use crate::ir::ConstData;
use crate::text::error::ParseError;
use crate::text::lexer::{self, Tok};
use crate::types::{Ty, TypeData};
use num_bigint::BigUint;

impl<'s> Parser<'s> {
    /// A scalar constant of type `ty`.
    ///
    /// Longer than ~150 lines on purpose: one arm per
    /// token that can start a scalar constant (integers, the float spellings,
    /// `true`/`false`, `null`, `undef`/`poison`, ...), each with its range checks;
    /// the forms share the type checks around the match.
    pub(super) fn parse_const(&mut self, ty: Ty) -> Result<ConstData, ParseError> {
        let t = self.cur();
        if t.kind == Tok::Word
            && let Some(parsed) = self.parse_const_expr(ty)
        {
            return parsed;
        }
        let text = self.text();
        let types = &self.module.types;
        let c = match t.kind {
            Tok::Int => {
                let Some(width) = types.int_width(ty) else {
                    return Err(ParseError::new(
                        t.span,
                        format!(
                            "integer constant used with non-integer type {}",
                            types.display(ty)
                        ),
                    ));
                };
                ConstData::Int(parse_int_literal(text, width))
            }
            Tok::Float | Tok::Hex => {
                let bits = if t.kind == Tok::Hex {
                    u64::from_str_radix(text.get(2..).unwrap_or(""), 16).map_err(|_| {
                        ParseError::new(t.span, "hexadecimal constant longer than 64 bits")
                    })?
                } else {
                    text.parse::<f64>()
                        .map_err(|_| ParseError::new(t.span, "invalid floating-point constant"))?
                        .to_bits()
                };
                match types.get(ty) {
                    TypeData::F64 => ConstData::Float(bits),
                    TypeData::F16 | TypeData::BF16 => {
                        let small = if types.get(ty) == &TypeData::F16 {
                            half::Small::Half
                        } else {
                            half::Small::BFloat
                        };
                        let x = f64::from_bits(bits);
                        let b = half::round_f64(small, x);
                        let back = half::to_f64(small, b);
                        if !(back.to_bits() == bits || x.is_nan() && back.is_nan()) {
                            return Err(ParseError::new(
                                t.span,
                                format!(
                                    "floating-point constant is not exactly representable as {}",
                                    types.display(ty)
                                ),
                            ));
                        }
                        ConstData::Float(u64::from(b))
                    }
                    TypeData::F32 => match f64_bits_to_f32(bits) {
                        Some(b) => ConstData::Float(u64::from(b)),
                        None => {
                            return Err(ParseError::new(
                                t.span,
                                "floating-point constant is not exactly representable as float",
                            ));
                        }
                    },
                    _ => {
                        return Err(ParseError::new(
                            t.span,
                            format!(
                                "floating-point constant used with non-floating-point type {}",
                                types.display(ty)
                            ),
                        ));
                    }
                }
            }
            Tok::HexOther => {
                let (kind, digits) = text.split_at(3);
                let want = match kind {
                    "0xH" => Some(TypeData::F16),
                    "0xR" => Some(TypeData::BF16),
                    _ => None,
                };
                let Some(want) = want else {
                    return Err(ParseError::new(
                        t.span,
                        "unsupported construct: constant of type x86_fp80, fp128 or ppc_fp128",
                    ));
                };
                if types.get(ty) != &want {
                    return Err(ParseError::new(
                        t.span,
                        format!("{kind} constant used with type {}", types.display(ty)),
                    ));
                }
                let bits = u16::from_str_radix(digits, 16).map_err(|_| {
                    ParseError::new(t.span, "a half or bfloat constant has 4 hex digits")
                })?;
                ConstData::Float(u64::from(bits))
            }
            Tok::Word => match text {
                "true" | "false" => {
                    if types.int_width(ty) != Some(1) {
                        return Err(ParseError::new(
                            t.span,
                            format!("'{text}' used with type {}, expected i1", types.display(ty)),
                        ));
                    }
                    ConstData::Int(BigUint::from(u8::from(text == "true")))
                }
                "null" => {
                    if !types.is_ptr(ty) {
                        return Err(ParseError::new(
                            t.span,
                            format!("'null' used with non-pointer type {}", types.display(ty)),
                        ));
                    }
                    ConstData::Null
                }
                "undef" => ConstData::Undef,
                "poison" => ConstData::Poison,
                "zeroinitializer" => ConstData::Zero,
                // `none`, the one constant of type `token` (LLVM LangRef, "Simple
                // Constants"): the zero of a type whose values carry nothing.
                "none" => {
                    if types.get(ty) != &TypeData::Token {
                        return Err(ParseError::new(
                            t.span,
                            format!(
                                "'none' is the constant of type token, used with type {}",
                                types.display(ty)
                            ),
                        ));
                    }
                    ConstData::Zero
                }
                "blockaddress" | "dso_local_equivalent" | "no_cfi" | "asm" => {
                    return Err(ParseError::new(
                        t.span,
                        format!("unsupported construct: {text}"),
                    ));
                }
                "splat" => {
                    let Some((_, elem)) = types.vector(ty) else {
                        return Err(ParseError::new(
                            t.span,
                            format!("'splat' used with non-vector type {}", types.display(ty)),
                        ));
                    };
                    self.bump();
                    self.expect(Tok::LParen, "'('")?;
                    let item = self.parse_elem_const(elem)?;
                    self.expect(Tok::RParen, "')'")?;
                    return Ok(ConstData::Splat(Box::new(item)));
                }
                _ if is_statement_word(text) && !self.on_a_later_line() => {
                    return Err(ParseError::new(
                        t.span,
                        format!("unsupported construct: constant expression {text}"),
                    ));
                }
                _ => return Err(self.expected_operand("a value")),
            },
            Tok::Global => {
                let name = lexer::name(self.src, &t);
                if !types.is_ptr(ty) {
                    return Err(ParseError::new(
                        t.span,
                        format!("@{name} used with non-pointer type {}", types.display(ty)),
                    ));
                }
                if let Some(&g) = self.globals.get(name.as_ref()) {
                    ConstData::Global(g)
                } else if let Some(&f) = self.funcs.get(name.as_ref()) {
                    ConstData::Function(f)
                } else {
                    return Err(ParseError::new(
                        t.span,
                        format!("use of undefined global @{name}"),
                    ));
                }
            }
            Tok::LBracket | Tok::LBrace | Tok::Lt => return self.parse_elems_const(ty),
            Tok::CStr => {
                return Err(ParseError::new(
                    t.span,
                    "unsupported construct: string constant as an operand",
                ));
            }
            Tok::Meta | Tok::Exclaim => {
                return Err(ParseError::new(
                    t.span,
                    "unsupported construct: metadata operand",
                ));
            }
            _ => return Err(self.expected("a value")),
        };
        self.bump();
        Ok(c)
    }

    /// `T c`: one element of a vector or aggregate constant, whose type must be `elem`.
    fn parse_elem_const(&mut self, elem: Ty) -> Result<ConstData, ParseError> {
        let at = self.cur();
        let found = self.parse_type()?;
        if found != elem {
            let types = &self.module.types;
            return Err(ParseError::new(
                at.span,
                format!(
                    "constant element has type {}, expected {}",
                    types.display(found),
                    types.display(elem)
                ),
            ));
        }
        // Recursion is bounded: each level steps into an element type, and types
        // nest at most MAX_DEPTH deep.
        self.parse_const(elem)
    }

    /// `<T a, ...>`, `{ T a, ... }`, `<{ T a, ... }>` or `[T a, ...]` of type `ty`:
    /// the brackets must fit the type and there must be one element per element of it.
    fn parse_elems_const(&mut self, ty: Ty) -> Result<ConstData, ParseError> {
        let start = self.cur();
        let types = &self.module.types;
        let (open, close, packed_close) = match (start.kind, types.get(ty)) {
            (Tok::Lt, TypeData::Vector(..)) => (1, Tok::Gt, false),
            (Tok::Lt, TypeData::Struct { packed: true, .. }) if self.peek_at(1) == Tok::LBrace => {
                (2, Tok::RBrace, true)
            }
            (Tok::LBrace, TypeData::Struct { packed: false, .. }) => (1, Tok::RBrace, false),
            (Tok::LBracket, TypeData::Array(..)) => (1, Tok::RBracket, false),
            _ => {
                return Err(ParseError::new(
                    start.span,
                    format!(
                        "vector or aggregate constant does not fit type {}",
                        types.display(ty)
                    ),
                ));
            }
        };
        let count = types.element_count(ty);
        for _ in 0..open {
            self.bump();
        }
        let mut items = Vec::new();
        if self.peek() != close {
            loop {
                let Some(elem) = self.module.types.element_at(ty, items.len() as u64) else {
                    return Err(self.err(format!(
                        "too many elements for type {} ({count} expected)",
                        self.module.types.display(ty)
                    )));
                };
                items.push(self.parse_elem_const(elem)?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        let close_what = match close {
            Tok::Gt => "'>'",
            Tok::RBrace => "'}'",
            _ => "']'",
        };
        self.expect(close, close_what)?;
        if packed_close {
            self.expect(Tok::Gt, "'>'")?;
        }
        if items.len() as u64 != count {
            return Err(ParseError::new(
                start.span.to(self.prev_span()),
                format!(
                    "constant has {} elements, type {} has {count}",
                    items.len(),
                    self.module.types.display(ty)
                ),
            ));
        }
        Ok(ConstData::Elems(items))
    }
}
