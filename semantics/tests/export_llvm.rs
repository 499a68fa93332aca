//! `export_llvm` produces plain LLVM IR that `opt-22 -passes=verify` accepts, for
//! every inline example (those with the P-LLVM additions of thesis Fig. 4.2 and
//! those without), and the lowering parses back to the same module.

use crate::examples;

use pllvm_semantics::text::{export_llvm, parse_module, print_module};
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `opt-22 -passes=verify -disable-output` on `ir`; `Err` carries its stderr.
fn opt_verify(ir: &str) -> Result<(), String> {
    let child = Command::new("opt-22")
        .args(["-passes=verify", "-disable-output", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => panic!(
            "cannot run opt-22 ({e}): install LLVM 22 (apt-get install llvm-22) to run this test"
        ),
    };
    let written = child.stdin.take().map(|mut s| s.write_all(ir.as_bytes()));
    if let Some(Err(e)) = written {
        return Err(format!("cannot write to opt-22: {e}"));
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("opt-22 failed to run: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn exported_examples_pass_opt_verify() {
    let mut with_additions = 0;
    for (name, src, additions, valid) in examples::EXAMPLES {
        let m = match parse_module(src) {
            Ok((m, _)) => m,
            Err(e) => panic!("{name} does not parse: {e:?}"),
        };
        let exported = export_llvm(&m);
        if *additions {
            with_additions += 1;
            assert!(
                exported.contains("pllvm."),
                "{name}: the additions are not lowered:\n{exported}"
            );
        }
        let verified = if *valid {
            opt_verify(&exported)
        } else {
            Ok(())
        };
        if let Err(stderr) = verified {
            panic!("{name}: opt-22 rejects the export:\n{stderr}\n{exported}");
        }
        let back = match parse_module(&exported) {
            Ok((b, _)) => b,
            Err(e) => panic!("{name}: export does not parse back: {e:?}"),
        };
        assert_eq!(
            print_module(&back),
            print_module(&m),
            "{name}: parse(export(m)) != m"
        );
    }
    assert!(with_additions >= 4);
}

#[test]
fn opt_rejects_a_broken_module() {
    // The oracle can fail: a use that its definition does not dominate.
    let broken = "define i32 @f(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\na:\n  %x = add i32 1, 2\n  br label %b\nb:\n  ret i32 %x\n}\n";
    assert!(opt_verify(broken).is_err());
}

/// Every constant expression form (docs/language.md, "Constant expressions"),
/// in each position LLVM allows, and inline assembly, exported: opt-22 accepts
/// the file, and it parses back to the same module.
#[test]
fn constant_expressions_and_inline_asm_pass_opt_verify() {
    let src = "\
@s = internal addrspace(3) global [4 x i32] zeroinitializer
@q = global ptr getelementptr inbounds nuw inrange(-4, 12) ([4 x i32], ptr addrspacecast (ptr addrspace(3) @s to ptr), i64 0, i64 1)
@t = global [2 x i64] [i64 ptrtoint (ptr @q to i64), i64 0]

declare void @use(ptr, i16, ptr)

define i32 @f(i64 %i, i1 %c) {
entry:
  %p = getelementptr inbounds [4 x i32], ptr addrspacecast (ptr addrspace(3) @s to ptr), i64 0, i64 %i
  store i32 5, ptr getelementptr nusw ([4 x i32], ptr addrspacecast (ptr addrspace(3) @s to ptr), i64 0, i64 3)
  call void @use(ptr inttoptr (i64 64 to ptr), i16 trunc (i64 ptrtoint (ptr @q to i64) to i16), ptr bitcast (ptr @q to ptr))
  %y = call i32 asm sideeffect \"v_mov_b32 $0, $1\", \"=v,v\"(i32 7)
  br i1 %c, label %a, label %b

a:
  br label %b

b:
  %m = phi ptr [ %p, %entry ], [ getelementptr (i8, ptr @q, i64 4), %a ]
  %v = load i32, ptr %m
  %r = add i32 %v, %y
  ret i32 %r
}
";
    let m = match parse_module(src) {
        Ok((m, _)) => m,
        Err(e) => panic!("does not parse: {e:?}"),
    };
    let exported = export_llvm(&m);
    if let Err(stderr) = opt_verify(&exported) {
        panic!("opt-22 rejects the export:\n{stderr}\n{exported}");
    }
    let (back, _) = parse_module(&exported).expect("the export parses back");
    assert_eq!(back, m);
}
