//! pllvm-proofs (see DESIGN.md).
