//! Source positions and the rendering of diagnostics (docs/design/style.md §5).
//!
//! Tokens carry byte-offset [`Span`]s; a [`LineIndex`] turns them into 1-based
//! `line:column` only when a message is rendered as
//! `file:line:col: error: message`, followed by the source line and a caret.
//! Spans of IR entities live in the side table [`SourceMap`], never in the IR.

use crate::entity::SecondaryMap;
use crate::ir::{Block, FuncId, Inst, Value};
use std::borrow::Cow;
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
    /// A last line `help: ...` after the caret (the rule and thesis place of an
    /// outcome, say), if any.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            span,
            message: message.into(),
            help: None,
        }
    }
    /// A note at `span`.
    pub fn note(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Note,
            span,
            message: message.into(),
            help: None,
        }
    }
    /// The same, followed by the line `help: {help}`.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    /// `file:line:col: error: message`, the source line and a caret under the span
    /// (a long line cut to a window around the caret, see `excerpt`), then
    /// `help: ...` if the diagnostic has a help line.
    pub fn render(&self, file: &str, src: &str) -> String {
        self.render_indexed(&LineIndex::new(src), file, src)
    }
    /// [`Diagnostic::render`] with the line index of `src` built once by the caller.
    fn render_indexed(&self, index: &LineIndex, file: &str, src: &str) -> String {
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
        let (shown, pad, carets) = excerpt(text, col - 1, width);
        let help = self
            .help
            .as_ref()
            .map_or_else(String::new, |h| format!("\nhelp: {h}"));
        format!(
            "{file}:{line}:{col}: {kind}: {}\n{shown}\n{pad}{}{help}",
            self.message,
            "^".repeat(carets)
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
    let index = LineIndex::new(src);
    sorted
        .iter()
        .map(|d| d.render_indexed(&index, file, src))
        .collect::<Vec<_>>()
        .join("\n")
}

/// How many characters of a source line a diagnostic shows at most.
pub const MAX_SHOWN_CHARS: usize = 100;

/// How many characters a cut line shows before the caret.
const SHOWN_BEFORE_CARET: usize = 40;

/// The part of the source line `text` a diagnostic shows, the padding that puts the
/// caret under character `col` (0-based) and the number of carets for a span of
/// `width` characters. A line of at most [`MAX_SHOWN_CHARS`] characters is shown
/// whole; a longer one is cut to a window of that many characters around the
/// caret, with `…` where it was cut (the location printed before it keeps the real
/// column). Tabs in the padding stay tabs, so the caret lines up in a terminal.
fn excerpt(text: &str, col: usize, width: usize) -> (Cow<'_, str>, String, usize) {
    let total = text.chars().count();
    let (start, end) = if total <= MAX_SHOWN_CHARS {
        (0, total)
    } else {
        let start = col
            .saturating_sub(SHOWN_BEFORE_CARET)
            .min(total - MAX_SHOWN_CHARS);
        (start, start + MAX_SHOWN_CHARS)
    };
    let byte = |c: usize| text.char_indices().nth(c).map_or(text.len(), |(b, _)| b);
    let (lo, hi) = (byte(start), byte(end));
    let shown = if (start, end) == (0, total) {
        Cow::Borrowed(text)
    } else {
        let before = if start > 0 { "…" } else { "" };
        let after = if end < total { "…" } else { "" };
        Cow::Owned(format!("{before}{}{after}", &text[lo..hi]))
    };
    let mut pad = String::from(if start > 0 { " " } else { "" });
    pad.extend(
        text[lo..]
            .chars()
            .take(col.saturating_sub(start))
            .map(|c| if c == '\t' { '\t' } else { ' ' }),
    );
    let carets = width.min(end.saturating_sub(col)).max(1);
    (shown, pad, carets)
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

    /// The character above the first caret of a rendered diagnostic, and the
    /// number of carets (a rendering is location, shown line, caret line).
    fn under_caret(rendered: &str) -> (Option<char>, usize) {
        let lines: Vec<&str> = rendered.lines().collect();
        let caret_at = lines[2].chars().take_while(|&c| c != '^').count();
        let carets = lines[2].chars().filter(|&c| c == '^').count();
        (lines[1].chars().nth(caret_at), carets)
    }

    #[test]
    fn a_long_line_is_cut_around_the_caret_and_keeps_its_column() {
        // A 10k-character line with `%t` at character 6001 (column 6002).
        let line = format!("{}%t{}", "a".repeat(6000), "b".repeat(4000));
        let lo = 6000;
        let d = Diagnostic::error(Span::new(lo, lo + 2), "use of undefined value %t");
        let rendered = d.render("a.ll", &line);
        let lines: Vec<&str> = rendered.lines().collect();
        assert_eq!(lines[0], "a.ll:1:6001: error: use of undefined value %t");
        let shown = lines[1].chars().count();
        assert!(shown <= MAX_SHOWN_CHARS + 2, "shows {shown} characters");
        assert!(
            lines[1].starts_with('…') && lines[1].ends_with('…'),
            "{}",
            lines[1]
        );
        assert_eq!(under_caret(&rendered), (Some('%'), 2));
    }

    #[test]
    fn cuts_at_either_end_of_a_long_line_keep_the_caret_in_place() {
        let line = format!("%t{}%u", "é".repeat(10_000));
        let at_start = Diagnostic::error(Span::new(0, 2), "e").render("a.ll", &line);
        assert!(at_start.starts_with("a.ll:1:1: error: e\n%t"), "{at_start}");
        assert!(at_start.lines().nth(1).is_some_and(|l| l.ends_with('…')));
        assert_eq!(under_caret(&at_start), (Some('%'), 2));
        let lo = line.len() - 2;
        let at_end = Diagnostic::error(Span::new(lo, lo + 2), "e").render("a.ll", &line);
        assert!(at_end.starts_with("a.ll:1:10003: error: e\n…"), "{at_end}");
        assert!(at_end.lines().nth(1).is_some_and(|l| l.ends_with("%u")));
        assert_eq!(under_caret(&at_end), (Some('%'), 2));
        // A span longer than the window gets carets to the window's end only.
        let all = Diagnostic::error(Span::new(0, line.len()), "e").render("a.ll", &line);
        assert_eq!(under_caret(&all), (Some('%'), MAX_SHOWN_CHARS));
    }
}
