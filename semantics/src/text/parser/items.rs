//! Top-level items: splitting the token vector into items, giving globals and
//! functions their handles in source order (pass 1), and dispatching each item to
//! its parser (pass 2); header lines.

use super::cursor::{Item, ItemKind, Parser, is_reserved, squash};
use crate::ir::{FuncId, FunctionData, GlobalData, GlobalId};
use crate::text::error::ParseError;
use crate::text::lexer::{self, Tok};
use crate::types::TypeTable;

impl<'s> Parser<'s> {
    /// Splits the token vector into top-level items.
    pub(super) fn split_items(&self) -> Vec<Item> {
        let mut starts = Vec::new();
        let mut depth = 0usize;
        for i in 0..self.toks.len() {
            let t = &self.toks[i];
            if depth == 0 && self.starts_item(i) {
                starts.push(i);
            }
            match t.kind {
                Tok::LParen | Tok::LBracket | Tok::LBrace | Tok::Lt => depth += 1,
                Tok::RParen | Tok::RBracket | Tok::RBrace | Tok::Gt => {
                    depth = depth.saturating_sub(1)
                }
                _ => {}
            }
        }
        let mut items = Vec::new();
        if starts.first() != Some(&0) && !self.toks.is_empty() {
            items.push(Item {
                kind: ItemKind::Unknown,
                start: 0,
                end: starts.first().copied().unwrap_or(self.toks.len()),
            });
        }
        for (k, &start) in starts.iter().enumerate() {
            let end = starts.get(k + 1).copied().unwrap_or(self.toks.len());
            let t = &self.toks[start];
            let kind = match t.kind {
                Tok::Word => match lexer::text(self.src, t) {
                    "define" => ItemKind::Define(FuncId::from_u32(0)),
                    "declare" => ItemKind::Declare(FuncId::from_u32(0)),
                    "source_filename" | "target" => ItemKind::Header,
                    _ => ItemKind::Skip,
                },
                Tok::Global => ItemKind::Global(GlobalId::from_u32(0)),
                Tok::Local => ItemKind::TypeDef,
                _ => ItemKind::Skip,
            };
            items.push(Item { kind, start, end });
        }
        items
    }

    pub(super) fn starts_item(&self, i: usize) -> bool {
        let t = &self.toks[i];
        let next_is_eq = self.toks.get(i + 1).is_some_and(|n| n.kind == Tok::Eq);
        match t.kind {
            Tok::Word => matches!(
                lexer::text(self.src, t),
                "define"
                    | "declare"
                    | "attributes"
                    | "source_filename"
                    | "target"
                    | "module"
                    | "uselistorder"
                    | "uselistorder_bb"
            ),
            Tok::Global | Tok::Local | Tok::Meta | Tok::Comdat => next_is_eq,
            _ => false,
        }
    }

    /// Gives globals and functions their handles in source order.
    pub(super) fn register(&mut self, mut items: Vec<Item>) -> Vec<Item> {
        for item in &mut items {
            match item.kind {
                ItemKind::Global(_) => {
                    let t = self.toks[item.start];
                    let name = lexer::name(self.src, &t).into_owned();
                    if self.globals.contains_key(&name) || self.funcs.contains_key(&name) {
                        self.errors
                            .push(ParseError::new(t.span, format!("redefinition of @{name}")));
                        item.kind = ItemKind::Skip;
                        continue;
                    }
                    let id = self.module.globals.push(GlobalData {
                        name: name.clone(),
                        ty: TypeTable::I8,
                        addrspace: 0,
                        constant: false,
                        init: None,
                        linkage: Vec::new(),
                        align: None,
                    });
                    self.globals.insert(name, id);
                    item.kind = ItemKind::Global(id);
                }
                ItemKind::Define(_) | ItemKind::Declare(_) => {
                    let define = matches!(item.kind, ItemKind::Define(_));
                    let Some(t) = self.toks[item.start..item.end]
                        .iter()
                        .find(|t| t.kind == Tok::Global)
                        .copied()
                    else {
                        self.errors.push(ParseError::new(
                            self.toks[item.start].span,
                            "expected a function name",
                        ));
                        item.kind = ItemKind::Skip;
                        continue;
                    };
                    let name = lexer::name(self.src, &t).into_owned();
                    if is_reserved(&name) {
                        if define {
                            self.errors.push(ParseError::new(
                                t.span,
                                format!("@{name} is reserved for the export lowering"),
                            ));
                        }
                        item.kind = ItemKind::Skip;
                        continue;
                    }
                    if self.globals.contains_key(&name) || self.funcs.contains_key(&name) {
                        self.errors
                            .push(ParseError::new(t.span, format!("redefinition of @{name}")));
                        item.kind = ItemKind::Skip;
                        continue;
                    }
                    let id = self.module.functions.push(FunctionData {
                        name: name.clone(),
                        ret_ty: TypeTable::VOID,
                        params: Vec::new(),
                        cconv: None,
                        variadic: false,
                        convergent: false,
                        body: None,
                    });
                    self.funcs.insert(name, id);
                    item.kind = if define {
                        ItemKind::Define(id)
                    } else {
                        ItemKind::Declare(id)
                    };
                }
                ItemKind::TypeDef => {
                    let t = self.toks[item.start];
                    let name = lexer::name(self.src, &t).into_owned();
                    if self.type_defs.contains_key(&name) {
                        self.errors.push(ParseError::new(
                            t.span,
                            format!("redefinition of type %{name}"),
                        ));
                        item.kind = ItemKind::Skip;
                        continue;
                    }
                    self.type_defs.insert(name, (item.start, item.end));
                }
                _ => {}
            }
        }
        items
    }

    pub(super) fn parse_item(&mut self, item: &Item) -> Result<(), ParseError> {
        match item.kind {
            ItemKind::Header => self.parse_header(),
            ItemKind::Global(id) => self.parse_global(id),
            ItemKind::Define(id) => self.parse_function(id, true),
            ItemKind::Declare(id) => self.parse_function(id, false),
            ItemKind::TypeDef => {
                let t = self.cur();
                let name = lexer::name(self.src, &t).into_owned();
                self.named_type(&name, t.span, 0).map(|_| ())
            }
            ItemKind::Skip => Ok(()),
            ItemKind::Unknown => Err(self.expected("a top-level entity")),
        }
    }

    /// NVPTX kernels as clang-19 marks them: a metadata node
    /// `!N = !{ptr @f, !"kernel", i32 1}` (listed in `!nvvm.annotations`; LLVM 20
    /// has the `ptx_kernel` calling convention for it). Metadata is otherwise
    /// dropped; such a function without a calling convention gets `ptx_kernel`,
    /// which the printer writes and LLVM 19 and 22 accept, so a kernel stays a
    /// kernel through printing, export and the analyses' argument rules
    /// (`pllvm_analysis::target`).
    pub(super) fn mark_nvvm_kernels(&mut self, items: &[Item]) {
        for item in items {
            if item.kind != ItemKind::Skip
                || self.toks.get(item.start).map(|t| t.kind) != Some(Tok::Meta)
            {
                continue;
            }
            let (lo, hi) = (
                self.toks[item.start].span.lo,
                self.toks[item.end - 1].span.hi,
            );
            let text = squash(&self.src[lo as usize..hi as usize]);
            if !(text.contains("!\"kernel\", i32 1") || text.contains("!\"kernel\",i32 1")) {
                continue;
            }
            for t in &self.toks[item.start..item.end] {
                if t.kind != Tok::Global {
                    continue;
                }
                let name = lexer::name(self.src, t);
                if let Some(&f) = self.funcs.get(name.as_ref())
                    && self.module.functions[f].cconv.is_none()
                {
                    self.module.functions[f].cconv = Some("ptx_kernel".to_string());
                }
            }
        }
    }

    /// The `convergent` function attribute (LLVM LangRef, "Function Attributes"),
    /// written after a function's parameters either as the word or through an
    /// attribute group (`#0`, with `attributes #0 = { convergent ... }`
    /// anywhere in the file): it sets [`FunctionData::convergent`]. The other
    /// function attributes are not part of the IR. Call-site attributes are
    /// not read: a call is convergent when its callee is
    /// ([`crate::theta::is_convergent_call`]).
    ///
    /// [`FunctionData::convergent`]: crate::ir::FunctionData::convergent
    pub(super) fn mark_convergent_functions(&mut self, items: &[Item]) {
        let mut convergent_groups = std::collections::HashSet::new();
        for item in items {
            let toks = &self.toks[item.start..item.end];
            if let [first, group, eq, rest @ ..] = toks
                && item.kind == ItemKind::Skip
                && first.kind == Tok::Word
                && lexer::text(self.src, first) == "attributes"
                && group.kind == Tok::AttrRef
                && eq.kind == Tok::Eq
                && rest
                    .iter()
                    .any(|t| t.kind == Tok::Word && lexer::text(self.src, t) == "convergent")
            {
                convergent_groups.insert(lexer::text(self.src, group));
            }
        }
        for item in items {
            let (ItemKind::Define(f) | ItemKind::Declare(f)) = item.kind else {
                continue;
            };
            let toks = &self.toks[item.start..item.end];
            // The function attributes follow the parameter list, which opens
            // right after the function's name.
            let Some(name) = toks.iter().position(|t| t.kind == Tok::Global) else {
                continue;
            };
            let mut depth = 0usize;
            let mut after_params = None;
            for (i, t) in toks.iter().enumerate().skip(name + 1) {
                match t.kind {
                    Tok::LParen => depth += 1,
                    Tok::RParen => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            after_params = Some(i + 1);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(start) = after_params else { continue };
            let convergent = toks[start..]
                .iter()
                .take_while(|t| t.kind != Tok::LBrace)
                .any(|t| match t.kind {
                    Tok::Word => lexer::text(self.src, t) == "convergent",
                    Tok::AttrRef => convergent_groups.contains(lexer::text(self.src, t)),
                    _ => false,
                });
            if convergent {
                self.module.functions[f].convergent = true;
            }
        }
    }

    /// `source_filename = "..."`, `target datalayout = "..."`, `target triple = "..."`.
    pub(super) fn parse_header(&mut self) -> Result<(), ParseError> {
        let start = self.cur().span;
        if self.eat_word("target") {
            if !(self.eat_word("datalayout") || self.eat_word("triple")) {
                return Err(self.expected("'datalayout' or 'triple'"));
            }
        } else {
            self.expect_word("source_filename")?;
        }
        self.expect(Tok::Eq, "'='")?;
        self.expect(Tok::Str, "a string")?;
        let line = squash(self.text_since(start));
        if self.peek() != Tok::Eof {
            return Err(self.expected("end of line"));
        }
        self.module.header.push(line);
        Ok(())
    }
}
