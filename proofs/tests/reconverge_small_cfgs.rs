//! The reconverging-CFG transform (`pllvm_codegen::reconverge`) on every small
//! CFG (`pllvm_proofs::small_cfgs::for_each_cfg`: an entry, blocks with zero to
//! three distinct successors, every block reachable).
//!
//! Each CFG becomes a lane-local program: every block folds its number into a
//! path signature `h` (a phi of the predecessors' signatures), so a lane returns
//! the path it took; a two-way block branches on a bit of the thread id (a
//! divergent branch) or of the uniform argument `%u` (a uniform one), a
//! three-way block `switch`es on the thread id or on `%u` modulo 3.
//!
//! - Acyclic CFGs (every block reaching a `ret`), up to [`MAX_ACYCLIC`] blocks,
//!   each with every branch divergent and with every other branch uniform: the
//!   output verifies, satisfies Definition 1 under a fresh analysis, and under
//!   OBLIVIOUS on every greedy schedule returns what the input returns under
//!   FREEZING (`pllvm_interp::explore`, W = 4: a two-way block branches on bit 0
//!   or 1 of the thread id, so the four lanes split every way).
//! - Cyclic CFGs, irreducible ones included, up to [`MAX_CYCLIC`] blocks (a
//!   sample of the five-block ones): a fuel counter threaded through every block
//!   makes each lane leave along its shortest way to a `ret` once the fuel is
//!   spent. The loops diverge (the fuel is per path), so the route runs the
//!   divergent loop transform on them. The same checks as for acyclic CFGs, with
//!   W = 3.

use pllvm_analysis::postdom::PostDomTree;
use pllvm_analysis::reconverging::check_reconverging;
use pllvm_codegen::pipeline::{Options, Pass, PassContext};
use pllvm_codegen::reconverge::reconverge;
use pllvm_interp::RunConfig;
use pllvm_interp::config::{ArgValue, Scalar};
use pllvm_interp::explore::{Bounds, Order, explore};
use pllvm_proofs::small_cfgs::{distances_to_exit, edge_list, for_each_cfg};
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::{FuncId, Module};
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::{parse_module, print_module};
use pllvm_semantics::verify::verify_module;
use std::fmt::Write;

/// Largest acyclic CFG, in blocks (1910 graphs up to 6 blocks).
const MAX_ACYCLIC: usize = 6;
/// Largest cyclic CFG, in blocks (1468 graphs up to 4 blocks, 111573 of 5).
const MAX_CYCLIC: usize = 5;

/// Of the graphs with `n` blocks, every `sample(n)`-th is checked: all up to 5
/// blocks acyclic and 4 cyclic, a spread sample above: every 200th cyclic
/// five-block CFG in long mode (`PLLVM_LONG=1`, about 100 s on two cores), every
/// 3000th by default (about 37 graphs spread over the generation order, beside the 1468
/// cyclic graphs up to 4 blocks checked in full, where the loop shapes that can
/// break reconvergence already occur).
fn sample(n: usize, cyclic: bool) -> usize {
    match (cyclic, n) {
        (false, 0..=5) | (true, 0..=4) => 1,
        (false, _) => 8,
        (true, _) => crate::test_cases(3000, 200),
    }
}

/// The program for `succs` (see the module doc). `uniform(b)` says whether block
/// `b` branches on `%u`; `fuel` threads the fuel counter (for cyclic CFGs).
fn program(succs: &[Vec<u32>], uniform: &dyn Fn(usize) -> bool, fuel: bool) -> String {
    let dist = distances_to_exit(succs);
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); succs.len()];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s as usize].push(b);
        }
    }
    // A block `start` enters `b0`, so that `b0` may have predecessors too.
    let mut out = String::from("define i32 @f(i32 %u) {\nstart:\n");
    out.push_str("  %t = call i32 @pllvm.thread_id()\n");
    out.push_str("  %h.start.out = add i32 %t, 0\n");
    out.push_str("  %f.start.out = add i32 %u, 6\n");
    out.push_str("  br label %b0\n");
    preds[0].insert(0, usize::MAX);
    for (b, ss) in succs.iter().enumerate() {
        let _ = writeln!(out, "b{b}:");
        let arms = |v: &str| {
            preds[b]
                .iter()
                .map(|&p| match p {
                    usize::MAX => format!("[ %{v}.start.out, %start ]"),
                    p => format!("[ %{v}{p}.out, %b{p} ]"),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(out, "  %h{b} = phi i32 {}", arms("h"));
        if fuel {
            let _ = writeln!(out, "  %f{b} = phi i32 {}", arms("f"));
        }
        let _ = writeln!(out, "  %x{b} = mul i32 %h{b}, 7");
        let _ = writeln!(out, "  %h{b}.out = add i32 %x{b}, {}", b + 1);
        if fuel {
            let _ = writeln!(out, "  %f{b}.out = sub i32 %f{b}, 1");
            let _ = writeln!(out, "  %ok{b} = icmp sgt i32 %f{b}, 0");
        }
        let source = if uniform(b) { "%u" } else { "%t" };
        // The successor nearest a `ret`, taken once the fuel is spent.
        let nearest = (0..ss.len())
            .min_by_key(|&k| dist[ss[k] as usize].unwrap_or(u32::MAX))
            .unwrap_or(0);
        match ss.as_slice() {
            [] => {
                let _ = writeln!(out, "  ret i32 %h{b}.out");
            }
            [s] => {
                let _ = writeln!(out, "  br label %b{s}");
            }
            [s0, s1] => {
                let _ = writeln!(out, "  %sh{b} = lshr i32 {source}, {}", b % 2);
                let _ = writeln!(out, "  %bit{b} = and i32 %sh{b}, 1");
                let _ = writeln!(out, "  %c{b} = icmp eq i32 %bit{b}, 1");
                let cond = if fuel {
                    let stay = if nearest == 0 { "true" } else { "false" };
                    let _ = writeln!(out, "  %g{b} = select i1 %ok{b}, i1 %c{b}, i1 {stay}");
                    format!("%g{b}")
                } else {
                    format!("%c{b}")
                };
                let _ = writeln!(out, "  br i1 {cond}, label %b{s0}, label %b{s1}");
            }
            [s0, s1, s2] => {
                let _ = writeln!(out, "  %a{b} = add i32 {source}, {b}");
                let _ = writeln!(out, "  %k{b} = urem i32 %a{b}, 3");
                let key = if fuel {
                    let _ = writeln!(out, "  %g{b} = select i1 %ok{b}, i32 %k{b}, i32 {nearest}");
                    format!("%g{b}")
                } else {
                    format!("%k{b}")
                };
                let _ = writeln!(
                    out,
                    "  switch i32 {key}, label %b{s0} [ i32 1, label %b{s1}\n    i32 2, label %b{s2} ]"
                );
            }
            _ => unreachable!("small CFGs have at most three successors"),
        }
    }
    out.push_str("}\n");
    out
}

fn options() -> Options {
    Options {
        uniform_args: vec!["u".to_string()],
        ..Options::default()
    }
}

fn cx(options: &Options) -> PassContext<'_> {
    PassContext {
        options,
        pass: Pass::Reconverge,
    }
}

fn parse(src: &str) -> Result<(Module, FuncId), String> {
    let (module, spans) = parse_module(src).map_err(|e| format!("{e:?}\n{src}"))?;
    let report = verify_module(&module, &spans);
    if !report.is_ok() {
        return Err(format!("input does not verify: {:?}\n{src}", report.errors));
    }
    let func = module.first_definition().ok_or("no function")?;
    Ok((module, func))
}

/// Verifier and Definition 1 on `out`.
fn check_output(out: &Module, func: FuncId, options: &Options) -> Result<(), String> {
    let report = verify_module(out, &SourceMap::default());
    if !report.is_ok() {
        return Err(format!(
            "output does not verify: {:?}\n{}",
            report.errors,
            print_module(out)
        ));
    }
    let uniformity = cx(options).analyze(out, func).map_err(|e| e.to_string())?;
    let body = out.functions[func].body.as_ref().ok_or("no body")?;
    if let Some(v) = check_reconverging(body, &PostDomTree::compute(body), &uniformity).first() {
        return Err(format!("{}\n{}", v.message(body), print_module(out)));
    }
    Ok(())
}

fn run(u: i64, width: usize, interp: Interp) -> RunConfig {
    let mut cfg = RunConfig {
        threads: width,
        interp,
        ..Default::default()
    };
    cfg.args
        .insert("u".to_string(), ArgValue::Uniform(Scalar::Int(u)));
    cfg
}

/// The sorted distinct outcomes of every greedy schedule.
fn outcomes(module: &Module, cfg: &RunConfig) -> Result<Vec<String>, String> {
    let bounds = Bounds {
        max_states: 20_000,
        max_steps: 300,
        order: Order::Lowest,
    };
    let e = explore(module, cfg, &bounds).map_err(|e| e.to_string())?;
    if let Some(t) = e.truncated {
        return Err(format!("exploration cut off: {t}"));
    }
    let mut v: Vec<String> = e
        .outcomes
        .iter()
        .map(|o| format!("{} {}", o.ending, o.result_text))
        .collect();
    v.sort();
    v.dedup();
    Ok(v)
}

/// One acyclic program: the full route, Definition 1, FR(input) = OBL(output).
fn check_acyclic(src: &str) -> Result<(), String> {
    let (module, func) = parse(src)?;
    let options = options();
    let (out, _) = reconverge(&module, func, &cx(&options)).map_err(|e| format!("{e}\n{src}"))?;
    check_output(&out, func, &options)?;
    for u in [0, 5] {
        let before = outcomes(&module, &run(u, 4, Interp::Freezing))?;
        let after = outcomes(&out, &run(u, 4, Interp::Oblivious))?;
        if before.len() != 1 || before != after {
            return Err(format!(
                "u = {u}: FR(input) {before:?}, OBL(output) {after:?}\n{src}\n{}",
                print_module(&out)
            ));
        }
    }
    Ok(())
}

#[test]
fn every_small_acyclic_cfg() {
    let mut failures = Vec::new();
    let mut programs = 0usize;
    for n in 1..=MAX_ACYCLIC {
        let mut seen = 0usize;
        for_each_cfg(n, &mut |succs| {
            let acyclic = succs
                .iter()
                .enumerate()
                .all(|(b, ss)| ss.iter().all(|&s| s as usize > b));
            if !acyclic {
                return;
            }
            seen += 1;
            if !seen.is_multiple_of(sample(n, false)) {
                return;
            }
            for uniform in [&(|_| false) as &dyn Fn(usize) -> bool, &|b| b % 2 == 1] {
                programs += 1;
                if let Err(why) = check_acyclic(&program(succs, uniform, false)) {
                    failures.push(format!("{}: {why}", edge_list(succs)));
                }
            }
        });
    }
    eprintln!("{programs} acyclic programs of at most {MAX_ACYCLIC} blocks");
    assert!(
        failures.is_empty(),
        "{} failed, the first:\n{}",
        failures.len(),
        failures.first().map_or("", String::as_str)
    );
}

/// One cyclic program: the full route, Definition 1, FR(input) = OBL(output).
fn check_cyclic(src: &str) -> Result<(), String> {
    let (module, func) = parse(src)?;
    let options = options();
    let (out, _) = reconverge(&module, func, &cx(&options)).map_err(|e| format!("{e}\n{src}"))?;
    check_output(&out, func, &options)?;
    for u in [0, 1] {
        let before = outcomes(&module, &run(u, 3, Interp::Freezing))?;
        let after = outcomes(&out, &run(u, 3, Interp::Oblivious))?;
        if before.len() != 1 || before != after {
            return Err(format!(
                "u = {u}: FR(input) {before:?}, OBL(output) {after:?}\n{src}\n{}",
                print_module(&out)
            ));
        }
    }
    Ok(())
}

#[test]
fn every_small_cyclic_cfg() {
    let mut failures = Vec::new();
    let mut programs = 0usize;
    for n in 2..=MAX_CYCLIC {
        let mut seen = 0usize;
        for_each_cfg(n, &mut |succs| {
            let cyclic = succs
                .iter()
                .enumerate()
                .any(|(b, ss)| ss.iter().any(|&s| s as usize <= b));
            if !cyclic || distances_to_exit(succs).iter().any(Option::is_none) {
                return;
            }
            seen += 1;
            if !seen.is_multiple_of(sample(n, true)) {
                return;
            }
            programs += 1;
            if let Err(why) = check_cyclic(&program(succs, &|b| b % 2 == 1, true)) {
                failures.push(format!("{}: {why}", edge_list(succs)));
            }
        });
    }
    eprintln!("{programs} cyclic programs of at most {MAX_CYCLIC} blocks");
    assert!(
        failures.is_empty(),
        "{} failed, the first:\n{}",
        failures.len(),
        failures.first().map_or("", String::as_str)
    );
}
