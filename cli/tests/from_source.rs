//! The commands of docs/launch.md, "From OpenCL C or CUDA source to a launch":
//! saxpy written in OpenCL C (amdgcn) and in CUDA (nvptx), compiled by clang-19
//! with the flags the document gives, launched as a grid of 1,000 threads in
//! thread arrays of 32, with the result buffer dumped in the run's JSON document.

use crate::common;

use common::{AMDGCN_OPENCL, NVPTX_CUDA, clang_ir, code, pllvm, stderr};
use std::path::{Path, PathBuf};

const OPENCL: &str =
    "__kernel void saxpy(__global float *y, __global const float *x, float a, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) y[i] = a * x[i] + y[i];
}
";

const CUDA: &str =
    "extern \"C\" __attribute__((global)) void saxpy(float *y, const float *x, float a, int n) {
  int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x()
        + __nvvm_read_ptx_sreg_tid_x();
  if (i < n) y[i] = a * x[i] + y[i];
}
";

/// A fresh directory with `x.bin` = 1,000 `f32`, x[i] = i.
fn workdir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pllvm-from-source-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bytes: Vec<u8> = (0..1000u32)
        .flat_map(|i| (i as f32).to_le_bytes())
        .collect();
    std::fs::write(dir.join("x.bin"), bytes).expect("write x.bin");
    dir
}

fn clang(dir: &Path, source_name: &str, source: &str, flags: &[&str]) -> String {
    let src = dir.join(source_name);
    std::fs::write(&src, source).expect("write source");
    let out = dir.join("saxpy.ll");
    clang_ir(&src, flags, &out);
    out.display().to_string()
}

/// The launch of the document, with `--json`: y = 2 x.
fn launch_gives_saxpy(dir: &Path, ll: &str) {
    let x = dir.join("x.bin").display().to_string();
    let x_spec = format!("1=f32:{x}");
    let o = pllvm(&[
        "run",
        ll,
        "--grid",
        "1000",
        "--threads",
        "32",
        "--group",
        "64",
        "--buffer",
        "0=f32[1000]",
        "--buffer",
        &x_spec,
        "--arg",
        "2=2",
        "--arg",
        "3=1000",
        "--dump",
        "0",
        "--json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(doc["outcome"], "returned", "{doc}");
    let y: Vec<f64> = doc["dumps"]["0"]["values"]
        .as_array()
        .expect("the dump of y")
        .iter()
        .map(|v| v.as_f64().expect("a float"))
        .collect();
    let want: Vec<f64> = (0..1000).map(|i| 2.0 * f64::from(i)).collect();
    assert_eq!(y, want);
}

#[test]
fn opencl_saxpy_for_amdgcn_runs_as_a_grid() {
    let dir = workdir("cl");
    let ll = clang(&dir, "saxpy.cl", OPENCL, AMDGCN_OPENCL);
    launch_gives_saxpy(&dir, &ll);
}

#[test]
fn cuda_saxpy_for_nvptx_runs_as_a_grid() {
    let dir = workdir("cu");
    let ll = clang(&dir, "saxpy.cu", CUDA, NVPTX_CUDA);
    launch_gives_saxpy(&dir, &ll);
}
