//! The flags that describe the inputs of a run, declared once for every command
//! that runs a program (`run`, `explore`, `repl`, `transform --check`,
//! `diff-exec`): [`RunInputs`] (the thread array's width, arguments, globals, an
//! `--input` file) and [`MachineFlags`] (the interpretation, how the rules run,
//! strict mode, the memory limit), flattened into each command's arguments. A
//! command whose help words a flag its own way says so with `mut_arg` where it
//! flattens them; the values are checked here, by the value parsers below, when
//! the command line is parsed, and turned into a [`RunConfig`] by one function,
//! [`InputFlags::config_over`]. [`TimeLimit`] is the `--time` of every long
//! command.

use crate::errors::Usage;
use anyhow::{Result, anyhow};
use clap::Args;
use pllvm_interp::config::{parse_byte_size, parse_exec, parse_interp, parse_width};
use pllvm_interp::{RunConfig, SetupError, SetupInput, sched};
use pllvm_semantics::rules::{Exec, Interp};
use std::path::PathBuf;

/// The inputs of a run: W, the arguments, the globals' initial contents, and a
/// JSON file of them that the flags override.
#[derive(Args, Clone, Debug, Default)]
pub(crate) struct RunInputs {
    /// W, the number of lanes (threads) of the thread array: 1 to 4096.
    #[arg(long, short = 'w', value_name = "W", value_parser = parse_width)]
    pub threads: Option<usize>,
    /// An argument: NAME=V for every lane, NAME=V0,V1,... for one value per lane.
    #[arg(long = "arg", value_name = "NAME=V[,V...]", value_parser = arg_flag)]
    pub args: Vec<String>,
    /// Initial contents of a global: @G=V0,V1,...
    #[arg(long = "mem", value_name = "@G=V,...", value_parser = mem_flag)]
    pub mem: Vec<String>,
    /// Run inputs as JSON (threads, interp, args, memory, schedule); flags override it.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
}

/// How the machine runs a program: the interpretation, how the rules run, strict
/// mode and the memory limit.
#[derive(Args, Clone, Debug, Default)]
pub(crate) struct MachineFlags {
    /// The interpretation: fr (FREEZING) or obl (OBLIVIOUS), thesis §4.5.
    #[arg(long, value_name = "fr|obl", value_parser = parse_interp)]
    pub interp: Option<Interp>,
    /// How the rules run: reference (lane by lane, the definition) or fast (their
    /// kernels, the default); both give the same run.
    #[arg(long, value_name = "reference|fast", value_parser = parse_exec)]
    pub exec: Option<Exec>,
    /// Track definition masks and report uses they do not cover (Def. 10-11).
    #[arg(long)]
    pub strict: bool,
    /// Most bytes of guest memory live at once (globals, inputs, allocas); beyond it
    /// the run ends with a limit outcome (exit 1). Suffixes K, M, G, T (powers of
    /// 1024); default 1G.
    #[arg(long, value_name = "BYTES", value_parser = parse_byte_size)]
    pub memory_limit: Option<u64>,
}

/// `--time SECONDS`: how long a long command may run, for every command that
/// takes it (`run`, a launch included, `explore`, `analyze`, `transform`,
/// `compile`, `diff-exec`); when it is over the command ends with what it has,
/// as an outcome or a partial report (`run`, `explore`, `transform --check`,
/// `diff-exec`, `analyze --compare-llvm`), or with nothing printed or written
/// (`analyze`, `transform`, `compile`: `crate::watchdog`); docs/cli.md "Time
/// and progress".
#[derive(Args, Clone, Copy, Debug, Default)]
pub(crate) struct TimeLimit {
    /// Stop after this many seconds (fractions allowed) and report what was done.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub time: Option<std::time::Duration>,
}

/// `--time SECONDS`: a positive number of seconds (fractions allowed).
pub(crate) fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| format!("'{text}' is not a positive number of seconds"))
}

/// `--arg NAME=V[,V...]`, checked for its shape when the command line is parsed.
pub(crate) fn arg_flag(text: &str) -> Result<String, String> {
    RunConfig::default().add_arg(text)?;
    Ok(text.to_string())
}

/// `--mem @G=V,...`, checked for its shape when the command line is parsed.
pub(crate) fn mem_flag(text: &str) -> Result<String, String> {
    RunConfig::default().add_memory(text)?;
    Ok(text.to_string())
}

/// `--buffer NAME=...`, checked for its shape when the command line is parsed.
pub(crate) fn buffer_flag(text: &str) -> Result<String, String> {
    RunConfig::default().add_buffer(text)?;
    Ok(text.to_string())
}

/// The sizes of a launch's dimensions, `X[,Y[,Z]]` (`--grid`, `--group`):
/// one to three positive integers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sizes(pub Vec<u64>);

/// `--grid X[,Y[,Z]]` and `--group x[,y[,z]]`, checked for their shape when the
/// command line is parsed.
pub(crate) fn sizes_flag(text: &str) -> Result<Sizes, String> {
    let sizes = text
        .split(',')
        .map(|part| {
            part.trim()
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| match part.trim() {
                    "" => format!("`{text}` has an empty size (X[,Y[,Z]])"),
                    other => format!("`{other}` is not a positive integer"),
                })
        })
        .collect::<Result<Vec<u64>, String>>()?;
    if sizes.len() > 3 {
        return Err(format!(
            "{} sizes given: a launch has one to three dimensions (X[,Y[,Z]])",
            sizes.len()
        ));
    }
    Ok(Sizes(sizes))
}

/// `--sched POLICY`, checked for its shape when the command line is parsed (a
/// replay's file and block names are checked against the program later). The
/// policy comes back in its canonical spelling: surrounding blanks trimmed, and
/// the REPL's short names `low` and `high` as `lowest` and `highest`.
pub(crate) fn sched_flag(text: &str) -> Result<String, String> {
    let text = match text.trim() {
        "low" => "lowest",
        "high" => "highest",
        other => other,
    };
    match text.strip_prefix("replay:") {
        Some("") => Err("replay: needs a file or a block list, as in replay:A,B,C".into()),
        Some(_) => Ok(text.to_string()),
        None if text == "interactive" || text == sched::EARLIEST => Ok(text.to_string()),
        None => sched::builtin(text).map(|_| text.to_string()),
    }
}

/// The replay `replay:SPEC` names, the same in `run --sched`, `repl --sched`
/// and the REPL's `set sched`: SPEC is a file when one of that name exists,
/// else a list of block names `A,B,C` ([`sched::Replay::parse`] reads both). The
/// file is read as a program's text is ([`crate::host::read_bounded`]): a
/// device (`/dev/zero`, no size, no end) is refused unread, a regular file
/// larger than [`crate::host::MAX_INPUT_FILE_BYTES`] is refused by its size,
/// and a pipe is read no further than that (docs/cli.md "Schedules"). The
/// callers make an error of `--sched` a usage error (exit 2).
pub(crate) fn replay(
    program: &pllvm_semantics::rules::Program<'_>,
    spec: &str,
) -> Result<sched::Replay, String> {
    use crate::host::{MAX_INPUT_FILE_BYTES, Refusal, read_bounded};
    let spec = spec.trim();
    if spec.is_empty() {
        return Err("replay: needs a file or a block list, as in replay:A,B,C".into());
    }
    let path = std::path::Path::new(spec);
    if std::fs::metadata(path).is_ok() {
        let bytes = read_bounded(path, MAX_INPUT_FILE_BYTES).map_err(|refusal| match refusal {
            Refusal::Device => format!(
                "{spec} is a device, not a schedule file: a schedule is read whole, and a device has no size to check"
            ),
            Refusal::TooBig(size) => format!(
                "{spec} holds {} {MAX_INPUT_FILE_BYTES} bytes, the most pllvm reads of a schedule",
                size.more_than()
            ),
            Refusal::Io(e) => format!("cannot read {spec}: {}", crate::output::io_message(&e)),
        })?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("{spec} is not UTF-8 text, not a schedule"))?;
        return sched::Replay::parse(program, &text, spec);
    }
    sched::Replay::parse(program, spec, spec).map_err(|e| {
        if spec.contains('/') || spec.contains('.') {
            format!("{e} (and no file {spec} exists)")
        } else {
            e
        }
    })
}

/// The run flags of one command line, as [`InputFlags::config_over`] reads them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InputFlags<'a> {
    /// `--threads`, `--arg`, `--mem`, `--input`.
    pub inputs: &'a RunInputs,
    /// `--interp`, `--exec`, `--strict`, `--memory-limit` (all unset for the
    /// commands that do not take them).
    pub machine: &'a MachineFlags,
    /// `--buffer` (run only).
    pub buffers: &'a [String],
    /// `--function`.
    pub function: &'a Option<String>,
    /// Whether `--schedule` gave the runtime schedule.
    pub schedule: bool,
    /// `--sched`: the scheduler, which wins over the input file's schedule.
    pub sched: Option<&'a str>,
}

/// The flags of a command that takes no [`MachineFlags`].
pub(crate) static NO_MACHINE_FLAGS: MachineFlags = MachineFlags {
    interp: None,
    exec: None,
    strict: false,
    memory_limit: None,
};

impl InputFlags<'_> {
    /// The run configuration: the `--input` file's, or else [`RunConfig::default`],
    /// with the flags applied over it.
    pub(crate) fn config(&self) -> Result<RunConfig> {
        self.config_over(RunConfig::default())
    }

    /// The run configuration: the `--input` file's, or else `otherwise` (the
    /// REPL: the program's first `; run:` line), with the flags applied over it.
    /// A flag given twice for the same argument or global is a usage error.
    pub(crate) fn config_over(&self, otherwise: RunConfig) -> Result<RunConfig> {
        let mut config = match &self.inputs.input {
            Some(p) => {
                // Read with a bound, a device refused (docs/cli.md "Conventions").
                let bytes = crate::host::read_whole(p, "--input").map_err(|e| anyhow!(e))?;
                let text = String::from_utf8(bytes)
                    .map_err(|_| anyhow!("{}: the --input file is not UTF-8 text", p.display()))?;
                RunConfig::from_json(&text).map_err(|e| anyhow!("{}: {e}", p.display()))?
            }
            None => otherwise,
        };
        if let Some(w) = self.inputs.threads {
            config.threads = w;
        }
        if let Some(i) = self.machine.interp {
            config.interp = i;
        }
        if let Some(x) = self.machine.exec {
            config.exec = x;
        }
        let mut flagged = RunConfig::default();
        for a in &self.inputs.args {
            let before = flagged.args.len();
            flagged.add_arg(a).map_err(Usage)?;
            if flagged.args.len() == before {
                return Err(Usage(format!("--arg {a}: this argument is already given")).into());
            }
            config.add_arg(a).map_err(Usage)?;
        }
        for m in &self.inputs.mem {
            let before = flagged.memory.len();
            flagged.add_memory(m).map_err(Usage)?;
            if flagged.memory.len() == before {
                return Err(Usage(format!("--mem {m}: this global is already given")).into());
            }
            config.add_memory(m).map_err(Usage)?;
        }
        for b in self.buffers {
            flagged.add_buffer(b).map_err(Usage)?;
            config.buffers.remove(
                b.split_once('=')
                    .map_or("", |(n, _)| n.trim().trim_start_matches('%')),
            );
            config.add_buffer(b).map_err(Usage)?;
        }
        config.strict |= self.machine.strict;
        if self.function.is_some() {
            config.function.clone_from(self.function);
        }
        if let Some(n) = self.machine.memory_limit {
            config.memory_limit = n;
        }
        // A buffer's file is read here (the interpreter does no IO); a relative
        // name is relative to the working directory. The buffers become guest
        // memory, so together they must fit the memory limit, which is checked
        // before a byte is read (docs/launch.md "Buffers").
        let mut room = config.memory_limit;
        for (name, spec) in config.buffers.iter_mut() {
            if let Some(file) = spec.file().map(str::to_string) {
                let bytes = read_buffer_file(name, &file, room, config.memory_limit)?;
                room -= bytes.len() as u64;
                spec.resolve_file(bytes);
            }
        }
        Ok(config)
    }

    /// A setup error about an input given as a flag is a usage error (exit 2); one
    /// about the program or the `--input` file is not (exit 1).
    pub(crate) fn setup_error(&self, e: SetupError) -> anyhow::Error {
        let named = |flags: &[String], name: &str, sigil: char| {
            flags.iter().any(|f| {
                f.split_once('=')
                    .is_some_and(|(n, _)| n.trim().trim_start_matches(sigil) == name)
            })
        };
        let from_flag = match &e.input {
            None => false,
            Some(SetupInput::Function) => self.function.is_some(),
            Some(SetupInput::Threads) => self.inputs.threads.is_some(),
            Some(SetupInput::Arg(name)) => named(&self.inputs.args, name, '%'),
            Some(SetupInput::Memory(name)) => named(&self.inputs.mem, name, '@'),
            Some(SetupInput::Buffer(name)) => named(self.buffers, name, '%'),
        };
        if from_flag {
            Usage(e.message).into()
        } else {
            anyhow!(e)
        }
    }
}

/// The warnings a run of `config` on `module` starts with (an argument without
/// a value, an external global without contents: they start as ⊤), as `run`
/// prints them before its run; `explore`, `transform --check` and `diff-exec`
/// print them too (docs/cli.md "Run inputs"). A setup error gives none here: the
/// command reports it where it sets the run up.
pub(crate) fn input_warnings(
    module: &pllvm_semantics::ir::Module,
    config: &RunConfig,
) -> Vec<String> {
    pllvm_interp::Machine::new(module, config)
        .map(|m| m.warnings)
        .unwrap_or_default()
}

/// The bytes of `--buffer NAME=TYPE:FILE`'s file, when they fit in `room` bytes
/// (what the memory limit `limit` leaves after the buffers read before it). A
/// regular file's size is checked before it is read and a device (`/dev/zero`,
/// `/dev/urandom`: no size, no end) is refused unread, so neither costs the host
/// more than the limit; a pipe is read up to the limit.
fn read_buffer_file(name: &str, file: &str, room: u64, limit: u64) -> Result<Vec<u8>> {
    use crate::host::{Refusal, read_bounded};
    read_bounded(std::path::Path::new(file), room).map_err(|refusal| match refusal {
        Refusal::Device => anyhow!(
            "--buffer {name}: {file} is a device, not a file: a buffer is read whole, and a device has no size to check against the memory limit"
        ),
        Refusal::TooBig(size) => anyhow!(
            "--buffer {name}: {file} holds {} the {room} bytes of guest memory left for it under the memory limit of {limit} bytes (--memory-limit sets it)",
            size.more_than()
        ),
        Refusal::Io(e) => anyhow::Error::new(e).context(format!("--buffer {name}: cannot read {file}")),
    })
}
