//! Plain LLVM IR as clang-19 emits it (`-O1 -S -emit-llvm`) for the C kernels in
//! `tests/data/*.c` is a P-LLVM program with every block predicate `true`
//! (thesis §4.1): it parses, prints, and reparses to the same module.

use pllvm_semantics::text::{parse_module, print_module};
use std::path::Path;
use std::process::Command;

/// Compiles `file` with clang-19 to LLVM IR text; panics with the install hint if
/// clang-19 is missing (this test never passes silently).
fn clang_ir(file: &Path, extra: &[&str]) -> String {
    let out = Command::new("clang-19")
        .args(["-O1", "-S", "-emit-llvm", "-o", "-"])
        .args(extra)
        .arg(file)
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => panic!("cannot run clang-19 ({e}): apt-get install clang-19 to run this test"),
    };
    assert!(
        out.status.success(),
        "clang-19 failed on {}:\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn check(what: &str, ir: &str) {
    let m1 = match parse_module(ir) {
        Ok((m, _)) => m,
        Err(errors) => {
            let diags: Vec<_> = errors.iter().map(|e| e.to_diagnostic()).collect();
            panic!(
                "{what}: clang output does not parse:\n{}",
                pllvm_semantics::diag::render_all(&diags, what, ir)
            );
        }
    };
    assert!(m1.first_definition().is_some(), "{what}: no function");
    let printed = print_module(&m1);
    let m2 = match parse_module(&printed) {
        Ok((m, _)) => m,
        Err(errors) => panic!("{what}: printed form does not parse: {errors:?}\n{printed}"),
    };
    assert_eq!(m1, m2, "{what}: parse(print(m)) != m\n{printed}");
}

#[test]
fn c_kernels_roundtrip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut count = 0;
    for name in ["saxpy.c", "bits.c", "floats.c"] {
        let path = dir.join(name);
        check(name, &clang_ir(&path, &[]));
        count += 1;
    }
    assert_eq!(count, 3);
}

#[test]
fn amdgcn_kernel_roundtrips() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gpu_kernel.c");
    let ir = clang_ir(&path, &["--target=amdgcn-amd-amdhsa", "-nogpulib"]);
    check("gpu_kernel.c (amdgcn)", &ir);
    let Ok((m, _)) = parse_module(&ir) else {
        panic!("gpu_kernel.c does not parse");
    };
    let kernel = m.function_by_name("scale").map(|f| &m.functions[f]);
    assert!(
        kernel.is_some_and(|k| k.is_kernel()),
        "amdgpu_kernel cconv kept"
    );
}
