//! One fuzzing case: a program, its inputs and its width, and the corpus file
//! that holds it (a finding is such a file).
//!
//! The file is a runnable corpus file (`corpus/README.md`): the module, a FREEZING
//! `; run:` line with the case's inputs (so `pllvm run FILE` and the corpus runner
//! run it), `;;` header lines for people (oracle, seed, sizes, the command that
//! reproduces it), and one `; fuzz-case: {json}` line with what the oracles need
//! beyond the run (how each parameter is fed, the written buffers' lane slices),
//! which [`Case::from_file`] reads back.

use crate::{ArgKind, ArgSpec, ArgTy, BufferSpec, GenConfig, Generated, InputScalar, generate};
use pllvm_interp::RunConfig;
use pllvm_semantics::ir::{FuncId, Module};
use pllvm_semantics::rules::Interp;
use serde_json::{Value as Json, json};

/// A program with the inputs of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The program, as the generator would describe it (its `stats` are the
    /// generator's and are not kept by shrinking or files).
    pub program: Generated,
    /// One column of `width` values per parameter, in parameter order.
    pub columns: Vec<Vec<InputScalar>>,
    /// The number of lanes (threads).
    pub width: usize,
    /// The generator seed the case came from (0 when unknown).
    pub seed: u64,
}

/// The seed of a case's inputs, from its program seed.
fn input_seed(seed: u64) -> u64 {
    seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5eed
}

impl Case {
    /// The generator's program `seed` under `cfg` with `width` lanes.
    pub fn generate(seed: u64, cfg: &GenConfig, width: usize) -> Case {
        let program = generate(seed, cfg);
        let columns = program
            .inputs(input_seed(seed), width)
            .into_iter()
            .map(|(_, c)| c)
            .collect();
        Case {
            program,
            columns,
            width,
            seed,
        }
    }

    /// The module.
    pub fn module(&self) -> &Module {
        &self.program.module
    }

    /// The function run.
    pub fn func(&self) -> FuncId {
        self.program.func
    }

    /// The argument columns with their names.
    pub fn named_columns(&self) -> Vec<(String, Vec<InputScalar>)> {
        self.program
            .args
            .iter()
            .zip(&self.columns)
            .map(|(a, c)| (a.name.clone(), c.clone()))
            .collect()
    }

    /// The run of the case under `interp` (the machine's built-in schedule),
    /// at most 20,000 blocks scheduled (generated programs end far sooner;
    /// shrinking can make endless loops, which must stay cheap).
    pub fn run_config(&self, interp: Interp) -> RunConfig {
        let mut config = self.program.run_config(&self.named_columns(), interp);
        config.max_steps = 20_000;
        config
    }

    /// Phis and commands of the function (terminators not counted).
    pub fn instructions(&self) -> usize {
        self.body().map_or(0, |b| {
            b.layout
                .iter()
                .map(|&x| b.blocks[x].phis.len() + b.blocks[x].body.len())
                .sum()
        })
    }

    /// Blocks of the function.
    pub fn blocks(&self) -> usize {
        self.body().map_or(0, |b| b.layout.len())
    }

    /// The size as files report it: `N instructions (+ M terminators), B blocks`.
    pub fn size_text(&self) -> String {
        format!(
            "{} instructions + {} terminators in {} blocks, {} lanes",
            self.instructions(),
            self.blocks(),
            self.blocks(),
            self.width
        )
    }

    fn body(&self) -> Option<&pllvm_semantics::ir::Body> {
        self.program.module.functions[self.program.func]
            .body
            .as_ref()
    }

    /// A hash of the program text and inputs (FNV-1a, 64 bits): equal cases
    /// hash equally on every platform.
    pub fn hash(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let text = format!(
            "{}\n{}",
            pllvm_semantics::text::print_module(&self.program.module),
            self.run_line()
        );
        for b in text.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h
    }

    /// `--threads W --interp fr --arg ... --mem ...`: the case's run as a
    /// `; run:` line's options.
    pub fn run_line(&self) -> String {
        let mut line = format!("--threads {} --interp fr", self.width);
        for (arg, column) in self.program.args.iter().zip(&self.columns) {
            let values: Vec<String> = column.iter().map(scalar_text).collect();
            line.push_str(&format!(" --arg {}={}", arg.name, values.join(",")));
        }
        for (name, values) in &self.program.globals {
            let values: Vec<String> = values.iter().map(i64::to_string).collect();
            line.push_str(&format!(" --mem @{name}={}", values.join(",")));
        }
        line
    }

    /// The `; fuzz-case:` metadata as JSON.
    pub fn meta(&self) -> Json {
        json!({
            "function": self.program.module.functions[self.program.func].name,
            "width": self.width,
            "seed": self.seed.to_string(),
            "max_threads": self.program.max_threads,
            "args": self.program.args.iter().zip(&self.columns).map(|(a, c)| json!({
                "name": a.name,
                "ty": match a.ty { ArgTy::Int(w) => format!("i{w}"), ArgTy::Double => "double".into() },
                "kind": match a.kind { ArgKind::Uniform => "uniform", ArgKind::PerLane => "per-lane", ArgKind::ThreadId => "thread-id" },
                "values": c.iter().map(scalar_text).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "globals": self.program.globals.iter().map(|(n, v)| json!({"name": n, "values": v})).collect::<Vec<_>>(),
            "buffers": self.program.buffers.iter().map(|b| json!({
                "name": b.name, "elem_bits": b.elem_bits, "len": b.len, "slice": b.slice,
            })).collect::<Vec<_>>(),
        })
    }

    /// The corpus file of the case: `header` lines (each printed as a `;;`
    /// line), the metadata, the run line and the module.
    pub fn to_file(&self, header: &[String]) -> String {
        let mut out = String::new();
        for line in header {
            out.push_str(";; ");
            out.push_str(line);
            out.push('\n');
        }
        out.push_str("; fuzz-case: ");
        out.push_str(&self.meta().to_string());
        out.push('\n');
        out.push_str("; run: ");
        out.push_str(&self.run_line());
        out.push('\n');
        out.push_str(&pllvm_semantics::text::print_module(&self.program.module));
        out
    }

    /// Reads a case back from a file [`Case::to_file`] wrote (the module parsed
    /// and verified; every problem named with the file's line).
    pub fn from_file(src: &str) -> Result<Case, String> {
        let (number, meta) = src
            .lines()
            .enumerate()
            .find_map(|(n, l)| l.strip_prefix("; fuzz-case:").map(|m| (n + 1, m)))
            .ok_or("no `; fuzz-case:` line (is this a file `pllvm fuzz` wrote?)")?;
        let meta: Json = serde_json::from_str(meta.trim())
            .map_err(|e| format!("line {number}: the `; fuzz-case:` JSON: {e}"))?;
        let at = |what: &str| format!("line {number}: `; fuzz-case:` {what}");
        let (module, spans) = pllvm_semantics::text::parse_module(src).map_err(|errors| {
            errors
                .iter()
                .map(|e| {
                    let d = e.to_diagnostic();
                    pllvm_semantics::diag::render_all(&[d], "case", src)
                })
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        let report = pllvm_semantics::verify::verify_module(&module, &spans);
        if !report.errors.is_empty() {
            return Err(pllvm_semantics::diag::render_all(
                &report.errors,
                "case",
                src,
            ));
        }
        let fname = meta["function"]
            .as_str()
            .ok_or_else(|| at("has no function"))?;
        let func = module
            .function_by_name(fname)
            .ok_or_else(|| at(&format!("names @{fname}, which the module lacks")))?;
        let width = meta["width"]
            .as_u64()
            .and_then(|w| usize::try_from(w).ok())
            .filter(|&w| w >= 1)
            .ok_or_else(|| at("has no width"))?;
        let mut args = Vec::new();
        let mut columns = Vec::new();
        for a in meta["args"].as_array().ok_or_else(|| at("has no args"))? {
            let name = a["name"]
                .as_str()
                .ok_or_else(|| at("has an arg without name"))?;
            let ty = match a["ty"].as_str() {
                Some("double") => ArgTy::Double,
                Some(t) => ArgTy::Int(
                    t.strip_prefix('i')
                        .and_then(|w| w.parse().ok())
                        .ok_or_else(|| at(&format!("has arg type {t}")))?,
                ),
                None => return Err(at("has an arg without type")),
            };
            let kind = match a["kind"].as_str() {
                Some("uniform") => ArgKind::Uniform,
                Some("per-lane") => ArgKind::PerLane,
                Some("thread-id") => ArgKind::ThreadId,
                _ => return Err(at(&format!("has arg %{name} of no known kind"))),
            };
            let values = a["values"]
                .as_array()
                .ok_or_else(|| at(&format!("has no values for %{name}")))?
                .iter()
                .map(|v| {
                    let text = v.as_str().unwrap_or_default();
                    parse_scalar(text, ty).ok_or_else(|| at(&format!("value {v} of %{name}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            if values.len() != width {
                return Err(at(&format!(
                    "has {} values for %{name}, not {width}",
                    values.len()
                )));
            }
            args.push(ArgSpec {
                name: name.into(),
                ty,
                kind,
            });
            columns.push(values);
        }
        let mut globals = Vec::new();
        for g in meta["globals"]
            .as_array()
            .ok_or_else(|| at("has no globals"))?
        {
            let name = g["name"]
                .as_str()
                .ok_or_else(|| at("has a global without name"))?;
            let values = g["values"]
                .as_array()
                .ok_or_else(|| at("has a global without values"))?
                .iter()
                .map(|v| {
                    v.as_i64()
                        .ok_or_else(|| at(&format!("value {v} of @{name}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            globals.push((name.to_string(), values));
        }
        let mut buffers = Vec::new();
        for b in meta["buffers"]
            .as_array()
            .ok_or_else(|| at("has no buffers"))?
        {
            buffers.push(BufferSpec {
                name: b["name"].as_str().ok_or_else(|| at("buffer name"))?.into(),
                elem_bits: b["elem_bits"]
                    .as_u64()
                    .and_then(|x| u32::try_from(x).ok())
                    .ok_or_else(|| at("buffer elem_bits"))?,
                len: b["len"].as_u64().ok_or_else(|| at("buffer len"))?,
                slice: b["slice"].as_u64(),
            });
        }
        let seed = meta["seed"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let max_threads = meta["max_threads"]
            .as_u64()
            .and_then(|x| u32::try_from(x).ok())
            .unwrap_or(8);
        Ok(Case {
            program: Generated {
                module,
                func,
                args,
                globals,
                buffers,
                max_threads,
                stats: Default::default(),
            },
            columns,
            width,
            seed,
        })
    }
}

/// An input as `--arg` spells it.
fn scalar_text(v: &InputScalar) -> String {
    match v {
        InputScalar::Int(i) => i.to_string(),
        InputScalar::Float(f) => {
            let t = format!("{f:?}");
            if t.contains('.') || t.contains('e') || t.contains("inf") || t.contains("NaN") {
                t
            } else {
                format!("{t}.0")
            }
        }
    }
}

/// An input read back.
fn parse_scalar(text: &str, ty: ArgTy) -> Option<InputScalar> {
    match ty {
        ArgTy::Int(_) => text.parse().ok().map(InputScalar::Int),
        ArgTy::Double => text.parse().ok().map(InputScalar::Float),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_survives_its_file() {
        for seed in 0..40u64 {
            let case = Case::generate(seed, &GenConfig::small(), 2 + (seed % 3) as usize);
            let text = case.to_file(&["a header".into()]);
            let back = Case::from_file(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert_eq!(back.columns, case.columns, "seed {seed}");
            assert_eq!(back.width, case.width);
            assert_eq!(back.seed, seed);
            assert_eq!(back.program.args, case.program.args);
            assert_eq!(back.program.globals, case.program.globals);
            assert_eq!(back.program.buffers, case.program.buffers);
            assert_eq!(
                pllvm_semantics::text::print_module(&back.program.module),
                pllvm_semantics::text::print_module(&case.program.module)
            );
            assert_eq!(back.hash(), case.hash());
        }
    }

    #[test]
    fn a_file_without_metadata_is_refused() {
        let err = Case::from_file("define i32 @f() {\nA:\n  ret i32 0\n}\n").unwrap_err();
        assert!(err.contains("fuzz-case"), "{err}");
    }
}
