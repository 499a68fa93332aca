//! Theorem 3 (thesis §8.5): every path of the original CFG `G` is a sub-path of a
//! path of the partially linearized CFG `G_ℓ`. Checked here in its *dynamic* form,
//! the one the proof's last paragraph draws from it: run the original under
//! FREEZING and the output of `--pass pl` under OBLIVIOUS, both with the default
//! greedy scheduler, and for every lane the sequence of original blocks the lane
//! executes (amask 1) in `G` equals, in order, the sequence of blocks where it is
//! active in `G_ℓ` (the blocks the transform's normal form adds, a preheader, a
//! latch, the exit, are left out). Partial linearization adds no block of its own,
//! so equality rather than a sub-sequence is the claim: a lane is active in
//! `G_ℓ` exactly where it runs in `G`, which is what the predicates of §8.4-8.5
//! promise on top of Listing 8's path embedding.
//!
//! The same runs check the transform's correctness claim (docs/transforms.md): where the
//! original is defined, OBL(pl) returns what FR(original) returns and leaves the
//! same memory. The output must verify (§4.10). Both also hold for the routes
//! built on Listing 8: `boscc,pl` with a gadget on every eligible edge (§9.2; the
//! gadget's new block `a.boscc` is left out of the paths) and full
//! if-conversion (`ifconv`).
//!
//! Programs: generated acyclic ones and generated reducible ones with loops (a
//! program whose loops the analysis finds divergent is refused by `pl`, "run dlt
//! first", and counted); the hand-written ones (Fig. 8.1, Fig. 8.2's DAG, Fig.
//! 8.5, loops) are in `differential/tests/linearize.rs` and `corpus/transforms/`.
//! The runs above use the default greedy scheduler; a last property explores
//! every greedy schedule (Ch. 5) of both programs at small widths and checks that
//! each outcome of OBL(pl) refines the one outcome of FR(original).
//! `PLLVM_LONG=1` sweeps ten times as many programs.

use pllvm_codegen::boscc::Policy;
use pllvm_codegen::pipeline::{Options, Pass, run_passes};
use pllvm_fuzz::{GenConfig, Generated, generate};
use pllvm_interp::explore::{Bounds, Order, explore};
use pllvm_proofs::linearization::{Observed, observe, refines, transformable};
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::Module;
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::print_module;
use pllvm_semantics::verify::verify_module;
use std::collections::HashSet;

/// What one program gave.
enum Verdict {
    /// The paths and results matched on this many runs; the transform linearized
    /// this many divergent branches.
    Checked(usize, usize),
    /// `pl` refused the program (a divergent loop).
    Refused,
}

/// A route of passes built on Listing 8.
#[derive(Clone, Copy, Debug)]
enum Route {
    /// `--pass pl`.
    Pl,
    /// `--pass boscc,pl --boscc all`.
    BosccPl,
    /// `--pass ifconv`.
    IfConv,
}

/// `route` on `g`, verified, with the number of branches it linearized.
fn linearize(g: &Generated, route: Route) -> Result<Option<(Module, usize)>, String> {
    let (passes, boscc): (&[Pass], Policy) = match route {
        Route::Pl => (&[Pass::Pl], Policy::None),
        Route::BosccPl => (&[Pass::Boscc, Pass::Pl], Policy::All),
        Route::IfConv => (&[Pass::IfConv], Policy::None),
    };
    let options = Options {
        uniform_args: g.uniform_args(),
        boscc,
        ..Options::default()
    };
    match run_passes(&g.module, g.func, passes, &options) {
        // Theorem 3 is about Listing 8 on a CFG whose loops are uniform: when
        // `ifconv` had to run the divergent loop transform first, the paths of G
        // are not the paths its Listing 8 saw, so the program is not compared
        // here (the whole route is: proofs/tests/stagewise_equivalence.rs).
        Ok(stages)
            if stages
                .iter()
                .flat_map(|s| &s.notes)
                .any(|n| n.contains("made uniform") || n.contains("made bottom-tested")) =>
        {
            Ok(None)
        }
        Ok(stages) => {
            let out = stages.last().map(|s| s.module.clone()).ok_or("no stage")?;
            let report = verify_module(&out, &SourceMap::default());
            if !report.is_ok() {
                return Err(format!(
                    "output does not verify: {:?}\n{}",
                    report.errors,
                    print_module(&out)
                ));
            }
            let linearized = stages
                .iter()
                .flat_map(|s| &s.notes)
                .filter(|n| n.starts_with("linearized"))
                .count();
            Ok(Some((out, linearized)))
        }
        // A divergent loop: `pl` asks for dlt first.
        Err(e) if e.message.contains("is divergent") => Ok(None),
        Err(e) => Err(format!("pl refused: {e}")),
    }
}

/// The lanes' active paths in `G_ℓ`, restricted to the blocks of `G`.
fn original_blocks_only(paths: Vec<Vec<String>>, original: &Module) -> Vec<Vec<String>> {
    let names: HashSet<String> = original
        .functions
        .values()
        .filter_map(|f| f.body.as_ref())
        .flat_map(|b| b.layout.iter().map(|&x| b.blocks[x].name.clone()))
        .collect();
    paths
        .into_iter()
        .map(|p| p.into_iter().filter(|n| names.contains(n)).collect())
        .collect()
}

/// Theorem 3 and the refinement on `g` for the given widths.
fn check(seed: u64, g: &Generated, route: Route, widths: &[usize]) -> Result<Verdict, String> {
    let Some((out, linearized)) = linearize(g, route)? else {
        return Ok(Verdict::Refused);
    };
    let name = &g.module.functions[g.func].name;
    let mut runs = 0;
    for &width in widths {
        let columns = g.inputs(seed.wrapping_mul(6151).wrapping_add(width as u64), width);
        let original: Observed = observe(&g.module, g, &columns, Interp::Freezing)?;
        if original.outcome != pllvm_interp::Outcome::Returned {
            continue;
        }
        let linear = observe(&out, g, &columns, Interp::Oblivious)?;
        let show = || print_module(&out);
        refines(&original, &linear).map_err(|e| format!("W = {width}: {e}\n{}", show()))?;
        let want = original.active_paths(&g.module, name);
        let got = original_blocks_only(linear.active_paths(&out, name), &g.module);
        if want != got {
            return Err(format!(
                "W = {width}: active paths differ\nG:   {want:?}\nG_l: {got:?}\n{}",
                show()
            ));
        }
        runs += 1;
    }
    Ok(Verdict::Checked(runs, linearized))
}

/// `seeds`, ten times as many with `PLLVM_LONG=1`.
fn long(seeds: std::ops::Range<u64>) -> std::ops::Range<u64> {
    let on = std::env::var("PLLVM_LONG").is_ok_and(|v| v != "0" && !v.is_empty());
    if on {
        seeds.start * 10..seeds.end * 10
    } else {
        seeds
    }
}

/// Runs `check` on `seeds` programs of `config`; returns (checked runs, refused).
fn sweep(
    label: &str,
    config: &GenConfig,
    route: Route,
    seeds: std::ops::Range<u64>,
) -> (usize, usize) {
    let mut failures = Vec::new();
    let (mut runs, mut refused, mut programs, mut branches) = (0, 0, 0, 0);
    for seed in long(seeds) {
        let g = generate(seed, config);
        match check(seed, &g, route, &[1, 3, 4]) {
            Ok(Verdict::Checked(n, linearized)) => {
                programs += 1;
                runs += n;
                branches += linearized;
            }
            Ok(Verdict::Refused) => refused += 1,
            Err(why) => failures.push(format!("seed {seed}: {why}")),
        }
    }
    eprintln!(
        "theorem 3 ({label}, {route:?}): {programs} programs linearized ({branches} divergent branches), {runs} runs compared, {refused} refused (divergent loops)"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    (runs, refused)
}

#[test]
fn theorem_3_on_generated_acyclic_programs() {
    let config = transformable(GenConfig::acyclic());
    let (runs, _) = sweep("acyclic", &config, Route::Pl, 0..300);
    assert!(runs > 500, "too few runs compared: {runs}");
}

#[test]
fn theorem_3_on_generated_programs_with_loops() {
    let config = transformable(GenConfig::reducible());
    let (runs, refused) = sweep("loops", &config, Route::Pl, 0..600);
    assert!(
        runs > 100,
        "too few runs compared: {runs} ({refused} refused)"
    );
}

#[test]
fn theorem_3_after_boscc_gadgets_everywhere() {
    let (runs, _) = sweep(
        "acyclic",
        &transformable(GenConfig::acyclic()),
        Route::BosccPl,
        300..500,
    );
    assert!(runs > 300, "too few runs compared: {runs}");
    let (runs, _) = sweep(
        "loops",
        &transformable(GenConfig::reducible()),
        Route::BosccPl,
        600..900,
    );
    assert!(runs > 30, "too few runs compared: {runs}");
}

#[test]
fn theorem_3_for_full_if_conversion() {
    let (runs, _) = sweep(
        "acyclic",
        &transformable(GenConfig::acyclic()),
        Route::IfConv,
        500..700,
    );
    assert!(runs > 300, "too few runs compared: {runs}");
    let (runs, _) = sweep(
        "loops",
        &transformable(GenConfig::reducible()),
        Route::IfConv,
        900..1200,
    );
    assert!(runs > 30, "too few runs compared: {runs}");
}

/// Every outcome of every greedy schedule of OBL(pl) refines the outcome of
/// FR(original) (one outcome: the programs are schedule independent, see
/// `acyclic_schedule_independence.rs`) lane by lane where the original is defined.
fn every_schedule(seed: u64, g: &Generated, width: usize) -> Result<Option<usize>, String> {
    let Some((out, _)) = linearize(g, Route::Pl)? else {
        return Ok(None);
    };
    let columns = g.inputs(seed.wrapping_mul(7727).wrapping_add(width as u64), width);
    let bounds = Bounds {
        max_states: 20_000,
        max_steps: 400,
        order: Order::Lowest,
    };
    let original = explore(
        &g.module,
        &g.run_config(&columns, Interp::Freezing),
        &bounds,
    )
    .map_err(|e| e.to_string())?;
    let linear = explore(&out, &g.run_config(&columns, Interp::Oblivious), &bounds)
        .map_err(|e| e.to_string())?;
    if original.truncated.is_some() || linear.truncated.is_some() {
        return Ok(None);
    }
    let [want] = original.outcomes.as_slice() else {
        return Err(format!(
            "the original has {} outcomes",
            original.outcomes.len()
        ));
    };
    if want.ending != "returned" {
        return Ok(None);
    }
    for got in &linear.outcomes {
        let results_refine = want
            .results
            .iter()
            .zip(&got.results)
            .all(|(a, b)| matches!(a, Some(pllvm_semantics::value::Val::Undef)) || a == b);
        let memory_refines =
            want.memory.iter().any(|(_, m)| m.contains('⊤')) || want.memory == got.memory;
        if got.ending != "returned" || !results_refine || !memory_refines {
            return Err(format!(
                "W = {width}: FR(original) {} {} {:?}, OBL(pl) {} {} {:?}\n{}",
                want.ending,
                want.result_text,
                want.memory,
                got.ending,
                got.result_text,
                got.memory,
                print_module(&out)
            ));
        }
    }
    Ok(Some(linear.outcomes.len()))
}

#[test]
fn theorem_3_refinement_on_every_greedy_schedule() {
    let mut failures = Vec::new();
    let (mut explored, mut outcomes) = (0, 0);
    for (config, seeds) in [
        (transformable(GenConfig::acyclic()), 0..150u64),
        (transformable(GenConfig::reducible()), 150..450),
    ] {
        for seed in long(seeds) {
            let g = generate(seed, &config);
            let width = 2 + (seed % 2) as usize;
            match every_schedule(seed, &g, width) {
                Ok(Some(n)) => {
                    explored += 1;
                    outcomes += n;
                }
                Ok(None) => {}
                Err(why) => failures.push(format!("seed {seed}: {why}")),
            }
        }
    }
    eprintln!(
        "theorem 3 (every greedy schedule): {explored} program pairs explored, {outcomes} outcomes of OBL(pl) checked"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(explored > 100, "{explored}");
}
