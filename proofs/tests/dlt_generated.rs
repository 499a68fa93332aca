//! The divergent loop transform (thesis §9.1, `pllvm_codegen::dlt`) on generated
//! programs: reducible, lane-local, unpredicated SPMD code (no block predicates,
//! `total`, shadows, `mask()` or horizontal operations: what a front end writes,
//! the transform's input). The output verifies, and under OBLIVIOUS it ends as the
//! input ends under FREEZING: results and memory, with the default scheduler at
//! W = 1 and 3, and on every greedy schedule (`explore`, W = 2 and 3) for the
//! programs whose loops the transform changed. The seeded broken transform
//! (`Fault::DropLiveOutTracker`) is caught. The counts are printed.

use pllvm_codegen::pipeline::{Options, Pass, run_passes};
use pllvm_fuzz::{GenConfig, Generated, InputScalar, generate};
use pllvm_interp::Machine;
use pllvm_interp::explore::{Bounds, explore};
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::Module;
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::print_module;
use pllvm_semantics::verify::verify_module;

/// Unpredicated SPMD programs, reducible.
fn config() -> GenConfig {
    GenConfig {
        irreducible: false,
        predicates: false,
        self_predicates: false,
        total: false,
        shadow_phis: false,
        mask: false,
        horizontal: false,
        ..GenConfig::lane_local()
    }
}

/// The program after `--pass dlt`, and whether a loop was transformed.
fn transformed(g: &Generated) -> Result<(Module, bool), String> {
    transformed_with(g, &Options::default())
}

/// [`transformed`] with `options` (the seeded fault).
fn transformed_with(g: &Generated, options: &Options) -> Result<(Module, bool), String> {
    let stages = run_passes(&g.module, g.func, &[Pass::Dlt], options).map_err(|e| e.to_string())?;
    let stage = stages.into_iter().next().ok_or("no stage")?;
    let report = verify_module(&stage.module, &SourceMap::default());
    if !report.is_ok() {
        return Err(format!(
            "the output does not verify: {:?}\n{}",
            report.errors,
            print_module(&stage.module)
        ));
    }
    let changed = stage.notes.iter().any(|n| n.contains(", made "));
    Ok((stage.module, changed))
}

/// Outcome and results of one scheduler run (`None`: the input did not return).
fn run(m: &Module, g: &Generated, columns: &[(String, Vec<InputScalar>)], i: Interp) -> String {
    let cfg = g.run_config(columns, i);
    match Machine::new(m, &cfg) {
        Ok(mut machine) => match machine.run_to_end() {
            Ok(outcome) => format!("{outcome:?} {:?}", machine.results()),
            Err(e) => format!("error {e}"),
        },
        Err(e) => format!("setup {e}"),
    }
}

#[test]
fn obl_after_dlt_equals_fr_before_with_the_default_scheduler() {
    let (mut compared, mut changed_programs) = (0, 0);
    let mut failures = Vec::new();
    for seed in 0..300u64 {
        let g = generate(seed, &config());
        let (out, changed) = match transformed(&g) {
            Ok(x) => x,
            Err(why) => {
                failures.push(format!("seed {seed}: {why}"));
                continue;
            }
        };
        changed_programs += usize::from(changed);
        for width in [1usize, 3] {
            let columns = g.inputs(seed.wrapping_mul(7919), width);
            let before = run(&g.module, &g, &columns, Interp::Freezing);
            if !before.starts_with("Returned") {
                continue;
            }
            compared += 1;
            let after = run(&out, &g, &columns, Interp::Oblivious);
            if before != after {
                failures.push(format!(
                    "seed {seed}, W = {width}: FR before {before}, OBL after {after}\n{}",
                    print_module(&out)
                ));
            }
        }
    }
    println!(
        "dlt, default scheduler: {compared} runs compared, {changed_programs} programs with a transformed loop"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(changed_programs > 50, "too few divergent loops generated");
}

#[test]
fn obl_after_dlt_equals_fr_before_on_every_greedy_schedule() {
    let bounds = Bounds {
        max_states: 20_000,
        ..Bounds::default()
    };
    let endings = |m: &Module, g: &Generated, columns: &[(String, Vec<InputScalar>)], i| {
        let e = explore(m, &g.run_config(columns, i), &bounds).ok()?;
        if e.truncated.is_some() {
            return None;
        }
        let mut v: Vec<String> = e
            .outcomes
            .iter()
            .map(|o| format!("{} {} {:?}", o.ending, o.result_text, o.memory))
            .collect();
        v.sort();
        Some(v)
    };
    let (mut explored, mut truncated) = (0, 0);
    let mut failures = Vec::new();
    for seed in 0..120u64 {
        let g = generate(seed, &config());
        let Ok((out, true)) = transformed(&g) else {
            continue;
        };
        for width in [2usize, 3] {
            let columns = g.inputs(seed.wrapping_mul(31), width);
            let (Some(before), Some(after)) = (
                endings(&g.module, &g, &columns, Interp::Freezing),
                endings(&out, &g, &columns, Interp::Oblivious),
            ) else {
                truncated += 1;
                continue;
            };
            explored += 1;
            if before != after {
                failures.push(format!(
                    "seed {seed}, W = {width}: FR before {before:?}\nOBL after {after:?}\n{}",
                    print_module(&g.module)
                ));
            }
        }
    }
    println!(
        "dlt, every greedy schedule: {explored} explorations compared, {truncated} over the state bound"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(explored > 50, "too few explorations");
}

#[test]
fn the_seeded_broken_transform_is_caught() {
    let options = Options {
        fault: Some(pllvm_codegen::dlt::Fault::DropLiveOutTracker),
        ..Options::default()
    };
    let (mut compared, mut caught) = (0, 0);
    for seed in 0..300u64 {
        let g = generate(seed, &config());
        let Ok((out, true)) = transformed_with(&g, &options) else {
            continue;
        };
        for width in [2usize, 3] {
            let columns = g.inputs(seed.wrapping_mul(7919), width);
            let before = run(&g.module, &g, &columns, Interp::Freezing);
            if !before.starts_with("Returned") {
                continue;
            }
            compared += 1;
            caught += usize::from(before != run(&out, &g, &columns, Interp::Oblivious));
        }
    }
    println!("dlt with a dropped live-out tracker: {caught} of {compared} runs differ");
    assert!(caught > 0, "the broken transform went unnoticed");
}

/// The transform's two routes on `m`: the incremental one
/// (`divergent_loop_transform`, facts read once per round and updated loop by
/// loop) and the reference (`divergent_loop_transform_reference`, facts read
/// anew before each nesting depth, every loop classified every round). Returns
/// a difference, if any: the printed modules and the notes must be identical.
fn routes_differ(
    m: &Module,
    func: pllvm_semantics::ir::FuncId,
    options: &Options,
) -> Option<String> {
    use pllvm_codegen::dlt::{divergent_loop_transform, divergent_loop_transform_reference};
    use pllvm_codegen::pipeline::PassContext;
    let cx = PassContext {
        options,
        pass: Pass::Dlt,
    };
    let show = |r: Result<(Module, Vec<String>), pllvm_codegen::error::TransformError>| match r {
        Ok((out, notes)) => format!("{}\n{}", print_module(&out), notes.join("\n")),
        Err(e) => format!("error: {e}"),
    };
    let fast = show(divergent_loop_transform(m, func, &cx));
    let reference = show(divergent_loop_transform_reference(m, func, &cx));
    (fast != reference).then(|| {
        format!(
            "input:\n{}\nincremental:\n{fast}\nreference:\n{reference}",
            print_module(m)
        )
    })
}

/// A nest of loops of random shape, as text: each loop has a counter phi, a
/// body of nested loops and straight blocks, and a latch that leaves it or goes
/// round on the thread id or on a uniform argument (divergent or uniform
/// loops); a body block may leave one or several loops at once (`break` out of
/// k levels) on a varying or uniform condition, and a value of the loop may be
/// read after it. Exercises what the generator above makes rarely: deep nests,
/// exits of several levels, divergent loops inside uniform ones and the other
/// way round.
fn random_nest(seed: u64) -> String {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    struct Gen<'r> {
        rng: &'r mut rand_chacha::ChaCha8Rng,
        out: Vec<String>,
        next: usize,
    }
    impl Gen<'_> {
        fn fresh(&mut self) -> usize {
            self.next += 1;
            self.next
        }
        /// Emits a loop entered from `pred` (the block that branches to its
        /// header), inside the loops whose exit blocks are `outer` (innermost
        /// last); the text goes on in the block after it.
        fn emit_loop(&mut self, pred: &str, outer: &[String], depth: u32) {
            let k = self.fresh();
            let (h, latch, after) = (format!("h{k}"), format!("l{k}"), format!("x{k}"));
            let bound = if self.rng.gen_bool(0.5) { "%tid" } else { "%n" };
            self.out.push(format!("  br label %{h}"));
            self.out.push(format!("{h}:"));
            self.out.push(format!(
                "  %i{k} = phi i32 [ 0, %{pred} ], [ %i{k}.n, %{latch} ]"
            ));
            let mut levels: Vec<String> = outer.to_vec();
            levels.push(after.clone());
            let parts = self.rng.gen_range(0..3u32);
            for _ in 0..parts {
                if depth < 5 && self.rng.gen_bool(0.5) {
                    let b = self.fresh();
                    self.out.push(format!("  br label %p{b}"));
                    self.out.push(format!("p{b}:"));
                    self.emit_loop(&format!("p{b}"), &levels, depth + 1);
                } else {
                    let b = self.fresh();
                    let cond = if self.rng.gen_bool(0.6) { "%tid" } else { "%n" };
                    let target = levels[self.rng.gen_range(0..levels.len())].clone();
                    self.out
                        .push(format!("  %c{b} = icmp sgt i32 %i{k}, {cond}"));
                    self.out.push(format!(
                        "  br i1 %c{b}, label %{target}.from{b}, label %b{b}"
                    ));
                    self.out.push(format!("{target}.from{b}:"));
                    self.out.push(format!("  br label %{target}"));
                    self.out.push(format!("b{b}:"));
                }
            }
            self.out.push(format!("  br label %{latch}"));
            self.out.push(format!("{latch}:"));
            self.out.push(format!("  %i{k}.n = add i32 %i{k}, 1"));
            self.out
                .push(format!("  %t{k} = icmp slt i32 %i{k}.n, {bound}"));
            self.out
                .push(format!("  br i1 %t{k}, label %{h}, label %{after}"));
            self.out.push(format!("{after}:"));
            // The counter, read after the loop (a live-out).
            self.out.push(format!("  %u{k} = add i32 %i{k}, %n"));
        }
    }
    let mut g = Gen {
        rng: &mut rng,
        out: Vec::new(),
        next: 0,
    };
    g.out.push("entry:".into());
    g.out.push("  %tid = call i32 @pllvm.thread_id()".into());
    g.out.push("  br label %start".into());
    g.out.push("start:".into());
    g.out.push("  br label %pre".into());
    g.out.push("pre:".into());
    g.emit_loop("pre", &["done".to_string()], 1);
    g.out.push("  br label %done".into());
    g.out.push("done:".into());
    g.out.push("  ret i32 %n".into());
    format!("define i32 @nest(i32 %n) {{\n{}\n}}\n", g.out.join("\n"))
}

/// The incremental route gives the reference's output, byte for byte, with its
/// notes: on the generated programs above (two sizes) and on random loop nests
/// (`random_nest`), with live-outs held and tracked. 200 of each by default,
/// 2000 with `PLLVM_LONG=1`.
#[test]
fn incremental_route_equals_the_reference() {
    use pllvm_codegen::dlt::LiveOuts;
    let n: u64 = if std::env::var_os("PLLVM_LONG").is_some() {
        2000
    } else {
        200
    };
    let bigger = GenConfig {
        max_blocks: 60,
        max_loop_depth: 5,
        ..config()
    };
    let held = Options::default();
    let tracked = Options {
        live_outs: LiveOuts::Tracked,
        ..Options::default()
    };
    let mut failures = Vec::new();
    let mut transformed_nests = 0;
    for seed in 0..n {
        for cfg in [&config(), &bigger] {
            let g = generate(seed, cfg);
            for options in [&held, &tracked] {
                if let Some(d) = routes_differ(&g.module, g.func, options) {
                    failures.push(format!("generated, seed {seed}:\n{d}"));
                }
            }
        }
        let text = random_nest(seed);
        let m = pllvm_semantics::text::parse_module(&text)
            .unwrap_or_else(|e| panic!("random nest {seed} parses: {e:?}\n{text}"))
            .0;
        let func = m.first_definition().expect("a function");
        let uniform_n = |o: &Options| Options {
            uniform_args: vec!["n".into()],
            ..o.clone()
        };
        for options in [&uniform_n(&held), &uniform_n(&tracked)] {
            if let Some(d) = routes_differ(&m, func, options) {
                failures.push(format!("random nest, seed {seed}:\n{d}"));
            }
        }
        let stages = run_passes(&m, func, &[Pass::Dlt], &uniform_n(&held)).expect("transforms");
        transformed_nests += usize::from(stages[0].notes.iter().any(|n| n.contains(", made ")));
    }
    println!("dlt routes: {n} seeds, {transformed_nests} random nests with a transformed loop");
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(2)].join("\n\n")
    );
    assert!(
        transformed_nests as u64 > n / 2,
        "too few random nests transformed"
    );
}
