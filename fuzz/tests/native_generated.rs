//! Generated programs diff-executed natively (docs/native.md: generated
//! programs on avx2, avx512, neon under qemu and scalar-c, at 1, W, W+3 and 100
//! threads). Each program goes through `nonneg-div,dlt,boscc,pl`, all of a target's runs are
//! one batch (one translation unit, one build, one run of the runner), and every
//! run must agree lane by lane and byte by byte with the original program under
//! FREEZING, or be skipped because the original has undefined behaviour. A
//! refusal by a transform or an emitter fails the test: every generated program
//! is valid input. Programs with horizontal builtins run at 1 and W threads only
//! (their builtins range over one chunk). The generator indexes buffers by the
//! thread id as clang does (`GenConfig::thread_indexed`), so the widened programs
//! include contiguous masked loads and stores, and each vector target's batch
//! must have some. Each vector target's batch has 40 programs, the scalar-lane C
//! batch 16 by default, 8 of each generator configuration at four thread counts
//! (gcc -O1 on one translation unit of 40 programs took over a minute, most of
//! this file's time; the transforms and the comparison are the vector batches'
//! too, and the C emitter also runs every corpus kernel in
//! `differential/tests/native_scalar_c.rs`); `PLLVM_LONG=1` runs 400 programs on
//! every target.
//!
//! A missing tool fails the test with the package to install; a CPU without
//! AVX-512 builds the AVX-512 batch and says that it could not run it.

use pllvm_codegen::native::Target;
use pllvm_fuzz::GenConfig;
use pllvm_fuzz::native::{BatchReport, diff_generated, native_config};
use std::process::Command;

fn programs(target: Target) -> u64 {
    if std::env::var_os("PLLVM_LONG").is_some() {
        400
    } else if target == Target::ScalarC {
        16
    } else {
        40
    }
}

fn require(tool: &str, package: &str) {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "{tool} is missing: the native tests need it (apt-get install {package}, or scripts/test-all.sh)"
    );
}

/// Half the programs as the generator makes them (most use horizontal
/// builtins, so they run at 1 and W threads), half without horizontal builtins
/// (every thread count, chunks with a masked tail included), in one batch each.
fn check(target: Target, first_seed: u64) -> BatchReport {
    let w = target.default_width();
    let half = programs(target) / 2;
    let lane_wise = GenConfig {
        horizontal: false,
        mask: false,
        ..native_config()
    };
    let mut report = BatchReport::default();
    for (cfg, seeds) in [
        (native_config(), first_seed..first_seed + half),
        (lane_wise, first_seed + half..first_seed + 2 * half),
    ] {
        report.absorb(
            diff_generated(seeds, &cfg, target, w, &[1, w, w + 3, 100])
                .unwrap_or_else(|e| panic!("{target}: {e}")),
        );
    }
    eprintln!(
        "{target}: {} programs ({} with contiguous accesses), {} runs: {} agree, \
         {} skipped (undefined original); prepare {:?}, build {:?}, run and compare {:?}",
        report.programs,
        report.contiguous,
        report.runs,
        report.agreed,
        report.skipped,
        report.prepare,
        report.build,
        report.run
    );
    assert!(
        report.failures.is_empty(),
        "{target}: {} failures:\n{}",
        report.failures.len(),
        report.failures.join("\n")
    );
    assert!(
        report.agreed * 2 > report.runs,
        "{target}: most runs must be compared, not skipped: {report:?}"
    );
    // The generator indexes buffers by the thread id (`thread_indexed`), so
    // some widened programs take the contiguous path of point 1.
    assert_eq!(
        report.contiguous > 0,
        target != Target::ScalarC,
        "{target}: programs with contiguous accesses: {report:?}"
    );
    report
}

#[test]
fn generated_programs_agree_as_scalar_lane_c() {
    require("gcc", "gcc");
    check(Target::ScalarC, 1_000);
}

#[test]
fn generated_programs_agree_widened_for_avx2() {
    require("llc-19", "llvm-19");
    require("gcc", "gcc");
    check(Target::Avx2, 2_000);
}

#[test]
fn generated_programs_agree_widened_for_avx512() {
    require("llc-19", "llvm-19");
    require("gcc", "gcc");
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    if !cpu.contains("avx512f") {
        eprintln!(
            "this CPU has no AVX-512 (no avx512f in /proc/cpuinfo): the AVX-512 batch cannot run here"
        );
        return;
    }
    check(Target::Avx512, 3_000);
}

#[test]
fn generated_programs_agree_widened_for_neon_under_qemu() {
    require("llc-19", "llvm-19");
    require("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu");
    require("qemu-aarch64", "qemu-user");
    check(Target::Neon, 4_000);
}
