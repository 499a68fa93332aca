//! The scalar-lane C route through the native harness (docs/native.md):
//! every corpus kernel after `dlt,boscc,pl`, compiled by gcc and run by the
//! runner, agrees lane by lane with the interpreter (the original under
//! FREEZING, and the transformed program under OBLIVIOUS), at several chunk
//! widths; a deliberately wrong C is reported with its lane; a kernel that
//! crashes or loops is reported as a signal or a timeout and the batch goes on;
//! masked-off lanes pointing into a PROT_NONE page or at null never trap (in the
//! C and in the widened AVX2, AVX-512 and NEON code); the
//! same C built for AArch64 runs under qemu-aarch64 (the NEON build path).

use crate::native_support;

use native_support::{case, freezing_runs, module, program, transformed, verdicts};
use pllvm_analysis::result::AnalysisKind;
use pllvm_codegen::Kernel;
use pllvm_codegen::native::protocol::{ArgToken, GlobalImage, RunInput, Status};
use pllvm_codegen::native::{EmitOptions, NativeError, Source, Target, Tool, WorkDir, emit};
use pllvm_codegen::scalar_c::emit_c_batch;
use pllvm_differential::diff::{DiffCase, Difference, Reference, Verdict, uses_horizontal};
use pllvm_interp::RunConfig;
use pllvm_semantics::ir::{FuncId, Module};
use std::time::Duration;

/// One corpus kernel: its name, the original and transformed modules, the
/// function, and its FREEZING runs.
type KernelFile = (String, Module, Module, FuncId, Vec<(String, RunConfig)>);

/// Every corpus kernel with its FREEZING runs, transformed.
struct Corpus {
    files: Vec<KernelFile>,
}

fn corpus() -> Corpus {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/kernels");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("corpus/kernels exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .collect();
    paths.sort();
    let mut files = Vec::new();
    for path in paths {
        let src = std::fs::read_to_string(&path).expect("readable");
        let stem = path
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .replace('-', "_");
        let m = module(&src);
        let func = m.first_definition().expect("a function");
        match transformed(&m, func) {
            Ok(t) => files.push((stem, m, t, func, freezing_runs(&src))),
            // The routes built on natural loops refuse irreducible CFGs
            // (docs/transforms.md); that is the only refusal expected here.
            Err(e) => assert!(
                stem == "state_machine" && e.contains("irreducible"),
                "{stem}: {e}"
            ),
        }
    }
    assert!(files.len() >= 8, "the corpus kernels are found");
    Corpus { files }
}

/// All corpus runs as one batch per width and reference: every verdict agrees.
fn corpus_agrees(width: usize, reference: Reference) {
    let corpus = corpus();
    let mut names = Vec::new();
    for (stem, _, _, _, runs) in &corpus.files {
        for (run, _) in runs {
            names.push(format!("{stem}_{}", run.replace('-', "_")));
        }
    }
    let mut cases: Vec<DiffCase<'_>> = Vec::new();
    let mut k = 0;
    for (_, original, t, func, runs) in &corpus.files {
        for (_, config) in runs {
            let chunked = config.threads > width;
            if !(chunked && uses_horizontal(original, *func)) {
                cases.push(case(&names[k], original, t, *func, config.clone()));
            }
            k += 1;
        }
    }
    assert!(cases.len() >= 20, "{} cases", cases.len());
    let kernels: Vec<Kernel<'_>> = cases.iter().map(|c| c.kernel).collect();
    let source = Source::C(emit_c_batch(&kernels, width).unwrap_or_else(|e| panic!("{e}")));
    let dir = WorkDir::new().unwrap();
    let prog = program(Target::ScalarC, &source, &dir);
    let got = verdicts(&prog, &cases, width, reference);
    let mut compared = 0;
    for (c, v) in cases.iter().zip(&got) {
        match v {
            Verdict::Agree { lanes, .. } => compared += lanes,
            other => panic!(
                "{} (W = {width}, {}): {other:?}",
                c.kernel.name,
                reference.name()
            ),
        }
    }
    assert!(compared >= 60, "{compared} lanes compared");
}

#[test]
fn corpus_kernels_agree_with_original_under_freezing_w4() {
    corpus_agrees(4, Reference::OriginalFreezing);
}

#[test]
fn corpus_kernels_agree_with_original_under_freezing_in_chunks_w1_w3() {
    corpus_agrees(1, Reference::OriginalFreezing);
    corpus_agrees(3, Reference::OriginalFreezing);
}

#[test]
fn corpus_kernels_agree_with_transformed_under_oblivious_w8() {
    corpus_agrees(8, Reference::TransformedOblivious);
}

const INC: &str = "define i32 @inc(i32 %x) {\nentry:\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n";

fn threads(n: usize, args: &[&str]) -> RunConfig {
    let mut config = RunConfig {
        threads: n,
        ..RunConfig::default()
    };
    for a in args {
        config.add_arg(a).unwrap();
    }
    config
}

#[test]
fn a_wrong_c_is_reported_with_its_lane() {
    let m = module(INC);
    let func = m.first_definition().unwrap();
    let t = transformed(&m, func).unwrap();
    let c = case("inc", &m, &t, func, threads(4, &["x=10,20,30,40"]));
    let right = emit_c_batch(&[c.kernel], 4).unwrap();
    // Lane 2 returns one more than it should.
    let wrong = right.replace("ret[base + l] = ", "ret[base + l] = (base + l == 2) + ");
    assert_ne!(right, wrong, "the edit applies");
    let dir = WorkDir::new().unwrap();
    let prog = program(Target::ScalarC, &Source::C(right), &dir);
    assert!(matches!(
        verdicts(
            &prog,
            std::slice::from_ref(&c),
            4,
            Reference::OriginalFreezing
        )[0],
        Verdict::Agree { lanes: 4, .. }
    ));
    let dir = WorkDir::new().unwrap();
    let prog = program(Target::ScalarC, &Source::C(wrong), &dir);
    let got = verdicts(
        &prog,
        std::slice::from_ref(&c),
        4,
        Reference::OriginalFreezing,
    );
    match &got[0] {
        Verdict::Differ(Difference::Ret {
            lane,
            expected,
            native,
            block,
            ..
        }) => {
            assert_eq!((*lane, expected.as_str(), native.as_str()), (2, "31", "32"));
            assert_eq!(block.as_deref(), Some("entry"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_crashing_and_a_looping_kernel_do_not_stop_the_batch() {
    let m = module(INC);
    let func = m.first_definition().unwrap();
    let t = transformed(&m, func).unwrap();
    let config = threads(2, &["x=1,2"]);
    let cases = [
        case("crash", &m, &t, func, config.clone()),
        case("spin", &m, &t, func, config.clone()),
        case("fine", &m, &t, func, config),
    ];
    let kernels: Vec<Kernel<'_>> = cases.iter().map(|c| c.kernel).collect();
    let c = emit_c_batch(&kernels, 2).unwrap();
    let head = |name: &str| format!("static void pllvm_chunk_{name}(");
    let body_start = |c: &str, name: &str| {
        let at = c.find(&head(name)).expect("the chunk function");
        at + c[at..].find('{').unwrap() + 1
    };
    let mut c = c;
    let at = body_start(&c, "crash");
    c.insert_str(at, " *(volatile int *)pllvm_ptr(8) = 1;");
    let at = body_start(&c, "spin");
    c.insert_str(at, " for (volatile int spin = 1; spin;) {}");
    let dir = WorkDir::new().unwrap();
    let prog = program(Target::ScalarC, &Source::C(c), &dir);
    let got = pllvm_differential::diff::diff_batch(
        &prog,
        &cases,
        2,
        Reference::OriginalFreezing,
        1,
        Duration::from_secs(60),
    )
    .unwrap();
    assert_eq!(
        got[0],
        Verdict::NativeFailed(Status::Signal("SIGSEGV".into()))
    );
    assert_eq!(got[1], Verdict::NativeFailed(Status::Timeout));
    assert!(
        matches!(got[2], Verdict::Agree { lanes: 2, .. }),
        "{:?}",
        got[2]
    );
}

/// A load and a store in a block only some lanes run: after `pl` the block
/// is predicated, and its masked-off lanes' addresses point one past @buf (the
/// guard page after it), into a PROT_NONE page (`guard`), or at null.
const MASKED: &str = "@buf = global [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 16
@out = global [4 x i32] zeroinitializer, align 16

define i32 @masked(ptr %p, ptr %q, i32 %c) {
entry:
  %t = icmp sgt i32 %c, 0
  br i1 %t, label %then, label %join
then:
  %v = load i32, ptr %p, align 4
  store i32 %v, ptr %q, align 4
  br label %join
join:
  %r = phi i32 [ %v, %then ], [ -1, %entry ]
  ret i32 %r
}
";

/// On every target: the interpreter's inputs with lanes one past a global and
/// at null, then the protocol's `guard` tokens, in masked-off lanes; then the
/// guard page in an active lane, which traps.
fn masked_off_lanes_never_trap_on(target: Target) {
    let m = module(MASKED);
    let func = m.first_definition().unwrap();
    let t = transformed(&m, func).unwrap();
    // Through the interpreter's inputs: lane 1 points one past @buf (its
    // last byte abuts the guard page natively), lane 3 at null.
    let config = threads(
        4,
        &[
            "p=@buf+0,@buf+16,@buf+8,null",
            "q=@out+0,@out+16,@out+8,null",
            "c=1,0,1,0",
        ],
    );
    let c = case("masked", &m, &t, func, config);
    let options = EmitOptions {
        width: 4,
        analysis: AnalysisKind::Best,
        linearized: true,
    };
    let source = emit(target, &[c.kernel], &options).unwrap();
    let dir = WorkDir::new().unwrap();
    let prog = program(target, &source, &dir);
    let got = verdicts(
        &prog,
        std::slice::from_ref(&c),
        4,
        Reference::OriginalFreezing,
    );
    assert!(
        matches!(got[0], Verdict::Agree { lanes: 4, .. }),
        "{:?}",
        got[0]
    );
    // Straight through the protocol: `guard` tokens in the masked-off lanes.
    let zeros = |size| GlobalImage {
        size,
        align: 16,
        bytes: None,
    };
    let mut buf = zeros(16);
    buf.bytes = Some((1u8..=16).collect());
    let run = RunInput {
        kernel: 0,
        n: 4,
        globals: vec![buf, zeros(16)],
        args: vec![
            vec![
                ArgToken::Global(0, 0),
                ArgToken::Guard,
                ArgToken::Global(0, 4),
                ArgToken::Null,
            ],
            vec![
                ArgToken::Global(1, 0),
                ArgToken::Guard,
                ArgToken::Global(1, 4),
                ArgToken::Guard,
            ],
            vec![
                ArgToken::Bits(1),
                ArgToken::Bits(0),
                ArgToken::Bits(1),
                ArgToken::Bits(0),
            ],
        ],
    };
    let results = prog.run(&[run], 10, Duration::from_secs(60)).unwrap();
    let Status::Ok(outputs) = &results[0].status else {
        panic!("{:?}", results[0].status);
    };
    assert_eq!(
        outputs.ret,
        [0x0403_0201, 0xffff_ffff, 0x0807_0605, 0xffff_ffff]
    );
    assert_eq!(outputs.globals[1][..8], [1, 2, 3, 4, 5, 6, 7, 8]);
    // The same access in an active lane does trap: the guard page is real.
    let run = RunInput {
        kernel: 0,
        n: 1,
        globals: vec![zeros(16), zeros(16)],
        args: vec![
            vec![ArgToken::Guard],
            vec![ArgToken::Global(1, 0)],
            vec![ArgToken::Bits(1)],
        ],
    };
    let results = prog.run(&[run], 10, Duration::from_secs(60)).unwrap();
    assert_eq!(results[0].status, Status::Signal("SIGSEGV".into()));
}

#[test]
fn masked_off_lanes_never_trap() {
    masked_off_lanes_never_trap_on(Target::ScalarC);
}

#[test]
fn masked_off_lanes_never_trap_in_widened_avx2_code() {
    masked_off_lanes_never_trap_on(Target::Avx2);
}

#[test]
fn masked_off_lanes_never_trap_in_widened_avx512_code() {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    if !cpu.contains("avx512f") {
        eprintln!("this CPU has no AVX-512 (no avx512f in /proc/cpuinfo): not run");
        return;
    }
    masked_off_lanes_never_trap_on(Target::Avx512);
}

#[test]
fn masked_off_lanes_never_trap_in_widened_neon_code_under_qemu() {
    masked_off_lanes_never_trap_on(Target::Neon);
}

#[test]
fn the_aarch64_build_runs_under_qemu() {
    let corpus = corpus();
    let (stem, original, t, func, runs) = corpus
        .files
        .iter()
        .find(|f| f.0 == "mandelbrot")
        .expect("mandelbrot");
    let names: Vec<String> = runs
        .iter()
        .map(|(r, _)| format!("{stem}_{}", r.replace('-', "_")))
        .collect();
    let cases: Vec<DiffCase<'_>> = runs
        .iter()
        .zip(&names)
        .map(|((_, config), name)| case(name, original, t, *func, config.clone()))
        .collect();
    let kernels: Vec<Kernel<'_>> = cases.iter().map(|c| c.kernel).collect();
    let source = Source::C(emit_c_batch(&kernels, 4).unwrap());
    let dir = WorkDir::new().unwrap();
    let prog = program(Target::Neon, &source, &dir);
    for (c, v) in cases
        .iter()
        .zip(verdicts(&prog, &cases, 4, Reference::OriginalFreezing))
    {
        assert!(
            matches!(v, Verdict::Agree { .. }),
            "{}: {v:?}",
            c.kernel.name
        );
    }
}

#[test]
fn a_missing_tool_names_its_package() {
    let tool = Tool {
        command: "pllvm-no-such-tool",
        package: "pllvm-no-such-package",
    };
    assert!(!tool.is_installed());
    let err = tool.require().expect_err("missing");
    assert!(matches!(err, NativeError::ToolMissing { .. }));
    assert!(
        err.to_string()
            .contains("apt-get install pllvm-no-such-package"),
        "{err}"
    );
}
