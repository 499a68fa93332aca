//! Calls in kernels compiled by clang-19 at `-O0` (docs/language.md, "Calls and declarations"): the
//! helpers clang leaves as calls are inlined when the module is read, and the
//! targets' wave operations (`mbcnt`, `readfirstlane`, `ballot` on amdgcn,
//! `%laneid` on nvptx) run with their lock-step meaning in θ, and OpenCL's
//! work-item functions and barriers left as calls run too. The kernels are
//! `cli/tests/gpu/{calls.cl,calls.cu,workitems.cl}`, launched with `--grid`
//! (docs/launch.md); every expected value is worked out here from the source.

use crate::common;
use common::{code, pllvm, require, stderr, stdout, temp_file};

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
    compile_at(name, cuda, target, "-O0")
}

/// The same at optimization level `opt` (`-O1`: the level docs/launch.md
/// compiles kernels at, with the vectorizers off).
fn compile_at(name: &str, cuda: bool, target: &str, opt: &str) -> PathBuf {
    require("clang-19", "clang-19");
    let ext = if cuda { "cu" } else { "cl" };
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/gpu/{name}.{ext}"));
    let out = std::env::temp_dir().join(format!(
        "pllvm-gpu-calls-{}-{name}-{ext}-{target}{opt}.ll",
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
        .args([
            opt,
            "-fno-vectorize",
            "-fno-slp-vectorize",
            "-S",
            "-emit-llvm",
        ])
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
/// group is one thread array); with groups of 8 (two arrays each, the last
/// group one) the arrays of a group meet at them (docs/launch.md, "Work-groups
/// of several warps"): l = t mod 8, group t / 8, local size 8, 2 groups.
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
        assert_eq!(code(&o), 0, "{target}: {}", stderr(&o));
        let by_8: Vec<String> = (0..12)
            .map(|t| (t % 8 + 100 * (t / 8) + 128_012).to_string())
            .collect();
        let by_8 = format!("0: [{}]", by_8.join(", "));
        assert!(stdout(&o).contains(&by_8), "{target}: {}", stdout(&o));
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

/// Work-groups of several warps (docs/launch.md): in `lds-race.cl`, threads 0
/// and 32 of each group of 64 (lane 0 of its two warps of 32) write the local
/// cell with no barrier between: a race within the work-group, reported with
/// both sites (array, lane, block, source line) in each of the two groups, and
/// exit 1; none between the groups, each of which has its own cell. With a
/// barrier between the writes (`lds_ordered`) every thread reads 2, exit 0.
#[test]
fn local_memory_race_between_two_warps_of_a_group() {
    let file = compile_at("lds-race", false, "amdgcn", "-O1");
    let run = |function: &str| {
        launch(
            &file,
            "128",
            "32",
            &[
                "--function",
                function,
                "--group",
                "64",
                "--buffer",
                "0=i32[128]",
                "--dump",
                "0",
            ],
        )
    };
    let o = run("lds_race");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let err = stderr(&o);
    for (g, a) in [(0, 0), (1, 2)] {
        let race = format!(
            "race within a work-group: work-group {g}: @lds_race.cell bytes 0..4: write by thread array {a} lane 0 in %4 and write by thread array {} lane 0 in %4, with no barrier between",
            a + 1
        );
        assert!(err.contains(&race), "{err}");
    }
    assert!(err.contains(".ll:23:3)"), "{err}");
    assert!(!err.contains("written by"), "{err}");
    let o = run("lds_ordered");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("race"), "{}", stderr(&o));
    let twos = format!("0: [{}]", vec!["2"; 128].join(", "));
    assert!(stdout(&o).contains(&twos), "{}", stdout(&o));
}

/// A tree reduction in local memory (`lds-reduce.cl`) over 102,400 threads in
/// 400 work-groups of 256, warps of 32 (eight a group, which read each other's
/// partial sums after every barrier): group g's sum is Σ (256 g + l) for
/// l < 256 = 65536 g + 32640, with the local array a `__local` variable and a
/// `__local` parameter; no race, exit 0. With groups of one warp each group
/// sums its 32 ids in a local memory of its own: no race either.
#[test]
fn local_memory_reduction_over_groups_of_several_warps() {
    let file = compile_at("lds-reduce", false, "amdgcn", "-O1");
    let sums = |groups: u64, size: u64| {
        let v: Vec<String> = (0..groups)
            .map(|g| (size * size * g + size * (size - 1) / 2).to_string())
            .collect();
        format!("0: [{}]", v.join(", "))
    };
    for (function, local) in [
        ("lds_reduce", None),
        ("lds_reduce_param", Some("1=i32[256]")),
    ] {
        let mut args = vec![
            "--function",
            function,
            "--group",
            "256",
            "--buffer",
            "0=i32[400]",
            "--dump",
            "0",
        ];
        args.extend(local.iter().flat_map(|l| ["--buffer", *l]));
        let o = launch(&file, "102400", "32", &args);
        assert_eq!(code(&o), 0, "{function}: {}", stderr(&o));
        assert!(!stderr(&o).contains("race"), "{}", stderr(&o));
        assert!(stdout(&o).contains(&sums(400, 256)), "{}", stdout(&o));
    }
    let o = launch(
        &file,
        "1024",
        "32",
        &[
            "--function",
            "lds_reduce",
            "--group",
            "32",
            "--buffer",
            "0=i32[32]",
            "--dump",
            "0",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("race"), "{}", stderr(&o));
    assert!(stdout(&o).contains(&sums(32, 32)), "{}", stdout(&o));
}

/// A barrier after a divergent loop, with work-groups of several warps
/// (`spmv-vector.cl`, the CSR "vector" kernel): one group of 64 threads (two
/// warps of 32) per row strides the row's nonzeros, each thread its own number
/// of iterations, then the group reduces the partial sums in local memory.
/// Under the launch's default (checked greedy) order every row's sum is the
/// one computed here, with no race and no barrier divergence, over 200 rows
/// of 0 to 100 nonzeros.
#[test]
fn spmv_vector_barrier_after_a_divergent_loop() {
    let file = compile_at("spmv-vector", false, "amdgcn", "-O1");
    let (rows, columns) = (200usize, 300usize);
    let (mut rowptr, mut cols, mut vals) = (vec![0i32], Vec::new(), Vec::new());
    for r in 0..rows {
        for j in 0..(r * 7) % 101 {
            cols.push(((r * 13 + j * 5) % columns) as i32);
            vals.push((j % 9) as i32 - 4);
        }
        rowptr.push(cols.len() as i32);
    }
    let x: Vec<i32> = (0..columns).map(|c| (c % 11) as i32 - 5).collect();
    let y: Vec<String> = (0..rows)
        .map(|r| {
            let (a, b) = (rowptr[r] as usize, rowptr[r + 1] as usize);
            (a..b)
                .map(|k| vals[k] * x[cols[k] as usize])
                .sum::<i32>()
                .to_string()
        })
        .collect();
    let bytes = |v: &[i32]| v.iter().flat_map(|i| i.to_le_bytes()).collect::<Vec<u8>>();
    let files = [
        ("1", temp_file("spmv_rowptr.bin", bytes(&rowptr))),
        ("2", temp_file("spmv_cols.bin", bytes(&cols))),
        ("3", temp_file("spmv_vals.bin", bytes(&vals))),
        ("4", temp_file("spmv_x.bin", bytes(&x))),
    ];
    let buffers: Vec<String> = files.iter().map(|(n, f)| format!("{n}=i32:{f}")).collect();
    let rows_arg = format!("5={rows}");
    let threads = (rows * 64).to_string();
    let mut args = vec![
        "--group",
        "64",
        "--buffer",
        "0=i32[200]",
        "--buffer",
        "6=i32[64]",
    ];
    for b in &buffers {
        args.extend(["--buffer", b.as_str()]);
    }
    args.extend(["--arg", rows_arg.as_str(), "--dump", "0"]);
    let o = launch(&file, &threads, "32", &args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("race"), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("0: [{}]", y.join(", "))),
        "{}",
        stdout(&o)
    );
}
