//! `--pass nonneg-div` (`codegen/src/nonneg_div.rs`): an `sdiv` / `srem` by a
//! power of two whose dividend is non-negative in every lane that runs it
//! becomes `ashr` / `and`.
//!
//! The guards are checked exhaustively on `i8`: every predicate, constants at
//! the edges of the signed range, both operand orders, both edges, `sdiv` and
//! `srem` by 1, 2, 4, 64 and 128 (which is -128 as an `i8`, not a positive
//! power of two): 256 lanes, one per `i8`, run the program before and after
//! under FREEZING and OBLIVIOUS and must return the same, and an oracle that
//! enumerates the `i8` values reaching each block says when the rewrite must
//! happen (every one of them non-negative) and when it must not.

use pllvm_codegen::pipeline::{
    NATIVE_PASSES, Options, Pass, native_passes, parse_passes, run_passes,
};
use pllvm_interp::config::{ArgValue, Scalar};
use pllvm_interp::{Machine, Outcome, RunConfig};
use pllvm_semantics::ir::{BinOp, InstKind, Module};
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::parse_module;
use pllvm_semantics::value::Val;
use std::path::Path;

fn parse(src: &str) -> Module {
    parse_module(src)
        .unwrap_or_else(|e| panic!("parse: {e:?}\n{src}"))
        .0
}

/// The module after `nonneg-div`, and its notes.
fn rewrite(m: &Module) -> (Module, Vec<String>) {
    let func = m.first_definition().expect("a function");
    let mut stages = run_passes(m, func, &[Pass::NonnegDiv], &Options::default())
        .unwrap_or_else(|e| panic!("nonneg-div: {e}"));
    let stage = stages.pop().expect("one stage");
    (stage.module, stage.notes)
}

/// The operators of the commands of block `name`.
fn ops_in(m: &Module, name: &str) -> Vec<BinOp> {
    let func = m.first_definition().expect("a function");
    let body = m.functions[func].body.as_ref().expect("a body");
    let b = body.block_by_name(name).expect("the block");
    body.blocks[b]
        .body
        .iter()
        .filter_map(|&i| match &body.insts[i].kind {
            InstKind::Binary { op, .. } => Some(*op),
            _ => None,
        })
        .collect()
}

/// One run: lane t gets `args[k][t]` for parameter k.
fn run(m: &Module, args: &[Vec<i64>], interp: Interp) -> Vec<Option<Val>> {
    let func = m.first_definition().expect("a function");
    let data = &m.functions[func];
    let body = data.body.as_ref().expect("a body");
    let mut config = RunConfig {
        threads: args[0].len(),
        interp,
        observe: false,
        ..RunConfig::default()
    };
    for (k, param) in data.params.iter().enumerate() {
        let name = body.value_name(param.value).expect("named").to_string();
        let lanes = args[k].iter().map(|&x| Scalar::Int(x)).collect();
        config.args.insert(name, ArgValue::PerLane(lanes));
    }
    let mut machine = Machine::new(m, &config).unwrap_or_else(|e| panic!("setup: {e:?}"));
    let outcome = machine.run_to_end().expect("the interpreter runs");
    assert_eq!(outcome, Outcome::Returned);
    machine.results()
}

/// Both interpretations give the same results before and after.
fn same_results(before: &Module, after: &Module, args: &[Vec<i64>], what: &str) {
    for interp in [Interp::Freezing, Interp::Oblivious] {
        assert_eq!(
            run(before, args, interp),
            run(after, args, interp),
            "{what}: results differ under {interp:?}"
        );
    }
}

const PREDICATES: [&str; 10] = [
    "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
];

/// `x PRED c` on `i8` values, as the oracle computes it.
fn holds(pred: &str, x: i8, c: i8) -> bool {
    let (ux, uc) = (x as u8, c as u8);
    match pred {
        "eq" => x == c,
        "ne" => x != c,
        "ugt" => ux > uc,
        "uge" => ux >= uc,
        "ult" => ux < uc,
        "ule" => ux <= uc,
        "sgt" => x > c,
        "sge" => x >= c,
        "slt" => x < c,
        "sle" => x <= c,
        _ => unreachable!("{pred}"),
    }
}

#[test]
fn every_guard_on_i8_is_sound_and_as_complete_as_the_oracle() {
    let lanes: Vec<i64> = (-128..=127).collect();
    let mut rewritten = 0;
    let mut kept = 0;
    for pred in PREDICATES {
        for c in [-128i8, -2, -1, 0, 1, 2, 126, 127] {
            for swap in [false, true] {
                for op in ["sdiv", "srem"] {
                    for d in [1i16, 2, 4, 64, 128] {
                        let cmp = if swap {
                            format!("icmp {pred} i8 {c}, %x")
                        } else {
                            format!("icmp {pred} i8 %x, {c}")
                        };
                        let src = format!(
                            "define i8 @f(i8 %x) {{
entry:
  %c = {cmp}
  br i1 %c, label %t, label %e
t:
  %dt = {op} i8 %x, {d}
  br label %j
e:
  %de = {op} i8 %x, {d}
  br label %j
j:
  %r = phi i8 [ %dt, %t ], [ %de, %e ]
  ret i8 %r
}}
"
                        );
                        let before = parse(&src);
                        let (after, _) = rewrite(&before);
                        let what = format!("{cmp}, {op} by {d}");
                        same_results(&before, &after, std::slice::from_ref(&lanes), &what);
                        for (block, edge) in [("t", true), ("e", false)] {
                            let reaching: Vec<i8> = (-128..=127i16)
                                .map(|x| x as i8)
                                .filter(|&x| {
                                    let h = if swap {
                                        holds(pred, c, x)
                                    } else {
                                        holds(pred, x, c)
                                    };
                                    h == edge
                                })
                                .collect();
                            let must = d != 128
                                && !reaching.is_empty()
                                && reaching.iter().all(|&x| x >= 0);
                            let may = d != 128 && reaching.iter().all(|&x| x >= 0);
                            let did = !ops_in(&after, block)
                                .iter()
                                .any(|op| matches!(op, BinOp::SDiv | BinOp::SRem));
                            assert!(
                                !did || may,
                                "{what}: %{block} rewritten, but a negative x reaches it"
                            );
                            assert!(
                                !must || did,
                                "{what}: %{block} only sees x >= 0 and was not rewritten"
                            );
                            if did {
                                rewritten += 1;
                            } else {
                                kept += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    // Both outcomes happen often: the oracle is not vacuous.
    assert!(
        rewritten > 200 && kept > 200,
        "{rewritten} rewritten, {kept} kept"
    );
}

/// The XSBench binary search: `%length` is `n - 1` on the way in (guarded by
/// `> 1`) and `upper - lower` on the back edge (guarded by `> 1`): its
/// `sdiv %length, 2` becomes `ashr %length, 1`, and the program runs as before.
#[test]
fn the_binary_search_halves_its_length_with_a_shift() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/kernels/xsbench-binary-search.ll");
    let src = std::fs::read_to_string(&path).expect("the kernel");
    let before = parse(&src);
    let (after, notes) = rewrite(&before);
    assert_eq!(ops_in(&before, "while.body")[0], BinOp::SDiv);
    assert_eq!(ops_in(&after, "while.body")[0], BinOp::AShr);
    assert_eq!(
        notes,
        [
            "%div in %while.body: sdiv by 2^1 of %length, non-negative wherever it runs, becomes ashr by 1"
        ]
    );
    let printed = pllvm_semantics::text::print_module(&after);
    assert!(printed.contains("%div = ashr i64 %length, 1"), "{printed}");
    // The default native pipeline starts with it.
    assert_eq!(parse_passes(NATIVE_PASSES).unwrap(), native_passes());
    assert_eq!(native_passes()[0], Pass::NonnegDiv);
}

/// A loop counter: `add nsw` of non-negative values keeps the fact around the
/// loop (the phi is assumed non-negative while its incoming values are
/// checked); counting down with a plain `add` does not.
#[test]
fn loop_counters_keep_the_fact_only_when_it_is_an_induction() {
    let counter = |step: &str, more: &str| {
        format!(
            "define i32 @f(i32 %n) {{
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  %half = sdiv i32 %i, 4
  %low = srem i32 %i, 4
  %both = add i32 %half, %low
  %acc.next = add i32 %acc, %both
  %i.next = {step}
  %more = icmp {more} i32 %i.next, %n
  br i1 %more, label %loop, label %done
done:
  ret i32 %acc.next
}}
"
        )
    };
    let lanes = vec![vec![0, 1, 5, 9, 17, -3, 40, 2]];
    let up = parse(&counter("add nsw i32 %i, 1", "slt"));
    let (after, notes) = rewrite(&up);
    assert_eq!(
        ops_in(&after, "loop")[..2],
        [BinOp::AShr, BinOp::And],
        "{notes:?}"
    );
    same_results(&up, &after, &lanes, "counting up");
    // Without nsw the add may wrap: no fact.
    let wrapping = parse(&counter("add i32 %i, 1", "slt"));
    assert_eq!(
        ops_in(&rewrite(&wrapping).0, "loop")[..2],
        [BinOp::SDiv, BinOp::SRem]
    );
    // Counting down from 0 goes negative.
    let down = parse(&counter("add nsw i32 %i, -1", "sgt"));
    let (after, notes) = rewrite(&down);
    assert_eq!(ops_in(&after, "loop")[..2], [BinOp::SDiv, BinOp::SRem]);
    assert_eq!(
        notes,
        ["no sdiv or srem by a power of two with a dividend known non-negative"]
    );
    let lanes = vec![vec![-5, -1, 0, -9, -30, 4]];
    same_results(&down, &after, &lanes, "counting down");
}

/// Two phis that feed each other with a parameter coming in: assuming either
/// non-negative must not survive the other's failure.
#[test]
fn a_failed_assumption_takes_what_it_showed_with_it() {
    let src = "define i32 @f(i32 %x, i32 %n) {
entry:
  br label %a
a:
  %p = phi i32 [ 0, %entry ], [ %q, %b ]
  %k = phi i32 [ 0, %entry ], [ %k.next, %b ]
  %dp = sdiv i32 %p, 2
  br label %b
b:
  %q = phi i32 [ %p, %a ]
  %q2 = select i1 true, i32 %q, i32 %x
  %k.next = add nsw i32 %k, 1
  %more = icmp slt i32 %k.next, %n
  br i1 %more, label %a, label %out
out:
  %r = add i32 %dp, %q2
  ret i32 %r
}
";
    let before = parse(src);
    let (after, _) = rewrite(&before);
    // %p's cycle is %p -> %q -> %p with constants coming in: non-negative.
    assert_eq!(ops_in(&after, "a"), [BinOp::AShr]);
    // Now let the parameter in through the cycle.
    let src2 = src.replace("[ %q, %b ]", "[ %q2, %b ]");
    let before2 = parse(&src2);
    let (after2, _) = rewrite(&before2);
    assert_eq!(ops_in(&after2, "a"), [BinOp::SDiv]);
    let lanes = vec![vec![-7, 3, -1, 8], vec![3, 3, 2, 1]];
    same_results(&before2, &after2, &lanes, "a parameter through the cycle");
    same_results(&before, &after, &lanes, "constants through the cycle");
}

#[test]
fn it_must_come_first_and_may_precede_a_whole_route() {
    let err = parse_passes("dlt,nonneg-div").unwrap_err();
    assert!(err.contains("give it first"), "{err}");
    assert_eq!(
        parse_passes("nonneg-div,reconverge").unwrap(),
        [Pass::NonnegDiv, Pass::Reconverge]
    );
    assert!(parse_passes("nonneg-div,ifconv,reconverge").is_err());
}

/// Predicated input is left as it is, with a note (a predicate can make a lane
/// active in a block without its having taken the branches the facts come
/// from); a `total` division is not rewritten (it runs in passive lanes too).
#[test]
fn predicates_and_total_divisions_are_left_alone() {
    let guarded = |extra: &str, total: &str| {
        format!(
            "define i32 @f(i32 %x) {{
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %t, label %e
t:
{extra}  %d = sdiv i32 %x, 2{total}
  br label %e
e:
  %r = phi i32 [ %d, %t ], [ 0, %entry ]
  ret i32 %r
}}
"
        )
    };
    // The plain program is rewritten, so the two below test what they say.
    let (plain, _) = rewrite(&parse(&guarded("", "")));
    assert_eq!(ops_in(&plain, "t"), [BinOp::AShr]);
    let predicated = parse(&guarded("  predicate %c\n", ""));
    let (after, notes) = rewrite(&predicated);
    assert_eq!(ops_in(&after, "t"), [BinOp::SDiv]);
    assert_eq!(
        notes,
        ["left as it is: unsupported construct: block %t has a predicate"]
    );
    let total = parse(&guarded("", " total"));
    let (after, notes) = rewrite(&total);
    assert_eq!(ops_in(&after, "t"), [BinOp::SDiv], "{notes:?}");
}
