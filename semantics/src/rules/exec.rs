//! Reference and fast execution: [`Exec`], which a run chooses (the interpreter
//! carries it in its configuration and passes it to every step). The hooks that
//! act on it are in [`crate::rules::hooks`]; this module imports nothing, so every
//! rule can name [`Exec`] without importing the fast path.

use std::fmt;

/// How a run executes the rules: lane by lane as the thesis states them, or
/// through the fast forms of [`crate::fast`]. Both give the same runs (the
/// property `proofs/tests/whole_run_equivalence.rs`); `Fast` is the default.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Exec {
    /// Every rule lane by lane, on [`crate::value::Val`]s: the definition.
    Reference,
    /// The fast forms, on stored columns and the machine's scratch buffers.
    #[default]
    Fast,
}

impl Exec {
    /// `reference` or `fast`, as `--exec` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Exec::Reference => "reference",
            Exec::Fast => "fast",
        }
    }

    /// Parses `reference` / `fast` (any case; also `ref`).
    pub fn parse(text: &str) -> Result<Exec, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "reference" | "ref" => Ok(Exec::Reference),
            "fast" => Ok(Exec::Fast),
            other => Err(format!(
                "unknown execution '{other}' (expected reference or fast)"
            )),
        }
    }
}

impl fmt::Display for Exec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
