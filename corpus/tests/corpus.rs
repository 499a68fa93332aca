//! Corpus runner (filled in later).
fn main() {}
