//! The `pllvm` command.
fn main() {}
