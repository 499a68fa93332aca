//! `verify`: the generator's contract (`fuzz/src/gen/mod.rs`, "Guarantees"):
//! every generated program is well formed (§4.10, the verifier accepts it) and
//! its FREEZING run with the built-in schedule returns in every lane (no
//! undefined behaviour under FR, §4.5; every cycle guarded by a counter). A
//! failure is a bug of the generator, of the verifier or of the machine.

use super::case::Case;
use super::oracle::{Host, Oracle, Verdict};
use crate::GenConfig;
use pllvm_interp::{Machine, Outcome};
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::{parse_module, print_module};
use pllvm_semantics::verify::verify_module;

/// The `verify` oracle.
pub struct Verify;

impl Oracle for Verify {
    fn name(&self) -> &'static str {
        "verify"
    }

    fn available(&self, _: &Host) -> Result<(), String> {
        Ok(())
    }

    fn gen_config(&self) -> GenConfig {
        GenConfig::full()
    }

    fn needs_verified(&self) -> bool {
        false
    }

    fn check(&self, case: &Case) -> Verdict {
        let text = print_module(case.module());
        let (module, spans) = match parse_module(&text) {
            Ok(m) => m,
            Err(e) => return Verdict::Skip(format!("does not parse: {:?}", e.first())),
        };
        let report = verify_module(&module, &spans);
        if let Some(e) = report.errors.first() {
            return Verdict::fail("the verifier rejects it", format!("{e:?}"));
        }
        let mut config = case.run_config(Interp::Freezing);
        config.observe = false;
        // The checked greedy default of `run` (`lowest`, Ch. 5).
        let mut m = match Machine::new(case.module(), &config) {
            Ok(m) => m,
            Err(e) => return Verdict::fail("setup fails", e.to_string()),
        };
        match m.run_to_end() {
            Ok(Outcome::Returned) => Verdict::Pass,
            Ok(o @ Outcome::Undefined(_)) => Verdict::fail("FR run is undefined", o.to_string()),
            Ok(other) => Verdict::fail("FR run does not return", other.to_string()),
            Err(e) => Verdict::fail("FR run errs", e.to_string()),
        }
    }
}
