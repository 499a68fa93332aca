//! pllvm-codegen (see DESIGN.md).
