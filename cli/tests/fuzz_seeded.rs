//! `pllvm fuzz` finds seeded bugs (docs/fuzzing.md, "Seeded bugs"): one per oracle
//! family, compiled only with the `seeded-bugs` feature and switched on by
//! `PLLVM_SEEDED_BUG`:
//!
//! - `join` (analysis): `global_joins` drops a sync join (analysis/src/joins.rs),
//!   which the `analyses` oracle must refute;
//! - `kernel` (semantics): the fast path's getNewValue kernel for bit columns
//!   forgets that OBLIVIOUS makes a passive lane ⊤
//!   (semantics/src/fast/env.rs), which `exec` must catch;
//! - `blend` (codegen): the widening blends a per-lane `select` the wrong way
//!   (codegen/src/widen/function.rs), which `avx2` must catch;
//! - `retarget` (fuzz): opt's structurized output with the two targets of its
//!   first `Flow` branch swapped (fuzz/src/oracles/llvm_transforms.rs), which
//!   `llvm-transforms.structurizecfg` must catch.
//!
//! For each: a campaign with the bug switched on finds it and shrinks it to at
//! most 12 instructions, within the campaign's budget (`--time 50s`, shrinking
//! included); the same campaign with the bug off finds nothing.
//!
//! The binary is the test build's own `pllvm`: the crate's dev-dependencies
//! switch the feature on for every build of tests (cli/Cargo.toml), and the bugs
//! stay dormant in every other test, which leaves `PLLVM_SEEDED_BUG` unset.
//! `cargo build` and `cargo run` never compile them in.

use crate::common;

use serde_json::Value;
use std::process::Command;
use std::time::{Duration, Instant};

/// Runs a campaign of `oracle` with `bug` switched on (or off), returns its
/// report and wall time.
fn campaign(bug: Option<&str>, oracle: &str, count: u64) -> (Value, Duration) {
    let out = std::env::temp_dir().join(format!(
        "pllvm-fuzz-seeded-{}-{oracle}-{}",
        std::process::id(),
        bug.unwrap_or("off")
    ));
    let _ = std::fs::remove_dir_all(&out);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pllvm"));
    cmd.args(["fuzz", "--oracle", oracle, "--json", "--batch", "4"])
        .args(["--count", &count.to_string()])
        .args([
            "--time",
            "50s",
            "--shrink-time",
            "40",
            "--max-findings",
            "1",
        ])
        .arg("--out")
        .arg(&out);
    match bug {
        Some(b) => cmd.env("PLLVM_SEEDED_BUG", b),
        None => cmd.env_remove("PLLVM_SEEDED_BUG"),
    };
    let start = Instant::now();
    let o = cmd.output().expect("run the seeded pllvm");
    let took = start.elapsed();
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{oracle}: no JSON ({e}): {}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    let _ = std::fs::remove_dir_all(&out);
    (doc, took)
}

/// The bug is found and shrunk to at most 12 instructions within the campaign's
/// budget, and is the bug's doing.
fn finds(bug: &str, oracle: &str, count: u64) {
    let (doc, took) = campaign(Some(bug), oracle, count);
    let findings = doc["findings"].as_array().cloned().unwrap_or_default();
    assert!(
        !findings.is_empty(),
        "{bug}: {oracle} found nothing in {count} programs: {doc}"
    );
    let smallest = findings
        .iter()
        .filter_map(|f| f["shrunk_instructions"].as_u64())
        .min()
        .unwrap();
    assert!(
        smallest <= 12,
        "{bug}: the smallest finding has {smallest} instructions: {doc}"
    );
    eprintln!(
        "{bug}: {} findings by {oracle} in {took:?}, the smallest {smallest} instructions",
        findings.len()
    );
    // The same programs (up to the last that failed) without the bug.
    let last = findings
        .iter()
        .filter_map(|f| f["seeds"].as_array())
        .flatten()
        .filter_map(|s| s.as_str()?.parse::<u64>().ok())
        .max()
        .unwrap();
    let (clean, _) = campaign(None, oracle, last + 1);
    assert_eq!(
        clean["findings"].as_array().map(Vec::len),
        Some(0),
        "{oracle} finds something without the seeded bug: {clean}"
    );
}

#[test]
fn a_dropped_join_is_found_by_the_analyses_oracle() {
    finds("join", "analyses", 400);
}

#[test]
fn a_broken_fast_path_kernel_is_found_by_the_exec_oracle() {
    finds("kernel", "exec", 400);
}

#[test]
fn a_wrong_blend_in_the_widening_is_found_by_the_avx2_oracle() {
    common::require("llc-19", "llvm-19");
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    assert!(
        cpu.split_whitespace().any(|f| f == "avx2"),
        "this test runs AVX2 code: the CPU has no avx2"
    );
    finds("blend", "avx2", 64);
}

#[test]
fn a_retargeted_flow_edge_is_found_by_the_llvm_transforms_oracle() {
    common::require("opt-22", "llvm-22");
    finds("retarget", "llvm-transforms.structurizecfg", 64);
}
