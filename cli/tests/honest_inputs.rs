//! Honest inputs and outputs: the exit codes of docs/cli.md (2 for a
//! bad command line, 1 for a bad program or input file), arguments checked against
//! their parameter's type, missing inputs named before the run, flags that override
//! the `--input` file, one meaning of `replay:` everywhere, and the program from
//! standard input.

use crate::common;
use common::{code, corpus, pllvm, pllvm_with_stdin, stderr, stdout, temp_file};

/// A function of an `i32` and a pointer into a 16-byte global.
const ARGS: &str = "@Y = global [4 x i32] [i32 10, i32 20, i32 30, i32 40]
define i32 @f(i32 %x, ptr %p) {
a:
  %v = load i32, ptr %p
  %s = add i32 %v, %x
  ret i32 %s
}
";

fn args_file() -> String {
    temp_file("args.ll", ARGS)
}

#[test]
fn bad_flag_values_exit_2_with_the_flag_named() {
    let f = args_file();
    let cases: &[(&[&str], &str)] = &[
        (&["run", &f, "--sched", "foo"], "unknown scheduler 'foo'"),
        (&["run", &f, "--arg", "x"], "expected NAME=VALUE"),
        (
            &["run", &f, "--arg", "m=1", "--arg", "p=@Y"],
            "no such parameter",
        ),
        (&["run", &f, "--function", "nope"], "no function @nope"),
        (&["run", &f, "--mem", "@Z=1"], "no global @Z"),
        (&["explore", &f, "--function", "nope"], "no function @nope"),
        (&["explore", &f, "--arg", "m=1"], "no such parameter"),
        (
            &["analyze", &f, "--analysis", "bogus"],
            "unknown analysis 'bogus'",
        ),
        (
            &["analyze", &f, "--uniform-args", "nope"],
            "no parameter %nope",
        ),
        (&["analyze", &f, "--function", "nope"], "no function @nope"),
    ];
    for (args, message) in cases {
        let o = pllvm(args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
        assert_eq!(
            stderr(&o).matches("error:").count(),
            1,
            "{args:?}: one error prefix: {}",
            stderr(&o)
        );
    }
}

#[test]
fn the_same_mistake_in_an_input_file_exits_1() {
    // docs/cli.md: 1 when the program or its input is wrong, 2 when the command
    // line is. An argument the `--input` file gets wrong is not a bad command line.
    let f = args_file();
    let json = temp_file("bad.json", r#"{"args": {"m": 1}}"#);
    let o = pllvm(&["run", &f, "--input", &json]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("no such parameter"), "{}", stderr(&o));
    let json = temp_file("wide.json", r#"{"args": {"x": 99999999999, "p": "@Y"}}"#);
    let o = pllvm(&["run", &f, "--input", &json]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("does not fit i32"), "{}", stderr(&o));
}

#[test]
fn arguments_are_checked_against_their_type_not_wrapped() {
    let f = args_file();
    for (arg, message) in [
        ("x=99999999999", "99999999999 does not fit i32"),
        ("x=-2147483649", "does not fit i32"),
        ("x=4294967296", "does not fit i32"),
        ("x=true", "true is not an integer"),
        ("x=1.5", "1.5 is not an integer"),
        ("x=0xg", "'0xg' is not an integer"),
    ] {
        let o = pllvm(&["run", &f, "--arg", arg, "--arg", "p=@Y"]);
        assert_eq!(code(&o), 2, "{arg}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{arg}: {}", stderr(&o));
    }
    // The ends of the range (signed minimum, unsigned maximum) and hex are accepted.
    for (arg, result) in [
        ("x=0x10", "result: [26, 26]"),
        ("x=-0x10", "result: [-6, -6]"),
        ("x=-2147483648", "result: [-2147483638, -2147483638]"),
        ("x=4294967295", "result: [9, 9]"),
        ("x=0,0x1", "result: [10, 11]"),
    ] {
        let o = pllvm(&["run", &f, "--arg", arg, "--arg", "p=@Y"]);
        assert_eq!(code(&o), 0, "{arg}: {}", stderr(&o));
        assert!(stdout(&o).contains(result), "{arg}: {}", stdout(&o));
    }
}

#[test]
fn booleans_are_i1_values_only() {
    let f = temp_file(
        "bool.ll",
        "define i32 @f(i1 %b) {\na:\n  %z = zext i1 %b to i32\n  ret i32 %z\n}\n",
    );
    let o = pllvm(&["run", &f, "--arg", "b=true,false"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("result: [1, 0]"), "{}", stdout(&o));
    let o = pllvm(&["run", &f, "--arg", "b=2"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("does not fit i1"), "{}", stderr(&o));
}

#[test]
fn pointer_arguments_stay_within_their_object() {
    let f = args_file();
    // One past the end is a pointer LLVM allows; loading through it is undefined
    // behaviour (an outcome, exit 1), named by the rule and the global.
    let o = pllvm(&["run", &f, "--arg", "x=1", "--arg", "p=@Y+16"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stdout(&o).contains("[W-INST-LOAD]"), "{}", stdout(&o));
    // Further is a mistake of the input, not a ⊤ to find later.
    let o = pllvm(&["run", &f, "--arg", "x=1", "--arg", "p=@Y+20"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("'@Y+20' points past the end of @Y (16 bytes)"),
        "{}",
        stderr(&o)
    );
    let o = pllvm(&["run", &f, "--arg", "x=1", "--arg", "p=@Y+0xc"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("result: [41, 41]"), "{}", stdout(&o));
}

#[test]
fn a_repeated_flag_is_an_error() {
    let f = args_file();
    for args in [
        &["--arg", "x=1", "--arg", "x=2", "--arg", "p=@Y"][..],
        &["--arg", "x=1", "--arg", "%x=2", "--arg", "p=@Y"],
        &["--arg", "x=1", "--arg", "0=2", "--arg", "p=@Y"],
        &[
            "--arg", "x=1", "--arg", "p=@Y", "--mem", "@Y=1", "--mem", "Y=2",
        ],
    ] {
        let mut all = vec!["run", f.as_str()];
        all.extend_from_slice(args);
        let o = pllvm(&all);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("given"), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn missing_inputs_are_named_before_the_run() {
    let f = temp_file(
        "missing.ll",
        "@E = external global i32
define i32 @f(i32 %x, i32 %n) {
a:
  %v = load i32, ptr @E
  %s = add i32 %v, %x
  ret i32 %s
}
",
    );
    let o = pllvm(&["run", &f, "--arg", "x=1"]);
    let err = stderr(&o);
    assert!(
        err.contains("warning: argument %n has no value (--arg n=...)"),
        "{err}"
    );
    assert!(err.contains("warning: global @E is external"), "{err}");
    assert!(!err.contains("argument %x"), "{err}");
    // The REPL says the same when it starts.
    let o = pllvm_with_stdin(&["repl", &f, "--arg", "x=1"], "quit\n");
    assert!(
        stdout(&o).contains("warning: argument %n has no value"),
        "{}",
        stdout(&o)
    );
    // Given, nothing is said.
    let o = pllvm(&["run", &f, "--arg", "x=1", "--arg", "n=2", "--mem", "@E=5"]);
    assert_eq!(stderr(&o), "");
    assert!(stdout(&o).contains("result: [6, 6]"), "{}", stdout(&o));
}

#[test]
fn a_void_function_prints_no_result() {
    let f = temp_file("void.ll", "define void @g(i32 %x) {\na:\n  ret void\n}\n");
    let o = pllvm(&["run", &f, "--arg", "x=1"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("outcome: returned"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("result:"), "{}", stdout(&o));
}

const DIAMOND: &str = "corpus/schedules/fig5.1-stalling.ll";

#[test]
fn flags_override_the_input_files_schedule() {
    let f = corpus(DIAMOND.trim_start_matches("corpus/"));
    let json = temp_file("sched.json", r#"{"threads": 2, "schedule": ["A", "D"]}"#);
    let o = pllvm(&["run", &f, "--input", &json]);
    assert!(stdout(&o).contains("outcome: incomplete"), "{}", stdout(&o));
    let o = pllvm(&["run", &f, "--input", &json, "--sched", "lowest"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("schedule (lowest): A,C,B,D"),
        "{}",
        stdout(&o)
    );
    let o = pllvm(&["run", &f, "--input", &json, "--schedule", "A,B,C,D"]);
    assert!(stdout(&o).contains("outcome: returned"), "{}", stdout(&o));
}

#[test]
fn replay_reads_lists_tables_and_json_traces_alike() {
    let f = corpus(DIAMOND.trim_start_matches("corpus/"));
    // The schedule `lowest` picks, recorded three ways.
    let recorded = pllvm(&[
        "run", &f, "--sched", "lowest", "--trace", "table", "--values",
    ]);
    let table = temp_file("trace.txt", stdout(&recorded));
    let list = temp_file("list.txt", "; a comment\nA, C\nB D\n");
    let repl_json = {
        let json = temp_file("saved.json", "");
        let script = format!("set sched lowest\nrun\nsave-trace {json}\n");
        let o = pllvm_with_stdin(&["repl", &f], &script);
        assert!(stdout(&o).contains("wrote 4 rows"), "{}", stdout(&o));
        json
    };
    for source in [
        table.clone(),
        list.clone(),
        repl_json.clone(),
        "A,C,B,D".to_string(),
    ] {
        let spec = format!("replay:{source}");
        let o = pllvm(&["run", &f, "--sched", &spec]);
        assert_eq!(code(&o), 0, "{spec}: {}", stderr(&o));
        assert!(stdout(&o).contains(": A,C,B,D"), "{spec}: {}", stdout(&o));
        // The REPL reads the same spec the same way.
        let o = pllvm_with_stdin(&["repl", &f], &format!("set sched {spec}\nrun\n"));
        assert!(
            stdout(&o).contains("A C B D") || stdout(&o).contains("A,C,B,D"),
            "repl {spec}: {}",
            stdout(&o)
        );
    }
    let o = pllvm(&["run", &f, "--sched", "replay:no-such-file.txt"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no file no-such-file.txt exists"),
        "{}",
        stderr(&o)
    );
}

/// `replay:FILE` reads FILE with the bound of a program's text: a device is
/// refused unread and a file over 256 MiB by its size, each a usage error (exit
/// 2) naming the file, in `run --sched`, `repl --sched` and the REPL's `set
/// sched`. Before, `/dev/zero` was taken for a block list (exit 2, "no block
/// named /dev/zero") and a large file was read whole.
#[test]
fn replay_files_are_read_with_a_bound() {
    let f = corpus(DIAMOND.trim_start_matches("corpus/"));
    let big = temp_file("big-schedule.txt", "");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .and_then(|file| file.set_len((256 << 20) + 1))
        .expect("a sparse file of 256 MiB and a byte");
    for (spec, says) in [
        (
            "replay:/dev/zero".to_string(),
            "/dev/zero is a device, not a schedule file".to_string(),
        ),
        (
            format!("replay:{big}"),
            format!("{big} holds 268435457 bytes, more than 268435456 bytes"),
        ),
    ] {
        let o = pllvm(&["run", &f, "--sched", &spec]);
        assert_eq!(code(&o), 2, "{spec}: {}", stderr(&o));
        assert!(stderr(&o).contains(&says), "{spec}: {}", stderr(&o));
        let o = pllvm_with_stdin(&["repl", &f, "--sched", &spec], "quit\n");
        assert_eq!(code(&o), 2, "repl --sched {spec}: {}", stderr(&o));
        assert!(stderr(&o).contains(&says), "{spec}: {}", stderr(&o));
        let o = pllvm_with_stdin(&["repl", &f], &format!("set sched {spec}\nquit\n"));
        let both = format!("{}{}", stdout(&o), stderr(&o));
        assert!(both.contains(&says), "set sched {spec}: {both}");
    }
}

#[test]
fn a_dash_reads_the_program_from_standard_input() {
    for command in [
        &["check", "-"][..],
        &["run", "-", "--arg", "x=1", "--arg", "p=@Y"],
    ] {
        let o = pllvm_with_stdin(command, ARGS);
        assert_eq!(code(&o), 0, "{command:?}: {}", stderr(&o));
        if command[0] == "run" {
            assert!(stdout(&o).contains("result: [11, 11]"), "{}", stdout(&o));
        } else {
            assert!(stdout(&o).contains("<stdin>: ok"), "{}", stdout(&o));
        }
    }
}

#[test]
fn analyze_json_is_one_document_with_a_schema() {
    // An irreducible function: the analyses that assume reducible control flow
    // are named in the document, not left out silently or printed beside it.
    let o = pllvm(&[
        "analyze",
        &corpus("divergence/llvm-irreducible-m-converged.ll"),
        "--json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(doc["schema"], "pllvm-analyze/2");
    let f = &doc["functions"][0];
    assert_eq!(
        f["not_analysed"],
        serde_json::json!(["thesis", "popl", "sa"])
    );
    assert_eq!(f["analyses"][0]["analysis"], "llvm");
}

#[test]
fn analyze_covers_every_function_unless_one_is_picked() {
    let path = temp_file(
        "two.ll",
        "define i32 @f(i32 %n, i32 %t) {\nentry:\n  %c = icmp slt i32 %t, %n\n  ret i32 %n\n}\n\
         define i32 @g(i32 %n) {\nentry:\n  %y = add i32 %n, 1\n  ret i32 %y\n}\n",
    );
    let file = path.as_str();
    // Every function, one document; `--uniform-args n` applies to both.
    let o = pllvm(&["analyze", file, "--json", "--uniform-args", "n"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    let names: Vec<&str> = doc["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .map(|f| f["function"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["f", "g"]);
    // Text: both functions, in module order.
    let o = pllvm(&["analyze", file, "--analysis", "llvm"]);
    let text = String::from_utf8_lossy(&o.stdout);
    let (f, g) = (text.find("define i32 @f"), text.find("define i32 @g"));
    assert!(f.is_some() && g.is_some() && f < g, "{text}");
    // `--function` picks one.
    let o = pllvm(&["analyze", file, "--json", "--function", "g"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(doc["functions"].as_array().map(Vec::len), Some(1));
    assert_eq!(doc["functions"][0]["function"], "g");
    // A uniform argument no function has is a usage error.
    let o = pllvm(&["analyze", file, "--uniform-args", "zz"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("no analysed function has a parameter zz"));
}

/// A device as the program or as the `--input` file is refused unread (exit 1,
/// a bad input file), by every command that loads a program and by the REPL;
/// before, `pllvm run /dev/zero` read until the host's memory ran out.
#[test]
fn a_device_is_refused_as_the_program_and_as_the_input_file() {
    let f = args_file();
    let cases: &[(&[&str], &str)] = &[
        (&["run", "/dev/zero"], "the program: /dev/zero is a device"),
        (
            &["check", "/dev/zero"],
            "the program: /dev/zero is a device",
        ),
        (&["repl", "/dev/zero"], "the program: /dev/zero is a device"),
        (
            &["run", &f, "--input", "/dev/zero"],
            "--input: /dev/zero is a device",
        ),
        (
            &["explore", &f, "--input", "/dev/urandom"],
            "--input: /dev/urandom is a device",
        ),
    ];
    for (args, message) in cases {
        let o = pllvm(args);
        assert_eq!(code(&o), 1, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
    }
}

/// A program or `--input` file beyond 256 MiB is refused: a regular file by
/// its size, before a byte is read (a sparse file costs no disk), standard
/// input once 256 MiB have come without an end (exit 1).
#[test]
fn a_program_or_input_file_beyond_256_mib_is_refused() {
    let big = temp_file("big.ll", "");
    std::fs::File::options()
        .write(true)
        .open(&big)
        .and_then(|f| f.set_len((256 << 20) + 1))
        .expect("a sparse file");
    for args in [
        vec!["check", big.as_str()],
        vec!["run", &args_file(), "--input", big.as_str()],
    ] {
        let o = pllvm(&args);
        assert_eq!(code(&o), 1, "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("holds 268435457 bytes, more than 268435456 bytes"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg("head -c 270000000 /dev/zero | \"$0\" check -")
        .arg(env!("CARGO_BIN_EXE_pllvm"))
        .output()
        .expect("run pllvm under sh");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the program: standard input holds more than 268435456 bytes"),
        "{}",
        stderr(&o)
    );
}
