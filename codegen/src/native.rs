//! The native harness (docs/native.md): build a batch of kernels for a target, link it
//! with the runner, run it in a child process and read its results back, under
//! the protocol of `docs/native.md`. No `unsafe`: the native code only ever runs
//! in child processes (the runner forks once more per kernel, with an alarm,
//! globals against PROT_NONE guard pages).
//!
//! The pieces: [`Target`] and [`Source`] (what to build: LLVM IR from the
//! widening, or C from [`crate::scalar_c`]), [`Toolchain`] (the tools, each
//! missing one named with its apt package), [`build`] (object, cached runner,
//! link), [`Program::run`] (the protocol's IN and OUT files, a wall-clock limit
//! on the Rust side too), [`run_tool`] (an external tool that a deadline stops,
//! with every process it started: [`kill_tree`]) and [`protocol`] (the text of
//! IN and OUT). Inputs taken
//! from the interpreter's run configuration and the lane by lane comparison with
//! the interpreter live in the `pllvm-differential` crate, so that this compiler
//! does not depend on the interpreter.

pub mod protocol;

use protocol::{RunInput, RunResult};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The runner's C source (compiled once per target and cached).
pub const RUNNER_C: &str = include_str!("native/runner.c");

/// The flags of the scalar-lane C build (docs/native.md): IEEE floats without
/// contraction, wrapping signed arithmetic, no type-based aliasing.
pub const C_FLAGS: [&str; 4] = [
    "-O1",
    "-ffp-contract=off",
    "-fwrapv",
    "-fno-strict-aliasing",
];

/// A native target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// x86-64 with AVX2 (`llc-19 -mcpu=x86-64-v3`).
    Avx2,
    /// x86-64 with AVX-512 (`llc-19 -mcpu=x86-64-v4`).
    Avx512,
    /// AArch64 with NEON (`llc-19 -mtriple=aarch64-linux-gnu`), run under
    /// `qemu-aarch64`.
    Neon,
    /// The scalar-lane C oracle on the host (gcc).
    ScalarC,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 4] = [Target::Avx2, Target::Avx512, Target::Neon, Target::ScalarC];

    /// The name `--target` takes.
    pub fn name(self) -> &'static str {
        match self {
            Target::Avx2 => "avx2",
            Target::Avx512 => "avx512",
            Target::Neon => "neon",
            Target::ScalarC => "scalar-c",
        }
    }

    /// The target called `name`.
    pub fn parse(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// W when `--width` is not given: twice the native vector width of 32-bit
    /// lanes (docs/native.md); 8 for the scalar C route.
    pub fn default_width(self) -> usize {
        match self {
            Target::Avx2 => 16,
            Target::Avx512 => 32,
            Target::Neon | Target::ScalarC => 8,
        }
    }

    /// How the divergent loop transform keeps live-out values for this target
    /// (measured: BENCHMARKS.md, "Native SIMD code", fourth round).
    /// AVX-512's 32 vector registers carry §9.1's tracker pairs, which take the
    /// per-lane choice of a held counter off its loop-carried chain
    /// ([`crate::dlt::LiveOuts`]): Mandelbrot 6.6 against 7.1 ms. With 16 `ymm`
    /// registers (AVX2) the trackers spill, and holding live-outs in header phis
    /// wins (9.3 against 14.5 ms); NEON and the scalar C route keep that default.
    pub fn live_outs(self) -> crate::dlt::LiveOuts {
        match self {
            Target::Avx512 => crate::dlt::LiveOuts::Tracked,
            Target::Avx2 | Target::Neon | Target::ScalarC => crate::dlt::LiveOuts::Held,
        }
    }

    /// Whether programs for this target run on AArch64 (under qemu here).
    pub fn is_aarch64(self) -> bool {
        self == Target::Neon
    }

    /// The CPU features a program for this target needs of the host that runs
    /// it, as `/proc/cpuinfo` names them: the x86-64-v3 (AVX2) and x86-64-v4
    /// (AVX-512) levels `llc-19 -mcpu` builds for (`lzcnt` is `abm` there).
    /// NEON runs under qemu and the scalar C route on any host: nothing.
    pub fn host_features(self) -> &'static [&'static str] {
        const V3: &[&str] = &[
            "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave",
        ];
        const V4: &[&str] = &[
            "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave", "avx512f",
            "avx512bw", "avx512cd", "avx512dq", "avx512vl",
        ];
        match self {
            Target::Avx2 => V3,
            Target::Avx512 => V4,
            Target::Neon | Target::ScalarC => &[],
        }
    }

    /// The features of [`Target::host_features`] that the CPU described by
    /// `cpuinfo` (the text of `/proc/cpuinfo`) lacks: every one when no line
    /// lists x86 flags (another architecture).
    pub fn missing_features(self, cpuinfo: &str) -> Vec<&'static str> {
        let flags: std::collections::HashSet<&str> = cpuinfo
            .lines()
            .find_map(|l| {
                let (key, value) = l.split_once(':')?;
                (key.trim() == "flags").then_some(value)
            })
            .map(|v| v.split_whitespace().collect())
            .unwrap_or_default();
        self.host_features()
            .iter()
            .copied()
            .filter(|f| !flags.contains(f))
            .collect()
    }

    /// Why this host cannot run programs for this target, before one is built
    /// and dies of an illegal instruction: the features it lacks, named.
    pub fn host_cannot_run(self) -> Option<String> {
        if self.host_features().is_empty() {
            return None;
        }
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let missing = self.missing_features(&cpuinfo);
        (!missing.is_empty()).then(|| {
            format!(
                "--target {self}: this CPU lacks {} (/proc/cpuinfo), which {self} code needs; compile --target {self} still writes the code, and diff-exec --target scalar-c (or avx2, neon) runs here",
                missing.join(", ")
            )
        })
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What an emitter produced for a batch: one translation unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// LLVM IR text (the widening route), built by `llc-19`.
    LlvmIr(String),
    /// C text (the scalar-lane route), built by gcc with [`C_FLAGS`].
    C(String),
}

impl Source {
    /// The text.
    pub fn text(&self) -> &str {
        match self {
            Source::LlvmIr(t) | Source::C(t) => t,
        }
    }

    /// The file extension of the text.
    pub fn extension(&self) -> &'static str {
        match self {
            Source::LlvmIr(_) => "ll",
            Source::C(_) => "c",
        }
    }
}

/// Why building or running native code failed (outcomes of the kernels, such
/// as a signal, are [`protocol::Status`], not errors).
#[derive(Debug)]
pub enum NativeError {
    /// A tool is not installed.
    ToolMissing {
        /// The command.
        tool: &'static str,
        /// The apt package that provides it.
        package: &'static str,
    },
    /// A build step failed.
    Build {
        /// The command line.
        command: String,
        /// What it printed.
        stderr: String,
    },
    /// The runner failed as a whole (not one kernel).
    Runner(String),
    /// The program ran past the wall-clock limit and was killed.
    Timeout(Duration),
    /// A file could not be written or read.
    Io(String),
    /// The runner's output does not follow the protocol.
    Protocol(String),
    /// A build step was stopped before it ended (its deadline came), and
    /// killed with every process it started.
    Stopped {
        /// The command line.
        command: String,
    },
}

impl fmt::Display for NativeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NativeError::ToolMissing { tool, package } => write!(
                f,
                "{tool} is not installed (apt-get install {package}; scripts/test-all.sh installs it)"
            ),
            NativeError::Build { command, stderr } => {
                write!(f, "build failed: {command}\n{}", stderr.trim_end())
            }
            NativeError::Runner(why) => write!(f, "the runner failed: {why}"),
            NativeError::Timeout(d) => write!(
                f,
                "the native program ran longer than {} s and was killed",
                d.as_secs()
            ),
            NativeError::Io(why) => write!(f, "{why}"),
            NativeError::Protocol(why) => write!(f, "bad runner output: {why}"),
            NativeError::Stopped { command } => write!(
                f,
                "stopped at the time limit before it ended, and killed: {command}"
            ),
        }
    }
}

impl std::error::Error for NativeError {}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> NativeError {
    NativeError::Io(format!("{what} {}: {e}", path.display()))
}

/// A tool and the apt package that provides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tool {
    /// The command.
    pub command: &'static str,
    /// Its apt package.
    pub package: &'static str,
}

/// `llc-19`.
pub const LLC: Tool = Tool {
    command: "llc-19",
    package: "llvm-19",
};
/// The host C compiler and linker.
pub const GCC: Tool = Tool {
    command: "gcc",
    package: "gcc",
};
/// The AArch64 cross compiler and linker.
pub const CROSS_GCC: Tool = Tool {
    command: "aarch64-linux-gnu-gcc",
    package: "gcc-aarch64-linux-gnu",
};
/// The AArch64 user-mode emulator.
pub const QEMU: Tool = Tool {
    command: "qemu-aarch64",
    package: "qemu-user",
};

impl Tool {
    /// Whether the tool runs (`--version` succeeds).
    pub fn is_installed(self) -> bool {
        Command::new(self.command)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// The tool, or [`NativeError::ToolMissing`].
    pub fn require(self) -> Result<Tool, NativeError> {
        if self.is_installed() {
            Ok(self)
        } else {
            Err(NativeError::ToolMissing {
                tool: self.command,
                package: self.package,
            })
        }
    }

    /// The first line of `--version` (part of the runner cache's key).
    fn version(self) -> String {
        Command::new(self.command)
            .arg("--version")
            .output()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .unwrap_or_default()
    }
}

/// The tools a target and source kind need, in the order they are used.
pub fn tools_for(target: Target, source: &Source) -> Vec<Tool> {
    let cc = if target.is_aarch64() { CROSS_GCC } else { GCC };
    let mut tools = Vec::new();
    if matches!(source, Source::LlvmIr(_)) {
        tools.push(LLC);
    }
    tools.push(cc);
    if target.is_aarch64() {
        tools.push(QEMU);
    }
    tools
}

/// The tools, each checked; the first missing one is the error.
pub struct Toolchain {
    /// The C compiler and linker of the target.
    pub cc: Tool,
    /// Whether runs go through `qemu-aarch64`.
    pub emulated: bool,
}

impl Toolchain {
    /// Checks every tool `target` and `source` need.
    pub fn for_target(target: Target, source: &Source) -> Result<Toolchain, NativeError> {
        for tool in tools_for(target, source) {
            tool.require()?;
        }
        Ok(Toolchain {
            cc: if target.is_aarch64() { CROSS_GCC } else { GCC },
            emulated: target.is_aarch64(),
        })
    }
}

/// A linked program: kernels and runner.
#[derive(Clone, Debug)]
pub struct Program {
    /// The executable.
    pub path: PathBuf,
    /// The target it was built for.
    pub target: Target,
}

/// How often [`run_tool`] looks at its deadline while a tool runs.
const DEADLINE_POLL: Duration = Duration::from_millis(5);

/// Why [`run_tool`] gave no output.
#[derive(Debug)]
pub enum ToolError {
    /// The tool could not be started (or waited for).
    Start(std::io::Error),
    /// Writing its standard input failed while it ended successfully.
    Input(std::io::Error),
    /// The deadline came first: the tool and every process it started were
    /// killed ([`kill_tree`]).
    Stopped,
}

/// Runs `command` to its end with `input` (if any) on its standard input,
/// collecting its standard output and error, as [`Command::output`] does;
/// unless `deadline` comes first: the tool is then killed with every process it
/// started ([`kill_tree`]: gcc's `cc1`, `as` and `ld` with the driver, never
/// left running), waited for, and the answer is [`ToolError::Stopped`]. No tool
/// is started once the deadline has passed.
pub fn run_tool(
    command: &mut Command,
    input: Option<&[u8]>,
    deadline: Option<Instant>,
) -> Result<Output, ToolError> {
    use std::io::{Read, Write};
    let passed = || deadline.is_some_and(|d| Instant::now() >= d);
    if passed() {
        return Err(ToolError::Stopped);
    }
    command
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(ToolError::Start)?;
    // Standard input is written, and the outputs read, by threads of their
    // own: a tool that reads all its input before it writes (Graphviz's `dot`),
    // or writes much before it reads, cannot deadlock on a full pipe.
    let writer = match (child.stdin.take(), input) {
        (Some(mut pipe), Some(bytes)) => {
            let bytes = bytes.to_vec();
            Some(std::thread::spawn(move || pipe.write_all(&bytes)))
        }
        _ => None,
    };
    fn drain(pipe: Option<impl Read + Send + 'static>) -> Option<std::thread::JoinHandle<Vec<u8>>> {
        pipe.map(|mut p| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = p.read_to_end(&mut bytes);
                bytes
            })
        })
    }
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = if deadline.is_some() {
        loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                // The threads end when the pipes close with the processes.
                Ok(None) if passed() => {
                    kill_tree(&mut child);
                    return Err(ToolError::Stopped);
                }
                Ok(None) => std::thread::sleep(DEADLINE_POLL),
                Err(e) => return Err(ToolError::Start(e)),
            }
        }
    } else {
        child.wait().map_err(ToolError::Start)?
    };
    let joined = |t: Option<std::thread::JoinHandle<Vec<u8>>>| {
        t.map(|t| t.join().unwrap_or_default()).unwrap_or_default()
    };
    let output = Output {
        status,
        stdout: joined(stdout),
        stderr: joined(stderr),
    };
    if let Some(writer) = writer
        && let Ok(Err(e)) = writer.join()
        && output.status.success()
    {
        return Err(ToolError::Input(e));
    }
    Ok(output)
}

/// Kills `child` and every process it started, their children included (gcc's
/// `cc1`, `as` and `ld`; the runner's forked kernel run, which would otherwise
/// run on until its alarm), and waits for `child`. Each process is stopped
/// (SIGSTOP) as it is found, so that none starts another behind the search
/// and none that ends can be reaped (and its id reused) before the kill; then
/// all are killed (SIGKILL). Descendants are found by the parent ids in
/// `/proc/PID/stat`. The processes stay in pllvm's process group, so Ctrl-C
/// at a terminal still reaches them as it always did.
pub fn kill_tree(child: &mut std::process::Child) {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let Ok(root) = i32::try_from(child.id()) else {
        let _ = child.kill();
        let _ = child.wait();
        return;
    };
    let mut found = vec![root];
    let _ = kill(Pid::from_raw(root), Signal::SIGSTOP);
    loop {
        let new: Vec<i32> = parent_ids()
            .into_iter()
            .filter(|(pid, parent)| found.contains(parent) && !found.contains(pid))
            .map(|(pid, _)| pid)
            .collect();
        if new.is_empty() {
            break;
        }
        for pid in new {
            let _ = kill(Pid::from_raw(pid), Signal::SIGSTOP);
            found.push(pid);
        }
    }
    for &pid in found.iter().rev() {
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
    let _ = child.wait();
}

/// Every process's id and its parent's, from `/proc/PID/stat` (`PID (NAME) S
/// PPID ...`, where NAME may hold spaces and parentheses: the fields after its
/// last `)` are read).
fn parent_ids() -> Vec<(i32, i32)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let parent = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?;
            Some((pid, parent.parse().ok()?))
        })
        .collect()
}

/// Runs a build command until it ends or `deadline` comes, turning a failure
/// into [`NativeError::Build`] and the deadline into [`NativeError::Stopped`].
fn run_build(mut command: Command, deadline: Option<Instant>) -> Result<(), NativeError> {
    let line = format!("{command:?}").replace('"', "");
    let output = match run_tool(&mut command, None, deadline) {
        Ok(output) => output,
        Err(ToolError::Stopped) => return Err(NativeError::Stopped { command: line }),
        Err(ToolError::Start(e) | ToolError::Input(e)) => {
            return Err(NativeError::Io(format!("cannot start {line}: {e}")));
        }
    };
    if output.status.success() {
        Ok(())
    } else {
        Err(NativeError::Build {
            command: line,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        })
    }
}

/// Compiles `source` for `target` into the object `object` (no linking):
/// `llc-19 -O2 -filetype=obj` with the target's CPU for LLVM IR, the target's
/// gcc with [`C_FLAGS`] for C. The source text is written next to the object.
pub fn compile_object(target: Target, source: &Source, object: &Path) -> Result<(), NativeError> {
    compile_object_until(target, source, object, None)
}

/// [`compile_object`] that `deadline` ends: the tool is killed when it comes
/// ([`run_tool`]), and the answer is [`NativeError::Stopped`].
pub fn compile_object_until(
    target: Target,
    source: &Source,
    object: &Path,
    deadline: Option<Instant>,
) -> Result<(), NativeError> {
    let tools = Toolchain::for_target(target, source)?;
    let text_path = object.with_extension(source.extension());
    std::fs::write(&text_path, source.text())
        .map_err(|e| io_error("cannot write", &text_path, e))?;
    let mut command = match source {
        Source::LlvmIr(_) => {
            let mut c = Command::new(LLC.command);
            c.args(["-O2", "-filetype=obj"]);
            match target.vector() {
                Some(vector) => c.args(vector.llc_flags()),
                None => c.args(["-mcpu=x86-64", "-relocation-model=pic"]),
            };
            c
        }
        Source::C(_) => {
            let mut c = Command::new(tools.cc.command);
            c.args(C_FLAGS).arg("-c");
            c
        }
    };
    command.arg("-o").arg(object).arg(&text_path);
    run_build(command, deadline)
}

/// Builds `source` for `target` in `dir`: the kernels' object, the runner's
/// (from the cache, compiled on first use), linked into `dir/prog`.
pub fn build(target: Target, source: &Source, dir: &Path) -> Result<Program, NativeError> {
    build_until(target, source, dir, None)
}

/// [`build`] that `deadline` ends: the tool running when it comes is killed
/// with every process it started ([`run_tool`]), no tool starts after it, and
/// the answer is [`NativeError::Stopped`].
pub fn build_until(
    target: Target,
    source: &Source,
    dir: &Path,
    deadline: Option<Instant>,
) -> Result<Program, NativeError> {
    let tools = Toolchain::for_target(target, source)?;
    std::fs::create_dir_all(dir).map_err(|e| io_error("cannot create", dir, e))?;
    let object = dir.join("kernels.o");
    compile_object_until(target, source, &object, deadline)?;
    let runner = runner_object_until(tools.cc, deadline)?;
    let path = dir.join("prog");
    let mut link = Command::new(tools.cc.command);
    if target.is_aarch64() {
        link.arg("-static");
    }
    link.arg("-o")
        .arg(&path)
        .arg(&object)
        .arg(&runner)
        .arg("-lm");
    run_build(link, deadline)?;
    Ok(Program { path, target })
}

/// Where compiled runners are kept: `$PLLVM_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/pllvm`, else `~/.cache/pllvm`, else the temp directory.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PLLVM_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("pllvm");
    }
    if let Some(home) = std::env::var_os("HOME") {
        return PathBuf::from(home).join(".cache").join("pllvm");
    }
    std::env::temp_dir().join("pllvm-cache")
}

/// The runner's object for compiler `cc`, compiled once and cached under a key
/// made of the runner's text, the compiler's name and its version. A new object
/// is written to a private name and renamed into place, so concurrent builds
/// never see half a file.
pub fn runner_object(cc: Tool) -> Result<PathBuf, NativeError> {
    runner_object_until(cc, None)
}

/// [`runner_object`] whose compile `deadline` ends ([`run_tool`]).
fn runner_object_until(cc: Tool, deadline: Option<Instant>) -> Result<PathBuf, NativeError> {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    RUNNER_C.hash(&mut hasher);
    cc.command.hash(&mut hasher);
    cc.version().hash(&mut hasher);
    let dir = cache_dir();
    std::fs::create_dir_all(&dir).map_err(|e| io_error("cannot create", &dir, e))?;
    let object = dir.join(format!("runner-{}-{:016x}.o", cc.command, hasher.finish()));
    if object.exists() {
        return Ok(object);
    }
    let private = dir.join(format!("runner-{}-{}.tmp", std::process::id(), unique()));
    let source = private.with_extension("c");
    std::fs::write(&source, RUNNER_C).map_err(|e| io_error("cannot write", &source, e))?;
    let mut command = Command::new(cc.command);
    command.args(["-O1", "-c", "-o"]).arg(&private).arg(&source);
    let built = run_build(command, deadline);
    let _ = std::fs::remove_file(&source);
    if built.is_err() {
        // A compile stopped part way may have left half an object.
        let _ = std::fs::remove_file(&private);
    }
    built?;
    std::fs::rename(&private, &object).map_err(|e| io_error("cannot write", &object, e))?;
    Ok(object)
}

/// A number unique in this process (for private file names).
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A fresh working directory under the system's temp directory, removed when
/// dropped (set `PLLVM_KEEP_NATIVE=1` to keep it for inspection).
#[derive(Debug)]
pub struct WorkDir {
    path: PathBuf,
}

impl WorkDir {
    /// Creates `$TMPDIR/pllvm-native-<pid>-<n>`.
    pub fn new() -> Result<WorkDir, NativeError> {
        let path =
            std::env::temp_dir().join(format!("pllvm-native-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&path).map_err(|e| io_error("cannot create", &path, e))?;
        Ok(WorkDir { path })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if std::env::var_os("PLLVM_KEEP_NATIVE").is_none() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

impl Program {
    /// Runs the program on `runs` (one kernel run each, in order) and returns
    /// one result per run. Each kernel run gets `kernel_timeout` seconds (the
    /// runner's alarm); the whole program is killed after `wall` (the Rust
    /// side's own limit, for a runner that hangs outside a kernel).
    pub fn run(
        &self,
        runs: &[RunInput],
        kernel_timeout: u32,
        wall: Duration,
    ) -> Result<Vec<RunResult>, NativeError> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let n = unique();
        let input = dir.join(format!("in-{n}.txt"));
        let output = dir.join(format!("out-{n}.txt"));
        let text = protocol::encode_input(runs, kernel_timeout);
        std::fs::write(&input, text).map_err(|e| io_error("cannot write", &input, e))?;
        let mut command = if self.target.is_aarch64() {
            let mut c = Command::new(QEMU.command);
            c.arg(&self.path);
            c
        } else {
            Command::new(&self.path)
        };
        command.arg(&input).arg(&output);
        // `run_tool` kills the runner with the kernel run it forked (under qemu
        // too) when `wall` is over, and drains its standard error meanwhile.
        let deadline = Instant::now().checked_add(wall);
        let out = run_tool(&mut command, None, deadline).map_err(|e| match e {
            ToolError::Stopped => NativeError::Timeout(wall),
            ToolError::Start(e) | ToolError::Input(e) => {
                NativeError::Runner(format!("cannot run {}: {e}", self.path.display()))
            }
        })?;
        if !out.status.success() {
            return Err(NativeError::Runner(format!(
                "{}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim_end()
            )));
        }
        let text =
            std::fs::read_to_string(&output).map_err(|e| io_error("cannot read", &output, e))?;
        let _ = std::fs::remove_file(&input);
        let _ = std::fs::remove_file(&output);
        let results = protocol::decode_output(&text).map_err(NativeError::Protocol)?;
        if results.len() != runs.len() {
            return Err(NativeError::Protocol(format!(
                "{} results for {} runs",
                results.len(),
                runs.len()
            )));
        }
        Ok(results)
    }
}

/// Why a batch could not be emitted: the emitter refused a construct of a kernel.
pub type EmitError = crate::error::TransformError;

impl Target {
    /// The instruction set the widening targets, `None` for the scalar C route.
    pub fn vector(self) -> Option<crate::widen::VectorTarget> {
        match self {
            Target::Avx2 => Some(crate::widen::VectorTarget::Avx2),
            Target::Avx512 => Some(crate::widen::VectorTarget::Avx512),
            Target::Neon => Some(crate::widen::VectorTarget::Neon),
            Target::ScalarC => None,
        }
    }
}

/// What the emitters need besides the kernels (each of which says which of its
/// parameters the pipeline treated as uniform): W, and the analysis the
/// pipeline used, so that the widening keeps scalar exactly what the transforms
/// treated as uniform.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// W, the lanes of a chunk.
    pub width: usize,
    /// The analysis the pipeline used.
    pub analysis: pllvm_analysis::result::AnalysisKind,
    /// The pipeline ended in partial linearization or full if-conversion
    /// ([`crate::widen::WidenOptions::linearized`]).
    pub linearized: bool,
}

/// The one place that picks an emitter for a target: the scalar-lane C route
/// for [`Target::ScalarC`] ([`crate::scalar_c::emit_c_batch`]), the widening to
/// vector LLVM IR for the others ([`crate::widen::widen_batch`]).
pub fn emit(
    target: Target,
    kernels: &[crate::kernel::Kernel<'_>],
    options: &EmitOptions,
) -> Result<Source, EmitError> {
    match target.vector() {
        None => crate::scalar_c::emit_c_batch(kernels, options.width).map(Source::C),
        Some(vector) => {
            let widen = crate::widen::WidenOptions {
                width: Some(options.width),
                analysis: options.analysis,
                linearized: options.linearized,
                ..crate::widen::WidenOptions::new(vector)
            };
            crate::widen::widen_batch(kernels, &widen).map(Source::LlvmIr)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Target;

    /// The features a target needs, looked up in `/proc/cpuinfo` texts: an AVX2
    /// machine without AVX-512 lacks the five AVX-512 subsets x86-64-v4 asks
    /// for; another architecture (no `flags` line) lacks them all; NEON and the
    /// scalar C route need nothing of the host.
    #[test]
    fn missing_cpu_features_are_named() {
        let avx2_only =
            "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 bmi1 bmi2 f16c fma abm movbe xsave\n";
        assert!(Target::Avx2.missing_features(avx2_only).is_empty());
        assert_eq!(
            Target::Avx512.missing_features(avx2_only),
            ["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"]
        );
        let arm = "processor\t: 0\nFeatures\t: fp asimd evtstrm\n";
        assert_eq!(Target::Avx2.missing_features(arm).len(), 9);
        assert!(Target::Neon.missing_features(arm).is_empty());
        assert!(Target::ScalarC.missing_features("").is_empty());
    }
}
