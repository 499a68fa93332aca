//! The shrinker of `pllvm fuzz` (`pllvm_fuzz::shrink`, docs/fuzzing.md) on its own,
//! with oracles made up for the test: it keeps the oracle failing with the same
//! kind, never grows a case, and reaches the small cases delta debugging owes.

use pllvm_fuzz::GenConfig;
use pllvm_fuzz::oracles::{Case, Host, Oracle, Verdict};
use pllvm_fuzz::shrink::shrink;
use pllvm_semantics::ir::InstKind;
use std::time::Duration;

/// Fails (kind `has a multiplication`) on a program with a `mul` command.
struct HasMul;

impl Oracle for HasMul {
    fn name(&self) -> &'static str {
        "has-mul"
    }
    fn available(&self, _: &Host) -> Result<(), String> {
        Ok(())
    }
    fn gen_config(&self) -> GenConfig {
        GenConfig::full()
    }
    fn check(&self, case: &Case) -> Verdict {
        let body = case.module().functions[case.func()].body.as_ref().unwrap();
        let mul = body.layout.iter().any(|&b| {
            body.blocks[b].body.iter().any(|&i| {
                matches!(
                    body.insts[i].kind,
                    InstKind::Binary {
                        op: pllvm_semantics::ir::BinOp::Mul,
                        ..
                    }
                )
            })
        });
        if mul {
            Verdict::fail("has a multiplication", "a mul")
        } else {
            Verdict::Pass
        }
    }
}

/// Fails (kind `wide`) on a case of at least 3 lanes, and (kind `other`) on
/// cases of 2 lanes, which the shrinker must not take for the same failure.
struct Wide;

impl Oracle for Wide {
    fn name(&self) -> &'static str {
        "wide"
    }
    fn available(&self, _: &Host) -> Result<(), String> {
        Ok(())
    }
    fn gen_config(&self) -> GenConfig {
        GenConfig::small()
    }
    fn width(&self, _: u64) -> usize {
        8
    }
    fn check(&self, case: &Case) -> Verdict {
        match case.width {
            0..=1 => Verdict::Pass,
            2 => Verdict::fail("other", "two lanes"),
            _ => Verdict::fail("wide", "three lanes or more"),
        }
    }
}

#[test]
fn a_multiplication_shrinks_to_a_handful_of_instructions() {
    let mut shrunk = 0;
    for seed in 0..40u64 {
        let case = HasMul.case(seed);
        let Verdict::Fail(f) = HasMul.check(&case) else {
            continue;
        };
        let (small, failure, stats) = shrink(&case, &HasMul, &f.kind, Duration::from_secs(60));
        assert_eq!(
            HasMul.check(&small).failure().map(|f| f.kind.clone()),
            Some(f.kind.clone()),
            "seed {seed}: the shrunk case no longer fails the same way"
        );
        assert!(failure.is_some() || stats.accepted == 0);
        assert!(small.instructions() <= case.instructions());
        assert!(small.blocks() <= case.blocks());
        // A mul needs at most its own operands: one command, maybe two.
        assert!(
            small.instructions() <= 3 && small.blocks() <= 2,
            "seed {seed}: {} left:\n{}",
            small.size_text(),
            pllvm_semantics::text::print_module(small.module())
        );
        shrunk += 1;
        if shrunk == 5 {
            break;
        }
    }
    assert!(shrunk >= 3, "only {shrunk} programs had a mul");
}

#[test]
fn the_lanes_shrink_to_the_smallest_width_that_fails_the_same_way() {
    let case = Wide.case(7);
    let (small, _, _) = shrink(&case, &Wide, "wide", Duration::from_secs(60));
    assert_eq!(small.width, 3, "two lanes fail another way, one passes");
    assert!(small.columns.iter().all(|c| c.len() == 3));
}

#[test]
fn a_passing_case_is_left_alone() {
    let case = Wide.case(3);
    let small_case = Case {
        width: 1,
        columns: case.columns.iter().map(|c| c[..1].to_vec()).collect(),
        ..case
    };
    let (out, failure, stats) = shrink(&small_case, &Wide, "wide", Duration::from_secs(5));
    assert_eq!(out, small_case);
    assert!(failure.is_none());
    assert_eq!(stats.accepted, 0);
}
