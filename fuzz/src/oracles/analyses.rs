//! `analyses`: soundness of the divergence analyses against execution (thesis
//! Ch. 6-7 and 10, POPL'21 Theorem 4.8 / 6.7, LLVM's "Convergence and
//! Uniformity"; `proofs/tests/soundness.rs`, `stride_soundness.rs`): whatever
//! `thesis`, `popl`, `llvm` or `sa` calls uniform (a value, a terminator, a
//! block's activation, a stack object), the lanes of one dynamic instance never
//! disagree on in an FR run of the case (`pllvm_corpus::analysis_expect`'s
//! observer); the strides `sa` claims hold lane by lane. Programs alternate
//! small and larger reducible ones and ones with irreducible cycles, which only
//! `llvm` analyses.

use super::case::Case;
use super::oracle::{Host, Oracle, Verdict};
use crate::GenConfig;
use pllvm_analysis::result::AnalysisKind;
use pllvm_analysis::uniformity::analyze;
use pllvm_interp::soundness::{observe_run, stride_violations, unsound_claims};
use pllvm_semantics::rules::Interp;

/// The `analyses` oracle.
pub struct Analyses;

impl Oracle for Analyses {
    fn name(&self) -> &'static str {
        "analyses"
    }

    fn available(&self, _: &Host) -> Result<(), String> {
        Ok(())
    }

    fn gen_config(&self) -> GenConfig {
        GenConfig {
            irreducible: false,
            ..GenConfig::small()
        }
    }

    fn case(&self, seed: u64) -> Case {
        let config = match seed % 3 {
            0 => self.gen_config(),
            1 => GenConfig::reducible(),
            _ => GenConfig::small(),
        };
        Case::generate(seed, &config, self.width(seed))
    }

    fn check(&self, case: &Case) -> Verdict {
        let Some(body) = case.module().functions[case.func()].body.as_ref() else {
            return Verdict::Skip("no body".into());
        };
        let reducible = pllvm_semantics::cfg::Cfg::new(body).is_reducible();
        let kinds: &[AnalysisKind] = if reducible {
            &AnalysisKind::ALL
        } else {
            &[AnalysisKind::Llvm]
        };
        let init = case.program.init_shapes();
        let config = case.run_config(Interp::Freezing);
        let obs = match observe_run(case.module(), &config) {
            Ok(o) => o,
            Err(e) => return Verdict::Skip(format!("the run: {e}")),
        };
        for &kind in kinds {
            let r = match analyze(case.module(), case.func(), kind, &init) {
                Ok(r) => r,
                Err(e) => return Verdict::fail(format!("{kind} refuses"), e.to_string()),
            };
            let claims = unsound_claims(&r, body, &obs);
            if !claims.is_empty() {
                return Verdict::fail(
                    format!("{kind} unsound"),
                    format!(
                        "{kind} calls {} uniform (outcome: {})",
                        claims.join(", "),
                        obs.outcome
                    ),
                );
            }
            if kind == AnalysisKind::Sa {
                match stride_violations(case.module(), &r, &config) {
                    Ok(v) if !v.is_empty() => {
                        return Verdict::fail("sa stride unsound", v.join("; "));
                    }
                    Ok(_) => {}
                    Err(e) => return Verdict::Skip(format!("the stride run: {e}")),
                }
            }
        }
        Verdict::Pass
    }
}
