//! The `pllvm` binary end to end: the embedded default program, every subcommand,
//! exit codes (0 ok, 1 program or input error, 2 usage), file:line:col errors, JSON
//! inputs and traces, and bad input that must never panic.

use crate::common;
use common::{FIG45_INPUTS, corpus, pllvm, pllvm_on, stderr, stdout, temp_file};

#[test]
fn no_arguments_runs_the_logstar_walk_through() {
    let o = pllvm(&[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // Fig. 3.20b: FR gives each lane its own result; Fig. 3.21b: naive OBL loses
    // lane 1; Fig. 3.22d: the transformed loop is right under OBL.
    let results: Vec<&str> = out.lines().filter(|l| l.starts_with("result:")).collect();
    assert_eq!(
        results,
        ["result: [3, 1]", "result: [3, ⊤]", "result: [3, 1]"]
    );
    assert!(out.contains("sc | in"), "prints trace tables");
}

#[test]
fn options_without_a_file_are_refused_not_ignored() {
    // The embedded walk-through has fixed inputs: an option given to it would be
    // silently dropped, so it is a bad command line (exit 2) naming the FILE.
    for option in [&["--convergence"][..], &["--threads", "4"], &["--strict"]] {
        let mut args = vec!["run"];
        args.extend_from_slice(option);
        let o = pllvm(&args);
        assert_eq!(o.status.code(), Some(2), "{option:?}: {}", stdout(&o));
        assert!(stderr(&o).contains("FILE"), "{option:?}: {}", stderr(&o));
    }
    let o = pllvm(&["run"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn check_of_the_embedded_program_succeeds() {
    let o = pllvm(&["check"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("ok (1 function verified)"));
    assert!(stdout(&o).contains("reducible"));
}

#[test]
fn check_reports_every_error_with_file_line_col_and_exit_1() {
    let path = temp_file(
        "bad.ll",
        "define i32 @f(i32 %x) {\nA:\n  %y = add i32 %x, %nope\n  ret i32 %y\n}\n",
    );
    let o = pllvm(&["check", &path]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains(&format!("{path}:3:")), "{err}");
    assert!(err.contains("error:"), "{err}");
    assert!(err.contains('^'), "caret under the offending text: {err}");
}

#[test]
fn check_of_a_verifier_corpus_file_names_the_definition() {
    let o = pllvm(&["check", &corpus("verifier/def11.1-predicate-dominance.ll")]);
    if o.status.code() == Some(1) {
        assert!(stderr(&o).contains("Def. 11"), "{}", stderr(&o));
    } else {
        panic!(
            "expected a verifier error, got {:?}: {}",
            o.status,
            stdout(&o)
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(pllvm(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(pllvm(&["run", "--threads", "many"]).status.code(), Some(2));
    assert_eq!(
        pllvm(&["run", "--interp", "sideways"]).status.code(),
        Some(2)
    );
    let help = pllvm(&["run", "--help"]);
    assert!(help.status.success());
    assert!(stdout(&help).contains("--schedule"));
}

#[test]
fn missing_file_and_bad_arguments_are_errors_not_panics() {
    let o = pllvm(&["check", "/nonexistent/file.ll"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read"));
    let f = corpus("semantics/fig4.5-control-mechanics.ll");
    for args in [
        vec!["run", f.as_str(), "--arg", "x=0,1,2"],
        vec!["run", f.as_str(), "--arg", "nosuch=1"],
        vec!["run", f.as_str(), "--arg", "x=banana"],
        vec!["run", f.as_str(), "--schedule", "A,Z", "--arg", "x=0,1"],
        vec!["run", f.as_str(), "--mem", "@nothing=1"],
    ] {
        // Each is a mistake of the command line: exit 2 (docs/cli.md, "Exit codes"),
        // as clap's own.
        let o = pllvm(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("error:"), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}");
    }
}

#[test]
fn run_prints_the_fig_4_5_trace() {
    let f = corpus("semantics/fig4.5-control-mechanics.ll");
    let o = pllvm_on("run", &f, &FIG45_INPUTS, &["--trace", "table"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let rows: Vec<String> = out
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert!(
        rows.contains(&"B | A A | B C | 1 0 | 1 1 | 1 0 | 0 ⊤".to_string()),
        "{out}"
    );
    assert!(out.contains("result: [1, 3]"));
}

#[test]
fn json_input_and_json_trace() {
    let f = corpus("semantics/fig4.5-control-mechanics.ll");
    let input = temp_file(
        "in.json",
        r#"{"threads": 2, "interp": "obl", "args": {"x": [0, 1]}, "schedule": ["A", "B", "C", "D", "E"]}"#,
    );
    let o = pllvm(&["run", &f, "--input", &input, "--trace", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // One JSON document on stdout (nothing before or after it), with a schema.
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(doc["schema"], "pllvm-run/1");
    assert_eq!(doc["outcome"], "returned");
    assert_eq!(doc["result"], serde_json::json!(["1", "3"]));
    assert_eq!(doc["greedy"]["greedy"], true);
    let trace = &doc["trace"];
    assert_eq!(trace.as_array().map(Vec::len), Some(5));
    assert_eq!(trace[1]["cmask"], serde_json::json!([true, false]));
    assert_eq!(trace[4]["i"], serde_json::json!(["□", "□"]));
    let bad = temp_file("bad.json", r#"{"threads": "two"}"#);
    let o = pllvm(&["run", &f, "--input", &bad]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn undefined_behaviour_is_an_outcome_with_exit_1() {
    let f = corpus("semantics/ub-division-by-zero.ll");
    let o = pllvm(&[
        "run",
        &f,
        "--threads",
        "2",
        "--arg",
        "x=1,1",
        "--arg",
        "y=5,0",
    ]);
    let out = stdout(&o);
    if o.status.code() == Some(1) && out.contains("outcome: undefined") {
        assert!(out.contains("division by zero"), "{out}");
    } else {
        panic!("expected undefined behaviour: {out} {}", stderr(&o));
    }
}

#[test]
fn print_and_export_llvm() {
    let f = corpus("semantics/fig4.11-shadow-phi.ll");
    let o = pllvm(&["print", &f]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("shadow("));
    let o = pllvm(&["export-llvm", &f]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("@pllvm.shadow"), "{out}");
    assert!(!out.contains("shadow("), "{out}");
}

#[test]
fn divergence_report() {
    let f = corpus("semantics/fig4.5-control-mechanics.ll");
    let o = pllvm(&[
        "run",
        &f,
        "--threads",
        "2",
        "--arg",
        "x=0,1",
        "--divergence",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("diverged   branch of A"), "{out}");
}

#[test]
fn exec_reference_and_fast_print_the_same_run() {
    // `--exec` chooses the rules lane by lane or their fast forms (`semantics/src/fast/`); the
    // output, trace and outcome included, must not tell them apart.
    for (file, extra) in [
        (
            "semantics/alloca-per-lane.ll",
            &["--threads", "4", "--interp", "obl", "--schedule", "A,B,C,D"][..],
        ),
        (
            "semantics/horizontal-divergent.ll",
            &["--threads", "8", "--schedule", "A,B,C,D"][..],
        ),
        (
            "semantics/ub-conflicting-scatter.ll",
            &["--threads", "2", "--schedule", "A", "--arg", "v=5,6"][..],
        ),
    ] {
        let path = corpus(file);
        let run = |exec: &str| {
            let mut args = vec!["run", path.as_str(), "--trace", "table", "--exec", exec];
            args.extend_from_slice(extra);
            pllvm(&args)
        };
        let (reference, fast) = (run("reference"), run("fast"));
        assert_eq!(stdout(&reference), stdout(&fast), "{file}");
        assert_eq!(reference.status.code(), fast.status.code(), "{file}");
        assert!(
            stdout(&fast).contains("sc | in"),
            "{file}: {}",
            stderr(&fast)
        );
    }
    let o = pllvm(&[
        "run",
        &corpus("semantics/alloca-per-lane.ll"),
        "--exec",
        "slow",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = pllvm(&[
        "explore",
        &corpus("semantics/horizontal-divergent.ll"),
        "--threads",
        "2",
        "--exec",
        "reference",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// `analyze --analysis sa --width W --chunk`: the lanes are one chunk of a larger
/// thread array (thread ids c·W + t, as compile and diff-exec widen them), so the
/// thread id is `(1, W)` and its zero extension keeps the stride; a thread array
/// alone has the exact lane id `(1, 0)`. `--chunk` needs `--width` (exit 2).
#[test]
fn analyze_sa_reads_the_thread_id_of_a_chunk() {
    let file = temp_file(
        "chunk.ll",
        "define float @k(ptr %p) {
entry:
  %t = call i32 @pllvm.thread_id()
  %t64 = zext i32 %t to i64
  %e = getelementptr float, ptr %p, i64 %t64
  %v = load float, ptr %e, align 4
  ret float %v
}
declare i32 @pllvm.thread_id()
",
    );
    let line = |out: &str, name: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(name))
            .map(|l| l.split(';').nth(1).unwrap_or("").trim().to_string())
            .unwrap_or_else(|| panic!("no {name} in\n{out}"))
    };
    let base = ["analyze", &file, "--analysis", "sa", "--uniform-args", "p"];
    let chunk = pllvm(&[&base[..], &["--width", "16", "--chunk"]].concat());
    assert!(chunk.status.success(), "{}", stderr(&chunk));
    let out = stdout(&chunk);
    assert_eq!(line(&out, "%t ="), "stride(1) align(16)");
    assert_eq!(line(&out, "%t64 ="), "stride(1) align(16)");
    assert_eq!(line(&out, "%e ="), "stride(4) align(1)");
    let alone = stdout(&pllvm(&[&base[..], &["--width", "16"]].concat()));
    assert_eq!(line(&alone, "%t ="), "stride(1) align(0)");
    let any = stdout(&pllvm(&base));
    assert_eq!(line(&any, "%t64 ="), "varying");
    let refused = pllvm(&[&base[..], &["--chunk"]].concat());
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("--width"), "{}", stderr(&refused));
}

/// The program of `analyze --analysis best` below: `%d = (%tid + %m) - %tid` is
/// `%m`, uniform, though both operands are varying.
const BEST_SA_SUB: &str = "declare i32 @pllvm.thread_id()

define i32 @f(i32 %m) {
entry:
  %tid = call i32 @pllvm.thread_id()
  %t2 = add i32 %tid, %m
  %d = sub i32 %t2, %tid
  %c = icmp sgt i32 %d, 0
  br i1 %c, label %T, label %E

T:
  br label %E

E:
  %r = phi i32 [ 1, %T ], [ 0, %entry ]
  ret i32 %r
}
";

/// `analyze --analysis best` is the meet of thesis, popl and sa, derived by hand
/// (thesis Fig. 10.11's comparison, with %m uniform and W = 4):
/// - thesis and popl: `%tid` varying, so `%c = icmp sge %tid, %m8` varying, the
///   branch divergent, `%T`'s activation varying, `%E` a sync join, `%r` varying;
/// - sa: `%tid` is (1, 0), `%m8 = 8·m` uniform with alignment 8; the strides are
///   1 > 0, both bases multiples of 8 and the lanes' offsets ≤ 3 < 8: `%c`
///   uniform, the branch uniform, no join, `%r` uniform;
/// - best: what one of them proves uniform is uniform: `%c`, the branch, `%T`'s
///   activation and `%r` uniform, `%tid` varying; strictly more precise than
///   thesis and popl, equal to sa on the shapes.
#[test]
fn analyze_best_is_the_meet_of_the_sound_analyses() {
    let file = temp_file(
        "best.ll",
        "declare i32 @pllvm.thread_id()

define i32 @f(i32 %m) {
entry:
  %tid = call i32 @pllvm.thread_id()
  %m8 = mul i32 %m, 8
  %c = icmp sge i32 %tid, %m8
  br i1 %c, label %T, label %E

T:
  br label %E

E:
  %r = phi i32 [ 1, %T ], [ 0, %entry ]
  ret i32 %r
}
",
    );
    let base = ["analyze", &file, "--uniform-args", "m", "--width", "4"];
    let line = |out: &str, start: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(start))
            .map(|l| l.split(';').nth(1).unwrap_or("").trim().to_string())
            .unwrap_or_else(|| panic!("no {start} in\n{out}"))
    };
    let best = pllvm(&[&base[..], &["--analysis", "best"]].concat());
    assert!(best.status.success(), "{}", stderr(&best));
    let out = stdout(&best);
    assert!(out.starts_with("; analysis: best;"), "{out}");
    assert_eq!(line(&out, "%tid ="), "varying");
    assert_eq!(line(&out, "%m8 ="), "uniform");
    assert_eq!(line(&out, "%c ="), "uniform");
    assert_eq!(line(&out, "br i1 %c"), "uniform");
    assert_eq!(line(&out, "T:"), "activation uniform");
    assert_eq!(line(&out, "E:"), "activation uniform");
    assert_eq!(line(&out, "%r ="), "uniform");
    assert!(out.contains(";   divergent branches: none"), "{out}");
    assert!(out.contains(";   sync joins: none"), "{out}");
    let thesis = stdout(&pllvm(&[&base[..], &["--analysis", "thesis"]].concat()));
    assert_eq!(line(&thesis, "%c ="), "varying");
    assert_eq!(line(&thesis, "%r ="), "varying");
    assert_eq!(line(&thesis, "E:"), "activation uniform, sync join");

    let json = pllvm(&[&base[..], &["--analysis", "best", "--json"]].concat());
    assert!(json.status.success(), "{}", stderr(&json));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("JSON");
    let analysis = &doc["functions"][0]["analyses"][0];
    assert_eq!(analysis["analysis"], "best");
    let shape = |name: &str| {
        analysis["values"]
            .as_array()
            .and_then(|vs| vs.iter().find(|v| v["name"] == name))
            .map(|v| v["shape"].clone())
            .unwrap_or_else(|| panic!("no {name} in {analysis}"))
    };
    assert_eq!(shape("%tid"), "varying");
    assert_eq!(shape("%c"), "uniform");
    assert_eq!(shape("%r"), "uniform");
    // `all` stays the four analyses of their own.
    let all = stdout(&pllvm(&[&base[..], &["--json"]].concat()));
    let all: serde_json::Value = serde_json::from_str(&all).expect("JSON");
    let names: Vec<&str> = all["functions"][0]["analyses"]
        .as_array()
        .expect("analyses")
        .iter()
        .filter_map(|a| a["analysis"].as_str())
        .collect();
    assert_eq!(names, ["thesis", "popl", "llvm", "sa"]);
}

/// `pllvm analyze --analysis best` and the transforms' analysis
/// (`pllvm_codegen::uniform::analyze` with `AnalysisKind::Best`, the default of
/// `transform` and `compile`) are one computation: the same JSON report, on a
/// program where best is more precise than thesis.
#[test]
fn analyze_best_agrees_with_the_transforms_analysis() {
    use pllvm_analysis::render;
    use pllvm_analysis::result::AnalysisKind;
    let file = temp_file("best-sub.ll", BEST_SA_SUB);
    let cli = pllvm(&[
        "analyze",
        &file,
        "--analysis",
        "best",
        "--uniform-args",
        "m",
        "--json",
    ]);
    assert!(cli.status.success(), "{}", stderr(&cli));
    let cli: serde_json::Value = serde_json::from_str(&stdout(&cli)).expect("JSON");
    let (module, _) = pllvm_semantics::text::parse_module(BEST_SA_SUB).expect("parses");
    let func = module.first_definition().expect("a definition");
    let best = pllvm_codegen::uniform::analyze(
        &module,
        func,
        AnalysisKind::Best,
        &["m".to_string()],
        "test",
    )
    .expect("analyses");
    let codegen = serde_json::to_value(render::ModuleReport::new(vec![render::report(
        &module,
        &[&best],
    )]))
    .expect("serializes");
    assert_eq!(cli, codegen);
    let d = cli["functions"][0]["analyses"][0]["values"]
        .as_array()
        .and_then(|vs| vs.iter().find(|v| v["name"] == "%d"))
        .map(|v| v["shape"].clone());
    assert_eq!(d, Some("uniform".into()), "{cli}");
}

/// `pllvm repl` takes the run flags of `pllvm run`, checked the same way when
/// the command line is parsed: a bad `--interp`, `--exec`, `--sched` or `--mem`
/// is a usage error (exit 2) naming the flag, and `--mem` sets a global.
#[test]
fn repl_checks_its_run_flags_as_run_does() {
    let file = temp_file(
        "global.ll",
        "@g = global i32 0

define i32 @f() {
entry:
  %v = load i32, ptr @g, align 4
  ret i32 %v
}
",
    );
    for (flag, value) in [
        ("--interp", "bogus"),
        ("--exec", "slow"),
        ("--sched", "sideways"),
        ("--mem", "g5"),
    ] {
        let out = pllvm(&["repl", &file, flag, value]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{flag} {value}: {}",
            stderr(&out)
        );
        let err = stderr(&out);
        assert!(
            err.contains(&format!("invalid value '{value}' for '{flag}")),
            "{flag} {value}: {err}"
        );
    }
    // A global the program does not have is a usage error too, as for run.
    let out = pllvm(&["repl", &file, "--mem", "@h=1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no global @h"), "{}", stderr(&out));
    let out = common::pllvm_with_stdin(&["repl", &file, "--mem", "@g=5", "-w", "2"], "run\n");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("result: [5, 5]"), "{}", stdout(&out));
}
