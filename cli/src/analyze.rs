//! `pllvm analyze`: the divergence analyses of thesis Ch. 6-7 (`thesis`), POPL'21
//! (`popl`), LLVM's "Convergence and Uniformity" (`llvm`) and the stride-alignment
//! lattice of thesis Ch. 10 (`sa`) on one function,
//! printed as annotated text, JSON, or a Graphviz picture of the CFG; with the
//! reconverging-CFG check (poster, Definition 1) under each analysis.

use anyhow::{Result, anyhow};
use pllvm_analysis::PostDomTree;
use pllvm_analysis::reconverging::check_reconverging;
use pllvm_analysis::render;
use pllvm_analysis::result::{AnalysisError, AnalysisKind, InitShapes, Uniformity};
use pllvm_analysis::uniformity::analyze_for_width;
use pllvm_semantics::ir::Module;
use std::io::Write;

/// Which analyses `--analysis` selects.
pub fn parse_analysis(text: &str) -> Result<Vec<AnalysisKind>, String> {
    if text == "all" {
        return Ok(AnalysisKind::ALL.to_vec());
    }
    text.split(',')
        .map(|name| {
            AnalysisKind::parse(name.trim())
                .ok_or_else(|| format!("unknown analysis '{name}' (thesis, popl, llvm, sa or all)"))
        })
        .collect()
}

/// How to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The program with shapes in trailing comments.
    Text,
    /// The JSON report.
    Json,
    /// Graphviz (one digraph per analysis).
    Dot,
    /// Counts only: divergent and uniform values, divergent branches, joins and
    /// divergent loops per analysis (the whole analysis still runs; for large
    /// functions, e.g. the benchmark against opt-22).
    Summary,
}

/// Runs `kinds` on `function` (or the first definition) and prints the result;
/// `width` bounds the thread array for `sa` (thesis Fig. 10.12).
pub fn run(
    module: &Module,
    function: Option<&str>,
    kinds: &[AnalysisKind],
    uniform_args: &[String],
    width: Option<u32>,
    format: Format,
    out: &mut dyn Write,
) -> Result<()> {
    let func = match function {
        Some(name) => {
            let name = name.trim_start_matches('@');
            module
                .function_by_name(name)
                .ok_or_else(|| crate::Usage(format!("--function: no function @{name}")))?
        }
        None => module
            .first_definition()
            .ok_or_else(|| anyhow!("the module defines no function"))?,
    };
    let init = InitShapes::for_function(module, func, uniform_args)
        .map_err(|e| crate::Usage(e.to_string()))?;
    // With several analyses asked, one that assumes reducible control flow is left
    // out on an irreducible function (named in a note); alone, it is an error.
    let mut results: Vec<Uniformity> = Vec::new();
    let mut skipped = Vec::new();
    for &k in kinds {
        match analyze_for_width(module, func, k, &init, width) {
            Ok(r) => results.push(r),
            Err(AnalysisError::Irreducible(_)) if kinds.len() > 1 => skipped.push(k.name()),
            Err(e) => return Err(anyhow!("{e}")),
        }
    }
    if results.is_empty() {
        return Err(anyhow!("no analysis could run"));
    }
    if !skipped.is_empty() && format == Format::Text {
        writeln!(
            out,
            "; not analysed (irreducible control flow): {}",
            skipped.join(", ")
        )?;
    }
    let refs: Vec<&Uniformity> = results.iter().collect();
    match format {
        Format::Summary => {
            let Some(body) = module.functions[func].body.as_ref() else {
                return Ok(());
            };
            for r in &refs {
                let (mut varying, mut uniform) = (0usize, 0usize);
                for (_, s) in r.values.iter() {
                    if s.is_varying() {
                        varying += 1;
                    } else if s.is_uniform() {
                        uniform += 1;
                    }
                }
                writeln!(
                    out,
                    "{}: @{}: {} blocks, {varying} divergent values, {uniform} uniform, {} divergent branches, {} sync joins, {} temporal joins, {} divergent loops",
                    r.analysis,
                    module.functions[func].name,
                    body.layout.len(),
                    r.divergent_branches(body).len(),
                    r.sync_joins.len(),
                    r.temporal_joins.len(),
                    r.divergent_loops.len()
                )?;
            }
        }
        Format::Json => {
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&render::Report {
                    not_analysed: skipped.iter().map(|k| k.to_string()).collect(),
                    ..render::report(module, &refs)
                })?
            )?;
        }
        Format::Dot => {
            for r in &refs {
                write!(out, "{}", render::dot(module, r))?;
            }
        }
        Format::Text => {
            write!(out, "{}", render::annotate(module, &refs))?;
            let Some(body) = module.functions[func].body.as_ref() else {
                return Ok(());
            };
            let postdom = PostDomTree::compute(body);
            let names = |bs: &mut dyn Iterator<Item = pllvm_semantics::ir::Block>| {
                let v: Vec<String> = bs.map(|b| format!("%{}", body.blocks[b].name)).collect();
                if v.is_empty() {
                    "none".to_string()
                } else {
                    v.join(", ")
                }
            };
            for r in &refs {
                writeln!(out, "\n; {}:", r.analysis)?;
                writeln!(
                    out,
                    ";   divergent branches: {}",
                    names(&mut r.divergent_branches(body).into_iter())
                )?;
                writeln!(
                    out,
                    ";   sync joins: {}",
                    names(&mut r.sync_joins.iter().copied())
                )?;
                writeln!(
                    out,
                    ";   temporal joins: {}",
                    names(&mut r.temporal_joins.iter().copied())
                )?;
                writeln!(
                    out,
                    ";   divergent loops: {}",
                    names(&mut r.divergent_loops.iter().copied())
                )?;
                let violations = check_reconverging(body, &postdom, r);
                if violations.is_empty() {
                    writeln!(out, ";   reconverging (Definition 1): yes")?;
                } else {
                    writeln!(out, ";   reconverging (Definition 1): no")?;
                    for v in violations {
                        writeln!(out, ";     {}", v.message(body))?;
                    }
                }
            }
        }
    }
    Ok(())
}
