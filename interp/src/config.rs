//! Run inputs: W, the interpretation, strict mode, arguments (uniform or per lane),
//! initial memory, limits, and an optional runtime schedule, from the command line
//! or from a JSON file (serde).
//!
//! JSON form (every field optional):
//! ```json
//! { "threads": 4, "interp": "fr", "strict": false, "exec": "fast",
//!   "args": { "x": [0, 1, 2, 3], "n": 5, "p": "@buf+8" },
//!   "memory": { "@buf": [1, 2, 3, 4] },
//!   "buffers": { "out": "i32[4]", "in": { "type": "f32", "values": [1, 2] } },
//!   "schedule": ["A", "B", "C"],
//!   "max_steps": 1000000, "memory_limit": 1073741824 }
//! ```
//! A scalar is an integer (JSON number or decimal string, negative allowed), a float,
//! `true`/`false`, `"undef"` / `"⊤"`, `"null"`, or `"@global[+offset]"` for a pointer
//! into a global. An array under `args` gives one value per lane (exactly W), and
//! so does a range `"A..B"` (B excluded) or `"A..=B"` (B included). Buffers are
//! described in [`crate::buffers`].

use num_bigint::{BigInt, Sign};
use pllvm_semantics::rules::{Exec, Interp};
use serde::Deserialize;
use std::collections::BTreeMap;

/// One written scalar, not yet typed.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    /// A JSON boolean.
    Bool(bool),
    /// A JSON integer that fits `i64`.
    Int(i64),
    /// A JSON integer above `i64::MAX` that fits `u64`.
    UInt(u64),
    /// A JSON float.
    Float(f64),
    /// Anything else as text (big integers, `undef`, `@g+8`, `nan`).
    Text(String),
}

impl Scalar {
    /// Parses one scalar from command-line text.
    pub fn from_text(text: &str) -> Scalar {
        let t = text.trim();
        if let Ok(i) = t.parse::<i64>() {
            Scalar::Int(i)
        } else if let Ok(u) = t.parse::<u64>() {
            Scalar::UInt(u)
        } else if t.parse::<num_bigint::BigInt>().is_ok() {
            Scalar::Text(t.to_string())
        } else if t == "true" || t == "false" {
            Scalar::Bool(t == "true")
        } else if let Ok(f) = t.parse::<f64>().map_err(|_| ()).and_then(|f| {
            if t.chars().any(|c| c.is_ascii_digit()) {
                Ok(f)
            } else {
                Err(())
            }
        }) {
            Scalar::Float(f)
        } else {
            Scalar::Text(t.to_string())
        }
    }
}

impl Scalar {
    /// `undef`, `⊤` or `poison`: no value (⊤ in a lane, uninitialized bytes in
    /// memory).
    pub fn is_undef(&self) -> bool {
        matches!(self, Scalar::Text(t) if matches!(t.as_str(), "undef" | "⊤" | "poison"))
    }

    /// The integer written: a JSON integer, decimal or hex text ([`integer_text`]),
    /// `true`/`false` as 1/0. A float is an error.
    pub fn integer(&self) -> Result<BigInt, String> {
        match self {
            Scalar::Bool(b) => Ok(BigInt::from(u8::from(*b))),
            Scalar::Int(i) => Ok(BigInt::from(*i)),
            Scalar::UInt(u) => Ok(BigInt::from(*u)),
            Scalar::Float(f) => Err(format!("{f} is not an integer")),
            Scalar::Text(t) => integer_text(t)
                .ok_or_else(|| format!("'{t}' is not an integer (decimal, or hex as 0x1f)")),
        }
    }

    /// The float written (an integer converted). A boolean is an error.
    pub fn float(&self) -> Result<f64, String> {
        match self {
            Scalar::Int(i) => Ok(*i as f64),
            Scalar::UInt(u) => Ok(*u as f64),
            Scalar::Float(f) => Ok(*f),
            Scalar::Bool(_) => Err("a boolean is not a float".into()),
            Scalar::Text(t) => t
                .parse::<f64>()
                .map_err(|_| format!("'{t}' is not a float")),
        }
    }
}

/// An integer written as decimal or as hex (`0x1f`, `-0x1f`), of any size.
pub fn integer_text(text: &str) -> Option<BigInt> {
    let t = text.trim();
    let (negative, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => BigInt::parse_bytes(hex.as_bytes(), 16)?,
        None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            BigInt::parse_bytes(digits.as_bytes(), 10)?
        }
        None => return None,
    };
    if magnitude.sign() == Sign::Minus {
        return None;
    }
    Some(if negative { -magnitude } else { magnitude })
}

/// An argument: one value for every lane, or one per lane.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum ArgValue {
    /// One value per lane.
    PerLane(Vec<Scalar>),
    /// The same value in every lane (a uniform argument).
    Uniform(Scalar),
}

impl ArgValue {
    /// The values of a range `A..B` (B excluded) or `A..=B` (B included), one per
    /// lane (or, in a launch, one per thread): `None` when the argument is no
    /// range. Integers only, at most [`MAX_RANGE`] values.
    pub fn range_values(&self) -> Option<Result<Vec<Scalar>, String>> {
        let ArgValue::Uniform(Scalar::Text(t)) = self else {
            return None;
        };
        let (start, end, inclusive) = match t.split_once("..=") {
            Some((a, b)) => (a, b, true),
            None => {
                let (a, b) = t.split_once("..")?;
                (a, b, false)
            }
        };
        let bound = |x: &str| {
            x.trim()
                .parse::<i64>()
                .map_err(|_| format!("bad range '{t}': '{x}' is not an integer"))
        };
        Some((|| {
            let (a, b) = (bound(start)?, bound(end)?);
            let b = if inclusive { b.checked_add(1) } else { Some(b) }
                .ok_or_else(|| format!("bad range '{t}': too large"))?;
            let count = i128::from(b) - i128::from(a);
            if count <= 0 {
                return Err(format!("the range '{t}' is empty"));
            }
            if count > MAX_RANGE as i128 {
                return Err(format!(
                    "the range '{t}' has {count} values, more than {MAX_RANGE}"
                ));
            }
            Ok((a..b).map(Scalar::Int).collect())
        })())
    }
}

/// The most values a range argument (`--arg tid=0..1024`) gives: 2^24 threads.
pub const MAX_RANGE: usize = 1 << 24;

/// The widest thread array pllvm runs: W ≤ 4096 (Def. 2 allows any W ≥ 1).
///
/// A lane costs host memory in every column of the environment and in every
/// snapshot and trace row, about 100 bytes per value and per row at the least, so
/// a W of 10⁸ asked for tens of gigabytes before the first step. 4096 is far above
/// the widths SPMD targets use (a warp of 32, a wavefront of 64, a 1024-thread
/// work-group) and keeps a program of ten thousand values within a few gigabytes.
pub const MAX_WIDTH: usize = 4096;

/// Parses W, the number of lanes (Def. 2): an integer from 1 to [`MAX_WIDTH`].
/// The one check of W that `--threads`, the REPL's `set threads`, `--input` JSON
/// and `; run:` lines share.
pub fn parse_width(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let w: u128 = t
        .parse()
        .map_err(|_| format!("'{t}' is not a number of lanes (1 to {MAX_WIDTH})"))?;
    check_width(w)
}

/// Checks that `w` lanes are at least one (Def. 2) and at most [`MAX_WIDTH`].
pub fn check_width(w: u128) -> Result<usize, String> {
    match usize::try_from(w) {
        Ok(0) => Err(format!(
            "a thread array needs at least one lane (W ≥ 1, Def. 2; at most {MAX_WIDTH})"
        )),
        Ok(w) if w <= MAX_WIDTH => Ok(w),
        _ => Err(format!(
            "W = {w} lanes is more than pllvm runs (at most {MAX_WIDTH})"
        )),
    }
}

/// Everything a run needs besides the program.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// W (Def. 2), from 1 to [`MAX_WIDTH`].
    #[serde(deserialize_with = "de_width")]
    pub threads: usize,
    /// FR or OBL (§4.5), as `"fr"` / `"obl"`.
    #[serde(deserialize_with = "de_interp")]
    pub interp: Interp,
    /// Track definition masks and report uses they do not cover (Def. 10-11).
    pub strict: bool,
    /// Function arguments by parameter name (without `%`) or position (`"0"`).
    pub args: BTreeMap<String, ArgValue>,
    /// Initial contents of globals (`"@g"` or `"g"`), as elements of the global's type.
    pub memory: BTreeMap<String, Vec<Scalar>>,
    /// A runtime schedule (Def. 5) of block names.
    pub schedule: Option<Vec<String>>,
    /// The function to run (default: the first definition).
    pub function: Option<String>,
    /// Most blocks scheduled before the run ends with `out of fuel`.
    pub max_steps: u64,
    /// Most bytes of guest memory live at once (`--memory-limit`, JSON
    /// `memory_limit`); an allocation beyond it ends the run with
    /// [`crate::Outcome::Limit`].
    pub memory_limit: u64,
    /// Whether the dynamic divergence observer watches the run (it tracks
    /// definition masks, Def. 10, to know which lanes define each value).
    pub observe: bool,
    /// How the rules are executed: `"reference"` (lane by lane, the definition)
    /// or `"fast"` (their fast forms, `semantics::fast`; the default). Both give
    /// the same run.
    #[serde(deserialize_with = "de_exec")]
    pub exec: Exec,
    /// Buffers bound to pointer parameters by name or position (`--buffer`,
    /// [`crate::buffers`]).
    pub buffers: BTreeMap<String, BufferSpec>,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            threads: 2,
            interp: Interp::Freezing,
            strict: false,
            args: BTreeMap::new(),
            memory: BTreeMap::new(),
            schedule: None,
            function: None,
            max_steps: 1_000_000,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            observe: true,
            exec: Exec::Fast,
            buffers: BTreeMap::new(),
        }
    }
}

fn de_width<'de, D: serde::Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    let w = u128::deserialize(d)?;
    check_width(w).map_err(serde::de::Error::custom)
}

fn de_interp<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Interp, D::Error> {
    let s = String::deserialize(d)?;
    parse_interp(&s).map_err(serde::de::Error::custom)
}

fn de_exec<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Exec, D::Error> {
    let s = String::deserialize(d)?;
    parse_exec(&s).map_err(serde::de::Error::custom)
}

/// `reference` / `fast` (any case), as `--exec` and JSON `exec` take it.
pub fn parse_exec(s: &str) -> Result<Exec, String> {
    Exec::parse(s)
}

/// `fr` / `obl` (any case, also `freezing` / `oblivious`).
pub fn parse_interp(s: &str) -> Result<Interp, String> {
    match s.to_ascii_lowercase().as_str() {
        "fr" | "freezing" => Ok(Interp::Freezing),
        "obl" | "oblivious" => Ok(Interp::Oblivious),
        other => Err(format!(
            "unknown interpretation '{other}' (expected fr or obl)"
        )),
    }
}

/// The default of [`RunConfig::memory_limit`]: 1 GiB of live guest memory.
pub const DEFAULT_MEMORY_LIMIT: u64 = 1 << 30;

/// A byte count as `--memory-limit` takes it: a decimal integer with an optional
/// binary suffix `K`, `M`, `G` or `T` (any case, with or without `iB`/`B`), so
/// `64M` is 64 × 2^20 bytes and `1G` the default.
pub fn parse_byte_size(text: &str) -> Result<u64, String> {
    let bad = || format!("'{text}' is not a byte count (an integer, optionally with K, M, G or T)");
    let lower = text.trim().to_ascii_lowercase();
    let (digits, shift) = match lower.find(|c: char| !c.is_ascii_digit()) {
        None => (lower.as_str(), 0),
        Some(i) => {
            let shift = match &lower[i..] {
                "b" => 0,
                "k" | "kb" | "kib" => 10,
                "m" | "mb" | "mib" => 20,
                "g" | "gb" | "gib" => 30,
                "t" | "tb" | "tib" => 40,
                _ => return Err(bad()),
            };
            (&lower[..i], shift)
        }
    };
    if digits.is_empty() {
        return Err(bad());
    }
    let n: u64 = digits.parse().map_err(|_| bad())?;
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("'{text}' is more bytes than 2^64"))
}

impl RunConfig {
    /// Reads a JSON configuration.
    pub fn from_json(text: &str) -> Result<RunConfig, String> {
        serde_json::from_str(text).map_err(|e| format!("bad run input: {e}"))
    }

    /// Adds `name=v` (uniform) or `name=v0,v1,...` (per lane) from the command line.
    pub fn add_arg(&mut self, spec: &str) -> Result<(), String> {
        let (name, values) = spec
            .split_once('=')
            .ok_or_else(|| format!("bad --arg '{spec}': expected NAME=VALUE or NAME=V0,V1,..."))?;
        let name = name.trim().trim_start_matches('%').to_string();
        if name.is_empty() {
            return Err(format!("bad --arg '{spec}': empty name"));
        }
        let values = values.trim().trim_start_matches('[').trim_end_matches(']');
        let parts: Vec<Scalar> = values.split(',').map(Scalar::from_text).collect();
        let value = if parts.len() == 1 {
            ArgValue::Uniform(parts.into_iter().next().unwrap_or(Scalar::Int(0)))
        } else {
            ArgValue::PerLane(parts)
        };
        self.args.insert(name, value);
        Ok(())
    }

    /// Adds `@g=v0,v1,...` initial memory from the command line.
    pub fn add_memory(&mut self, spec: &str) -> Result<(), String> {
        let (name, values) = spec
            .split_once('=')
            .ok_or_else(|| format!("bad --mem '{spec}': expected @GLOBAL=V0,V1,..."))?;
        let name = name.trim().trim_start_matches('@').to_string();
        let values = values.trim().trim_start_matches('[').trim_end_matches(']');
        let parts = if values.is_empty() {
            Vec::new()
        } else {
            values.split(',').map(Scalar::from_text).collect()
        };
        self.memory.insert(name, parts);
        Ok(())
    }

    /// Adds `NAME=TYPE[LEN]`, `NAME=TYPE:FILE` or `NAME=TYPE[LEN]:FILE` from the
    /// command line (see [`crate::buffers`]); a name given twice is an error.
    pub fn add_buffer(&mut self, spec: &str) -> Result<(), String> {
        let (name, shape) = spec.split_once('=').ok_or_else(|| {
            format!("bad --buffer '{spec}': expected NAME=TYPE[LEN] or NAME=TYPE:FILE")
        })?;
        let name = name.trim().trim_start_matches('%').to_string();
        if name.is_empty() {
            return Err(format!("bad --buffer '{spec}': empty name"));
        }
        let buffer = BufferSpec::parse(shape).map_err(|e| format!("bad --buffer {name}: {e}"))?;
        if self.buffers.insert(name.clone(), buffer).is_some() {
            return Err(format!("--buffer {name}: this buffer is already given"));
        }
        Ok(())
    }

    /// Sets the schedule from `A,B,C` (spaces allowed).
    pub fn set_schedule(&mut self, spec: &str) {
        self.schedule = Some(
            spec.split([',', ' '])
                .map(|s| s.trim().trim_start_matches('%').to_string())
                .filter(|s| !s.is_empty())
                .collect(),
        );
    }
}

// ----- buffers: the data of the run input (their parsing, binding and dumping
// live in `crate::buffers`) -----

/// The element type of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    /// `iN`, stored in ⌈N/8⌉ little-endian bytes (LangRef's store size).
    Int(u32),
    /// `float`.
    F32,
    /// `double`.
    F64,
}

/// Where a buffer's initial contents come from.
#[derive(Clone, Debug, PartialEq)]
pub enum BufferInit {
    /// Zeros.
    Zero,
    /// The first elements (the rest zero).
    Values(Vec<Scalar>),
    /// A file of raw little-endian elements, not yet read (the front end reads it:
    /// `BufferSpec::resolve_file`).
    File(String),
    /// Raw little-endian bytes (a file the front end has read).
    Bytes(Vec<u8>),
}

/// One buffer of the run input.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferSpec {
    /// The element type.
    pub elem: ElemType,
    /// The length in elements (`None`: from the contents).
    pub len: Option<u64>,
    /// The initial contents.
    pub init: BufferInit,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes_take_binary_suffixes() {
        let got: Vec<String> = ["4096", "64M", "1G", "1g", "2KiB", "3kb", "1T", "0"]
            .iter()
            .map(|t| parse_byte_size(t).map_or_else(|e| e, |n| n.to_string()))
            .collect();
        assert_eq!(
            got,
            [
                "4096",
                "67108864",
                "1073741824",
                "1073741824",
                "2048",
                "3072",
                "1099511627776",
                "0"
            ]
        );
        for bad in ["", "M", "-1", "1.5G", "1X", "1 G G", "0x10"] {
            assert!(parse_byte_size(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_byte_size("99999999999T").unwrap_err(),
            "'99999999999T' is more bytes than 2^64"
        );
    }

    #[test]
    fn json_and_cli_agree() {
        let json = RunConfig::from_json(
            r#"{"threads": 2, "interp": "obl", "args": {"x": [0, 1], "n": 5}, "schedule": ["A", "B"]}"#,
        )
        .unwrap();
        let mut cli = RunConfig {
            threads: 2,
            interp: Interp::Oblivious,
            ..RunConfig::default()
        };
        cli.add_arg("x=0,1").unwrap();
        cli.add_arg("%n=5").unwrap();
        cli.set_schedule("A, B");
        assert_eq!(json, cli);
    }

    #[test]
    fn bad_inputs_are_errors() {
        assert!(RunConfig::from_json(r#"{"interp": "sideways"}"#).is_err());
        assert!(RunConfig::from_json(r#"{"bogus": 1}"#).is_err());
        assert!(RunConfig::default().add_arg("novalue").is_err());
        assert!(RunConfig::default().add_memory("nothing").is_err());
    }

    #[test]
    fn widths_are_bounded_in_one_place() {
        assert_eq!(parse_width("1"), Ok(1));
        assert_eq!(parse_width(" 64 "), Ok(64));
        assert_eq!(parse_width(&MAX_WIDTH.to_string()), Ok(MAX_WIDTH));
        for bad in [
            "0",
            "4097",
            "100000000",
            "18446744073709551615",
            "-1",
            "x",
            "",
        ] {
            assert!(parse_width(bad).is_err(), "{bad}");
        }
        let json = |w: &str| RunConfig::from_json(&format!(r#"{{"threads": {w}}}"#));
        assert_eq!(json("4096").map(|c| c.threads), Ok(4096));
        let err = json("18446744073709551615").expect_err("too wide");
        assert!(err.contains("at most 4096"), "{err}");
        assert!(json("0").is_err());
        assert!(json("-3").is_err());
    }
}
