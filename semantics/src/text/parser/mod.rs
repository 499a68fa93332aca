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
//! 3. calls to functions defined in the module are inlined (`inline`), and the
//!    result is put in normal form ([`normal_form`]).
//!
//! The P-LLVM additions are read in both spellings: the canonical one (`predicate`,
//! `total`, `:=`, `shadow(v)`, `mask()`) and the export lowering of
//! `super::export` (`@pllvm.predicate`, `!pllvm.total`, `@pllvm.shadow.*`,
//! `@pllvm.mask`), which is lifted back to the same IR.
//!
//! Submodules by concern: `items` (passes 1 and 2), `types`, `constants`, `cexpr`
//! (constant expressions),
//! `globals`, `function` (signatures, bodies, statements, terminators), `inst`
//! (instructions), `inline` (calls to defined functions) and `normal` (the normal
//! form).

mod cexpr;
mod constants;
mod cursor;
mod function;
mod globals;
mod inline;
mod inst;
mod items;
mod normal;
#[cfg(test)]
mod tests;
mod types;

use crate::diag::{SourceMap, Span};
use crate::ir::Module;
use crate::text::error::ParseError;
use crate::text::lexer;
use cursor::{FastMap, Parser};
pub(crate) use cursor::{
    MASK_FN, NameHasher, PREDICATE_FN, SHADOW_FN_PREFIX, f32_bits_to_f64, wrap_to_width,
};
pub(crate) use inst::{binary_flags, cast_flags};
pub use normal::normal_form;
use normal::{inline_asm_last, normalize_types};
use std::collections::HashMap;

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
        const_depth: 0,
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
    p.mark_nvvm_kernels(&items);
    p.mark_convergent_functions(&items);
    if p.errors.is_empty() {
        p.inline_defined_calls();
    }
    if !p.errors.is_empty() {
        p.errors.sort_by_key(|e| (e.span.lo, e.span.hi));
        return Err(p.errors);
    }
    inline_asm_last(&mut p.module, Some(&mut p.source_map));
    normalize_types(&mut p.module);
    Ok((p.module, p.source_map))
}
