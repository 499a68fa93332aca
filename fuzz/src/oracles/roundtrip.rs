//! `roundtrip`: the text format is a fixpoint (thesis Fig. 4.2 as LLVM text,
//! `semantics/src/text`): printing a generated module, parsing the text and
//! printing again gives the same text; the parsed module verifies; the LLVM
//! export (`export_llvm`) of both is the same and has a `define` for the kernel.

use super::case::Case;
use super::oracle::{Host, Oracle, Verdict};
use crate::GenConfig;
use pllvm_semantics::text::{export_llvm, parse_module, print_module};
use pllvm_semantics::verify::verify_module;

/// The `roundtrip` oracle.
pub struct RoundTrip;

impl Oracle for RoundTrip {
    fn name(&self) -> &'static str {
        "roundtrip"
    }

    fn available(&self, _: &Host) -> Result<(), String> {
        Ok(())
    }

    fn gen_config(&self) -> GenConfig {
        GenConfig::full()
    }

    fn check(&self, case: &Case) -> Verdict {
        let first = print_module(case.module());
        let (parsed, spans) = match parse_module(&first) {
            Ok(m) => m,
            Err(errors) => {
                return Verdict::fail(
                    "printed text does not parse",
                    errors
                        .iter()
                        .map(|e| format!("{e:?}"))
                        .collect::<Vec<_>>()
                        .join("; "),
                );
            }
        };
        let report = verify_module(&parsed, &spans);
        if let Some(e) = report.errors.first() {
            return Verdict::fail("printed text does not verify", format!("{e:?}"));
        }
        let second = print_module(&parsed);
        if first != second {
            let line = first
                .lines()
                .zip(second.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Verdict::fail(
                "print is not a fixpoint",
                format!(
                    "line {}: printed `{}`, reprinted `{}`",
                    line + 1,
                    first.lines().nth(line).unwrap_or(""),
                    second.lines().nth(line).unwrap_or("")
                ),
            );
        }
        let (a, b) = (export_llvm(case.module()), export_llvm(&parsed));
        if a != b {
            return Verdict::fail(
                "export differs after a round trip",
                "export-llvm of the module and of its reparsed text differ",
            );
        }
        let name = &case.module().functions[case.func()].name;
        if !a
            .lines()
            .any(|l| l.starts_with("define") && l.contains(&format!("@{name}(")))
        {
            return Verdict::fail("export lacks the kernel", format!("no define of @{name}"));
        }
        Verdict::Pass
    }
}
