//! `pllvm compile FILE --target avx2|avx512|neon|scalar-c`: the native backend
//! (docs/native.md) on the command line. Each kernel (the first function, `--function
//! NAME`, or `--all-functions`) goes through the transform pipeline (`--pass`,
//! default `nonneg-div,dlt,boscc,pl`), the batch is emitted for the target (vector LLVM IR
//! from the widening, or scalar-lane C), and written as source, as an object, or
//! linked with the runner into a program (`--emit source|object|exe`).
//! `diff-exec` prepares its kernels with the same [`prepare`].

use crate::errors::{Rendered, Usage};
use crate::flags::TimeLimit;
use crate::output;
use crate::source::load;
use crate::transform::render_error;
use crate::watchdog::{self, Ending, Watch};
use anyhow::{Result, anyhow};
use clap::Args;
use pllvm_analysis::result::AnalysisKind;
use pllvm_codegen::native::{self, EmitOptions, Source, Target, WorkDir};
use pllvm_codegen::pipeline::{Options, Pass, parse_passes};
use pllvm_codegen::{Kernel, Site, TransformError};
use pllvm_semantics::diag::SourceMap;
use pllvm_semantics::ir::{FuncId, Module};
use pllvm_semantics::text::print_module;
use pllvm_semantics::verify::verify_module;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The options that choose kernels and transform them, shared by `compile` and
/// `diff-exec`.
#[derive(Args, Debug, Clone)]
pub(crate) struct PipelineArgs {
    /// The target: avx2, avx512, neon (under qemu-aarch64) or scalar-c.
    #[arg(long, value_name = "avx2|avx512|neon|scalar-c", value_parser = parse_target)]
    pub target: Target,
    /// W, the lanes of a chunk (default: 16 on avx2, 32 on avx512, 8 on neon and
    /// scalar-c).
    #[arg(long, value_name = "W", value_parser = pllvm_interp::config::parse_width)]
    pub width: Option<usize>,
    /// The transforms before the native code, in order.
    #[arg(long, value_name = "PASSES", default_value = pllvm_codegen::pipeline::NATIVE_PASSES)]
    pub pass: String,
    /// The analysis deciding what is uniform: best, thesis, popl, llvm or sa.
    #[arg(long, value_name = "best|thesis|popl|llvm|sa", default_value = "best")]
    pub analysis: String,
    /// Parameters that are uniform (by name or number, comma-separated).
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub uniform_args: Vec<String>,
    /// The function to compile (default: the first definition).
    #[arg(long, value_name = "NAME", conflicts_with = "all_functions")]
    pub function: Option<String>,
    /// Compile every defined function of each file (a batch).
    #[arg(long)]
    pub all_functions: bool,
}

fn parse_target(text: &str) -> Result<Target, String> {
    Target::parse(text).ok_or_else(|| {
        format!("'{text}' is not a target (expected avx2, avx512, neon or scalar-c)")
    })
}

impl PipelineArgs {
    /// W for the target.
    pub(crate) fn width(&self) -> usize {
        self.width.unwrap_or(self.target.default_width())
    }

    /// What the emitters take: W and what the pipeline assumed.
    pub(crate) fn emit_options(&self) -> Result<EmitOptions> {
        Ok(EmitOptions {
            width: self.width(),
            analysis: parse_analysis(&self.analysis)?,
            linearized: parse_passes(&self.pass)
                .map_err(|e| anyhow!(Usage(format!("--pass: {e}"))))?
                .last()
                .is_some_and(|p| matches!(p, Pass::Pl | Pass::IfConv)),
        })
    }
}

fn parse_analysis(text: &str) -> Result<AnalysisKind> {
    AnalysisKind::parse(text).ok_or_else(|| {
        anyhow!(Usage(format!(
            "--analysis: '{text}' is not best, thesis, popl, llvm or sa"
        )))
    })
}

/// One loaded file.
pub(crate) struct LoadedFile {
    /// Its name as given.
    pub name: String,
    /// Its text.
    pub src: String,
    /// Its spans.
    pub spans: SourceMap,
    /// The program as written.
    pub module: Module,
}

/// One kernel of a batch: a function of a file and its transformed module.
pub(crate) struct Prepared {
    /// Index of its file in the loaded files.
    pub file: usize,
    /// The function (the same id in both modules).
    pub func: FuncId,
    /// The program after the pipeline.
    pub transformed: Module,
    /// The kernel's name in the batch (`[A-Za-z0-9_]+`, unique).
    pub kernel: String,
    /// The parameters the pipeline treated as uniform (`--uniform-args`).
    pub uniform_args: Vec<String>,
}

/// Loads `files` and transforms the chosen functions of each, each file and
/// each function a stage of `watch`.
pub(crate) fn prepare(
    files: &[PathBuf],
    args: &PipelineArgs,
    watch: &Watch,
) -> Result<(Vec<LoadedFile>, Vec<Prepared>)> {
    let passes = parse_passes(&args.pass).map_err(|e| Usage(format!("--pass: {e}")))?;
    let analysis = parse_analysis(&args.analysis)?;
    let options = Options {
        analysis,
        uniform_args: args.uniform_args.clone(),
        live_outs: args.target.live_outs(),
        ..Options::default()
    };
    let mut loaded = Vec::new();
    let mut prepared: Vec<Prepared> = Vec::new();
    for path in files {
        watch.stage(format!("parsing and verifying {}", path.display()));
        let (module, spans, name, src) = load(&Some(path.clone()))?;
        let funcs: Vec<FuncId> = if args.all_functions {
            module
                .functions
                .iter()
                .filter(|(_, f)| f.body.is_some())
                .map(|(id, _)| id)
                .collect()
        } else if let Some(f) = &args.function {
            let f = f.trim_start_matches('@');
            vec![
                module
                    .function_by_name(f)
                    .filter(|&id| module.functions[id].body.is_some())
                    .ok_or_else(|| Usage(format!("--function: {name} defines no @{f}")))?,
            ]
        } else {
            vec![
                module
                    .first_definition()
                    .ok_or_else(|| anyhow!("{name}: the file defines no function"))?,
            ]
        };
        for func in funcs {
            watch.stage(format!(
                "transforming @{} ({})",
                module.functions[func].name, args.pass
            ));
            let transformed = transform(&module, func, &passes, &options)
                .map_err(|e| Rendered(render_error(&e, &spans, &name, &src)))?;
            let report = verify_module(&transformed, &SourceMap::default());
            if !report.is_ok() {
                return Err(anyhow!(
                    "internal error: the program after {} does not verify (a bug in pllvm's transforms)\n{}",
                    args.pass,
                    print_module(&transformed)
                ));
            }
            let kernel = kernel_name(&module.functions[func].name, &prepared);
            prepared.push(Prepared {
                file: loaded.len(),
                func,
                transformed,
                kernel,
                uniform_args: args.uniform_args.clone(),
            });
        }
        loaded.push(LoadedFile {
            name,
            src,
            spans,
            module,
        });
    }
    Ok((loaded, prepared))
}

/// The pipeline on one function.
fn transform(
    module: &Module,
    func: FuncId,
    passes: &[Pass],
    options: &Options,
) -> Result<Module, TransformError> {
    let stages = pllvm_codegen::run_passes(module, func, passes, options)?;
    Ok(stages
        .into_iter()
        .last()
        .map_or_else(|| module.clone(), |s| s.module))
}

/// A batch-unique `[A-Za-z0-9_]+` name for function `name`.
fn kernel_name(name: &str, taken: &[Prepared]) -> String {
    let base: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let base = if base.is_empty() {
        "kernel".into()
    } else {
        base
    };
    let mut candidate = base.clone();
    let mut n = 1;
    while taken.iter().any(|p| p.kernel == candidate) {
        n += 1;
        candidate = format!("{base}_{n}");
    }
    candidate
}

/// The kernels of a prepared batch.
pub(crate) fn kernels(prepared: &[Prepared]) -> Vec<Kernel<'_>> {
    prepared
        .iter()
        .map(|p| Kernel {
            name: &p.kernel,
            module: &p.transformed,
            function: p.func,
            uniform_args: &p.uniform_args,
        })
        .collect()
}

/// Emits the batch for the target; an emitter's refusal is reported with the
/// file and function of the kernel it is about.
pub(crate) fn emit(
    loaded: &[LoadedFile],
    prepared: &[Prepared],
    target: Target,
    options: &EmitOptions,
) -> Result<Source> {
    let all = kernels(prepared);
    match native::emit(target, &all, options) {
        Ok(source) => Ok(source),
        Err(e) => {
            // Find the kernel it is about: emit each alone.
            for (p, k) in prepared.iter().zip(&all) {
                if let Err(e) = native::emit(target, &[*k], options) {
                    return Err(anyhow!(render_emit_error(&e, &loaded[p.file], p)));
                }
            }
            Err(anyhow!(e))
        }
    }
}

/// An emitter's refusal: the file and function, the site in the transformed
/// program (its block or instruction text), and the message.
fn render_emit_error(e: &TransformError, file: &LoadedFile, p: &Prepared) -> String {
    let module = &p.transformed;
    let fname = &module.functions[p.func].name;
    let body = module.functions[p.func].body.as_ref();
    let at = match (e.site, body) {
        (Site::Inst(_, i), Some(b)) => format!(
            " at `{}`",
            pllvm_semantics::text::print_inst(module, b, i).trim()
        ),
        (Site::Block(_, blk) | Site::Terminator(_, blk), Some(b)) => {
            format!(" in block %{}", b.blocks[blk].name)
        }
        _ => String::new(),
    };
    format!(
        "{}: @{fname}: error: {}: {}{at} (in the program after the transforms)",
        file.name, e.pass, e.message
    )
}

/// What `--emit` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Emit {
    /// The LLVM IR or C text.
    Source,
    /// The compiled object.
    Object,
    /// A program linked with the runner (`./prog IN OUT`).
    Exe,
}

/// `pllvm compile`.
#[derive(Args, Debug)]
#[command(mut_arg("time", |a| a.help(
    "Stop after this many seconds (fractions allowed): llc-19 or gcc, if running, is killed with the processes it started, nothing is printed or written but a line on stderr naming the stage, and the exit code is 3"
)))]
pub(crate) struct CompileArgs {
    /// A .ll file.
    file: PathBuf,
    #[command(flatten)]
    pipeline: PipelineArgs,
    /// What to write: source (LLVM IR or C), object, or exe (linked with the runner).
    #[arg(long, value_enum, default_value = "source")]
    emit: Emit,
    /// Where to write it (default: standard output for source; otherwise FILE's
    /// name without .ll, with .o or .exe, which replaces no file pllvm compile
    /// did not write).
    #[arg(long, short = 'o', value_name = "OUT")]
    output: Option<PathBuf>,
    #[command(flatten)]
    time: TimeLimit,
}

/// What `compile` built, for the main thread to write.
enum Built {
    /// `--emit source`: the text.
    Source(String),
    /// `--emit object|exe`: the file built in a private directory, removed
    /// when this is dropped.
    File(WorkDir, PathBuf),
}

/// Runs `pllvm compile`. With `--time` the work is watched
/// (cli/src/watchdog.rs): cut off, its tools are killed and nothing is
/// written.
pub(crate) fn main(a: CompileArgs) -> Result<ExitCode> {
    // Where the output goes is settled before the work: a refusal costs nothing.
    let out = match (&a.output, a.emit) {
        (Some(path), _) => Some(path.clone()),
        (None, Emit::Source) => None,
        (None, emit) => Some(default_output(&a.file, emit)?),
    };
    let first = format!("parsing and verifying {}", a.file.display());
    let (file, pipeline, emit_kind) = (a.file, a.pipeline, a.emit);
    let ending = watchdog::within(a.time.time, "compile", &first, move |watch| {
        let (loaded, prepared) = prepare(std::slice::from_ref(&file), &pipeline, watch)?;
        let target = pipeline.target;
        watch.stage(match target {
            Target::ScalarC => "emitting scalar-lane C".to_string(),
            t => format!("widening to vector LLVM IR for {t}"),
        });
        let source = emit(&loaded, &prepared, target, &pipeline.emit_options()?)?;
        if emit_kind == Emit::Source {
            return Ok(Built::Source(source.text().to_string()));
        }
        // The tools this build runs: the compiler (llc-19 or gcc), and for a
        // program the linker (gcc) too; qemu runs nothing here.
        let mut tools: Vec<&str> = native::tools_for(target, &source)
            .iter()
            .filter(|t| t.command != native::QEMU.command)
            .map(|t| t.command)
            .collect();
        if emit_kind == Emit::Object {
            tools.truncate(1);
        }
        watch.tool(format!("building with {}", tools.join(" and ")));
        // Built in a private directory (the source text is written next to
        // the object), then copied by the main thread.
        let dir = WorkDir::new().map_err(|e| anyhow!(e))?;
        let built = if emit_kind == Emit::Object {
            let object = dir.path().join("kernels.o");
            native::compile_object_until(target, &source, &object, watch.deadline())
                .map_err(|e| anyhow!(e))?;
            object
        } else {
            native::build_until(target, &source, dir.path(), watch.deadline())
                .map_err(|e| anyhow!(e))?
                .path
        };
        Ok(Built::File(dir, built))
    })?;
    let built = match ending {
        Ending::Done(built) => built,
        Ending::Cut(cut) => {
            eprintln!("{}", cut.message("compile"));
            return Ok(cut.exit_code());
        }
    };
    match (built, out) {
        (Built::Source(text), Some(path)) => output::write_bytes(&path, text.as_bytes())?,
        (Built::Source(text), None) => write!(output::stdout(), "{text}")?,
        (Built::File(_dir, built), Some(out)) => output::copy_file(&built, &out)?,
        (Built::File(..), None) => {
            return Err(anyhow!(
                "internal error: no output file for --emit object or exe"
            ));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The file `--emit object|exe` writes without `-o` (docs/cli.md "compile"):
/// FILE's name without its `.ll`, with `.o` or `.exe`, in the working directory
/// (`kernels.o` for standard input). The name always differs from FILE's; a file
/// already there is replaced only when it is an earlier output of `compile` (an
/// ELF file holding the `pllvm_kernels` table, docs/native.md) and is not FILE
/// under another name; anything else is a usage error that asks for `-o`.
fn default_output(file: &Path, emit: Emit) -> Result<PathBuf> {
    let name = file
        .file_name()
        .filter(|_| file != Path::new("-"))
        .map_or_else(|| "kernels".into(), |n| n.to_string_lossy().into_owned());
    let base = match name.strip_suffix(".ll") {
        Some(b) if !b.is_empty() => b.to_string(),
        _ => name,
    };
    let suffix = if emit == Emit::Object { "o" } else { "exe" };
    let out = PathBuf::from(format!("{base}.{suffix}"));
    let Ok(there) = std::fs::symlink_metadata(&out) else {
        return Ok(out);
    };
    let same_file = |a: &Path, b: &Path| match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => {
            use std::os::unix::fs::MetadataExt;
            (a.dev(), a.ino()) == (b.dev(), b.ino())
        }
        _ => false,
    };
    if same_file(&out, file) {
        return Err(Usage(format!(
            "--emit {}: {} is the input {}: give -o OUT",
            suffix_kind(emit),
            out.display(),
            file.display()
        ))
        .into());
    }
    if !(there.is_file() && earlier_output(&out)) {
        return Err(Usage(format!(
            "--emit {}: {} exists and is not an earlier output of pllvm compile: give -o {} to replace it, or -o another name",
            suffix_kind(emit),
            out.display(),
            out.display()
        ))
        .into());
    }
    Ok(out)
}

/// `object` or `exe`.
fn suffix_kind(emit: Emit) -> &'static str {
    if emit == Emit::Object {
        "object"
    } else {
        "exe"
    }
}

/// Whether `path` is an object or program `compile` wrote: a regular ELF file
/// (at most 256 MiB; a device or FIFO is never read) that holds the symbol
/// `pllvm_kernels`, the table of kernels both emitters define (docs/native.md).
fn earlier_output(path: &Path) -> bool {
    const MOST: u64 = 256 << 20;
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() > MOST {
        return false;
    }
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    let symbol = b"pllvm_kernels";
    bytes.starts_with(b"\x7fELF") && bytes.windows(symbol.len()).any(|w| w == symbol)
}
