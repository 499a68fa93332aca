//! `external`: a user's tool under test (`--oracle-cmd 'CMD {in} {out}'`).
//!
//! # Protocol
//! For each case, pllvm writes
//! - `{in}`: the case's module as plain LLVM IR (`pllvm export-llvm`: the
//!   P-LLVM additions lowered to `@pllvm.*` calls and metadata), the function
//!   under test being the one named in the inputs;
//! - `{inputs}` (optional placeholder): the run inputs as JSON, the format of
//!   `pllvm run --input` (`threads`, `interp`, `function`, `args` with one value
//!   per lane, `memory`),
//!
//! then runs the command through `sh -c` with the placeholders replaced by the
//! paths, and reads `{out}`, a JSON object with either or both of
//! - `"lanes"`: one entry per lane, the function's return value in that lane as
//!   `pllvm run` prints results (signed decimal for integers), a string or a
//!   number; `null` for a lane the tool does not report. Each is compared with
//!   the interpreter's FREEZING run (lanes where the interpreter has ⊤ are
//!   skipped; a run that does not return skips the case);
//! - `"uniform"`: names of values (without `%`) the tool claims uniform. A
//!   claim on a value whose lanes disagreed in the FR run is a finding.
//!
//! A command that exits with a non-zero status, or leaves no readable `{out}`,
//! fails the case (`command fails`): the tool crashed on a valid program.

use super::case::Case;
use super::oracle::{Host, Oracle, Verdict};
use crate::GenConfig;
use pllvm_interp::soundness::observe_run;
use pllvm_interp::{Machine, Outcome};
use pllvm_semantics::rules::Interp;
use serde_json::{Value as Json, json};
use std::process::Command;

/// The oracle's name.
pub const NAME: &str = "external";

/// The `external` oracle around one command.
pub struct External {
    command: String,
}

impl External {
    /// The oracle of `command` (with `{out}`, and usually `{in}` and `{inputs}`).
    pub fn new(command: &str) -> Result<External, String> {
        if !command.contains("{out}") {
            return Err(format!(
                "--oracle-cmd '{command}' must contain {{out}}, where the command writes its JSON (and usually {{in}}, the program; docs/fuzzing.md, the external protocol)"
            ));
        }
        Ok(External {
            command: command.to_string(),
        })
    }
}

/// The run inputs of `case` in `pllvm run --input` form.
fn inputs_json(case: &Case) -> Json {
    let args: serde_json::Map<String, Json> = case
        .named_columns()
        .into_iter()
        .map(|(name, column)| {
            let values: Vec<Json> = column
                .iter()
                .map(|v| match v {
                    crate::InputScalar::Int(i) => match i64::try_from(*i) {
                        Ok(s) => json!(s),
                        Err(_) => json!(i.to_string()),
                    },
                    crate::InputScalar::Float(f) => json!(f),
                })
                .collect();
            (name, Json::Array(values))
        })
        .collect();
    let memory: serde_json::Map<String, Json> = case
        .program
        .globals
        .iter()
        .map(|(n, v)| (n.clone(), json!(v)))
        .collect();
    json!({
        "threads": case.width,
        "interp": "fr",
        "function": case.module().functions[case.func()].name,
        "args": args,
        "memory": memory,
    })
}

impl Oracle for External {
    fn name(&self) -> &'static str {
        NAME
    }

    fn available(&self, _: &Host) -> Result<(), String> {
        Ok(())
    }

    fn gen_config(&self) -> GenConfig {
        GenConfig {
            horizontal: false,
            ..super::transforms::spmd_config(false)
        }
    }

    fn check(&self, case: &Case) -> Verdict {
        let dir = match tempdir() {
            Ok(d) => d,
            Err(e) => return Verdict::Skip(format!("no scratch directory: {e}")),
        };
        let input = dir.join("in.ll");
        let output = dir.join("out.json");
        let inputs = dir.join("inputs.json");
        let written = std::fs::write(&input, pllvm_semantics::text::export_llvm(case.module()))
            .and_then(|()| std::fs::write(&inputs, inputs_json(case).to_string()));
        if let Err(e) = written {
            let _ = std::fs::remove_dir_all(&dir);
            return Verdict::Skip(format!("cannot write the inputs: {e}"));
        }
        let command = self
            .command
            .replace("{in}", &input.display().to_string())
            .replace("{out}", &output.display().to_string())
            .replace("{inputs}", &inputs.display().to_string());
        let status = Command::new("sh").arg("-c").arg(&command).output();
        let verdict = match status {
            Err(e) => Verdict::fail("command fails", format!("cannot run `{command}`: {e}")),
            Ok(out) if !out.status.success() => Verdict::fail(
                "command fails",
                format!(
                    "`{command}` exited with {}: {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .take(5)
                        .collect::<Vec<_>>()
                        .join(" / ")
                ),
            ),
            Ok(_) => match std::fs::read_to_string(&output)
                .map_err(|e| e.to_string())
                .and_then(|t| serde_json::from_str::<Json>(&t).map_err(|e| e.to_string()))
            {
                Err(e) => Verdict::fail("command fails", format!("no readable {{out}}: {e}")),
                Ok(claims) => judge(case, &claims),
            },
        };
        let _ = std::fs::remove_dir_all(&dir);
        verdict
    }
}

/// A fresh scratch directory under the system's temporary directory.
fn tempdir() -> std::io::Result<std::path::PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("pllvm-fuzz-ext-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Checks the tool's claims against the interpreter.
fn judge(case: &Case, claims: &Json) -> Verdict {
    let config = case.run_config(Interp::Freezing);
    if let Some(lanes) = claims.get("lanes").and_then(Json::as_array) {
        let mut m = match Machine::new(case.module(), &config) {
            Ok(m) => m,
            Err(e) => return Verdict::Skip(format!("setup: {e}")),
        };
        match m.run_to_end() {
            Ok(Outcome::Returned) => {}
            Ok(o) => return Verdict::Skip(format!("the FR run: {o}")),
            Err(e) => return Verdict::Skip(format!("the FR run: {e}")),
        }
        for (lane, expected) in m.result_lanes().iter().enumerate() {
            let Some(expected) = expected else { continue };
            if expected == "⊤" {
                continue;
            }
            let theirs = match lanes.get(lane) {
                None | Some(Json::Null) => continue,
                Some(Json::String(s)) => s.clone(),
                Some(other) => other.to_string(),
            };
            if &theirs != expected {
                return Verdict::fail(
                    "lanes differ",
                    format!("lane {lane}: the tool says {theirs}, the interpreter {expected}"),
                );
            }
        }
    }
    if let Some(uniform) = claims.get("uniform").and_then(Json::as_array) {
        let obs = match observe_run(case.module(), &config) {
            Ok(o) => o,
            Err(e) => return Verdict::Skip(format!("the FR run: {e}")),
        };
        let Some(body) = case.module().functions[case.func()].body.as_ref() else {
            return Verdict::Skip("no body".into());
        };
        for name in uniform.iter().filter_map(Json::as_str) {
            let name = name.trim_start_matches('%');
            let Some(v) = body.value_by_name(name) else {
                continue;
            };
            if let Some(i) = body.def_inst(v)
                && obs.insts[i].diverged
            {
                return Verdict::fail(
                    "uniform claim refuted",
                    format!("the tool calls %{name} uniform; its lanes disagreed"),
                );
            }
        }
    }
    Verdict::Pass
}
