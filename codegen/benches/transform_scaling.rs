//! Transform time against CFG size (the target: "a 100k-block generated
//! CFG transforms in seconds, not minutes").
//!
//! The program is a chain of segments, each one of: a diamond on a varying
//! condition (the thread id), a diamond on a uniform argument, a loop whose trip
//! count is the thread id (divergent), a loop with a uniform trip count. The
//! bench builds it with 1k, 10k and 100k blocks, parses it, and times every route
//! (`pllvm transform --pass ...` through the same library), printing the time per
//! size and the growth factor per 10x blocks (1.0x per block is linear: 10x time
//! for 10x blocks).
//!
//! Run: `cargo bench -p pllvm-codegen --bench transform_scaling` (add a size, e.g.
//! `-- 30000`, to run one size only, and a route, e.g. `-- 30000 dlt,pl`, to run
//! one route only).

use pllvm_codegen::pipeline::{Options, Pass, run_passes};
use pllvm_semantics::text::parse_module;
use std::fmt::Write;
use std::time::Instant;

/// The generated program with about `blocks` blocks.
fn program(blocks: usize) -> String {
    let mut s = String::from(
        "define i32 @chain(i32 %u, i32 %n) {\nentry:\n  %tid = call i32 @pllvm.thread_id()\n  br label %s0\n",
    );
    let mut acc = "%u".to_string();
    let mut k = 0;
    let mut made = 2;
    while made < blocks {
        let a = format!("s{k}");
        let next = format!("s{}", k + 1);
        match k % 4 {
            0 | 1 => {
                let cond = if k % 4 == 0 { "%tid" } else { "%u" };
                let _ = write!(
                    s,
                    "{a}:\n  %c{k} = icmp slt i32 {cond}, {k}\n  br i1 %c{k}, label %{a}.t, label %{a}.f\n\
                     {a}.t:\n  %t{k} = add i32 {acc}, 1\n  br label %{a}.j\n\
                     {a}.f:\n  %f{k} = mul i32 {acc}, 3\n  br label %{a}.j\n\
                     {a}.j:\n  %x{k} = phi i32 [ %t{k}, %{a}.t ], [ %f{k}, %{a}.f ]\n  br label %{next}\n"
                );
                made += 4;
            }
            _ => {
                let bound = if k % 4 == 2 { "%tid" } else { "%n" };
                let _ = write!(
                    s,
                    "{a}:\n  br label %{a}.h\n\
                     {a}.h:\n  %i{k} = phi i32 [ 0, %{a} ], [ %i{k}.n, %{a}.h ]\n  %v{k} = phi i32 [ {acc}, %{a} ], [ %v{k}.n, %{a}.h ]\n  %i{k}.n = add i32 %i{k}, 1\n  %v{k}.n = add i32 %v{k}, %i{k}\n  %c{k} = icmp slt i32 %i{k}.n, {bound}\n  br i1 %c{k}, label %{a}.h, label %{a}.j\n\
                     {a}.j:\n  %x{k} = phi i32 [ %v{k}.n, %{a}.h ]\n  br label %{next}\n"
                );
                made += 3;
            }
        }
        acc = format!("%x{k}");
        k += 1;
    }
    let _ = write!(s, "s{k}:\n  ret i32 {acc}\n}}\n");
    s
}

const ROUTES: [(&str, &[Pass]); 4] = [
    ("dlt,pl", &[Pass::Dlt, Pass::Pl]),
    ("dlt,boscc,pl", &[Pass::Dlt, Pass::Boscc, Pass::Pl]),
    ("ifconv", &[Pass::IfConv]),
    ("reconverge", &[Pass::Reconverge]),
];

fn main() {
    let sizes: Vec<usize> = {
        let given: Vec<usize> = std::env::args()
            .skip(1)
            .filter_map(|a| a.parse().ok())
            .collect();
        if given.is_empty() {
            vec![1_000, 10_000, 100_000]
        } else {
            given
        }
    };
    let routes: Vec<&str> = std::env::args()
        .skip(1)
        .filter(|a| ROUTES.iter().any(|(r, _)| r == a))
        .map(|a| ROUTES.iter().find(|(r, _)| *r == a).map_or("", |(r, _)| *r))
        .collect();
    let options = Options {
        uniform_args: vec!["u".into(), "n".into()],
        ..Options::default()
    };
    println!("| route | blocks in | blocks out | seconds | growth per 10x blocks |");
    println!("| --- | --- | --- | --- | --- |");
    let mut failed = false;
    for (route, passes) in ROUTES {
        if !routes.is_empty() && !routes.contains(&route) {
            continue;
        }
        let mut last: Option<(usize, f64)> = None;
        for &size in &sizes {
            let text = program(size);
            let Ok((module, _)) = parse_module(&text) else {
                eprintln!("generated program does not parse");
                std::process::exit(1);
            };
            let Some(func) = module.first_definition() else {
                continue;
            };
            let blocks_in = module.functions[func]
                .body
                .as_ref()
                .map_or(0, |b| b.layout.len());
            let start = Instant::now();
            let result = run_passes(&module, func, passes, &options);
            let secs = start.elapsed().as_secs_f64();
            match result {
                Ok(stages) => {
                    let out = stages
                        .last()
                        .and_then(|s| s.module.functions[func].body.as_ref())
                        .map_or(0, |b| b.layout.len());
                    let growth = last
                        .map(|(b0, t0)| {
                            let per10 =
                                (secs / t0).log10() / ((blocks_in as f64 / b0 as f64).log10());
                            format!(
                                "{:.2}x time per 10x blocks (exponent {per10:.2})",
                                secs / t0
                            )
                        })
                        .unwrap_or_default();
                    println!("| {route} | {blocks_in} | {out} | {secs:.3} | {growth} |");
                    last = Some((blocks_in, secs));
                }
                Err(e) => {
                    println!("| {route} | {blocks_in} | refused: {e} | | |");
                    failed = true;
                }
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}
