//! Colour for the REPL's output: ANSI colours when stdout is a terminal and
//! `NO_COLOR` is unset, plain text otherwise (scripts and golden tests read plain
//! text, so what a script sees is exactly what the colours decorate).

use std::io::IsTerminal;

/// What a piece of output is, which decides its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// Headings and table headers.
    Heading,
    /// Block names.
    Block,
    /// Value names.
    Value,
    /// Errors and refusals.
    Error,
    /// Secondary notes.
    Note,
    /// Good news: a program returned, a block is legal.
    Good,
    /// The prompt.
    Prompt,
}

/// Whether to colour output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Style {
    /// ANSI colours on.
    pub color: bool,
}

impl Style {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset or empty
    /// (<https://no-color.org>).
    pub(super) fn detect() -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            color: !no_color && std::io::stdout().is_terminal(),
        }
    }

    /// `text` in the colour of `role` (unchanged when colours are off).
    pub(super) fn paint(&self, role: Role, text: &str) -> String {
        if !self.color || text.is_empty() {
            return text.to_string();
        }
        let code = match role {
            Role::Heading => "1",
            Role::Block => "36",
            Role::Value => "35",
            Role::Error => "1;31",
            Role::Note => "2",
            Role::Good => "32",
            Role::Prompt => "1;34",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}
