//! Function definitions and declarations, and their bodies: labels, block
//! predicates (`val_msk`, Fig. 4.2), statements, the lifting of the export
//! lowering, attachments and terminators.

use super::cursor::{
    FnState, Parsed, Parser, Stmt, TYPE_ATTRS, UNSUPPORTED_OPCODES, VALUE_WORDS, empty_block,
    is_cconv, is_statement_word, squash, stored_block_name, stored_value_name,
};
use super::normal::normalize_body;
use crate::diag::Span;
use crate::ir::{
    Block, ConstData, FuncId, InstData, InstKind, Param, Terminator, Value, ValueData, ValueDef,
};
use crate::text::error::ParseError;
use crate::text::lexer::{self, Tok, Token};
use crate::text::printer::local_name;
use crate::types::{Ty, TypeTable};
use std::borrow::Cow;

impl<'s> Parser<'s> {
    /// Skips linkage, visibility, return attributes and fast-math flags up to a
    /// type; returns the calling convention if one was written.
    pub(super) fn skip_attrs_until_type(&mut self) -> Result<Option<String>, ParseError> {
        let mut cconv = None;
        loop {
            if self.at_type_start() {
                return Ok(cconv);
            }
            match self.peek() {
                Tok::Word => {
                    let w = self.text();
                    if w == "cc" && self.peek_at(1) == Tok::Int {
                        cconv = Some(format!("cc {}", self.text_at(1)));
                        self.bump();
                        self.bump();
                        continue;
                    }
                    self.bump();
                    if is_cconv(w) {
                        cconv = Some(w.to_string());
                    } else if self.peek() == Tok::LParen {
                        self.skip_balanced()?;
                    } else if w == "align" && self.peek() == Tok::Int {
                        self.bump();
                    }
                }
                Tok::Str => {
                    self.bump();
                    if self.eat(Tok::Eq) {
                        self.expect(Tok::Str, "a string")?;
                    }
                }
                _ => return Err(self.expected("a type")),
            }
        }
    }

    /// Parameter or argument attributes, kept verbatim (whitespace squashed).
    pub(super) fn parse_param_attrs(&mut self) -> Result<Vec<String>, ParseError> {
        let mut attrs = Vec::new();
        loop {
            let t = self.cur();
            match t.kind {
                Tok::Word => {
                    let w = self.text();
                    if VALUE_WORDS.contains(&w) || is_statement_word(w) {
                        break;
                    }
                    self.bump();
                    if TYPE_ATTRS.contains(&w) && self.peek() == Tok::LParen {
                        self.bump();
                        let ty = self.parse_type()?;
                        self.expect(Tok::RParen, "')'")?;
                        attrs.push(format!("{w}({})", self.module.types.display(ty)));
                    } else if self.peek() == Tok::LParen {
                        self.skip_balanced()?;
                        attrs.push(squash(self.text_since(t.span)));
                    } else if w == "align" && self.peek() == Tok::Int {
                        self.bump();
                        attrs.push(squash(self.text_since(t.span)));
                    } else {
                        attrs.push(w.to_string());
                    }
                }
                Tok::Str => {
                    self.bump();
                    if self.eat(Tok::Eq) {
                        self.expect(Tok::Str, "a string")?;
                    }
                    attrs.push(squash(self.text_since(t.span)));
                }
                _ => break,
            }
        }
        Ok(attrs)
    }

    /// `define ... { body }` or `declare ...`.
    pub(super) fn parse_function(&mut self, id: FuncId, define: bool) -> Result<(), ParseError> {
        self.bump();
        let cconv = self.skip_attrs_until_type()?;
        let ret_ty = self.parse_type()?;
        let name_tok = self.expect(Tok::Global, "a function name")?;
        self.expect(Tok::LParen, "'('")?;
        let mut fs = FnState::new();
        let mut params = Vec::new();
        let mut variadic = false;
        if !self.eat(Tok::RParen) {
            loop {
                if self.eat(Tok::Ellipsis) {
                    variadic = true;
                    break;
                }
                let ty = self.parse_type()?;
                let attrs = self.parse_param_attrs()?;
                let index = params.len() as u32;
                let value = if define {
                    let (name, span) = if self.peek() == Tok::Local {
                        let t = self.bump();
                        (lexer::name(self.src, &t), t.span)
                    } else {
                        let n = fs.next_number.to_string();
                        (
                            Cow::Owned(n),
                            Span::new(self.cur().span.lo as usize, self.cur().span.lo as usize),
                        )
                    };
                    let v = self.define_local(&mut fs, name, span, ty, ValueDef::Param(index))?;
                    fs.params.push(v);
                    v
                } else {
                    if self.peek() == Tok::Local {
                        self.bump();
                    }
                    Value::from_u32(index)
                };
                params.push(Param { ty, attrs, value });
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "')'")?;
        }
        {
            let f = &mut self.module.functions[id];
            f.ret_ty = ret_ty;
            f.params = params;
            f.cconv = cconv;
            f.variadic = variadic;
        }
        if !define {
            // Function attributes, `#N` and the like: not part of the IR.
            self.pos = self.end;
            return Ok(());
        }
        while self.peek() != Tok::LBrace {
            match self.peek() {
                Tok::Eof => return Err(self.expected("'{'")),
                Tok::LParen | Tok::LBracket | Tok::Lt => self.skip_balanced()?,
                _ => {
                    self.bump();
                }
            }
        }
        self.bump();
        fs.spans.header = name_tok.span;
        fs.reserve(&self.toks[self.pos..self.end]);
        self.parse_body(&mut fs)?;
        self.expect(Tok::RBrace, "'}'")?;
        if self.peek() != Tok::Eof {
            return Err(self.expected("end of function"));
        }
        if let Some((&v, &span)) = fs.pending_values.iter().min_by_key(|(_, s)| (s.lo, s.hi)) {
            let name = fs.body.values[v].name.clone().unwrap_or_default();
            return Err(ParseError::new(
                span,
                format!("use of undefined value {}", local_name(&name)),
            ));
        }
        if let Some((&b, &span)) = fs.pending_blocks.iter().min_by_key(|(_, s)| (s.lo, s.hi)) {
            let name = fs.body.blocks[b].name.clone();
            return Err(ParseError::new(
                span,
                format!("use of undefined label {}", local_name(&name)),
            ));
        }
        let (body, spans) = normalize_body(
            &fs.body,
            &fs.params,
            &fs.aliases,
            Some((&fs.spans, &fs.operand_uses)),
        );
        let f = &mut self.module.functions[id];
        for (i, p) in f.params.iter_mut().enumerate() {
            p.value = Value::from_u32(i as u32);
        }
        f.body = Some(body);
        self.source_map.functions.insert(id, spans);
        Ok(())
    }

    // ----- bodies -------------------------------------------------------------

    pub(super) fn parse_body(&mut self, fs: &mut FnState<'s>) -> Result<(), ParseError> {
        if self.peek() == Tok::RBrace {
            return Err(self.err("function body has no blocks"));
        }
        while !matches!(self.peek(), Tok::RBrace | Tok::Eof) {
            let block = self.parse_label(fs)?;
            self.parse_block(fs, block)?;
        }
        Ok(())
    }

    /// A block label, or the implicit number of an unlabeled block.
    pub(super) fn parse_label(&mut self, fs: &mut FnState<'s>) -> Result<Block, ParseError> {
        let (name, span) = if self.peek() == Tok::Label {
            let t = self.bump();
            (lexer::name(self.src, &t), t.span)
        } else {
            let at = self.cur().span.lo as usize;
            (Cow::Owned(fs.next_number.to_string()), Span::new(at, at))
        };
        fs.saw_name(&name);
        let block = match fs.blocks.get(&name) {
            Some(&b) => {
                if fs.pending_blocks.remove(&b).is_none() {
                    return Err(ParseError::new(
                        span,
                        format!("redefinition of label {}", local_name(&name)),
                    ));
                }
                b
            }
            None => {
                let b = fs.body.blocks.push(empty_block(stored_block_name(&name)));
                fs.blocks.insert(name, b);
                b
            }
        };
        fs.body.layout.push(block);
        fs.spans.blocks[block] = span;
        Ok(block)
    }

    /// A reference `%name` to a block (after `label`, or in a phi).
    pub(super) fn use_block(&mut self, fs: &mut FnState<'s>) -> Result<Block, ParseError> {
        let t = self.expect(Tok::Local, "a block name")?;
        let name = lexer::name(self.src, &t);
        if let Some(&b) = fs.blocks.get(name.as_ref()) {
            return Ok(b);
        }
        let b = fs.body.blocks.push(empty_block(stored_block_name(&name)));
        fs.blocks.insert(name, b);
        fs.pending_blocks.insert(b, t.span);
        Ok(b)
    }

    pub(super) fn parse_label_ref(&mut self, fs: &mut FnState<'s>) -> Result<Block, ParseError> {
        self.expect_word("label")?;
        self.use_block(fs)
    }

    /// `[predicate v] phi* command* terminator`.
    pub(super) fn parse_block(
        &mut self,
        fs: &mut FnState<'s>,
        block: Block,
    ) -> Result<(), ParseError> {
        if self.is_word("predicate") {
            let start = self.bump().span;
            let (v, _) = self.parse_value(fs, TypeTable::I1)?;
            fs.body.blocks[block].predicate = Some(v);
            fs.spans.predicates[block] = start.to(self.prev_span());
        }
        let mut seen_command = false;
        loop {
            let start = self.cur().span;
            match self.parse_statement(fs, block)? {
                Stmt::Phi(inst) => {
                    if seen_command {
                        return Err(ParseError::new(
                            start,
                            "phi must come before the commands of its block",
                        ));
                    }
                    fs.body.blocks[block].phis.push(inst);
                }
                Stmt::Command(inst) => {
                    seen_command = true;
                    fs.body.blocks[block].body.push(inst);
                }
                Stmt::Lifted => {}
                Stmt::Term(term, span) => {
                    fs.body.blocks[block].term = term;
                    fs.spans.terms[block] = span;
                    return Ok(());
                }
            }
        }
    }

    /// A value operand of type `ty`: a local name or a constant.
    pub(super) fn parse_value(
        &mut self,
        fs: &mut FnState<'s>,
        ty: Ty,
    ) -> Result<(Value, Span), ParseError> {
        let t = self.cur();
        let v = if t.kind == Tok::Local {
            self.bump();
            self.use_local(fs, &t, ty)?
        } else {
            let c = self.parse_const(ty)?;
            fs.body.add_const(ty, c)
        };
        self.operand_spans.push(t.span);
        Ok((v, t.span))
    }

    pub(super) fn use_local(
        &mut self,
        fs: &mut FnState<'s>,
        t: &Token,
        ty: Ty,
    ) -> Result<Value, ParseError> {
        let name = lexer::name(self.src, t);
        if let Some(&v) = fs.values.get(name.as_ref()) {
            let have = fs.body.values[v].ty;
            if have != ty {
                let types = &self.module.types;
                return Err(ParseError::new(
                    t.span,
                    format!(
                        "{} has type {}, used here as {}",
                        local_name(&name),
                        types.display(have),
                        types.display(ty)
                    ),
                ));
            }
            return Ok(v);
        }
        let v = fs.body.values.push(ValueData {
            ty,
            name: stored_value_name(&name),
            def: ValueDef::Const(ConstData::Undef),
        });
        fs.values.insert(name, v);
        fs.pending_values.insert(v, t.span);
        Ok(v)
    }

    pub(super) fn define_local(
        &mut self,
        fs: &mut FnState<'s>,
        key: Cow<'s, str>,
        span: Span,
        ty: Ty,
        def: ValueDef,
    ) -> Result<Value, ParseError> {
        let name: &str = &key;
        fs.saw_name(name);
        let v = match fs.values.get(name) {
            Some(&v) => {
                if fs.pending_values.remove(&v).is_none() {
                    return Err(ParseError::new(
                        span,
                        format!("redefinition of {}", local_name(name)),
                    ));
                }
                let used = fs.body.values[v].ty;
                if used != ty {
                    let types = &self.module.types;
                    return Err(ParseError::new(
                        span,
                        format!(
                            "{} is defined as {} but used before as {}",
                            local_name(name),
                            types.display(ty),
                            types.display(used)
                        ),
                    ));
                }
                fs.body.values[v].def = def;
                v
            }
            None => {
                let v = fs.body.values.push(ValueData {
                    ty,
                    name: stored_value_name(name),
                    def,
                });
                fs.values.insert(key, v);
                v
            }
        };
        fs.spans.values[v] = span;
        Ok(v)
    }

    /// One phi, command, lowering to lift, or terminator.
    pub(super) fn parse_statement(
        &mut self,
        fs: &mut FnState<'s>,
        block: Block,
    ) -> Result<Stmt, ParseError> {
        let start = self.cur().span;
        let mut result: Option<(Cow<'s, str>, Span)> = None;
        let mut total = false;
        if self.peek() == Tok::Local {
            let t = self.bump();
            let name = lexer::name(self.src, &t);
            match self.peek() {
                Tok::Eq => {}
                Tok::ColonEq => total = true,
                _ => {
                    return Err(self.expected(&format!("'=' or ':=' after {}", local_name(&name))));
                }
            }
            self.bump();
            result = Some((name, t.span));
        }
        if self.peek() != Tok::Word {
            return Err(
                if result.is_none() && matches!(self.peek(), Tok::Label | Tok::RBrace | Tok::Eof) {
                    self.err("block does not end in a terminator")
                } else {
                    self.expected("an instruction")
                },
            );
        }
        let op = self.text();
        if matches!(op, "br" | "switch" | "ret" | "unreachable") {
            if let Some((_, span)) = result {
                return Err(ParseError::new(span, "a terminator has no result"));
            }
            let term = self.parse_terminator(fs)?;
            if self.parse_attachments()? {
                return Err(ParseError::new(start, "a terminator cannot be total"));
            }
            return Ok(Stmt::Term(term, start.to(self.prev_span())));
        }
        if UNSUPPORTED_OPCODES.contains(&op) {
            return Err(self.err(format!("unsupported construct: {op}")));
        }
        self.operand_spans.clear();
        let parsed = self.parse_inst(fs)?;
        if self.eat_word("total") {
            total = true;
        }
        if self.parse_attachments()? {
            total = true;
        }
        let span = start.to(self.prev_span());
        match parsed {
            Parsed::Inst { kind, ty } => {
                let is_phi = kind.is_phi();
                let needs_result = matches!(kind, InstKind::Mask);
                let inst = fs.body.insts.push(InstData {
                    kind,
                    result: None,
                    total,
                });
                match result {
                    Some((name, name_span)) => {
                        if ty == TypeTable::VOID {
                            return Err(ParseError::new(
                                name_span,
                                format!("{} would name a value of type void", local_name(&name)),
                            ));
                        }
                        let v = self.define_local(fs, name, name_span, ty, ValueDef::Inst(inst))?;
                        fs.body.insts[inst].result = Some(v);
                    }
                    None if needs_result => {
                        return Err(ParseError::new(start, "mask() must assign its result"));
                    }
                    None => {}
                }
                fs.spans.insts[inst] = span;
                for (k, s) in self.operand_spans.iter().enumerate() {
                    fs.operand_uses.push((inst, k, *s));
                }
                Ok(if is_phi {
                    Stmt::Phi(inst)
                } else {
                    Stmt::Command(inst)
                })
            }
            Parsed::Predicate(v) => {
                if result.is_some() || total {
                    return Err(ParseError::new(
                        start,
                        "@pllvm.predicate takes no result and cannot be total",
                    ));
                }
                if fs.body.blocks[block].predicate.is_some() {
                    return Err(ParseError::new(span, "block already has a predicate"));
                }
                fs.body.blocks[block].predicate = Some(v);
                fs.spans.predicates[block] = span;
                Ok(Stmt::Lifted)
            }
            Parsed::Shadow { phi, shadow, ty } => {
                let Some((name, name_span)) = result else {
                    return Err(ParseError::new(
                        start,
                        "a shadow selector must assign its result",
                    ));
                };
                self.lift_shadow(fs, block, phi, shadow, ty, name, name_span, span)?;
                Ok(Stmt::Lifted)
            }
        }
    }

    /// Lifts `%x = call T @pllvm.shadow.T(T %x.phi, T s)` back into the phi `%x.phi`
    /// of this block: the phi gets `shadow(s)` and the name `%x` (§4.8).
    #[allow(
        clippy::too_many_arguments,
        reason = "one call site, all parts of one statement"
    )]
    pub(super) fn lift_shadow(
        &mut self,
        fs: &mut FnState<'s>,
        block: Block,
        phi_value: Value,
        shadow: Value,
        ty: Ty,
        key: Cow<'s, str>,
        name_span: Span,
        span: Span,
    ) -> Result<(), ParseError> {
        let name: &str = &key;
        let malformed = || {
            ParseError::new(
                span,
                "malformed shadow lowering: the first operand must be a phi of this block without a shadow",
            )
        };
        let inst = match fs.body.values[phi_value].def {
            ValueDef::Inst(i) if !fs.pending_values.contains_key(&phi_value) => i,
            _ => return Err(malformed()),
        };
        if !fs.body.blocks[block].phis.contains(&inst) {
            return Err(malformed());
        }
        let InstKind::Phi {
            shadow: slot,
            incoming,
            ..
        } = &mut fs.body.insts[inst].kind
        else {
            return Err(malformed());
        };
        if slot.is_some() {
            return Err(malformed());
        }
        *slot = Some(shadow);
        let index = incoming.len();
        if let Some(&s) = self.operand_spans.get(1) {
            fs.operand_uses.push((inst, index, s));
        }
        fs.saw_name(name);
        if let Some(&placeholder) = fs.values.get(name) {
            {
                if fs.pending_values.remove(&placeholder).is_none() {
                    return Err(ParseError::new(
                        name_span,
                        format!("redefinition of {}", local_name(name)),
                    ));
                }
                if fs.body.values[placeholder].ty != ty {
                    return Err(ParseError::new(
                        name_span,
                        format!("{} is used before with another type", local_name(name)),
                    ));
                }
                fs.aliases.insert(placeholder, phi_value);
            }
        }
        fs.body.values[phi_value].name = stored_value_name(name);
        fs.values.insert(key, phi_value);
        fs.spans.values[phi_value] = name_span;
        Ok(())
    }

    /// `(, !name <metadata>)*`; returns whether `!pllvm.total` was among them.
    pub(super) fn parse_attachments(&mut self) -> Result<bool, ParseError> {
        let mut total = false;
        while self.peek() == Tok::Comma && self.peek_at(1) == Tok::Meta {
            self.bump();
            let t = self.bump();
            if lexer::name(self.src, &t) == "pllvm.total" {
                total = true;
            }
            self.skip_metadata()?;
        }
        Ok(total)
    }

    /// One metadata operand: `!7`, `!{...}`, `!"..."`, `!DIThing(...)`, `distinct ...`.
    pub(super) fn skip_metadata(&mut self) -> Result<(), ParseError> {
        self.eat_word("distinct");
        match self.peek() {
            Tok::Meta => {
                self.bump();
                if self.peek() == Tok::LParen {
                    self.skip_balanced()?;
                }
                Ok(())
            }
            Tok::Exclaim => {
                self.bump();
                match self.peek() {
                    Tok::LBrace | Tok::LParen => self.skip_balanced(),
                    Tok::Str => {
                        self.bump();
                        Ok(())
                    }
                    _ => Err(self.expected("metadata")),
                }
            }
            _ => Err(self.expected("metadata")),
        }
    }

    pub(super) fn parse_terminator(
        &mut self,
        fs: &mut FnState<'s>,
    ) -> Result<Terminator, ParseError> {
        let op = self.bump();
        match lexer::text(self.src, &op) {
            "br" => {
                if self.is_word("label") {
                    return Ok(Terminator::Br(self.parse_label_ref(fs)?));
                }
                let ty = self.parse_type()?;
                let (cond, _) = self.parse_value(fs, ty)?;
                self.expect(Tok::Comma, "','")?;
                let if_true = self.parse_label_ref(fs)?;
                self.expect(Tok::Comma, "','")?;
                let if_false = self.parse_label_ref(fs)?;
                Ok(Terminator::CondBr {
                    cond,
                    if_true,
                    if_false,
                })
            }
            "switch" => {
                let ty = self.parse_type()?;
                let (cond, _) = self.parse_value(fs, ty)?;
                self.expect(Tok::Comma, "','")?;
                let default = self.parse_label_ref(fs)?;
                self.expect(Tok::LBracket, "'['")?;
                let mut cases = Vec::new();
                while !self.eat(Tok::RBracket) {
                    let t = self.cur();
                    let case_ty = self.parse_type()?;
                    if case_ty != ty {
                        return Err(ParseError::new(
                            t.span,
                            "switch case has another type than the condition",
                        ));
                    }
                    let t = self.cur();
                    let ConstData::Int(value) = self.parse_const(ty)? else {
                        return Err(ParseError::new(
                            t.span,
                            "switch case must be an integer constant",
                        ));
                    };
                    self.expect(Tok::Comma, "','")?;
                    let target = self.parse_label_ref(fs)?;
                    cases.push((value, target));
                }
                Ok(Terminator::Switch {
                    ty,
                    cond,
                    default,
                    cases,
                })
            }
            "ret" => {
                if self.eat_word("void") {
                    return Ok(Terminator::Ret(None));
                }
                let ty = self.parse_type()?;
                let (v, _) = self.parse_value(fs, ty)?;
                Ok(Terminator::Ret(Some(v)))
            }
            _ => Ok(Terminator::Unreachable),
        }
    }
}
