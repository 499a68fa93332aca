//! `export-llvm`: the lowering of the P-LLVM additions (thesis Fig. 4.2) to plain
//! LLVM IR that `opt-22` accepts.
//!
//! | P-LLVM | LLVM IR |
//! | --- | --- |
//! | `predicate %p` (val_msk, Def. 7) | `call void @pllvm.predicate(i1 %p)` after the phis, or right after the command defining `%p` in the same block |
//! | `... total` ([W-CMD-TOTAL]) | `..., !pllvm.total !0` with `!0 = !{}` |
//! | `%x = phi T ... shadow(s)` (§4.8) | `%x.phi = phi T ...` and, after all phis, `%x = call T @pllvm.shadow.<T>(T %x.phi, T s)` |
//! | `%m = mask()` ([W-CMD-MASK]) | `%m = call i1 @pllvm.mask()` |
//!
//! The reserved functions get `declare`s at the end of the file; numeric names are
//! quoted (`%"7"`) so that LLVM's rule that numbered values appear in order does not
//! constrain the lowering. The parser lifts all of this back, so
//! `parse(export(m)) == parse(print(m))`.

use super::parser::{MASK_FN, PREDICATE_FN};
use super::printer::{Mode, Printer, quote_name, shadow_fn_name};
use crate::ir::{InstKind, Module};
use crate::types::Ty;
use std::collections::BTreeMap;

/// Plain LLVM IR for `m` (see the module documentation).
pub(crate) fn export_llvm(m: &Module) -> String {
    let mut out = Printer::new(m, Mode::Export).module();
    let mut uses_predicate = false;
    let mut uses_mask = false;
    let mut uses_total = false;
    let mut shadows: BTreeMap<String, Ty> = BTreeMap::new();
    for (_, f) in m.functions.iter() {
        let Some(body) = &f.body else {
            continue;
        };
        uses_predicate |= body.blocks.values().any(|b| b.predicate.is_some());
        for (_, inst) in body.insts.iter() {
            uses_total |= inst.total;
            match &inst.kind {
                InstKind::Mask => uses_mask = true,
                InstKind::Phi {
                    ty,
                    shadow: Some(_),
                    ..
                } => {
                    shadows.insert(shadow_fn_name(&m.types, *ty), *ty);
                }
                _ => {}
            }
        }
    }
    let mut decls = Vec::new();
    if uses_predicate {
        decls.push(format!("declare void @{PREDICATE_FN}(i1)"));
    }
    if uses_mask {
        decls.push(format!("declare i1 @{MASK_FN}()"));
    }
    for (name, ty) in &shadows {
        let t = m.types.display(*ty);
        decls.push(format!("declare {t} @{}({t}, {t})", quote_name(name)));
    }
    if !decls.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        for d in decls {
            out.push_str(&d);
            out.push('\n');
        }
    }
    if uses_total {
        out.push_str("\n!0 = !{}\n");
    }
    out
}
