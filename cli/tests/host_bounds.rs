//! What a user feeds `pllvm` must not exhaust the host: W is bounded
//! with a usage error, a run keeps only the trace its output needs, and a cut-off
//! exploration says so with its own exit code. Memory is measured as the peak RSS
//! of a child process (`getrusage(RUSAGE_CHILDREN)` after it is reaped, one child
//! per test binary at a time: each memory test runs its child alone in a fresh
//! process of this binary, see [`peak_rss_kib`]).

mod common;
use common::{children_peak_rss, corpus, pllvm, stderr, stdout, temp_file};

use std::io::Write;
use std::process::{Command, Output};

/// A loop no lane leaves: every run of it ends at the step limit.
const INFINITE: &str = "define void @f() {\na:\n  br label %b\nb:\n  br label %b\n}\n";

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

/// Runs `pllvm ARGS` and returns its output and the peak RSS in KiB of the
/// children this process has waited for (`getrusage(RUSAGE_CHILDREN)`): an upper
/// bound of this child's peak, as the other children of the test binary are small.
fn with_peak_rss(args: &[&str]) -> (Output, i64) {
    let o = pllvm(args);
    (o, (children_peak_rss() / 1024) as i64)
}

/// Item 2: `run` keeps no trace when nothing asks for it. An infinite loop at
/// W = 64 runs the default 1M steps to `out of fuel` within 200 MB (it reached
/// 5 GB when every row was kept).
#[test]
fn run_without_trace_keeps_no_trace() {
    let file = temp_file("inf-rss.ll", INFINITE);
    let (o, kib) = with_peak_rss(&["run", &file, "--threads", "64"]);
    assert!(
        stdout(&o).contains("outcome: out of fuel"),
        "{}",
        stderr(&o)
    );
    assert!(kib < 200 * 1024, "peak RSS {kib} KiB");
}

/// Item 2: `--trace table` keeps the first `--trace-limit` rows and the latest,
/// with the count of the rows between; `--trace json` the same with an
/// `{"omitted": N}` element; `--convergence` beyond the limit says it is not
/// computed instead of keeping every row.
#[test]
fn traces_are_bounded_by_the_trace_limit() {
    let file = temp_file("inf-trace.ll", INFINITE);
    let (o, kib) = with_peak_rss(&[
        "run",
        &file,
        "--threads",
        "64",
        "--max-steps",
        "200000",
        "--trace",
        "table",
        "--trace-limit",
        "5",
    ]);
    let out = stdout(&o);
    assert!(kib < 200 * 1024, "peak RSS {kib} KiB");
    let lines: Vec<&str> = out.lines().collect();
    // The header, rows 1-5, the gap, the latest row (step 200,000), the outcome
    // (a void function has no result line).
    assert_eq!(lines.len(), 9, "{out}");
    assert_eq!(lines[6], "… 199994 rows omitted", "{out}");
    assert!(lines[7].starts_with("b "), "{out}");
    let o = pllvm(&[
        "run",
        &file,
        "--max-steps",
        "100",
        "--trace",
        "json",
        "--trace-limit",
        "3",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    let json = &doc["trace"];
    let rows = json.as_array().expect("array");
    assert_eq!(rows.len(), 5, "{json}");
    assert_eq!(rows[3], serde_json::json!({ "omitted": 96 }));
    // A run within the limit prints every row and no gap.
    let o = pllvm(&["run", &file, "--max-steps", "4", "--trace", "table"]);
    assert_eq!(stdout(&o).lines().count(), 1 + 4 + 1, "{}", stdout(&o));
    let o = pllvm(&[
        "run",
        &file,
        "--max-steps",
        "50",
        "--convergence",
        "--trace-limit",
        "10",
    ]);
    assert!(
        stdout(&o).contains(
            "convergence: not computed: the run scheduled 50 blocks, more than the 10 trace rows kept"
        ),
        "{}",
        stdout(&o)
    );
}

/// A counter loop no lane leaves: every state is new, so only a bound ends the
/// exploration.
const COUNTER: &str = "define i32 @f() {\na:\n  br label %b\nb:\n  %i = phi i32 [ 0, %a ], [ %j, %b ]\n  %j = add i32 %i, 1\n  br label %b\n}\n";

/// Item 8: `explore --time` ends an exploration that the other bounds would let
/// run for hours; the report says it is truncated by the time limit and the exit
/// code is 3 (a partial report), as for `--max-states`. A complete exploration
/// exits 0.
#[test]
fn explore_cut_off_by_time_or_states_exits_3() {
    let file = temp_file("counter.ll", COUNTER);
    let huge = "1000000000";
    let o = pllvm(&[
        "explore",
        &file,
        "--time",
        "0.3",
        "--max-states",
        huge,
        "--max-steps",
        huge,
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("(truncated: time limit of 0.3 s reached)"),
        "{out}"
    );
    assert!(
        out.contains("terminates: unknown (bounds reached)"),
        "{out}"
    );
    let o = pllvm(&["explore", &file, "--max-states", "10"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stdout(&o).contains("(truncated: more than 10 states)"));
    let o = pllvm(&["explore", &file, "--time", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let done = corpus("semantics/fig4.5-control-mechanics.ll");
    let o = pllvm(&["explore", &done, "--threads", "2", "--arg", "x=0,1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("(exhaustive)"), "{}", stdout(&o));
}

/// A buffer read from a device (`--buffer x=f32:/dev/zero`: no size, no end) is
/// refused before a byte is read, and a file larger than the memory limit is
/// refused by its size, before it is read: both are errors naming the buffer
/// (exit 1) within a small peak RSS. Before, `/dev/zero` was read for 2.1 GB
/// before the memory limit was consulted.
#[test]
fn buffer_files_are_checked_against_the_memory_limit_before_reading() {
    let file = temp_file(
        "buffer-device.ll",
        "define void @k(ptr %x) {\na:\n  ret void\n}\n",
    );
    let (o, kib) = with_peak_rss(&["run", &file, "--buffer", "x=f32:/dev/zero"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--buffer x: /dev/zero is a device, not a file"),
        "{}",
        stderr(&o)
    );
    assert!(kib < 200 * 1024, "peak RSS {kib} KiB");
    let data = temp_file("buffer-100.bin", [0u8; 100]);
    let o = pllvm(&[
        "run",
        &file,
        "--buffer",
        &format!("x=f32:{data}"),
        "--memory-limit",
        "64",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("holds 100 bytes, more than the 64 bytes of guest memory left for it under the memory limit of 64 bytes"),
        "{}",
        stderr(&o)
    );
    // Within the limit the same file is read.
    let o = pllvm(&[
        "run",
        &file,
        "--buffer",
        &format!("x=f32:{data}"),
        "--dump",
        "x",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("x: [0.0, 0.0"), "{}", stdout(&o));
}
