//! The integration tests of pllvm-interp: the greedy schedule constraints, schedulers,
//! exploration, the stepper, widths and limits, and clang-compiled kernels.
//!
//! One test binary for the crate (linking one binary instead of one per file is
//! most of what a fresh build of the tests costs); each module is one file of
//! this folder, and `cargo test -p pllvm-interp --test interp MODULE::` runs one of
//! them.

mod greedy_constraints;
mod greedy_explore;
mod greedy_schedulers;
mod greedy_work;
mod launch_barriers;
mod launch_groups;
mod native_clang;
mod stepper;
mod widths_and_limits;
