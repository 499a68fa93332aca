//! The parser's state and its token cursor: [`Parser`] (one per file), the state of
//! the function being read ([`FnState`]), the items of pass 1, the words the
//! grammar reserves, and the small helpers every concern of the parser shares
//! (docs/language.md, "Grammar accepted"). The concerns add their methods to
//! [`Parser`] in their own modules.

use crate::diag::{FunctionSpans, SourceMap, Span};
use crate::entity::PrimaryMap;
use crate::ir::{
    BinOp, Block, BlockData, Body, CastOp, FuncId, GlobalId, Inst, InstKind, Module, Terminator,
    Value,
};
use crate::text::error::ParseError;
use crate::text::lexer::{self, Tok, Token};
use crate::types::Ty;
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
pub(super) type FastMap<K, V> = HashMap<K, V, NameHasher>;

/// How deeply types and initializers may nest (keeps recursion bounded on any input).
pub(super) const MAX_DEPTH: usize = 64;

/// Instructions of LLVM IR outside the P-LLVM subset: parsing them is an error that
/// names them, never a misread.
pub(super) const UNSUPPORTED_OPCODES: &[&str] = &[
    "invoke",
    "landingpad",
    "resume",
    "va_arg",
    "indirectbr",
    "callbr",
    "catchswitch",
    "catchret",
    "cleanupret",
    "catchpad",
    "cleanuppad",
];

/// Types of LLVM IR outside the subset.
pub(super) const UNSUPPORTED_TYPES: &[&str] = &[
    "fp128",
    "x86_fp80",
    "ppc_fp128",
    "x86_amx",
    "x86_mmx",
    "metadata",
    "opaque",
    "target",
];

/// Fast-math flags: accepted and dropped (P-LLVM floats are IEEE, §4.9).
pub(super) const FAST_MATH_FLAGS: &[&str] = &[
    "fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc",
];

/// Parameter attributes whose argument is a type (`byval(T)`); the type is parsed
/// and re-rendered, so the attribute names no named type.
pub(super) const TYPE_ATTRS: &[&str] = &[
    "byval",
    "sret",
    "byref",
    "preallocated",
    "inalloca",
    "elementtype",
];

/// Words that start a value, so that they end a run of call-argument attributes.
pub(super) const VALUE_WORDS: &[&str] = &[
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
pub(super) fn is_reserved(name: &str) -> bool {
    name == PREDICATE_FN || name == MASK_FN || name.starts_with(SHADOW_FN_PREFIX)
}

/// Whether `name` is `prefix` followed by digits: a name the printer invents for an
/// unnamed value (`_7`) or block (`_b3`), read back as "no name".
pub(crate) fn is_invented_name(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// How a value name is stored: invented names become `None`.
pub(super) fn stored_value_name(name: &str) -> Option<String> {
    if is_invented_name(name, "_") {
        None
    } else {
        Some(name.to_string())
    }
}

/// How a block name is stored: invented names become empty.
pub(super) fn stored_block_name(name: &str) -> String {
    if is_invented_name(name, "_b") {
        String::new()
    } else {
        name.to_string()
    }
}

/// Whether `w` starts an instruction or is a P-LLVM keyword, so that it ends the
/// function attributes after a call.
pub(super) fn is_statement_word(w: &str) -> bool {
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
                | "extractelement"
                | "insertelement"
                | "shufflevector"
                | "extractvalue"
                | "insertvalue"
                | "atomicrmw"
                | "cmpxchg"
                | "fence"
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
pub(super) fn is_cconv(w: &str) -> bool {
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
pub(super) fn int_type_width(w: &str) -> Option<&str> {
    let digits = w.strip_prefix('i')?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

/// Collapses runs of white space (for attributes kept verbatim).
pub(super) fn squash(text: &str) -> String {
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
pub(super) enum ItemKind {
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
pub(super) struct Item {
    pub(super) kind: ItemKind,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// What one statement of a block turned out to be.
pub(super) enum Stmt {
    Phi(Inst),
    Command(Inst),
    Lifted,
    Term(Terminator, Span),
}

/// An instruction before it is placed (or a lowering to lift).
pub(super) enum Parsed {
    Inst { kind: InstKind, ty: Ty },
    Predicate(Value),
    Shadow { phi: Value, shadow: Value, ty: Ty },
}

/// A use of an operand: instruction, operand index, span (collected as a list and
/// keyed into [`FunctionSpans::operand_uses`] once, in normal form).
pub(super) type OperandUse = (Inst, usize, Span);

/// Per-function parsing state: the body under construction and its symbol tables.
pub(super) struct FnState<'s> {
    pub(super) body: Body,
    pub(super) spans: FunctionSpans,
    pub(super) values: FastMap<Cow<'s, str>, Value>,
    pub(super) pending_values: FastMap<Value, Span>,
    pub(super) blocks: FastMap<Cow<'s, str>, Block>,
    pub(super) pending_blocks: FastMap<Block, Span>,
    pub(super) aliases: HashMap<Value, Value>,
    pub(super) operand_uses: Vec<OperandUse>,
    pub(super) next_number: u64,
    pub(super) params: Vec<Value>,
}

impl FnState<'_> {
    pub(super) fn new() -> Self {
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
    pub(super) fn reserve(&mut self, toks: &[Token]) {
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
    pub(super) fn saw_name(&mut self, name: &str) {
        let numeric = !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit());
        let number = name.parse::<u64>().ok().filter(|_| numeric);
        if let Some(n) = number {
            self.next_number = self.next_number.max(n.saturating_add(1));
        }
    }
}

/// The module parser: tokens, a cursor bounded to the current item, and the module.
pub(super) struct Parser<'s> {
    pub(super) src: &'s str,
    pub(super) toks: Vec<Token>,
    pub(super) pos: usize,
    pub(super) end: usize,
    pub(super) module: Module,
    pub(super) globals: FastMap<String, GlobalId>,
    pub(super) funcs: FastMap<String, FuncId>,
    pub(super) type_defs: HashMap<String, (usize, usize)>,
    pub(super) named_types: HashMap<String, Ty>,
    pub(super) resolving: Vec<String>,
    pub(super) source_map: SourceMap,
    pub(super) errors: Vec<ParseError>,
    pub(super) operand_spans: Vec<Span>,
    /// How many constant expressions enclose the one being parsed.
    pub(super) const_depth: usize,
}

impl<'s> Parser<'s> {
    // ----- cursor -------------------------------------------------------------

    pub(super) fn peek(&self) -> Tok {
        self.peek_at(0)
    }

    pub(super) fn peek_at(&self, n: usize) -> Tok {
        let i = self.pos + n;
        if i < self.end {
            self.toks[i].kind
        } else {
            Tok::Eof
        }
    }

    pub(super) fn cur(&self) -> Token {
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

    pub(super) fn text(&self) -> &'s str {
        let t = self.cur();
        if t.kind == Tok::Eof {
            ""
        } else {
            lexer::text(self.src, &t)
        }
    }

    pub(super) fn text_at(&self, n: usize) -> &'s str {
        let i = self.pos + n;
        if i < self.end {
            lexer::text(self.src, &self.toks[i])
        } else {
            ""
        }
    }

    pub(super) fn bump(&mut self) -> Token {
        let t = self.cur();
        if self.pos < self.end {
            self.pos += 1;
        }
        t
    }

    /// The span of the last consumed token.
    pub(super) fn prev_span(&self) -> Span {
        if self.pos > 0 {
            self.toks[self.pos - 1].span
        } else {
            Span::default()
        }
    }

    pub(super) fn is_word(&self, w: &str) -> bool {
        self.peek() == Tok::Word && self.text() == w
    }

    pub(super) fn eat(&mut self, kind: Tok) -> bool {
        if self.peek() == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(super) fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(super) fn found(&self) -> String {
        match self.peek() {
            Tok::Eof => "end of input".to_string(),
            _ => format!("'{}'", self.text()),
        }
    }

    pub(super) fn err(&self, message: impl Into<String>) -> ParseError {
        ParseError::new(self.cur().span, message)
    }

    pub(super) fn expected(&self, what: &str) -> ParseError {
        self.err(format!("expected {what}, found {}", self.found()))
    }

    /// Whether the current token starts a later line than the last consumed one:
    /// an operand that should follow is missing at the end of that line.
    pub(super) fn on_a_later_line(&self) -> bool {
        let (prev, cur) = (self.prev_span(), self.cur().span);
        self.pos > 0
            && self.peek() != Tok::Eof
            && self
                .src
                .get(prev.hi as usize..cur.lo as usize)
                .is_some_and(|gap| gap.contains('\n'))
    }

    /// "expected {what}" for an operand: at the end of the last consumed token
    /// when the current one is on a later line (`add i32 %x,` then `ret` on the
    /// next line: the value is missing after the comma, not at the `ret`).
    pub(super) fn expected_operand(&self, what: &str) -> ParseError {
        if self.on_a_later_line() {
            let prev = self.prev_span();
            let last = lexer::text(self.src, &self.toks[self.pos - 1]);
            return ParseError::new(
                Span::new(prev.hi as usize, prev.hi as usize),
                format!("expected {what} after '{last}' at the end of the line"),
            );
        }
        self.expected(what)
    }

    pub(super) fn expect(&mut self, kind: Tok, what: &str) -> Result<Token, ParseError> {
        if self.peek() == kind {
            Ok(self.bump())
        } else {
            Err(self.expected(what))
        }
    }

    pub(super) fn expect_word(&mut self, w: &str) -> Result<Token, ParseError> {
        if self.is_word(w) {
            Ok(self.bump())
        } else {
            Err(self.expected(&format!("'{w}'")))
        }
    }

    pub(super) fn expect_u64(&mut self, what: &str) -> Result<u64, ParseError> {
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
    pub(super) fn skip_balanced(&mut self) -> Result<(), ParseError> {
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
    pub(super) fn text_since(&self, lo: Span) -> &'s str {
        let hi = self.prev_span().hi.max(lo.lo);
        self.src.get(lo.lo as usize..hi as usize).unwrap_or("")
    }
}

/// A decimal literal (optionally signed) reduced modulo 2^width.
pub(super) fn parse_int_literal(text: &str, width: u32) -> BigUint {
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

pub(super) fn empty_block(name: String) -> BlockData {
    BlockData {
        name,
        predicate: None,
        phis: Vec::new(),
        body: Vec::new(),
        term: Terminator::Unreachable,
    }
}
