//! Honest exit codes (docs/cli.md "Exit codes"): a command that compared or
//! explored nothing, or whose every outcome is undefined, says so and exits 1;
//! every command that runs a program warns about arguments without a value, as
//! `run` does; a flag naming something the program lacks is a usage error (exit
//! 2) found before the run.

use crate::common::{code, pllvm, require, stderr, stdout, temp_file};

/// A function of one argument that returns it plus one.
const INC: &str = "define i32 @inc(i32 %x) {\nentry:\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n";

/// A function whose every lane divides by zero when `z` is 0.
const DIV: &str = "define i32 @f(i32 %z) {\nentry:\n  %q = sdiv i32 1, %z\n  ret i32 %q\n}\n";

#[test]
fn diff_exec_that_compared_nothing_says_so_and_fails() {
    require("gcc", "gcc");
    let file = temp_file("inc.ll", INC);
    // No --arg: every lane returns ⊤, which no native value is compared with.
    let o = pllvm(&["diff-exec", &file, "--target", "scalar-c", "--threads", "4"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("warning:") && stderr(&o).contains("argument %x has no value"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("nothing was compared"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).contains("nothing compared"), "{}", stdout(&o));
    // With the argument, lanes are compared and agree.
    let o = pllvm(&[
        "diff-exec",
        &file,
        "--target",
        "scalar-c",
        "--threads",
        "4",
        "--arg",
        "x=0..4",
    ]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("agrees (4 lanes"), "{}", stdout(&o));
}

#[test]
fn explore_whose_every_ending_is_undefined_fails() {
    let file = temp_file("div.ll", DIV);
    let o = pllvm(&["explore", &file, "--threads", "2", "--arg", "z=0"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("every ending"), "{}", stderr(&o));
    // One defined ending is enough for success.
    let o = pllvm(&["explore", &file, "--threads", "2", "--arg", "z=1"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn explore_warns_about_arguments_without_a_value() {
    let file = temp_file("inc.ll", INC);
    let o = pllvm(&["explore", &file, "--threads", "2"]);
    assert!(
        stderr(&o).contains("warning: argument %x has no value"),
        "{}",
        stderr(&o)
    );
    let o = pllvm(&["explore", &file, "--threads", "2", "--arg", "x=3"]);
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
}

#[test]
fn an_unknown_dump_is_a_usage_error_before_the_run() {
    let file = temp_file("inc.ll", INC);
    let o = pllvm(&["run", &file, "--arg", "x=1", "--dump", "nosuch"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--dump nosuch: no buffer nosuch"),
        "{}",
        stderr(&o)
    );
    let o = pllvm(&["run", &file, "--arg", "x=1", "--dump", "@nosuch"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("no global @nosuch"), "{}", stderr(&o));
    // Nothing ran: no outcome was printed.
    assert!(!stdout(&o).contains("outcome"), "{}", stdout(&o));
}
