//! GPU kernels compiled by clang-19 (docs/launch.md, "From OpenCL C or CUDA source to a launch"):
//! `cli/tests/gpu/saxpy.{cl,cu}`, `reduce.{cl,cu}` (a reduction whose loop
//! each thread leaves at its own iteration, with the total added by atomics),
//! `histogram.{cl,cu}` (several threads incrementing the
//! same bins with atomics), `scale4.{cl,cu}` (a kernel on `<4 x float>`:
//! loads, splats, shuffles, element-wise arithmetic, a select of vectors),
//! `mandel.{cl,cu}` (Mandelbrot: a divergent loop with two exits),
//! `bsearch.{cl,cu}` (XSBench's binary search over a table) and
//! `count-until.{cl,cu}` (a search loop with a divergent exit),
//! compiled for amdgcn and nvptx and run with `pllvm run --grid`. Each grid run's
//! output must equal the same OpenCL source compiled for the host by clang-19 and
//! run thread by thread, in thread order, by a small C driver
//! (`cli/tests/gpu/host_*.c`), byte for byte, for several W. The `llvm` analysis
//! must agree with opt-22 on the amdgcn and nvptx kernels (on nvptx every call is
//! divergent, as NVPTX's rule makes it), and the native backend must
//! refuse both kernels naming the construct.

use crate::common;
use common::{pllvm, require, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::Command;

fn gpu_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/gpu")
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("pllvm-types-{}-{name}", std::process::id()))
}

fn clang(args: &[&str], src: &Path, out: &Path) {
    require("clang-19", "clang-19");
    let status = Command::new("clang-19")
        .args(args)
        .arg(src)
        .arg("-o")
        .arg(out)
        .status()
        .expect("run clang-19");
    assert!(status.success(), "clang-19 failed on {}", src.display());
}

/// `NAME.cl` compiled for amdgcn, or `NAME.cu` for nvptx, into a `.ll`.
fn device(name: &str, nvptx: bool) -> PathBuf {
    let common = [
        "-O1",
        "-fno-vectorize",
        "-fno-slp-vectorize",
        "-S",
        "-emit-llvm",
    ];
    let (src, out, target): (_, _, &[&str]) = if nvptx {
        (
            gpu_dir().join(format!("{name}.cu")),
            temp(&format!("{name}-nv.ll")),
            &[
                "-x",
                "cuda",
                "--cuda-device-only",
                "-nocudainc",
                "-nocudalib",
                "--cuda-gpu-arch=sm_70",
            ],
        )
    } else {
        (
            gpu_dir().join(format!("{name}.cl")),
            temp(&format!("{name}-amd.ll")),
            &[
                "-x",
                "cl",
                "-cl-std=CL2.0",
                "-target",
                "amdgcn-amd-amdhsa",
                "-mcpu=gfx1030",
                "-nogpulib",
            ],
        )
    };
    let args: Vec<&str> = target.iter().chain(&common).copied().collect();
    clang(&args, &src, &out);
    out
}

/// `host_NAME.c` (which includes `NAME.cl`) compiled for the host and run.
fn native(name: &str, args: &[&str]) {
    let exe = temp(&format!("host_{name}"));
    clang(
        &[
            "-O1",
            "-ffp-contract=off",
            "-Wno-unknown-pragmas",
            "-x",
            "c",
        ],
        &gpu_dir().join(format!("host_{name}.c")),
        &exe,
    );
    let status = Command::new(&exe)
        .args(args)
        .status()
        .expect("run the driver");
    assert!(status.success(), "host_{name} failed");
}

fn write(name: &str, bytes: &[u8]) -> String {
    let path = temp(name);
    std::fs::write(&path, bytes).expect("write input");
    path.to_str().expect("utf-8 path").to_string()
}

/// `pllvm run --grid` of `kernel` with `args`; the dump written to `out`.
fn grid(kernel: &Path, threads: &str, width: &str, args: &[&str], out: &str) -> Vec<u8> {
    let dump = format!("0={out}");
    let mut all = vec![
        "run",
        kernel.to_str().expect("utf-8 path"),
        "--grid",
        threads,
        "--threads",
        width,
        "--group",
        "64",
        "--dump",
        &dump,
    ];
    all.extend_from_slice(args);
    let o = pllvm(&all);
    assert!(
        o.status.success() && stdout(&o).contains("outcome: returned"),
        "{}\n{}",
        stdout(&o),
        stderr(&o)
    );
    std::fs::read(out).expect("the dump")
}

#[test]
fn a_histogram_with_atomics_equals_the_native_run() {
    let n = 300;
    let data: Vec<u8> = (0..n)
        .flat_map(|i: i32| ((i * 7 + 3) % 11).to_le_bytes())
        .collect();
    let data = write("hist-data.bin", &data);
    // 320 threads: the last 20 fail the guard `i < n`.
    let expect = temp("hist-native.bin");
    let expect_s = expect.to_str().expect("utf-8 path");
    native("histogram", &[&data, "300", "320", expect_s]);
    let expect = std::fs::read(&expect).expect("native output");
    // By hand: data[i] & 7 over i < 300; 11 residues, 8 bins.
    let mut hist = [0i32; 8];
    for i in 0..n {
        hist[(((i * 7 + 3) % 11) & 7) as usize] += 1;
    }
    let by_hand: Vec<u8> = hist.iter().flat_map(|x| x.to_le_bytes()).collect();
    assert_eq!(expect, by_hand, "the native driver");
    let buffers = ["--buffer", "0=i32[8]"];
    let input = format!("1=i32:{data}");
    for nvptx in [false, true] {
        let kernel = device("histogram", nvptx);
        let text = std::fs::read_to_string(&kernel).expect("the .ll");
        assert!(text.contains("atomicrmw add"), "clang-19 emits atomicrmw");
        for width in ["32", "64", "16"] {
            let out = temp(&format!("hist-{nvptx}-{width}.bin"));
            let got = grid(
                &kernel,
                "320",
                width,
                &[buffers[0], buffers[1], "--buffer", &input, "--arg", "2=300"],
                out.to_str().expect("utf-8 path"),
            );
            assert_eq!(got, expect, "histogram, nvptx {nvptx}, W = {width}");
        }
    }
}

#[test]
fn a_kernel_on_float4_equals_the_native_run() {
    let n = 100;
    let values: Vec<u8> = (0..4 * n)
        .flat_map(|i: i32| (((i * 13) % 17) as f32 * 0.25 - 1.0).to_le_bytes())
        .collect();
    let input = write("scale4-in.bin", &values);
    let expect = temp("scale4-native.bin");
    native(
        "scale4",
        &[
            &input,
            "1.5",
            "100",
            "128",
            expect.to_str().expect("utf-8 path"),
        ],
    );
    let expect = std::fs::read(&expect).expect("native output");
    let in_arg = format!("1=f32:{input}");
    for nvptx in [false, true] {
        let kernel = device("scale4", nvptx);
        let text = std::fs::read_to_string(&kernel).expect("the .ll");
        assert!(
            text.contains("shufflevector <4 x float>"),
            "clang-19 keeps the float4 operations as vector IR"
        );
        for width in ["32", "8"] {
            let out = temp(&format!("scale4-{nvptx}-{width}.bin"));
            let got = grid(
                &kernel,
                "128",
                width,
                &[
                    "--buffer",
                    "0=f32[400]",
                    "--buffer",
                    &in_arg,
                    "--arg",
                    "2=1.5",
                    "--arg",
                    "3=100",
                ],
                out.to_str().expect("utf-8 path"),
            );
            assert_eq!(got, expect, "scale4, nvptx {nvptx}, W = {width}");
        }
    }
}

#[test]
fn the_llvm_analysis_agrees_with_opt_on_the_amdgcn_and_nvptx_kernels() {
    require("opt-22", "llvm-22");
    for (name, nvptx) in [
        ("saxpy", false),
        ("reduce", false),
        ("histogram", false),
        ("scale4", false),
        ("mandel", false),
        ("bsearch", false),
        ("count-until", false),
        ("saxpy", true),
        ("reduce", true),
        ("histogram", true),
        ("scale4", true),
        ("mandel", true),
        ("bsearch", true),
        ("count-until", true),
    ] {
        let kernel = device(name, nvptx);
        let o = pllvm(&[
            "analyze",
            kernel.to_str().expect("utf-8 path"),
            "--compare-llvm",
        ]);
        let text = stdout(&o);
        assert!(o.status.success(), "{text}\n{}", stderr(&o));
        assert!(
            text.lines().any(|l| l.ends_with("compared, 0 differ")),
            "{name} (nvptx {nvptx}): pllvm and opt-22 disagree:\n{text}"
        );
    }
}

#[test]
fn the_native_backend_refuses_vectors_and_atomics_naming_them() {
    for (name, word) in [("histogram", "atomicrmw"), ("scale4", "<4 x float>")] {
        let kernel = device(name, false);
        for target in ["avx2", "scalar-c"] {
            let o = pllvm(&[
                "compile",
                kernel.to_str().expect("utf-8 path"),
                "--target",
                target,
            ]);
            assert!(!o.status.success(), "{name} on {target} compiled");
            let err = stderr(&o);
            assert!(
                err.contains(word) && err.contains("the native backend does not compile"),
                "{name} on {target}: {err}"
            );
        }
    }
}

#[test]
fn the_native_backend_refuses_half_and_bfloat() {
    let file = format!(
        "{}/../corpus/semantics/half-bfloat.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    for target in ["avx2", "scalar-c"] {
        let o = pllvm(&["compile", &file, "--target", target]);
        assert!(!o.status.success(), "half-bfloat on {target} compiled");
        let err = stderr(&o);
        assert!(
            err.contains("of type half") && err.contains("the native backend does not compile"),
            "{target}: {err}"
        );
    }
}

/// Little-endian bytes of `values`.
fn f32_bytes(values: impl Iterator<Item = f32>) -> Vec<u8> {
    values.flat_map(f32::to_le_bytes).collect()
}

#[test]
fn mandelbrot_equals_the_native_run() {
    // 200 points of [-2, 1] x [-1, 1]; 224 threads, the last 24 past `n`.
    let n = 200;
    let cx = write(
        "mandel-cx.bin",
        &f32_bytes((0..n).map(|i| -2.0 + 3.0 * (i % 20) as f32 / 20.0)),
    );
    let cy = write(
        "mandel-cy.bin",
        &f32_bytes((0..n).map(|i| -1.0 + 2.0 * (i / 20) as f32 / 10.0)),
    );
    let expect = temp("mandel-native.bin");
    let expect_s = expect.to_str().expect("utf-8 path");
    native("mandel", &[&cx, &cy, "64", "200", "224", expect_s]);
    let expect = std::fs::read(&expect).expect("native output");
    let counts: Vec<i32> = expect
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    assert!(
        counts.contains(&64) && counts.iter().any(|&k| k < 5),
        "the points escape at different iterations: {counts:?}"
    );
    let (cx_spec, cy_spec) = (format!("1=f32:{cx}"), format!("2=f32:{cy}"));
    for nvptx in [false, true] {
        let kernel = device("mandel", nvptx);
        for width in ["32", "16"] {
            let out = temp(&format!("mandel-{nvptx}-{width}.bin"));
            let got = grid(
                &kernel,
                "224",
                width,
                &[
                    "--buffer",
                    "0=i32[200]",
                    "--buffer",
                    &cx_spec,
                    "--buffer",
                    &cy_spec,
                    "--arg",
                    "3=64",
                    "--arg",
                    "4=200",
                ],
                out.to_str().expect("utf-8 path"),
            );
            assert_eq!(got, expect, "mandel, nvptx {nvptx}, W = {width}");
        }
    }
}

#[test]
fn binary_search_equals_the_native_run() {
    // A sorted table of 1,000 doubles and 150 queries inside and outside it.
    let table: Vec<f64> = (0..1000)
        .map(|i| f64::from(i) * 1.5 + f64::from(i % 7))
        .collect();
    let table = write(
        "bsearch-table.bin",
        &table
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<u8>>(),
    );
    let query: Vec<u8> = (0..150)
        .flat_map(|i| (f64::from(i) * 11.3 - 40.0).to_le_bytes())
        .collect();
    let query = write("bsearch-query.bin", &query);
    let expect = temp("bsearch-native.bin");
    let expect_s = expect.to_str().expect("utf-8 path");
    native("bsearch", &[&table, &query, "150", "192", expect_s]);
    let expect = std::fs::read(&expect).expect("native output");
    let (t_spec, q_spec) = (format!("1=f64:{table}"), format!("2=f64:{query}"));
    for nvptx in [false, true] {
        let kernel = device("bsearch", nvptx);
        for width in ["32", "64"] {
            let out = temp(&format!("bsearch-{nvptx}-{width}.bin"));
            let got = grid(
                &kernel,
                "192",
                width,
                &[
                    "--buffer",
                    "0=i64[150]",
                    "--buffer",
                    &t_spec,
                    "--buffer",
                    &q_spec,
                    "--arg",
                    "3=1000",
                    "--arg",
                    "4=150",
                ],
                out.to_str().expect("utf-8 path"),
            );
            assert_eq!(got, expect, "bsearch, nvptx {nvptx}, W = {width}");
        }
    }
}

#[test]
fn a_search_with_a_divergent_exit_equals_the_native_run() {
    // Lane i looks for its own id in `data`: lanes leave the loop at different
    // iterations, or run to the end (out[i] = n).
    let data: Vec<u8> = (0..50)
        .flat_map(|k: i32| ((k * 5) % 70).to_le_bytes())
        .collect();
    let data = write("count-data.bin", &data);
    let expect = temp("count-native.bin");
    let expect_s = expect.to_str().expect("utf-8 path");
    native("count_until", &[&data, "50", "64", expect_s]);
    let expect = std::fs::read(&expect).expect("native output");
    let kernel = device("count-until", false);
    let input = format!("1=i32:{data}");
    for width in ["32", "16", "64"] {
        let out = temp(&format!("count-{width}.bin"));
        let got = grid(
            &kernel,
            "64",
            width,
            &["--buffer", "0=i32[64]", "--buffer", &input, "--arg", "2=50"],
            out.to_str().expect("utf-8 path"),
        );
        assert_eq!(got, expect, "count_until, W = {width}");
    }
}

#[test]
fn saxpy_equals_the_native_run() {
    // 1,000 elements in 1,024 threads (the last 24 fail the guard `i < n`), with
    // values whose products round, so an fma instead of a multiply and an add
    // would show.
    let n = 1000;
    let x: Vec<u8> = f32_bytes((0..n).map(|i| (i % 37) as f32 * 0.3 - 5.1));
    let y: Vec<u8> = f32_bytes((0..n).map(|i| 1.0 / (1 + i % 13) as f32));
    let x = write("saxpy-x.bin", &x);
    let y_path = write("saxpy-y.bin", &y);
    let expect = temp("saxpy-native.bin");
    let expect_s = expect.to_str().expect("utf-8 path");
    native("saxpy", &[&y_path, &x, "1.7", "1000", "1024", expect_s]);
    let expect = std::fs::read(&expect).expect("native output");
    assert_ne!(expect, y, "the native run changed y");
    let x_arg = format!("1=f32:{x}");
    let y_arg = format!("0=f32:{y_path}");
    for nvptx in [false, true] {
        let kernel = device("saxpy", nvptx);
        for width in ["32", "16", "64"] {
            let out = temp(&format!("saxpy-{nvptx}-{width}.bin"));
            let got = grid(
                &kernel,
                "1024",
                width,
                &[
                    "--buffer", &y_arg, "--buffer", &x_arg, "--arg", "2=1.7", "--arg", "3=1000",
                ],
                out.to_str().expect("utf-8 path"),
            );
            assert_eq!(got, expect, "saxpy, nvptx {nvptx}, W = {width}");
        }
    }
}

#[test]
fn a_reduction_with_a_divergent_exit_equals_the_native_run() {
    // 200 threads, 192 of them summing every 192nd element of 997: thread i stops
    // at its first negative element, so lanes leave the loop at iterations 0 to 5.
    let (n, stride) = (997, 192);
    let data: Vec<i32> = (0..n)
        .map(|k: i32| if (k * 7919) % 23 == 0 { -1 } else { k % 100 })
        .collect();
    let exits: std::collections::BTreeSet<usize> = (0..stride as usize)
        .map(|i| {
            (i..n as usize)
                .step_by(stride as usize)
                .take_while(|&k| data[k] >= 0)
                .count()
        })
        .collect();
    assert!(
        exits.len() >= 4,
        "lanes leave at different iterations: {exits:?}"
    );
    let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    let data_path = write("reduce-data.bin", &bytes);
    let expect = temp("reduce-native.bin");
    let expect_s = expect.to_str().expect("utf-8 path");
    native("reduce", &[&data_path, "997", "192", "200", expect_s]);
    let expect = std::fs::read(&expect).expect("native output");
    // The total is the sum of the partial sums.
    let ints: Vec<i32> = expect
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    assert_eq!(ints.len(), 193);
    assert_eq!(
        ints[192],
        ints[..192].iter().sum::<i32>(),
        "the native total"
    );
    let input = format!("1=i32:{data_path}");
    for nvptx in [false, true] {
        let kernel = device("reduce", nvptx);
        let text = std::fs::read_to_string(&kernel).expect("the .ll");
        assert!(text.contains("atomicrmw add"), "clang-19 emits atomicrmw");
        for width in ["32", "16", "64"] {
            let out = temp(&format!("reduce-{nvptx}-{width}.bin"));
            let got = grid(
                &kernel,
                "200",
                width,
                &[
                    "--buffer",
                    "0=i32[193]",
                    "--buffer",
                    &input,
                    "--arg",
                    "2=997",
                    "--arg",
                    "3=192",
                ],
                out.to_str().expect("utf-8 path"),
            );
            assert_eq!(got, expect, "reduce, nvptx {nvptx}, W = {width}");
        }
    }
}
