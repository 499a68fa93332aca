//! Tidy checks over the source tree and the generated semantics reference.
//!
//! One test binary for the crate (linking one binary instead of one per file is
//! most of what a fresh build of the tests costs); each module is one file of
//! this folder, and `cargo test -p pllvm-corpus --test tidy MODULE::` runs one of them.

mod semantics_doc;
mod tidy;
