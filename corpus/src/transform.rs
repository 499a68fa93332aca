//! `; transform NAME: --pass ...` lines of a corpus file: the pipeline of the
//! vectorizing transforms (`pllvm_codegen`) run on the file's program, its output
//! verified (every transform maps verified programs to verified programs), and the
//! output's CFG compared with `; expect transform NAME cfg:` rows.

use crate::diff::diff;
use pllvm_codegen::shape::cfg_lines;
use pllvm_interp::directives::{TransformDirective, collapse_whitespace};
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::Module;
use pllvm_semantics::text::print_module;
use pllvm_semantics::verify::verify_module;

/// The module after the pipeline `t` describes, or why there is none.
pub(crate) fn run(module: &Module, t: &TransformDirective) -> Result<Module, String> {
    let (passes, options, function) = pllvm_codegen::pipeline::parse_pipeline(&t.options)
        .map_err(|e| format!("transform {}: {e}", t.name))?;
    let func = match &function {
        Some(f) => module
            .function_by_name(f)
            .ok_or_else(|| format!("transform {}: no function @{f}", t.name))?,
        None => module
            .first_definition()
            .ok_or_else(|| format!("transform {}: the file defines no function", t.name))?,
    };
    let stages = pllvm_codegen::run_passes(module, func, &passes, &options)
        .map_err(|e| format!("transform {}: {e}", t.name))?;
    let Some(last) = stages.last() else {
        return Err(format!("transform {}: no pass ran", t.name));
    };
    let report = verify_module(&last.module, &SourceMap::default());
    if !report.is_ok() {
        let errors: Vec<String> = report.errors.iter().map(|d| d.message.clone()).collect();
        return Err(format!(
            "transform {}: the output does not verify:\n  {}\n{}",
            t.name,
            errors.join("\n  "),
            print_module(&last.module)
        ));
    }
    Ok(last.module.clone())
}

/// `None` if the first function of `module` has exactly the CFG `rows`, else a diff.
pub(crate) fn check_cfg(module: &Module, rows: &[String]) -> Option<String> {
    let func = module.first_definition()?;
    let body = module.functions[func].body.as_ref()?;
    let got: Vec<String> = cfg_lines(body)
        .iter()
        .map(|l| collapse_whitespace(l))
        .collect();
    let want: Vec<String> = rows.iter().map(|l| collapse_whitespace(l)).collect();
    (got != want).then(|| diff(&want.join("\n"), &got.join("\n")))
}
