//! What the `pllvm` end-to-end tests share: running the binary (with or without
//! standard input), reading its output, fresh files, corpus paths, and the peak
//! resident set of the children a test has run.
//!
//! Each test binary uses part of it.
#![allow(
    dead_code,
    reason = "each test binary uses a different part of the module"
)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A program whose lane 1 divides by zero in line 3 when run with `--arg x=6
/// --arg y=3,0`: [W-INST-LLVM].
pub(crate) const DIVISION: &str = "define i32 @f(i32 %x, i32 %y) {\n\
                            entry:\n  %q = sdiv i32 %x, %y\n  ret i32 %q\n}\n";

/// The inputs under which [`DIVISION`]'s lane 1 divides by zero.
pub(crate) const DIVISION_INPUTS: [&str; 6] = ["--threads", "2", "--arg", "x=6", "--arg", "y=3,0"];

/// The inputs of Fig. 4.5's run (`corpus/semantics/fig4.5-control-mechanics.ll`):
/// W = 2, the thesis's schedule, x = 0, 1.
pub(crate) const FIG45_INPUTS: [&str; 6] = [
    "--threads",
    "2",
    "--schedule",
    "A,B,C,D,E",
    "--arg",
    "x=0,1",
];

/// A function of `n` diamonds in a row, each branching on a varying condition
/// and joining with a phi: 3n + 2 blocks, which the analyses and the
/// transforms take seconds on in a test build.
pub(crate) fn diamonds(n: usize) -> String {
    use std::fmt::Write as _;
    let mut s = String::from(
        "define i32 @f(i32 %x) {\nentry:\n  %c = icmp slt i32 %x, 5\n  br label %b0\n",
    );
    for k in 0..n {
        let _ = write!(
            s,
            "b{k}:\n  br i1 %c, label %t{k}, label %e{k}\nt{k}:\n  br label %e{k}\ne{k}:\n  %v{k} = phi i32 [1, %b{k}], [2, %t{k}]\n  br label %b{}\n",
            k + 1
        );
    }
    let _ = write!(s, "b{n}:\n  ret i32 0\n}}\n");
    s
}

/// `pllvm COMMAND FILE INPUTS... EXTRA...`.
pub(crate) fn pllvm_on(command: &str, file: &str, inputs: &[&str], extra: &[&str]) -> Output {
    pllvm(&[&[command, file][..], inputs, extra].concat())
}

/// Fails (never passes silently) when `tool` is missing, naming its apt package.
/// A tool answers `--version`, or `-V` (Graphviz's `dot`).
pub(crate) fn require(tool: &str, package: &str) {
    let ok = ["--version", "-V"].iter().any(|flag| {
        Command::new(tool)
            .arg(flag)
            .output()
            .is_ok_and(|o| o.status.success())
    });
    assert!(
        ok,
        "{tool} is missing: this test needs it (apt-get install {package}, or scripts/test-all.sh)"
    );
}

/// `pllvm ARGS` with nothing on its standard input.
pub(crate) fn pllvm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run pllvm")
}

/// `pllvm ARGS` with `input` on its standard input.
pub(crate) fn pllvm_with_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pllvm");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("pllvm")
}

/// Standard output, lossily decoded.
pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// Standard error, lossily decoded.
pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// The exit code (a test fails if a signal killed the process).
pub(crate) fn code(o: &Output) -> i32 {
    o.status.code().expect("exited, not killed by a signal")
}

/// The path of a file of the corpus, as `semantics/fig4.5-control-mechanics.ll`.
pub(crate) fn corpus(path: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus")
        .join(path)
        .display()
        .to_string()
}

/// A fresh file holding `contents`, named `name` in a folder of its own: tests run
/// in parallel threads, so no two calls share a path.
pub(crate) fn temp_file(name: &str, contents: impl AsRef<[u8]>) -> String {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("pllvm-test-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write temp file");
    path.display().to_string()
}

/// The largest peak resident set of any child this process has waited for, in
/// bytes (`getrusage(RUSAGE_CHILDREN)`'s `ru_maxrss`; Linux counts KiB). It bounds
/// the peak of the child just waited for from above, so a test may assert that a
/// child stayed below a bound, never that it reached one.
pub(crate) fn children_peak_rss() -> u64 {
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage");
    u64::try_from(usage.max_rss()).unwrap_or(0) * 1024
}

/// clang-19's flags for an OpenCL C kernel for amdgcn, without device libraries.
pub(crate) const AMDGCN_OPENCL: &[&str] = &[
    "-x",
    "cl",
    "-cl-std=CL2.0",
    "-target",
    "amdgcn-amd-amdhsa",
    "-mcpu=gfx1030",
    "-nogpulib",
];

/// clang-19's flags for the device side of a CUDA kernel for nvptx, without the
/// CUDA headers and libraries.
pub(crate) const NVPTX_CUDA: &[&str] = &[
    "-x",
    "cuda",
    "--cuda-device-only",
    "-nocudainc",
    "-nocudalib",
    "--cuda-gpu-arch=sm_70",
];

/// `clang-19 TARGET_FLAGS -O1 -fno-vectorize -fno-slp-vectorize -S -emit-llvm SRC
/// -o OUT`, the IR pllvm reads (docs/launch.md); fails the test when clang-19 is
/// missing or fails.
pub(crate) fn clang_ir(src: &Path, target_flags: &[&str], out: &Path) {
    require("clang-19", "clang-19");
    let o = Command::new("clang-19")
        .args(target_flags)
        .args([
            "-O1",
            "-fno-vectorize",
            "-fno-slp-vectorize",
            "-S",
            "-emit-llvm",
        ])
        .arg(src)
        .arg("-o")
        .arg(out)
        .output()
        .expect("run clang-19");
    assert!(
        o.status.success(),
        "clang-19 failed on {}: {}",
        src.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}
