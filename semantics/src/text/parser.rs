//! The parser of the P-LLVM text format (thesis Fig. 4.2, §4.1, Fig. 4.13) and the
//! normal form of modules.
//!
//! Parsing runs in three linear passes over the token vector:
//! 1. the file is split into top-level items (`define`, `declare`, globals, type
//!    definitions, headers, and the attribute groups and metadata that are skipped)
//!    at the tokens that can only start an item at bracket depth 0; globals and
//!    functions get their handles in source order, so forward references work;
//! 2. each item is parsed on its own: an error ends that item only, and the parser
//!    resumes at the next, so one run reports one error per broken item;
//! 3. the result is put in normal form ([`normalize`]).
//!
//! The P-LLVM additions are read in both spellings: the canonical one (`predicate`,
//! `total`, `:=`, `shadow(v)`, `mask()`) and the export lowering of
//! `super::export` (`@pllvm.predicate`, `!pllvm.total`, `@pllvm.shadow.*`,
//! `@pllvm.mask`), which is lifted back to the same IR.

use super::ParseError;
use super::lexer::{self, Tok, Token};
use super::printer::local_name;
use crate::diag::{FunctionSpans, OperandUses, SourceMap, Span};
use crate::entity::{EntityRef, PrimaryMap};
use crate::ir::{
    BinOp, Block, BlockData, Body, CastOp, ConstData, FCmpPred, FuncId, FunctionData, GepIndex,
    GlobalData, GlobalId, GlobalInit, ICmpPred, Inst, InstData, InstKind, IntFlags, Module, Param,
    Terminator, Value, ValueData, ValueDef,
};
use crate::types::{MAX_INT_WIDTH, Ty, TypeData, TypeTable};
use num_bigint::BigUint;
use num_traits::{One, Zero};
use std::borrow::Cow;
use std::collections::HashMap;

/// The hasher of the parser's symbol tables: `foldhash` (a folded 64×64→128-bit
/// multiply per word), seeded per process. A multiply-only hasher (FxHash style)
/// left the low bits, which pick the bucket, blind to the high bytes of a word,
/// so names that differ only in their last digits (`%x1000000`..`%x1799999`)
/// shared buckets and a file of such names took quadratic time.
pub(crate) type NameHasher = foldhash::fast::RandomState;

/// A hash map with [`NameHasher`].
type FastMap<K, V> = HashMap<K, V, NameHasher>;

/// How deeply types and initializers may nest (keeps recursion bounded on any input).
const MAX_DEPTH: usize = 64;

/// Instructions of LLVM IR outside the P-LLVM subset: parsing them is an error that
/// names them, never a misread.
const UNSUPPORTED_OPCODES: &[&str] = &[
    "invoke",
    "landingpad",
    "resume",
    "atomicrmw",
    "cmpxchg",
    "fence",
    "va_arg",
    "extractvalue",
    "insertvalue",
    "extractelement",
    "insertelement",
    "shufflevector",
    "indirectbr",
    "callbr",
    "catchswitch",
    "catchret",
    "cleanupret",
    "catchpad",
    "cleanuppad",
];

/// Types of LLVM IR outside the subset.
const UNSUPPORTED_TYPES: &[&str] = &[
    "half",
    "bfloat",
    "fp128",
    "x86_fp80",
    "ppc_fp128",
    "x86_amx",
    "x86_mmx",
    "token",
    "metadata",
    "opaque",
    "target",
];

/// Fast-math flags: accepted and dropped (P-LLVM floats are IEEE, §4.9).
const FAST_MATH_FLAGS: &[&str] = &[
    "fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc",
];

/// Parameter attributes whose argument is a type (`byval(T)`); the type is parsed
/// and re-rendered, so the attribute names no named type.
const TYPE_ATTRS: &[&str] = &[
    "byval",
    "sret",
    "byref",
    "preallocated",
    "inalloca",
    "elementtype",
];

/// Words that start a value, so that they end a run of call-argument attributes.
const VALUE_WORDS: &[&str] = &[
    "true",
    "false",
    "null",
    "undef",
    "poison",
    "zeroinitializer",
    "none",
    "blockaddress",
    "dso_local_equivalent",
    "no_cfi",
    "splat",
    "asm",
];

/// The name of the export lowering's predicate marker.
pub(crate) const PREDICATE_FN: &str = "pllvm.predicate";
/// The name of the export lowering's `mask()`.
pub(crate) const MASK_FN: &str = "pllvm.mask";
/// The name prefix of the export lowering's shadow selectors.
pub(crate) const SHADOW_FN_PREFIX: &str = "pllvm.shadow.";

/// Whether `@name` is reserved for the export lowering (its declarations are dropped).
fn is_reserved(name: &str) -> bool {
    name == PREDICATE_FN || name == MASK_FN || name.starts_with(SHADOW_FN_PREFIX)
}

/// Whether `name` is `prefix` followed by digits: a name the printer invents for an
/// unnamed value (`_7`) or block (`_b3`), read back as "no name".
pub(crate) fn is_invented_name(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// How a value name is stored: invented names become `None`.
fn stored_value_name(name: &str) -> Option<String> {
    if is_invented_name(name, "_") {
        None
    } else {
        Some(name.to_string())
    }
}

/// How a block name is stored: invented names become empty.
fn stored_block_name(name: &str) -> String {
    if is_invented_name(name, "_b") {
        String::new()
    } else {
        name.to_string()
    }
}

/// Whether `w` starts an instruction or is a P-LLVM keyword, so that it ends the
/// function attributes after a call.
fn is_statement_word(w: &str) -> bool {
    BinOp::ALL.iter().any(|op| op.name() == w)
        || CastOp::ALL.iter().any(|op| op.name() == w)
        || UNSUPPORTED_OPCODES.contains(&w)
        || matches!(
            w,
            "phi"
                | "fneg"
                | "icmp"
                | "fcmp"
                | "select"
                | "freeze"
                | "alloca"
                | "load"
                | "store"
                | "getelementptr"
                | "call"
                | "tail"
                | "musttail"
                | "notail"
                | "mask"
                | "br"
                | "switch"
                | "ret"
                | "unreachable"
                | "total"
                | "predicate"
        )
}

/// Whether `w` names a calling convention (kept in `FunctionData::cconv`).
fn is_cconv(w: &str) -> bool {
    (w.ends_with("cc") && w.len() > 2)
        || [
            "amdgpu_",
            "spir_",
            "ptx_",
            "x86_",
            "arm_",
            "aarch64_",
            "avr_",
            "msp430_",
            "riscv_",
            "m68k_",
            "intel_ocl",
            "hhvm",
        ]
        .iter()
        .any(|p| w.starts_with(p))
}

/// `iN` → `Some(N)` when the word has the shape of an integer type.
fn int_type_width(w: &str) -> Option<&str> {
    let digits = w.strip_prefix('i')?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

/// Collapses runs of white space (for attributes kept verbatim).
fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The bit pattern of a `double` as a `float`, if exactly representable.
pub(crate) fn f64_bits_to_f32(bits: u64) -> Option<u32> {
    let d = f64::from_bits(bits);
    if d.is_nan() {
        let sign = (bits >> 63) as u32;
        let mantissa = bits & ((1 << 52) - 1);
        if mantissa & ((1 << 29) - 1) != 0 {
            return None;
        }
        return Some((sign << 31) | 0x7F80_0000 | (mantissa >> 29) as u32);
    }
    let f = d as f32;
    ((f as f64).to_bits() == bits).then_some(f.to_bits())
}

/// The `double` bit pattern of a `float` (exact).
pub(crate) fn f32_bits_to_f64(bits: u32) -> u64 {
    let f = f32::from_bits(bits);
    if f.is_nan() {
        let sign = u64::from(bits >> 31);
        let mantissa = u64::from(bits & 0x007F_FFFF);
        return (sign << 63) | (0x7FF << 52) | (mantissa << 29);
    }
    (f as f64).to_bits()
}

/// `value mod 2^width`.
pub(crate) fn wrap_to_width(value: &BigUint, width: u32) -> BigUint {
    if value.bits() <= u64::from(width) {
        return value.clone();
    }
    value % (BigUint::one() << width)
}

/// What kind of top-level entity an item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ItemKind {
    Header,
    Global(GlobalId),
    Define(FuncId),
    Declare(FuncId),
    TypeDef,
    Skip,
    Unknown,
}

/// A top-level entity: its tokens `start..end`.
#[derive(Clone, Copy, Debug)]
struct Item {
    kind: ItemKind,
    start: usize,
    end: usize,
}

/// What one statement of a block turned out to be.
enum Stmt {
    Phi(Inst),
    Command(Inst),
    Lifted,
    Term(Terminator, Span),
}

/// An instruction before it is placed (or a lowering to lift).
enum Parsed {
    Inst { kind: InstKind, ty: Ty },
    Predicate(Value),
    Shadow { phi: Value, shadow: Value, ty: Ty },
}

/// A use of an operand: instruction, operand index, span (collected as a list and
/// keyed into [`FunctionSpans::operand_uses`] once, in normal form).
type OperandUse = (Inst, usize, Span);

/// Per-function parsing state: the body under construction and its symbol tables.
struct FnState<'s> {
    body: Body,
    spans: FunctionSpans,
    values: FastMap<Cow<'s, str>, Value>,
    pending_values: FastMap<Value, Span>,
    blocks: FastMap<Cow<'s, str>, Block>,
    pending_blocks: FastMap<Block, Span>,
    aliases: HashMap<Value, Value>,
    operand_uses: Vec<OperandUse>,
    next_number: u64,
    params: Vec<Value>,
}

impl FnState<'_> {
    fn new() -> Self {
        FnState {
            body: Body::default(),
            spans: FunctionSpans::default(),
            values: FastMap::default(),
            pending_values: FastMap::default(),
            blocks: FastMap::default(),
            pending_blocks: FastMap::default(),
            aliases: HashMap::new(),
            operand_uses: Vec::new(),
            next_number: 0,
            params: Vec::new(),
        }
    }
    /// Sizes the name tables and arenas for a body of `toks`: one block per label,
    /// one instruction per `%name =` and one value per `%name =` or literal, so that a large function is not rehashed
    /// and copied again and again while it is parsed.
    fn reserve(&mut self, toks: &[Token]) {
        let labels = toks.iter().filter(|t| t.kind == Tok::Label).count();
        let defs = toks
            .windows(2)
            .filter(|w| w[0].kind == Tok::Local && w[1].kind == Tok::Eq)
            .count();
        // Every use of a constant is a value of its own.
        let literals = toks
            .iter()
            .filter(|t| matches!(t.kind, Tok::Int | Tok::Float | Tok::Hex))
            .count();
        self.blocks.reserve(labels + 1);
        self.values.reserve(defs);
        self.body.blocks = PrimaryMap::with_capacity(labels + 1);
        self.body.layout.reserve(labels + 1);
        self.body.insts = PrimaryMap::with_capacity(defs);
        self.body.values.reserve(defs + literals);
    }
    /// Keeps LLVM's implicit numbering in step with an explicit `%N` / `N:`.
    fn saw_name(&mut self, name: &str) {
        let numeric = !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit());
        let number = name.parse::<u64>().ok().filter(|_| numeric);
        if let Some(n) = number {
            self.next_number = self.next_number.max(n.saturating_add(1));
        }
    }
}

/// The module parser: tokens, a cursor bounded to the current item, and the module.
struct Parser<'s> {
    src: &'s str,
    toks: Vec<Token>,
    pos: usize,
    end: usize,
    module: Module,
    globals: FastMap<String, GlobalId>,
    funcs: FastMap<String, FuncId>,
    type_defs: HashMap<String, (usize, usize)>,
    named_types: HashMap<String, Ty>,
    resolving: Vec<String>,
    source_map: SourceMap,
    errors: Vec<ParseError>,
    operand_spans: Vec<Span>,
}

/// Parses `src` into a module in normal form and its source map.
pub(crate) fn parse(src: &str) -> Result<(Module, SourceMap), Vec<ParseError>> {
    if src.len() >= u32::MAX as usize {
        return Err(vec![ParseError::new(
            Span::default(),
            "source file larger than 4 GiB",
        )]);
    }
    let toks = lexer::lex(src).map_err(|e| vec![e])?;
    let mut p = Parser {
        src,
        end: toks.len(),
        toks,
        pos: 0,
        module: Module::default(),
        globals: FastMap::default(),
        funcs: FastMap::default(),
        type_defs: HashMap::new(),
        named_types: HashMap::new(),
        resolving: Vec::new(),
        source_map: SourceMap::default(),
        errors: Vec::new(),
        operand_spans: Vec::new(),
    };
    let items = p.split_items();
    let items = p.register(items);
    for item in &items {
        p.pos = item.start;
        p.end = item.end;
        if let Err(e) = p.parse_item(item) {
            p.errors.push(e);
        }
    }
    if !p.errors.is_empty() {
        p.errors.sort_by_key(|e| (e.span.lo, e.span.hi));
        return Err(p.errors);
    }
    normalize_types(&mut p.module);
    Ok((p.module, p.source_map))
}

impl<'s> Parser<'s> {
    // ----- cursor -------------------------------------------------------------

    fn peek(&self) -> Tok {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> Tok {
        let i = self.pos + n;
        if i < self.end {
            self.toks[i].kind
        } else {
            Tok::Eof
        }
    }

    fn cur(&self) -> Token {
        if self.pos < self.end {
            self.toks[self.pos]
        } else {
            let at = if self.end > 0 {
                self.toks[self.end - 1].span.hi as usize
            } else {
                0
            };
            Token {
                kind: Tok::Eof,
                span: Span::new(at, at),
                quoted: false,
            }
        }
    }

    fn text(&self) -> &'s str {
        let t = self.cur();
        if t.kind == Tok::Eof {
            ""
        } else {
            lexer::text(self.src, &t)
        }
    }

    fn text_at(&self, n: usize) -> &'s str {
        let i = self.pos + n;
        if i < self.end {
            lexer::text(self.src, &self.toks[i])
        } else {
            ""
        }
    }

    fn bump(&mut self) -> Token {
        let t = self.cur();
        if self.pos < self.end {
            self.pos += 1;
        }
        t
    }

    /// The span of the last consumed token.
    fn prev_span(&self) -> Span {
        if self.pos > 0 {
            self.toks[self.pos - 1].span
        } else {
            Span::default()
        }
    }

    fn is_word(&self, w: &str) -> bool {
        self.peek() == Tok::Word && self.text() == w
    }

    fn eat(&mut self, kind: Tok) -> bool {
        if self.peek() == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn found(&self) -> String {
        match self.peek() {
            Tok::Eof => "end of input".to_string(),
            _ => format!("'{}'", self.text()),
        }
    }

    fn err(&self, message: impl Into<String>) -> ParseError {
        ParseError::new(self.cur().span, message)
    }

    fn expected(&self, what: &str) -> ParseError {
        self.err(format!("expected {what}, found {}", self.found()))
    }

    fn expect(&mut self, kind: Tok, what: &str) -> Result<Token, ParseError> {
        if self.peek() == kind {
            Ok(self.bump())
        } else {
            Err(self.expected(what))
        }
    }

    fn expect_word(&mut self, w: &str) -> Result<Token, ParseError> {
        if self.is_word(w) {
            Ok(self.bump())
        } else {
            Err(self.expected(&format!("'{w}'")))
        }
    }

    fn expect_u64(&mut self, what: &str) -> Result<u64, ParseError> {
        if self.peek() != Tok::Int {
            return Err(self.expected(what));
        }
        let t = self.cur();
        let v = self
            .text()
            .parse::<u64>()
            .map_err(|_| ParseError::new(t.span, format!("{what} out of range")))?;
        self.bump();
        Ok(v)
    }

    /// Skips a balanced `(...)`, `[...]`, `{...}` or `<...>` starting at the cursor.
    fn skip_balanced(&mut self) -> Result<(), ParseError> {
        let open = self.cur();
        let mut depth = 0usize;
        loop {
            match self.peek() {
                Tok::LParen | Tok::LBracket | Tok::LBrace | Tok::Lt => depth += 1,
                Tok::RParen | Tok::RBracket | Tok::RBrace | Tok::Gt => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.bump();
                        return Ok(());
                    }
                }
                Tok::Eof => {
                    return Err(ParseError::new(open.span, "unbalanced bracket"));
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// The source text from `lo` to the end of the last consumed token.
    fn text_since(&self, lo: Span) -> &'s str {
        let hi = self.prev_span().hi.max(lo.lo);
        self.src.get(lo.lo as usize..hi as usize).unwrap_or("")
    }

    // ----- items --------------------------------------------------------------

    /// Splits the token vector into top-level items.
    fn split_items(&self) -> Vec<Item> {
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
                    "define" => ItemKind::Define(FuncId(0)),
                    "declare" => ItemKind::Declare(FuncId(0)),
                    "source_filename" | "target" => ItemKind::Header,
                    _ => ItemKind::Skip,
                },
                Tok::Global => ItemKind::Global(GlobalId(0)),
                Tok::Local => ItemKind::TypeDef,
                _ => ItemKind::Skip,
            };
            items.push(Item { kind, start, end });
        }
        items
    }

    fn starts_item(&self, i: usize) -> bool {
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
    fn register(&mut self, mut items: Vec<Item>) -> Vec<Item> {
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

    fn parse_item(&mut self, item: &Item) -> Result<(), ParseError> {
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

    /// `source_filename = "..."`, `target datalayout = "..."`, `target triple = "..."`.
    fn parse_header(&mut self) -> Result<(), ParseError> {
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

    // ----- types --------------------------------------------------------------

    fn at_type_start(&self) -> bool {
        match self.peek() {
            Tok::Word => {
                let w = self.text();
                matches!(w, "void" | "float" | "double" | "ptr" | "label")
                    || UNSUPPORTED_TYPES.contains(&w)
                    || int_type_width(w).is_some()
            }
            Tok::LBracket | Tok::LBrace | Tok::Lt | Tok::Local => true,
            _ => false,
        }
    }

    fn parse_type(&mut self) -> Result<Ty, ParseError> {
        self.parse_type_at(0)
    }

    fn parse_type_at(&mut self, depth: usize) -> Result<Ty, ParseError> {
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
                    "label" => TypeTable::LABEL,
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
        if self.peek() == Tok::Star {
            return Err(ParseError::new(
                t.span.to(self.cur().span),
                "unsupported construct: typed pointer (use opaque 'ptr')",
            ));
        }
        Ok(ty)
    }

    /// The fields of `{ T, ... }` after the `{`, and the `}`.
    fn parse_struct_fields(&mut self, depth: usize) -> Result<Vec<Ty>, ParseError> {
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
    fn parse_addrspace(&mut self) -> Result<u32, ParseError> {
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
    fn named_type(&mut self, name: &str, span: Span, depth: usize) -> Result<Ty, ParseError> {
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

    fn parse_type_def_body(&mut self, depth: usize) -> Result<Ty, ParseError> {
        self.expect(Tok::Eq, "'='")?;
        self.expect_word("type")?;
        let ty = self.parse_type_at(depth + 1)?;
        if self.peek() != Tok::Eof {
            return Err(self.expected("end of type definition"));
        }
        Ok(ty)
    }

    // ----- constants ----------------------------------------------------------

    /// A scalar constant of type `ty`.
    fn parse_const(&mut self, ty: Ty) -> Result<ConstData, ParseError> {
        let t = self.cur();
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
                return Err(ParseError::new(
                    t.span,
                    "unsupported construct: constant of type half, bfloat, x86_fp80 or fp128",
                ));
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
                "none" => {
                    return Err(ParseError::new(
                        t.span,
                        "unsupported construct: token constant none",
                    ));
                }
                "blockaddress" | "dso_local_equivalent" | "no_cfi" | "asm" => {
                    return Err(ParseError::new(
                        t.span,
                        format!("unsupported construct: {text}"),
                    ));
                }
                "splat" => {
                    return Err(ParseError::new(
                        t.span,
                        "unsupported construct: vector constant splat",
                    ));
                }
                _ if is_statement_word(text) => {
                    return Err(ParseError::new(
                        t.span,
                        format!("unsupported construct: constant expression {text}"),
                    ));
                }
                _ => return Err(self.expected("a value")),
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
            Tok::LBracket | Tok::LBrace | Tok::CStr => {
                return Err(ParseError::new(
                    t.span,
                    "unsupported construct: aggregate constant as an operand",
                ));
            }
            Tok::Lt => {
                return Err(ParseError::new(
                    t.span,
                    "unsupported construct: vector constant",
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

    // ----- globals ------------------------------------------------------------

    /// `@g = [linkage...] [addrspace(N)] global|constant T [init] [, align N] ...`.
    fn parse_global(&mut self, id: GlobalId) -> Result<(), ParseError> {
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
    fn parse_init(&mut self, ty: Ty, depth: usize) -> Result<GlobalInit, ParseError> {
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
    fn parse_typed_init(&mut self, expect: Ty, depth: usize) -> Result<GlobalInit, ParseError> {
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

    fn init_mismatch(&self, ty: Ty, what: &str) -> ParseError {
        self.err(format!(
            "{what} initializer does not fit type {}",
            self.module.types.display(ty)
        ))
    }

    // ----- functions ----------------------------------------------------------

    /// Skips linkage, visibility, return attributes and fast-math flags up to a
    /// type; returns the calling convention if one was written.
    fn skip_attrs_until_type(&mut self) -> Result<Option<String>, ParseError> {
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
    fn parse_param_attrs(&mut self) -> Result<Vec<String>, ParseError> {
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
    fn parse_function(&mut self, id: FuncId, define: bool) -> Result<(), ParseError> {
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
                    Value(index)
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
            p.value = Value(i as u32);
        }
        f.body = Some(body);
        self.source_map.functions.insert(id, spans);
        Ok(())
    }

    // ----- bodies -------------------------------------------------------------

    fn parse_body(&mut self, fs: &mut FnState<'s>) -> Result<(), ParseError> {
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
    fn parse_label(&mut self, fs: &mut FnState<'s>) -> Result<Block, ParseError> {
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
    fn use_block(&mut self, fs: &mut FnState<'s>) -> Result<Block, ParseError> {
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

    fn parse_label_ref(&mut self, fs: &mut FnState<'s>) -> Result<Block, ParseError> {
        self.expect_word("label")?;
        self.use_block(fs)
    }

    /// `[predicate v] phi* command* terminator`.
    fn parse_block(&mut self, fs: &mut FnState<'s>, block: Block) -> Result<(), ParseError> {
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
    fn parse_value(&mut self, fs: &mut FnState<'s>, ty: Ty) -> Result<(Value, Span), ParseError> {
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

    fn use_local(&mut self, fs: &mut FnState<'s>, t: &Token, ty: Ty) -> Result<Value, ParseError> {
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

    fn define_local(
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
    fn parse_statement(&mut self, fs: &mut FnState<'s>, block: Block) -> Result<Stmt, ParseError> {
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
    fn lift_shadow(
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
    fn parse_attachments(&mut self) -> Result<bool, ParseError> {
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
    fn skip_metadata(&mut self) -> Result<(), ParseError> {
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

    fn parse_terminator(&mut self, fs: &mut FnState<'s>) -> Result<Terminator, ParseError> {
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

    /// Skips fast-math flags.
    fn skip_fast_math(&mut self) {
        while self.peek() == Tok::Word && FAST_MATH_FLAGS.contains(&self.text()) {
            self.bump();
        }
    }

    fn parse_inst(&mut self, fs: &mut FnState<'s>) -> Result<Parsed, ParseError> {
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
                    ty: TypeTable::I1,
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
                    ty: TypeTable::I1,
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
            _ => Err(ParseError::new(
                op_tok.span,
                format!("unknown instruction '{op}'"),
            )),
        }
    }

    /// `[, align N]` after a load or store (metadata attachments are left).
    fn parse_mem_align(&mut self) -> Result<Option<u64>, ParseError> {
        if self.peek() == Tok::Comma && self.peek_at(1) == Tok::Word && self.text_at(1) == "align" {
            self.bump();
            self.bump();
            return Ok(Some(self.expect_u64("an alignment")?));
        }
        Ok(None)
    }

    /// `[tail] call [flags] [cc] [attrs] T [(fnty)] @f(args) [fn attrs]`, and the
    /// reserved `@pllvm.*` calls of the export lowering.
    fn parse_call(&mut self, fs: &mut FnState<'s>) -> Result<Parsed, ParseError> {
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
        match callee_tok.kind {
            Tok::Global => {}
            Tok::Local => {
                return Err(self.err("unsupported construct: indirect call"));
            }
            Tok::Word if self.text() == "asm" => {
                return Err(self.err("unsupported construct: inline asm"));
            }
            _ => return Err(self.expected("a function name")),
        }
        self.bump();
        let name = lexer::name(self.src, &callee_tok).into_owned();
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
                Tok::LBracket => {
                    return Err(self.err("unsupported construct: operand bundle"));
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
        let callee = match self.funcs.get(&name) {
            Some(&f) => f,
            None if name.starts_with("pllvm.") => {
                let f = self.module.functions.push(FunctionData {
                    name: name.clone(),
                    ret_ty,
                    params: arg_tys
                        .iter()
                        .enumerate()
                        .map(|(i, &ty)| Param {
                            ty,
                            attrs: Vec::new(),
                            value: Value(i as u32),
                        })
                        .collect(),
                    cconv: None,
                    variadic: false,
                    body: None,
                });
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
            },
            ty: ret_ty,
        })
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

/// A decimal literal (optionally signed) reduced modulo 2^width.
fn parse_int_literal(text: &str, width: u32) -> BigUint {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = if digits.len() <= 38 {
        digits
            .parse::<u128>()
            .map(BigUint::from)
            .unwrap_or_default()
    } else {
        BigUint::parse_bytes(digits.as_bytes(), 10).unwrap_or_default()
    };
    let magnitude = wrap_to_width(&magnitude, width);
    if negative && !magnitude.is_zero() {
        (BigUint::one() << width) - magnitude
    } else {
        magnitude
    }
}

fn empty_block(name: String) -> BlockData {
    BlockData {
        name,
        predicate: None,
        phis: Vec::new(),
        body: Vec::new(),
        term: Terminator::Unreachable,
    }
}

// ----- normal form ------------------------------------------------------------

/// The normal form of a module: the representative that `parse(print(m))` returns.
///
/// In normal form
/// - blocks are numbered in layout order, phis and commands in layout order;
/// - values are numbered: parameters, then results in instruction order, then one
///   fresh constant per use, in the order of the uses (block predicate, phis and
///   commands in [`InstKind::operands`] order, terminator);
/// - every `Param::value` is `Value(i)` (also for declarations);
/// - types are interned in a fixed walk (globals, signatures, values, instructions);
/// - names the printer invents for unnamed entities (`%_7`, `_b3`) are absent
///   (`None` / empty), integer constants are reduced to their width, flags the text
///   cannot express are cleared, and `addrspace(N)` lives in `GlobalData::addrspace`.
///
/// For any module `m` with valid handles, `parse(print(m)) == normalize(m)`, and
/// `normalize` is the identity on what the parser returns.
pub fn normalize(m: &Module) -> Module {
    let mut out = m.clone();
    for g in out.globals.keys().collect::<Vec<_>>() {
        let g = &mut out.globals[g];
        let mut kept = Vec::new();
        for word in std::mem::take(&mut g.linkage) {
            let space = word
                .strip_prefix("addrspace(")
                .and_then(|s| s.strip_suffix(')'))
                .and_then(|s| s.trim().parse::<u32>().ok());
            match space {
                Some(n) => g.addrspace = n,
                None => kept.push(word),
            }
        }
        g.linkage = kept;
        if let Some(init) = g.init.take() {
            g.init = Some(normalize_init(init));
        }
    }
    for f in out.functions.keys().collect::<Vec<_>>() {
        let func = &mut out.functions[f];
        let params: Vec<Value> = func.params.iter().map(|p| p.value).collect();
        if let Some(body) = &func.body {
            let (body, _) = normalize_body(body, &params, &HashMap::new(), None);
            func.body = Some(body);
        }
        for (i, p) in func.params.iter_mut().enumerate() {
            p.value = Value(i as u32);
        }
    }
    for f in out.functions.keys().collect::<Vec<_>>() {
        let Some(mut body) = out.functions[f].body.take() else {
            continue;
        };
        for v in body.values.keys().collect::<Vec<_>>() {
            let ty = body.values[v].ty;
            let data = &mut body.values[v];
            if let ValueDef::Const(c) = &mut data.def {
                data.name = None;
                match c {
                    ConstData::Int(x) => {
                        if let Some(w) = out.types.int_width(ty) {
                            *x = wrap_to_width(x, w);
                        }
                    }
                    ConstData::Float(bits) if out.types.get(ty) == &TypeData::F32 => {
                        *bits &= 0xFFFF_FFFF;
                    }
                    _ => {}
                }
            } else if data
                .name
                .as_deref()
                .is_some_and(|n| is_invented_name(n, "_"))
            {
                data.name = None;
            }
        }
        for b in body.blocks.keys().collect::<Vec<_>>() {
            let block = &mut body.blocks[b];
            if is_invented_name(&block.name, "_b") {
                block.name.clear();
            }
            if let Terminator::Switch { ty, cases, .. } = &mut block.term {
                let width = out.types.int_width(*ty);
                for (x, _) in cases.iter_mut() {
                    if let Some(w) = width {
                        *x = wrap_to_width(x, w);
                    }
                }
            }
        }
        for i in body.insts.keys().collect::<Vec<_>>() {
            match &mut body.insts[i].kind {
                InstKind::Binary { op, flags, .. } => *flags = binary_flags(*op, *flags),
                InstKind::Cast { op, flags, .. } => *flags = cast_flags(*op, *flags),
                _ => {}
            }
        }
        out.functions[f].body = Some(body);
    }
    normalize_types(&mut out);
    out
}

fn normalize_init(init: GlobalInit) -> GlobalInit {
    match init {
        GlobalInit::Scalar(ConstData::Zero) => GlobalInit::Zero,
        GlobalInit::Scalar(ConstData::Undef | ConstData::Poison) => GlobalInit::Undef,
        GlobalInit::Aggregate(elems) => {
            GlobalInit::Aggregate(elems.into_iter().map(normalize_init).collect())
        }
        other => other,
    }
}

/// Renumbers blocks, instructions and values of `body` in normal form (see
/// [`normalize`]), resolving `aliases` (placeholders of lifted shadow phis), and
/// carries the spans (and the operand uses, recorded as a list) along.
fn normalize_body(
    body: &Body,
    params: &[Value],
    aliases: &HashMap<Value, Value>,
    spans: Option<(&FunctionSpans, &[OperandUse])>,
) -> (Body, FunctionSpans) {
    // Dense old → new tables, indexed by the old handle.
    let mut block_map: Vec<Option<Block>> = vec![None; body.blocks.len()];
    let mut layout = Vec::new();
    for &b in &body.layout {
        if let Some(slot @ None) = block_map.get_mut(b.index()) {
            *slot = Some(Block::new(layout.len()));
            layout.push(b);
        }
    }
    let map_block = |b: Block| block_map.get(b.index()).copied().flatten().unwrap_or(b);
    let mut inst_map: Vec<Option<Inst>> = vec![None; body.insts.len()];
    let mut inst_order = Vec::new();
    for &b in &layout {
        let data = &body.blocks[b];
        for &i in data.phis.iter().chain(&data.body) {
            if let Some(slot @ None) = inst_map.get_mut(i.index()) {
                *slot = Some(Inst::new(inst_order.len()));
                inst_order.push(i);
            }
        }
    }
    let resolve = |v: Value| {
        if aliases.is_empty() {
            v
        } else {
            aliases.get(&v).copied().unwrap_or(v)
        }
    };
    let mut values: PrimaryMap<Value, ValueData> = PrimaryMap::with_capacity(body.values.len());
    let mut value_map: Vec<Option<Value>> = vec![None; body.values.len()];
    for (k, &p) in params.iter().enumerate() {
        let p = resolve(p);
        let (Some(data), Some(slot @ None)) = (body.values.get(p), value_map.get_mut(p.index()))
        else {
            continue;
        };
        *slot = Some(values.push(ValueData {
            ty: data.ty,
            name: data.name.clone(),
            def: ValueDef::Param(k as u32),
        }));
    }
    let mut result_of: Vec<Option<Value>> = vec![None; body.insts.len()];
    for (k, &i) in inst_order.iter().enumerate() {
        let Some(r) = body.insts[i].result.map(resolve) else {
            continue;
        };
        let (Some(data), Some(slot)) = (body.values.get(r), value_map.get_mut(r.index())) else {
            continue;
        };
        let new = match *slot {
            Some(existing) => existing,
            None => {
                let new = values.push(ValueData {
                    ty: data.ty,
                    name: data.name.clone(),
                    def: ValueDef::Inst(Inst::new(k)),
                });
                *slot = Some(new);
                new
            }
        };
        result_of[i.index()] = Some(new);
    }
    let mut map_value = |v: Value| -> Value {
        let v = resolve(v);
        if let Some(Some(n)) = value_map.get(v.index()) {
            return *n;
        }
        match body.values.get(v) {
            Some(data) => {
                let new = values.push(data.clone());
                if !matches!(data.def, ValueDef::Const(_)) {
                    value_map[v.index()] = Some(new);
                }
                new
            }
            None => values.push(ValueData {
                ty: TypeTable::VOID,
                name: None,
                def: ValueDef::Const(ConstData::Undef),
            }),
        }
    };
    let mut out = Body {
        blocks: PrimaryMap::with_capacity(layout.len()),
        layout: Vec::with_capacity(layout.len()),
        insts: PrimaryMap::with_capacity(inst_order.len()),
        values: PrimaryMap::new(),
    };
    let mut pushed = vec![false; body.insts.len()];
    for &b in &layout {
        let data = &body.blocks[b];
        let predicate = data.predicate.map(&mut map_value);
        let mut phis = Vec::with_capacity(data.phis.len());
        let mut cmds = Vec::with_capacity(data.body.len());
        for (list, into) in [(&data.phis, &mut phis), (&data.body, &mut cmds)] {
            for &i in list {
                let Some(new) = inst_map[i.index()] else {
                    continue;
                };
                if std::mem::replace(&mut pushed[i.index()], true) {
                    continue;
                }
                let inst = &body.insts[i];
                let kind = map_kind(&inst.kind, &mut map_value, &map_block);
                out.insts.push(InstData {
                    kind,
                    result: result_of[i.index()],
                    total: inst.total,
                });
                into.push(new);
            }
        }
        let term = map_term(&data.term, &mut map_value, &map_block);
        out.blocks.push(BlockData {
            name: data.name.clone(),
            predicate,
            phis,
            body: cmds,
            term,
        });
        out.layout.push(map_block(b));
    }
    out.values = values;
    let mut new_spans = FunctionSpans::default();
    if let Some((s, uses)) = spans {
        new_spans.header = s.header;
        for (old, new) in block_map.iter().enumerate() {
            if let Some(new) = *new {
                let old = Block::new(old);
                new_spans.blocks[new] = *s.blocks.get(old);
                new_spans.predicates[new] = *s.predicates.get(old);
                new_spans.terms[new] = *s.terms.get(old);
            }
        }
        for (old, new) in inst_map.iter().enumerate() {
            if let Some(new) = *new {
                new_spans.insts[new] = *s.insts.get(Inst::new(old));
            }
        }
        for (old, new) in value_map.iter().enumerate() {
            if let Some(new) = *new {
                let span = *s.values.get(Value::new(old));
                if span != Span::default() {
                    new_spans.values[new] = span;
                }
            }
        }
        let mut mapped = Vec::with_capacity(uses.len());
        for &(i, k, span) in uses {
            if let Some(Some(new)) = inst_map.get(i.index()) {
                mapped.push(((*new, k), span));
            }
        }
        new_spans.operand_uses = OperandUses::from_uses(mapped);
    }
    (out, new_spans)
}

/// `kind` with its values and blocks renamed; values are visited in
/// [`InstKind::operands`] order.
fn map_kind(
    kind: &InstKind,
    v: &mut impl FnMut(Value) -> Value,
    b: &impl Fn(Block) -> Block,
) -> InstKind {
    match kind {
        InstKind::Phi {
            ty,
            incoming,
            shadow,
        } => {
            let incoming = incoming.iter().map(|&(x, l)| (v(x), b(l))).collect();
            let shadow = shadow.map(&mut *v);
            InstKind::Phi {
                ty: *ty,
                incoming,
                shadow,
            }
        }
        InstKind::Binary {
            op,
            flags,
            ty,
            lhs,
            rhs,
        } => {
            let lhs = v(*lhs);
            let rhs = v(*rhs);
            InstKind::Binary {
                op: *op,
                flags: *flags,
                ty: *ty,
                lhs,
                rhs,
            }
        }
        InstKind::FNeg { ty, arg } => InstKind::FNeg {
            ty: *ty,
            arg: v(*arg),
        },
        InstKind::ICmp { pred, ty, lhs, rhs } => {
            let lhs = v(*lhs);
            let rhs = v(*rhs);
            InstKind::ICmp {
                pred: *pred,
                ty: *ty,
                lhs,
                rhs,
            }
        }
        InstKind::FCmp { pred, ty, lhs, rhs } => {
            let lhs = v(*lhs);
            let rhs = v(*rhs);
            InstKind::FCmp {
                pred: *pred,
                ty: *ty,
                lhs,
                rhs,
            }
        }
        InstKind::Cast {
            op,
            flags,
            from,
            arg,
            to,
        } => InstKind::Cast {
            op: *op,
            flags: *flags,
            from: *from,
            arg: v(*arg),
            to: *to,
        },
        InstKind::Select {
            ty,
            cond,
            if_true,
            if_false,
        } => {
            let cond = v(*cond);
            let if_true = v(*if_true);
            let if_false = v(*if_false);
            InstKind::Select {
                ty: *ty,
                cond,
                if_true,
                if_false,
            }
        }
        InstKind::Freeze { ty, arg } => InstKind::Freeze {
            ty: *ty,
            arg: v(*arg),
        },
        InstKind::Alloca { ty, count, align } => InstKind::Alloca {
            ty: *ty,
            count: count.map(&mut *v),
            align: *align,
        },
        InstKind::Load {
            ty,
            ptr,
            align,
            volatile,
        } => InstKind::Load {
            ty: *ty,
            ptr: v(*ptr),
            align: *align,
            volatile: *volatile,
        },
        InstKind::Store {
            ty,
            value,
            ptr,
            align,
            volatile,
        } => {
            let value = v(*value);
            let ptr = v(*ptr);
            InstKind::Store {
                ty: *ty,
                value,
                ptr,
                align: *align,
                volatile: *volatile,
            }
        }
        InstKind::Gep {
            inbounds,
            source_ty,
            base,
            indices,
        } => {
            let base = v(*base);
            let indices = indices
                .iter()
                .map(|i| GepIndex { value: v(i.value) })
                .collect();
            InstKind::Gep {
                inbounds: *inbounds,
                source_ty: *source_ty,
                base,
                indices,
            }
        }
        InstKind::Call {
            callee,
            ret_ty,
            args,
        } => InstKind::Call {
            callee: *callee,
            ret_ty: *ret_ty,
            args: args.iter().map(|&a| v(a)).collect(),
        },
        InstKind::Mask => InstKind::Mask,
    }
}

fn map_term(
    term: &Terminator,
    v: &mut impl FnMut(Value) -> Value,
    b: &impl Fn(Block) -> Block,
) -> Terminator {
    match term {
        Terminator::Br(l) => Terminator::Br(b(*l)),
        Terminator::CondBr {
            cond,
            if_true,
            if_false,
        } => Terminator::CondBr {
            cond: v(*cond),
            if_true: b(*if_true),
            if_false: b(*if_false),
        },
        Terminator::Switch {
            ty,
            cond,
            default,
            cases,
        } => Terminator::Switch {
            ty: *ty,
            cond: v(*cond),
            default: b(*default),
            cases: cases.iter().map(|(x, l)| (x.clone(), b(*l))).collect(),
        },
        Terminator::Ret(r) => Terminator::Ret(r.map(&mut *v)),
        Terminator::Unreachable => Terminator::Unreachable,
    }
}

/// Re-interns every type of `m` in the fixed walk of [`normalize`].
fn normalize_types(m: &mut Module) {
    let old = std::mem::take(&mut m.types);
    // Dense memo by old handle (a hash lookup per value showed in profiles).
    let mut memo: Vec<Option<Ty>> = Vec::new();
    let mut map = |t: Ty| remap_ty(&old, &mut m.types, &mut memo, t);
    for g in m.globals.keys().collect::<Vec<_>>() {
        m.globals[g].ty = map(m.globals[g].ty);
    }
    for f in m.functions.keys().collect::<Vec<_>>() {
        let func = &mut m.functions[f];
        func.ret_ty = map(func.ret_ty);
        for p in &mut func.params {
            p.ty = map(p.ty);
        }
        let Some(body) = &mut func.body else {
            continue;
        };
        for v in body.values.keys().collect::<Vec<_>>() {
            body.values[v].ty = map(body.values[v].ty);
        }
        for i in body.insts.keys().collect::<Vec<_>>() {
            match &mut body.insts[i].kind {
                InstKind::Phi { ty, .. }
                | InstKind::Binary { ty, .. }
                | InstKind::FNeg { ty, .. }
                | InstKind::ICmp { ty, .. }
                | InstKind::FCmp { ty, .. }
                | InstKind::Select { ty, .. }
                | InstKind::Freeze { ty, .. }
                | InstKind::Alloca { ty, .. }
                | InstKind::Load { ty, .. }
                | InstKind::Store { ty, .. } => *ty = map(*ty),
                InstKind::Cast { from, to, .. } => {
                    *from = map(*from);
                    *to = map(*to);
                }
                InstKind::Gep { source_ty, .. } => *source_ty = map(*source_ty),
                InstKind::Call { ret_ty, .. } => *ret_ty = map(*ret_ty),
                InstKind::Mask => {}
            }
        }
        for b in body.blocks.keys().collect::<Vec<_>>() {
            if let Terminator::Switch { ty, .. } = &mut body.blocks[b].term {
                *ty = map(*ty);
            }
        }
    }
}

fn remap_ty(old: &TypeTable, new: &mut TypeTable, memo: &mut Vec<Option<Ty>>, t: Ty) -> Ty {
    if let Some(&Some(n)) = memo.get(t.0 as usize) {
        return n;
    }
    let data = match old.get(t).clone() {
        TypeData::Array(n, elem) => TypeData::Array(n, remap_ty(old, new, memo, elem)),
        TypeData::Struct { fields, packed } => TypeData::Struct {
            fields: fields
                .into_iter()
                .map(|f| remap_ty(old, new, memo, f))
                .collect(),
            packed,
        },
        other => other,
    };
    let n = new.intern(data);
    if memo.len() <= t.0 as usize {
        memo.resize(t.0 as usize + 1, None);
    }
    memo[t.0 as usize] = Some(n);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How a hasher spreads `names` over the buckets of a power-of-two table of
    /// `2^bits` slots (the low bits pick the slot, as in `std`'s `HashMap`): the
    /// number of distinct slots used and the largest number of names in one slot.
    fn bucket_spread<S: std::hash::BuildHasher>(
        hasher: &S,
        names: impl Iterator<Item = String>,
        bits: u32,
    ) -> (usize, u32) {
        let mask = (1u64 << bits) - 1;
        let mut load = vec![0u32; 1 << bits];
        for name in names {
            let slot = (hasher.hash_one(Cow::<str>::Owned(name)) & mask) as usize;
            load[slot] += 1;
        }
        let used = load.iter().filter(|&&n| n > 0).count();
        (used, load.iter().copied().max().unwrap_or(0))
    }

    /// The symbol tables' hasher spreads structured names like a random function:
    /// 800k names in 2^20 slots use about `2^20 (1 - e^(-800k/2^20))` ≈ 560k slots
    /// with at most a handful per slot. The multiply-only hasher it replaced put
    /// `x1000000`..`x1799999` (which differ only in a word's high bytes) in a few
    /// slots, and `check` on such a file took 40 s instead of half a second.
    #[test]
    fn name_hasher_spreads_structured_names() {
        let reversed = |i: u32| {
            (1_000_000 + i)
                .to_string()
                .chars()
                .rev()
                .collect::<String>()
        };
        let families = [
            (
                "%x1000000..",
                (0..800_000)
                    .map(|i| format!("x{}", 1_000_000 + i))
                    .collect::<Vec<_>>(),
            ),
            ("%vN", (0..800_000).map(|i| format!("v{i}")).collect()),
            (
                "reversed digits",
                (0..800_000).map(|i| format!("x{}", reversed(i))).collect(),
            ),
            (
                "long common prefix",
                (0..800_000)
                    .map(|i| format!("a.very.long.prefix.{i:08}"))
                    .collect(),
            ),
        ];
        for (family, names) in families {
            let (used, max) = bucket_spread(&NameHasher::default(), names.into_iter(), 20);
            assert!(used > 500_000, "{family}: only {used} of 2^20 slots used");
            assert!(max <= 16, "{family}: {max} names share one slot");
        }
    }

    /// Parses `src`, expecting failure; checks the first error's message and that
    /// its span covers exactly `at`, found inside the first occurrence of `context`.
    fn check(src: &str, message: &str, context: &str, at: &str) {
        let errors = match parse(src) {
            Ok(_) => panic!("expected an error for:\n{src}"),
            Err(e) => e,
        };
        let e = &errors[0];
        assert_eq!(e.message, message, "message for:\n{src}");
        let base = src.find(context).unwrap_or(usize::MAX / 2);
        let lo = base + context.find(at).unwrap_or(usize::MAX / 4);
        assert_eq!(
            (e.span.lo as usize, e.span.hi as usize),
            (lo, lo + at.len()),
            "span of '{}' for:\n{src}",
            e.message
        );
    }

    #[test]
    fn undefined_value() {
        check(
            "define i32 @f(i32 %a) {\n  %x = add i32 %a, %t\n  ret i32 %x\n}\n",
            "use of undefined value %t",
            "%t",
            "%t",
        );
    }

    #[test]
    fn undefined_label() {
        check(
            "define void @f() {\nentry:\n  br label %nowhere\n}\n",
            "use of undefined label %nowhere",
            "%nowhere",
            "%nowhere",
        );
    }

    #[test]
    fn redefinition() {
        check(
            "define i32 @f(i32 %a) {\n  %a = add i32 %a, 1\n  ret i32 %a\n}\n",
            "redefinition of %a",
            "%a = ",
            "%a",
        );
    }

    #[test]
    fn type_mismatch() {
        check(
            "define i32 @f(i64 %a) {\n  %x = add i32 %a, 1\n  ret i32 %x\n}\n",
            "%a has type i64, used here as i32",
            "%a, 1",
            "%a",
        );
    }

    #[test]
    fn unsupported_constructs() {
        check(
            "define void @f() {\n  %v = add <4 x i32> zeroinitializer, zeroinitializer\n  ret void\n}\n",
            "unsupported construct: vector type <4 x i32>",
            "<4 x i32>",
            "<4 x i32>",
        );
        check(
            "define void @f() {\n  fence seq_cst\n  ret void\n}\n",
            "unsupported construct: fence",
            "fence",
            "fence",
        );
        check(
            "define void @f(ptr %p) {\n  %v = atomicrmw add ptr %p, i32 1 seq_cst\n  ret void\n}\n",
            "unsupported construct: atomicrmw",
            "atomicrmw",
            "atomicrmw",
        );
        check(
            "define half @f() {\nentry:\n  ret half 0xH0000\n}\n",
            "unsupported construct: half type",
            "half",
            "half",
        );
        check(
            "@g = global i32 0\ndefine i64 @f() {\n  ret i64 ptrtoint (ptr @g to i64)\n}\n",
            "unsupported construct: constant expression ptrtoint",
            "ptrtoint",
            "ptrtoint",
        );
        check(
            "define void @f(ptr %fp) {\n  call void %fp()\n  ret void\n}\n",
            "unsupported construct: indirect call",
            "%fp()",
            "%fp",
        );
    }

    #[test]
    fn calls() {
        check(
            "define void @f() {\n  call void @g()\n  ret void\n}\n",
            "call to undeclared function @g",
            "@g",
            "@g",
        );
        assert!(
            parse("define void @f() {\n  %t = call i32 @pllvm.thread_id()\n  ret void\n}\n")
                .is_ok()
        );
    }

    #[test]
    fn constants() {
        check(
            "define float @f() {\n  ret float 0.1\n}\n",
            "floating-point constant is not exactly representable as float",
            "0.1",
            "0.1",
        );
        check(
            "define i32 @f() {\n  ret i32 1.5\n}\n",
            "floating-point constant used with non-floating-point type i32",
            "1.5",
            "1.5",
        );
        check(
            "define i8 @f() {\n  ret i8 true\n}\n",
            "'true' used with type i8, expected i1",
            "true",
            "true",
        );
    }

    #[test]
    fn structure() {
        check(
            "define void @f() {\nentry:\n  %x = add i32 1, 2\n}\n",
            "block does not end in a terminator",
            "}",
            "}",
        );
        check(
            "define void @f() {\na:\n  %x = add i32 1, 2\n  %p = phi i32 [ 1, %a ]\n  ret void\n}\n",
            "phi must come before the commands of its block",
            "%p",
            "%p",
        );
        check(
            "define void @f() {\na:\n  ret void\na:\n  ret void\n}\n",
            "redefinition of label %a",
            "a:\n  ret void\n}",
            "a:",
        );
    }

    #[test]
    fn errors_resume_at_next_item() {
        let src = "define void @f() {\n  fence seq_cst\n  ret void\n}\ndefine void @g() {\n  ret i32 1.5\n}\n";
        let errors = parse(src).err().unwrap_or_default();
        assert_eq!(errors.len(), 2);
    }

    /// The text of `span` in `src`.
    fn at(src: &str, span: Span) -> &str {
        &src[span.lo as usize..span.hi as usize]
    }

    #[test]
    fn source_map_spans() {
        let src = "define i32 @f(i32 %a, i1 %p) {\nentry:\n  br label %b\nb:\n  predicate %p\n  %x = phi i32 [ %a, %entry ] shadow(7)\n  %y = add i32 %x, 1 total\n  ret i32 %y\n}\n";
        let Ok((m, map)) = parse(src) else {
            panic!("does not parse");
        };
        let f = FuncId(0);
        let spans = map.function(f);
        let Some(body) = &m.functions[f].body else {
            panic!("no body");
        };
        assert_eq!(at(src, spans.header), "@f");
        let b = Block(1);
        assert_eq!(at(src, spans.blocks[b]), "b:");
        assert_eq!(at(src, spans.predicates[b]), "predicate %p");
        assert_eq!(at(src, spans.terms[b]), "ret i32 %y");
        let phi = body.blocks[b].phis[0];
        let add = body.blocks[b].body[0];
        assert_eq!(
            at(src, spans.insts[phi]),
            "%x = phi i32 [ %a, %entry ] shadow(7)"
        );
        assert_eq!(at(src, spans.insts[add]), "%y = add i32 %x, 1 total");
        assert_eq!(
            at(
                src,
                spans
                    .operand_uses
                    .get(&(phi, 0))
                    .copied()
                    .unwrap_or_default()
            ),
            "%a"
        );
        assert_eq!(
            at(
                src,
                spans
                    .operand_uses
                    .get(&(phi, 1))
                    .copied()
                    .unwrap_or_default()
            ),
            "7"
        );
        assert_eq!(
            at(
                src,
                spans
                    .operand_uses
                    .get(&(add, 0))
                    .copied()
                    .unwrap_or_default()
            ),
            "%x"
        );
        assert_eq!(
            at(
                src,
                spans
                    .operand_uses
                    .get(&(add, 1))
                    .copied()
                    .unwrap_or_default()
            ),
            "1"
        );
        let y = body.insts[add].result.unwrap_or(Value(u32::MAX));
        assert_eq!(at(src, spans.values[y]), "%y");
        assert_eq!(at(src, spans.values[Value(1)]), "%p");
    }

    #[test]
    fn lifted_spans() {
        let src = "define i32 @f(i1 %p, i32 %a) {\nentry:\n  br label %h\nh:\n  %x.phi = phi i32 [ %a, %entry ], [ %x, %h ]\n  %x = call i32 @pllvm.shadow.i32(i32 %x.phi, i32 %a)\n  call void @pllvm.predicate(i1 %p)\n  br label %h\n}\n";
        let Ok((m, map)) = parse(src) else {
            panic!("does not parse");
        };
        let spans = map.function(FuncId(0));
        let Some(body) = &m.functions[FuncId(0)].body else {
            panic!("no body");
        };
        let h = Block(1);
        let phi = body.blocks[h].phis[0];
        assert_eq!(
            at(src, spans.predicates[h]),
            "call void @pllvm.predicate(i1 %p)"
        );
        assert_eq!(
            at(
                src,
                spans
                    .operand_uses
                    .get(&(phi, 2))
                    .copied()
                    .unwrap_or_default()
            ),
            "%a"
        );
        let x = body.insts[phi].result.unwrap_or(Value(u32::MAX));
        assert_eq!(body.values[x].name.as_deref(), Some("x"));
        assert_eq!(at(src, spans.values[x]), "%x");
    }

    #[test]
    fn literals_wrap() {
        assert_eq!(parse_int_literal("-1", 8), BigUint::from(255u32));
        assert_eq!(parse_int_literal("256", 8), BigUint::from(0u32));
        assert_eq!(parse_int_literal("-256", 8), BigUint::from(0u32));
        assert_eq!(
            parse_int_literal("-1", 200),
            (BigUint::one() << 200u32) - BigUint::one()
        );
        assert_eq!(f64_bits_to_f32(0x3FF0000000000000), Some(0x3F80_0000));
        assert_eq!(f64_bits_to_f32(0.1f64.to_bits()), None);
        assert_eq!(f32_bits_to_f64(0x7FC0_0000), 0x7FF8_0000_0000_0000);
    }
}
