//! Scripted REPL sessions (`pllvm repl` driven by stdin) as golden tests.
//!
//! Each `cli/tests/repl/NAME.in` is a session: its first line `# pllvm repl ARGS`
//! gives the command line (paths relative to the workspace root), every other line
//! is typed at the prompt. Two oracles:
//!
//! - `# expect: TEXT` lines state, by hand from the spec, a line that the output of
//!   the last command before them must contain (whitespace runs compare equal).
//!   They are never rewritten by tools.
//! - `NAME.out` is the whole transcript, a snapshot the tool owns:
//!   `BLESS=1 cargo test -p pllvm --test repl_sessions` rewrites it.
//!
//! - `# exit: N [why]` states the exit code (by hand): 1 when a command of the script
//!   fails, 0 (the default, without the line) when every command runs.
//!
//! Every session must also end normally: the stated exit code and nothing on
//! stderr, so no input (garbage included) panics or ends the session early.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const PROMPT: &str = "pllvm> ";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(".."))
}

/// A fresh, empty directory to serve as HOME (so no history file is touched).
fn temp_home(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pllvm-repl-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs `pllvm repl ARGS` with `input` on stdin; returns (stdout, stderr, exit code).
pub fn run_repl(args: &[&str], input: &[u8], home: &Path) -> (String, String, Option<i32>) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .arg("repl")
        .args(args)
        .current_dir(workspace())
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pllvm");
    // Feeding stdin may fail with a broken pipe if the session quits early; the
    // output check below catches a session that ended too soon.
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    let out = child.wait_with_output().expect("wait for pllvm");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

fn normalize(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The output of each input line: the lines after its echo up to the next echo.
fn segments(stdout: &str) -> Vec<Vec<&str>> {
    let mut segs: Vec<Vec<&str>> = Vec::new();
    for line in stdout.lines() {
        if line.starts_with(PROMPT) {
            segs.push(Vec::new());
        } else if let Some(last) = segs.last_mut() {
            last.push(line);
        }
    }
    segs
}

fn check_session(name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/repl");
    let input_path = dir.join(format!("{name}.in"));
    let input = std::fs::read_to_string(&input_path).expect("session file");
    let first = input.lines().next().unwrap_or("");
    let args: Vec<&str> = first
        .strip_prefix("# pllvm repl")
        .unwrap_or_else(|| panic!("{name}.in: first line must be '# pllvm repl ARGS'"))
        .split_whitespace()
        .collect();
    let home = temp_home(name);
    let (stdout, stderr, code) = run_repl(&args, input.as_bytes(), &home);
    let _ = std::fs::remove_dir_all(&home);
    let want_code = input
        .lines()
        .find_map(|l| l.trim().strip_prefix("# exit:"))
        .map_or(0, |c| {
            c.split_whitespace()
                .next()
                .and_then(|n| n.parse::<i32>().ok())
                .expect("# exit: N")
        });
    assert_eq!(
        code,
        Some(want_code),
        "{name}: pllvm repl exited with {code:?}, not {want_code}\nstderr:\n{stderr}\nstdout:\n{stdout}"
    );
    assert!(stderr.is_empty(), "{name}: stderr is not empty:\n{stderr}");

    // The hand-written expectations.
    let segs = segments(&stdout);
    let mut failures = Vec::new();
    let mut last_command: Option<usize> = None;
    for (k, line) in input.lines().enumerate() {
        let trimmed = line.trim();
        if let Some(text) = trimmed.strip_prefix("# expect:") {
            let Some(j) = last_command else {
                failures.push(format!("{name}.in:{}: expect before any command", k + 1));
                continue;
            };
            let want = normalize(text);
            let seg = segs.get(j).map(Vec::as_slice).unwrap_or(&[]);
            if !seg.iter().any(|l| normalize(l) == want) {
                failures.push(format!(
                    "{name}.in:{}: the output of line {} has no line\n    {want}\n  it was:\n{}",
                    k + 1,
                    j + 1,
                    seg.iter()
                        .map(|l| format!("    {l}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                ));
            }
        } else if !trimmed.is_empty() && !trimmed.starts_with('#') {
            last_command = Some(k);
        }
    }
    assert!(
        segs.len() >= input.lines().count() || input.lines().any(|l| l.trim() == "quit"),
        "{name}: the session ended after {} of {} lines",
        segs.len(),
        input.lines().count()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // The snapshot.
    let out_path = dir.join(format!("{name}.out"));
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&out_path, &stdout).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&out_path).unwrap_or_else(|_| {
        panic!("{name}.out is missing: BLESS=1 cargo test -p pllvm --test repl_sessions")
    });
    if expected != stdout {
        let diff = similar::TextDiff::from_lines(&expected, &stdout);
        panic!(
            "{name}: the transcript differs from {name}.out (BLESS=1 cargo test -p pllvm --test repl_sessions rewrites it):\n{}",
            diff.unified_diff().header("expected", "actual")
        );
    }
}

#[test]
fn fig4_5_walkthrough() {
    check_session("fig4.5-walkthrough");
}

#[test]
fn illegal_sched_explained() {
    check_session("illegal-sched");
}

#[test]
fn back_restores_state_exactly() {
    check_session("back-exact");
}

#[test]
fn breakpoint_on_divergence() {
    check_session("break-divergence");
}

#[test]
fn garbage_never_ends_the_session() {
    check_session("garbage");
}

#[test]
fn undefined_behaviour_then_back() {
    check_session("undefined-back");
}

#[test]
fn scheduling_policies() {
    check_session("policies");
}

#[test]
fn memory_objects_and_bytes() {
    check_session("memory");
}

#[test]
fn analyses_next_to_the_observed_behaviour() {
    check_session("analyze-uniform");
}

#[test]
fn every_session_file_has_a_test() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/repl");
    let this = include_str!("repl_sessions.rs");
    for entry in std::fs::read_dir(&dir).expect("tests/repl") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "in") {
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            assert!(
                this.contains(&format!("check_session(\"{stem}\")")),
                "{} has no test in repl_sessions.rs",
                path.display()
            );
        }
    }
}

/// Bytes that are not UTF-8, control characters and an endless line are garbage
/// like any other: one error line each, and the session goes on.
#[test]
fn binary_input_is_an_error_not_a_crash() {
    let mut input: Vec<u8> = b"\xff\xfe\x00garbage\n\x1b[A\x1b[B\n".to_vec();
    input.extend(std::iter::repeat_n(b'z', 100_000));
    input.extend(b"\nstate\n");
    let home = temp_home("binary");
    let (stdout, stderr, code) = run_repl(&[], &input, &home);
    let _ = std::fs::remove_dir_all(&home);
    // Three commands failed: the script exits 1 (and still runs `state`).
    assert!(code == Some(1) && stderr.is_empty(), "{code:?} {stderr}");
    let errors = stdout.lines().filter(|l| l.starts_with("error: ")).count();
    assert_eq!(errors, 3, "{stdout}");
    assert!(
        stdout
            .lines()
            .all(|l| l.chars().count() < 400 || l.starts_with(PROMPT))
    );
    // `state` still answers after the garbage: both lanes wait at the entry A.
    assert!(stdout.contains("0    | ⊥  | A"), "{stdout}");
}

/// A script exits 0 when every command ran, 1 when one failed, also when the
/// failed command is followed by good ones and by `quit`.
#[test]
fn a_failed_command_makes_the_script_exit_1() {
    let home = temp_home("exit-code");
    let (_, stderr, good) = run_repl(&[], b"step\nstate\n", &home);
    let (out, _, bad) = run_repl(&[], b"step\nfrobnicate\nstate\nquit\n", &home);
    let (_, _, bad_eof) = run_repl(&[], b"set threads 0\nstep\n", &home);
    let _ = std::fs::remove_dir_all(&home);
    assert_eq!(good, Some(0), "{stderr}");
    assert_eq!(bad, Some(1), "{out}");
    assert!(out.contains("step 1: running"), "the script went on: {out}");
    assert_eq!(bad_eof, Some(1));
}

/// Bounded REPL state: `run` on a loop no lane leaves, at W = 16, runs the default
/// million steps to `out of fuel` within 200 MB of peak RSS (it reached 5 GB when
/// the session kept every trace row and a snapshot per step): the session keeps
/// the last 1,000 snapshots and the last 10,000 trace rows. `back` goes back
/// 1,000 blocks, then says it keeps no more; `trace` says how many rows it dropped.
#[test]
fn run_forever_keeps_a_bounded_window() {
    let home = temp_home("forever");
    let program = home.join("forever.ll");
    std::fs::write(
        &program,
        "define void @f() {\na:\n  br label %b\nb:\n  br label %b\n}\n",
    )
    .expect("write program");
    let program = program.display().to_string();
    let (stdout, stderr, code) = run_repl(
        &[&program, "--threads", "16"],
        b"run\nback 2000\nback\ntrace\n",
        &home,
    );
    let rss = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage")
        .max_rss();
    let _ = std::fs::remove_dir_all(&home);
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(code, Some(1), "the second back fails");
    let segs = segments(&stdout);
    assert!(
        segs[0].contains(&"outcome: out of fuel: step limit reached"),
        "{:?}",
        segs[0]
    );
    // The ended attempt counts as one step, then 1,000 snapshots.
    assert!(
        segs[1][0].starts_with("back 1001 steps: 999000 blocks scheduled"),
        "{:?}",
        segs[1]
    );
    assert!(
        segs[2][0].starts_with("error: cannot go back from step 999000"),
        "{:?}",
        segs[2]
    );
    assert_eq!(
        segs[3][0],
        "(the first 990000 rows are not kept: the session keeps the last 10000 rows of the trace)"
    );
    // The header and rows 990,001..999,000.
    assert_eq!(segs[3].len(), 2 + 9000);
    assert!(rss < 200 * 1024, "peak RSS {rss} KiB");
}
