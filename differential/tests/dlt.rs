//! The divergent loop transform (thesis §9.1) on the interpreter: for every
//! program here, the output verifies, a re-analysis finds no divergent loop, and
//! on every greedy schedule (`explore`, W = 2 and 3) the output under OBLIVIOUS
//! ends exactly as the input under FREEZING (results and memory), while the
//! input under OBLIVIOUS may not (logstar, Fig. 3.21b: ⊤ in the lane that left
//! early). The seeded broken transform (`Fault::DropLiveOutTracker`) is caught.

use pllvm_analysis::loops::LoopInfo;
use pllvm_analysis::result::AnalysisKind;
use pllvm_codegen::dlt::{Fault, LiveOuts, classify};
use pllvm_codegen::pipeline::{Options, Pass, run_passes};
use pllvm_codegen::uniform::analyze;
use pllvm_interp::RunConfig;
use pllvm_interp::explore::{Bounds, explore};
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::Module;
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::{parse_module, print_module};
use pllvm_semantics::verify::verify_module;

fn module(src: &str) -> Module {
    parse_module(src).expect("the test program parses").0
}

/// The module after `--pass dlt` with these options, and the notes.
fn dlt_with(m: &Module, options: &Options) -> Result<(Module, Vec<String>), String> {
    let func = m.first_definition().ok_or("no function")?;
    let stages = run_passes(m, func, &[Pass::Dlt], options).map_err(|e| e.to_string())?;
    let stage = stages.into_iter().next().ok_or("no stage")?;
    Ok((stage.module, stage.notes))
}

/// `--pass dlt` with the default options; checks the output verifies and is free of
/// divergent loops.
fn dlt(m: &Module) -> (Module, Vec<String>) {
    let (out, notes) = dlt_with(m, &Options::default()).expect("dlt transforms");
    check_output(&out, &[]);
    (out, notes)
}

/// The output verifies and a re-analysis of it finds no divergent loop: no header
/// in `divergent_loops`, every loop exit uniform, and the transform's own rule
/// calls every loop uniform.
fn check_output(out: &Module, uniform_args: &[String]) {
    let printed = print_module(out);
    let report = verify_module(out, &SourceMap::default());
    assert!(report.is_ok(), "{:?}\n{printed}", report.errors);
    let func = out.first_definition().expect("a function");
    let u = analyze(out, func, AnalysisKind::Best, uniform_args, "dlt").expect("analyses");
    assert!(
        u.divergent_loops.is_empty(),
        "divergent loops left: {:?}\n{printed}",
        u.divergent_loops
    );
    assert!(
        u.loop_exits.values().all(|s| !s.is_varying()),
        "a varying loop exit is left\n{printed}"
    );
    let body = out.functions[func].body.as_ref().expect("a body");
    let loops = LoopInfo::compute(body).expect("reducible");
    let verdicts = classify(out, func, &Cfg::new(body), &loops, &u);
    for v in verdicts {
        assert!(
            v.reason.is_none(),
            "loop %{} is still divergent: {:?}\n{printed}",
            body.blocks[v.header].name,
            v.reason
        );
    }
}

/// The distinct endings of every greedy schedule: (ending, results, memory).
fn endings(m: &Module, interp: Interp, width: usize, args: &[&str]) -> Vec<String> {
    let mut config = RunConfig {
        threads: width,
        interp,
        ..Default::default()
    };
    for a in args {
        config.add_arg(a).expect("argument");
    }
    let e = explore(m, &config, &Bounds::default()).expect("explores");
    assert!(e.truncated.is_none(), "exploration truncated");
    let mut out: Vec<String> = e
        .outcomes
        .iter()
        .map(|o| format!("{} {} {:?}", o.ending, o.result_text, o.memory))
        .collect();
    out.sort();
    out
}

/// FR(input) = OBL(output) on every greedy schedule, for each argument set.
fn check_equivalent(input: &Module, output: &Module, runs: &[(usize, &[&str])]) {
    for &(width, args) in runs {
        let want = endings(input, Interp::Freezing, width, args);
        let got = endings(output, Interp::Oblivious, width, args);
        assert_eq!(
            want,
            got,
            "W = {width}, {args:?}: FR of the input vs OBL after dlt\n{}",
            print_module(output)
        );
    }
}

/// Thesis Fig. 3.20a, logstar: lanes leave the loop after different iterations.
const LOGSTAR: &str = include_str!("../../corpus/semantics/fig3.20b-logstar-fr.ll");

#[test]
fn logstar_naive_obl_is_wrong_and_obl_after_dlt_equals_fr() {
    let input = module(LOGSTAR);
    let args: &[&str] = &["n=88.38,1.5"];
    // The input under OBL: the lane that left first is overwritten (Fig. 3.21b).
    assert_eq!(
        endings(&input, Interp::Oblivious, 2, args),
        ["returned [3, ⊤] []"]
    );
    assert_eq!(
        endings(&input, Interp::Freezing, 2, args),
        ["returned [3, 1] []"]
    );
    let (out, notes) = dlt(&input);
    assert_eq!(
        endings(&out, Interp::Oblivious, 2, args),
        ["returned [3, 1] []"]
    );
    assert_eq!(
        notes,
        [
            "loop %B: divergent (exit %C varying), made uniform: NewH %B.newh, Guard %B.guard, L %B.newlatch, E %B.e.C, Disp %B.disp, live-outs %i.inc held in %i"
        ]
    );
    check_equivalent(
        &input,
        &out,
        &[
            (2, &["n=88.38,1.5"]),
            (3, &["n=88.38,1.5,3000"]),
            (3, &["n=0.5,20,1e300"]),
        ],
    );
}

#[test]
fn the_seeded_broken_transform_is_caught_on_logstar() {
    let input = module(LOGSTAR);
    let options = Options {
        fault: Some(Fault::DropLiveOutTracker),
        ..Options::default()
    };
    let (broken, _) = dlt_with(&input, &options).expect("the broken transform still runs");
    assert!(verify_module(&broken, &SourceMap::default()).is_ok());
    // t1 left after the first iteration; without a tracker that keeps %i.inc, it
    // reads undef after the loop.
    assert_eq!(
        endings(&broken, Interp::Oblivious, 2, &["n=88.38,1.5"]),
        ["returned [3, ⊤] []"]
    );
    assert_ne!(
        endings(&broken, Interp::Oblivious, 2, &["n=88.38,1.5"]),
        endings(&input, Interp::Freezing, 2, &["n=88.38,1.5"])
    );
}

/// `LiveOuts::Tracked` (§9.1's tracker pairs for every live-out, the native
/// choice for AVX-512): logstar's `%i.inc` gets a tracker, `%i.inc.out`, and the
/// counter's forwarding phi `%i.next` reads `undef` from the edges that do not
/// go round (the counter is not held); with the default `Held`, `%i` holds it
/// and `%i.next` keeps `%i` there. Both outputs equal the original under every
/// greedy schedule.
#[test]
fn tracked_live_outs_get_trackers_and_leave_the_counter_unheld() {
    let input = module(LOGSTAR);
    let tracked = Options {
        live_outs: LiveOuts::Tracked,
        ..Options::default()
    };
    let (out, notes) = dlt_with(&input, &tracked).expect("dlt transforms");
    check_output(&out, &[]);
    assert!(
        notes[0].ends_with("live-outs %i.inc as %i.inc.out"),
        "{notes:?}"
    );
    let text = print_module(&out);
    assert!(
        text.contains("%i.next = phi i32 [ %i.inc, %B ], [ undef, %B.guard ], [ undef, %B.e.C ]"),
        "{text}"
    );
    let (held, notes) = dlt(&input);
    assert!(
        notes[0].ends_with("live-outs %i.inc held in %i"),
        "{notes:?}"
    );
    let text = print_module(&held);
    assert!(
        !text.contains("%i.inc.out")
            && text
                .contains("%i.next = phi i32 [ %i.inc, %B ], [ %i, %B.guard ], [ %i.inc, %B.e.C ]"),
        "{text}"
    );
    for out in [&out, &held] {
        check_equivalent(
            &input,
            out,
            &[(2, &["n=88.38,1.5"]), (3, &["n=0.5,20,1e300"])],
        );
    }
}

/// Two exits, X1 from the header and X2 from the body; %s, %s.next and %i live
/// out, %i used after the exits' join.
const MULTI_EXIT: &str = "
define i32 @f(i32 %n) {
A:
  br label %H
H:
  %i = phi i32 [ 0, %A ], [ %i.next, %L ]
  %s = phi i32 [ 0, %A ], [ %s.next, %L ]
  %c1 = icmp sge i32 %i, %n
  br i1 %c1, label %X1, label %B
B:
  %s.next = add i32 %s, %i
  %c2 = icmp sgt i32 %s.next, 5
  br i1 %c2, label %X2, label %L
L:
  %i.next = add i32 %i, 1
  br label %H
X1:
  %r1 = add i32 %s, 100
  br label %J
X2:
  %r2 = mul i32 %s.next, 2
  br label %J
J:
  %r = phi i32 [ %r1, %X1 ], [ %r2, %X2 ]
  %r3 = add i32 %r, %i
  ret i32 %r3
}
";

#[test]
fn multi_exit_loop_with_live_outs_in_exit_phis_and_further_down() {
    let input = module(MULTI_EXIT);
    let (out, notes) = dlt(&input);
    assert_eq!(notes.len(), 1);
    assert!(notes[0].starts_with("loop %H: divergent ("), "{notes:?}");
    assert!(notes[0].contains("E %H.e.X1 %H.e.X2"), "{notes:?}");
    // n = 1: X1 after one iteration, s = 0: 100 + 1. n = 3: s = 0, 0, 1, 3 → X1
    // at i = 3 with s = 3: 103 + 3. n = 9: s.next = 6 > 5 at i = 3: 12 + 3.
    assert_eq!(
        endings(&out, Interp::Oblivious, 3, &["n=1,3,9"]),
        ["returned [101, 106, 15] []"]
    );
    check_equivalent(
        &input,
        &out,
        &[(2, &["n=0,9"]), (3, &["n=1,3,9"]), (3, &["n=2,4,3"])],
    );
}

/// An inner loop whose trip count depends on %n and the outer counter, inside an
/// outer loop that is divergent too; inner values live out of both loops.
const NESTED: &str = "
define i32 @g(i32 %n) {
A:
  br label %O
O:
  %j = phi i32 [ 0, %A ], [ %j.next, %OL ]
  %acc = phi i32 [ 0, %A ], [ %a.next, %OL ]
  br label %I
I:
  %k = phi i32 [ 0, %O ], [ %k.next, %I ]
  %a = phi i32 [ %acc, %O ], [ %a.next, %I ]
  %a.next = add i32 %a, %k
  %k.next = add i32 %k, 1
  %lim = sub i32 %n, %j
  %ci = icmp slt i32 %k.next, %lim
  br i1 %ci, label %I, label %OL
OL:
  %j.next = add i32 %j, 1
  %co = icmp slt i32 %j.next, %n
  br i1 %co, label %O, label %X
X:
  %r = mul i32 %a.next, 10
  %r2 = add i32 %r, %k.next
  ret i32 %r2
}
";

#[test]
fn nested_divergent_loops_innermost_first() {
    let input = module(NESTED);
    let (out, notes) = dlt(&input);
    assert_eq!(notes.len(), 2);
    assert!(notes[0].starts_with("loop %I: divergent"), "{notes:?}");
    assert!(notes[1].starts_with("loop %O: divergent"), "{notes:?}");
    check_equivalent(
        &input,
        &out,
        &[(2, &["n=2,3"]), (3, &["n=1,2,3"]), (3, &["n=3,1,2"])],
    );
}

/// The inner loop's exit %Found leaves both loops at once.
const EXIT_OUT_OF_TWO: &str = "
define i32 @h(i32 %n) {
A:
  br label %O
O:
  %j = phi i32 [ 0, %A ], [ %j.next, %OL ]
  br label %I
I:
  %k = phi i32 [ 0, %O ], [ %k.next, %IL ]
  %t = add i32 %j, %k
  %found = icmp eq i32 %t, %n
  br i1 %found, label %Found, label %IL
IL:
  %k.next = add i32 %k, 1
  %ci = icmp slt i32 %k.next, 3
  br i1 %ci, label %I, label %OL
OL:
  %j.next = add i32 %j, 1
  %co = icmp slt i32 %j.next, 3
  br i1 %co, label %O, label %NotFound
Found:
  %r = mul i32 %t, 10
  %r1 = add i32 %r, %k
  ret i32 %r1
NotFound:
  ret i32 -1
}
";

#[test]
fn an_exit_out_of_two_loops() {
    let input = module(EXIT_OUT_OF_TWO);
    let (out, notes) = dlt(&input);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes.iter().all(|n| n.contains(": divergent")), "{notes:?}");
    // n = 1: j = 0, k = 1: t = 1 → 10 + 1. n = 4: j = 2, k = 2 → 40 + 2. n = 9: never.
    assert_eq!(
        endings(&out, Interp::Oblivious, 3, &["n=1,4,9"]),
        ["returned [11, 42, -1] []"]
    );
    check_equivalent(
        &input,
        &out,
        &[(2, &["n=0,4"]), (3, &["n=1,4,9"]), (3, &["n=0,2,5"])],
    );
}

/// A `ret` inside the loop (the loop's only exit), and one outside it.
const RET_IN_LOOP: &str = "
define i32 @r(i32 %n) {
A:
  %neg = icmp slt i32 %n, 0
  br i1 %neg, label %Out, label %H
H:
  %i = phi i32 [ 0, %A ], [ %i.next, %B ]
  %sq = mul i32 %i, %i
  %hit = icmp sge i32 %sq, %n
  br i1 %hit, label %Ret, label %B
Ret:
  ret i32 %i
B:
  %i.next = add i32 %i, 1
  br label %H
Out:
  ret i32 -1
}
";

#[test]
fn a_ret_inside_a_loop_becomes_a_loop_exit() {
    let input = module(RET_IN_LOOP);
    let (out, notes) = dlt(&input);
    assert_eq!(notes.len(), 1);
    assert!(notes[0].contains("E %H.e.Ret"), "{notes:?}");
    // The smallest i with i² ≥ n: n = 5 → 3, n = 10 → 4.
    assert_eq!(
        endings(&out, Interp::Oblivious, 3, &["n=-1,5,10"]),
        ["returned [-1, 3, 4] []"]
    );
    check_equivalent(
        &input,
        &out,
        &[(2, &["n=0,16"]), (3, &["n=-1,5,10"]), (3, &["n=1,2,-3"])],
    );
}

#[test]
fn a_uniform_loop_is_kept() {
    let input = module(LOGSTAR);
    let options = Options {
        uniform_args: vec!["n".into()],
        ..Options::default()
    };
    let (out, notes) = dlt_with(&input, &options).expect("dlt runs");
    assert_eq!(notes, ["loop %B: uniform, kept"]);
    check_output(&out, &["n".to_string()]);
    let body = out.functions[out.first_definition().expect("f")]
        .body
        .as_ref()
        .expect("body");
    assert!(body.blocks.values().all(|b| !b.name.contains("newh")));
}

/// Each lane adds to its own element of a global in every iteration.
const MEMORY: &str = "
@buf = global [3 x i32] zeroinitializer
define i32 @m(i32 %n) {
A:
  %t = call i32 @pllvm.thread_id()
  %p = getelementptr [3 x i32], ptr @buf, i32 0, i32 %t
  br label %H
H:
  %i = phi i32 [ 0, %A ], [ %i1, %H ]
  %old = load i32, ptr %p
  %new = add i32 %old, %i
  store i32 %new, ptr %p
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %H, label %X
X:
  %v = load i32, ptr %p
  %r = add i32 %v, %i1
  ret i32 %r
}
";

#[test]
fn stores_in_a_divergent_loop() {
    let input = module(MEMORY);
    let (out, _) = dlt(&input);
    // n = 3: buf = 0 + 1 + 2 = 3, i1 = 3 → 6. n = 1: 0, 1 → 1. n = 2: 1, 2 → 3.
    assert_eq!(
        endings(&out, Interp::Oblivious, 3, &["n=1,3,2"]),
        ["returned [1, 6, 3] [(\"@buf\", \"[0, 3, 1]\")]"]
    );
    check_equivalent(&input, &out, &[(2, &["n=4,1"]), (3, &["n=1,3,2"])]);
}

/// The loop sits in one arm of a divergent branch: lanes on the other arm are
/// passive in NewH (`%live`'s `shadow(false)`).
const IN_BRANCH: &str = "
define i32 @d(i32 %n) {
A:
  %c0 = icmp sgt i32 %n, 1
  br i1 %c0, label %P, label %Z
P:
  br label %H
H:
  %i = phi i32 [ 0, %P ], [ %i1, %H ]
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %H, label %X
X:
  br label %J
Z:
  br label %J
J:
  %r = phi i32 [ %i1, %X ], [ 7, %Z ]
  ret i32 %r
}
";

#[test]
fn a_divergent_loop_in_a_divergent_branch() {
    let input = module(IN_BRANCH);
    let (out, _) = dlt(&input);
    check_equivalent(&input, &out, &[(2, &["n=0,3"]), (3, &["n=0,3,5"])]);
}

#[test]
fn irreducible_input_is_refused_naming_the_cycle() {
    let input = module(
        "
define i32 @irr(i1 %c) {
A:
  br i1 %c, label %B, label %C
B:
  br label %C
C:
  br label %B
}
",
    );
    let err = dlt_with(&input, &Options::default()).expect_err("refused");
    assert!(err.contains("irreducible"), "{err}");
    assert!(err.contains("%B") || err.contains("%C"), "{err}");
    assert!(err.contains("--pass reconverge"), "{err}");
}

#[test]
fn a_loop_without_exit_is_refused_naming_its_header() {
    let input = module(
        "
define i32 @spin(i32 %n) {
A:
  br label %H
H:
  %i = phi i32 [ 0, %A ], [ %i1, %H ]
  %i1 = add i32 %i, %n
  br label %H
}
",
    );
    let err = dlt_with(&input, &Options::default()).expect_err("refused");
    assert!(err.contains("header %H has no exit"), "{err}");
}

#[test]
fn a_predicated_input_is_refused() {
    let input = module(
        "
define i32 @p(i1 %c) {
A:
  predicate %c
  ret i32 0
}
",
    );
    let err = dlt_with(&input, &Options::default()).expect_err("refused");
    assert!(err.contains("block %A has a predicate"), "{err}");
}

/// A uniform `while` loop (tested at its header, two iterations in every lane)
/// inside a divergent loop.
const WHILE_IN_DIVERGENT: &str = "
define i32 @w(i32 %n) {
A:
  br label %O
O:
  %j = phi i32 [ 0, %A ], [ %j.next, %OL ]
  %acc = phi i32 [ 0, %A ], [ %acc2, %OL ]
  %base = mul i32 %j, 3
  br label %K
K:
  %k = phi i32 [ 0, %O ], [ %k.next, %KB ]
  %s = phi i32 [ %acc, %O ], [ %s.next, %KB ]
  %kc = icmp slt i32 %k, 2
  br i1 %kc, label %KB, label %OL
KB:
  %t = add i32 %base, %k
  %s.next = add i32 %s, %t
  %k.next = add i32 %k, 1
  br label %K
OL:
  %acc2 = add i32 %s, 1
  %j.next = add i32 %j, 1
  %co = icmp slt i32 %j.next, %n
  br i1 %co, label %O, label %X
X:
  ret i32 %acc2
}
";

#[test]
fn a_uniform_while_loop_inside_a_divergent_loop_is_made_bottom_tested() {
    let input = module(WHILE_IN_DIVERGENT);
    let (out, notes) = dlt(&input);
    assert!(
        notes[0].starts_with(
            "loop %K: uniform, but left only through its header inside the divergent loop %O, made bottom-tested"
        ),
        "{notes:?}"
    );
    assert!(notes[1].starts_with("loop %O: divergent"), "{notes:?}");
    // Per outer iteration j: s += 3j + 0 + 3j + 1, then acc = s + 1. n = 1: 0 + 1
    // + 1 = 2. n = 3: 2, then 2 + 3 + 3 + 1 = 9 + 1 = 10, then 10 + 6 + 6 + 1 + 1 = 24.
    assert_eq!(
        endings(&out, Interp::Oblivious, 2, &["n=1,3"]),
        ["returned [2, 24] []"]
    );
    check_equivalent(&input, &out, &[(2, &["n=1,3"]), (3, &["n=1,2,3"])]);
}

#[test]
fn the_output_is_a_fixed_point() {
    for src in [
        LOGSTAR,
        MULTI_EXIT,
        NESTED,
        EXIT_OUT_OF_TWO,
        WHILE_IN_DIVERGENT,
    ] {
        let (once, _) = dlt(&module(src));
        let (_, notes) = dlt(&once);
        assert!(
            notes.iter().all(|n| n.ends_with(": uniform, kept")),
            "{notes:?}\n{}",
            print_module(&once)
        );
    }
}
