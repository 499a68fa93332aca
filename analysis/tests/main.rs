//! The integration tests of pllvm-analysis: the module graphs of every crate and the
//! analyses on whole programs.
//!
//! One test binary for the crate (linking one binary instead of one per file is
//! most of what a fresh build of the tests costs); each module is one file of
//! this folder, and `cargo test -p pllvm-analysis --test analysis MODULE::` runs one of
//! them.

mod crate_graph;
mod module_graph;
mod uniformity;
