//! pllvm-corpus (see DESIGN.md).
