//! The fast path: the fast execution of the rules, one module per rule kind.
//!
//! Every rule of [`crate::rules`] computes the per-lane definition of its figure
//! and nothing else. A fast form computes the same thing for all W lanes at once, on
//! the columns Δ^W stores ([`crate::column`]), in the machine's scratch buffers
//! ([`crate::rules::Scratch`]) and without allocating per command. A run chooses
//! [`crate::rules::Exec::Fast`] or [`crate::rules::Exec::Reference`]; the hooks of
//! [`crate::rules::hooks`], one per rule kind, are the only callers of this module,
//! and only from their `Exec::Fast` arm, so a reference run never executes a
//! fast form.
//!
//! | fast form | rule kind | the rule it stands for |
//! | --- | --- | --- |
//! | [`env::upd_env`] | [UPD-ENV] | [`crate::rules::env::upd_env`] |
//! | [`llvm::w_inst_llvm`] (loops in [`column`]) | [W-INST-LLVM] | [`crate::rules::llvm::w_inst_llvm`] |
//! | [`phi::eval_phi`] | evalphi, evalphi-shadow | [`crate::rules::phi::eval_phi`] |
//! | [`term::eval_term_w`] | evalterm^W (branch successors) | [`crate::rules::term::eval_term`] in every lane |
//!
//! Each fast form has a unit test against its rule, and the whole-run property
//! `proofs/tests/whole_run_equivalence.rs` compares complete runs of both.
#![allow(rustdoc::broken_intra_doc_links, reason = "rule citations, not links")]

pub mod column;
pub mod env;
pub mod llvm;
pub mod phi;
pub mod term;
