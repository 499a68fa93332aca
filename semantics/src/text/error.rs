//! The error of the text format: [`ParseError`], a syntax error or a construct
//! outside the subset of docs/language.md, at its source range. The lexer, the
//! parser and the loaders of [`crate::text`] report it.

use crate::diag::{Diagnostic, Span};
use std::fmt;

/// A syntax error: where, and what is wrong (lowercase, no trailing period).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The offending source range.
    pub span: Span,
    /// What is wrong.
    pub message: String,
}

impl ParseError {
    /// An error at `span`.
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        ParseError {
            span,
            message: message.into(),
        }
    }
    /// The error as a [`Diagnostic`], for rendering as `file:line:col: error: ...`.
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.span, self.message.clone())
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (bytes {}..{})",
            self.message, self.span.lo, self.span.hi
        )
    }
}

impl std::error::Error for ParseError {}
