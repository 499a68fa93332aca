//! Source positions and the rendering of diagnostics (STYLE §5).
//!
//! Tokens carry byte-offset [`Span`]s; a [`LineIndex`] turns them into 1-based
//! `line:column` only when a message is rendered as
//! `file:line:col: error: message`, followed by the source line and a caret.
//! Spans of IR entities live in the side table [`SourceMap`], never in the IR.

use crate::entity::SecondaryMap;
use crate::ir::{Block, FuncId, Inst, Value};
use std::collections::HashMap;
use std::sync::OnceLock;

/// A byte range `lo..hi` of the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub lo: u32,
    /// One past the last byte.
    pub hi: u32,
}

impl Span {
    /// The span `lo..hi`.
    pub fn new(lo: usize, hi: usize) -> Self {
        Span {
            lo: lo as u32,
            hi: hi as u32,
        }
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }
}

/// Line starts of a source text, for turning spans into line and column.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    /// Indexes `src`.
    pub fn new(src: &str) -> Self {
        let mut starts = vec![0];
        for (i, b) in src.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i as u32 + 1);
            }
        }
        LineIndex { starts }
    }
    /// 1-based line and column (in characters) of byte `offset`.
    pub fn line_col(&self, src: &str, offset: u32) -> (usize, usize) {
        let line = match self.starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let start = self.starts[line] as usize;
        let end = (offset as usize).min(src.len());
        let col = src
            .get(start..end)
            .map_or(end - start, |s| s.chars().count());
        (line + 1, col + 1)
    }
    /// The text of 1-based line `line`, without its newline.
    pub fn line_text<'a>(&self, src: &'a str, line: usize) -> &'a str {
        let start = self.starts[line - 1] as usize;
        let end = self.starts.get(line).map_or(src.len(), |&e| e as usize - 1);
        src.get(start..end.max(start))
            .unwrap_or("")
            .trim_end_matches('\r')
    }
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The input is rejected.
    Error,
    /// The input is accepted; the message is information.
    Note,
}

/// One message about one place in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or note.
    pub severity: Severity,
    /// Where.
    pub span: Span,
    /// What, lowercase, no trailing period, naming the definition it relies on.
    pub message: String,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            span,
            message: message.into(),
        }
    }
    /// A note at `span`.
    pub fn note(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Note,
            span,
            message: message.into(),
        }
    }
    /// `file:line:col: error: message`, the source line and a caret under the span.
    pub fn render(&self, file: &str, src: &str) -> String {
        let index = LineIndex::new(src);
        let (line, col) = index.line_col(src, self.span.lo);
        let text = index.line_text(src, line);
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Note => "note",
        };
        let width = {
            let (hl, hc) = index.line_col(src, self.span.hi);
            if hl == line && hc > col { hc - col } else { 1 }
        };
        let pad: String = text
            .chars()
            .take(col - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        format!(
            "{file}:{line}:{col}: {kind}: {}\n{text}\n{pad}{}",
            self.message,
            "^".repeat(width)
        )
    }
    /// `file:line:col` of this diagnostic.
    pub fn location(&self, file: &str, src: &str) -> String {
        let (line, col) = LineIndex::new(src).line_col(src, self.span.lo);
        format!("{file}:{line}:{col}")
    }
}

/// Renders all diagnostics, sorted by position, separated by newlines.
pub fn render_all(diags: &[Diagnostic], file: &str, src: &str) -> String {
    let mut sorted: Vec<&Diagnostic> = diags.iter().collect();
    sorted.sort_by_key(|d| (d.span.lo, d.severity));
    sorted
        .iter()
        .map(|d| d.render(file, src))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where each IR entity of one function came from in the source.
#[derive(Clone, Debug, Default)]
pub struct FunctionSpans {
    /// The `define` line (the function name).
    pub header: Span,
    /// Each block's label.
    pub blocks: SecondaryMap<Block, Span>,
    /// Each block's predicate clause, if written.
    pub predicates: SecondaryMap<Block, Span>,
    /// Each block's terminator.
    pub terms: SecondaryMap<Block, Span>,
    /// Each phi and command (the whole line).
    pub insts: SecondaryMap<Inst, Span>,
    /// Each named value's definition (parameter or result name).
    pub values: SecondaryMap<Value, Span>,
    /// Each use of a value operand, keyed by (instruction, operand index in
    /// [`crate::ir::InstKind::operands`] order).
    pub operand_uses: OperandUses,
}

/// The spans of value-operand uses, keyed by (instruction, operand index): a
/// vector sorted by key, not a hash table (one entry per operand of the
/// program; looked up only when a diagnostic is reported).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OperandUses {
    sorted: Vec<((Inst, usize), Span)>,
}

impl OperandUses {
    /// The table of `uses` in any order; of two uses with one key the later wins.
    pub fn from_uses(mut uses: Vec<((Inst, usize), Span)>) -> Self {
        // Stable, so equal keys keep their order and the last of each run wins.
        uses.sort_by_key(|&(k, _)| k);
        let mut sorted: Vec<((Inst, usize), Span)> = Vec::with_capacity(uses.len());
        for (k, span) in uses {
            match sorted.last_mut() {
                Some(last) if last.0 == k => last.1 = span,
                _ => sorted.push((k, span)),
            }
        }
        OperandUses { sorted }
    }

    fn position(&self, key: &(Inst, usize)) -> Result<usize, usize> {
        self.sorted.binary_search_by_key(key, |&(k, _)| k)
    }

    /// Records the span of a use, replacing an earlier one with the same key.
    pub fn insert(&mut self, key: (Inst, usize), span: Span) {
        match self.position(&key) {
            Ok(at) => self.sorted[at].1 = span,
            Err(at) => self.sorted.insert(at, (key, span)),
        }
    }

    /// The span of the use `key`, if recorded.
    pub fn get(&self, key: &(Inst, usize)) -> Option<&Span> {
        self.position(key).ok().map(|at| &self.sorted[at].1)
    }

    /// How many uses are recorded.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// Whether no use is recorded.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// The uses in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&(Inst, usize), &Span)> {
        self.sorted.iter().map(|(k, s)| (k, s))
    }
}

/// The side table of spans for a parsed module.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// Per function.
    pub functions: HashMap<FuncId, FunctionSpans>,
}

impl SourceMap {
    /// The spans of `func`, borrowed (an empty table for functions built in memory).
    pub fn function(&self, func: FuncId) -> &FunctionSpans {
        static NO_SPANS: OnceLock<FunctionSpans> = OnceLock::new();
        match self.functions.get(&func) {
            Some(spans) => spans,
            None => NO_SPANS.get_or_init(FunctionSpans::default),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(src: &str, span: Span, expect: &str) {
        let d = Diagnostic::error(span, "use of undefined value %t");
        assert_eq!(d.render("a.ll", src), expect);
    }

    #[test]
    fn renders_line_col_and_caret() {
        check(
            "define void @f() {\n  %x = add i32 %t, 1\n}\n",
            Span::new(33, 35),
            "a.ll:2:15: error: use of undefined value %t\n  %x = add i32 %t, 1\n              ^^",
        );
        check(
            "x",
            Span::new(1, 1),
            "a.ll:1:2: error: use of undefined value %t\nx\n ^",
        );
    }
}
