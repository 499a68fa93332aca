//! CUDA kernels with `__shared__` arrays (docs/language.md, "Constant
//! expressions"): clang-19 addresses an addrspace(3) array through constant
//! expressions, `getelementptr inbounds [64 x i32], ptr addrspacecast (ptr
//! addrspace(3) @s to ptr), i64 0, i64 %i` and `load i32, ptr addrspacecast
//! (...)`. `cli/tests/gpu/shared_{reduce,matmul,transpose,histogram}.cu`,
//! compiled as docs/launch.md says, are `check`ed, printed back to the same
//! module, exported for opt-22, and `run` as launches whose output equals a
//! reference computed here on the host. Kernels with barriers run as one
//! work-group of one thread array (`--group` = `--threads`): a `__shared__`
//! array is one global of the launch, not one per work-group, so several
//! work-groups of plain stores to it would race (docs/launch.md, "Memory shared
//! by thread arrays"); the histogram's shared bins take atomics only, so its
//! arrays run one after another and several work-groups are exact.

use crate::common;
use common::{NVPTX_CUDA, clang_ir, code, pllvm, require, stderr, stdout};
use std::path::PathBuf;
use std::process::Command;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("pllvm-shared-{}-{name}", std::process::id()))
}

/// `cli/tests/gpu/NAME.cu` compiled for nvptx; the `.ll` path.
fn compile(name: &str) -> String {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/gpu/{name}.cu"));
    let out = temp(&format!("{name}.ll"));
    clang_ir(&src, NVPTX_CUDA, &out);
    let ll = out.display().to_string();
    let text = std::fs::read_to_string(&ll).expect("read the .ll");
    assert!(
        text.contains("addrspacecast (ptr addrspace(3) @"),
        "{name}: clang-19 no longer writes the shared array as a constant expression"
    );
    ll
}

/// `check`, `print` twice (a fixpoint) and `export-llvm` accepted by opt-22.
fn checked_and_exported(ll: &str) {
    let stem = ll.trim_end_matches(".ll");
    let o = pllvm(&["check", ll]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let printed = PathBuf::from(format!("{stem}.printed.ll"));
    let o = pllvm(&["print", ll]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    std::fs::write(&printed, &o.stdout).expect("write");
    let again = pllvm(&["print", &printed.display().to_string()]);
    assert_eq!(stdout(&again), stdout(&o), "printing is a fixpoint");
    let o = pllvm(&["export-llvm", ll]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let exported = PathBuf::from(format!("{stem}.exported.ll"));
    std::fs::write(&exported, &o.stdout).expect("write");
    require("opt-22", "llvm-22");
    let opt = Command::new("opt-22")
        .args(["-passes=verify", "-disable-output"])
        .arg(&exported)
        .output()
        .expect("run opt-22");
    assert!(
        opt.status.success(),
        "opt-22 refuses the export: {}",
        String::from_utf8_lossy(&opt.stderr)
    );
}

/// A little-endian file of `values` (4-byte elements).
fn bin(name: &str, bytes: impl Iterator<Item = [u8; 4]>) -> String {
    let path = temp(name);
    std::fs::write(&path, bytes.flatten().collect::<Vec<u8>>()).expect("write");
    path.display().to_string()
}

/// `pllvm run ARGS --json`; the values of dump `0`.
fn run_dump(args: &[&str]) -> Vec<serde_json::Value> {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--dump", "0", "--json"]);
    let o = pllvm(&all);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(doc["outcome"], "returned", "{doc}");
    doc["dumps"]["0"]["values"]
        .as_array()
        .expect("the dump")
        .clone()
}

fn ints(values: &[serde_json::Value]) -> Vec<i64> {
    values.iter().map(|v| v.as_i64().expect("an int")).collect()
}

#[test]
fn shared_reduction_sums_a_block() {
    let ll = compile("shared_reduce");
    checked_and_exported(&ll);
    let input: Vec<i32> = (0..64).map(|i| (i * i) % 97).collect();
    let data = bin("reduce.bin", input.iter().map(|x| x.to_le_bytes()));
    let spec = format!("1=i32:{data}");
    let got = run_dump(&[
        &ll,
        "--grid",
        "64",
        "--group",
        "64",
        "--threads",
        "64",
        "--buffer",
        "0=i32[1]",
        "--buffer",
        &spec,
    ]);
    let want: i64 = input.iter().map(|&x| i64::from(x)).sum();
    assert_eq!(ints(&got), vec![want]);
}

#[test]
fn shared_tiled_matmul_equals_the_host_product() {
    let ll = compile("shared_matmul");
    checked_and_exported(&ll);
    let (n, k) = (16usize, 32usize);
    let a: Vec<f32> = (0..n * k).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| ((i * 3) % 13) as f32 - 6.0).collect();
    let a_spec = format!("1=f32:{}", bin("a.bin", a.iter().map(|x| x.to_le_bytes())));
    let b_spec = format!("2=f32:{}", bin("b.bin", b.iter().map(|x| x.to_le_bytes())));
    let got = run_dump(&[
        &ll,
        "--grid",
        "16,16",
        "--group",
        "16,16",
        "--threads",
        "256",
        "--buffer",
        "0=f32[256]",
        "--buffer",
        &a_spec,
        "--buffer",
        &b_spec,
    ]);
    // The kernel's order of additions (k ascending from 0.0); the products are
    // small integers, so every sum is exact anyway.
    let want: Vec<f64> = (0..n * n)
        .map(|e| {
            let (y, x) = (e / n, e % n);
            let mut sum = 0.0f32;
            for kk in 0..k {
                sum += a[y * k + kk] * b[kk * n + x];
            }
            f64::from(sum)
        })
        .collect();
    let got: Vec<f64> = got.iter().map(|v| v.as_f64().expect("a float")).collect();
    assert_eq!(got, want);
}

#[test]
fn shared_tiled_transpose_transposes() {
    let ll = compile("shared_transpose");
    checked_and_exported(&ll);
    let spec = format!(
        "1=i32:{}",
        bin("t.bin", (0..256i32).map(|x| (x * 5 + 1).to_le_bytes()))
    );
    let got = run_dump(&[
        &ll,
        "--grid",
        "16,16",
        "--group",
        "16,16",
        "--threads",
        "256",
        "--buffer",
        "0=i32[256]",
        "--buffer",
        &spec,
    ]);
    let want: Vec<i64> = (0..256i64)
        .map(|e| {
            let (y, x) = (e / 16, e % 16);
            (x * 16 + y) * 5 + 1
        })
        .collect();
    assert_eq!(ints(&got), want);
}

#[test]
fn shared_histogram_with_shared_atomics_counts_every_input() {
    let ll = compile("shared_histogram");
    checked_and_exported(&ll);
    let n = 200i32;
    let input: Vec<i32> = (0..n).map(|i| (i * i + 3 * i) % 23).collect();
    let spec = format!(
        "1=i32:{}",
        bin("h.bin", input.iter().map(|x| x.to_le_bytes()))
    );
    let n_arg = format!("2={n}");
    // Four work-groups of 64 (the last one partly past n), W = 64 and W = 32.
    for (group, threads) in [("64", "64"), ("32", "32")] {
        let got = run_dump(&[
            &ll,
            "--grid",
            "256",
            "--group",
            group,
            "--threads",
            threads,
            "--buffer",
            "0=i32[8]",
            "--buffer",
            &spec,
            "--arg",
            &n_arg,
        ]);
        let mut want = vec![0i64; 8];
        for x in &input {
            want[(x & 7) as usize] += 1;
        }
        assert_eq!(ints(&got), want, "--group {group} --threads {threads}");
    }
}

/// Every analysis sees a constant expression as the constant it is: a value
/// computed from constant expressions only is uniform in all four.
#[test]
fn constant_expressions_are_uniform_in_every_analysis() {
    let src = "@s = internal addrspace(3) global [4 x i32] zeroinitializer

define i64 @f(i64 %i) {
entry:
  %a = ptrtoint ptr getelementptr inbounds ([4 x i32], ptr addrspacecast (ptr addrspace(3) @s to ptr), i64 0, i64 2) to i64
  %b = add i64 %a, %i
  ret i64 %b
}
";
    let file = common::temp_file("cexpr-uniform.ll", src);
    let o = pllvm(&["analyze", &file]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let line = |name: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no line for {name} in\n{out}"))
            .to_string()
    };
    assert!(line("%a =").ends_with("; uniform"), "{out}");
    assert!(line("%b =").ends_with("; varying"), "{out}");
}

/// The same kernel over 64 work-groups of 64 threads, each two thread arrays
/// of 32 lanes: the `__shared__` array is one object per group, shared by its
/// two warps across the barriers (docs/launch.md, "Work-groups of several
/// warps"), so every group sums its own 64 inputs and no race is reported.
#[test]
fn shared_reduction_over_groups_of_two_warps() {
    let ll = compile("shared_reduce");
    let input: Vec<i32> = (0..4096).map(|i| (i * 31) % 1000 - 500).collect();
    let data = bin("reduce-groups.bin", input.iter().map(|x| x.to_le_bytes()));
    let spec = format!("1=i32:{data}");
    let got = run_dump(&[
        &ll,
        "--grid",
        "4096",
        "--group",
        "64",
        "--threads",
        "32",
        "--buffer",
        "0=i32[64]",
        "--buffer",
        &spec,
    ]);
    let want: Vec<i64> = input
        .chunks(64)
        .map(|group| group.iter().map(|&x| i64::from(x)).sum())
        .collect();
    assert_eq!(ints(&got), want);
}
