//! Speed of the widened SIMD code (issue 17, "faster than ISPC"): Mandelbrot and
//! the XSBench binary search of `corpus/kernels/`, compiled the way `pllvm
//! compile` compiles them (the transforms `nonneg-div,dlt,boscc,pl`, [`native::emit`],
//! [`native::compile_object`]: `llc-19 -O2`), against the same kernels written in
//! C here and compiled by `gcc -O3 -march=native -ffp-contract=off` (scalar) and
//! `clang-19 -O3 -march=native -ffp-contract=off` (LLVM's own auto-vectorizer).
//! A C driver written here calls the chunk functions of the native ABI
//! (`docs/native.md`) over the whole launch and each peer over the same inputs,
//! in one process, best of several repetitions of the thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`: on a shared machine the time the driver waits for
//! a core is not the kernel's; every kernel and peer is single-threaded, so on a
//! quiet machine this is the wall time), and counts the lanes whose
//! result differs from gcc's (there must be none: the inputs make every float
//! operation exactly reproducible).
//!
//! Rows: the default configuration of each target (what `pllvm compile` builds),
//! the same without the body for full chunks ([`WidenOptions::full_chunks`])
//! and, for the mask decision of [`VectorTarget::default_mask`], the other mask
//! representation and the native W (through [`widen::widen_batch`] with
//! explicit options). NEON runs under `qemu-aarch64`: its times are measured
//! and printed but say nothing about NEON hardware. AVX-512 runs only if the
//! CPU has it (else the rows say so). Then the compile path: per kernel alone
//! (transforms, emit, `llc-19`, link with the runner) and per kernel in one
//! batch of 100 (one emit, one `llc-19`, one link).
//!
//! Run: `cargo bench -p pllvm-codegen --bench native_speed`. Tools: llc-19,
//! gcc, clang-19, aarch64-linux-gnu-gcc, qemu-aarch64; a missing one fails the
//! benchmark naming its Debian package.

use pllvm_codegen::kernel::Kernel;
use pllvm_codegen::native::{self, EmitOptions, Source, Target, WorkDir};
use pllvm_codegen::pipeline::{NATIVE_PASSES, Options, parse_passes, run_passes};
use pllvm_codegen::uniform::AnalysisChoice;
use pllvm_codegen::widen::{self, MaskRepr, VectorTarget, WidenOptions};
use pllvm_semantics::ir::{FuncId, Module};
use pllvm_semantics::text::parse_module;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// A kernel of the corpus and the C it is compared with.
struct Case {
    /// The file under `corpus/kernels/`.
    file: &'static str,
    /// The name in the table.
    label: &'static str,
    /// The parameters every thread gets the same value of.
    uniform: &'static [&'static str],
    /// The driver's number for it.
    index: u32,
}

const CASES: [Case; 2] = [
    Case {
        file: "mandelbrot.ll",
        label: "mandelbrot 1024x512, maxit 256",
        uniform: &["maxit"],
        index: 0,
    },
    Case {
        file: "xsbench-binary-search.ll",
        label: "binary search, 2^20 queries, 32768-entry table (256 KiB, in L2)",
        uniform: &["n", "A"],
        index: 1,
    },
];

/// The peers: the kernels as their corpus files' comments write them in C.
/// `PEER(x)` names each compiler's copy.
const PEER_C: &str = r#"
#include <stdint.h>
int PEER(mandel)(float cx, float cy, int maxit) {
  float x = 0, y = 0; int i = 0;
  while (i < maxit && x * x + y * y <= 4.0f) {
    float xt = x * x - y * y + cx;
    y = 2 * x * y + cy; x = xt; i++;
  }
  return i;
}
long PEER(search)(long n, double quarry, const double *A) {
  long lowerLimit = 0, upperLimit = n - 1;
  long length = upperLimit - lowerLimit;
  while (length > 1) {
    long e = lowerLimit + length / 2;
    if (A[e] > quarry) upperLimit = e; else lowerLimit = e;
    length = upperLimit - lowerLimit;
  }
  return lowerLimit;
}
void PEER(mandel_all)(const float *cx, const float *cy, int maxit, long n, uint64_t *ret) {
  for (long t = 0; t < n; t++) ret[t] = (uint32_t)PEER(mandel)(cx[t], cy[t], maxit);
}
void PEER(search_all)(long tn, const double *q, const double *A, long n, uint64_t *ret) {
  for (long t = 0; t < n; t++) ret[t] = (uint64_t)PEER(search)(tn, q[t], A);
}
"#;

/// The driver: `./bench KERNEL REPS` prints `gcc_ms clang_ms pllvm_ms W
/// mismatches` (best of REPS each; mismatches against gcc's results).
const DRIVER_C: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef void (*chunk_fn)(uint64_t, uint64_t, const uint64_t *, uint64_t, uint64_t *, uint8_t *const *);
struct pllvm_kernel { const char *name; uint64_t width; chunk_fn chunk; };
extern const struct pllvm_kernel pllvm_kernels[];
void gcc_mandel_all(const float *, const float *, int, long, uint64_t *);
void clang_mandel_all(const float *, const float *, int, long, uint64_t *);
void gcc_search_all(long, const double *, const double *, long, uint64_t *);
void clang_search_all(long, const double *, const double *, long, uint64_t *);
static double now(void) {
  struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static void launch(const struct pllvm_kernel *k, const uint64_t *args, uint64_t n, uint64_t *ret) {
  for (uint64_t b = 0; b < n; b += k->width)
    k->chunk(b, n - b < k->width ? n - b : k->width, args, n, ret, 0);
}
int main(int argc, char **argv) {
  if (argc < 3) return 2;
  int which = atoi(argv[1]), reps = atoi(argv[2]);
  const struct pllvm_kernel *k = &pllvm_kernels[0];
  long n; uint64_t *args, *ret, *want, *other;
  double best[3] = {1e300, 1e300, 1e300};
  float *cx = 0, *cy = 0; double *A = 0, *q = 0;
  long tn = 32768; int maxit = 256;
  if (which == 0) {
    long W = 1024, H = 512; n = W * H;
    cx = malloc(n * 4); cy = malloc(n * 4);
    args = malloc(3 * n * 8);
    for (long j = 0; j < H; j++)
      for (long i = 0; i < W; i++) {
        long t = j * W + i; uint32_t b;
        cx[t] = -2.0f + 3.0f * i / W; cy[t] = -1.0f + 2.0f * j / H;
        memcpy(&b, &cx[t], 4); args[t] = b;
        memcpy(&b, &cy[t], 4); args[n + t] = b;
        args[2 * n + t] = (uint32_t)maxit;
      }
  } else {
    n = 1 << 20; A = malloc(tn * 8); q = malloc(n * 8);
    args = malloc(3 * n * 8); srand(1);
    double acc = 0;
    for (long i = 0; i < tn; i++) { acc += (rand() % 1000) / 100.0; A[i] = acc; }
    for (long t = 0; t < n; t++) {
      q[t] = (double)rand() / RAND_MAX * acc;
      args[t] = (uint64_t)tn; memcpy(&args[n + t], &q[t], 8);
      args[2 * n + t] = (uint64_t)(uintptr_t)A;
    }
  }
  ret = calloc(n, 8); want = calloc(n, 8); other = calloc(n, 8);
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    if (which == 0) gcc_mandel_all(cx, cy, maxit, n, want); else gcc_search_all(tn, q, A, n, want);
    double t1 = now();
    if (which == 0) clang_mandel_all(cx, cy, maxit, n, other); else clang_search_all(tn, q, A, n, other);
    double t2 = now();
    launch(k, args, n, ret);
    double t3 = now();
    if (t1 - t0 < best[0]) best[0] = t1 - t0;
    if (t2 - t1 < best[1]) best[1] = t2 - t1;
    if (t3 - t2 < best[2]) best[2] = t3 - t2;
  }
  long bad = 0;
  for (long t = 0; t < n; t++) bad += (ret[t] != want[t]) + (other[t] != want[t]);
  printf("%.3f %.3f %.3f %lu %ld\n", best[0], best[1], best[2], (unsigned long)k->width, bad);
  return 0;
}
"#;

/// Fails the benchmark with `message`.
fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("native_speed: {message}");
    std::process::exit(1)
}

/// Runs `command`, failing with its stderr (and `package` if it cannot start).
fn run(command: &mut Command, package: &str) -> String {
    let line = format!("{command:?}");
    let output = command.output().unwrap_or_else(|e| {
        fail(format!(
            "cannot start {line} ({e}): install the Debian package {package}"
        ))
    });
    if !output.status.success() {
        fail(format!(
            "{line} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A corpus kernel after the transforms the native route runs for `target`
/// ([`NATIVE_PASSES`], live-outs kept as [`Target::live_outs`] says).
fn transformed(case: &Case, target: Target) -> (Module, FuncId) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/kernels")
        .join(case.file);
    let src = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| fail(format!("cannot read {}: {e}", path.display())));
    let (module, _) = parse_module(&src).unwrap_or_else(|e| fail(format!("{}: {e:?}", case.file)));
    let func = module
        .functions
        .iter()
        .find(|(_, f)| f.body.is_some())
        .map(|(id, _)| id)
        .unwrap_or_else(|| fail(format!("{}: no function", case.file)));
    let options = Options {
        uniform_args: uniform(case),
        live_outs: target.live_outs(),
        ..Options::default()
    };
    let passes = parse_passes(NATIVE_PASSES).unwrap_or_else(|e| fail(e));
    let stages = run_passes(&module, func, &passes, &options)
        .unwrap_or_else(|e| fail(format!("{}: {e}", case.file)));
    let module = stages.into_iter().last().map_or(module, |s| s.module);
    (module, func)
}

fn uniform(case: &Case) -> Vec<String> {
    case.uniform.iter().map(|s| s.to_string()).collect()
}

/// The user's path: [`native::emit`] with the target's defaults.
fn emit_default(target: Target, kernels: &[Kernel<'_>]) -> Source {
    let vector = target
        .vector()
        .unwrap_or_else(|| fail("not a vector target"));
    let options = EmitOptions {
        width: vector.default_width(),
        analysis: AnalysisChoice::Best,
        linearized: true,
    };
    native::emit(target, kernels, &options).unwrap_or_else(|e| fail(e))
}

/// The widening with an explicit mask representation, W, and with or without
/// the body for full chunks.
fn emit_with(
    vector: VectorTarget,
    kernels: &[Kernel<'_>],
    case: &Case,
    mask: MaskRepr,
    width: usize,
    full_chunks: bool,
) -> Source {
    let options = WidenOptions {
        width: Some(width),
        mask: Some(mask),
        uniform_args: uniform(case),
        linearized: true,
        full_chunks,
        ..WidenOptions::new(vector)
    };
    Source::LlvmIr(widen::widen_batch(kernels, &options).unwrap_or_else(|e| fail(e)))
}

/// The objects of the driver and the two peers for `target`, compiled once.
struct Peers {
    driver: PathBuf,
    gcc: PathBuf,
    clang: PathBuf,
}

fn peers(dir: &Path, target: Target) -> Peers {
    let aarch64 = target.is_aarch64();
    let peer = dir.join("peer.c");
    let driver = dir.join("driver.c");
    std::fs::write(&peer, PEER_C).unwrap_or_else(|e| fail(e));
    std::fs::write(&driver, DRIVER_C).unwrap_or_else(|e| fail(e));
    let suffix = target.name();
    let (gcc, gcc_pkg) = if aarch64 {
        ("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu")
    } else {
        ("gcc", "gcc")
    };
    let out = Peers {
        driver: dir.join(format!("driver-{suffix}.o")),
        gcc: dir.join(format!("peer-gcc-{suffix}.o")),
        clang: dir.join(format!("peer-clang-{suffix}.o")),
    };
    run(
        Command::new(gcc)
            .args(["-O2", "-c", "-o"])
            .arg(&out.driver)
            .arg(&driver),
        gcc_pkg,
    );
    let march = if aarch64 {
        "-march=armv8-a"
    } else {
        "-march=native"
    };
    run(
        Command::new(gcc)
            .args([
                "-O3",
                march,
                "-ffp-contract=off",
                "-DPEER(x)=gcc_##x",
                "-c",
                "-o",
            ])
            .arg(&out.gcc)
            .arg(&peer),
        gcc_pkg,
    );
    let mut clang = Command::new("clang-19");
    if aarch64 {
        clang.arg("--target=aarch64-linux-gnu");
    }
    run(
        clang
            .args([
                "-O3",
                march,
                "-ffp-contract=off",
                "-DPEER(x)=clang_##x",
                "-c",
                "-o",
            ])
            .arg(&out.clang)
            .arg(&peer),
        "clang-19",
    );
    out
}

/// One measurement: gcc, clang and pllvm milliseconds, W.
struct Timing {
    gcc: f64,
    clang: f64,
    pllvm: f64,
    width: u64,
}

/// Builds `source` for `target` into a driver program and runs it.
fn measure(
    dir: &Path,
    target: Target,
    peers: &Peers,
    source: &Source,
    case: &Case,
    tag: &str,
) -> Timing {
    let object = dir.join(format!("kernel-{tag}.o"));
    native::compile_object(target, source, &object).unwrap_or_else(|e| fail(e));
    let exe = dir.join(format!("bench-{tag}"));
    let mut link = if target.is_aarch64() {
        let mut c = Command::new("aarch64-linux-gnu-gcc");
        c.arg("-static");
        c
    } else {
        Command::new("gcc")
    };
    run(
        link.arg("-o")
            .arg(&exe)
            .arg(&peers.driver)
            .arg(&object)
            .arg(&peers.gcc)
            .arg(&peers.clang),
        "gcc",
    );
    // Best of 11: the machine may be shared, and one quiet repetition is enough.
    let reps = if target.is_aarch64() { "1" } else { "11" };
    let mut command = if target.is_aarch64() {
        let mut c = Command::new("qemu-aarch64");
        c.arg(&exe);
        c
    } else {
        Command::new(&exe)
    };
    let out = run(command.arg(case.index.to_string()).arg(reps), "qemu-user");
    let fields: Vec<&str> = out.split_whitespace().collect();
    let number = |k: usize| -> f64 {
        fields
            .get(k)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| fail(format!("the driver printed `{out}`")))
    };
    let bad = number(4);
    if bad != 0.0 {
        fail(format!(
            "{} on {tag}: {bad} lanes differ from gcc -O3's results",
            case.label
        ));
    }
    Timing {
        gcc: number(0),
        clang: number(1),
        pllvm: number(2),
        width: number(3) as u64,
    }
}

fn has_avx512() -> bool {
    std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|s| s.contains(" avx512f"))
}

fn mask_name(mask: MaskRepr) -> &'static str {
    match mask {
        MaskRepr::I1 => "<W x i1>",
        MaskRepr::I32 => "<W x i32>",
    }
}

fn main() {
    let work = WorkDir::new().unwrap_or_else(|e| fail(e));
    let dir = work.path().to_path_buf();
    println!("| kernel | target | masks | W | ms | vs gcc -O3 scalar | vs clang-19 -O3 |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for target in [Target::Avx2, Target::Avx512, Target::Neon] {
        let vector = target
            .vector()
            .unwrap_or_else(|| fail("not a vector target"));
        if target == Target::Avx512 && !has_avx512() {
            println!("| (all) | avx512 | | | not run: this CPU has no AVX-512 | | |");
            continue;
        }
        let peers = peers(&dir, target);
        let native_width = vector.default_width() / 2;
        let prepared: Vec<(Module, FuncId)> =
            CASES.iter().map(|case| transformed(case, target)).collect();
        for (case, (module, func)) in CASES.iter().zip(&prepared) {
            let uniform_args = uniform(case);
            let kernels = [Kernel {
                name: "k",
                module,
                function: *func,
                uniform_args: &uniform_args,
            }];
            let widening = WidenOptions {
                linearized: true,
                ..WidenOptions::new(vector)
            };
            let default_mask =
                widen::kernel_mask(&kernels[0], &widening).unwrap_or_else(|e| fail(e));
            let other_mask = match default_mask {
                MaskRepr::I1 => MaskRepr::I32,
                MaskRepr::I32 => MaskRepr::I1,
            };
            let mut rows: Vec<(String, Source)> = vec![(
                format!("{} (default)", mask_name(default_mask)),
                emit_default(target, &kernels),
            )];
            if !target.is_aarch64() {
                let width = vector.default_width();
                rows.push((
                    format!("{}, one body (no full-chunk body)", mask_name(default_mask)),
                    emit_with(vector, &kernels, case, default_mask, width, false),
                ));
                rows.push((
                    mask_name(other_mask).to_string(),
                    emit_with(vector, &kernels, case, other_mask, width, true),
                ));
                for mask in [default_mask, other_mask] {
                    rows.push((
                        mask_name(mask).to_string(),
                        emit_with(vector, &kernels, case, mask, native_width, true),
                    ));
                }
            }
            for (k, (masks, source)) in rows.iter().enumerate() {
                let tag = format!("{}-{}-{k}", target.name(), case.index);
                let t = measure(&dir, target, &peers, source, case, &tag);
                let target_name = if target.is_aarch64() {
                    "neon (qemu: not a speed)".to_string()
                } else {
                    target.name().to_string()
                };
                println!(
                    "| {} | {target_name} | {masks} | {} | {:.1} | {:.2}x | {:.2}x |",
                    case.label,
                    t.width,
                    t.pllvm,
                    t.gcc / t.pllvm,
                    t.clang / t.pllvm
                );
            }
        }
    }
    compile_times(&dir);
}

/// Compile path timings: per kernel alone, and per kernel in a batch of 100.
fn compile_times(dir: &Path) {
    println!();
    println!(
        "| target | kernel | alone (transforms, emit, llc-19, link) ms | in a batch of 100 (one emit, llc-19, link) ms per kernel |"
    );
    println!("| --- | --- | --- | --- |");
    for target in [Target::Avx2, Target::Avx512, Target::Neon] {
        // The runner's object is compiled once and cached: not part of a compile.
        let probe = Source::LlvmIr(String::new());
        let tools = native::Toolchain::for_target(target, &probe).unwrap_or_else(|e| fail(e));
        native::runner_object(tools.cc).unwrap_or_else(|e| fail(e));
        for case in &CASES {
            let started = Instant::now();
            let (module, func) = transformed(case, target);
            let uniform_args = uniform(case);
            let kernels = [Kernel {
                name: "k",
                module: &module,
                function: func,
                uniform_args: &uniform_args,
            }];
            let source = emit_default(target, &kernels);
            native::build(
                target,
                &source,
                &dir.join(format!("alone-{}-{}", target.name(), case.index)),
            )
            .unwrap_or_else(|e| fail(e));
            let alone = started.elapsed().as_secs_f64() * 1e3;
            let started = Instant::now();
            let modules: Vec<(Module, FuncId)> =
                (0..100).map(|_| transformed(case, target)).collect();
            let names: Vec<String> = (0..100).map(|k| format!("k{k}")).collect();
            let kernels: Vec<Kernel<'_>> = names
                .iter()
                .zip(&modules)
                .map(|(name, (module, func))| Kernel {
                    name,
                    module,
                    function: *func,
                    uniform_args: &uniform_args,
                })
                .collect();
            let source = emit_default(target, &kernels);
            native::build(
                target,
                &source,
                &dir.join(format!("batch-{}-{}", target.name(), case.index)),
            )
            .unwrap_or_else(|e| fail(e));
            let batch = started.elapsed().as_secs_f64() * 1e3 / 100.0;
            println!(
                "| {} | {} | {alone:.1} | {batch:.1} |",
                target.name(),
                case.file
            );
        }
    }
}
