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
        [
            "%a",
            "uniform",
            "divergent",
            "divergent",
            "uniform",
            "theta-builtin"
        ],
        "{text}"
    );
    assert!(text.contains("; by class: theta-builtin 1"), "{text}");
}

/// The `.ll` files of `corpus/analyses/llvm/`, sorted: those using convergence
/// control tokens (`tokens-*.ll`) when `tokens`, the others otherwise.
fn llvm_corpus(tokens: bool) -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(&corpus("analyses/llvm")).to_path_buf();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus/analyses/llvm")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("tokens-") == tokens)
        })
        .collect();
    files.sort();
    files
}

/// The files of `corpus/analyses/llvm/` state LLVM 22's verdict on every value
/// (checked by the corpus runner against pllvm's `llvm` analysis and the runs):
/// opt-22 agrees on each, with the target's parameter rules (no flags).
#[test]
fn compare_llvm_agrees_on_the_llvm_precision_corpus() {
    let files = llvm_corpus(false);
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let out = Command::new(env!("CARGO_BIN_EXE_pllvm"))
            .args(["analyze"])
            .arg(&file)
            .arg("--compare-llvm")
            .output()
            .expect("run pllvm");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains("compared, 0 differ"),
            "{}:\n{text}",
            file.display()
        );
    }
}

/// The token programs of the corpus: pllvm's `llvm` analysis applies the two
/// rules of controlled convergence, opt-22 neither, so they differ exactly on
/// the values those rules decide (class `controlled`: with the tokens ignored
/// pllvm gives opt's answer), and on nothing else. The rows are the ones each
/// file derives by hand (`%s` tied by the heart, `%x` in the region of an anchor
/// that is not m-converged); the token programs of the other corpus
/// directories agree with opt-22 on every value.
#[test]
fn compare_llvm_on_token_programs_differs_only_by_the_controlled_rules() {
    let expected: [(&str, &[&str]); 4] = [
        (
            "analyses/llvm/tokens-anchor-in-unconverged-cycle.ll",
            &["%x"],
        ),
        ("analyses/llvm/tokens-heart-ties-exit.ll", &["%s"]),
        ("divergence/tokens-loop-heart-break.ll", &[]),
        ("semantics/convergence-tokens.ll", &[]),
    ];
    let listed: Vec<String> = llvm_corpus(true)
        .iter()
        .map(|p| {
            format!(
                "analyses/llvm/{}",
                p.file_name().unwrap_or_default().to_string_lossy()
            )
        })
        .collect();
    for file in &listed {
        assert!(
            expected.iter().any(|(f, _)| f == file),
            "{file} is not in this test's table"
        );
    }
    for (file, rows) in expected {
        let out = Command::new(env!("CARGO_BIN_EXE_pllvm"))
            .args(["analyze", &corpus(file), "--compare-llvm", "--json"])
            .output()
            .expect("run pllvm");
        assert!(
            out.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("one JSON document");
        let got: Vec<(String, String)> = doc["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| {
                (
                    r["value"].as_str().unwrap_or("?").to_string(),
                    r["class"].as_str().unwrap_or("?").to_string(),
                )
            })
            .collect();
        let want: Vec<(String, String)> = rows
            .iter()
            .map(|v| (v.to_string(), "controlled".to_string()))
            .collect();
        assert_eq!(got, want, "{file}: {doc}");
    }
}

/// `--uniform-args none`: no parameter is uniform, whatever the target says; it
/// cannot be given with names.
#[test]
fn uniform_args_none_makes_every_parameter_varying() {
    let dir = std::env::temp_dir().join(format!("pllvm-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("k.ll");
    std::fs::write(
        &file,
        "target triple = \"amdgcn-amd-amdhsa\"\ndefine amdgpu_kernel void @k(i32 %n) {\nentry:\n  %m = add i32 %n, 1\n  ret void\n}\n",
    )
    .expect("write");
    let shape_of_m = |extra: &[&str]| -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_pllvm"))
            .args(["analyze", "--analysis", "llvm"])
            .arg(&file)
            .args(extra)
            .output()
            .expect("run pllvm");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines()
            .find(|l| l.trim_start().starts_with("%m = "))
            .unwrap_or_else(|| panic!("no %m in:\n{text}"))
            .to_string()
    };
    assert!(shape_of_m(&[]).contains("uniform"), "{}", shape_of_m(&[]));
    assert!(shape_of_m(&["--uniform-args", "none"]).contains("varying"));
    let both = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(["analyze", "--analysis", "llvm"])
        .arg(&file)
        .args(["--uniform-args", "none,n"])
        .output()
        .expect("run pllvm");
    assert_eq!(
        both.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&both.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
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
