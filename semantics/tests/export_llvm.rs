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

/// The functions of a verifier corpus file, each as a module of its own: the
/// file's declarations and attribute groups, and the one definition, with
/// comments removed. Returns (name, whether a line of it is annotated
/// `; error:`, the module).
fn functions_of(src: &str) -> Vec<(String, bool, String)> {
    let shared: Vec<&str> = src
        .lines()
        .filter(|l| l.starts_with("declare") || l.starts_with("attributes"))
        .collect();
    let mut out = Vec::new();
    let mut current: Option<(String, bool, Vec<&str>)> = None;
    for line in src.lines() {
        if line.starts_with("define") {
            let name = line
                .split('@')
                .nth(1)
                .and_then(|rest| rest.split('(').next())
                .unwrap_or_default()
                .to_string();
            current = Some((name, false, Vec::new()));
        }
        let Some((_, refused, body)) = current.as_mut() else {
            continue;
        };
        *refused |= line.contains("; error:");
        body.push(line.split(';').next().unwrap_or_default());
        if line == "}" {
            let (name, refused, body) = current.take().unwrap_or_default();
            let module = format!("{}\n{}\n", shared.join("\n"), body.join("\n"));
            out.push((name, refused, module));
        }
    }
    out
}

/// The convergence-token rules agree with LLVM 22's verifier function by
/// function on the corpus files about tokens (the verifier's `tokens-*.ll`, and
/// the token programs of the analysis, divergence and semantics corpora): each
/// function pllvm refuses (annotated `; error:`, which the corpus test checks),
/// opt-22 refuses; each it accepts, opt-22 accepts, and accepts pllvm's export of
/// it too (the `convergent` attribute kept).
#[test]
fn token_rules_agree_with_opt_verify() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut files: Vec<_> = ["verifier", "analyses/llvm", "divergence", "semantics"]
        .iter()
        .flat_map(|d| {
            let dir = root.join(d);
            std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect::<Vec<_>>()
        })
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("tokens-") || n == "convergence-tokens.ll")
        })
        .collect();
    files.sort();
    assert!(
        files.len() >= 7,
        "token corpus files missing under {}: {files:?}",
        root.display()
    );
    let (mut accepted, mut refused) = (0, 0);
    for file in files {
        let src = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
        for (name, pllvm_refuses, module) in functions_of(&src) {
            let opt = opt_verify(&module);
            let at = format!("{}: @{name}", file.display());
            if pllvm_refuses {
                refused += 1;
                assert!(opt.is_err(), "{at}: pllvm refuses it, opt-22 accepts it");
                continue;
            }
            accepted += 1;
            if let Err(stderr) = opt {
                panic!("{at}: pllvm accepts it, opt-22 refuses it:\n{stderr}");
            }
            let (m, spans) =
                parse_module(&module).unwrap_or_else(|e| panic!("{at}: does not parse: {e:?}"));
            let report = pllvm_semantics::verify::verify_module(&m, &spans);
            assert!(report.is_ok(), "{at}: {:?}", report.errors);
            if let Err(stderr) = opt_verify(&export_llvm(&m)) {
                panic!("{at}: opt-22 refuses the export:\n{stderr}");
            }
        }
    }
    assert!(
        accepted >= 7 && refused >= 15,
        "{accepted} accepted, {refused} refused"
    );
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
