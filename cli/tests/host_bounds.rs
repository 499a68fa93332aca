//! What a user feeds `pllvm` must not exhaust the host (issue 14): W is bounded
//! with a usage error, a run keeps only the trace its output needs, and a cut-off
//! exploration says so with its own exit code. Memory is measured as the peak RSS
//! of a child process (`getrusage(RUSAGE_CHILDREN)` after it is reaped, one child
//! per test binary at a time: each memory test runs its child alone in a fresh
//! process of this binary, see [`peak_rss_kib`]).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output};

fn pllvm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(args)
        .output()
        .expect("run pllvm")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn temp_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("pllvm-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    let mut f = std::fs::File::create(&path).expect("create");
    f.write_all(text.as_bytes()).expect("write");
    path.display().to_string()
}

/// A loop no lane leaves: every run of it ends at the step limit.
const INFINITE: &str = "define void @f() {\na:\n  br label %b\nb:\n  br label %b\n}\n";

fn corpus(path: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus")
        .join(path)
        .display()
        .to_string()
}

/// Item 3: W above the documented maximum (4096), zero or not a number is a bad
/// command line (exit 2) in `run`, `explore` and `repl`, not a panic or an
/// allocation of the host's memory.
#[test]
fn widths_beyond_the_maximum_are_usage_errors() {
    let file = temp_file("inf.ll", INFINITE);
    for w in [
        "18446744073709551615",
        "100000000",
        "4097",
        "0",
        "-1",
        "many",
    ] {
        for cmd in ["run", "explore", "repl"] {
            let o = pllvm(&[cmd, &file, &format!("--threads={w}")]);
            assert_eq!(
                o.status.code(),
                Some(2),
                "{cmd} --threads {w}: {}",
                stderr(&o)
            );
            let err = stderr(&o);
            assert!(err.contains("4096"), "{cmd} --threads {w}: {err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    // The maximum itself runs (to the step limit, an outcome: exit 1).
    let o = pllvm(&["run", &file, "--threads", "4096", "--max-steps", "3"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("out of fuel"), "{}", stdout(&o));
}

/// Item 3: the JSON `--input` path checks W in the same place.
#[test]
fn json_input_width_is_checked() {
    let file = temp_file("inf-json.ll", INFINITE);
    let input = temp_file("wide.json", r#"{"threads": 18446744073709551615}"#);
    let o = pllvm(&["run", &file, "--input", &input]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("at most 4096"), "{}", stderr(&o));
}

/// Item 3: in the REPL, `set threads` with a huge W is an error message and the
/// session goes on at the old width.
#[test]
fn repl_set_threads_too_wide_keeps_the_session() {
    let file = corpus("semantics/fig4.5-control-mechanics.ll");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(["repl", &file])
        .env("NO_COLOR", "1")
        .env("HOME", std::env::temp_dir())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(b"set threads 18446744073709551615\nset threads 100000000\nset\n")
            .expect("write");
    }
    let o = child.wait_with_output().expect("wait");
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "the failed set is reported: {out}"
    );
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    assert_eq!(out.matches("error: set threads: W = ").count(), 2, "{out}");
    assert!(out.contains("W = 2,"), "the session keeps W = 2: {out}");
}
