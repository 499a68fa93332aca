//! Loading a program with its source positions ([`load`]) and rendering what a
//! run of it did at those positions ([`Source`]).

use crate::default_program;
use crate::errors::Rendered;
use anyhow::{Result, anyhow};
use pllvm_interp::RunError;
use pllvm_semantics::diag::{Diagnostic, LineIndex, SourceMap, render_all};
use pllvm_semantics::ir::{FuncId, Module};
use pllvm_semantics::rules::{Program, Ub};
use pllvm_semantics::text;
use pllvm_semantics::verify::verify_module;
use std::path::PathBuf;

/// The version of `pllvm run --trace json`'s document (and of `run --grid
/// --json`'s): it changes when a field is renamed or removed or its meaning
/// changes, not when a field is added. [`Source::ub_json`] writes its
/// `undefined` object.
pub(crate) const RUN_SCHEMA: &str = "pllvm-run/1";

/// Reads, parses and verifies a file (or the embedded default), rendering every
/// diagnostic with file:line:col.
pub(crate) fn load(file: &Option<PathBuf>) -> Result<(Module, SourceMap, String, String)> {
    let (name, src) = match file {
        Some(p) => {
            // Read with a bound, a device refused (docs/cli.md "Conventions").
            let name = if p.as_os_str() == "-" {
                "<stdin>".to_string()
            } else {
                p.display().to_string()
            };
            let bytes = crate::host::read_whole(p, "the program").map_err(|e| anyhow!(e))?;
            let src = text::decode_source(bytes)
                .map_err(|e| Rendered(e.error.to_diagnostic().render(&name, &e.text)))?;
            (name, src)
        }
        None => (
            default_program::CHECK_NAME.to_string(),
            default_program::CHECK_SOURCE.to_string(),
        ),
    };
    let (module, spans) = text::parse_module(&src).map_err(|errors| {
        let diags: Vec<Diagnostic> = errors.iter().map(|e| e.to_diagnostic()).collect();
        Rendered(render_all(&diags, &name, &src))
    })?;
    let report = verify_module(&module, &spans);
    if !report.errors.is_empty() {
        return Err(Rendered(render_all(&report.errors, &name, &src)).into());
    }
    Ok((module, spans, name, src))
}

/// The program text a run came from, for rendering its outcomes at
/// `file:line:col` (positions from the side table [`SourceMap`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Source<'a> {
    /// The file name as the user gave it (`<stdin>` for `-`).
    pub name: &'a str,
    /// The text.
    pub src: &'a str,
    /// The spans of the parsed module.
    pub spans: &'a SourceMap,
}

impl Source<'_> {
    /// The undefined behaviour `ub` of a run of `func`, rendered like the
    /// verifier's errors: `file:line:col: error: undefined behaviour in lane τ: ...`,
    /// the source line with a caret, and `help: [RULE], thesis §…`.
    pub(crate) fn render_ub(&self, func: FuncId, ub: &Ub) -> String {
        ub.diagnostic(self.spans.function(func))
            .render(self.name, self.src)
    }

    /// A run error: a stuck step rendered at its scheduled block like the
    /// verifier's errors (with its rule as `help:`), anything else as it is.
    pub(crate) fn run_error(&self, func: FuncId, e: RunError) -> anyhow::Error {
        match e {
            RunError::Stuck(s) => Rendered(
                s.diagnostic(self.spans.function(func))
                    .render(self.name, self.src),
            )
            .into(),
            other => anyhow!(other),
        }
    }

    /// [`Source::ub_json`] for undefined behaviour in a run of `func`.
    pub(crate) fn ub_json_of(&self, module: &Module, func: FuncId, ub: &Ub) -> serde_json::Value {
        let diagnostic = ub.diagnostic(self.spans.function(func));
        let (line, col) = LineIndex::new(self.src).line_col(self.src, diagnostic.span.lo);
        let block = module.functions[func]
            .body
            .as_ref()
            .map(|body| body.blocks[ub.block].name.clone());
        serde_json::json!({
            "rule": ub.rule.name(),
            "thesis": ub.rule.thesis(),
            "lane": ub.lane,
            "block": block,
            "file": self.name,
            "line": line,
            "col": col,
            "message": ub.message,
        })
    }

    /// The position and rule of undefined behaviour, as the fields of the
    /// `undefined` object of `run --trace json` (schema `pllvm-run/1`).
    pub(crate) fn ub_json(&self, program: &Program<'_>, ub: &Ub) -> serde_json::Value {
        let diagnostic = ub.diagnostic(self.spans.function(program.func));
        let (line, col) = LineIndex::new(self.src).line_col(self.src, diagnostic.span.lo);
        serde_json::json!({
            "rule": ub.rule.name(),
            "thesis": ub.rule.thesis(),
            "lane": ub.lane,
            "block": program.block_name(ub.block),
            "file": self.name,
            "line": line,
            "col": col,
            "message": ub.message,
        })
    }
}
