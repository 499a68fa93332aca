//! Lock step is transparent under FREEZING (thesis §4.5, docs/design/overview.md
//! "Oracles: what checks what"): for a
//! program without horizontal builtins and without `mask()` (the generator's
//! lane-local programs, `GenConfig::lane_local`), an FR run of W lanes gives every
//! lane exactly the return value, and leaves exactly the memory in the lane's own
//! slices of the written buffers, that a run of that lane alone (W = 1) with the
//! same inputs gives. The thread id is the per-lane argument `%tid` in these
//! programs, so the lone run of lane τ is given `%tid = τ`.

use pllvm_fuzz::oracles::lockstep::LockStep;
use pllvm_fuzz::oracles::{Case, Oracle, Verdict};
use pllvm_fuzz::{GenConfig, generate};
use proptest::prelude::*;

/// The property for one program, one width and one input seed: the `lockstep`
/// oracle of `pllvm fuzz` (`fuzz/src/oracles/lockstep.rs`) on the case. A
/// lock-step run that does not return fails here too: lane-local programs
/// return.
fn check(seed: u64, width: usize, input_seed: u64) -> Result<(), String> {
    let program = generate(seed, &GenConfig::lane_local());
    let columns = program
        .inputs(input_seed, width)
        .into_iter()
        .map(|(_, column)| column)
        .collect();
    let case = Case {
        program,
        columns,
        width,
        seed,
    };
    match LockStep.check(&case) {
        Verdict::Pass => Ok(()),
        Verdict::Skip(why) => Err(format!("W = {width}: {why}")),
        Verdict::Fail(f) => Err(format!("{}: {}", f.kind, f.detail)),
    }
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
