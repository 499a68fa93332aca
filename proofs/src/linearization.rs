//! What the checks of partial linearization (thesis Ch. 8, Theorems 3-5) and of
//! the transforms built on it share: the generated programs a transform takes,
//! a traced run of a program, and the comparison of FR(original) with
//! OBL(transformed) lane by lane where the original is defined (the transforms'
//! correctness claim, docs/transforms.md; thesis Ch. 3.6-3.7).

use pllvm_fuzz::GenConfig;
use pllvm_fuzz::Generated;
use pllvm_fuzz::InputScalar;
use pllvm_interp::trace::TraceRow;
use pllvm_interp::{Machine, Outcome};
use pllvm_semantics::ir::{Block, Module};
use pllvm_semantics::rules::Interp;
use pllvm_semantics::value::Val;

/// `base` restricted to what the transforms take as input (§8.5: unpredicated
/// SPMD code): no block predicates, and lanes read only their own slices of
/// written buffers, so that the order in which a linearized program runs the
/// sides of a divergent branch cannot show in memory (every greedy schedule of
/// the original then gives the same result, and so must the transformed one).
pub fn transformable(base: GenConfig) -> GenConfig {
    GenConfig {
        irreducible: false,
        predicates: false,
        self_predicates: false,
        predicated_branches: false,
        own_slice_reads: true,
        ..base
    }
}

/// What one run left, with its whole trace.
#[derive(Clone, Debug)]
pub struct Observed {
    /// How the run ended.
    pub outcome: Outcome,
    /// Each lane's return value (`None`: the lane did not return).
    pub results: Vec<Option<Val>>,
    /// Every element of every global, in module order.
    pub memory: Vec<Vec<Val>>,
    /// One row per scheduled block.
    pub trace: Vec<TraceRow>,
}

impl Observed {
    /// Per lane, the names of the blocks the lane was active in (amask 1), in
    /// order: the lane's path through the program as it ran.
    pub fn active_paths(&self, module: &Module, func_name: &str) -> Vec<Vec<String>> {
        let width = self.results.len();
        let body = module
            .function_by_name(func_name)
            .and_then(|f| module.functions[f].body.as_ref());
        let name = |b: Block| body.map_or_else(String::new, |body| body.blocks[b].name.clone());
        (0..width)
            .map(|lane| {
                self.trace
                    .iter()
                    .filter(|row| row.active.get(lane).copied().unwrap_or(false))
                    .map(|row| name(row.scheduled))
                    .collect()
            })
            .collect()
    }
}

/// Runs `module` (the program of `g` or a transform of it) under `interp` with
/// `columns`, the default greedy scheduler (lowest block index), keeping the trace.
pub fn observe(
    module: &Module,
    g: &Generated,
    columns: &[(String, Vec<InputScalar>)],
    interp: Interp,
) -> Result<Observed, String> {
    let config = g.run_config(columns, interp);
    let mut m = Machine::new(module, &config).map_err(|e| format!("setup: {e}"))?;
    m.record_trace = true;
    m.trace_limit = None;
    let outcome = m.run_to_end().map_err(|e| format!("run: {e}"))?;
    // Every global, scalar by scalar (arrays flattened), as the checker of
    // `pllvm_interp::equiv` reads them.
    let memory: Vec<Vec<Val>> = m
        .global_contents()
        .into_iter()
        .map(|g| g.cells.into_iter().map(|c| c.value).collect())
        .collect();
    Ok(Observed {
        outcome,
        results: m.results(),
        trace: std::mem::take(&mut m.trace),
        memory,
    })
}

/// The claim FR(original) = OBL(transformed): when the original returned, the
/// transformed program returns too, with the same value in every lane whose
/// original value is defined, and the same memory wherever the original's is
/// defined (⊤ in the original may be refined by anything).
pub fn refines(original: &Observed, transformed: &Observed) -> Result<(), String> {
    if original.outcome != Outcome::Returned {
        return Ok(());
    }
    if transformed.outcome != Outcome::Returned {
        return Err(format!(
            "the original returned, the transformed program ended with {}",
            transformed.outcome
        ));
    }
    for (lane, (a, b)) in original
        .results
        .iter()
        .zip(&transformed.results)
        .enumerate()
    {
        if let Some(a) = a
            && *a != Val::Undef
            && Some(a) != b.as_ref()
        {
            return Err(format!("lane {lane}: result {a:?} became {b:?}"));
        }
    }
    for (g, (a, b)) in original.memory.iter().zip(&transformed.memory).enumerate() {
        for (k, (x, y)) in a.iter().zip(b).enumerate() {
            if *x != Val::Undef && x != y {
                return Err(format!("global #{g}[{k}]: {x:?} became {y:?}"));
            }
        }
    }
    Ok(())
}
