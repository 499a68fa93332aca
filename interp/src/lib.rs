//! pllvm-interp (see DESIGN.md).
