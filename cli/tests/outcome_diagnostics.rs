//! Undefined behaviour printed like the verifier's errors (docs/cli.md):
//! `pllvm run` renders it on stderr as `file:line:col: error: ...` with the source
//! line, a caret under the instruction, predicate or terminator, the lane, and a
//! `help:` line naming the rule and its thesis place; `run --trace json` carries
//! the same rule and position as fields; `explore` renders each undefined ending
//! after its report.

use crate::common;
use common::{DIVISION, DIVISION_INPUTS, code, pllvm, pllvm_on, stderr, stdout, temp_file};

/// A block whose predicate `%p` has no value (⊤) in lanes whose control mask is
/// set: [BLS-W-STEP] at the `predicate` clause in line 6.
const PREDICATE: &str = "define i32 @f(i1 %p) {\nentry:\n  br label %b\n\n\
                         b:\n  predicate %p\n  br label %c\n\nc:\n  ret i32 1\n}\n";

/// An active lane branches on ⊤ at the terminator in line 4: [BLS-W-STEP].
const BRANCH: &str = "define i32 @f(i32 %x) {\nentry:\n  %c = icmp eq i32 %x, 0\n  \
                      br i1 %c, label %a, label %b\na:\n  ret i32 1\nb:\n  ret i32 2\n}\n";

#[test]
fn run_renders_undefined_behaviour_at_the_instruction_with_rule_and_thesis_place() {
    let file = temp_file("division.ll", DIVISION);
    let o = pllvm_on("run", &file, &DIVISION_INPUTS, &[]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "{file}:3:3: error: undefined behaviour in lane 1: division by zero\n\
             \x20 %q = sdiv i32 %x, %y\n\
             \x20 ^^^^^^^^^^^^^^^^^^^^\n\
             help: [W-INST-LLVM], thesis §4.9\n"
        )
    );
    // The outcome line on stdout is unchanged.
    assert!(
        stdout(&o).contains("outcome: undefined: [W-INST-LLVM] lane 1: division by zero"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn run_points_at_the_predicate_and_the_terminator() {
    let file = temp_file("predicate.ll", PREDICATE);
    let o = pllvm(&["run", &file, "--threads", "2"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let err = stderr(&o);
    let expected = format!(
        "{file}:6:3: error: undefined behaviour in lane 0: the block predicate is ⊤ in a \
         lane whose control mask is set (Def. 7-8)\n  predicate %p\n  ^^^^^^^^^^^^\n\
         help: [BLS-W-STEP], thesis §4.7\n"
    );
    // After the warning that %p has no value.
    assert!(err.ends_with(&expected), "{err}");

    let file = temp_file("branch.ll", BRANCH);
    let o = pllvm(&["run", &file, "--threads", "3", "--arg", "x=0,1,⊤"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        [
            &format!(
                "{file}:4:3: error: undefined behaviour in lane 2: an active lane branches on ⊤"
            )[..],
            "  br i1 %c, label %a, label %b",
            "  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
            "help: [BLS-W-STEP], thesis §4.7",
        ],
        "{err}"
    );
}

#[test]
fn run_trace_json_carries_the_rule_and_position_of_undefined_behaviour() {
    let file = temp_file("division.ll", DIVISION);
    let o = pllvm_on("run", &file, &DIVISION_INPUTS, &["--trace", "json"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON document");
    assert_eq!(doc["schema"], "pllvm-run/1");
    let ub = &doc["undefined"];
    assert_eq!(ub["rule"], "W-INST-LLVM");
    assert_eq!(ub["thesis"], "§4.9");
    assert_eq!(ub["lane"], 1);
    assert_eq!(ub["block"], "entry");
    assert_eq!(ub["file"], file.as_str());
    assert_eq!(
        (ub["line"].as_u64(), ub["col"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(ub["message"], "division by zero");

    // A run that returns has no `undefined` field.
    let o = pllvm(&[
        "run",
        &file,
        "--threads",
        "2",
        "--arg",
        "x=6",
        "--arg",
        "y=3",
        "--trace",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON document");
    assert!(doc.get("undefined").is_none(), "{doc}");
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn explore_renders_each_undefined_ending_after_its_report() {
    let file = temp_file("division.ll", DIVISION);
    let o = pllvm_on("explore", &file, &DIVISION_INPUTS, &[]);
    // Every ending is undefined (lane 1 divides by zero on every schedule):
    // exit 1, said on stderr (docs/cli.md "Exit codes").
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("every ending"), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("undefined: [W-INST-LLVM] lane 1: division by zero"),
        "{out}"
    );
    assert!(
        out.ends_with(&format!(
            "{file}:3:3: error: undefined behaviour in lane 1: division by zero\n\
             \x20 %q = sdiv i32 %x, %y\n\
             \x20 ^^^^^^^^^^^^^^^^^^^^\n\
             help: [W-INST-LLVM], thesis §4.9\n"
        )),
        "{out}"
    );
}

/// A store to a `constant` global is undefined behaviour ([W-INST-STORE] through
/// write^W, §4.9.1), named at the store; a load of it and a store to a plain
/// global are fine.
#[test]
fn a_store_to_a_constant_global_is_undefined_behaviour_at_the_store() {
    let text = "@k = constant i32 5\n@g = global i32 0\n\n\
                define i32 @f() {\nentry:\n  %v = load i32, ptr @k\n  \
                store i32 %v, ptr @g\n  store i32 7, ptr @k\n  ret i32 %v\n}\n";
    let file = temp_file("constant.ll", text);
    let o = pllvm(&["run", &file, "--threads", "2"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!("{file}:8:3: error: undefined behaviour")),
        "{err}"
    );
    assert!(err.contains("read-only @k"), "{err}");
    assert!(err.contains("help: [W-INST-STORE]"), "{err}");
    // Without the store to @k the same program returns 5 in every lane.
    let fine = temp_file(
        "constant-ok.ll",
        text.replace("  store i32 7, ptr @k\n", ""),
    );
    let o = pllvm(&["run", &fine, "--threads", "2"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("result: [5, 5]"), "{}", stdout(&o));
}
