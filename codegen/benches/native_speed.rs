//! Speed of the widened SIMD code (docs/design/overview.md "Performance targets": ahead
//! of ISPC): every kernel of
//! `corpus/kernels/` the native route takes (all but the irreducible
//! `state-machine.ll`, which the loop-based transforms refuse), compiled the way
//! `pllvm compile` compiles them (the transforms `nonneg-div,dlt,boscc,pl`, [`native::emit`],
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
//! Mandelbrot and the XSBench binary search (the kernels the issue sets targets
//! for) take their own typed peers; the others run 2^20 threads on inputs drawn
//! here, and their peers read the same argument words and globals the chunk
//! functions read (`PEER(run)`).
//!
//! Rows: the default configuration of each target (what `pllvm compile` builds);
//! for Mandelbrot and the binary search also the same without the body for full
//! chunks ([`WidenOptions::full_chunks`])
//! and, for the mask decision of [`VectorTarget::default_mask`], the other mask
//! representation and the native W (through [`widen::widen_batch`] with
//! explicit options). NEON runs under `qemu-aarch64`: its times are measured
//! and printed but say nothing about NEON hardware. AVX-512 runs only if the
//! CPU has it (else the rows say so). Then the compile path: per kernel alone
//! (transforms, emit, `llc-19`, link with the runner) and per kernel in one
//! batch of 100 (one emit, one `llc-19`, one link).
//!
//! Run: `cargo bench -p pllvm-codegen --bench native_speed` (`-- NAME...`: only
//! the kernels whose file names contain a NAME, without the compile table). Tools: llc-19,
//! gcc, clang-19, aarch64-linux-gnu-gcc, qemu-aarch64; a missing one fails the
//! benchmark naming its Debian package.

use pllvm_analysis::result::AnalysisKind;
use pllvm_codegen::kernel::Kernel;
use pllvm_codegen::native::{self, EmitOptions, Source, Target, WorkDir};
use pllvm_codegen::pipeline::{Options, native_passes, run_passes};
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
    /// Text replacements made to the file before it is parsed (arrays the
    /// corpus sizes for four threads, grown for the benchmark's 2^20).
    edits: &'static [(&'static str, &'static str)],
    /// Whether the table also measures the other mask, one body and the native
    /// W (the kernels the issue sets targets for), or only the default.
    variants: bool,
}

/// `uniform-control.ll`'s `in` and `out`, grown from 4 to 2^20 elements (the
/// constant `coef` keeps its 4).
const GROW_IN_OUT: &[(&str, &str)] = &[
    ("global [4 x i32]", "global [1048576 x i32]"),
    ("[4 x i32], ptr @in", "[1048576 x i32], ptr @in"),
    ("[4 x i32], ptr @out", "[1048576 x i32], ptr @out"),
];

const CASES: [Case; 8] = [
    Case {
        file: "mandelbrot.ll",
        label: "mandelbrot 1024x512, maxit 256",
        uniform: &["maxit"],
        index: 0,
        edits: &[],
        variants: true,
    },
    Case {
        file: "xsbench-binary-search.ll",
        label: "binary search, 2^20 queries, 32768-entry table (256 KiB, in L2)",
        uniform: &["n", "A"],
        index: 1,
        edits: &[],
        variants: true,
    },
    Case {
        file: "logstar.ll",
        label: "logstar, 2^20 values in [0.4, 1e10] (divergent loop, 1-5 trips, libm log)",
        uniform: &[],
        index: 2,
        edits: &[],
        variants: false,
    },
    Case {
        file: "safelog.ll",
        label: "safelog, 2^20 values in [-10, 100] (any, divergent branch, libm log)",
        uniform: &[],
        index: 3,
        edits: &[],
        variants: false,
    },
    Case {
        file: "uniform-control.ll",
        label: "uniform-control, 2^20 threads, n = 4 (uniform loop, in[t] and out[t] contiguous)",
        uniform: &["n", "mode"],
        index: 4,
        edits: GROW_IN_OUT,
        variants: false,
    },
    Case {
        file: "nab-if-cascade.ll",
        label: "nab if-cascade, 2^20 threads, n = 6 (uniform loop, divergent cascade)",
        uniform: &["n"],
        index: 5,
        edits: &[],
        variants: false,
    },
    Case {
        file: "tree-search.ll",
        label: "tree search, 2^20 threads (speculative any pushes, per-lane stack)",
        uniform: &[],
        index: 6,
        edits: &[],
        variants: false,
    },
    Case {
        file: "kdtree.ll",
        label: "kd-tree 1-NN, 2^20 queries in [0, 10]^2 (per-lane stacks, divergent loop)",
        uniform: &[],
        index: 7,
        edits: &[],
        variants: false,
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

/// The peers of the other kernels ([`Case::variants`] false), in a file and a
/// driver of their own: the typed peers and driver above stay as they were
/// measured (the AVX2 binary search moves by up to 8% with the code placed
/// before it in the link: BENCHMARKS.md).
const TABLE_PEER_C: &str = r#"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
/* The other corpus kernels, as their files' comments write them, reading the
   argument words and globals the chunk functions read (docs/native.md). */
static int PEER(i32)(const uint64_t *args, long n, int p, long t) { return (int)(uint32_t)args[p * n + t]; }
static double PEER(f64)(const uint64_t *args, long n, int p, long t) { double d; memcpy(&d, &args[p * n + t], 8); return d; }
int PEER(logstar)(double n) {
  double x = n; int i = 0;
  do { i += 1; x = log(x); } while (x > 1.0);
  return n > 1.0 ? i : 0;
}
double PEER(safelog)(double v) { return v > 0.0 ? log(v) : v; }
int PEER(poly)(const int *coef, const int *in, int *out, long t, int n, int mode) {
  int x = in[t], acc = 0;
  for (int k = 0; k < n; k++) {
    if (mode == 0) acc = acc * x + coef[k];
    else acc = acc + x * k;
  }
  out[t] = acc;
  return acc;
}
int PEER(egb)(const int *pearlist, const int *x, const int *fs, int xi, int ri, int n) {
  int sumi = 0;
  for (int k = 0; k < n; k++) {
    int j = pearlist[k];
    int dij = abs(xi - x[j]);
    if (dij > 20) continue;
    int sj = fs[j];
    if (dij > 10 + sj) continue;
    if (dij > 10 - sj) sumi += 1;
    else if (dij > 4 * sj) sumi += 10;
    else if (dij > ri + sj) sumi += 100;
    else if (dij > abs(ri - sj)) sumi += 1000;
    else if (ri < sj) sumi += 10000;
  }
  return sumi;
}
/* Fig. 13.2 alone (W = 1: any(c) = c); the keys are distinct, so each lane finds
   what the lock-step search finds. */
int PEER(tsearch)(const float *data, const int *left, const int *right, const float *Q, int i) {
  int stack[16]; stack[0] = 0; int top = 1;
  float elem = Q[i]; int result = -1;
  while (top > 0) {
    int next = stack[--top];
    float label = data[next];
    int r = right[next], l = left[next];
    if (label == elem) { result = next; break; }
    if (elem < label && l > 0) stack[top++] = l;
    if (label < elem && r > 0) stack[top++] = r;
  }
  return result;
}
int PEER(nn)(const int *px, const int *py, const int *axis, const int *left, const int *right, int qx, int qy) {
  int snode[8], sbound[8];
  int top = 1; snode[0] = 0; sbound[0] = 0;
  int best = -1, bestd = 2147483647;
  do {
    --top;
    int n = snode[top], b = sbound[top];
    if (b >= bestd) continue;
    int dx = qx - px[n], dy = qy - py[n];
    int d = dx * dx + dy * dy;
    if (d < bestd) { bestd = d; best = n; }
    int diff = axis[n] == 0 ? dx : dy;
    int near = diff < 0 ? left[n] : right[n];
    int far = diff < 0 ? right[n] : left[n];
    if (far >= 0) { snode[top] = far; sbound[top] = diff * diff; top++; }
    if (near >= 0) { snode[top] = near; sbound[top] = 0; top++; }
  } while (top > 0);
  return best;
}
void PEER(run)(int which, long n, const uint64_t *a, uint8_t *const *g, uint64_t *ret) {
  for (long t = 0; t < n; t++) {
    uint64_t r = 0;
    switch (which) {
    case 2: r = (uint32_t)PEER(logstar)(PEER(f64)(a, n, 0, t)); break;
    case 3: { double d = PEER(safelog)(PEER(f64)(a, n, 0, t)); memcpy(&r, &d, 8); break; }
    case 4: r = (uint32_t)PEER(poly)((const int *)g[0], (const int *)g[1], (int *)g[2], t,
                                     PEER(i32)(a, n, 0, t), PEER(i32)(a, n, 1, t)); break;
    case 5: r = (uint32_t)PEER(egb)((const int *)g[0], (const int *)g[1], (const int *)g[2],
                                    PEER(i32)(a, n, 0, t), PEER(i32)(a, n, 1, t), PEER(i32)(a, n, 2, t)); break;
    case 6: r = (uint32_t)PEER(tsearch)((const float *)g[0], (const int *)g[1], (const int *)g[2],
                                        (const float *)g[3], PEER(i32)(a, n, 0, t)); break;
    case 7: r = (uint32_t)PEER(nn)((const int *)g[0], (const int *)g[1], (const int *)g[2],
                                   (const int *)g[3], (const int *)g[4],
                                   PEER(i32)(a, n, 0, t), PEER(i32)(a, n, 1, t)); break;
    }
    ret[t] = r;
  }
}
"#;

/// The driver of the other kernels: `./bench KERNEL REPS`, printing as
/// [`DRIVER_C`] does.
const TABLE_DRIVER_C: &str = r#"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef void (*chunk_fn)(uint64_t, uint64_t, const uint64_t *, uint64_t, uint64_t *, uint8_t *const *);
struct pllvm_kernel { const char *name; uint64_t width; chunk_fn chunk; };
extern const struct pllvm_kernel pllvm_kernels[];
void gcc_run(int, long, const uint64_t *, uint8_t *const *, uint64_t *);
void clang_run(int, long, const uint64_t *, uint8_t *const *, uint64_t *);
static uint64_t rnd(void) { static uint64_t s = 88172645463325252ull; s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static uint64_t f64_word(double d) { uint64_t w; memcpy(&w, &d, 8); return w; }
/* Module-order globals of the table kernels (docs/native.md), as their files
   initialize them; `in`/`out` of uniform-control grown to 2^20. */
static const int coef[4] = {1, -2, 3, 5};
static const int pearlist[6] = {2, 0, 5, 1, 4, 3}, nab_x[6] = {0, 5, 12, 30, 8, 2}, fs[6] = {1, 3, 2, 4, 6, 1};
static const float tdata[7] = {8, 4, 12, 2, 6, 10, 14};
static const int tleft[7] = {1, 3, 5, 0, 0, 0, 0}, tright[7] = {2, 4, 6, 0, 0, 0, 0};
static const float tq[4] = {6.0f, 14.0f, 8.0f, 5.0f};
static const int px[7] = {5, 2, 8, 1, 3, 7, 9}, py[7] = {5, 3, 6, 1, 7, 2, 9}, kaxis[7] = {0, 1, 1, 0, 0, 0, 0};
static const int kleft[7] = {1, 3, 5, -1, -1, -1, -1}, kright[7] = {2, 4, 6, -1, -1, -1, -1};
static double now(void) {
  struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static void launch(const struct pllvm_kernel *k, const uint64_t *args, uint64_t n, uint64_t *ret, uint8_t *const *globals) {
  for (uint64_t b = 0; b < n; b += k->width)
    k->chunk(b, n - b < k->width ? n - b : k->width, args, n, ret, globals);
}
int main(int argc, char **argv) {
  if (argc < 3) return 2;
  int which = atoi(argv[1]), reps = atoi(argv[2]);
  const struct pllvm_kernel *k = &pllvm_kernels[0];
  long n; uint64_t *args, *ret, *want, *other;
  double best[3] = {1e300, 1e300, 1e300};
  uint8_t *globals[8] = {0};
  /* 2^20 threads, their argument words and globals. */
  n = 1 << 20; args = calloc(3 * n, 8);
  int *in = 0;
  switch (which) {
  case 2: for (long t = 0; t < n; t++) args[t] = f64_word(exp((double)(rnd() % 2400) / 100.0 - 0.9)); break;
  case 3: for (long t = 0; t < n; t++) args[t] = f64_word((double)(rnd() % 11000) / 100.0 - 10.0); break;
  case 4:
    in = malloc(n * 4);
    for (long t = 0; t < n; t++) { in[t] = (int)(rnd() % 201) - 100; args[t] = 4; args[n + t] = 0; }
    globals[0] = (uint8_t *)coef; globals[1] = (uint8_t *)in; globals[2] = calloc(n, 4);
    break;
  case 5:
    for (long t = 0; t < n; t++) { args[t] = (uint32_t)((int)(rnd() % 46) - 5); args[n + t] = rnd() % 11; args[2 * n + t] = 6; }
    globals[0] = (uint8_t *)pearlist; globals[1] = (uint8_t *)nab_x; globals[2] = (uint8_t *)fs;
    break;
  case 6:
    for (long t = 0; t < n; t++) args[t] = rnd() % 4;
    globals[0] = (uint8_t *)tdata; globals[1] = (uint8_t *)tleft; globals[2] = (uint8_t *)tright; globals[3] = (uint8_t *)tq;
    break;
  case 7:
    for (long t = 0; t < n; t++) { args[t] = rnd() % 11; args[n + t] = rnd() % 11; }
    globals[0] = (uint8_t *)px; globals[1] = (uint8_t *)py; globals[2] = (uint8_t *)kaxis;
    globals[3] = (uint8_t *)kleft; globals[4] = (uint8_t *)kright;
    break;
  default: return 2;
  }
  ret = calloc(n, 8); want = calloc(n, 8); other = calloc(n, 8);
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    gcc_run(which, n, args, globals, want);
    double t1 = now();
    clang_run(which, n, args, globals, other);
    double t2 = now();
    launch(k, args, n, ret, globals);
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
/// ([`native_passes`], live-outs kept as [`Target::live_outs`] says).
fn transformed(case: &Case, target: Target) -> (Module, FuncId) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/kernels")
        .join(case.file);
    let mut src = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| fail(format!("cannot read {}: {e}", path.display())));
    for (from, to) in case.edits {
        if !src.contains(from) {
            fail(format!("{}: no `{from}` to grow", case.file));
        }
        src = src.replace(from, to);
    }
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
    let stages = run_passes(&module, func, &native_passes(), &options)
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
        analysis: AnalysisKind::Best,
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

/// The driver and peers of `case`: the typed ones for the kernels with
/// variants, the table ones for the others.
fn sources(case: &Case) -> (&'static str, &'static str, &'static str) {
    if case.variants {
        ("typed", PEER_C, DRIVER_C)
    } else {
        ("table", TABLE_PEER_C, TABLE_DRIVER_C)
    }
}

fn peers(dir: &Path, target: Target, set: (&str, &str, &str)) -> Peers {
    let aarch64 = target.is_aarch64();
    let (name, peer_c, driver_c) = set;
    let peer = dir.join(format!("peer-{name}.c"));
    let driver = dir.join(format!("driver-{name}.c"));
    std::fs::write(&peer, peer_c).unwrap_or_else(|e| fail(e));
    std::fs::write(&driver, driver_c).unwrap_or_else(|e| fail(e));
    let suffix = format!("{name}-{}", target.name());
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
            .arg(&peers.clang)
            .arg("-lm"),
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
    // `-- NAME...`: only the kernels whose file names contain a NAME (and no
    // compile-time table); cargo's own `--bench` is not a name.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let chosen =
        |case: &Case| only.is_empty() || only.iter().any(|n| case.file.contains(n.as_str()));
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
        let typed = peers(&dir, target, sources(&CASES[0]));
        let table = peers(&dir, target, sources(&CASES[2]));
        let native_width = vector.default_width() / 2;
        let cases: Vec<&Case> = CASES.iter().filter(|c| chosen(c)).collect();
        let prepared: Vec<(Module, FuncId)> =
            cases.iter().map(|case| transformed(case, target)).collect();
        for (case, (module, func)) in cases.into_iter().zip(&prepared) {
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
            if case.variants && !target.is_aarch64() {
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
                let set = if case.variants { &typed } else { &table };
                let t = measure(&dir, target, set, source, case, &tag);
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
    if only.is_empty() {
        compile_times(&dir);
    }
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
        for case in CASES.iter().filter(|c| c.variants) {
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
