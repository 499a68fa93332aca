//! What every oracle is and says: the [`Oracle`] trait, the [`Verdict`] it gives
//! on a case (a pass, a skip or a [`Failure`]), the [`Host`] it may need, and
//! [`guarded`], which turns a panic into a failure. The oracles themselves are the
//! sibling modules; the parent lists them.

use super::case::Case;
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
    /// Probes this machine: the tools on `PATH` (the CPU's features are
    /// `Target::host_cannot_run`'s).
    pub fn probe() -> Host {
        Host {
            opt22: runs("opt-22"),
            opt19: runs("opt-19"),
            llc19: runs("llc-19"),
            gcc: runs("gcc"),
            aarch64: runs("aarch64-linux-gnu-gcc") && runs("qemu-aarch64"),
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
    /// Whether a campaign that names no oracle runs this one (the per-pipeline
    /// variants of `llvm-transforms` run only when named: the oracle of all
    /// pipelines covers them).
    fn in_default_campaign(&self) -> bool {
        true
    }
    /// Lines a finding's header adds for people, beyond what every finding
    /// says (the `llvm-transforms` oracle: the commands that reproduce it with
    /// opt-22 and a report for LLVM's tracker); `file` is the finding's path.
    fn report(&self, _case: &Case, _failure: &Failure, _file: &str) -> Vec<String> {
        Vec::new()
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
