//! # pllvm-semantics: the P-LLVM language and its formal semantics
//!
//! The IR of P-LLVM (thesis Fig. 4.2, Def. 1), its LLVM-compatible text format,
//! the verifier of §4.10, and the rules of thesis §4.2-4.9, one function per rule.
//!
//! ## Glossary: thesis notation → names in the code
//! | thesis | code |
//! | --- | --- |
//! | W (Def. 2) | `width` |
//! | τ ∈ 𝒯 | `lane` |
//! | 𝕄 | `Memory` (`mem`) |
//! | Δ^W | `Env` (`env`) |
//! | ℓ_in / ℓ_next | `incoming` / `next` |
//! | ⊥ (no incoming block) | `None` |
//! | ⊤ (undef value, any-successor) | `Val::Undef`, `Next::Any` |
//! | □(r) | `Next::Done(r)` |
//! | cmsk, pmsk, amsk (Def. 6-8) | `cmask`, `pmask`, `active` |
//! | i (successor index) | `Succ` |
//! | ℓ_sc | `scheduled` |
//! | 𝓘 ∈ {FR, OBL} | `Interp::{Freezing, Oblivious}` |
//! | θ (function map) | `theta` |
//! | val_msk | `BlockData::predicate` |
#![deny(missing_docs)]

pub mod cfg;
pub mod column;
pub mod convergence_control;
pub mod diag;
pub mod entity;
pub mod fast;
pub mod half;
pub mod ir;
pub mod memory;
pub mod names;
pub mod ops;
pub mod persistent;
pub mod rules;
pub mod text;
pub mod theta;
pub mod types;
pub mod value;
pub mod verify;
