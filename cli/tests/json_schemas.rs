//! The versioned JSON schemas of `docs/schemas/` against the
//! documents pllvm really writes: each command's output is validated against its
//! schema (JSON Schema draft 2020-12, the `jsonschema` crate), and each schema is
//! shown not to be vacuous: a mutated document (a required field removed, a field
//! of the wrong type, and for the strict schemas a field added) is rejected. The
//! run-input schema is checked both ways: the `--input` example of docs/cli.md validates and runs,
//! and an input with an unknown field is rejected by the schema and by `pllvm`.

use crate::common;

use common::{code, corpus, pllvm, require, stderr, stdout, temp_file};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The folder `docs/schemas/` of the workspace.
fn schemas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/schemas")
}

/// The compiled schema `NAME.schema.json` (as `pllvm-run-1`), checked against the
/// draft 2020-12 meta-schema, with its `$id` naming the version `NAME` spells.
fn schema(name: &str) -> jsonschema::Validator {
    let path = schemas_dir().join(format!("{name}.schema.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        doc["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "{name}: not a draft 2020-12 schema"
    );
    // `pllvm-run-1` is the schema of version `pllvm-run/1`.
    let (base, version) = name.rsplit_once('-').expect("NAME-VERSION");
    let id = doc["$id"].as_str().expect("$id");
    assert!(
        id.ends_with(&format!("/{base}/{version}")),
        "{name}: $id {id} does not carry the version {base}/{version}"
    );
    if let Err(e) = jsonschema::meta::validate(&doc) {
        panic!("{name} is not a valid JSON Schema: {e}");
    }
    jsonschema::draft202012::new(&doc).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Fails with every violation when `doc` does not meet `validator`.
fn assert_valid(validator: &jsonschema::Validator, what: &str, doc: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("  at {}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} does not meet its schema:\n{}\n{}",
        errors.join("\n"),
        serde_json::to_string_pretty(doc).unwrap_or_default()
    );
}

/// Asserts that `mutate(doc)` is rejected: the schema constrains what it changes.
fn assert_rejects(
    validator: &jsonschema::Validator,
    what: &str,
    doc: &Value,
    mutate: impl Fn(&mut Value),
) {
    let mut bad = doc.clone();
    mutate(&mut bad);
    assert_ne!(&bad, doc, "{what}: the mutation changed nothing");
    assert!(
        !validator.is_valid(&bad),
        "{what}: the schema accepts a mutated document:\n{bad}"
    );
}

/// Runs `pllvm ARGS` and parses its standard output as one JSON document.
fn json_of(args: &[&str], want_code: i32) -> Value {
    let o = pllvm(args);
    assert_eq!(code(&o), want_code, "pllvm {args:?}: {}", stderr(&o));
    serde_json::from_str(stdout(&o).trim()).unwrap_or_else(|e| {
        panic!(
            "pllvm {args:?} did not print one JSON document: {e}\n{}",
            stdout(&o)
        )
    })
}

/// The logstar program of the tutorial (thesis Fig. 3.20a).
const LOGSTAR: &str = "define i32 @logstar(double %n) {\nA:\n  br label %B\nB:\n  \
    %x = phi double [ %n, %A ], [ %x.log, %B ]\n  %i = phi i32 [ 0, %A ], [ %i.inc, %B ]\n  \
    %i.inc = add i32 %i, 1\n  %x.log = call double @llvm.log.f64(double %x)\n  \
    %x.gt.one = fcmp ogt double %x.log, 1.0\n  br i1 %x.gt.one, label %B, label %C\nC:\n  \
    %n.gt.one = fcmp ogt double %n, 1.0\n  %r = select i1 %n.gt.one, i32 %i.inc, i32 0\n  \
    ret i32 %r\n}\ndeclare double @llvm.log.f64(double)\n";

/// `pllvm run --json` / `--trace json` in every shape the code writes them:
/// plain, with a trace (and an omitted-rows gap), undefined behaviour, a
/// scheduler with the divergence and convergence reports, a given schedule,
/// dumps of a global, and a launch with buffers and a race.
#[test]
fn run_documents_meet_pllvm_run_1() {
    let v = schema("pllvm-run-1");
    let file = temp_file("logstar.ll", LOGSTAR);
    let f = file.as_str();
    let lanes = ["--threads", "2", "--arg", "n=88.38,1.5"];
    let with = |extra: &[&str]| -> Vec<String> {
        let mut a = vec!["run".to_string(), f.to_string()];
        a.extend(lanes.iter().map(|s| s.to_string()));
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |extra: &[&str], want: i32| {
        let args = with(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        json_of(&args, want)
    };
    let plain = run(&["--json"], 0);
    let traced = run(&["--trace", "json"], 0);
    let gap = run(&["--trace", "json", "--trace-limit", "2"], 0);
    let ub = run(&["--interp", "obl", "--strict", "--json"], 1);
    let sched = run(
        &[
            "--sched",
            "highest",
            "--divergence",
            "--convergence",
            "--json",
        ],
        0,
    );
    let given = run(&["--schedule", "A,B,B,B,C", "--json"], 0);
    let global = json_of(
        &[
            "run",
            &corpus("semantics/mem-array-of-structs.ll"),
            "--threads",
            "3",
            "--mem",
            "@pts=1,2.5,3,4.5,5,6.5",
            "--dump",
            "@pts",
            "--json",
        ],
        0,
    );
    let launch_kernel = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/launch/race.ll");
    let launch = json_of(
        &[
            "run",
            launch_kernel.to_str().expect("path"),
            "--grid",
            "8",
            "--threads",
            "1",
            "--jobs",
            "2",
            "--buffer",
            "cell=i32[2]",
            "--lane-id",
            "tid",
            "--dump",
            "cell",
            "--time",
            "600",
            "--json",
        ],
        1,
    );
    let shaped = json_of(
        &[
            "run",
            launch_kernel.to_str().expect("path"),
            "--grid",
            "4,2",
            "--group",
            "2,2",
            "--threads",
            "2",
            "--buffer",
            "cell=i32[2]",
            "--lane-id",
            "tid",
            "--json",
        ],
        1,
    );
    assert_eq!(
        shaped["grid"]["dims"],
        serde_json::json!({ "grid": [4, 2, 1], "group": [2, 2, 1] })
    );
    for (what, doc) in [
        ("run --json", &plain),
        ("a launch of two dimensions", &shaped),
        ("run --trace json", &traced),
        ("run --trace json --trace-limit 2", &gap),
        ("undefined behaviour", &ub),
        ("--sched --divergence --convergence", &sched),
        ("--schedule", &given),
        ("--dump @pts", &global),
        ("a launch with a race and a time limit", &launch),
    ] {
        assert_valid(&v, what, doc);
    }
    // The documents hold what the schema describes, not only its required part.
    assert!(
        traced["trace"][1]["rules"]
            .as_array()
            .is_some_and(|r| !r.is_empty())
    );
    assert!(
        gap["trace"]
            .as_array()
            .is_some_and(|t| t.iter().any(|r| r.get("omitted").is_some()))
    );
    assert_eq!(ub["undefined"]["rule"], "W-CMD-INST");
    assert!(sched["schedule"].is_object() && sched["divergence"].is_string());
    assert_eq!(given["greedy"]["greedy"], true);
    assert!(global["dumps"]["@pts"]["paths"].is_array());
    assert!(launch["races"]["count"].as_u64().is_some_and(|n| n > 0));
    // Not vacuous.
    assert_rejects(&v, "no outcome", &plain, |d| {
        d.as_object_mut().map(|o| o.remove("outcome"));
    });
    assert_rejects(&v, "a field added", &plain, |d| d["extra"] = json!(1));
    assert_rejects(&v, "another version", &plain, |d| {
        d["schema"] = json!("pllvm-run/2")
    });
    assert_rejects(&v, "a mask of numbers", &traced, |d| {
        d["trace"][0]["cmask"] = json!([1, 1])
    });
    assert_rejects(&v, "a rule that does not exist", &traced, |d| {
        d["trace"][0]["rules"][0] = json!("NO-SUCH-RULE")
    });
    assert_rejects(&v, "undefined without its line", &ub, |d| {
        d["undefined"].as_object_mut().map(|o| o.remove("line"));
    });
}

/// The rules the run schema lists are exactly `Rule::ALL`, in order.
#[test]
fn the_run_schema_lists_every_rule() {
    let text =
        std::fs::read_to_string(schemas_dir().join("pllvm-run-1.schema.json")).expect("read");
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    let listed: Vec<&str> = doc["$defs"]["rule"]["enum"]
        .as_array()
        .expect("an enum of rules")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let typed: Vec<&str> = pllvm_semantics::rules::Rule::ALL
        .iter()
        .map(|r| r.name())
        .collect();
    assert_eq!(
        listed, typed,
        "docs/schemas/pllvm-run-1.schema.json and Rule::ALL differ"
    );
}

/// The `--input` example of docs/cli.md (once the README's) meets `pllvm-input/1` and
/// runs; an input with an unknown field is rejected by the schema and by `pllvm` alike
/// (the schema is as strict as `RunConfig`'s `deny_unknown_fields`).
#[test]
fn run_inputs_meet_pllvm_input_1() {
    let v = schema("pllvm-input-1");
    let file = temp_file("logstar.ll", LOGSTAR);
    let input = json!({
        "threads": 4, "interp": "fr", "strict": false, "exec": "fast",
        "args": {"n": [88.38, 1.5, "0.5", 1.0e10]},
        "schedule": ["A", "B", "B", "B", "B", "C"],
        "max_steps": 1000000, "memory_limit": 1073741824
    });
    let readme = json!({
        "threads": 4, "interp": "fr", "strict": false, "exec": "fast",
        "args": {"x": [0, 1, 2, 3], "n": 5, "p": "@buf+8", "r": "0..4"},
        "memory": {"@buf": [1, 2, 3, 4]},
        "buffers": {"out": "i32[4]", "in": {"type": "f32", "values": [1, 2]}},
        "schedule": ["A", "B"], "max_steps": 1000000, "memory_limit": 1073741824
    });
    assert_valid(&v, "the README's example", &readme);
    assert_valid(&v, "the logstar input", &input);
    let path = temp_file("in.json", input.to_string());
    let doc = json_of(&["run", &file, "--input", &path, "--json"], 0);
    assert_eq!(doc["result"], json!(["3", "1", "0", "4"]));
    // An unknown field: both reject it.
    let mut bad = input.clone();
    bad["thread"] = json!(4);
    assert!(!v.is_valid(&bad), "the schema accepts an unknown field");
    let path = temp_file("bad.json", bad.to_string());
    let o = pllvm(&["run", &file, "--input", &path]);
    assert_ne!(code(&o), 0, "pllvm accepts an unknown input field");
    assert!(stderr(&o).contains("thread"), "{}", stderr(&o));
    assert_rejects(&v, "an interpretation that does not exist", &input, |d| {
        d["interp"] = json!("sideways")
    });
    assert_rejects(&v, "no lanes", &input, |d| d["threads"] = json!(0));
    assert_rejects(&v, "a buffer with values and a file", &readme, |d| {
        d["buffers"]["in"]["file"] = json!("x.bin")
    });
}

/// `pllvm analyze --json` meets `pllvm-analyze/2`, for every analysis.
#[test]
fn analysis_reports_meet_pllvm_analyze_2() {
    let v = schema("pllvm-analyze-2");
    let file = temp_file("logstar.ll", LOGSTAR);
    let all = json_of(&["analyze", &file, "--analysis", "all", "--json"], 0);
    assert_valid(&v, "analyze --json", &all);
    assert_eq!(all["schema"], pllvm_analysis::render::REPORT_SCHEMA);
    let joins = json_of(
        &[
            "analyze",
            &corpus("divergence/fig7.3-global-joins-walkthrough.ll"),
            "--json",
        ],
        0,
    );
    assert_valid(&v, "analyze --json of Fig. 7.3", &joins);
    assert_eq!(
        all["functions"][0]["analyses"].as_array().map(Vec::len),
        Some(4)
    );
    // Open to added fields (render.rs: adding one keeps the version), but not to
    // removed or changed ones.
    let mut added = all.clone();
    added["functions"][0]["extra"] = json!(true);
    assert!(v.is_valid(&added));
    assert_rejects(&v, "no functions", &all, |d| {
        d.as_object_mut().map(|o| o.remove("functions"));
    });
    assert_rejects(&v, "a shape outside the lattice", &all, |d| {
        d["functions"][0]["analyses"][0]["values"][0]["shape"] = json!("sideways")
    });
    assert_rejects(&v, "reconverging as text", &all, |d| {
        d["functions"][0]["analyses"][0]["reconverging"] = json!("yes")
    });
    // Cut off by `--time` (40,000 diamonds take the analyses seconds): one
    // document still, with `time_limit` and no function.
    let big = temp_file("diamonds.ll", common::diamonds(40_000));
    let cut = json_of(&["analyze", &big, "--time", "0.5", "--json"], 3);
    assert_valid(&v, "analyze --json cut off by --time", &cut);
    assert_eq!(cut["functions"], json!([]));
    assert_rejects(&v, "a time limit not reached", &cut, |d| {
        d["time_limit"]["reached"] = json!(false)
    });
    assert_rejects(&v, "a time limit without its stage", &cut, |d| {
        d["time_limit"].as_object_mut().map(|o| o.remove("stage"));
    });
}

/// `pllvm diff-exec --json` meets `pllvm-diff-exec/1`: an agreeing run and a run
/// the interpreter ends in undefined behaviour (a division by zero in lane 1: not
/// compared, `skipped`, and so exit 1), on the scalar-lane C route (gcc).
#[test]
fn diff_exec_documents_meet_pllvm_diff_exec_1() {
    require("gcc", "gcc");
    let v = schema("pllvm-diff-exec-1");
    let file = temp_file("logstar.ll", LOGSTAR);
    let agree = json_of(
        &[
            "diff-exec",
            &file,
            "--target",
            "scalar-c",
            "--threads",
            "4",
            "--arg",
            "n=88.38,1.5,0.5,1.0e10",
            "--json",
        ],
        0,
    );
    assert_valid(&v, "diff-exec --json", &agree);
    assert_eq!(agree["runs"][0]["verdict"], "agree");
    let div = temp_file(
        "div.ll",
        "define i32 @f(i32 %x) {\nA:\n  %q = sdiv i32 1, %x\n  ret i32 %q\n}\n",
    );
    let skipped = json_of(
        &[
            "diff-exec",
            &div,
            "--target",
            "scalar-c",
            "--threads",
            "2",
            "--arg",
            "x=1,0",
            "--json",
        ],
        // The only run is skipped: nothing was compared, exit 1 (docs/cli.md
        // "Exit codes"); the document is printed all the same.
        1,
    );
    assert_valid(&v, "diff-exec --json of undefined behaviour", &skipped);
    assert!(
        skipped["runs"]
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r["verdict"] == "skipped")),
        "{skipped}"
    );
    assert_rejects(&v, "a field added", &agree, |d| d["extra"] = json!(1));
    assert_rejects(&v, "agree without its lanes", &agree, |d| {
        d["runs"][0].as_object_mut().map(|o| o.remove("lanes"));
    });
    assert_rejects(&v, "a target that does not exist", &agree, |d| {
        d["target"] = json!("sse2")
    });
}

/// A fuzzing campaign's report (`--json` and `report.json`), its `state.json` and a
/// replay's `--json` meet `pllvm-fuzz/1`. The external oracle fails on programs
/// with a `switch`, so the report has findings and groups.
#[test]
fn fuzz_documents_meet_pllvm_fuzz_1() {
    let v = schema("pllvm-fuzz-1");
    let dir = std::env::temp_dir().join(format!("pllvm-schema-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let hater = "if grep -q 'switch ' {in}; then exit 1; fi; echo '{}' > {out}";
    let out = dir.to_str().expect("path");
    let report = json_of(
        &[
            "fuzz",
            "--oracle",
            "external,roundtrip",
            "--oracle-cmd",
            hater,
            "--count",
            "24",
            "--batch",
            "8",
            "--shrink-time",
            "20",
            "--json",
            "--out",
            out,
        ],
        1,
    );
    assert_valid(&v, "fuzz --json", &report);
    let read = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).expect(name)).expect(name)
    };
    assert_valid(&v, "report.json", &read("report.json"));
    let state = read("state.json");
    assert_valid(&v, "state.json", &state);
    let finding = report["findings"][0]["file"]
        .as_str()
        .expect("a finding (no program of 24 had a switch?)");
    let finding = dir.join(finding);
    let replay = json_of(
        &[
            "fuzz",
            "--replay",
            finding.to_str().expect("path"),
            "--oracle-cmd",
            hater,
            "--json",
        ],
        1,
    );
    assert_valid(&v, "fuzz --replay --json", &replay);
    assert_rejects(&v, "a report with a field added", &report, |d| {
        d["extra"] = json!(1)
    });
    assert_rejects(&v, "a seed as a number", &report, |d| {
        d["base_seed"] = json!(7)
    });
    assert_rejects(&v, "a finding without its file", &report, |d| {
        d["findings"][0].as_object_mut().map(|o| o.remove("file"));
    });
    assert_rejects(&v, "state without next", &state, |d| {
        d.as_object_mut().map(|o| o.remove("next"));
    });
    assert_rejects(&v, "a replay verdict that does not exist", &replay, |d| {
        d["results"][0]["verdict"] = json!("maybe")
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// `analyze --compare-llvm --json` meets `pllvm-compare-llvm/1`: a file where
/// pllvm and opt-22 differ (θ's `@pllvm.any`, which opt does not know) and one
/// where they agree.
#[test]
fn compare_llvm_documents_meet_pllvm_compare_llvm_1() {
    require("opt-22", "llvm-22");
    let v = schema("pllvm-compare-llvm-1");
    let any = temp_file(
        "any.ll",
        "; run: --threads 2\ndefine i1 @f() {\nentry:\n  %t = call i32 @pllvm.thread_id()\n  %c = icmp eq i32 %t, 0\n  %a = call i1 @pllvm.any(i1 %c)\n  %n = xor i1 %a, true\n  ret i1 %n\n}\n",
    );
    let differ = json_of(&["analyze", &any, "--compare-llvm", "--json"], 0);
    assert_valid(&v, "compare-llvm --json", &differ);
    assert_eq!(differ["rows"][0]["value"], "%a", "{differ}");
    assert_eq!(differ["rows"][0]["class"], "theta-builtin", "{differ}");
    assert_eq!(differ["rows"][1]["via"], "%a", "{differ}");
    assert_eq!(differ["by_class"]["theta-builtin"], 2, "{differ}");
    let agree = json_of(
        &[
            "analyze",
            &corpus("divergence/llvm-irreducible-m-converged.ll"),
            "--compare-llvm",
            "--uniform-args",
            "u",
            "--json",
        ],
        0,
    );
    assert_valid(&v, "compare-llvm --json, no difference", &agree);
    assert_eq!(agree["differ"], 0, "{agree}");
    assert_rejects(&v, "a field added", &differ, |d| d["extra"] = json!(1));
    assert_rejects(&v, "a class that does not exist", &differ, |d| {
        d["rows"][0]["class"] = json!("other")
    });
    assert_rejects(&v, "a row without its class", &differ, |d| {
        d["rows"][0].as_object_mut().map(|o| o.remove("class"));
    });
}
