//! The behavioural tests of the transforms and of the native backend: every program is
//! run and compared with the interpreter.
//!
//! One test binary for the crate (linking one binary instead of one per file is
//! most of what a fresh build of the tests costs); each module is one file of
//! this folder, and `cargo test -p pllvm-differential --test differential MODULE::`
//! runs one of them.

mod dlt;
mod linearize;
mod native_kernels;
mod native_scalar_c;
mod native_support;
mod nonneg_div;
mod reconverge;
mod widen;
