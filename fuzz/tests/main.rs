//! The tests of the fuzzing library: the generator, the shrinker, the regression files
//! and native batches of generated programs.
//!
//! One test binary for the crate (linking one binary instead of one per file is
//! most of what a fresh build of the tests costs); each module is one file of
//! this folder, and `cargo test -p pllvm-fuzz --test fuzz MODULE::` runs one of them.

mod fuzz_regressions;
mod generator;
mod native_generated;
mod shrink;
