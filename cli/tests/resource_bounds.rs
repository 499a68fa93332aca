//! Bounds a user sets that reach past the host (docs/cli.md "Traces and
//! reports", docs/launch.md "Time limit and progress"): an explicit trace limit
//! larger than the host memory allows is capped with a warning, and a launch
//! that does not end is stopped by `--time` as a `limit:` outcome.
//!
//! The trace test lowers the address space of its own child only (`ulimit -v`
//! in the shell that starts it), never this process's: no other test's child
//! inherits it, and no test of this binary measures its children's RSS (those
//! are `host_bounds` and `memory_limit`, whose bounds this child's few hundred
//! MiB would spoil).

use crate::common::{stderr, stdout, temp_file};
use std::process::Command;

/// A loop no lane leaves: every run of it ends at the step limit.
const INFINITE: &str = "define void @f() {\na:\n  br label %b\nb:\n  br label %b\n}\n";

/// `pllvm ARGS` under an address-space limit of `kib` KiB (`ulimit -v`).
fn pllvm_within(kib: u64, args: &[&str]) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_pllvm"))
        .args(args)
        .output()
        .expect("run pllvm under sh")
}

/// `--trace-limit 1000000` at W = 1024 asks for about 70 GiB of trace rows.
/// Under a 300 MB address space the run keeps the rows that fit a quarter of
/// what is left, says so in a warning, and ends with its outcome (out of fuel,
/// exit 1) and one JSON document; before, it grew until the allocator aborted
/// the process (signal 6) after about 3,700 rows.
#[test]
fn an_explicit_trace_limit_is_capped_by_host_memory_with_a_warning() {
    let file = temp_file("inf-trace-host.ll", INFINITE);
    let o = pllvm_within(
        300_000,
        &[
            "run",
            &file,
            "--threads",
            "1024",
            "--max-steps",
            "5000",
            "--trace",
            "json",
            "--trace-limit",
            "1000000",
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "warning: a trace of 1000000 rows (--trace-limit) of 1024 lanes would take about"
        ) && err.contains("the trace keeps"),
        "{err}"
    );
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON document");
    assert_eq!(doc["outcome"], "out of fuel: step limit reached");
    let rows = doc["trace"].as_array().expect("the trace");
    assert!(
        rows.iter().any(|r| r.get("omitted").is_some()),
        "the rows beyond the cap are omitted"
    );
}
