//! `pllvm run --dump NAME[=FILE]` (docs/launch.md): what a run left in a
//! buffer (`--buffer NAME=...`) or a global (`@G`), as text, as JSON (`--json`),
//! or as raw little-endian bytes in a file (⊤ bytes written as 0).

use crate::errors::Usage;
use anyhow::{Result, anyhow};
use pllvm_interp::RunConfig;
use pllvm_interp::buffers::{self, ElemType};
use pllvm_interp::machine::global_values;
use pllvm_semantics::ir::{GlobalId, Module};
use pllvm_semantics::memory::{Memory, ObjectKind};
use pllvm_semantics::value::{ObjectId, Pointer, display_signed};
use std::path::PathBuf;

/// One `--dump`: a buffer or global, and where its bytes go (`None`: printed).
#[derive(Clone, Debug)]
pub(crate) struct DumpSpec {
    /// The buffer's name or `@global`.
    pub name: String,
    /// `--dump NAME=FILE`: the raw bytes go to this file.
    pub file: Option<PathBuf>,
}

/// `--dump NAME` or `--dump NAME=FILE`, checked when the command line is parsed.
pub(crate) fn parse(text: &str) -> Result<DumpSpec, String> {
    let (name, file) = match text.split_once('=') {
        Some((n, f)) if f.trim().is_empty() => {
            return Err(format!("--dump {n}=: the file name is missing"));
        }
        Some((n, f)) => (n, Some(PathBuf::from(f.trim()))),
        None => (text, None),
    };
    let name = name.trim().trim_start_matches('%');
    if name.is_empty() || name == "@" {
        return Err(format!(
            "--dump '{text}': expected a buffer name or @GLOBAL"
        ));
    }
    Ok(DumpSpec {
        name: name.to_string(),
        file,
    })
}

/// Checks, before the run, that every `--dump` names a global of `module` or a
/// buffer of `config`: a name the program lacks is a usage error (exit 2,
/// docs/cli.md "Exit codes") found before the run, not after it.
pub(crate) fn check(module: &Module, config: &RunConfig, specs: &[DumpSpec]) -> Result<()> {
    for spec in specs {
        missing(module, config, &spec.name).map_or(Ok(()), |m| Err(Usage(m)))?;
    }
    Ok(())
}

/// Why `name` names nothing to dump (`None`: it names a global or a buffer).
fn missing(module: &Module, config: &RunConfig, name: &str) -> Option<String> {
    if let Some(global) = name.strip_prefix('@') {
        return (!module.globals.iter().any(|(_, d)| d.name == global))
            .then(|| format!("--dump @{global}: the module has no global @{global}"));
    }
    if config.buffers.contains_key(name) {
        return None;
    }
    let known: Vec<&str> = config.buffers.keys().map(String::as_str).collect();
    Some(format!(
        "--dump {name}: no buffer {name} (buffers: {}; a global is written @{name})",
        if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        }
    ))
}

/// What a dump reads.
enum Target {
    /// A buffer: its object, element type and length in elements.
    Buffer(ObjectId, ElemType, u64),
    /// A global and its object.
    Global(GlobalId, ObjectId),
}

/// Finds the object `name` names in `mem`: a global `@G`, or a buffer of `config`.
fn target(module: &Module, config: &RunConfig, mem: &Memory, name: &str) -> Result<Target> {
    let find = |want: &dyn Fn(&ObjectKind) -> bool| {
        mem.objects().find(|(_, o)| want(&o.kind)).map(|(id, _)| id)
    };
    if let Some(global) = name.strip_prefix('@') {
        let g = module
            .globals
            .iter()
            .find(|(_, d)| d.name == global)
            .map(|(g, _)| g)
            .ok_or_else(|| anyhow!("--dump @{global}: the module has no global @{global}"))?;
        let id = find(&|k| matches!(k, ObjectKind::Global { name } if name == global))
            .ok_or_else(|| anyhow!("--dump @{global}: the global has no object"))?;
        return Ok(Target::Global(g, id));
    }
    let spec = config
        .buffers
        .get(name)
        .ok_or_else(|| anyhow!("--dump {name}: no buffer {name} (checked before the run)"))?;
    let len = spec.elements().map_err(|e| anyhow!("--dump {name}: {e}"))?;
    let id = find(&|k| matches!(k, ObjectKind::Input { name: n } if n == name))
        .ok_or_else(|| anyhow!("--dump {name}: the buffer has no object"))?;
    Ok(Target::Buffer(id, spec.elem, len))
}

/// One finished dump: its text line and its JSON value.
pub(crate) struct Dumped {
    /// `out: [1, 2, 3]` or `out: 12 bytes written to out.bin`.
    pub text: String,
    /// `{"type": "i32", "values": [1, 2, 3]}` or `{"file": ..., "bytes": 12}`.
    pub json: serde_json::Value,
}

/// Performs every dump of `specs` on the final memory `mem` (writing the files).
pub(crate) fn dump_all(
    module: &Module,
    config: &RunConfig,
    mem: &Memory,
    specs: &[DumpSpec],
) -> Result<Vec<(String, Dumped)>> {
    specs
        .iter()
        .map(|spec| Ok((spec.name.clone(), dump(module, config, mem, spec)?)))
        .collect()
}

fn dump(module: &Module, config: &RunConfig, mem: &Memory, spec: &DumpSpec) -> Result<Dumped> {
    let name = &spec.name;
    let target = target(module, config, mem, name)?;
    let (id, size) = match target {
        Target::Buffer(id, elem, len) => (id, len * elem.size()),
        Target::Global(g, id) => (id, module.types.size_of(module.globals[g].ty)),
    };
    let start = Pointer {
        object: Some(id),
        offset: 0,
    };
    if let Some(file) = &spec.file {
        let bytes =
            buffers::raw_bytes(mem, start, size).map_err(|e| anyhow!("--dump {name}: {e}"))?;
        crate::output::write_bytes(file, &bytes).map_err(|e| anyhow!("--dump {name}: {e:#}"))?;
        return Ok(Dumped {
            text: format!(
                "{name}: {} bytes written to {}",
                bytes.len(),
                file.display()
            ),
            json: serde_json::json!({ "file": file.display().to_string(), "bytes": bytes.len() }),
        });
    }
    match target {
        Target::Buffer(_, elem, len) => {
            let values = buffers::dump_values(mem, start, elem, len)
                .map_err(|e| anyhow!("--dump {name}: {e}"))?;
            let text: Vec<String> = values.iter().map(ToString::to_string).collect();
            Ok(Dumped {
                text: format!("{name}: [{}]", text.join(", ")),
                json: serde_json::json!({
                    "type": elem.to_string(),
                    "values": values.iter().map(|v| v.to_json()).collect::<Vec<_>>(),
                }),
            })
        }
        Target::Global(g, id) => {
            let contents = global_values(module, mem, g, id);
            let cells: Vec<String> = contents
                .cells
                .iter()
                .map(|c| match c.int_width {
                    Some(w) if !matches!(c.value, pllvm_semantics::value::Val::Undef) => {
                        display_signed(&c.value, w)
                    }
                    _ => c.value.to_string(),
                })
                .collect();
            let paths: Vec<&str> = contents.cells.iter().map(|c| c.path.as_str()).collect();
            Ok(Dumped {
                text: format!("{name}: [{}]", cells.join(", ")),
                json: serde_json::json!({
                    "type": module.types.display(module.globals[g].ty).to_string(),
                    "paths": paths,
                    "values": cells,
                }),
            })
        }
    }
}
