//! `pllvm analyze --compare-llvm` end to end: opt-22 must be installed (the test
//! says how to get it when it is not), the table is printed, and the `llvm`
//! analysis and LLVM's agree on the document's irreducible examples.

use crate::common;
use common::corpus;

use std::process::Command;

#[test]
fn opt_22_is_installed() {
    let ok = Command::new("opt-22")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "opt-22 is missing: --compare-llvm and the differential tests need LLVM 22's opt \
         (Debian: apt-get install llvm-22)"
    );
}

#[test]
fn compare_llvm_agrees_on_the_documents_irreducible_examples() {
    for (file, uniform) in [
        ("divergence/llvm-irreducible-m-converged.ll", "u"),
        ("divergence/llvm-closed-path-diverged-entry.ll", "u,n"),
        ("divergence/llvm-nested-r-s-diverged-outside.ll", "n"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_pllvm"))
            .args([
                "analyze",
                &corpus(file),
                "--compare-llvm",
                "--uniform-args",
                uniform,
            ])
            .output()
            .expect("run pllvm");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("compared, 0 differ"), "{file}:\n{text}");
    }
}

#[test]
fn compare_llvm_shows_a_difference_with_what_ran() {
    // pllvm's `llvm` analysis calls `any` uniform (it broadcasts one value to the
    // executing lanes); opt does not know `@pllvm.any` and calls its result
    // divergent, as every unknown call on AMDGPU.
    let dir = std::env::temp_dir().join(format!("pllvm-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("any.ll");
    std::fs::write(
        &file,
        "; run: --threads 2\ndefine i1 @f() {\nentry:\n  %t = call i32 @pllvm.thread_id()\n  %c = icmp eq i32 %t, 0\n  %a = call i1 @pllvm.any(i1 %c)\n  ret i1 %a\n}\n",
    )
    .expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(["analyze", &file.display().to_string(), "--compare-llvm"])
        .output()
        .expect("run pllvm");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let row = text
        .lines()
        .find(|l| l.starts_with("%a "))
        .unwrap_or_else(|| panic!("no row for %a:\n{text}"));
    let words: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        words,
        ["%a", "uniform", "divergent", "divergent", "uniform"],
        "{text}"
    );
}

#[test]
fn analyze_all_on_an_irreducible_function_runs_llvm_and_names_the_others() {
    let file = corpus("divergence/llvm-irreducible-m-converged.ll");
    let out = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(["analyze", &file, "--uniform-args", "u"])
        .output()
        .expect("run pllvm");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("; not analysed (irreducible control flow): thesis, popl"),
        "{text}"
    );
    assert!(text.contains("; analysis: llvm"), "{text}");
    // Alone, a reducible-only analysis is an error with a message.
    let alone = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(["analyze", &file, "--analysis", "thesis"])
        .output()
        .expect("run pllvm");
    assert!(!alone.status.success());
    assert!(String::from_utf8_lossy(&alone.stderr).contains("irreducible"));
}
