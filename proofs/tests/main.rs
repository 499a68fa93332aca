//! The theorems as executable checks, one module per claim (exhaustive small scopes and
//! properties over generated programs).
//!
//! One test binary for the crate (linking one binary instead of one per file is
//! most of what a fresh build of the tests costs); each module is one file of
//! this folder, and `cargo test -p pllvm-proofs --test proofs MODULE::` runs one of
//! them.
//!
//! Long mode: `PLLVM_LONG=1` (`scripts/test-all.sh --long`) runs the heavy checks
//! at their full case counts and scopes; by default they run a smaller count that
//! keeps the suite short (CONTRIBUTING.md, "Long modes"). The same tests run in
//! both modes; each one that shrinks says both sizes in its doc comment and reads
//! them through [`test_cases`].

mod acyclic_schedule_independence;
mod control_divergence;
mod controlled_soundness;
mod convergence;
mod dlt_generated;
mod greedy_fast_checks;
mod greedy_props;
mod interp_robustness;
mod joins_vs_explore;
mod llvm_differential;
mod llvm_worklist_oracle;
mod lock_step_transparency;
mod normalize_preserves_behaviour;
mod reaching_defs;
mod reconverge_small_cfgs;
mod reconverging_definition_1;
mod soundness;
mod soundness_explore;
mod stagewise_equivalence;
mod stride_soundness;
mod theorem_3_path_embedding;
mod theorem_4_uniform_predicates;
mod theorem_5_uniform_branches;
mod whole_run_equivalence;

/// Whether the long mode is on (`PLLVM_LONG` set to anything but `0` or empty).
pub(crate) fn long_mode() -> bool {
    std::env::var("PLLVM_LONG").is_ok_and(|v| v != "0" && !v.is_empty())
}

/// `default` cases, or `long` in the long mode (`PLLVM_LONG=1`).
pub(crate) fn test_cases<T>(default: T, long: T) -> T {
    if long_mode() { long } else { default }
}
