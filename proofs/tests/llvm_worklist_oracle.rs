//! The `llvm` analysis's worklist solver ([`pllvm_analysis::llvm::analyze_with`],
//! one [`pllvm_analysis::llvm::BranchSolver`] call per divergent branch) against
//! its reference formulation ([`pllvm_analysis::llvm::analyze_reference`]: the
//! flow-based joins of LLVM's "Convergence and Uniformity" recomputed for every
//! divergent branch in every round of a Kleene iteration), on generated reducible
//! and irreducible programs and every cycle hierarchy a DFS produces for them.

use pllvm_analysis::cycles::all_hierarchies;
use pllvm_analysis::llvm::{analyze_reference, analyze_with};
use pllvm_fuzz::{GenConfig, generate};
use pllvm_semantics::cfg::Cfg;

#[test]
fn worklist_and_reference_agree_on_generated_programs() {
    let configs = [GenConfig::small(), GenConfig::full()];
    let (mut programs, mut irreducible, mut hierarchies) = (0usize, 0usize, 0usize);
    for seed in 0..600u64 {
        let g = generate(seed, &configs[(seed % 2) as usize]);
        let func = &g.module.functions[g.func];
        let Some(body) = func.body.as_ref() else {
            continue;
        };
        programs += 1;
        let cfg = Cfg::new(body);
        irreducible += usize::from(!cfg.is_reducible());
        let init = g.init_shapes();
        let (all, _) = all_hierarchies(cfg.graph(), cfg.entry().as_u32(), 20);
        for h in all {
            hierarchies += 1;
            let fast = analyze_with(&g.module, g.func, body, &init, h.clone());
            let slow = analyze_reference(&g.module, g.func, body, &init, h);
            assert_eq!(fast, slow, "seed {seed}");
        }
    }
    assert!(
        programs >= 500 && irreducible >= 50,
        "{programs} programs, {irreducible} irreducible"
    );
    assert!(hierarchies > programs);
}
