//! Widening to vector LLVM IR (docs/native.md), compiled by `llc-19` for AVX2,
//! AVX-512 and NEON and RUN: every lane of the native chunk functions agrees with
//! the interpreter running the original program under FREEZING (the per-lane
//! meaning the transforms preserve, thesis Theorems 3-5).
//!
//! The object is linked with a small C driver written here (test scaffolding, not
//! the project's runner): it implements just enough of the native ABI
//! (`docs/native.md`) for one run: the argument words, globals in `mmap`'d
//! regions whose last byte abuts a PROT_NONE page (and the argument and return
//! arrays likewise), chunks of W lanes with a masked tail. NEON code runs under
//! `qemu-aarch64` after `aarch64-linux-gnu-gcc -static`. A missing tool fails the
//! test, naming the apt package; AVX-512 code runs only where the CPU has it and
//! is otherwise compiled only, saying so.

use pllvm_codegen::Kernel;
use pllvm_codegen::pipeline::{Options, native_passes, run_passes};
use pllvm_codegen::widen::{self, MaskRepr, VectorTarget, WidenOptions, widen_batch};
use pllvm_interp::config::{ArgValue, Scalar};
use pllvm_interp::{Machine, Outcome, RunConfig};
use pllvm_semantics::ir::{ConstData, GlobalInit, Module};
use pllvm_semantics::rules::Interp;
use pllvm_semantics::text::parse_module;
use pllvm_semantics::types::{Ty, TypeData, TypeTable};
use pllvm_semantics::value::Val;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One argument value of one lane.
#[derive(Clone, Debug)]
enum Arg {
    /// An integer (any width up to 64, two's complement).
    Int(i64),
    /// A float.
    F32(f32),
    /// A double.
    F64(f64),
    /// The address of global `g` plus a byte offset.
    Global(usize, u64),
    /// `null`.
    Null,
    /// Natively an address inside a PROT_NONE page; `null` for the interpreter
    /// (the lane never dereferences it).
    Guard,
}

impl Arg {
    fn interp(&self, module: &Module) -> Scalar {
        match self {
            Arg::Int(i) => Scalar::Int(*i),
            Arg::F32(f) => Scalar::Float(f64::from(*f)),
            Arg::F64(f) => Scalar::Float(*f),
            Arg::Global(g, off) => {
                let name = &module.globals.values().nth(*g).expect("global").name;
                Scalar::Text(format!("@{name}+{off}"))
            }
            Arg::Null | Arg::Guard => Scalar::Text("null".into()),
        }
    }

    /// The C expression of the argument word.
    fn c_word(&self, ty: &TypeData) -> String {
        match self {
            Arg::Int(i) => {
                let bits = match ty {
                    TypeData::Int(w) if *w < 64 => (*i as u64) & ((1u64 << w) - 1),
                    _ => *i as u64,
                };
                format!("0x{bits:x}ull")
            }
            Arg::F32(f) => format!("0x{:x}ull", f.to_bits()),
            Arg::F64(f) => format!("0x{:x}ull", f.to_bits()),
            Arg::Global(g, off) => format!("(uint64_t)(uintptr_t)(globals[{g}] + {off})"),
            Arg::Null => "0ull".into(),
            Arg::Guard => "(uint64_t)(uintptr_t)(guard + 64)".into(),
        }
    }
}

/// A tool the tests need, with the apt package that provides it.
fn tool(name: &str, package: &str) -> String {
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {name}"))
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        let ci = std::env::var_os("CI").is_some();
        panic!(
            "{name} is missing{}: install it with `apt-get install {package}`",
            if ci { " on CI" } else { "" }
        );
    }
    name.to_string()
}

fn has_avx512() -> bool {
    std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|c| c.contains("avx512f"))
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn temp_dir(tag: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let k = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("pllvm-widen-{}-{tag}-{k}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn parse(src: &str) -> Module {
    match parse_module(src) {
        Ok((m, _)) => m,
        Err(e) => panic!("parse: {e:?}"),
    }
}

fn corpus(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/kernels")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The module after `pllvm compile`'s default passes (`nonneg-div,dlt,boscc,pl`).
fn transformed(m: &Module) -> Module {
    let func = m.first_definition().expect("a function");
    let stages = run_passes(m, func, &native_passes(), &Options::default())
        .unwrap_or_else(|e| panic!("transform: {e}"));
    stages.into_iter().last().expect("a stage").module
}

/// The initial bytes of a global (its initializer laid out as the interpreter
/// lays it out; `undef` as zero).
fn init_bytes(types: &TypeTable, ty: Ty, init: Option<&GlobalInit>, out: &mut Vec<u8>, at: usize) {
    let Some(init) = init else { return };
    match init {
        GlobalInit::Zero | GlobalInit::Undef => {}
        GlobalInit::Scalar(c) => {
            let size = types.store_size(ty) as usize;
            let bits: u64 = match c {
                ConstData::Int(b) => b.iter_u64_digits().next().unwrap_or(0),
                ConstData::Float(b) => *b,
                _ => 0,
            };
            for k in 0..size.min(8) {
                out[at + k] = (bits >> (8 * k)) as u8;
            }
        }
        GlobalInit::Aggregate(items) => match types.get(ty).clone() {
            TypeData::Array(_, elem) => {
                let stride = types.size_of(elem) as usize;
                for (k, item) in items.iter().enumerate() {
                    init_bytes(types, elem, Some(item), out, at + k * stride);
                }
            }
            TypeData::Struct { fields, .. } => {
                let (offsets, _) = types.struct_layout(ty);
                for ((f, off), item) in fields.iter().zip(offsets).zip(items) {
                    init_bytes(types, *f, Some(item), out, at + off as usize);
                }
            }
            _ => {}
        },
    }
}

/// The C driver: one run of kernel 0 over `n` threads.
fn driver(module: &Module, args: &[Vec<Arg>], n: usize) -> String {
    let func = module.first_definition().expect("a function");
    let data = &module.functions[func];
    let types = &module.types;
    let mut c = String::from(
        "#define _GNU_SOURCE\n#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n#include <sys/mman.h>\n#include <unistd.h>\n\
         typedef void (*chunk_fn)(uint64_t, uint64_t, const uint64_t *, uint64_t, uint64_t *, uint8_t *const *);\n\
         struct pllvm_kernel { const char *name; uint64_t width; chunk_fn chunk; };\n\
         extern const struct pllvm_kernel pllvm_kernels[];\nextern const uint64_t pllvm_kernel_count;\n\
         static uint8_t *guard;\n\
         /* size bytes whose last byte abuts a PROT_NONE page */\n\
         static uint8_t *against_guard(size_t size, size_t align) {\n\
           size_t page = (size_t)sysconf(_SC_PAGESIZE);\n\
           size_t pages = (size + page - 1) / page + 1;\n\
           uint8_t *m = mmap(0, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n\
           if (m == MAP_FAILED) { perror(\"mmap\"); _exit(3); }\n\
           uint8_t *end = m + pages * page;\n\
           mprotect(end, page, PROT_NONE);\n\
           uintptr_t at = ((uintptr_t)end - size) & ~(uintptr_t)(align - 1);\n\
           return (uint8_t *)at;\n\
         }\n\
         int main(void) {\n",
    );
    let page = "  guard = mmap(0, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n";
    c.push_str(page);
    let g_count = module.globals.len();
    c.push_str(&format!("  static uint8_t *globals[{}];\n", g_count.max(1)));
    for (k, (_, g)) in module.globals.iter().enumerate() {
        let size = types.size_of(g.ty).max(1) as usize;
        let align = g.align.unwrap_or_else(|| types.align_of(g.ty)).max(1);
        let mut bytes = vec![0u8; size];
        init_bytes(types, g.ty, g.init.as_ref(), &mut bytes, 0);
        let list: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
        c.push_str(&format!(
            "  {{ static const uint8_t init[] = {{{}}}; globals[{k}] = against_guard({size}, {align}); memcpy(globals[{k}], init, {size}); }}\n",
            list.join(",")
        ));
    }
    let p = data.params.len();
    c.push_str(&format!(
        "  uint64_t *args = (uint64_t *)against_guard({} * 8, 8);\n",
        (p * n).max(1)
    ));
    for (k, param) in data.params.iter().enumerate() {
        for (t, a) in args[k].iter().enumerate() {
            c.push_str(&format!(
                "  args[{}] = {};\n",
                k * n + t,
                a.c_word(types.get(param.ty))
            ));
        }
    }
    c.push_str(&format!(
        "  uint64_t *ret = (uint64_t *)against_guard({n} * 8, 8);\n  memset(ret, 0, {n} * 8);\n\
           const struct pllvm_kernel *k = &pllvm_kernels[0];\n\
           if (pllvm_kernel_count != 1) return 4;\n\
           for (uint64_t base = 0; base < {n}; base += k->width) {{\n\
             uint64_t count = {n} - base < k->width ? {n} - base : k->width;\n\
             k->chunk(base, count, args, {n}, ret, globals);\n\
           }}\n\
           for (int i = 0; i < {n}; i++) printf(\"ret %llx\\n\", (unsigned long long)ret[i]);\n"
    ));
    for (k, (_, g)) in module.globals.iter().enumerate() {
        let size = types.size_of(g.ty).max(1);
        c.push_str(&format!(
            "  printf(\"global\"); for (int i = 0; i < {size}; i++) printf(\" %02x\", globals[{k}][i]); printf(\"\\n\");\n"
        ));
    }
    c.push_str("  return 0;\n}\n");
    c
}

/// What the interpreter says: the return value's bits per lane (None for ⊤ or
/// void), and every global's cells as (byte offset, size, bits).
struct Expected {
    ret: Vec<Option<u64>>,
    globals: Vec<Vec<(usize, usize, Option<u64>)>>,
}

fn val_bits(v: &Val) -> Option<u64> {
    match v {
        Val::Int(i) => Some(*i as u64),
        Val::F32(f) => Some(u64::from(*f)),
        Val::F64(f) => Some(*f),
        _ => None,
    }
}

fn interpret(module: &Module, args: &[Vec<Arg>], n: usize) -> Expected {
    let func = module.first_definition().expect("a function");
    let data = &module.functions[func];
    let body = data.body.as_ref().expect("a body");
    let mut config = RunConfig {
        threads: n,
        interp: Interp::Freezing,
        observe: false,
        ..RunConfig::default()
    };
    for (k, param) in data.params.iter().enumerate() {
        let name = body
            .value_name(param.value)
            .map_or(k.to_string(), str::to_string);
        config.args.insert(
            name,
            ArgValue::PerLane(args[k].iter().map(|a| a.interp(module)).collect()),
        );
    }
    let mut machine = Machine::new(module, &config).unwrap_or_else(|e| panic!("setup: {e:?}"));
    let outcome = machine.run_to_end().expect("the interpreter runs");
    assert_eq!(
        outcome,
        Outcome::Returned,
        "the interpreter's run must return"
    );
    let ret = machine
        .results()
        .iter()
        .map(|r| r.as_ref().and_then(val_bits))
        .collect();
    let types = &module.types;
    let globals = machine
        .global_contents()
        .iter()
        .map(|g| {
            let mut at = 0usize;
            g.cells
                .iter()
                .map(|cell| {
                    let size = match (&cell.value, cell.int_width) {
                        (_, Some(w)) => w.div_ceil(8) as usize,
                        (Val::F32(_), _) => 4,
                        _ => 8,
                    };
                    let item = (at, size, val_bits(&cell.value));
                    at += size;
                    item
                })
                .collect()
        })
        .collect();
    let _ = types;
    Expected { ret, globals }
}

/// Compiles `ir` for `target`, links it with the driver and runs it (unless it is
/// AVX-512 on a CPU without it); returns the driver's output, or None when only
/// compiled.
fn native(ir: &str, c: &str, target: VectorTarget, tag: &str) -> Option<String> {
    let dir = temp_dir(tag);
    let ll = dir.join("k.ll");
    let obj = dir.join("k.o");
    std::fs::write(&ll, ir).expect("write ir");
    std::fs::write(dir.join("driver.c"), c).expect("write driver");
    let llc = tool("llc-19", "llvm-19");
    let mut cmd = Command::new(llc);
    cmd.args(["-O2", "-filetype=obj"])
        .args(target.llc_flags())
        .arg(&ll)
        .arg("-o")
        .arg(&obj);
    run(
        &mut cmd,
        &format!("llc-19 for {} ({})", target.name(), ll.display()),
    );
    let exe = dir.join("prog");
    match target {
        VectorTarget::Neon => {
            let gcc = tool("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu");
            run(
                Command::new(gcc)
                    .args(["-O1", "-static", "-o"])
                    .arg(&exe)
                    .arg(dir.join("driver.c"))
                    .arg(&obj)
                    .arg("-lm"),
                "aarch64-linux-gnu-gcc",
            );
            let qemu = tool("qemu-aarch64", "qemu-user");
            Some(run(Command::new(qemu).arg(&exe), "qemu-aarch64 ./prog"))
        }
        _ => {
            let gcc = tool("gcc", "gcc");
            run(
                Command::new(gcc)
                    .args(["-O1", "-o"])
                    .arg(&exe)
                    .arg(dir.join("driver.c"))
                    .arg(&obj)
                    .arg("-lm"),
                "gcc (link)",
            );
            if target == VectorTarget::Avx512 && !has_avx512() {
                eprintln!(
                    "this CPU has no AVX-512: the AVX-512 code of {tag} was compiled by llc-19 but NOT run"
                );
                return None;
            }
            Some(run(&mut Command::new(&exe), "./prog"))
        }
    }
}

fn compare(output: &str, expected: &Expected, tag: &str, ir: &str) {
    let rets: Vec<u64> = output
        .lines()
        .filter_map(|l| l.strip_prefix("ret "))
        .map(|h| u64::from_str_radix(h, 16).expect("hex"))
        .collect();
    assert_eq!(rets.len(), expected.ret.len(), "{tag}: lanes");
    for (lane, (got, want)) in rets.iter().zip(&expected.ret).enumerate() {
        if let Some(want) = want {
            assert_eq!(
                got, want,
                "{tag}: lane {lane} returns {got:#x}, the interpreter {want:#x}\n{ir}"
            );
        }
    }
    let globals: Vec<Vec<u8>> = output
        .lines()
        .filter_map(|l| l.strip_prefix("global"))
        .map(|l| {
            l.split_whitespace()
                .map(|b| u8::from_str_radix(b, 16).expect("hex"))
                .collect()
        })
        .collect();
    for (g, cells) in expected.globals.iter().enumerate() {
        for &(at, size, want) in cells {
            let Some(want) = want else { continue };
            let got = (0..size).fold(0u64, |acc, k| {
                acc | (u64::from(globals[g][at + k]) << (8 * k))
            });
            assert_eq!(
                got, want,
                "{tag}: global {g} at byte {at}: {got:#x}, the interpreter {want:#x}"
            );
        }
    }
}

/// Widens the transformed `src` for every target (and the given W / mask
/// choices), compiles, runs and compares with the interpreter on `args` (one
/// vector per parameter, one value per thread).
fn check(
    tag: &str,
    src: &str,
    args: &[Vec<Arg>],
    configs: &[(VectorTarget, Option<usize>, Option<MaskRepr>)],
    uniform_args: &[String],
) {
    let original = parse(src);
    let module = transformed(&original);
    let n = args.first().map_or(1, Vec::len);
    let expected = interpret(&original, args, n);
    let func = module.first_definition().expect("a function");
    for &(target, width, mask) in configs {
        let mut options = WidenOptions::new(target);
        options.width = width;
        options.mask = mask;
        options.uniform_args = uniform_args.to_vec();
        let kernel = Kernel {
            name: tag,
            module: &module,
            function: func,
            uniform_args: &[],
        };
        let ir = widen_batch(&[kernel], &options).unwrap_or_else(|e| panic!("{tag}: widen: {e}"));
        let label = format!(
            "{tag}-{}-w{}-{:?}",
            target.name(),
            options.width(),
            widen::kernel_mask(&kernel, &options).expect("the kernel's mask")
        );
        let c = driver(&module, args, n);
        if let Some(out) = native(&ir, &c, target, &label) {
            compare(&out, &expected, &label, &ir);
        }
    }
}

/// The three targets at their default W and mask, plus AVX2 at W = 8 with
/// `<W x i1>` masks.
fn all_targets() -> Vec<(VectorTarget, Option<usize>, Option<MaskRepr>)> {
    vec![
        (VectorTarget::Avx2, None, None),
        (VectorTarget::Avx512, None, None),
        (VectorTarget::Neon, None, None),
        (VectorTarget::Avx2, Some(8), Some(MaskRepr::I1)),
    ]
}

fn ints(v: impl IntoIterator<Item = i64>) -> Vec<Arg> {
    v.into_iter().map(Arg::Int).collect()
}

#[test]
fn mandelbrot_every_lane_agrees() {
    let n = 37;
    let cx: Vec<Arg> = (0..n).map(|t| Arg::F32(-2.0 + 0.07 * t as f32)).collect();
    let cy: Vec<Arg> = (0..n).map(|t| Arg::F32(-1.0 + 0.05 * t as f32)).collect();
    let maxit = ints((0..n).map(|_| 64));
    check(
        "mandelbrot",
        &corpus("mandelbrot.ll"),
        &[cx, cy, maxit],
        &all_targets(),
        &[],
    );
}

#[test]
fn full_chunks_and_the_tail_run_their_own_bodies() {
    // 2W + 5 threads: two full chunks (the body without existence mask) and a
    // tail of 5 lanes (the general body); and the same with one body only.
    let src = corpus("mandelbrot.ll");
    let original = parse(&src);
    let module = transformed(&original);
    let func = module.first_definition().expect("a function");
    for target in [VectorTarget::Avx2, VectorTarget::Avx512] {
        for full_chunks in [true, false] {
            let mut options = WidenOptions::new(target);
            options.full_chunks = full_chunks;
            let n = 2 * options.width() + 5;
            let cx: Vec<Arg> = (0..n).map(|t| Arg::F32(-2.0 + 0.045 * t as f32)).collect();
            let cy: Vec<Arg> = (0..n).map(|t| Arg::F32(-1.0 + 0.03 * t as f32)).collect();
            let args = [cx, cy, ints((0..n).map(|_| 40))];
            let expected = interpret(&original, &args, n);
            let kernel = Kernel {
                name: "mandel",
                module: &module,
                function: func,
                uniform_args: &[],
            };
            let ir = widen_batch(&[kernel], &options).unwrap_or_else(|e| panic!("widen: {e}"));
            assert_eq!(
                ir.contains("define internal void @pllvm_full_mandel("),
                full_chunks,
                "a body for full chunks exactly when asked:\n{ir}"
            );
            assert_eq!(ir.contains("@pllvm_part_mandel("), full_chunks);
            if let Some(at) = ir.find("define internal void @pllvm_full_mandel(") {
                let body = &ir[at..];
                let body = &body[..body.find("\n}\n").expect("the end of the body")];
                assert!(
                    !body.contains("%exists"),
                    "the body for full chunks tests no existence mask:\n{body}"
                );
            }
            let label = format!("full-chunks-{}-{full_chunks}", target.name());
            let c = driver(&module, &args, n);
            if let Some(out) = native(&ir, &c, target, &label) {
                compare(&out, &expected, &label, &ir);
            }
        }
    }
}

#[test]
fn logstar_every_lane_agrees() {
    let n = 21;
    let x: Vec<Arg> = (0..n).map(|t| Arg::F64(0.3 + 1.9f64.powi(t))).collect();
    check("logstar", &corpus("logstar.ll"), &[x], &all_targets(), &[]);
}

#[test]
fn safelog_every_lane_agrees_in_one_chunk() {
    // safelog uses @pllvm.any itself: one chunk only (n ≤ W), as the ABI says.
    let x: Vec<Arg> = [1.0, -2.0, 4.0, 0.0, 9.5, -0.5, 3.0]
        .iter()
        .map(|&v| Arg::F64(v))
        .collect();
    check("safelog", &corpus("safelog.ll"), &[x], &all_targets(), &[]);
}

#[test]
fn binary_search_every_lane_agrees() {
    // The table is an external global in the corpus file; here it gets the
    // contents the file's runs give it.
    let src = corpus("xsbench-binary-search.ll").replace(
        "@egrid = external global [8 x double]",
        "@egrid = global [8 x double] [double 0.0, double 1.0, double 2.0, double 4.0, double 8.0, double 16.0, double 32.0, double 64.0]",
    );
    let n = 29;
    let size = ints((0..n).map(|_| 8));
    let quarry: Vec<Arg> = (0..n).map(|t| Arg::F64(-1.5 + 2.5 * t as f64)).collect();
    let table: Vec<Arg> = (0..n).map(|_| Arg::Global(0, 0)).collect();
    let args = [size, quarry, table];
    check("bsearch", &src, &args, &all_targets(), &[]);
    // With n and A uniform (as the file's `; analyze:` line says): scalar loads.
    check(
        "bsearch_uniform",
        &src,
        &args,
        &all_targets(),
        &["n".into(), "A".into()],
    );
}

/// The default mask follows the width of the kernel's varying values
/// (`VectorTarget::default_mask_for`): the binary search (`i64` bounds,
/// `double` table) gets `<W x i32>` on AVX-512 and `<W x i1>` on AVX2,
/// Mandelbrot (`float`, `i32`) the other way round; NEON keeps `<W x i32>`,
/// and an explicit choice wins.
#[test]
fn the_default_mask_follows_the_width_of_the_lanes() {
    let mask = |file: &str, target: VectorTarget, uniform: &[&str], given: Option<MaskRepr>| {
        let module = transformed(&parse(&corpus(file)));
        let uniform: Vec<String> = uniform.iter().map(|s| s.to_string()).collect();
        let kernel = Kernel {
            name: "k",
            module: &module,
            function: module.first_definition().expect("a function"),
            uniform_args: &uniform,
        };
        let mut options = WidenOptions::new(target);
        options.mask = given;
        options.linearized = true;
        let mask = widen::kernel_mask(&kernel, &options).expect("a mask");
        let ir = widen_batch(&[kernel], &options).expect("widened");
        assert!(
            ir.lines()
                .next()
                .is_some_and(|l| l.ends_with(&format!("masks {mask:?}"))),
            "{file}: the header names {mask:?}: {}",
            ir.lines().next().unwrap_or("")
        );
        mask
    };
    let search = "xsbench-binary-search.ll";
    for uniform in [&["n", "A"][..], &[]] {
        assert_eq!(
            mask(search, VectorTarget::Avx512, uniform, None),
            MaskRepr::I32
        );
        assert_eq!(
            mask(search, VectorTarget::Avx2, uniform, None),
            MaskRepr::I1
        );
        assert_eq!(
            mask(search, VectorTarget::Neon, uniform, None),
            MaskRepr::I32
        );
    }
    assert_eq!(
        mask(search, VectorTarget::Avx512, &[], Some(MaskRepr::I1)),
        MaskRepr::I1
    );
    let mandel = "mandelbrot.ll";
    assert_eq!(
        mask(mandel, VectorTarget::Avx512, &["maxit"], None),
        MaskRepr::I1
    );
    assert_eq!(mask(mandel, VectorTarget::Avx512, &[], None), MaskRepr::I1);
    assert_eq!(mask(mandel, VectorTarget::Avx2, &[], None), MaskRepr::I32);
}

#[test]
fn if_cascade_every_lane_agrees() {
    let n = 19;
    let xi = ints((0..n).map(|t| (t * 5) % 31));
    let ri = ints((0..n).map(|t| t % 3));
    let count = ints((0..n).map(|_| 6));
    check(
        "nab",
        &corpus("nab-if-cascade.ll"),
        &[xi, ri, count],
        &all_targets(),
        &[],
    );
}

#[test]
fn uniform_control_every_lane_agrees() {
    // Four threads (the arrays hold four), so one chunk with W - 4 missing lanes;
    // `@in` gets the contents of the file's runs.
    let src = corpus("uniform-control.ll").replace(
        "@in = external local_unnamed_addr global [4 x i32], align 16",
        "@in = global [4 x i32] [i32 0, i32 1, i32 2, i32 -3], align 16",
    );
    for (n_arg, mode) in [(4, 0), (3, 1), (0, 0)] {
        let args = [ints((0..4).map(|_| n_arg)), ints((0..4).map(|_| mode))];
        check("uniform", &src, &args, &all_targets(), &[]);
        check(
            "uniform_args",
            &src,
            &args,
            &all_targets(),
            &["n".into(), "mode".into()],
        );
    }
}

/// Lanes that do not run a load or store hold pointers into a PROT_NONE page or
/// null, and the chunk's missing lanes (count..W-1) read past the argument array
/// into a guard page if they read at all: nothing traps, nothing is written.
#[test]
fn inactive_lanes_never_trap() {
    let src = "
@buf = global [37 x i32] zeroinitializer, align 4

define i32 @guarded(ptr %p, i32 %k) {
entry:
  %c = icmp sgt i32 %k, 0
  br i1 %c, label %then, label %end
then:
  %v = load i32, ptr %p, align 4
  %w = add i32 %v, %k
  store i32 %w, ptr %p, align 4
  %tid = call i32 @pllvm.thread_id()
  %q = getelementptr i32, ptr @buf, i32 %tid
  store i32 %k, ptr %q, align 4
  %tid64 = call i64 @pllvm.thread_id()
  %q64 = getelementptr i32, ptr @buf, i64 %tid64
  %old = load i32, ptr %q64, align 4
  %new = add i32 %old, 1000
  store i32 %new, ptr %q64, align 4
  br label %end
end:
  %r = phi i32 [ %v, %then ], [ -1, %entry ]
  ret i32 %r
}
";
    let n = 37;
    let k: Vec<i64> = (0..n as i64)
        .map(|t| if t % 3 == 0 { 0 } else { t })
        .collect();
    let p: Vec<Arg> = (0..n)
        .map(|t| match (k[t], t % 2) {
            (0, 0) => Arg::Guard,
            (0, _) => Arg::Null,
            _ => Arg::Global(0, 4 * t as u64),
        })
        .collect();
    check("guard", src, &[p, ints(k)], &all_targets(), &[]);
}

#[test]
fn a_divergent_branch_not_on_any_is_refused() {
    let src = "
define i32 @f(i32 %x) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %a, label %b
a:
  ret i32 1
b:
  ret i32 2
}
";
    let m = parse(src);
    let func = m.first_definition().expect("a function");
    let kernel = Kernel {
        name: "f",
        module: &m,
        function: func,
        uniform_args: &[],
    };
    let err = widen_batch(&[kernel], &WidenOptions::new(VectorTarget::Avx2))
        .expect_err("a divergent branch is refused");
    assert!(err.message.contains("divergent"), "{err}");
}

#[test]
fn wide_parameters_are_refused_naming_the_parameter() {
    let src = "
define i32 @f(i128 %x) {
entry:
  %t = trunc i128 %x to i32
  ret i32 %t
}
";
    let m = parse(src);
    let func = m.first_definition().expect("a function");
    let kernel = Kernel {
        name: "f",
        module: &m,
        function: func,
        uniform_args: &[],
    };
    let err = widen_batch(&[kernel], &WidenOptions::new(VectorTarget::Avx2))
        .expect_err("an i128 parameter is refused");
    assert!(
        err.message.contains("%x") && err.message.contains("i128"),
        "{err}"
    );
}

/// Point 1's LLVM-semantics hazards, read off the emitted IR of a kernel with
/// a varying division, `nsw` / `nuw` / `exact` flags, floating-point
/// arithmetic, a scatter and a horizontal `any`, on every target: no flag and
/// no `contract` survives the widening, a varying divisor is `select`ed to 1
/// in the lanes that must not divide, the input of the reduction is frozen,
/// and every memory access says its alignment.
#[test]
fn the_widening_defuses_llvms_hazards() {
    let src = "define i32 @k(i32 %x, i32 %y, ptr %p) {
entry:
  %t = call i32 @pllvm.thread_id()
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %a, label %b
a:
  %q = sdiv exact i32 %y, %x
  %s = add nsw i32 %q, %t
  %f = sitofp i32 %s to float
  %g = fmul float %f, 2.0
  %h = fadd float %g, 1.0
  %i = fptosi float %h to i32
  %e = getelementptr inbounds i32, ptr %p, i32 %t
  store i32 %i, ptr %e, align 4
  br label %b
b:
  %r = phi i32 [ %i, %a ], [ 0, %entry ]
  %m = icmp eq i32 %r, 3
  %any = call i1 @pllvm.any(i1 %m)
  %z = zext i1 %any to i32
  %w = add nuw i32 %r, %z
  ret i32 %w
}
declare i32 @pllvm.thread_id()
declare i1 @pllvm.any(i1)
";
    let module = transformed(&parse(src));
    for target in [VectorTarget::Avx2, VectorTarget::Avx512, VectorTarget::Neon] {
        let kernel = Kernel {
            name: "k",
            module: &module,
            function: module.first_definition().expect("a function"),
            uniform_args: &[],
        };
        let mut options = WidenOptions::new(target);
        options.linearized = true;
        let ir = widen_batch(&[kernel], &options).expect("widened");
        let tag = target.name();
        let lines: Vec<&str> = ir.lines().collect();
        for word in [" nsw ", " nuw ", " exact ", "contract"] {
            assert!(!ir.contains(word), "{tag}: `{word}` survives:\n{ir}");
        }
        // Each division's divisor is a select that puts 1 where it must not divide.
        let divisions: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| l.contains(" = sdiv "))
            .collect();
        assert!(!divisions.is_empty(), "{tag}: no sdiv\n{ir}");
        for d in divisions {
            let divisor = d.rsplit(' ').next().expect("an operand");
            let def = format!("{divisor} = select ");
            let select = lines
                .iter()
                .find(|l| l.trim_start().starts_with(&def))
                .unwrap_or_else(|| panic!("{tag}: divisor {divisor} is not a select:\n{ir}"));
            assert!(select.contains("splat (i32 1)"), "{tag}: {select}");
        }
        // The reduction reads a frozen vector.
        let any_input = lines
            .iter()
            .position(|l| l.contains(" = freeze "))
            .unwrap_or_else(|| panic!("{tag}: no freeze:\n{ir}"));
        let frozen = lines[any_input].split(" = ").next().expect("a name").trim();
        assert!(
            lines[any_input + 1..]
                .iter()
                .any(|l| l.contains(&format!("{frozen},")) || l.contains(&format!("{frozen})"))),
            "{tag}: the frozen value is not used:\n{ir}"
        );
        // Every memory access carries its alignment.
        for l in &lines {
            let masked = l.contains("call") && l.contains("@llvm.masked.");
            if masked {
                // The alignment argument follows the pointer operand(s).
                let at = l.rfind("ptr %").max(l.rfind("ptr> %"));
                let after_ptr = at.map(|k| &l[k..]);
                let aligned = after_ptr.is_some_and(|rest| {
                    rest.split(", ").nth(1).is_some_and(|a| {
                        a.strip_prefix("i32 ")
                            .and_then(|n| n.parse::<u32>().ok())
                            .is_some_and(|n| n > 0)
                    })
                });
                assert!(aligned, "{tag}: masked access without an alignment: {l}");
            } else if l.contains(" = load ") || l.trim_start().starts_with("store ") {
                assert!(l.contains(", align "), "{tag}: access without align: {l}");
            }
        }
        assert!(
            ir.contains("@llvm.masked.scatter"),
            "{tag}: the store scatters\n{ir}"
        );
    }
}

/// One memory access form of [`accesses_are_contiguous_where_sa_proves_stride_one`]:
/// the lines that compute `%p$` (an address into `$X`, with `%z = zext i32 %t to
/// i64` in scope; `$` is a suffix that keeps the load's and the store's
/// temporaries apart), the globals, whether `%n` is a uniform argument, and
/// whether the access must be contiguous.
struct Access {
    name: &'static str,
    globals: &'static str,
    addr: &'static str,
    uniform_n: bool,
    contiguous: bool,
}

const ARRAYS: &str = "@a = global [200 x i32] zeroinitializer, align 4
@b = global [200 x i32] zeroinitializer, align 4";

/// `a[zext(t) + zext(n)]` in 64 bits.
const OFFSET: &str = "%n$ = zext i32 %n to i64
  %i$ = add i64 %z, %n$
  %p$ = getelementptr i32, ptr $X, i64 %i$";

const ACCESSES: [Access; 9] = [
    // clang's `a[t + 100]`, `t` an `int` id: the chunk's lanes never straddle
    // 2^31 or 2^32 (`sa` in chunks, thesis Ch. 10), so the extension is strided.
    Access {
        name: "zext",
        globals: ARRAYS,
        addr: "%i$ = add i64 %z, 100
  %p$ = getelementptr inbounds [200 x i32], ptr $X, i64 0, i64 %i$",
        uniform_n: false,
        contiguous: true,
    },
    Access {
        name: "sext",
        globals: ARRAYS,
        addr: "%s$ = sext i32 %t to i64
  %i$ = add i64 %s$, 100
  %p$ = getelementptr inbounds i32, ptr $X, i64 %i$",
        uniform_n: false,
        contiguous: true,
    },
    // Bytes: stride 4 over `i8` elements is an `i32` access's size.
    Access {
        name: "bytes",
        globals: ARRAYS,
        addr: "%o$ = mul i64 %z, 4
  %i$ = add i64 %o$, 400
  %p$ = getelementptr i8, ptr $X, i64 %i$",
        uniform_n: false,
        contiguous: true,
    },
    // A uniform offset keeps the stride; a varying one does not.
    Access {
        name: "offset",
        globals: ARRAYS,
        addr: OFFSET,
        uniform_n: true,
        contiguous: true,
    },
    Access {
        name: "varying_offset",
        globals: ARRAYS,
        addr: OFFSET,
        uniform_n: false,
        contiguous: false,
    },
    // `t + n` in 32 bits may wrap between two lanes of a chunk: not proven.
    Access {
        name: "wrapping",
        globals: ARRAYS,
        addr: "%u$ = add i32 %t, %n
  %i$ = zext i32 %u$ to i64
  %p$ = getelementptr i32, ptr $X, i64 %i$",
        uniform_n: true,
        contiguous: false,
    },
    Access {
        name: "stride2",
        globals: ARRAYS,
        addr: "%i$ = shl i64 %z, 1
  %p$ = getelementptr inbounds [200 x i32], ptr $X, i64 0, i64 %i$",
        uniform_n: false,
        contiguous: false,
    },
    // A field of an array of pairs: stride 8 for a 4-byte access.
    Access {
        name: "field",
        globals: "@a = global [100 x { i32, i32 }] zeroinitializer, align 4
@b = global [100 x { i32, i32 }] zeroinitializer, align 4",
        addr: "%p$ = getelementptr inbounds [100 x { i32, i32 }], ptr $X, i64 0, i64 %z, i32 1",
        uniform_n: false,
        contiguous: false,
    },
    // Each lane's own copy of a stack array (the object is varying, §6.6).
    Access {
        name: "private",
        globals: ARRAYS,
        addr: "%p$ = getelementptr inbounds [100 x i32], ptr $X, i64 0, i64 %z",
        uniform_n: false,
        contiguous: false,
    },
];

/// The kernel of `access`: lanes with `t mod 3 ≠ 0` (so lane 0 of the first
/// chunk is inactive and the base comes from another lane) read `@a` and write
/// `@b` (or two stack arrays) at the address form; the others return -1.
fn access_kernel(access: &Access) -> String {
    let private = access.name == "private";
    let (from, to) = if private {
        ("%xa", "%xb")
    } else {
        ("@a", "@b")
    };
    let load = access.addr.replace("$X", from).replace('$', "l");
    let store = access.addr.replace("$X", to).replace('$', "s");
    let allocas = if private {
        "  %xa = alloca [100 x i32], align 4\n  %xb = alloca [100 x i32], align 4\n  %x7 = getelementptr inbounds [100 x i32], ptr %xa, i64 0, i64 99\n  store i32 7, ptr %x7, align 4\n"
    } else {
        ""
    };
    format!(
        "{}

define i32 @k(i32 %n) {{
entry:
{allocas}  %t = call i32 @pllvm.thread_id()
  %r3 = urem i32 %t, 3
  %c = icmp ne i32 %r3, 0
  br i1 %c, label %then, label %end
then:
  %z = zext i32 %t to i64
  {load}
  %v = load i32, ptr %pl, align 4
  %w = add i32 %v, %t
  {store}
  store i32 %w, ptr %ps, align 4
  br label %end
end:
  %r = phi i32 [ %w, %then ], [ -1, %entry ]
  ret i32 %r
}}
declare i32 @pllvm.thread_id()
",
        access.globals
    )
}

/// Point 1, "contiguous where the `sa` analysis proves stride 1, gathers
/// otherwise": `sa` runs for one chunk of W lanes (lane t's thread id `c·W + t`,
/// `ThreadIds::Chunk`), so clang's `a[zext(t)]` is a masked contiguous load and
/// store, while addresses it cannot prove contiguous (a varying offset, a 32-bit
/// sum that may wrap, stride 2, a field of a pair, a lane's private array)
/// gather and scatter. Every form then runs natively on 100 threads against the
/// interpreter (the tail chunk's masked-off lanes would read past `@a` into the
/// guard page).
#[test]
fn accesses_are_contiguous_where_sa_proves_stride_one() {
    let n = 100;
    for access in &ACCESSES {
        let src = access_kernel(access);
        let module = transformed(&parse(&src));
        let uniform: Vec<String> = if access.uniform_n {
            vec!["n".into()]
        } else {
            Vec::new()
        };
        for target in [VectorTarget::Avx2, VectorTarget::Avx512, VectorTarget::Neon] {
            let kernel = Kernel {
                name: "k",
                module: &module,
                function: module.first_definition().expect("a function"),
                uniform_args: &[],
            };
            let mut options = WidenOptions::new(target);
            options.uniform_args = uniform.clone();
            let ir = widen_batch(&[kernel], &options)
                .unwrap_or_else(|e| panic!("{}: widen: {e}", access.name));
            let w = options.width();
            let has = |what: &str| ir.contains(&format!("@llvm.masked.{what}.v{w}i32."));
            let tag = format!("{} on {}", access.name, target.name());
            let contiguous = access.contiguous;
            assert_eq!(
                (has("load"), has("store")),
                (contiguous, contiguous),
                "{tag}: a contiguous load and store: {contiguous}\n{src}\n{ir}"
            );
            assert_eq!(
                (has("gather"), has("scatter")),
                (!contiguous, !contiguous),
                "{tag}: a gather and a scatter: {}\n{src}\n{ir}",
                !contiguous
            );
        }
        check(
            access.name,
            &src,
            &[ints((0..n).map(|_| 100))],
            &all_targets(),
            &uniform,
        );
    }
}
