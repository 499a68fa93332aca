//! # pllvm-differential: codegen held against the interpreter by execution
//!
//! The compiler (`pllvm-codegen`) depends on the semantics and the analyses only;
//! this crate is where its output meets the interpreter:
//! - [`inputs`]: the initial state the interpreter sets up from a run
//!   configuration (thesis Def. 4: every global's bytes, every lane's arguments),
//!   as one input of the native runner's protocol (docs/native.md);
//! - [`diff`]: differential execution, the interpreter against native code lane by
//!   lane (the reference is the original program under FREEZING, or the
//!   transformed one under OBLIVIOUS, thesis §4.5).
//!
//! Its tests are the transforms' and the widening's behavioural tests: every one of
//! them runs a transformed program, or the native code built from it, and compares
//! what it computes with what the interpreter says the original means.
#![deny(missing_docs)]

pub mod diff;
pub mod inputs;
