//! The targets' uniformity rules (`analysis/src/target.rs`) on kernels compiled by
//! clang-19 for amdgcn (OpenCL C) and nvptx (CUDA) from `cli/tests/gpu/`, built
//! with `-O1 -fno-vectorize -fno-slp-vectorize` and no device libraries. With no
//! `--uniform-args`, the arguments of an `amdgpu_kernel`, and of an nvptx kernel
//! (marked by clang-19 in `!nvvm.annotations`), are uniform as LLVM takes them,
//! and an nvptx load through a generic pointer is a source of divergence as in
//! NVPTX's rules, so `--compare-llvm` agrees with opt-22 and opt-19 on every value
//! and branch; with the arguments declared otherwise it does not (the
//! disagreements came only from the argument convention).

use crate::common;
use common::{AMDGCN_OPENCL, NVPTX_CUDA, clang_ir, pllvm, require};

use std::path::{Path, PathBuf};

/// `cli/tests/gpu/NAME.cl` compiled for amdgcn into a temporary `.ll`.
fn amdgcn(name: &str) -> PathBuf {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/gpu/{name}.cl"));
    let out = std::env::temp_dir().join(format!("pllvm-gpu-{}-{name}.ll", std::process::id()));
    clang_ir(&src, AMDGCN_OPENCL, &out);
    out
}

/// `cli/tests/gpu/NAME.cu` compiled for nvptx (device side only) into a `.ll`.
fn nvptx(name: &str) -> PathBuf {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/gpu/{name}.cu"));
    let out = std::env::temp_dir().join(format!("pllvm-gpu-{}-{name}-nv.ll", std::process::id()));
    clang_ir(&src, NVPTX_CUDA, &out);
    out
}

/// The summary line of `--compare-llvm`: how many values and branches differ.
fn differing(file: &Path, extra: &[&str]) -> (usize, String) {
    require("opt-22", "llvm-22");
    let mut args = vec![
        "analyze",
        file.to_str().expect("utf-8 path"),
        "--compare-llvm",
    ];
    args.extend_from_slice(extra);
    let out = pllvm(&args);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let n = text
        .lines()
        .find_map(|l| {
            let (_, rest) = l.split_once("compared, ")?;
            rest.strip_suffix(" differ")?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no summary line in:\n{text}"));
    (n, text)
}

#[test]
fn amdgpu_kernel_arguments_are_uniform_and_agree_with_opt() {
    for name in ["saxpy", "count-until"] {
        let file = amdgcn(name);
        let (n, text) = differing(&file, &[]);
        assert_eq!(n, 0, "{name}: pllvm and opt disagree:\n{text}");
    }
}

#[test]
fn nvptx_kernel_arguments_are_uniform_and_agree_with_opt() {
    let file = nvptx("count-until");
    let text = std::fs::read_to_string(&file).expect("the .ll");
    assert!(
        text.contains("!\"kernel\", i32 1"),
        "clang-19 marks the kernel in metadata"
    );
    let printed = pllvm(&["print", file.to_str().expect("utf-8 path")]);
    assert!(
        String::from_utf8_lossy(&printed.stdout).contains("define ptx_kernel void @count_until("),
        "the parser keeps the mark as the ptx_kernel calling convention"
    );
    let (n, text) = differing(&file, &[]);
    assert_eq!(n, 0, "pllvm and opt disagree:\n{text}");
}

#[test]
fn declaring_the_arguments_varying_brings_the_disagreements_back() {
    // Every parameter by number, so the argument convention is overridden: the
    // early exit of count-until then depends on "varying" data and n.
    let file = amdgcn("count-until");
    let (n, text) = differing(&file, &["--uniform-args", ""]);
    assert_eq!(n, 0, "an empty list keeps the target's rules:\n{text}");
    let (n, text) = differing(&file, &["--uniform-args", "0"]);
    assert!(
        n > 0,
        "only %0 uniform: opt (all uniform) must differ:\n{text}"
    );
}
