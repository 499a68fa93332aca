//! Bounds a user sets that reach past the host (docs/cli.md "Traces and
//! reports", docs/launch.md "Time limit and progress", docs/cli.md "Time and
//! progress"): an explicit trace limit larger than the host memory allows is
//! capped with a warning, a launch that does not end is stopped by `--time` as
//! a `limit:` outcome, and `transform --check`, `diff-exec` and `analyze
//! --compare-llvm` stopped by `--time` report what they decided and claim
//! nothing more; `diff-exec`'s native batch is cut off by it too; a plain
//! `analyze`, `transform` and `compile` stopped by it print and write nothing,
//! say where they were, and leave no tool they started running.
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

/// A loop whose block writes 24 values: at W = 4096 each trace row of the
/// REPL (which records the values written) holds about 24 × 4096 lanes.
fn wide_rows() -> String {
    let mut s = String::from("define i32 @f(i32 %x) {\na:\n  br label %b\nb:\n");
    s += "  %v0 = add i32 %x, 1\n";
    for k in 1..24 {
        s += &format!("  %v{k} = add i32 %v{}, 1\n", k - 1);
    }
    s + "  br label %b\n}\n"
}

/// The REPL at W = 4096 under a 600 MB address space: its usual trace
/// window (256 rows, up to 512 held) of rows of 24 values would take over a
/// GiB, so the window is cut to what fits a quarter of the memory left, with
/// a warning in the banner naming the rows kept, as `run --trace-limit` is
/// capped; the session then steps as usual. Before, the REPL kept its window
/// whatever the host had, and a long `continue` grew until the allocator
/// aborted it.
#[test]
fn the_repl_trace_window_is_capped_by_host_memory_with_a_warning() {
    let file = temp_file("wide-rows.ll", wide_rows());
    let o = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 600000 && printf 'step 3\\nstate\\n' | exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_pllvm"))
        .args(["repl", &file, "--threads", "4096", "--arg", "x=1"])
        .output()
        .expect("run pllvm under sh");
    let out = format!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("warning: the session would keep up to 512 trace rows of 4096 lanes, about")
            && out.contains("it keeps the last"),
        "{out}"
    );
    assert!(out.contains("step 3: running"), "{out}");
}

/// A kernel whose thread 37 never leaves its loop: the other threads return
/// their id.
const ONE_SPINS: &str = "define i32 @k(i32 %t) {
a:
  %c = icmp eq i32 %t, 37
  br i1 %c, label %b, label %x
b:
  br label %b
x:
  ret i32 %t
}
";

/// A launch with an infinite loop and `--time 1` ends as a `limit:` outcome
/// (exit 1), not a kill and not a hang: with one job, arrays 0-3 finish, array
/// 4 (threads 32..40, thread 37 spinning) is stopped while running, and
/// arrays 5-31 are not started; the report names each part, the finished
/// arrays keep their results, and `--json` says the same in `time_limit`.
/// Before, a launch had no time limit: only `--max-steps` in each array ended
/// it.
#[test]
fn a_launch_stopped_by_time_is_a_limit_outcome_naming_the_finished_arrays() {
    let file = temp_file("one-spins.ll", ONE_SPINS);
    let args = [
        "run",
        &file,
        "--grid",
        "256",
        "--threads",
        "8",
        "--lane-id",
        "t",
        "--jobs",
        "1",
        "--max-steps",
        "1000000000000",
        "--time",
        "1",
    ];
    let o = crate::common::pllvm(&args);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(
        out.contains("outcome: limit: time limit reached (--time sets it)\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "time limit of 1 s reached: 4 of 32 thread arrays finished: 0..4\n  stopped while running: 4 (1)\n  not started: 5..32 (27)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("  thread array 4 (threads 32..40): limit: time limit reached"),
        "{out}"
    );
    assert!(out.contains("result: [0, 1, 2, 3, 4, 5,"), "{out}");
    let mut json = args.to_vec();
    json.push("--json");
    let o = crate::common::pllvm(&json);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(doc["outcome"], "limit: time limit reached (--time sets it)");
    assert_eq!(
        doc["time_limit"],
        serde_json::json!({
            "seconds": 1.0, "reached": true,
            "finished": [[0, 4]], "stopped": [[4, 5]], "not_started": [[5, 32]],
        })
    );
    assert_eq!(doc["arrays_not_returned"][0]["array"], 4);
}

/// A single run of a loop no lane leaves ends at `--time` with the same
/// outcome (exit 1), long before its step limit.
#[test]
fn a_run_stopped_by_time_is_a_limit_outcome() {
    let file = temp_file("inf-time.ll", INFINITE);
    let o = crate::common::pllvm(&[
        "run",
        &file,
        "--max-steps",
        "1000000000000",
        "--time",
        "0.5",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "outcome: limit: time limit reached (--time sets it)\n"
    );
    let o = crate::common::pllvm(&["run", &file, "--time", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// A loop that counts up from 1 until it meets `%n`: with `n = 0` it runs
/// for 2^64 steps, and every state differs (no exploration or state hashing
/// ends it).
const COUNTING: &str = "define i64 @f(i64 %n) {
a:
  br label %b
b:
  %i = phi i64 [0, %a], [%j, %b]
  %j = add i64 %i, 1
  %c = icmp ne i64 %j, %n
  br i1 %c, label %b, label %e
e:
  ret i64 %j
}
";

/// Run inputs that take the step limit out of the way, so that only `--time`
/// stops a run of [`COUNTING`].
const NO_STEP_LIMIT: &str = r#"{"max_steps": 1000000000000}"#;

/// `transform --check --time 1` on a loop that does not end: every stage is
/// "not decided" (never "ok"), stderr says the check is partial, and the exit
/// code is 3, as for an exploration cut off. Before, `transform` took no
/// `--time` (exit 2) and the check ran until its step limit.
#[test]
fn transform_check_stopped_by_time_decides_nothing() {
    let file = temp_file("count.ll", COUNTING);
    let input = temp_file("no-step-limit.json", NO_STEP_LIMIT);
    let o = crate::common::pllvm(&[
        "transform",
        &file,
        "--pass",
        "dlt,pl",
        "--check",
        "--arg",
        "n=0",
        "--input",
        &input,
        "--time",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let not_decided = "not decided: time limit reached (--time sets it) while finding the original program's outcomes";
    assert_eq!(
        stdout(&o),
        format!(
            "naive (the program as written, under OBL): {not_decided}\ndlt: {not_decided}\npl: {not_decided}\n"
        )
    );
    assert!(
        stderr(&o).contains("the check is partial"),
        "{}",
        stderr(&o)
    );
    // Without `--check`, `--time` bounds the transform, which ends in time.
    let o = crate::common::pllvm(&["transform", &file, "--pass", "dlt", "--time", "600"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// `diff-exec --time 1` on the same loop: the interpreter's run ends at the
/// deadline and the run is reported as cut off (never "agrees"), in text and
/// in the `--json` document, with exit code 3. Before, `diff-exec` took no
/// `--time` (exit 2).
#[test]
fn diff_exec_stopped_by_time_compares_nothing_and_says_so() {
    crate::common::require("gcc", "gcc");
    let file = temp_file("count.ll", COUNTING);
    let input = temp_file(
        "no-step-limit.json",
        r#"{"threads": 4, "max_steps": 1000000000000, "args": {"n": 0}}"#,
    );
    let args = [
        "diff-exec",
        &file,
        "--target",
        "scalar-c",
        "--input",
        &input,
        "--time",
        "1",
    ];
    let o = crate::common::pllvm(&args);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "{file} @f [flags, 4 threads]: not compared, cut off by --time: the interpreter's run ended: limit: time limit reached (--time sets it)\n"
        )
    );
    assert!(
        stderr(&o).contains("the comparison is partial"),
        "{}",
        stderr(&o)
    );
    let o = crate::common::pllvm(&[&args[..], &["--json"]].concat());
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON document");
    assert_eq!(doc["runs"][0]["verdict"], "cut-off");
    assert_eq!(doc["agree"], false);
}

/// `analyze --compare-llvm --time 1` on the loop with a `; run:` line whose
/// step limit is out of the way: the run is left out of `observed`, a line
/// says so, and the exit code is 3. Before, `analyze` took no `--time` (exit 2)
/// and the comparison ran the loop to its step limit.
#[test]
fn compare_llvm_stopped_by_time_leaves_the_run_out_and_says_so() {
    crate::common::require("opt-22", "llvm-22");
    let file = temp_file(
        "count-run.ll",
        format!("; run: --threads 2 --arg n=0 --max-steps 1000000000000\n{COUNTING}"),
    );
    let o = crate::common::pllvm(&["analyze", &file, "--compare-llvm", "--time", "1"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stdout(&o).ends_with(
            "; observed is partial: time limit reached (--time sets it) before 1 `; run:` line ended, left out\n"
        ),
        "{}",
        stdout(&o)
    );
    // Without `--compare-llvm`, `--time` bounds the analyses, which end in time.
    let o = crate::common::pllvm(&["analyze", &file, "--time", "600"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Asserts that `o` is a command `--time` cut off: exit 3, nothing on
/// stdout, and one line on stderr naming the limit, a stage that starts with
/// one of `stages`, and that nothing was written.
fn assert_cut_off(o: &std::process::Output, command: &str, seconds: &str, stages: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert_eq!(stdout(o), "", "{err}");
    let head =
        format!("pllvm {command}: time limit of {seconds} s reached (--time sets it) while ");
    let stage = err
        .strip_prefix(&head)
        .and_then(|rest| rest.strip_suffix("; nothing written\n"))
        .unwrap_or_else(|| panic!("not a cut-off line: {err}"));
    assert!(
        stages.iter().any(|s| stage.starts_with(s)),
        "stage {stage:?} is none of {stages:?}"
    );
}

/// The processes whose id a fake tool wrote to `pids` (one per line) have all
/// ended (gone, or a zombie nobody reaps), within a few seconds.
fn assert_ended(pids: &std::path::Path) {
    let text = std::fs::read_to_string(pids).expect("the fake tool ran and wrote its pids");
    let ids: Vec<&str> = text.split_whitespace().collect();
    assert!(!ids.is_empty(), "no pid in {}", pids.display());
    let running = |id: &str| {
        std::fs::read_to_string(format!("/proc/{id}/stat"))
            .ok()
            .and_then(|stat| {
                let state = stat.rsplit_once(") ")?.1.chars().next()?;
                Some(state != 'Z' && state != 'X')
            })
            .unwrap_or(false)
    };
    let start = std::time::Instant::now();
    while ids.iter().any(|id| running(id)) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "left running: {:?}",
            ids.iter().filter(|id| running(id)).collect::<Vec<_>>()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A folder holding an executable `name` that answers `--version` and
/// otherwise starts a `sleep` of ten minutes in the background, writes its own
/// pid and the sleep's to `pids` in the same folder, and waits: a stand-in for
/// a tool that does not end, and that started a process of its own (as gcc
/// starts cc1, as and ld).
fn fake_tool(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let script = temp_file(
        name,
        "#!/bin/sh\n\
         case \"$1\" in --version|-V) echo \"a stand-in that never ends\"; exit 0;; esac\n\
         sleep 600 &\n\
         dir=$(dirname \"$0\")\n\
         echo $$ >> \"$dir/pids\"\n\
         echo $! >> \"$dir/pids\"\n\
         wait\n",
    );
    let script = std::path::PathBuf::from(script);
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
            .expect("make the fake tool executable");
    }
    let dir = script.parent().expect("a folder").to_path_buf();
    let pids = dir.join("pids");
    (dir, pids)
}

/// `PATH` with `dir` first.
fn path_with(dir: &std::path::Path) -> std::ffi::OsString {
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).expect("PATH")
}

/// `pllvm analyze --time 1` on 40,000 diamonds, which its analyses take
/// about ten seconds on: it ends at the limit with exit 3, nothing on stdout, a line
/// on stderr naming the limit and the stage (parsing or analysing), and with
/// `--json` one document of schema `pllvm-analyze/2` that reports no function
/// and says why in `time_limit`. Before, `analyze` took `--time` only with
/// `--compare-llvm` (exit 2).
#[test]
fn analyze_stopped_by_time_prints_nothing_and_names_the_stage() {
    let file = temp_file("diamonds.ll", crate::common::diamonds(40_000));
    let start = std::time::Instant::now();
    let o = crate::common::pllvm(&["analyze", &file, "--time", "1"]);
    assert_cut_off(
        &o,
        "analyze",
        "1",
        &[
            "parsing and verifying",
            "analysing @f (thesis, popl, llvm, sa)",
        ],
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
    let o = crate::common::pllvm(&["analyze", &file, "--time", "1", "--json"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(doc["schema"], "pllvm-analyze/2");
    assert_eq!(doc["functions"], serde_json::json!([]));
    assert_eq!(doc["time_limit"]["reached"], true);
    assert_eq!(doc["time_limit"]["seconds"], 1.0);
    assert!(doc["time_limit"]["stage"].is_string(), "{doc}");
    assert!(stderr(&o).contains("nothing written"), "{}", stderr(&o));
}

/// `analyze --svg --time 1` while Graphviz's `dot` (a stand-in that does not
/// end, first on the `PATH`) draws: `dot` and the process it started are
/// killed, the stage names it, and nothing is printed.
#[test]
fn analyze_svg_stopped_by_time_kills_dot() {
    let file = temp_file(
        "inc.ll",
        "define i32 @f(i32 %x) {\nentry:\n  ret i32 %x\n}\n",
    );
    let (dir, pids) = fake_tool("dot");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(["analyze", &file, "--svg", "--time", "1"])
        .env("PATH", path_with(&dir))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run pllvm");
    assert_cut_off(
        &o,
        "analyze",
        "1",
        &["drawing the picture with Graphviz's dot"],
    );
    assert_ended(&pids);
}

/// `transform --pass dlt,boscc,pl --time 1 -o OUT` on 10,000 diamonds (about
/// ten seconds of work): it
/// ends at the limit with exit 3, names the stage, leaves OUT as it was (and
/// no temporary beside it), and prints nothing. Before, `transform` took
/// `--time` only with `--check` (exit 2).
#[test]
fn transform_stopped_by_time_writes_nothing() {
    let file = temp_file("diamonds.ll", crate::common::diamonds(10_000));
    let out = temp_file("out.ll", "old\n");
    let o = crate::common::pllvm(&[
        "transform",
        &file,
        "--pass",
        "dlt,boscc,pl",
        "-o",
        &out,
        "--time",
        "1",
    ]);
    assert_cut_off(
        &o,
        "transform",
        "1",
        &["parsing and verifying", "transforming @f (dlt,boscc,pl)"],
    );
    assert_eq!(std::fs::read_to_string(&out).expect("OUT"), "old\n");
    let dir = std::path::Path::new(&out).parent().expect("a folder");
    let names: Vec<String> = std::fs::read_dir(dir)
        .expect("the folder")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["out.ll"]);
}

/// `compile --emit object --time 1` while llc-19 (a stand-in that does not
/// end, first on the `PATH`) builds: llc-19 and the process it started are
/// killed, the stage names llc-19, the output file keeps its contents, and the
/// exit code is 3. The same compile with the real tools and a generous limit
/// writes the object. Before, `compile` took no `--time` (exit 2).
#[test]
fn compile_stopped_by_time_kills_its_tools_and_writes_nothing() {
    crate::common::require("gcc", "gcc");
    crate::common::require("llc-19", "llvm-19");
    let file = temp_file(
        "inc.ll",
        "define i32 @f(i32 %x) {\nentry:\n  ret i32 %x\n}\n",
    );
    let out = temp_file("k.o", "old\n");
    let (dir, pids) = fake_tool("llc-19");
    let args = [
        "compile", &file, "--target", "avx2", "--emit", "object", "-o", &out,
    ];
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(args)
        .args(["--time", "1"])
        .env("PATH", path_with(&dir))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run pllvm");
    assert_cut_off(&o, "compile", "1", &["building with llc-19"]);
    assert_ended(&pids);
    assert_eq!(std::fs::read_to_string(&out).expect("OUT"), "old\n");
    let o = crate::common::pllvm(&[&args[..], &["--time", "600"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::read(&out).expect("OUT").starts_with(b"\x7fELF"));
}

/// `diff-exec --target neon --time 3` whose native batch does not end (a
/// stand-in for `qemu-aarch64` first on the `PATH`, which the batch runs
/// under): the interpreter's run returns at once, the native runs are cut off
/// at the deadline and reported so (never "agrees"), in text and in `--json`,
/// with exit code 3, and the stand-in is killed.
#[test]
fn diff_exec_native_batch_stopped_by_time_is_reported_cut_off() {
    crate::common::require("llc-19", "llvm-19");
    crate::common::require("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu");
    let file = temp_file(
        "inc.ll",
        "define i32 @f(i32 %x) {\nentry:\n  ret i32 %x\n}\n",
    );
    let (dir, pids) = fake_tool("qemu-aarch64");
    let args = [
        "diff-exec",
        &file,
        "--target",
        "neon",
        "--threads",
        "4",
        "--arg",
        "x=0..4",
        "--time",
        "3",
    ];
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_pllvm"))
            .args(args)
            .args(extra)
            .env("PATH", path_with(&dir))
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run pllvm")
    };
    let start = std::time::Instant::now();
    let o = run(&[]);
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "{file} @f [flags, 4 threads]: not compared, cut off by --time: the native runs had not ended: time limit reached (--time sets it)\n"
        )
    );
    assert!(
        stderr(&o).contains("the comparison is partial"),
        "{}",
        stderr(&o)
    );
    assert_ended(&pids);
    let o = run(&["--json"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(doc["runs"][0]["verdict"], "cut-off");
    assert_eq!(doc["agree"], false);
    assert_ended(&pids);
}
