//! A reader of `pllvm`'s standard output that goes away early (`pllvm print big.ll |
//! head -1`) ends `pllvm` quietly with status 0, as it ends a Unix filter: no panic
//! (status 101, "failed printing to stdout") and no error message.

use crate::common;
use common::temp_file;

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};

/// A straight-line function of `n` named adds: its printed form is far larger
/// than a pipe's buffer, so `pllvm` is still writing when the reader leaves.
fn big_module(n: usize) -> String {
    let mut text = String::from("define i32 @f(i32 %a) {\nentry:\n");
    let mut prev = "%a".to_string();
    for i in 0..n {
        text.push_str(&format!("  %value.{i} = add i32 {prev}, 1\n"));
        prev = format!("%value.{i}");
    }
    text.push_str(&format!("  ret i32 {prev}\n}}\n"));
    text
}

/// A loop of `n` iterations: its `--trace table` is one line per step.
const LONG_LOOP: &str = "define i32 @f() {
entry:
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %j, %h ]
  %j = add i32 %i, 1
  %c = icmp slt i32 %j, 200000
  br i1 %c, label %h, label %x
x:
  ret i32 %j
}
";

/// Runs `pllvm args`, reads one line of its standard output and closes the pipe;
/// returns the first line, the exit status and what it printed on stderr.
fn read_one_line_then_close(args: &[&str]) -> (String, Option<i32>, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pllvm");
    first_line_then_close(child)
}

/// Reads one line of `child`'s standard output and closes the pipe, as `head -1`
/// does; returns the line, the exit status and what it printed on stderr.
fn first_line_then_close(mut child: Child) -> (String, Option<i32>, String) {
    let mut first = String::new();
    {
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        out.read_line(&mut first).expect("read a line");
    } // The reader goes away here, as `head -1` does.
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read stderr");
    let status = child.wait().expect("wait for pllvm");
    (first, status.code(), err)
}

#[test]
fn a_closed_stdout_pipe_ends_every_printing_subcommand_quietly() {
    let big = temp_file("big.ll", big_module(100_000));
    let looping = temp_file("loop.ll", LONG_LOOP);
    let cases: [&[&str]; 5] = [
        &["print", &big],
        &["export-llvm", &big],
        &["analyze", &big],
        &["run", "--trace", "table", &looping],
        &["run", "--trace", "json", &looping],
    ];
    for args in cases {
        let (first, code, err) = read_one_line_then_close(args);
        assert!(!first.is_empty(), "{args:?}: printed nothing");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        assert_eq!(code, Some(0), "{args:?}: exit status, stderr: {err}");
        assert!(err.is_empty(), "{args:?}: wrote to stderr: {err}");
    }
}

/// `pllvm repl` reading a script whose output goes to a reader that leaves after
/// the first line (`pllvm repl loop.ll < script | head -1`) ends as `print` does:
/// quietly, status 0, nothing on stderr. Before, it panicked (status 101) in the
/// echo of the next command.
#[test]
fn a_closed_stdout_pipe_ends_a_repl_script_quietly() {
    let looping = temp_file("repl-loop.ll", LONG_LOOP);
    let mut child = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(["repl", &looping])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pllvm");
    // Far more output than a pipe holds: every `help` prints the command list.
    let script = "step 3\ntrace\nhelp\n".repeat(2_000);
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        // The REPL stops reading when it ends: a failed write here is expected.
        let _ = stdin.write_all(script.as_bytes());
    });
    let (first, code, err) = first_line_then_close(child);
    writer.join().expect("the script writer");
    assert!(!first.is_empty(), "printed nothing");
    assert!(!err.contains("panicked"), "the REPL panicked: {err}");
    assert_eq!(code, Some(0), "exit status, stderr: {err}");
    assert!(err.is_empty(), "wrote to stderr: {err}");
}
