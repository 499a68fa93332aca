//! Partial linearization (thesis Ch. 8), the BOSCC gadget (§9.2) and full
//! if-conversion on hand-written programs: the CFG each promises, derived by hand
//! from Listing 8 on the block index (§2.5), and the claim FR(original) =
//! OBL(transformed) on every greedy schedule of both (`explore`, Ch. 5), lane by
//! lane where the original is defined. Every output must verify (§4.10).

use pllvm_analysis::result::AnalysisKind;

use pllvm_codegen::boscc::Policy;
use pllvm_codegen::linearize::{Settings, linearize};
use pllvm_codegen::pipeline::{Options, Pass, PassContext, parse_passes, run_passes};
use pllvm_codegen::shape::cfg_lines;
use pllvm_interp::config::{ArgValue, Scalar};
use pllvm_interp::explore::{Bounds, explore};
use pllvm_interp::{Machine, RunConfig};
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::Module;
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::{parse_module, print_module};
use pllvm_semantics::value::Val;
use pllvm_semantics::verify::verify_module;
use std::collections::BTreeSet;

/// The program `src` after `passes` (`dlt,pl` syntax) with `uniform` arguments and
/// the BOSCC `policy`; the output verifies. Returns it and the notes.
fn transform(src: &str, passes: &str, uniform: &[&str], policy: &str) -> (Module, Vec<String>) {
    let (module, _) = parse_module(src).expect("parses");
    let passes = parse_passes(passes).expect("pass list");
    let options = Options {
        uniform_args: uniform.iter().map(|s| s.to_string()).collect(),
        boscc: Policy::parse(policy).expect("policy"),
        ..Options::default()
    };
    let func = module.first_definition().expect("a function");
    let stages = run_passes(&module, func, &passes, &options).expect("transforms");
    let mut notes = Vec::new();
    for s in &stages {
        let report = verify_module(&s.module, &SourceMap::default());
        assert!(
            report.is_ok(),
            "{:?} does not verify: {:?}\n{}",
            s.pass,
            report.errors,
            print_module(&s.module)
        );
        notes.extend(s.notes.iter().cloned());
    }
    let out = stages.last().expect("a stage").module.clone();
    (out, notes)
}

/// The CFG of the first function of `m` as `cfg_lines` prints it.
fn cfg(m: &Module) -> Vec<String> {
    let func = m.first_definition().expect("a function");
    cfg_lines(m.functions[func].body.as_ref().expect("body"))
}

/// A run configuration: `threads` lanes, `args` as `name=v0,v1,...` (one value:
/// uniform).
fn config(threads: usize, interp: Interp, args: &[(&str, &[i64])]) -> RunConfig {
    let mut c = RunConfig {
        threads,
        interp,
        ..RunConfig::default()
    };
    for (name, values) in args {
        let v = if values.len() == 1 {
            ArgValue::Uniform(Scalar::Int(values[0]))
        } else {
            ArgValue::PerLane(values.iter().map(|&v| Scalar::Int(v)).collect())
        };
        c.args.insert(name.to_string(), v);
    }
    c
}

/// Every outcome (results and memory) of every greedy schedule.
fn outcomes(m: &Module, c: &RunConfig) -> BTreeSet<String> {
    let e = explore(m, c, &Bounds::default()).expect("explores");
    assert!(
        e.truncated.is_none(),
        "exploration cut off: {:?}",
        e.truncated
    );
    e.outcomes
        .iter()
        .map(|o| format!("{} {} {:?}", o.ending, o.result_text, o.memory))
        .collect()
}

/// FR(original) and OBL(transformed) give the same outcomes on every greedy
/// schedule, and one outcome each.
fn agree(src: &str, out: &Module, threads: usize, args: &[(&str, &[i64])]) {
    let (original, _) = parse_module(src).expect("parses");
    let before = outcomes(&original, &config(threads, Interp::Freezing, args));
    let after = outcomes(out, &config(threads, Interp::Oblivious, args));
    assert_eq!(
        before.len(),
        1,
        "the original has several outcomes: {before:?}"
    );
    assert_eq!(before, after, "\n{}", print_module(out));
}

/// The blocks a run of `m` with the default scheduler schedules, by name.
fn scheduled(m: &Module, c: &RunConfig) -> Vec<String> {
    let mut machine = Machine::new(m, c).expect("sets up");
    machine.record_trace = true;
    machine.trace_limit = None;
    machine.run_to_end().expect("runs");
    let func = m.first_definition().expect("a function");
    let body = m.functions[func].body.as_ref().expect("body");
    machine
        .trace
        .iter()
        .map(|r| body.blocks[r.scheduled].name.clone())
        .collect()
}

/// Thesis Fig. 8.1a: the uniform branch on `p` in A is kept, the divergent one in
/// B (on memory indexed by the thread id) is linearized.
const FIG_8_1: &str = "
@A = global [4 x i32] [i32 1, i32 0, i32 1, i32 0]
@B = global [4 x i32] zeroinitializer

define i32 @foo(i1 %p, i32 %tid) {
A:
  br i1 %p, label %B, label %E
B:
  %a.ptr = getelementptr [4 x i32], ptr @A, i32 0, i32 %tid
  %a = load i32, ptr %a.ptr
  %c = icmp ne i32 %a, 0
  br i1 %c, label %C, label %D
C:
  %vc = mul i32 %tid, 10
  br label %E
D:
  %vd = add i32 %tid, 100
  br label %E
E:
  %v = phi i32 [0, %A], [%vc, %C], [%vd, %D]
  %b.ptr = getelementptr [4 x i32], ptr @B, i32 0, i32 %tid
  store i32 %v, ptr %b.ptr
  ret i32 %v
}
";

#[test]
fn fig_8_1_keeps_the_uniform_branch() {
    let (out, notes) = transform(FIG_8_1, "pl", &["p"], "heuristic");
    // Block index A, B, D, C, E (D before C: the reverse postorder of the DFS
    // that visits C first). A keeps both edges; B: next = min{C, D} = D, (D, C)
    // deferred; D: next = min({C} ∪ {E}) = C, (C, E); C: next = E. B and E have
    // uniform activation (Theorem 4: no predicate); C and D are predicated.
    assert_eq!(
        cfg(&out),
        [
            "A -> B, E",
            "B -> D",
            "D [p] -> C",
            "C [p] -> E",
            "E -> ret"
        ]
    );
    assert!(
        notes.contains(&"kept uniform branch in %A".to_string()),
        "{notes:?}"
    );
    assert!(notes.contains(&"linearized divergent branch in %B -> %D".to_string()));
    for p in [0, 1] {
        agree(FIG_8_1, &out, 4, &[("p", &[p]), ("tid", &[0, 1, 2, 3])]);
    }
}

#[test]
fn fig_8_1_full_if_conversion_removes_the_uniform_branch_too() {
    let (out, _) = transform(FIG_8_1, "ifconv", &["p"], "heuristic");
    assert_eq!(
        cfg(&out),
        [
            "A -> B",
            "B [p] -> D",
            "D [p] -> C",
            "C [p] -> E",
            "E -> ret"
        ]
    );
    for p in [0, 1] {
        agree(FIG_8_1, &out, 4, &[("p", &[p]), ("tid", &[0, 1, 2, 3])]);
    }
}

// Thesis Fig. 8.2a (the DAG whose deferrals travel over several blocks) is the
// golden file corpus/transforms/pl-fig8.2-dag.ll: its CFG after `pl`, derived by
// hand from Listing 8, and every greedy schedule of both programs.

/// Thesis Fig. 8.5: the uniform branch in `b` is kept although `b`'s predicate
/// is varying (Theorem 5: `b` dominates both its edges and the branch is uniform
/// in `b`'s dominance region).
const FIG_8_5: &str = "
define i32 @fig85(i32 %u, i32 %tid) {
a:
  %va = icmp slt i32 %tid, 2
  br i1 %va, label %b, label %f
b:
  %ub = icmp sgt i32 %u, 5
  br i1 %ub, label %c, label %d
c:
  %xc = add i32 %tid, 1
  br label %e
d:
  %xd = add i32 %tid, 2
  br label %e
e:
  %xe = phi i32 [ %xc, %c ], [ %xd, %d ]
  br label %f
f:
  %r = phi i32 [ %xe, %e ], [ 0, %a ]
  ret i32 %r
}
";

#[test]
fn fig_8_5_keeps_a_uniform_branch_under_a_varying_predicate() {
    let (out, notes) = transform(FIG_8_5, "pl", &["u"], "none");
    // Block index a, b, d, c, e, f. a: next = min{b, f} = b, (b, f); b keeps
    // both edges, each carrying f: (d, f), (c, f); d, c: e, (e, f); e: f.
    assert_eq!(
        cfg(&out),
        [
            "a -> b",
            "b [p] -> c, d",
            "d [p] -> e",
            "c [p] -> e",
            "e [p] -> f",
            "f -> ret"
        ]
    );
    assert!(
        notes.contains(&"kept uniform branch in %b".to_string()),
        "{notes:?}"
    );
    for u in [0, 9] {
        agree(FIG_8_5, &out, 4, &[("u", &[u]), ("tid", &[0, 1, 2, 3])]);
    }
}

/// The predicates of blocks `names` of the first function of `m`, by block.
fn predicates(m: &Module, names: &[&str]) -> Vec<Option<pllvm_semantics::ir::Value>> {
    let func = m.first_definition().expect("a function");
    let body = m.functions[func].body.as_ref().expect("body");
    names
        .iter()
        .map(|n| body.blocks[body.block_by_name(n).expect("the block")].predicate)
        .collect()
}

/// Control-equivalent blocks share one predicate (`predicates.rs`,
/// `control_equivalent_dominators`): in Fig. 8.5, `e` post-dominates `b`, which
/// dominates it, so every lane that runs `b` runs `e` and `p(e)` is `p(b)`, not
/// the `or` of `e(c→e)` and `e(d→e)`; `c` and `d` keep masks of their own.
#[test]
fn a_join_that_post_dominates_its_dominator_takes_its_predicate() {
    let (out, _) = transform(FIG_8_5, "pl", &["u"], "none");
    let [b, c, d, e] = predicates(&out, &["b", "c", "d", "e"])[..] else {
        unreachable!("four names")
    };
    assert!(b.is_some(), "b is predicated");
    assert_eq!(e, b, "p(e) = p(b)\n{}", print_module(&out));
    assert!(c != b && d != b && c != d, "{}", print_module(&out));
}

/// The same inside a uniform loop entered under a divergent branch: the join `J`
/// of a divergent branch in the body post-dominates the header `H` within the
/// iteration, so `p(J)` is the header's predicate phi; runs agree with the
/// original for several trip counts.
const JOIN_IN_LOOP: &str = "
define i32 @g(i32 %tid, i32 %n) {
entry:
  %c = icmp slt i32 %tid, 3
  br i1 %c, label %H, label %X
H:
  %i = phi i32 [0, %entry], [%i1, %J]
  %s = phi i32 [0, %entry], [%s2, %J]
  %odd = and i32 %tid, 1
  %v = icmp eq i32 %odd, 1
  br i1 %v, label %A, label %B
A:
  %sa = add i32 %s, %tid
  br label %J
B:
  %sb = sub i32 %s, 1
  br label %J
J:
  %s2 = phi i32 [%sa, %A], [%sb, %B]
  %i1 = add i32 %i, 1
  %t = icmp slt i32 %i1, %n
  br i1 %t, label %H, label %E
X:
  br label %E
E:
  %r = phi i32 [%s2, %J], [%tid, %X]
  ret i32 %r
}
";

#[test]
fn a_join_in_a_loop_body_takes_the_header_predicate() {
    let (out, _) = transform(JOIN_IN_LOOP, "pl", &["n"], "none");
    let [h, a, b, j] = predicates(&out, &["H", "A", "B", "J"])[..] else {
        unreachable!("four names")
    };
    assert!(h.is_some(), "H is predicated: the loop is entered under %c");
    assert_eq!(j, h, "p(J) = p(H)\n{}", print_module(&out));
    assert!(a != h && b != h, "{}", print_module(&out));
    for n in [1, 2, 3] {
        agree(
            JOIN_IN_LOOP,
            &out,
            4,
            &[("n", &[n]), ("tid", &[0, 1, 2, 3])],
        );
    }
}

/// A uniform loop entered under a divergent branch: the loop stays a loop (§8.3),
/// its header predicate is a phi of the preheader's and the back edge's.
const LOOP_UNDER_DIVERGENCE: &str = "
define i32 @f(i32 %tid, i32 %n) {
entry:
  %c = icmp slt i32 %tid, 2
  br i1 %c, label %L, label %X
L:
  %i = phi i32 [0, %entry], [%i1, %L]
  %s = phi i32 [%tid, %entry], [%s1, %L]
  %s1 = add i32 %s, %i
  %i1 = add i32 %i, 1
  %t = icmp slt i32 %i1, %n
  br i1 %t, label %L, label %E
X:
  %x = mul i32 %tid, 100
  br label %E
E:
  %r = phi i32 [%s1, %L], [%x, %X]
  ret i32 %r
}
";

#[test]
fn a_uniform_loop_under_a_divergent_branch_stays_a_loop() {
    let (out, _) = transform(LOOP_UNDER_DIVERGENCE, "pl", &["n"], "none");
    // Normal form: the preheader L.preheader. Block index entry, X, L.preheader,
    // L, E; entry: next = min{X, L.preheader} = X; X: L.preheader, (L.preheader, E);
    // L keeps its back edge and its exit edge min({E} ∪ {E}) = E.
    assert_eq!(
        cfg(&out),
        [
            "entry -> X",
            "X [p] -> L.preheader",
            "L.preheader [p] -> L",
            "L [p] -> L, E",
            "E -> ret"
        ]
    );
    for tid in [&[0, 1, 2, 3][..], &[2, 3, 4, 5], &[0, 1, 0, 1]] {
        agree(LOOP_UNDER_DIVERGENCE, &out, 4, &[("n", &[3]), ("tid", tid)]);
    }
}

/// A divergent loop is refused with the header named.
#[test]
fn a_divergent_loop_is_refused() {
    let src = "
define i32 @f(i32 %tid) {
entry:
  br label %H
H:
  %i = phi i32 [0, %entry], [%i1, %H]
  %i1 = add i32 %i, 1
  %t = icmp slt i32 %i1, %tid
  br i1 %t, label %H, label %E
E:
  ret i32 %i1
}
";
    let (module, _) = parse_module(src).expect("parses");
    let func = module.first_definition().expect("f");
    let err = run_passes(&module, func, &[Pass::Pl], &Options::default()).expect_err("refused");
    assert_eq!(
        err.message,
        "loop %H is divergent: run dlt first (--pass dlt,pl)"
    );
}

/// Nested uniform loops with a divergent `if` in the inner body and a `switch`.
const NESTED: &str = "
@out = global [4 x i32] zeroinitializer

define i32 @nest(i32 %tid, i32 %n, i32 %m) {
entry:
  br label %outer
outer:
  %o = phi i32 [ 0, %entry ], [ %o1, %olatch ]
  %acc = phi i32 [ 0, %entry ], [ %acc2, %olatch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j1, %ilatch ]
  %a = phi i32 [ %acc, %outer ], [ %a2, %ilatch ]
  %k = add i32 %tid, %j
  %sel = urem i32 %k, 3
  switch i32 %sel, label %s0 [ i32 1, label %s1 i32 2, label %s2 ]
s0:
  %a0 = add i32 %a, 1
  br label %ilatch
s1:
  %a1 = mul i32 %a, 2
  br label %ilatch
s2:
  br label %ilatch
ilatch:
  %a2 = phi i32 [ %a0, %s0 ], [ %a1, %s1 ], [ %a, %s2 ]
  %j1 = add i32 %j, 1
  %more = icmp slt i32 %j1, %m
  br i1 %more, label %inner, label %olatch
olatch:
  %acc2 = add i32 %a2, %o
  %o1 = add i32 %o, 1
  %again = icmp slt i32 %o1, %n
  br i1 %again, label %outer, label %done
done:
  %p = getelementptr [4 x i32], ptr @out, i32 0, i32 %tid
  store i32 %acc2, ptr %p
  ret i32 %acc2
}
";

#[test]
fn nested_uniform_loops_with_a_divergent_switch() {
    let (out, notes) = transform(NESTED, "pl", &["n", "m"], "none");
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("linearized divergent branch in %inner")),
        "{notes:?}"
    );
    assert!(
        notes.contains(&"kept uniform branch in %ilatch".to_string()),
        "{notes:?}"
    );
    assert!(
        notes.contains(&"kept uniform branch in %olatch".to_string()),
        "{notes:?}"
    );
    agree(
        NESTED,
        &out,
        4,
        &[("n", &[2]), ("m", &[3]), ("tid", &[0, 1, 2, 3])],
    );
    agree(
        NESTED,
        &out,
        3,
        &[("n", &[1]), ("m", &[4]), ("tid", &[5, 1, 7])],
    );
    let (full, _) = transform(NESTED, "ifconv", &["n", "m"], "none");
    agree(
        NESTED,
        &full,
        4,
        &[("n", &[2]), ("m", &[3]), ("tid", &[0, 1, 2, 3])],
    );
}

/// Shadow phis (§4.8, Fig. 8.4c-d) in a linearized region.
const SHADOW: &str = "
define i32 @sh(i32 %tid) {
A:
  %c = icmp slt i32 %tid, 2
  br i1 %c, label %B, label %C
B:
  %xb = add i32 %tid, 5
  br label %D
C:
  %d = icmp eq i32 %tid, 3
  br i1 %d, label %D, label %E
D:
  %x = phi i32 [ %xb, %B ], [ 9, %C ] shadow(-1)
  %y = add i32 %x, 1
  br label %E
E:
  %r = phi i32 [ %y, %D ], [ 100, %C ]
  ret i32 %r
}
";

#[test]
fn shadow_phis_select_their_shadow_where_the_predicate_is_false() {
    let (out, notes) = transform(SHADOW, "pl", &[], "none");
    assert!(
        notes.iter().any(|n| n.contains("phi %x in %D")),
        "{notes:?}"
    );
    agree(SHADOW, &out, 4, &[("tid", &[0, 1, 2, 3])]);
    agree(SHADOW, &out, 2, &[("tid", &[3, 2])]);
}

/// Thesis Fig. 9.5: a gadget on the edge a -> b; partial linearization keeps the
/// `any` branch (Theorem 5) and the run where no lane takes a -> b never
/// schedules b.
const FIG_9_5: &str = "
@buf = global [8 x i32] zeroinitializer

define i32 @f(i32 %tid, i32 %x) {
a:
  %c = icmp sgt i32 %x, %tid
  br i1 %c, label %b, label %j
b:
  %p = getelementptr [8 x i32], ptr @buf, i32 0, i32 %tid
  %y = mul i32 %tid, 3
  store i32 %y, ptr %p
  br label %j
j:
  %r = phi i32 [ %y, %b ], [ 7, %a ]
  ret i32 %r
}
";

#[test]
fn fig_9_5_boscc_gadget_skips_b_when_no_lane_takes_the_edge() {
    let (out, notes) = transform(FIG_9_5, "boscc,pl", &["x"], "all");
    assert!(notes[0].starts_with("BOSCC gadget for %b"), "{notes:?}");
    assert_eq!(
        cfg(&out),
        ["a -> a.boscc, j", "a.boscc -> b", "b [p] -> j", "j -> ret"]
    );
    let none_take = config(
        4,
        Interp::Oblivious,
        &[("x", &[-5]), ("tid", &[0, 1, 2, 3])],
    );
    assert_eq!(scheduled(&out, &none_take), ["a", "j"]);
    let some_take = config(4, Interp::Oblivious, &[("x", &[2]), ("tid", &[0, 1, 2, 3])]);
    assert_eq!(scheduled(&out, &some_take), ["a", "a.boscc", "b", "j"]);
    // Without the gadget, b runs (with no active lane) either way.
    let (plain, _) = transform(FIG_9_5, "pl", &["x"], "none");
    assert_eq!(scheduled(&plain, &none_take), ["a", "b", "j"]);
    for x in [-5, 2, 9] {
        agree(FIG_9_5, &out, 4, &[("x", &[x]), ("tid", &[0, 1, 2, 3])]);
    }
}

/// The else-if cascade of thesis Fig. 9.6 (the hot loop of 644.nab_s, Fig. 9.4,
/// lines 10-13): gadgets on the `else` edges let the linearized code leave the
/// cascade as soon as no lane goes further down.
const CASCADE: &str = "
@w = global [4 x i32] zeroinitializer

define i32 @nab(i32 %tid, i32 %d) {
h1:
  %t = mul i32 %tid, 4
  %c1 = icmp sgt i32 %d, %t
  br i1 %c1, label %then1, label %h2
then1:
  %r1 = add i32 %t, 1
  br label %join
h2:
  %t2 = add i32 %t, 2
  %c2 = icmp sgt i32 %d, %t2
  br i1 %c2, label %then2, label %h3
then2:
  %r2 = add i32 %t, 2
  br label %join
h3:
  %t3 = add i32 %t, 3
  %c3 = icmp sgt i32 %d, %t3
  br i1 %c3, label %then3, label %else3
then3:
  %r3 = add i32 %t, 3
  br label %join
else3:
  %q = getelementptr [4 x i32], ptr @w, i32 0, i32 %tid
  store i32 %t, ptr %q
  br label %join
join:
  %r = phi i32 [ %r1, %then1 ], [ %r2, %then2 ], [ %r3, %then3 ], [ -1, %else3 ]
  ret i32 %r
}
";

#[test]
fn else_if_cascade_gets_gadgets_and_leaves_early() {
    let (out, notes) = transform(CASCADE, "boscc,pl", &["d"], "heuristic");
    let gadgets: Vec<&String> = notes.iter().filter(|n| n.starts_with("BOSCC")).collect();
    assert_eq!(gadgets.len(), 3, "{notes:?}");
    // d = 100: every lane takes then1, so any(h2) is false and the cascade is
    // skipped at once.
    let all_first = config(
        4,
        Interp::Oblivious,
        &[("d", &[100]), ("tid", &[0, 1, 2, 3])],
    );
    let blocks = scheduled(&out, &all_first);
    assert!(!blocks.iter().any(|b| b == "h2" || b == "h3"), "{blocks:?}");
    for d in [-1, 3, 6, 9, 100] {
        agree(CASCADE, &out, 4, &[("d", &[d]), ("tid", &[0, 1, 2, 3])]);
    }
}

/// The BOSCC gadgets the heuristic puts into the corpus kernel `file` after
/// `dlt` (the native route's pipeline), by guarded block.
fn heuristic_gadgets(file: &str, uniform: &[&str]) -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/kernels/");
    let src = std::fs::read_to_string(format!("{path}{file}")).expect("corpus kernel");
    let (_, notes) = transform(&src, "dlt,boscc,pl", uniform, "heuristic");
    notes
        .iter()
        .filter_map(|n| n.strip_prefix("BOSCC gadget for "))
        .map(|n| n.split(':').next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn boscc_heuristic_skips_arithmetic_in_loops_and_keeps_memory() {
    // Mandelbrot: the loop body is arithmetic only; its divergent branches
    // (the escape test, the bound test) get no gadget (the cascade rule gave
    // both one before), and the guard before the loop is uniform.
    assert_eq!(
        heuristic_gadgets("mandelbrot.ll", &["maxit"]),
        Vec::<String>::new()
    );
    // The binary search: the loop's region holds a gather (a load), which the
    // gadget in the loop skips when no lane is left.
    assert_eq!(
        heuristic_gadgets("xsbench-binary-search.ll", &["n", "A"]),
        ["%while.body"]
    );
    // Outside loops the cascade rule stands (the nab cascade above gets three).
}

#[test]
fn boscc_policies_parse_and_name_blocks() {
    assert_eq!(Policy::parse("all"), Ok(Policy::All));
    assert_eq!(Policy::parse("none"), Ok(Policy::None));
    assert_eq!(Policy::parse("heuristic"), Ok(Policy::Heuristic));
    assert_eq!(
        Policy::parse("%b, c"),
        Ok(Policy::Blocks(vec!["b".into(), "c".into()]))
    );
    assert!(Policy::parse("").is_err());
    assert!(Policy::parse("b,,c").is_err());
    let (out, _) = transform(FIG_9_5, "boscc,pl", &["x"], "b");
    assert_eq!(cfg(&out)[0], "a -> a.boscc, j");
    let (module, _) = parse_module(FIG_9_5).expect("parses");
    let func = module.first_definition().expect("f");
    let options = Options {
        uniform_args: vec!["x".into()],
        boscc: Policy::Blocks(vec!["j".into()]),
        ..Options::default()
    };
    let err = run_passes(&module, func, &[Pass::Boscc], &options).expect_err("j has two preds");
    assert!(
        err.message
            .starts_with("--boscc: %j cannot get a BOSCC gadget"),
        "{}",
        err.message
    );
}

/// Listing 8 stays near linear: a chain of 5,000 divergent diamonds (20,002
/// blocks) transforms with work and output size proportional to the input
/// (counted, not timed).
#[test]
fn a_20k_block_diamond_chain_transforms_in_linear_work() {
    let diamonds = 5_000;
    let mut src = String::from("define i32 @chain(i32 %tid) {\nentry:\n  br label %d0\n");
    for k in 0..diamonds {
        let (init, pred) = if k == 0 {
            ("0".to_string(), "entry".to_string())
        } else {
            (format!("%w{}", k - 1), format!("j{}", k - 1))
        };
        let next = k + 1;
        src.push_str(&format!(
            "d{k}:\n  %x{k} = phi i32 [ {init}, %{pred} ]\n  %c{k} = icmp slt i32 %tid, {k}\n  br i1 %c{k}, label %l{k}, label %r{k}\nl{k}:\n  %y{k} = add i32 %x{k}, 1\n  br label %j{k}\nr{k}:\n  %z{k} = add i32 %x{k}, 2\n  br label %j{k}\nj{k}:\n  %w{k} = phi i32 [ %y{k}, %l{k} ], [ %z{k}, %r{k} ]\n  br label %d{next}\n"
        ));
    }
    src.push_str(&format!("d{diamonds}:\n  ret i32 %w{}\n}}\n", diamonds - 1));
    let (module, _) = parse_module(&src).expect("parses");
    let func = module.first_definition().expect("chain");
    // The thesis analysis alone: this test bounds the linearization's own work,
    // not the analyses'.
    let options = Options {
        analysis: AnalysisKind::Thesis,
        ..Options::default()
    };
    let cx = PassContext {
        options: &options,
        pass: Pass::Pl,
    };
    let out = linearize(&module, func, &cx, Settings::partial()).expect("linearizes");
    let blocks = (4 * diamonds + 2) as u64;
    assert_eq!(out.work.blocks, blocks);
    assert!(out.work.edges <= 2 * blocks, "{:?}", out.work);
    // The deferral sets are small here: a few tree nodes per block.
    assert!(out.work.deferral_inserts <= 4 * blocks, "{:?}", out.work);
    let size = |m: &Module| {
        let body = m.functions[func].body.as_ref().expect("body");
        body.layout
            .iter()
            .map(|&b| body.blocks[b].phis.len() + body.blocks[b].body.len())
            .sum::<usize>()
    };
    assert!(
        size(&out.module) <= 3 * size(&module),
        "{} vs {}",
        size(&out.module),
        size(&module)
    );
    let report = verify_module(&out.module, &SourceMap::default());
    assert!(report.is_ok(), "{:?}", report.errors.first());
    let mut machine = Machine::new(
        &out.module,
        &config(2, Interp::Oblivious, &[("tid", &[0, 4_000])]),
    )
    .expect("sets up");
    machine.run_to_end().expect("runs");
    // Diamond k adds 1 where tid < k (left) and 2 elsewhere (right).
    let sum = |tid: u128| {
        (0..diamonds as u128)
            .map(|k| if tid < k { 1 } else { 2 })
            .sum::<u128>()
    };
    let want = [Some(Val::Int(sum(0))), Some(Val::Int(sum(4_000)))];
    assert_eq!(machine.results(), want);
}

/// A loop the normal form has to fix (§2.4): two outside entries with different
/// phi values (a preheader with a phi of them) and two latches that also exit (a
/// new latch), with a divergent `if` inside.
const PREHEADER_AND_LATCHES: &str = "
define i32 @pl(i32 %n, i32 %tid) {
entry:
  %c = icmp sgt i32 %n, 2
  br i1 %c, label %h, label %other
other:
  %m = mul i32 %n, 3
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %m, %other ], [ %i1, %alatch ], [ %i1, %b ]
  %s = phi i32 [ %tid, %entry ], [ 1, %other ], [ %s1, %alatch ], [ %s2, %b ]
  %i1 = add i32 %i, 1
  %k = and i32 %i1, 1
  %odd = icmp eq i32 %k, 1
  br i1 %odd, label %a, label %b
a:
  %d = icmp slt i32 %tid, 2
  br i1 %d, label %a1, label %alatch
a1:
  %s1x = add i32 %s, 100
  br label %alatch
alatch:
  %s1 = phi i32 [ %s1x, %a1 ], [ %s, %a ]
  %t = icmp slt i32 %i1, %n
  br i1 %t, label %h, label %x
b:
  %s2 = mul i32 %s, 2
  %t2 = icmp slt i32 %i1, %n
  br i1 %t2, label %h, label %x
x:
  %r = phi i32 [ %s1, %alatch ], [ %s2, %b ]
  ret i32 %r
}
";

#[test]
fn a_loop_gets_a_preheader_and_one_latch() {
    let (out, notes) = transform(PREHEADER_AND_LATCHES, "pl", &["n"], "none");
    let lines = cfg(&out);
    assert!(
        lines.iter().any(|l| l.starts_with("h.preheader")),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("h.latch")), "{lines:?}");
    assert!(
        notes.contains(&"linearized divergent branch in %a -> %a1".to_string()),
        "{notes:?}"
    );
    for n in [1, 2, 3, 5] {
        agree(
            PREHEADER_AND_LATCHES,
            &out,
            4,
            &[("n", &[n]), ("tid", &[0, 1, 2, 3])],
        );
    }
    let (full, _) = transform(PREHEADER_AND_LATCHES, "ifconv", &["n"], "none");
    for n in [1, 3, 5] {
        agree(
            PREHEADER_AND_LATCHES,
            &full,
            4,
            &[("n", &[n]), ("tid", &[0, 1, 2, 3])],
        );
    }
}

/// 2,000 divergent `if`s nested in one another (6,001 blocks): Listing 8 chains
/// them and defers every `else` side to the end, so each predicate and phi
/// travels far in `G_ℓ`; the output stays proportional to the input (the
/// accumulators' SSA form is built along the dominator tree, not by walks back
/// from every read).
#[test]
fn deeply_nested_divergent_branches_stay_linear() {
    let n = 2_000;
    let mut src = String::from("define i32 @nest(i32 %tid) {\nentry:\n  br label %a0\n");
    for k in 0..n {
        src.push_str(&format!(
            "a{k}:\n  %c{k} = icmp slt i32 %tid, {k}\n  br i1 %c{k}, label %a{next}, label %e{k}\ne{k}:\n  %x{k} = add i32 %tid, {k}\n  br label %j{k}\n",
            next = k + 1
        ));
    }
    src.push_str(&format!("a{n}:\n  br label %j{}\n", n - 1));
    for k in (0..n).rev() {
        let (inner, from) = if k + 1 < n {
            (format!("%r{}", k + 1), format!("j{}", k + 1))
        } else {
            ("0".to_string(), format!("a{n}"))
        };
        let exit = if k > 0 {
            format!("br label %j{}", k - 1)
        } else {
            "ret i32 %r0".to_string()
        };
        src.push_str(&format!(
            "j{k}:\n  %r{k} = phi i32 [ {inner}, %{from} ], [ %x{k}, %e{k} ]\n  {exit}\n"
        ));
    }
    src.push_str("}\n");
    let (module, _) = parse_module(&src).expect("parses");
    let func = module.first_definition().expect("nest");
    let options = Options {
        analysis: AnalysisKind::Thesis,
        ..Options::default()
    };
    let cx = PassContext {
        options: &options,
        pass: Pass::Pl,
    };
    let out = linearize(&module, func, &cx, Settings::partial()).expect("linearizes");
    let size = |m: &Module| {
        let body = m.functions[func].body.as_ref().expect("body");
        body.layout
            .iter()
            .map(|&b| body.blocks[b].phis.len() + body.blocks[b].body.len())
            .sum::<usize>()
    };
    assert!(
        size(&out.module) <= 4 * size(&module),
        "{} vs {}",
        size(&out.module),
        size(&module)
    );
    // Every `else` side travels in one deferral set of up to 2,000 elements: each
    // insert and `min` taken out copies one path of its tree, O(log n) nodes.
    let log2 = u64::from(out.work.blocks.ilog2() + 1);
    assert!(
        out.work.deferral_inserts <= 3 * log2 * out.work.blocks,
        "{:?}",
        out.work
    );
    let report = verify_module(&out.module, &SourceMap::default());
    assert!(report.is_ok(), "{:?}", report.errors.first());
    let run = config(3, Interp::Oblivious, &[("tid", &[0, 700, 5_000])]);
    let mut machine = Machine::new(&out.module, &run).expect("sets up");
    machine.run_to_end().expect("runs");
    // Lane t leaves at the first k with t >= k, i.e. k = 0: x0 = t.
    assert_eq!(
        machine.results(),
        [
            Some(Val::Int(0)),
            Some(Val::Int(700)),
            Some(Val::Int(5_000))
        ]
    );
}
