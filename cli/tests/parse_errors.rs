//! How `pllvm` reports a file it cannot read as P-LLVM: one `error:`
//! prefix per message (`file:line:col: error: ...`, never `error: file:...: error:`),
//! a long source line cut around the caret, and a byte that is not UTF-8 named at
//! its position instead of a generic read failure.

use crate::common;
use common::{pllvm, temp_file};

use std::process::Command;

#[test]
fn parse_and_verify_errors_have_one_error_prefix() {
    let parse = temp_file("parse.ll", b"define i32 @f() {\n  ret i32 %t\n}\n");
    let verify = temp_file(
        "verify.ll",
        b"define void @f() {\nentry:\n  br label %entry\n}\n",
    );
    for (file, subcommand) in [(&parse, "check"), (&parse, "run"), (&verify, "print")] {
        let o = pllvm(&[subcommand, file]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{subcommand} {file}: {err}");
        assert!(err.starts_with(&format!("{file}:")), "{err}");
        let headers = err.lines().filter(|l| l.contains("error:")).count();
        let prefixes = err.matches("error:").count();
        assert!(headers > 0 && prefixes == headers, "{err}");
    }
}

#[test]
fn a_long_line_is_cut_around_the_caret() {
    let long = "v".repeat(5000);
    let src = format!(
        "define i32 @f(i32 %a) {{\n  %{long} = add i32 %a, 1\n  %x = add i32 %{long}, %t ; {}\n  ret i32 %x\n}}\n",
        "c".repeat(5000)
    );
    let file = temp_file("long.ll", src.as_bytes());
    let o = pllvm(&["check", &file]);
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines[0],
        format!("{file}:3:5019: error: use of undefined value %t")
    );
    assert!(lines[1].chars().count() < 110, "{}", lines[1]);
    assert!(
        lines[1].starts_with('…') && lines[1].ends_with('…'),
        "{err}"
    );
    let caret = lines[2].chars().take_while(|&c| c != '^').count();
    let under: String = lines[1].chars().skip(caret).take(2).collect();
    assert_eq!(under, "%t", "{err}");
}

#[test]
fn a_byte_that_is_not_utf8_is_named_at_its_position() {
    let file = temp_file("latin1.ll", b"define i32 @f() {\n  ret i32 0 \xe9\n}\n");
    for subcommand in ["check", "print", "run", "export-llvm"] {
        let o = pllvm(&[subcommand, &file]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{subcommand}: {err}");
        assert!(
            err.starts_with(&format!("{file}:2:13: error: invalid UTF-8 byte 0xe9\n")),
            "{subcommand}: {err}"
        );
    }
}

#[test]
fn the_repl_names_a_byte_that_is_not_utf8_at_its_position() {
    let file = temp_file(
        "latin1-repl.ll",
        b"define i32 @f() {\n  ret i32 0 \xe9\n}\n",
    );
    let o = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(["repl", &file])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run pllvm repl");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{file}:2:13: invalid UTF-8 byte 0xe9")),
        "{err}"
    );
}
