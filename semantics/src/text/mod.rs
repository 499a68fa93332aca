//! The P-LLVM text format: parser, canonical printer and the lowering to plain LLVM IR.
//!
//! P-LLVM text is LLVM IR text (the subset of `docs/language.md`) with the
//! data-parallel additions of thesis Fig. 4.2 (§4.1): the block predicate
//! `val_msk` (`predicate %p` after the label), the `total` modifier
//! ([W-CMD-TOTAL], also written `%a := ...` as in Fig. 4.13b), the shadow operand of
//! phis (`shadow(v)`, §4.8) and `mask()` ([W-CMD-MASK]).
//!
//! - [`parse_module`] reads a file into a [`Module`] and a [`SourceMap`]. The module
//!   it returns is in *normal form* (see [`normal_form`]): blocks, instructions and
//!   values are numbered in layout order and types are interned in a fixed walk, so
//!   that `parse(print(m)) == m` holds structurally for every module the parser
//!   returns, and `parse(print(m)) == normal_form(m)` for modules built in memory.
//! - [`print_module`] prints the canonical text; [`print_function`],
//!   [`print_inst`] and [`print_value`] print pieces for traces and messages.
//! - [`export_llvm`] lowers the additions to plain LLVM IR that `opt-22` accepts;
//!   the parser lifts that lowering back, so `parse(export(m)) == parse(print(m))`.

mod error;
mod export;
mod lexer;
mod parser;
mod printer;

use crate::diag::{SourceMap, Span};
use crate::ir::{Body, FuncId, Inst, Module, Value};

pub use error::ParseError;
pub(crate) use parser::NameHasher;
pub use parser::normal_form;

/// A source file that is not UTF-8: the error at its first bad byte, and the file
/// decoded with each bad sequence replaced by `�` (the bytes before the error are
/// unchanged, so the error's span is right in it) to render the error against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotUtf8 {
    /// `invalid UTF-8 byte 0x..` at the first byte that is not UTF-8.
    pub error: ParseError,
    /// The file with bad sequences replaced, for [`crate::diag::Diagnostic::render`].
    pub text: String,
}

/// Decodes the bytes of a `.ll` file. The text format is UTF-8, as LLVM IR's is
/// (names and string constants may hold any character); a byte that is not UTF-8
/// is an error at its own position, not a failure to read the file.
pub fn decode_source(bytes: Vec<u8>) -> Result<String, NotUtf8> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let byte = e.as_bytes().get(at).copied().unwrap_or_default();
        let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
        // The replacement character `�` stands for the bad sequence in `text`.
        let span = Span::new(at, at + char::REPLACEMENT_CHARACTER.len_utf8());
        NotUtf8 {
            error: ParseError::new(span, format!("invalid UTF-8 byte 0x{byte:02x}")),
            text,
        }
    })
}

/// Parses a whole `.ll` file. On failure, returns every error found (at most one
/// per top-level entity: the parser resumes at the next `define`, global, ...),
/// sorted by position.
pub fn parse_module(src: &str) -> Result<(Module, SourceMap), Vec<ParseError>> {
    parser::parse(src)
}

/// The canonical text of a module: header lines, globals, then functions in order.
pub fn print_module(m: &Module) -> String {
    printer::Printer::new(m, printer::Mode::Canonical).module()
}

/// The canonical text of one function (`define ... { ... }` or `declare ...`).
pub fn print_function(m: &Module, f: FuncId) -> String {
    printer::Printer::new(m, printer::Mode::Canonical).function(f)
}

/// A value as an operand is spelled: `%x`, `7`, `true`, `null`, `@g`, `undef` ...
pub fn print_value(m: &Module, body: &Body, v: Value) -> String {
    printer::Printer::new(m, printer::Mode::Canonical).value(body, v)
}

/// One phi or command on one line, without indentation, in canonical form.
pub fn print_inst(m: &Module, body: &Body, i: Inst) -> String {
    printer::Printer::new(m, printer::Mode::Canonical).inst(body, i)
}

/// Plain LLVM IR for `m` that `opt-22 -passes=verify` accepts: block predicates
/// become `call void @pllvm.predicate(i1 %p)`, `total` the attachment
/// `!pllvm.total !0`, a shadow phi `%x` becomes `%x.phi = phi ...` plus
/// `%x = call T @pllvm.shadow.<T>(T %x.phi, T shadow)`, and `mask()` becomes
/// `call i1 @pllvm.mask()` (see `docs/language.md`, "Export").
pub fn export_llvm(m: &Module) -> String {
    export::export_llvm(m)
}
