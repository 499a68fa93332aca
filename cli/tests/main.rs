//! The tests of the `pllvm` command, run as a user runs it (a child process per
//! invocation).
//!
//! One test binary for the crate (linking one binary instead of one per file is
//! most of what a fresh build of the tests costs); each module is one file of
//! this folder, and `cargo test -p pllvm --test cli MODULE::` runs one of them.
//! `host_bounds.rs` is a binary of its own: it measures the peak RSS of this process's
//! children (getrusage), so no other test's child may run in its process.
//! `repl_sessions.rs` is a binary of its own: it measures the peak RSS of this
//! process's children (getrusage), so no other test's child may run in its process.
//! `memory_limit.rs` is a binary of its own: it lowers the address-space limit of its
//! whole process (setrlimit), which other tests' children would inherit.

mod broken_pipe;
mod campaign_dirs;
mod check_llvm_pass;
mod cli;
mod common;
mod compare_llvm;
mod convergence;
mod exit_codes;
mod from_source;
mod fuzz;
mod fuzz_seeded;
mod gpu_calls;
mod gpu_shared;
mod gpu_target_rules;
mod gpu_types;
mod honest_inputs;
mod json_schemas;
mod launch;
mod llvm_arg_rules;
mod native_cli;
mod outcome_diagnostics;
mod output_files;
mod parse_errors;
mod pictures;
mod repl_tmux;
mod resource_bounds;
mod trace_html;
mod tutorial;
