//! Lock step is transparent under FREEZING (thesis §4.5, DESIGN.md "Oracles"): for a
//! program without horizontal builtins and without `mask()` (the generator's
//! lane-local programs, `GenConfig::lane_local`), an FR run of W lanes gives every
//! lane exactly the return value, and leaves exactly the memory in the lane's own
//! slices of the written buffers, that a run of that lane alone (W = 1) with the
//! same inputs gives. The thread id is the per-lane argument `%tid` in these
//! programs, so the lone run of lane τ is given `%tid = τ`.

use pllvm_interp::{Machine, Outcome};
use pllvm_proofs::{GenConfig, Generated, InputScalar, generate};
use pllvm_semantics::rules::Interp;
use pllvm_semantics::types::TypeTable;
use pllvm_semantics::value::{Pointer, Val};
use proptest::prelude::*;

/// What a run leaves: each lane's return value and each buffer's elements.
struct RunResult {
    results: Vec<Option<Val>>,
    buffers: Vec<Vec<Val>>,
}

/// Runs `g` under FR with the given argument columns (one value per lane each).
fn run(g: &Generated, columns: &[(String, Vec<InputScalar>)]) -> Result<RunResult, String> {
    let cfg = g.run_config(columns, Interp::Freezing);
    let mut m = Machine::new(&g.module, &cfg).map_err(|e| format!("setup: {e}"))?;
    let outcome = m.run_to_end().map_err(|e| format!("run: {e}"))?;
    if outcome != Outcome::Returned {
        return Err(format!("outcome: {outcome}"));
    }
    let types = &g.module.types;
    let mut buffers = Vec::new();
    for (gid, data) in g.module.globals.iter() {
        let Some(base) = m.global_pointer(gid) else {
            return Err(format!("no object for @{}", data.name));
        };
        let spec = g
            .buffers
            .iter()
            .find(|b| b.name == data.name)
            .ok_or_else(|| format!("@{} is not a generated buffer", data.name))?;
        let elem = if spec.elem_bits == 32 {
            TypeTable::I32
        } else {
            TypeTable::I64
        };
        let stride = types.size_of(elem);
        let mut elements = Vec::new();
        for k in 0..spec.len {
            let at = Val::Ptr(Pointer {
                object: base.object,
                offset: base.offset + k * stride,
            });
            let v = m
                .state
                .mem
                .load(types, elem, &at)
                .map_err(|e| format!("reading @{}[{k}]: {e}", data.name))?;
            elements.push(v);
        }
        buffers.push(elements);
    }
    Ok(RunResult {
        results: m.results(),
        buffers,
    })
}

/// The property for one program, one width and one input seed.
fn check(seed: u64, width: usize, input_seed: u64) -> Result<(), String> {
    let config = GenConfig::lane_local();
    let g = generate(seed, &config);
    let columns = g.inputs(input_seed, width);
    let together = run(&g, &columns).map_err(|e| format!("W = {width}: {e}"))?;
    for lane in 0..width {
        let alone_columns: Vec<(String, Vec<InputScalar>)> = columns
            .iter()
            .map(|(name, column)| (name.clone(), vec![column[lane]]))
            .collect();
        let alone = run(&g, &alone_columns).map_err(|e| format!("lane {lane} alone: {e}"))?;
        if together.results[lane] != alone.results[0] {
            return Err(format!(
                "lane {lane}: lock step returned {:?}, alone {:?}",
                together.results[lane], alone.results[0]
            ));
        }
        for (k, spec) in g.buffers.iter().enumerate() {
            let Some(range) = g.lane_slice(k, lane) else {
                continue;
            };
            let (mine, lone) = (
                &together.buffers[k][range.clone()],
                &alone.buffers[k][range.clone()],
            );
            if mine != lone {
                return Err(format!(
                    "lane {lane}: @{}[{range:?}] is {mine:?} in lock step, {lone:?} alone",
                    spec.name
                ));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn fr_lock_step_equals_lanes_run_alone(
        seed in any::<u64>(),
        width in prop::sample::select(vec![2usize, 3, 4, 8]),
        input_seed in any::<u64>(),
    ) {
        if let Err(why) = check(seed, width, input_seed) {
            prop_assert!(false, "program seed {seed}, W = {width}, inputs {input_seed}: {why}");
        }
    }
}

/// A fixed sweep, so that a run covers the same programs every time as well.
#[test]
fn fr_lock_step_equals_lanes_run_alone_fixed_seeds() {
    let mut failures = Vec::new();
    for seed in 0..200u64 {
        let width = [2usize, 3, 4, 8][(seed % 4) as usize];
        if let Err(why) = check(seed, width, seed.wrapping_mul(31)) {
            failures.push(format!("seed {seed}, W = {width}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
