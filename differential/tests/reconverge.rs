//! The reconverging-CFG transform (`--pass reconverge`, the poster's Definition 1
//! and OpenTree) on hand-written programs: the poster's Fig. 2a walked in the
//! order of Fig. 4 (A → C → B → D), irreducible state machines (an entry branch
//! into a two-entry cycle), cycles nested in loops, divergent and uniform
//! `switch`es, and uniform branches that must survive. Every output verifies
//! (thesis §4.10), satisfies Definition 1 under a fresh analysis
//! (`pllvm_analysis::reconverging::check_reconverging`), and run under OBLIVIOUS
//! on every greedy schedule (`pllvm_interp::explore`, W = 2 and 3) gives what the
//! input gives under FREEZING, lane by lane.
//!
//! Programs whose loops are divergent go through the divergent loop transform
//! (thesis §9.1, `pllvm_codegen::dlt`) in step 2 of the route; step 1 alone is
//! also checked to keep FREEZING behaviour.

use pllvm_analysis::cycles::CycleInfo;
use pllvm_analysis::postdom::PostDomTree;
use pllvm_analysis::reconverging::check_reconverging;
use pllvm_codegen::pipeline::{Options, Pass, PassContext};
use pllvm_codegen::reconverge::{fix_irreducible, reconverge, reconverging_cfg};
use pllvm_codegen::shape::cfg_lines;
use pllvm_codegen::{Site, TransformError};
use pllvm_interp::RunConfig;
use pllvm_interp::config::{ArgValue, Scalar};
use pllvm_interp::explore::{Bounds, Exploration, Order, explore};
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::{FuncId, Module};
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::{parse_module, print_module};
use pllvm_semantics::value::Val;
use pllvm_semantics::verify::verify_module;

/// Poster Fig. 2a: the branch in `A` diverges and neither `B` nor `C`
/// post-dominates it. The block index visits A, C, B, D (Fig. 4).
const FIG_2A: &str = "
define i32 @fig2a(i32 %x) {
A:
  %t = call i32 @pllvm.thread_id()
  %c = icmp slt i32 %t, %x
  br i1 %c, label %B, label %C
B:
  %b = add i32 %t, 100
  br label %D
C:
  %cv = mul i32 %t, 10
  br label %D
D:
  %r = phi i32 [ %b, %B ], [ %cv, %C ]
  ret i32 %r
}
";

/// An irreducible state machine: the entry branches on `%sel` into the two-entry
/// cycle `S0 ⇄ S1`, which runs `%n` steps in all and leaves from either state.
fn state_machine(select: &str) -> String {
    format!(
        "
define i32 @sm(i32 %n, i32 %m) {{
entry:
  %t = call i32 @pllvm.thread_id()
  %sel = {select}
  %c = icmp eq i32 %sel, 0
  br i1 %c, label %S0, label %S1
S0:
  %x0 = phi i32 [ %t, %entry ], [ %x1n, %S1 ]
  %k0 = phi i32 [ 0, %entry ], [ %k1n, %S1 ]
  %x0n = add i32 %x0, 3
  %k0n = add i32 %k0, 1
  %d0 = icmp slt i32 %k0n, %n
  br i1 %d0, label %S1, label %done
S1:
  %x1 = phi i32 [ %t, %entry ], [ %x0n, %S0 ]
  %k1 = phi i32 [ 0, %entry ], [ %k0n, %S0 ]
  %x1n = mul i32 %x1, 2
  %k1n = add i32 %k1, 1
  %d1 = icmp slt i32 %k1n, %n
  br i1 %d1, label %S0, label %done
done:
  %r = phi i32 [ %x0n, %S0 ], [ %x1n, %S1 ]
  ret i32 %r
}}
"
    )
}

/// A two-entry cycle entered on a uniform value, inside a uniform loop, with a
/// divergent if-else in the cycle and a divergent if-then after it.
const NESTED_CYCLES: &str = "
define i32 @nest(i32 %n, i32 %m) {
entry:
  %t = call i32 @pllvm.thread_id()
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i1, %keep ]
  %acc = phi i32 [ %t, %entry ], [ %acc3, %keep ]
  %par = and i32 %i, 1
  %ev = icmp eq i32 %par, 0
  br i1 %ev, label %P, label %Q
P:
  %j = phi i32 [ 0, %outer ], [ %jq, %Q ]
  %ap = phi i32 [ %acc, %outer ], [ %aq, %Q ]
  %odd = and i32 %t, 1
  %c = icmp eq i32 %odd, 0
  br i1 %c, label %P1, label %P2
P1:
  %a1 = add i32 %ap, 3
  br label %Pj
P2:
  %a2 = mul i32 %ap, 2
  br label %Pj
Pj:
  %ap2 = phi i32 [ %a1, %P1 ], [ %a2, %P2 ]
  %jp = add i32 %j, 1
  %more = icmp slt i32 %jp, %m
  br i1 %more, label %Q, label %olatch
Q:
  %jj = phi i32 [ 0, %outer ], [ %jp, %Pj ]
  %aa = phi i32 [ %acc, %outer ], [ %ap2, %Pj ]
  %aq = add i32 %aa, %t
  %jq = add i32 %jj, 1
  %more2 = icmp slt i32 %jq, %m
  br i1 %more2, label %P, label %olatch
olatch:
  %acc2 = phi i32 [ %ap2, %Pj ], [ %aq, %Q ]
  %big = icmp sgt i32 %acc2, 40
  br i1 %big, label %cut, label %keep
cut:
  %acc.cut = sub i32 %acc2, 40
  br label %keep
keep:
  %acc3 = phi i32 [ %acc2, %olatch ], [ %acc.cut, %cut ]
  %i1 = add i32 %i, 1
  %oc = icmp slt i32 %i1, %n
  br i1 %oc, label %outer, label %exit
exit:
  ret i32 %acc3
}
";

/// Natural loops two deep, uniform trip counts, with unstructured divergent
/// branches in the inner body (two paths that cross before the latch).
const NESTED_LOOPS: &str = "
define i32 @loops(i32 %n) {
entry:
  %t = call i32 @pllvm.thread_id()
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i1, %olatch ]
  %s = phi i32 [ 0, %entry ], [ %s2, %olatch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j1, %ilatch ]
  %v = phi i32 [ %s, %outer ], [ %v3, %ilatch ]
  %ti = add i32 %t, %j
  %bit = and i32 %ti, 1
  %c1 = icmp eq i32 %bit, 0
  br i1 %c1, label %L, label %R
L:
  %vl = add i32 %v, %t
  %bit2 = and i32 %ti, 2
  %c2 = icmp eq i32 %bit2, 0
  br i1 %c2, label %M, label %ilatch
R:
  %vr = mul i32 %v, 3
  br label %M
M:
  %vm = phi i32 [ %vl, %L ], [ %vr, %R ]
  %v2 = add i32 %vm, 1
  br label %ilatch
ilatch:
  %v3 = phi i32 [ %vl, %L ], [ %v2, %M ]
  %j1 = add i32 %j, 1
  %ic = icmp slt i32 %j1, 3
  br i1 %ic, label %inner, label %olatch
olatch:
  %s2 = add i32 %v3, %i
  %i1 = add i32 %i, 1
  %oc = icmp slt i32 %i1, %n
  br i1 %oc, label %outer, label %exit
exit:
  ret i32 %s2
}
";

/// A divergent three-way `switch` on the thread id.
const DIVERGENT_SWITCH: &str = "
define i32 @sw(i32 %x) {
entry:
  %t = call i32 @pllvm.thread_id()
  %k = urem i32 %t, 3
  switch i32 %k, label %D [ i32 0, label %A
                            i32 1, label %B ]
A:
  %a = add i32 %x, 10
  br label %J
B:
  %b = add i32 %x, 20
  br label %J
D:
  %d = add i32 %x, 30
  br label %J
J:
  %r = phi i32 [ %a, %A ], [ %b, %B ], [ %d, %D ]
  ret i32 %r
}
";

/// Uniform control flow around and inside a divergent region: a uniform
/// `switch` before it, a uniform branch inside one arm, a uniform branch after
/// the join. Only the divergent branch of `div` needs a flow block.
const UNIFORM_BRANCHES: &str = "
define i32 @uni(i32 %n, i32 %x) {
entry:
  %t = call i32 @pllvm.thread_id()
  switch i32 %n, label %u0 [ i32 1, label %u1
                             i32 2, label %u1 ]
u0:
  br label %div
u1:
  br label %div
div:
  %base = phi i32 [ 5, %u0 ], [ 7, %u1 ]
  %c = icmp slt i32 %t, %x
  br i1 %c, label %then, label %else
then:
  %un = icmp sgt i32 %n, 3
  br i1 %un, label %t1, label %t2
t1:
  %a1 = add i32 %base, 1
  br label %join
t2:
  %a2 = add i32 %base, 2
  br label %join
else:
  %e = mul i32 %base, %t
  br label %join
join:
  %r = phi i32 [ %a1, %t1 ], [ %a2, %t2 ], [ %e, %else ]
  %after = icmp eq i32 %n, 0
  br i1 %after, label %z, label %end
z:
  br label %end
end:
  %q = phi i32 [ 0, %z ], [ %r, %join ]
  ret i32 %q
}
";

fn parse(src: &str) -> (Module, FuncId) {
    let (module, spans) = parse_module(src).unwrap_or_else(|e| panic!("{e:?}"));
    let report = verify_module(&module, &spans);
    assert!(report.is_ok(), "input does not verify: {:?}", report.errors);
    let func = module.first_definition().expect("a definition");
    (module, func)
}

fn options(uniform: &[&str]) -> Options {
    Options {
        uniform_args: uniform.iter().map(|s| s.to_string()).collect(),
        ..Options::default()
    }
}

fn context(options: &Options) -> PassContext<'_> {
    PassContext {
        options,
        pass: Pass::Reconverge,
    }
}

/// The whole route; panics with the error.
fn route(module: &Module, func: FuncId, options: &Options) -> (Module, Vec<String>) {
    reconverge(module, func, &context(options)).unwrap_or_else(|e| panic!("{e}"))
}

/// The output verifies and satisfies Definition 1 under a fresh analysis.
fn assert_reconverging(module: &Module, func: FuncId, options: &Options) {
    let printed = print_module(module);
    let report = verify_module(module, &SourceMap::default());
    assert!(
        report.is_ok(),
        "output does not verify: {:?}\n{printed}",
        report.errors
    );
    let uniformity = context(options)
        .analyze(module, func)
        .unwrap_or_else(|e| panic!("{e}"));
    let body = module.functions[func].body.as_ref().expect("a body");
    let violations = check_reconverging(body, &PostDomTree::compute(body), &uniformity);
    let messages: Vec<String> = violations.iter().map(|v| v.message(body)).collect();
    assert!(messages.is_empty(), "{messages:?}\n{printed}");
}

fn cfg(module: &Module, func: FuncId) -> Vec<String> {
    cfg_lines(module.functions[func].body.as_ref().expect("a body"))
}

/// A run of `module` with `width` lanes; `args` give one value per lane, or one
/// value for a uniform argument.
fn config(args: &[(&str, &[i64])], width: usize, interp: Interp) -> RunConfig {
    let mut cfg = RunConfig {
        threads: width,
        interp,
        ..Default::default()
    };
    for &(name, values) in args {
        let value = match values {
            [one] => ArgValue::Uniform(Scalar::Int(*one)),
            many => ArgValue::PerLane(many[..width].iter().map(|&v| Scalar::Int(v)).collect()),
        };
        cfg.args.insert(name.to_string(), value);
    }
    cfg
}

fn explored(module: &Module, cfg: &RunConfig) -> Exploration {
    let bounds = Bounds {
        max_states: 50_000,
        max_steps: 500,
        order: Order::Lowest,
    };
    let e = explore(module, cfg, &bounds).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        e.truncated.is_none(),
        "exploration cut off: {:?}",
        e.truncated
    );
    e
}

/// Every greedy OBLIVIOUS outcome of `output` is the FREEZING outcome of
/// `original` (which must have exactly one), lane by lane (an original ⊤ admits
/// anything), for W = 2 and 3.
fn assert_fr_equals_obl(original: &Module, output: &Module, args: &[(&str, &[i64])]) {
    for width in [2, 3] {
        let before = explored(original, &config(args, width, Interp::Freezing));
        assert_eq!(
            before.outcomes.len(),
            1,
            "W = {width}: the input has several FR outcomes"
        );
        let fr = &before.outcomes[0];
        assert_eq!(fr.ending, "returned", "W = {width}: {}", fr.result_text);
        let after = explored(output, &config(args, width, Interp::Oblivious));
        for o in &after.outcomes {
            let same = o.ending == fr.ending
                && o.results.len() == fr.results.len()
                && fr
                    .results
                    .iter()
                    .zip(&o.results)
                    .all(|(b, a)| matches!(b, Some(Val::Undef)) || b == a)
                && o.memory == fr.memory;
            assert!(
                same,
                "W = {width}: OBL(output) {} {} on {} but FR(input) {} {}\n{}",
                o.ending,
                o.result_text,
                after.schedule_text(&o.witness),
                fr.ending,
                fr.result_text,
                print_module(output)
            );
        }
    }
}

/// FR(input) = FR(output) on every greedy schedule, for W = 2 and 3 (steps 1 and
/// 3 keep FREEZING behaviour even where OBLIVIOUS needs the divergent loop
/// transform first).
fn assert_fr_kept(original: &Module, output: &Module, args: &[(&str, &[i64])]) {
    for width in [2, 3] {
        let before = explored(original, &config(args, width, Interp::Freezing));
        let after = explored(output, &config(args, width, Interp::Freezing));
        let texts = |e: &Exploration| {
            let mut v: Vec<String> = e
                .outcomes
                .iter()
                .map(|o| format!("{} {}", o.ending, o.result_text))
                .collect();
            v.sort();
            v.dedup();
            v
        };
        assert_eq!(
            texts(&before),
            texts(&after),
            "W = {width}\n{}",
            print_module(output)
        );
    }
}

#[test]
fn fig_2a_gets_one_flow_block_in_the_order_of_fig_4() {
    let (module, func) = parse(FIG_2A);
    let opts = options(&["x"]);
    let (out, notes) = route(&module, func, &opts);
    // Fig. 4: visiting C (after A) arms A; visiting B finds the open edges A -> B
    // and C -> D in A's subtree and reroutes both through FLOW0, which B then D
    // close. A keeps its branch with B's edge rerouted; C now ends in FLOW0.
    assert_eq!(
        cfg(&out, func),
        [
            "A -> flow0, C",
            "B -> D",
            "C -> flow0",
            "flow0 -> B, D",
            "D -> ret"
        ]
    );
    assert_eq!(
        notes,
        ["flow block %flow0 takes the open edges of %A, %C to %B, %D"]
    );
    assert_reconverging(&out, func, &opts);
    assert_fr_equals_obl(&module, &out, &[("x", &[1])]);
    assert_fr_equals_obl(&module, &out, &[("x", &[2])]);
}

#[test]
fn divergent_switch_becomes_a_cascade_of_flow_blocks() {
    let (module, func) = parse(DIVERGENT_SWITCH);
    let opts = options(&["x"]);
    let (out, notes) = route(&module, func, &opts);
    assert_eq!(
        cfg(&out, func),
        [
            "entry -> flow1, entry.sw1",
            "entry.sw1 -> flow0, D",
            "A -> J",
            "B -> flow1",
            "D -> flow0",
            "flow0 -> B, flow1",
            "flow1 -> A, J",
            "J -> ret"
        ]
    );
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert!(notes[0].contains("divergent switch of %entry"), "{notes:?}");
    assert_reconverging(&out, func, &opts);
    assert_fr_equals_obl(&module, &out, &[("x", &[4])]);
}

#[test]
fn uniform_branches_are_kept() {
    let (module, func) = parse(UNIFORM_BRANCHES);
    let opts = options(&["n", "x"]);
    let (out, notes) = route(&module, func, &opts);
    assert_reconverging(&out, func, &opts);
    let lines = cfg(&out, func);
    // The uniform switch, the uniform branch after the join and the one inside
    // the divergent region keep their successors; one flow block joins `then`'s
    // region with `else`.
    for kept in ["entry -> u0, u1, u1", "join -> z, end", "then -> t1, t2"] {
        assert!(lines.iter().any(|l| l == kept), "{kept} missing: {lines:?}");
    }
    assert_eq!(notes.len(), 1, "{notes:?}");
    for n in [0, 1, 2, 5] {
        assert_fr_equals_obl(&module, &out, &[("n", &[n]), ("x", &[1])]);
    }
}

#[test]
fn state_machine_entered_uniformly_becomes_a_natural_loop() {
    let src = state_machine("and i32 %m, 1");
    let (module, func) = parse(&src);
    let opts = options(&["n", "m"]);
    let (out, notes) = route(&module, func, &opts);
    assert!(
        notes[0].starts_with("irreducible cycle of 2 blocks with entries %S0, %S1"),
        "{notes:?}"
    );
    let body = out.functions[func].body.as_ref().expect("a body");
    assert!(
        CycleInfo::compute(body)
            .ids()
            .all(|c| CycleInfo::compute(body).cycle(c).is_reducible())
    );
    assert_reconverging(&out, func, &opts);
    for (n, m) in [(1, 0), (3, 0), (4, 1), (5, 1)] {
        assert_fr_equals_obl(&module, &out, &[("n", &[n]), ("m", &[m])]);
    }
}

#[test]
fn state_machine_entered_per_lane() {
    let src = state_machine("and i32 %t, 1");
    let (module, func) = parse(&src);
    let opts = options(&["n"]);
    // Step 1 alone: one natural loop headed by the dispatch, same FR behaviour.
    let (natural, notes) = fix_irreducible(&module, func).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(notes.len(), 1, "{notes:?}");
    let body = natural.functions[func].body.as_ref().expect("a body");
    assert!(pllvm_semantics::cfg::Cfg::new(body).is_reducible());
    assert!(verify_module(&natural, &SourceMap::default()).is_ok());
    for n in [1, 2, 5] {
        assert_fr_kept(&module, &natural, &[("n", &[n]), ("m", &[0])]);
    }
    // Step 3 on it, without the divergent loop transform, keeps FR behaviour
    // too (OBLIVIOUS would need §9.1 first).
    let mut more = Vec::new();
    if let Ok(walked) = reconverging_cfg(&natural, func, &context(&opts), &mut more) {
        for n in [1, 2, 5] {
            assert_fr_kept(&module, &walked, &[("n", &[n]), ("m", &[0])]);
        }
    }
    // The lanes enter at different states, so the dispatch's loop is divergent
    // for the analysis: the full route runs the divergent loop transform on it.
    let (out, notes) = route(&module, func, &opts);
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("dlt: loop %irr.dispatch: divergent")),
        "{notes:?}"
    );
    assert_reconverging(&out, func, &opts);
    for n in [1, 2, 5] {
        assert_fr_equals_obl(&module, &out, &[("n", &[n]), ("m", &[0])]);
    }
}

#[test]
fn cycle_nested_in_a_loop() {
    let (module, func) = parse(NESTED_CYCLES);
    let opts = options(&["n", "m"]);
    let (out, notes) = route(&module, func, &opts);
    assert!(notes[0].contains("entries %P, %Q"), "{notes:?}");
    assert_reconverging(&out, func, &opts);
    for (n, m) in [(1, 1), (2, 3), (3, 2)] {
        assert_fr_equals_obl(&module, &out, &[("n", &[n]), ("m", &[m])]);
    }
}

#[test]
fn nested_loops_with_crossing_divergent_paths() {
    let (module, func) = parse(NESTED_LOOPS);
    let opts = options(&["n"]);
    let (out, _) = route(&module, func, &opts);
    assert_reconverging(&out, func, &opts);
    for n in [1, 2, 3] {
        assert_fr_equals_obl(&module, &out, &[("n", &[n])]);
    }
}

#[test]
fn already_reconverging_cfg_is_unchanged() {
    // An if-then: the join post-dominates the divergent branch.
    let src = "
define i32 @f(i32 %x) {
A:
  %t = call i32 @pllvm.thread_id()
  %c = icmp slt i32 %t, %x
  br i1 %c, label %B, label %C
B:
  br label %C
C:
  %r = phi i32 [ 1, %B ], [ 2, %A ]
  ret i32 %r
}
";
    let (module, func) = parse(src);
    let (out, notes) = route(&module, func, &options(&["x"]));
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(cfg(&out, func), cfg(&module, func));
}

#[test]
fn predicated_input_is_refused_at_its_block() {
    let src = "
define i32 @f(i1 %p) {
A:
  br label %B
B:
  predicate %p
  ret i32 1
}
";
    let (module, func) = parse(src);
    let Err(err) = reconverge(&module, func, &context(&options(&[]))) else {
        panic!("a predicated input was accepted");
    };
    let err: TransformError = err;
    let body = module.functions[func].body.as_ref().expect("a body");
    let b = body.block_by_name("B").expect("B");
    assert_eq!(err.site, Site::Block(func, b));
    assert!(err.message.contains("predicate"), "{}", err.message);
}

/// A uniform `switch` and a uniform branch inside a divergent region, whose
/// open edges the walk reroutes (the switch's second open edge through a block of
/// its own), with phis in every target.
const UNIFORM_SWITCH_IN_REGION: &str = "
define i32 @f(i32 %n) {
A:
  %t = call i32 @pllvm.thread_id()
  %c = icmp eq i32 %t, 0
  br i1 %c, label %B, label %U
U:
  %tu = mul i32 %t, 10
  switch i32 %n, label %P [ i32 1, label %Q
                            i32 2, label %R ]
R:
  %r = add i32 %tu, 5
  br label %J
B:
  %u = icmp eq i32 %n, 7
  br i1 %u, label %P, label %Q
P:
  %pv = phi i32 [ %tu, %U ], [ 2, %B ]
  %p1 = add i32 %pv, 100
  br label %J
Q:
  %qv = phi i32 [ %tu, %U ], [ 4, %B ]
  %q1 = add i32 %qv, 200
  br label %J
J:
  %j = phi i32 [ %p1, %P ], [ %q1, %Q ], [ %r, %R ]
  ret i32 %j
}
";

#[test]
fn uniform_switch_edges_rerouted_keep_their_values() {
    let (module, func) = parse(UNIFORM_SWITCH_IN_REGION);
    let opts = options(&["n"]);
    let (out, notes) = route(&module, func, &opts);
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert!(
        cfg(&out, func).iter().any(|l| l == "U.to.Q -> flow0"),
        "{:?}",
        cfg(&out, func)
    );
    assert_reconverging(&out, func, &opts);
    for n in [0, 1, 2, 7] {
        assert_fr_equals_obl(&module, &out, &[("n", &[n])]);
    }
}

/// A uniform loop in one arm of a divergent branch, tested at its header, so
/// that its latch has only the back edge; the arms join after the loop.
const LOOP_IN_ONE_ARM: &str = "
define i32 @f(i32 %n) {
entry:
  %t = call i32 @pllvm.thread_id()
  %c = icmp eq i32 %t, 0
  br i1 %c, label %H, label %Y
H:
  %i = phi i32 [ 0, %entry ], [ %i1, %Lt ]
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %Lt, label %X
Lt:
  br label %H
X:
  br label %J
Y:
  br label %J
J:
  %v = phi i32 [ %i1, %X ], [ 100, %Y ]
  %w = add i32 %v, %t
  %p = icmp sgt i32 %w, 50
  br i1 %p, label %K2, label %K3
K2:
  br label %R
K3:
  br label %R
R:
  %q = phi i32 [ %w, %K2 ], [ %v, %K3 ]
  ret i32 %q
}
";

#[test]
fn lanes_outside_a_loop_wait_for_it() {
    let (module, func) = parse(LOOP_IN_ONE_ARM);
    // The input itself under OBLIVIOUS: a greedy schedule runs J, K2 or K3 for
    // lane 1 while lane 0 waits at the latch Lt (which forward-reaches nothing
    // after the loop, Def. 17), and again for lane 0: lane 1's values become ⊤.
    let run = config(&[("n", &[3])], 2, Interp::Oblivious);
    assert!(
        explored(&module, &run).outcomes.len() > 1,
        "the input was expected to depend on the schedule under OBLIVIOUS"
    );
    let opts = options(&["n"]);
    let (out, notes) = route(&module, func, &opts);
    assert!(
        notes.iter().any(|n| n.contains("never-taken edge")),
        "{notes:?}"
    );
    assert!(
        cfg(&out, func).iter().any(|l| l == "Lt -> H, X"),
        "{:?}",
        cfg(&out, func)
    );
    assert_reconverging(&out, func, &opts);
    for n in [1, 2, 3] {
        assert_fr_equals_obl(&module, &out, &[("n", &[n])]);
    }
}
