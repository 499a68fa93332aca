//! `pllvm check-llvm-pass` and the `llvm-transforms` oracle (docs/fuzzing.md,
//! "LLVM's control-flow transforms"): the hand-written cases of
//! `corpus/llvm-passes/`, one or more per pipeline, each checked with its
//! `; check-llvm-pass: ARGS` line. A case is accepted (opt's output parses and
//! verifies) and refined (its output under OBL refines it under FR), unless a
//! `; check-llvm-pass expect: TEXT` line names the reading it shows instead.
//! opt-22 must be installed: without it these tests fail, saying how to get it.
//! The seeded broken pipeline (`PLLVM_SEEDED_BUG=retarget`) is caught on a case
//! that passes without it.

use crate::common::{self, code, corpus, pllvm, stdout};
use std::path::PathBuf;
use std::process::Command;

/// The case files, sorted.
fn cases() -> Vec<PathBuf> {
    let dir = PathBuf::from(corpus("llvm-passes"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .collect();
    files.sort();
    files
}

/// The value of the directive `; NAME: ...` in `src`.
fn directive<'a>(src: &'a str, name: &str) -> Option<&'a str> {
    src.lines()
        .find_map(|l| l.strip_prefix(&format!("; {name}:")))
        .map(str::trim)
}

#[test]
fn every_case_is_accepted_and_refined() {
    common::require("opt-22", "llvm-22");
    let mut pipelines = std::collections::BTreeSet::new();
    let files = cases();
    assert!(
        files.len() >= 7,
        "corpus/llvm-passes holds {} cases",
        files.len()
    );
    for path in files {
        let src = std::fs::read_to_string(&path).expect("readable");
        let args = directive(&src, "check-llvm-pass")
            .unwrap_or_else(|| panic!("{}: no `; check-llvm-pass:` line", path.display()));
        let args: Vec<&str> = args.split_whitespace().collect();
        if let Some(at) = args.iter().position(|a| *a == "--passes") {
            pipelines.insert(args[at + 1].to_string());
        }
        let file = path.display().to_string();
        let out = pllvm(&[&["check-llvm-pass", file.as_str()][..], &args].concat());
        let text = stdout(&out);
        match directive(&src, "check-llvm-pass expect") {
            None => assert!(
                code(&out) == 0 && text.contains("\nok: refines"),
                "{file}: not refined:\n{text}{}",
                common::stderr(&out)
            ),
            Some(expected) => assert!(
                text.contains(expected),
                "{file}: expected `{expected}`:\n{text}{}",
                common::stderr(&out)
            ),
        }
    }
    for p in [
        "structurizecfg",
        "structurizecfg-skip-uniform",
        "fix-irreducible",
        "unify-loop-exits",
        "lower-switch",
        "amdgpu-unify-divergent-exit-nodes",
        "amdgpu-structurizer",
    ] {
        assert!(
            pipelines.contains(p),
            "no case of corpus/llvm-passes runs {p}"
        );
    }
}

#[test]
fn a_structurizecfg_input_with_a_switch_is_skipped_with_the_reason() {
    common::require("opt-22", "llvm-22");
    let file = corpus("llvm-passes/lower-switch-divergent.ll");
    let out = pllvm(&[
        "check-llvm-pass",
        &file,
        "--passes",
        "structurizecfg",
        "--threads",
        "4",
    ]);
    assert_eq!(code(&out), 3, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("a switch (the pass assumes lower-switch ran)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn the_seeded_broken_pipeline_is_caught() {
    common::require("opt-22", "llvm-22");
    let file = corpus("llvm-passes/structurizecfg-diamond.ll");
    let run = |bug: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pllvm"));
        cmd.args(["check-llvm-pass", &file, "--passes", "structurizecfg"])
            .args(["--threads", "4", "--arg", "x=2"]);
        match bug {
            Some(b) => cmd.env("PLLVM_SEEDED_BUG", b),
            None => cmd.env_remove("PLLVM_SEEDED_BUG"),
        };
        cmd.output().expect("run pllvm")
    };
    let clean = run(None);
    assert_eq!(code(&clean), 0, "{}", stdout(&clean));
    let broken = run(Some("retarget"));
    assert_eq!(code(&broken), 1, "{}", stdout(&broken));
    assert!(
        stdout(&broken).contains("DIFFERS under FR"),
        "{}",
        stdout(&broken)
    );
}

#[test]
fn an_unknown_uniform_parameter_is_a_usage_error() {
    let file = corpus("llvm-passes/structurizecfg-diamond.ll");
    let out = pllvm(&[
        "check-llvm-pass",
        &file,
        "--passes",
        "structurizecfg",
        "--uniform-args",
        "nope",
    ]);
    assert_eq!(code(&out), 2, "{}", common::stderr(&out));
}
