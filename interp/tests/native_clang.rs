//! Differential test against real LLVM: each kernel in `tests/native/*.ll` is
//! compiled by clang-19 with a C driver and run natively, one call per input, and
//! run by pllvm under FREEZING with one lane per input. Every lane pllvm computes
//! as defined must equal the native result; lanes pllvm computes as ⊤ (LLVM
//! poison: an overflowing `nsw`, a shift past the width, an out-of-range `fptosi`)
//! hold an arbitrary native value and are not compared, but each kernel must have
//! most of its lanes compared, so the test cannot pass vacuously.
//!
//! This is the oracle "lock step is transparent" of docs/design/overview.md
//! "Oracles: what checks what": an FR run of a
//! program without horizontal operations computes, in every lane, what the program
//! computes alone (here: what the native code computes for that input).

use pllvm_interp::config::{ArgValue, Scalar};
use pllvm_interp::{Machine, Outcome, RunConfig};
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::parse_module;
use pllvm_semantics::value::Val;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Inputs: integer corner cases, and bit patterns of interesting doubles.
fn inputs() -> Vec<(i64, i64)> {
    let d = |x: f64| x.to_bits() as i64;
    vec![
        (0, 0),
        (1, 1),
        (-1, 1),
        (i64::MIN, -1),
        (i64::MAX, 2),
        (7, -3),
        (-7, 3),
        (123_456_789, 987_654_321),
        (0x7fff_ffff, 0x7fff_ffff),
        (0x8000_0000, 5),
        (65_535, 64),
        (1 << 40, 63),
        (-(1 << 33), 17),
        (d(1.5), d(-2.25)),
        (d(-0.0), d(0.0)),
        (d(f64::NAN), d(1.0)),
        (d(f64::INFINITY), d(f64::NEG_INFINITY)),
        (d(3.0e9), d(-3.0e9)),
        (d(1.0e300), d(1.0e-300)),
        (d(65_535.9), d(-1.0)),
        (d(2.5), d(2.5)),
        (d(-1.0e10), 12_345),
        (977, 255),
        (31, 1 << 62),
    ]
}

fn clang() -> &'static str {
    if Command::new("clang-19").arg("--version").output().is_err() {
        panic!(
            "clang-19 not found: this differential test needs it \
             (apt-get install clang-19; scripts/test-all.sh installs it)"
        );
    }
    "clang-19"
}

fn native_results(kernel: &Path, inputs: &[(i64, i64)]) -> Vec<i64> {
    let dir = std::env::temp_dir().join(format!(
        "pllvm-native-{}-{}",
        std::process::id(),
        kernel.file_stem().unwrap_or_default().to_string_lossy()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let pairs: Vec<String> = inputs
        .iter()
        .map(|(a, b)| format!("{{(long long){a}LL - 0, (long long){b}LL - 0}}"))
        .collect();
    let driver = format!(
        "#include <stdio.h>\nlong long kernel(long long, long long);\n\
         static const long long in[][2] = {{{}}};\n\
         int main(void) {{ for (unsigned i = 0; i < sizeof in / sizeof in[0]; i++) \
         printf(\"%lld\\n\", kernel(in[i][0], in[i][1])); return 0; }}\n",
        pairs
            .join(",")
            .replace("-9223372036854775808LL", "(-9223372036854775807LL - 1)")
    );
    let c = dir.join("driver.c");
    std::fs::write(&c, driver).expect("write driver");
    let exe = dir.join("kernel");
    let out = Command::new(clang())
        .args(["-O0", "-w", "-Wno-override-module", "-o"])
        .arg(&exe)
        .arg(&c)
        .arg(kernel)
        .output()
        .expect("run clang-19");
    assert!(
        out.status.success(),
        "clang-19 failed on {}:\n{}",
        kernel.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("run native kernel");
    assert!(run.status.success(), "native {} crashed", kernel.display());
    String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|l| {
            l.trim()
                .parse::<i64>()
                .expect("native output is an integer")
        })
        .collect()
}

fn pllvm_results(kernel: &Path, inputs: &[(i64, i64)]) -> Vec<Option<i64>> {
    let src = std::fs::read_to_string(kernel).expect("read kernel");
    let (module, _) = parse_module(&src).unwrap_or_else(|e| panic!("{}: {e:?}", kernel.display()));
    let mut config = RunConfig {
        threads: inputs.len(),
        interp: Interp::Freezing,
        ..RunConfig::default()
    };
    config.args.insert(
        "a".into(),
        ArgValue::PerLane(inputs.iter().map(|(a, _)| Scalar::Int(*a)).collect()),
    );
    config.args.insert(
        "b".into(),
        ArgValue::PerLane(inputs.iter().map(|(_, b)| Scalar::Int(*b)).collect()),
    );
    let mut machine = Machine::new(&module, &config).expect("setup");
    let outcome = machine.run_to_end().expect("run");
    assert_eq!(
        outcome,
        Outcome::Returned,
        "{}: {outcome}",
        kernel.display()
    );
    machine
        .results()
        .into_iter()
        .map(|r| match r {
            Some(Val::Int(bits)) => Some(bits as u64 as i64),
            _ => None,
        })
        .collect()
}

fn kernels() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/native");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/native")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    v.sort();
    v
}

#[test]
fn fr_lanes_equal_native_clang_19() {
    let kernels = kernels();
    assert!(kernels.len() >= 5, "need at least five kernels");
    let inputs = inputs();
    let mut report = Vec::new();
    for kernel in &kernels {
        let native = native_results(kernel, &inputs);
        let ours = pllvm_results(kernel, &inputs);
        assert_eq!(native.len(), ours.len());
        let mut compared = 0;
        for (lane, (n, o)) in native.iter().zip(&ours).enumerate() {
            if let Some(o) = o {
                compared += 1;
                assert_eq!(
                    o,
                    n,
                    "{} lane {lane} input {:?}: pllvm {o} native {n}",
                    kernel.display(),
                    inputs[lane]
                );
            }
        }
        assert!(
            compared * 2 >= inputs.len(),
            "{}: only {compared} of {} lanes defined",
            kernel.display(),
            inputs.len()
        );
        report.push(format!(
            "{}: {compared}/{} lanes compared",
            kernel.file_name().unwrap_or_default().to_string_lossy(),
            inputs.len()
        ));
    }
    println!("{}", report.join("\n"));
}
