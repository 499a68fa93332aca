//! Guest memory and the host (docs/cli.md, `--memory-limit`): a guest byte must cost the host
//! a few bytes at most once written and next to nothing while untouched or
//! zero-initialized, and `--memory-limit` bounds what a program may allocate,
//! with a limit outcome (exit 1) that names the flag.
//!
//! The peak resident set of each `pllvm` child is `getrusage(RUSAGE_CHILDREN)`'s
//! `ru_maxrss`, the largest of all children waited for so far; this file has one
//! test that spawns large children, and runs them from the smallest bound to the
//! largest, so each check bounds the child just run. The test process (and so every
//! child) runs under a 4 GB address-space limit, so a regression fails the test
//! instead of exhausting the shared machine.

mod common;
use common::{children_peak_rss, pllvm, temp_file};

use nix::sys::resource::{Resource, setrlimit};

const MIB: u64 = 1 << 20;

/// A 1 GiB `alloca` (the default limit, W = 1), never written.
const BIG_ALLOCA: &str = "define i32 @f() {
a:
  %p = alloca [268435456 x i32]
  ret i32 0
}
";

/// A 64 MiB zero-initialized global, of which one element is read.
const BIG_GLOBAL: &str = "@G = global [16777216 x i32] zeroinitializer
define i32 @f() {
a:
  %v = load i32, ptr @G
  ret i32 %v
}
";

/// 128 MiB written: a 64 MiB alloca set to 1 byte by byte, then copied into a 64 MiB global.
const WRITTEN: &str = "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
@G = global [16777216 x i32] zeroinitializer
define i32 @f() {
a:
  %p = alloca [16777216 x i32]
  call void @llvm.memset.p0.i64(ptr %p, i8 1, i64 67108864, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr @G, ptr %p, i64 67108864, i1 false)
  %q = getelementptr i8, ptr @G, i64 67108860
  %v = load i32, ptr %q
  ret i32 %v
}
";

/// Runs `text` at W = 1 and checks that it returns `result` and that no child so
/// far peaked above `bound` bytes.
fn check_peak(name: &str, text: &str, result: &str, bound: u64) {
    let file = temp_file(name, text);
    let out = pllvm(&["run", "-w", "1", &file]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(&format!("result: [{result}]")),
        "{name}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let peak = children_peak_rss();
    assert!(
        peak <= bound,
        "{name}: peak RSS {} MiB is above the bound {} MiB",
        peak / MIB,
        bound / MIB
    );
}

/// Untouched and zero-initialized guest memory costs one 16-byte slot per 4 KiB
/// chunk (1/256 of its size), so a 64 MiB global and a 1 GiB alloca each stay
/// within 64 MiB of peak RSS (a process that allocates nothing peaks near 12 MiB;
/// before the compact store they took 3.2 GB and 24 GB). Written memory costs
/// about 1.13 host bytes per guest byte (bits and a ⊤ bit per byte) and a chunk
/// copied whole is shared, so 128 MiB written stays within 2 × 128 MiB.
#[test]
fn guest_memory_costs_the_host_little() {
    setrlimit(Resource::RLIMIT_AS, 4_000_000_000, 4_000_000_000).expect("setrlimit");
    check_peak("global.ll", BIG_GLOBAL, "0", 64 * MIB);
    check_peak("alloca.ll", BIG_ALLOCA, "0", 64 * MIB);
    check_peak("written.ll", WRITTEN, "16843009", 256 * MIB);
}

/// An allocation beyond `--memory-limit` ends the run with a limit outcome that
/// names the limit and the flag, and exit code 1; in `explore` it is an ending.
#[test]
fn exceeding_the_memory_limit_is_a_limit_outcome() {
    let file = temp_file("limit.ll", BIG_ALLOCA);
    let out = pllvm(&["run", "-w", "1", "--memory-limit", "64M", &file]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().next(),
        Some(
            "outcome: limit: memory limit exceeded: 1073741824 more bytes requested with 0 in use, \
             limit 67108864 bytes (newptr, §4.9.1; --memory-limit sets it)"
        )
    );
    // The default (1G) admits the same alloca; 2 lanes need twice as much.
    let out = pllvm(&["run", "-w", "1", &file]);
    assert_eq!(out.status.code(), Some(0));
    let out = pllvm(&["run", "-w", "2", "--memory-limit", "4G", &file]);
    assert_eq!(out.status.code(), Some(0));
    let out = pllvm(&["explore", "-w", "1", "--memory-limit", "1024", &file]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("limit: memory limit exceeded") && stdout.contains("limit 1024 bytes"),
        "{stdout}"
    );
    let out = pllvm(&["run", "--memory-limit", "lots", &file]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("'lots' is not a byte count (an integer, optionally with K, M, G or T)")
    );
}

/// Undefined-behaviour outcomes name the object: a global by `@Y`, an `alloca`'s
/// object by its instruction, block and lane.
#[test]
fn memory_errors_name_globals_and_allocas() {
    let file = temp_file(
        "names.ll",
        "@Y = global i32 1
define i32 @f(i1 %c) {
a:
  %p = alloca i32
  br i1 %c, label %g, label %s
g:
  %v = load i64, ptr @Y
  ret i32 0
s:
  %w = load i64, ptr %p
  ret i32 0
}
",
    );
    let first_line = |c: &str| {
        let out = pllvm(&["run", "-w", "2", "--arg", &format!("c={c}"), &file]);
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        first_line("1"),
        "outcome: undefined: [W-INST-LOAD] lane 0: access of 8 bytes at offset 0 is out of \
         bounds of @Y of 4 bytes (§4.9.1)"
    );
    assert_eq!(
        first_line("0"),
        "outcome: undefined: [W-INST-LOAD] lane 0: access of 8 bytes at offset 0 is out of \
         bounds of %p in a (alloca of lane 0) of 4 bytes (§4.9.1)"
    );
}
