//! The line editor's helper (rustyline): tab completion of command names, block
//! names, `%value` names, `@global` names, settings and file paths, and colouring
//! of the command word as it is typed (green when known, red when not).

use super::command::{self, ArgKind, COMMANDS, SETTINGS};
use rustyline::Context;
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use std::borrow::Cow;

/// What completion offers: the names of the loaded program.
#[derive(Default)]
pub(super) struct ReplHelper {
    /// Block names in layout order.
    pub blocks: Vec<String>,
    /// Named values (without `%`).
    pub values: Vec<String>,
    /// Globals (without `@`).
    pub globals: Vec<String>,
    /// Colour the input line and the prompt.
    pub color: bool,
    files: FilenameCompleter,
}

impl ReplHelper {
    /// A helper for a program with these names.
    pub(super) fn new(color: bool) -> ReplHelper {
        ReplHelper {
            color,
            ..ReplHelper::default()
        }
    }

    /// The candidates for the word `word`, which is argument number `index` (0 is
    /// the command itself) of a line whose earlier words are `words`.
    pub(super) fn candidates(&self, words: &[&str], index: usize, word: &str) -> Vec<Pair> {
        let pairs = |names: &mut dyn Iterator<Item = String>, suffix: &str| -> Vec<Pair> {
            names
                .filter(|n| n.starts_with(word))
                .map(|n| Pair {
                    display: n.clone(),
                    replacement: format!("{n}{suffix}"),
                })
                .collect()
        };
        if index == 0 {
            return pairs(&mut COMMANDS.iter().map(|c| c.name.to_string()), " ");
        }
        let Some(spec) = words.first().and_then(|w| command::lookup(w)) else {
            return Vec::new();
        };
        let values = || self.values.iter().map(|v| format!("%{v}"));
        let blocks = || self.blocks.iter().cloned();
        match spec.args {
            ArgKind::Nothing | ArgKind::File => Vec::new(),
            ArgKind::Block => pairs(&mut blocks(), ""),
            ArgKind::Value => pairs(&mut values(), ""),
            ArgKind::BlockOrValue => {
                if word.starts_with('%') {
                    pairs(&mut values(), "")
                } else {
                    pairs(&mut blocks(), "")
                }
            }
            ArgKind::Address => pairs(
                &mut self.globals.iter().map(|g| format!("@{g}")).chain(values()),
                "",
            ),
            ArgKind::Command => pairs(&mut COMMANDS.iter().map(|c| c.name.to_string()), ""),
            ArgKind::Setting => match index {
                1 => pairs(&mut SETTINGS.iter().map(|s| s.to_string()), " "),
                2 => {
                    let options: &[&str] = match words.get(1).copied() {
                        Some("interp") => &["fr", "obl"],
                        Some("exec") => &["reference", "fast"],
                        Some("sched") => super::policy::POLICY_NAMES,
                        Some("strict") => &["on", "off"],
                        _ => &[],
                    };
                    pairs(&mut options.iter().map(|s| s.to_string()), "")
                }
                _ => Vec::new(),
            },
        }
    }
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = line.get(..pos).unwrap_or(line);
        let start = before.rfind(char::is_whitespace).map_or(0, |k| {
            k + before[k..].chars().next().map_or(1, char::len_utf8)
        });
        let words: Vec<&str> = before[..start].split_whitespace().collect();
        let index = words.len();
        if index > 0 && command::lookup(words[0]).is_some_and(|c| c.args == ArgKind::File) {
            return self.files.complete(line, pos, ctx);
        }
        Ok((start, self.candidates(&words, index, &before[start..])))
    }
}

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        if !self.color {
            return Cow::Borrowed(line);
        }
        let trimmed = line.trim_start();
        let lead = line.len() - trimmed.len();
        let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
        let word = &trimmed[..end];
        if word.is_empty() || word.starts_with('#') {
            return Cow::Borrowed(line);
        }
        let code = if command::lookup(word).is_some() {
            "32"
        } else {
            "31"
        };
        Cow::Owned(format!(
            "{}\x1b[{code}m{word}\x1b[0m{}",
            &line[..lead],
            &trimmed[end..]
        ))
    }

    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(
        &'s self,
        prompt: &'p str,
        default: bool,
    ) -> Cow<'b, str> {
        if self.color && default {
            Cow::Owned(format!("\x1b[1;34m{prompt}\x1b[0m"))
        } else {
            Cow::Borrowed(prompt)
        }
    }

    fn highlight_char(&self, _line: &str, _pos: usize, _kind: CmdKind) -> bool {
        self.color
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Validator for ReplHelper {}

impl rustyline::Helper for ReplHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: &str, expect: &[&str]) {
        let helper = ReplHelper {
            blocks: vec!["A".into(), "B".into(), "Body".into()],
            values: vec!["x".into(), "p".into(), "phi".into()],
            globals: vec!["buf".into()],
            ..ReplHelper::default()
        };
        let before = line;
        let start = before.rfind(' ').map_or(0, |k| k + 1);
        let words: Vec<&str> = before[..start].split_whitespace().collect();
        let got: Vec<String> = helper
            .candidates(&words, words.len(), &before[start..])
            .into_iter()
            .map(|p| p.replacement)
            .collect();
        assert_eq!(got, expect, "{line}");
    }

    #[test]
    fn completes_commands_blocks_values_settings() {
        check("he", &["help "]);
        check("sa", &["save-trace "]);
        check("sched B", &["B", "Body"]);
        check("sched Bo", &["Body"]);
        check("print %p", &["%p", "%phi"]);
        check("break %x", &["%x"]);
        check("break A", &["A"]);
        check("mem @", &["@buf"]);
        check("set in", &["interp "]);
        check("set interp o", &["obl"]);
        check("help st", &["step", "state"]);
        check("frob x", &[]);
        check("step ", &[]);
    }
}
