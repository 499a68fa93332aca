//! `llvm`: LLVM's own uniformity analysis against execution (docs/analyses.md,
//! "Head-to-head with opt-22"):
//! `opt-22` and `opt-19` with `-passes='print<uniformity>'` on the case's module
//! as `pllvm_analysis::opt_uniformity::opt_input` lowers it for AMDGPU (the
//! triple `amdgcn--`; `inreg` on the parameters the case feeds uniformly, which
//! AMDGPU's argument rules then call uniform, the others divergent; allocas in
//! the private address space; the thread id a call opt does not know, a source
//! of divergence). A value or branch opt calls uniform whose active lanes
//! disagreed in one dynamic instance of the FR run is a finding, in LLVM or in
//! pllvm's lowering. The programs are what a front end emits and opt knows:
//! no block predicates, shadow phis, `total`, `mask()` or horizontal builtins
//! (P-LLVM constructs opt cannot read).

use super::case::Case;
use super::oracle::{Host, Oracle, Verdict};
use crate::GenConfig;
use pllvm_analysis::opt_uniformity::{opt_input, opt_triple, parse_report, run_opt};
use pllvm_interp::Machine;
use pllvm_interp::soundness::observe_run;
use pllvm_semantics::ir::Block;
use pllvm_semantics::rules::{Interp, Succ};
use std::collections::HashSet;

/// The `llvm` oracle.
pub struct Llvm;

/// The blocks where, in one execution of the case's FR run, active lanes went
/// on to different blocks.
fn split_blocks(case: &Case) -> Result<HashSet<Block>, String> {
    let config = case.run_config(Interp::Freezing);
    let mut m = Machine::new(case.module(), &config).map_err(|e| format!("setup: {e}"))?;
    m.record_trace = true;
    m.run_to_end().map_err(|e| format!("run: {e}"))?;
    let body = m.program.body;
    let mut out = HashSet::new();
    for row in &m.trace {
        let succs = body.blocks[row.scheduled].term.successors();
        let mut targets = row
            .succ
            .iter()
            .zip(&row.active)
            .filter(|(_, a)| **a)
            .filter_map(|(s, _)| match s {
                Succ::Index(n) => succs.get(*n as usize).copied(),
                _ => None,
            });
        if let Some(first) = targets.next()
            && targets.any(|t| t != first)
        {
            out.insert(row.scheduled);
        }
    }
    Ok(out)
}

/// The opts this machine has, from `host`.
fn opts(host: &Host) -> Vec<&'static str> {
    let mut v = Vec::new();
    if host.opt22 {
        v.push("opt-22");
    }
    if host.opt19 {
        v.push("opt-19");
    }
    v
}

impl Oracle for Llvm {
    fn name(&self) -> &'static str {
        "llvm"
    }

    fn available(&self, host: &Host) -> Result<(), String> {
        if opts(host).is_empty() {
            Err("neither opt-22 nor opt-19 runs (Debian: apt-get install llvm-22 llvm-19)".into())
        } else {
            Ok(())
        }
    }

    fn gen_config(&self) -> GenConfig {
        GenConfig {
            horizontal: false,
            ..super::transforms::spmd_config(false)
        }
    }

    fn case(&self, seed: u64) -> Case {
        let config = GenConfig {
            horizontal: false,
            ..super::transforms::spmd_config(seed % 3 == 2)
        };
        Case::generate(seed, &config, self.width(seed))
    }

    fn check(&self, case: &Case) -> Verdict {
        let module = case.module();
        let func = case.func();
        let data = &module.functions[func];
        let Some(body) = data.body.as_ref() else {
            return Verdict::Skip("no body".into());
        };
        let obs = match observe_run(module, &case.run_config(Interp::Freezing)) {
            Ok(o) => o,
            Err(e) => return Verdict::Skip(format!("the run: {e}")),
        };
        let uniform: Vec<bool> = case
            .program
            .init_shapes()
            .params
            .iter()
            .map(|s| s.is_uniform())
            .collect();
        let input = opt_input(module, func, &uniform);
        // The observer compares successor indices; a branch whose lanes took
        // different indices to one block (a `switch` with repeated targets) is
        // not divergent for LLVM. Only blocks whose active lanes went to
        // different blocks count.
        let split = match split_blocks(case) {
            Ok(s) => s,
            Err(e) => return Verdict::Skip(e),
        };
        for opt in opts(&Host::cached()) {
            let stderr = match run_opt(opt, &input, opt_triple(module)) {
                Ok(s) => s,
                Err(e) => return Verdict::fail(format!("{opt} fails"), e),
            };
            let report = match parse_report(&stderr, &data.name) {
                Ok(r) => r,
                Err(e) => return Verdict::fail(format!("{opt} report unreadable"), e),
            };
            for &b in &body.layout {
                let block = &body.blocks[b];
                for &i in block.phis.iter().chain(&block.body) {
                    let Some(v) = body.insts[i].result else {
                        continue;
                    };
                    let Some(name) = body.value_name(v) else {
                        continue;
                    };
                    if report.value_divergent(name) == Some(false) && obs.insts[i].diverged {
                        return Verdict::fail(
                            format!("{opt} calls a value uniform"),
                            format!(
                                "{opt} calls %{name} (in {}) uniform; its lanes disagreed",
                                block.name
                            ),
                        );
                    }
                }
                if report.terminator_divergent(&block.name) == Some(false)
                    && obs.branches[b]
                    && split.contains(&b)
                {
                    return Verdict::fail(
                        format!("{opt} calls a branch uniform"),
                        format!(
                            "{opt} calls the terminator of {} uniform; active lanes took different successors",
                            block.name
                        ),
                    );
                }
            }
        }
        Verdict::Pass
    }
}
