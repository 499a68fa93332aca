//! The integration tests of pllvm-semantics: the text format, the verifier, values and
//! memory.
//!
//! One test binary for the crate (linking one binary instead of one per file is
//! most of what a fresh build of the tests costs); each module is one file of
//! this folder, and `cargo test -p pllvm-semantics --test semantics MODULE::` runs one
//! of them.

#[path = "common/examples.rs"]
mod examples;

mod byte_store_props;
mod clang_input;
mod export_llvm;
mod memory_props;
mod ops_props;
mod parser_robustness;
mod text_roundtrip;
mod verify;
