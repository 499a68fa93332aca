//! # pllvm-analysis: CFG facts and divergence analyses (thesis Ch. 2, 6-7, 10)
#![deny(missing_docs)]
