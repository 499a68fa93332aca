//! Calls in kernels compiled by clang-19 at `-O0` (docs/language.md, "Calls and declarations"): the
//! helpers clang leaves as calls are inlined when the module is read, and the
//! targets' wave operations (`mbcnt`, `readfirstlane`, `ballot` on amdgcn,
//! `%laneid` on nvptx) run with their lock-step meaning in θ, and OpenCL's
//! work-item functions and barriers left as calls run too. The kernels are
//! `cli/tests/gpu/{calls.cl,calls.cu,workitems.cl}`, launched with `--grid`
//! (docs/launch.md); every expected value is worked out here from the source.

use crate::common;
use common::{code, pllvm, require, stderr, stdout};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `pllvm run KERNEL --grid GRID --threads W ARGS...`.
fn launch(kernel: &Path, grid: &str, width: &str, args: &[&str]) -> Output {
    let mut all = vec![
        "run",
        kernel.to_str().expect("utf-8 path"),
        "--grid",
        grid,
        "--threads",
        width,
    ];
    all.extend_from_slice(args);
    pllvm(&all)
}

/// `cli/tests/gpu/NAME.{cl,cu}` compiled at `-O0` into a temporary `.ll`: CUDA
/// for nvptx, OpenCL C for amdgcn.
fn compile(name: &str, cuda: bool) -> PathBuf {
    compile_for(name, cuda, "amdgcn")
}

/// The same, OpenCL C for `target` (`amdgcn` or `spir64`) with OpenCL's
/// declarations (`-finclude-default-header`) and no device library.
fn compile_for(name: &str, cuda: bool, target: &str) -> PathBuf {
    require("clang-19", "clang-19");
    let ext = if cuda { "cu" } else { "cl" };
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/gpu/{name}.{ext}"));
    let out = std::env::temp_dir().join(format!(
        "pllvm-gpu-calls-{}-{name}-{ext}-{target}.ll",
        std::process::id()
    ));
    let flags: &[&str] = if cuda {
        &[
            "-x",
            "cuda",
            "--cuda-device-only",
            "-nocudainc",
            "-nocudalib",
            "--cuda-gpu-arch=sm_70",
            // The warp primitives' builtins need PTX 6.0-7.0 (warp.cu).
            "-Xclang",
            "-target-feature",
            "-Xclang",
            "+ptx70",
        ]
    } else if target == "amdgcn" {
        &[
            "-x",
            "cl",
            "-cl-std=CL2.0",
            "-Xclang",
            "-finclude-default-header",
            "-target",
            "amdgcn-amd-amdhsa",
            "-mcpu=gfx1030",
            "-nogpulib",
        ]
    } else {
        &[
            "-x",
            "cl",
            "-cl-std=CL2.0",
            "-Xclang",
            "-finclude-default-header",
            "-target",
            target,
        ]
    };
    let status = Command::new("clang-19")
        .args(flags)
        .args(["-O0", "-S", "-emit-llvm"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("run clang-19");
    assert!(status.success(), "clang-19 failed on {}", src.display());
    out
}

/// `pllvm analyze FILE --compare-llvm` exits 0 with no value that differs
/// from opt-22's uniformity analysis.
fn agrees_with_llvm(file: &Path) {
    require("opt-22", "llvm-22");
    let o = pllvm(&[
        "analyze",
        file.to_str().expect("utf-8 path"),
        "--compare-llvm",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains(" 0 differ"), "{}", stdout(&o));
}

/// amdgcn at -O0: `clampi` is called, not inlined, by clang; pllvm inlines it.
/// Two thread arrays of 4 lanes, one group of 8, n = 10:
/// - `v = clampi(3i, 0, 10)` = [0, 3, 6, 9, 10, 10, 10, 10];
/// - odd lanes add `readfirstlane(i)`, the first *active* lane's i: 1 in the
///   first array, 5 in the second: out = [0, 4, 6, 10, 10, 15, 10, 15];
/// - `mbcnt.hi(~0, mbcnt.lo(~0, 0))` is the lane's position: [0, 1, 2, 3] twice;
/// - `ballot(i < 2 || i == 6)` per array: lanes 0, 1 (3), then lane 2 (4).
#[test]
fn amdgcn_helper_and_wave_operations() {
    let file = compile("calls", false);
    let o = launch(
        &file,
        "8",
        "4",
        &[
            "--buffer", "0=i32[8]", "--buffer", "1=i32[8]", "--buffer", "2=i32[8]", "--arg",
            "3=10", "--dump", "0", "--dump", "1", "--dump", "2",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("0: [0, 4, 6, 10, 10, 15, 10, 15]"), "{out}");
    assert!(out.contains("1: [0, 1, 2, 3, 0, 1, 2, 3]"), "{out}");
    assert!(out.contains("2: [3, 3, 3, 3, 4, 4, 4, 4]"), "{out}");
    // The analyses run on the inlined kernel and agree with LLVM's.
    agrees_with_llvm(&file);
}

/// nvptx at -O0: the device helper `twice` is inlined; `%laneid` is the lane's
/// position in its warp (the thread array), not the thread's id in its group.
#[test]
fn nvptx_helper_and_laneid() {
    let file = compile("calls", true);
    let o = launch(
        &file,
        "8",
        "4",
        &[
            "--function",
            "calls",
            "--buffer",
            "0=i32[8]",
            "--buffer",
            "1=i32[8]",
            "--dump",
            "0",
            "--dump",
            "1",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("0: [1, 3, 5, 7, 9, 11, 13, 15]"), "{out}");
    assert!(out.contains("1: [0, 1, 2, 3, 0, 1, 2, 3]"), "{out}");
}

/// OpenCL's work-item functions, as clang leaves them without a device library
/// (`_Z12get_local_idj`, ...), for amdgcn and spir64: 12 threads in groups of 4
/// (one thread array each, W = 4): local id l = t mod 4, group t / 4, local size
/// 4, 3 groups, global size 12; dimension 1 gives id 0 and size 1. So
/// out[t] = l + 100 group + 4000 + 30000 + 12 + 100000. The barriers run (each
/// group is one thread array); with groups of 8 (two arrays each) a barrier
/// cannot be honoured and the launch is refused.
#[test]
fn opencl_work_item_functions_and_barriers() {
    let expect: Vec<String> = (0..12)
        .map(|t| (t % 4 + 100 * (t / 4) + 134_012).to_string())
        .collect();
    let expect = format!("0: [{}]", expect.join(", "));
    for target in ["amdgcn", "spir64"] {
        let file = compile_for("workitems", false, target);
        let run = |group: &str| {
            launch(
                &file,
                "12",
                "4",
                &["--group", group, "--buffer", "0=i32[12]", "--dump", "0"],
            )
        };
        let o = run("4");
        assert_eq!(code(&o), 0, "{target}: {}", stderr(&o));
        assert!(stdout(&o).contains(&expect), "{target}: {}", stdout(&o));
        let o = run("8");
        assert_ne!(code(&o), 0, "{target}");
        assert!(
            stderr(&o).contains("the kernel calls a barrier, and a work-group of 8 threads spans several thread arrays of 4 lanes"),
            "{target}: {}",
            stderr(&o)
        );
    }
}

/// A CUDA grid-stride loop: 8 threads in 2 groups of 4 (`%nctaid.x` = 2,
/// `%ntid.x` = 4) cover 20 elements with stride 8; `%tid.y` is 0, so
/// out[i] = i for every i < 20.
#[test]
fn nvptx_grid_stride_loop() {
    let file = compile("gridstride", true);
    let o = launch(
        &file,
        "8",
        "4",
        &[
            "--group",
            "4",
            "--buffer",
            "0=i32[20]",
            "--arg",
            "1=20",
            "--dump",
            "0",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let expect: Vec<String> = (0..20).map(|i: i32| i.to_string()).collect();
    assert!(
        stdout(&o).contains(&format!("0: [{}]", expect.join(", "))),
        "{}",
        stdout(&o)
    );
}

/// A launch of 8 × 6 × 2 threads in work-groups of 4 × 2 × 1, from OpenCL C
/// (amdgcn and spir64) and from CUDA (nvptx). Worked out from OpenCL C 2.0
/// §6.13.1 and CUDA's built-in variables: the thread at global (x, y, z) has
/// local id (x mod 4, y mod 2, 0) and group id (x / 4, y / 2, z); every thread
/// sees sizes (4, 2, 1) and (2, 3, 2) groups. Each writes at its row-major
/// position, so the dumps do not depend on the order threads run in, and are
/// the same with warps of 4 (one row of a group each) and of 8 (a whole group,
/// two rows: the warp is formed x fastest).
#[test]
fn launches_of_three_dimensions() {
    let ids: Vec<String> = (0..2u32)
        .flat_map(|z| (0..6u32).flat_map(move |y| (0..8u32).map(move |x| (x, y, z))))
        .map(|(x, y, z)| x % 4 + 10 * (y % 2) + 1000 * (x / 4) + 10_000 * (y / 2) + 100_000 * z)
        .map(|v| v.to_string())
        .collect();
    let ids = format!("0: [{}]", ids.join(", "));
    let sizes = format!("1: [{}]", vec!["232124"; 96].join(", "));
    let files = [
        ("amdgcn", compile_for("workitems3d", false, "amdgcn")),
        ("spir64", compile_for("workitems3d", false, "spir64")),
        ("nvptx", compile("dims", true)),
    ];
    for (target, file) in &files {
        for width in ["4", "8"] {
            let o = launch(
                file,
                "8,6,2",
                width,
                &[
                    "--group",
                    "4,2,1",
                    "--buffer",
                    "0=i32[96]",
                    "--buffer",
                    "1=i32[96]",
                    "--dump",
                    "0",
                    "--dump",
                    "1",
                ],
            );
            assert_eq!(code(&o), 0, "{target}, W = {width}: {}", stderr(&o));
            let out = stdout(&o);
            assert!(out.contains(&ids), "{target}, W = {width}: {out}");
            assert!(out.contains(&sizes), "{target}, W = {width}: {out}");
            assert!(
                out.contains(
                    "shape: 8 × 6 × 2 threads, work-groups of 4 × 2 × 1, 2 × 3 × 2 work-groups"
                ),
                "{target}: {out}"
            );
        }
    }
    // A grid that is not whole work-groups in some dimension is refused
    // before running, naming the dimension.
    let o = launch(
        &files[0].1,
        "8,5",
        "4",
        &[
            "--group",
            "4,2",
            "--buffer",
            "0=i32[40]",
            "--buffer",
            "1=i32[40]",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "in dimension 1 the grid's 5 threads are not a multiple of the work-group's 2"
        ),
        "{}",
        stderr(&o)
    );
}

/// CUDA's warp primitives (`cli/tests/gpu/warp.cu`, clang-19 -O1), one warp of
/// 32 lanes. Worked out from the PTX ISA's `shfl.sync`, `vote.sync`,
/// `activemask` and `match.sync`:
/// - the `__shfl_down_sync` reduction of v = t + 1 over offsets 16, 8, 4, 2, 1
///   leaves 1 + ... + 32 = 528 in lane 0 (lane 31 reads its own value at every
///   offset: 32 · 2⁵ = 1024);
/// - `__shfl_sync(.., 10t, 3)` is 30 everywhere, `__shfl_xor_sync(.., t, 1)` is
///   t ^ 1: reads[t] = 30 + 1000 (t ^ 1);
/// - lanes t ≡ 0 (mod 4) run together: `__activemask` = 0x11111111, the ballot
///   of t ≥ 16 is 0x11110000, and `__match_any_sync(m, t / 8)` the two lanes of
///   that quarter, 0x11 << 8(t / 8); the others' `__all_sync(0xeeeeeeee, t <
///   100)` is 1.
///
/// `--compare-llvm` agrees with opt-22 on every value.
#[test]
fn cuda_warp_primitives() {
    let file = compile("warp", true);
    let o = launch(
        &file,
        "32",
        "32",
        &[
            "--buffer",
            "0=i32[32]",
            "--buffer",
            "1=i32[32]",
            "--buffer",
            "2=i32[32]",
            "--dump",
            "0",
            "--dump",
            "1",
            "--dump",
            "2",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let dump = |n: usize| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{n}: [")))
            .and_then(|l| l.strip_suffix(']'))
            .map(|l| {
                l.split(", ")
                    .map(|x| x.parse::<i64>().expect("int"))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_else(|| panic!("dump {n} in {out}"))
    };
    let sums = dump(0);
    assert_eq!((sums[0], sums[31]), (528, 1024), "{out}");
    let reads: Vec<i64> = (0..32).map(|t| 30 + 1000 * (t ^ 1)).collect();
    assert_eq!(dump(1), reads, "{out}");
    let votes: Vec<i64> = (0..32)
        .map(|t| match t % 4 {
            0 => 0x1111_0000 + (0x11 << (8 * (t / 8))),
            _ => 1,
        })
        .collect();
    assert_eq!(dump(2), votes, "{out}");
    agrees_with_llvm(&file);
}
