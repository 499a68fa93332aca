//! Fuzzing oracles (docs/fuzzing.md): each property test of `proofs/tests/` as a named
//! check of one [`Case`] (a program, its inputs and its width), for `pllvm fuzz`.
//!
//! An [`Oracle`] says which generator configuration its programs come from
//! ([`Oracle::gen_config`]), whether this machine can run it
//! ([`Oracle::available`]), and checks a case ([`Oracle::check`], or a batch of
//! cases at once, [`Oracle::check_batch`], which the native oracles use to build
//! one binary for many programs). A [`Verdict`] is a pass, a skip (the case
//! says nothing, e.g. the original run has undefined behaviour), or a
//! [`Failure`] with a short `kind` (what failed, without program-specific
//! names: the shrinker keeps a candidate only if the same kind still fails, and
//! `pllvm fuzz` groups findings by it) and a detail text.
//!
//! The oracles, one module each: `roundtrip` (print, parse, print, export),
//! `verify` (the generator's contract: well-formed, and its FR run returns),
//! `lockstep` (FR lock step against each lane alone), `schedules` (greedy
//! schedules of loop-free programs agree), `exec` (reference against fast
//! execution), `analyses` (thesis, popl, llvm, sa against execution), `llvm`
//! (opt-22's and opt-19's `print<uniformity>` against execution), `transforms`
//! (stage-wise equivalence), `native` (`avx2`, `avx512`, `neon`, `scalar-c`
//! against the interpreter) and `external` (a user's command, `--oracle-cmd`).

pub mod analyses;
pub mod case;
pub mod exec;
pub mod external;
pub mod llvm;
pub mod lockstep;
pub mod native;
pub mod roundtrip;
pub mod schedules;
pub mod transforms;
pub mod verify;

pub use case::Case;

use crate::GenConfig;
use std::process::{Command, Stdio};

/// What one check of one case concluded.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The property holds on the case.
    Pass,
    /// The case says nothing about the property (why).
    Skip(String),
    /// The property fails.
    Fail(Failure),
}

impl Verdict {
    /// A failure of `kind` with `detail`.
    pub fn fail(kind: impl Into<String>, detail: impl Into<String>) -> Verdict {
        Verdict::Fail(Failure {
            kind: kind.into(),
            detail: detail.into(),
        })
    }

    /// The failure, if the verdict is one.
    pub fn failure(&self) -> Option<&Failure> {
        match self {
            Verdict::Fail(f) => Some(f),
            _ => None,
        }
    }
}

/// A failed check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What failed, without names of the program (`thesis unsound value`,
    /// `fast differs: results`): the shrinker keeps a candidate only when the
    /// same kind still fails, and findings are grouped by it.
    pub kind: String,
    /// What exactly failed on this case.
    pub detail: String,
}

/// What this machine has, as far as the oracles care.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Host {
    /// `opt-22` runs.
    pub opt22: bool,
    /// `opt-19` runs.
    pub opt19: bool,
    /// `llc-19` runs.
    pub llc19: bool,
    /// `gcc` runs.
    pub gcc: bool,
    /// `aarch64-linux-gnu-gcc` and `qemu-aarch64` run.
    pub aarch64: bool,
    /// The CPU has AVX2 (`/proc/cpuinfo`).
    pub avx2: bool,
    /// The CPU has AVX-512F.
    pub avx512: bool,
}

/// Whether `tool --version` runs and succeeds.
fn runs(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl Host {
    /// Probes this machine: the tools on `PATH`, the CPU's flags.
    pub fn probe() -> Host {
        let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let flag = |f: &str| cpu.split_whitespace().any(|w| w == f);
        Host {
            opt22: runs("opt-22"),
            opt19: runs("opt-19"),
            llc19: runs("llc-19"),
            gcc: runs("gcc"),
            aarch64: runs("aarch64-linux-gnu-gcc") && runs("qemu-aarch64"),
            avx2: flag("avx2"),
            avx512: flag("avx512f"),
        }
    }

    /// [`Host::probe`] once per process.
    pub fn cached() -> Host {
        static HOST: std::sync::OnceLock<Host> = std::sync::OnceLock::new();
        HOST.get_or_init(Host::probe).clone()
    }
}

/// One named property over generated programs.
pub trait Oracle: Send + Sync {
    /// The name `--oracle` takes.
    fn name(&self) -> &'static str;
    /// `Ok` when this machine can run the oracle, else why not.
    fn available(&self, host: &Host) -> Result<(), String>;
    /// The generator configuration of the oracle's programs.
    fn gen_config(&self) -> GenConfig;
    /// The number of lanes (threads) of the case of program `seed`.
    fn width(&self, seed: u64) -> usize {
        2 + (seed % 3) as usize
    }
    /// Whether a shrink candidate must pass the verifier before it is tried
    /// (every oracle but `verify`, which is about the verifier).
    fn needs_verified(&self) -> bool {
        true
    }
    /// Checks one case.
    fn check(&self, case: &Case) -> Verdict;
    /// Checks several cases (by default one by one; the native oracles build
    /// one binary for the batch).
    fn check_batch(&self, cases: &[Case]) -> Vec<Verdict> {
        cases.iter().map(|c| self.check(c)).collect()
    }
    /// The case of program `seed` for this oracle: the generator's program
    /// under [`Oracle::gen_config`], [`Oracle::width`] lanes, inputs drawn from
    /// the seed.
    fn case(&self, seed: u64) -> Case {
        Case::generate(seed, &self.gen_config(), self.width(seed))
    }
}

/// Every built-in oracle, in the order `--oracle` lists them (`external` is
/// made from its command by [`external::External::new`]).
pub fn builtin() -> Vec<Box<dyn Oracle>> {
    use pllvm_codegen::native::Target;
    vec![
        Box::new(roundtrip::RoundTrip),
        Box::new(verify::Verify),
        Box::new(lockstep::LockStep),
        Box::new(schedules::Schedules),
        Box::new(exec::Exec),
        Box::new(analyses::Analyses),
        Box::new(llvm::Llvm),
        Box::new(transforms::Transforms),
        Box::new(native::Native::new(Target::Avx2)),
        Box::new(native::Native::new(Target::Avx512)),
        Box::new(native::Native::new(Target::Neon)),
        Box::new(native::Native::new(Target::ScalarC)),
    ]
}

/// The names of every oracle, `external` last.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = builtin().iter().map(|o| o.name()).collect();
    names.push(external::NAME);
    names
}

/// Runs `check` and turns a panic into a failure of kind `panic` (a panic
/// anywhere in pllvm is a bug the campaign reports).
pub fn guarded(check: impl FnOnce() -> Verdict) -> Verdict {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)) {
        Ok(v) => v,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic without a message".into());
            Verdict::fail("panic", message)
        }
    }
}
