//! `pllvm check`, `print` and `export-llvm`: a program parsed and verified,
//! then its verdict, its canonical text, or plain LLVM IR.

use crate::output::stdout;
use crate::source::load;
use anyhow::Result;
use clap::Args;
use pllvm_semantics::text;
use pllvm_semantics::verify::verify_module;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub(crate) struct FileArg {
    /// A .ll file (plain LLVM IR or P-LLVM); the embedded default program if absent.
    pub file: Option<PathBuf>,
}

/// Runs `pllvm check`: the verifier's notes, the number of functions verified,
/// and whether each CFG is reducible.
pub(crate) fn check(f: FileArg) -> Result<ExitCode> {
    let (module, spans, name, src) = load(&f.file)?;
    let report = verify_module(&module, &spans);
    for note in &report.notes {
        writeln!(stdout(), "{}", note.render(&name, &src))?;
    }
    let defined = module
        .functions
        .values()
        .filter(|f| f.body.is_some())
        .count();
    writeln!(
        stdout(),
        "{name}: ok ({defined} function{} verified)",
        if defined == 1 { "" } else { "s" }
    )?;
    for (func, reducible) in &report.reducible {
        writeln!(
            stdout(),
            "  @{}: {}",
            module.functions[*func].name,
            if *reducible {
                "reducible"
            } else {
                "irreducible (allowed)"
            }
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `pllvm print`: the program in canonical P-LLVM text.
pub(crate) fn print(f: FileArg) -> Result<ExitCode> {
    let (module, _, _, _) = load(&f.file)?;
    write!(stdout(), "{}", text::print_module(&module))?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `pllvm export-llvm`: plain LLVM IR that opt accepts.
pub(crate) fn export_llvm(f: FileArg) -> Result<ExitCode> {
    let (module, _, _, _) = load(&f.file)?;
    write!(stdout(), "{}", text::export_llvm(&module))?;
    Ok(ExitCode::SUCCESS)
}
