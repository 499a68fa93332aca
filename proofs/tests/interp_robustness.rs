//! Nothing a program can do panics the interpreter, and no verified program gets
//! stuck (docs/design/style.md §5: "no rule applies" is never a program outcome).
//!
//! Runtime schedules are any block lists (thesis Def. 5), so this property runs
//! generated programs (every feature, reducible and irreducible) under arbitrary
//! random schedules, FR and OBL, with and without strict mode (Def. 10-11), for
//! W = 1..6, and also with the built-in schedule to the end. Every run must end
//! in an outcome: returned, incomplete, undefined behaviour naming its rule, a
//! limit, or out of fuel. `PLLVM_ROBUST_CASES` raises the case count by hand.

use pllvm_fuzz::{GenConfig, InputScalar, generate};
use pllvm_interp::config::{ArgValue, Scalar};
use pllvm_interp::{Machine, RunConfig};
use pllvm_semantics::rules::Interp;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PLLVM_ROBUST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn every_run_ends_in_an_outcome(
        seed in any::<u64>(),
        irreducible in any::<bool>(),
        width in 1usize..=6,
        oblivious in any::<bool>(),
        strict in any::<bool>(),
        schedule in proptest::collection::vec(any::<u16>(), 0..80),
        to_end in any::<bool>(),
    ) {
        let cfg = GenConfig { irreducible, ..GenConfig::full() };
        let g = generate(seed, &cfg);
        let mut config = RunConfig {
            threads: width,
            interp: if oblivious { Interp::Oblivious } else { Interp::Freezing },
            strict,
            max_steps: 2_000,
            memory_limit: 1 << 24,
            ..RunConfig::default()
        };
        for (name, values) in g.inputs(seed, width) {
            config.args.insert(name, ArgValue::PerLane(values.iter().map(InputScalar::to_scalar).collect()));
        }
        for (name, values) in &g.globals {
            config.memory.insert(name.clone(), values.iter().map(|v| Scalar::Int(*v)).collect());
        }
        let mut machine = Machine::new(&g.module, &config)
            .map_err(|e| TestCaseError::fail(format!("setup of seed {seed}: {e}")))?;
        let layout = machine.program.body.layout.clone();
        let result = if to_end {
            machine.run_to_end()
        } else {
            let names: Vec<String> = schedule
                .iter()
                .map(|k| machine.program.body.blocks[layout[*k as usize % layout.len()]].name.clone())
                .collect();
            machine.run_schedule(&names)
        };
        prop_assert!(result.is_ok(), "seed {seed} W {width}: {:?}", result.err());
    }
}
