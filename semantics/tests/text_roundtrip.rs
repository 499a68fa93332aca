//! Round trip of the text format: `parse(print(parse(s))) == parse(s)` over the
//! inline examples, every `corpus/**/*.ll`, and proptest-generated modules; and
//! `parse(export(m)) == m` (the export lowering lifts back), and
//! `parse(print(m)) == normal_form(m)` for a module built in memory.

use crate::examples;

use pllvm_semantics::ir::{
    BinOp, Block, BlockData, Body, ConstData, FunctionData, InstData, InstKind, IntFlags, Module,
    Param, Terminator, Value, ValueData, ValueDef,
};
use pllvm_semantics::text::{export_llvm, normal_form, parse_module, print_module};
use pllvm_semantics::types::TypeTable;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// Parses `src` or fails the test with rendered diagnostics.
fn parse_ok(what: &str, src: &str) -> Module {
    match parse_module(src) {
        Ok((m, _)) => m,
        Err(errors) => {
            let diags: Vec<_> = errors.iter().map(|e| e.to_diagnostic()).collect();
            panic!(
                "{what} does not parse:\n{}",
                pllvm_semantics::diag::render_all(&diags, what, src)
            );
        }
    }
}

/// The round-trip properties for one source text.
fn check_roundtrip(what: &str, src: &str) {
    let m1 = parse_ok(what, src);
    let t1 = print_module(&m1);
    let m2 = parse_ok(&format!("{what} (printed)"), &t1);
    assert_eq!(m1, m2, "{what}: parse(print(m)) != m; printed:\n{t1}");
    assert_eq!(print_module(&m2), t1, "{what}: printing is not idempotent");
    assert_eq!(
        normal_form(&m1),
        m1,
        "{what}: parser output is not in normal form"
    );
    let exported = export_llvm(&m1);
    let m3 = parse_ok(&format!("{what} (exported)"), &exported);
    assert_eq!(
        m3, m1,
        "{what}: parse(export(m)) != m; exported:\n{exported}"
    );
}

#[test]
fn inline_examples_roundtrip() {
    for (name, src, _, _) in examples::EXAMPLES {
        check_roundtrip(name, src);
    }
}

#[test]
fn additions_are_read() {
    let m = parse_ok("pllvm_additions", examples::PLLVM_ADDITIONS);
    let f = m
        .first_definition()
        .and_then(|f| m.functions[f].body.as_ref());
    let Some(body) = f else {
        panic!("no body");
    };
    let loop_block = body.block_by_name("loop");
    let exit = body.block_by_name("exit");
    let (Some(loop_block), Some(exit)) = (loop_block, exit) else {
        panic!("blocks missing");
    };
    assert_eq!(
        body.blocks[loop_block].predicate,
        body.value_by_name("c"),
        "predicate %c"
    );
    assert!(
        body.blocks[exit]
            .predicate
            .and_then(|p| body.as_const(p).cloned())
            .is_some(),
        "predicate true is a constant"
    );
    let i = body.value_by_name("i").and_then(|v| body.def_inst(v));
    let shadow = i.map(|i| match &body.insts[i].kind {
        InstKind::Phi { shadow, .. } => *shadow,
        _ => None,
    });
    assert_eq!(shadow, Some(body.value_by_name("n")), "shadow(%n)");
    let total = body
        .value_by_name("i.next")
        .and_then(|v| body.def_inst(v))
        .map(|i| body.insts[i].total);
    assert_eq!(total, Some(true));
    let mask = body.value_by_name("m").and_then(|v| body.def_inst(v));
    assert!(mask.is_some_and(|i| body.insts[i].kind == InstKind::Mask));
    // Implicit declarations of the builtins, after the explicit functions.
    for name in [
        "pllvm.thread_id",
        "pllvm.any",
        "pllvm.popcount",
        "pllvm.ballot",
        "pllvm.all",
    ] {
        assert!(m.function_by_name(name).is_some(), "{name} declared");
    }
}

#[test]
fn sugar_is_total() {
    let a = parse_ok("sugar", examples::SUGAR);
    let b = parse_ok(
        "sugar spelled out",
        &examples::SUGAR
            .replace("%a := add i32 %b, %c", "%a = add i32 %b, %c total")
            .replace(
                "%d := load i32, ptr %p, align 4",
                "%d = load i32, ptr %p, align 4 total",
            ),
    );
    assert_eq!(a, b);
}

#[test]
fn export_form_lifts_to_canonical() {
    let lifted = parse_ok("export_form", examples::EXPORT_FORM);
    let canonical = parse_ok(
        "canonical",
        r#"define i32 @f(i1 %p, i32 %a) {
entry:
  br label %h

h:
  predicate %p
  %x = phi i32 [ %a, %entry ], [ %x, %h ] shadow(7)
  %y = phi i32 [ 0, %entry ], [ %x, %h ]
  %m = mask()
  %n = add i32 %x, 1 total
  br i1 %m, label %h, label %e

e:
  ret i32 %y
}
"#,
    );
    assert_eq!(lifted, canonical);
}

/// Every `.ll` file under `dir`, recursively, in a fixed order.
fn ll_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            ll_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "ll") {
            out.push(p);
        }
    }
}

#[test]
fn corpus_roundtrip() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut files = Vec::new();
    ll_files(&root, &mut files);
    for path in files {
        let Ok(src) = std::fs::read_to_string(&path) else {
            panic!("cannot read {}", path.display());
        };
        let what = path.display().to_string();
        // Files whose oracle is a parse error are checked by the corpus runner.
        if parse_module(&src).is_err() && src.contains("expect") && src.contains("error") {
            continue;
        }
        check_roundtrip(&what, &src);
    }
}

/// A module built in memory: unnamed values and blocks, a shared constant, a
/// non-canonical arena order. Printing and parsing gives its normal form.
#[test]
fn in_memory_module_gives_its_normal_form() {
    let mut m = Module::default();
    let i32t = TypeTable::I32;
    let mut body = Body::default();
    let p = body.values.push(ValueData {
        ty: i32t,
        name: None,
        def: ValueDef::Param(0),
    });
    let one = body.add_const(i32t, ConstData::Int(1u32.into()));
    let b1 = body.blocks.push(BlockData {
        name: String::new(),
        predicate: None,
        phis: Vec::new(),
        body: Vec::new(),
        term: Terminator::Unreachable,
    });
    let b0 = body.blocks.push(BlockData {
        name: "entry".into(),
        predicate: None,
        phis: Vec::new(),
        body: Vec::new(),
        term: Terminator::Br(b1),
    });
    let add = body.insts.push(InstData {
        kind: InstKind::Binary {
            op: BinOp::Add,
            flags: IntFlags {
                exact: true,
                ..IntFlags::default()
            },
            ty: i32t,
            lhs: p,
            rhs: one,
        },
        result: None,
        total: true,
    });
    let r = body.values.push(ValueData {
        ty: i32t,
        name: None,
        def: ValueDef::Inst(add),
    });
    body.insts[add].result = Some(r);
    let sub = body.insts.push(InstData {
        kind: InstKind::Binary {
            op: BinOp::Sub,
            flags: IntFlags::default(),
            ty: i32t,
            lhs: r,
            rhs: one,
        },
        result: None,
        total: false,
    });
    let s = body.values.push(ValueData {
        ty: i32t,
        name: Some("s".into()),
        def: ValueDef::Inst(sub),
    });
    body.insts[sub].result = Some(s);
    body.blocks[b0].body = vec![add];
    body.blocks[b1].body = vec![sub];
    body.blocks[b1].term = Terminator::Ret(Some(s));
    body.layout = vec![b0, b1];
    m.functions.push(FunctionData {
        name: "f".into(),
        ret_ty: i32t,
        params: vec![Param {
            ty: i32t,
            attrs: Vec::new(),
            value: p,
        }],
        cconv: None,
        variadic: false,
        convergent: false,
        body: Some(body),
    });
    let text = print_module(&m);
    let parsed = parse_ok("in-memory", &text);
    assert_eq!(parsed, normal_form(&m), "printed:\n{text}");
    let f = parsed
        .first_definition()
        .and_then(|f| parsed.functions[f].body.as_ref());
    assert!(
        f.is_some_and(|b| b.blocks[Block::from_u32(1)].name.is_empty()
            && b.values[Value::from_u32(0)].name.is_none())
    );
}

// ----- generated modules ------------------------------------------------------

/// A small deterministic generator (xorshift) driven by a proptest seed.
struct Gen {
    state: u64,
}

impl Gen {
    fn next(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

const INT_TYPES: &[&str] = &["i1", "i8", "i32", "i64", "i128", "i77"];
const ALL_TYPES: &[&str] = &["i1", "i8", "i32", "i64", "i77", "float", "double", "ptr"];

/// A constant of type `ty`.
fn constant(g: &mut Gen, ty: &str) -> String {
    match ty {
        "i1" => g.pick(&["true", "false", "undef"]).to_string(),
        "float" => g
            .pick(&[
                "1.5",
                "-0.0",
                "0x7FF0000000000000",
                "0x3FB99999A0000000",
                "2.5e+01",
                "poison",
            ])
            .to_string(),
        "double" => match g.below(3) {
            0 => format!("0x{:016X}", g.next()),
            1 => format!("{:?}", (g.next() % 100000) as f64 / 7.0),
            _ => "1.0e-300".to_string(),
        },
        "ptr" => match g.below(8) {
            0 => format!(
                "getelementptr inbounds ([3 x i8], ptr {}, i64 0, i64 {})",
                constant(g, "ptr"),
                g.below(4)
            ),
            1 => "addrspacecast (ptr addrspace(3) @gs to ptr)".to_string(),
            2 => format!("inttoptr (i64 {} to ptr)", constant(g, "i64")),
            _ => g.pick(&["null", "@gi", "@garr", "undef"]).to_string(),
        },
        int if g.chance(10) => {
            // A constant expression of an integer type: ptrtoint of a pointer
            // constant, or a trunc of an i128 one.
            if int == "i128" {
                format!("ptrtoint (ptr {} to i128)", constant(g, "ptr"))
            } else {
                format!(
                    "trunc (i128 ptrtoint (ptr {} to i128) to {int})",
                    constant(g, "ptr")
                )
            }
        }
        _ => match g.below(4) {
            0 => format!("-{}", g.next() % 1000),
            1 => (g.next() % 100).to_string(),
            2 => g.next().to_string(),
            _ => "zeroinitializer".to_string(),
        },
    }
}

/// An operand of type `ty`: an earlier value or a constant.
fn operand(g: &mut Gen, values: &[(String, &str)], ty: &str) -> String {
    let candidates: Vec<&String> = values
        .iter()
        .filter(|(_, t)| *t == ty)
        .map(|(n, _)| n)
        .collect();
    if !candidates.is_empty() && g.chance(70) {
        format!("%{}", g.pick(&candidates))
    } else {
        constant(g, ty)
    }
}

/// A random module as text.
fn gen_module(seed: u64) -> String {
    let mut g = Gen { state: seed | 1 };
    let mut out = String::from("source_filename = \"gen.ll\"\n\n");
    out.push_str("@gi = global i32 7, align 4\n@garr = internal constant [3 x i8] c\"a\\00b\"\n");
    out.push_str("@gs = internal addrspace(3) global [4 x i32] undef\n");
    out.push_str("@gp = global ptr getelementptr (i8, ptr addrspacecast (ptr addrspace(3) @gs to ptr), i64 4)\n\n");
    out.push_str("declare i32 @ext(i32, ptr)\n\n");
    let n_funcs = 1 + g.below(2);
    for f in 0..n_funcs {
        let n_params = g.below(4);
        let params: Vec<(String, &str)> = (0..n_params)
            .map(|k| (format!("p{k}"), *g.pick(ALL_TYPES)))
            .collect();
        let ret = *g.pick(&["void", "i32", "float"]);
        let cc = if g.chance(30) { "amdgpu_kernel " } else { "" };
        let plist: Vec<String> = params.iter().map(|(n, t)| format!("{t} %{n}")).collect();
        out.push_str(&format!(
            "define {cc}{ret} @fn{f}({}) {{\n",
            plist.join(", ")
        ));
        let n_blocks = 1 + g.below(5);
        let labels: Vec<String> = (0..n_blocks)
            .map(|b| {
                if g.chance(20) {
                    format!("\"b {b}\"")
                } else {
                    format!("bb{b}")
                }
            })
            .collect();
        let mut values: Vec<(String, &str)> = params.clone();
        let mut counter = 0;
        for b in 0..n_blocks {
            out.push_str(&format!("{}:\n", labels[b]));
            if g.chance(30) {
                let p = operand(&mut g, &values, "i1");
                out.push_str(&format!("  predicate {p}\n"));
            }
            if b > 0 {
                for _ in 0..g.below(3) {
                    let ty = *g.pick(ALL_TYPES);
                    let arms: Vec<String> = (0..1 + g.below(3))
                        .map(|_| {
                            let v = operand(&mut g, &values, ty);
                            let l = g.pick(&labels).clone();
                            format!("[ {v}, %{l} ]")
                        })
                        .collect();
                    let name = format!("v{counter}");
                    counter += 1;
                    let shadow = if g.chance(30) {
                        format!(" shadow({})", operand(&mut g, &values, ty))
                    } else {
                        String::new()
                    };
                    out.push_str(&format!(
                        "  %{name} = phi {ty} {}{shadow}\n",
                        arms.join(", ")
                    ));
                    values.push((name, ty));
                }
            }
            for _ in 0..g.below(8) {
                let name = format!("v{counter}");
                counter += 1;
                let total = if g.chance(20) { " total" } else { "" };
                let (text, ty): (String, &str) = match g.below(11) {
                    0 => {
                        let ty = *g.pick(INT_TYPES);
                        let op = *g.pick(&[
                            "add nuw",
                            "sub nsw",
                            "mul",
                            "udiv exact",
                            "sdiv",
                            "urem",
                            "srem",
                            "shl nuw nsw",
                            "lshr",
                            "ashr exact",
                            "and",
                            "or disjoint",
                            "xor",
                        ]);
                        let a = operand(&mut g, &values, ty);
                        let c = operand(&mut g, &values, ty);
                        (format!("{op} {ty} {a}, {c}"), ty)
                    }
                    1 => {
                        let ty = *g.pick(&["float", "double"]);
                        let op = *g.pick(&["fadd", "fsub fast", "fmul", "fdiv nnan", "frem"]);
                        let a = operand(&mut g, &values, ty);
                        let c = operand(&mut g, &values, ty);
                        (format!("{op} {ty} {a}, {c}"), ty)
                    }
                    2 => {
                        let ty = *g.pick(&["i8", "i32", "ptr"]);
                        let pred = *g.pick(&["eq", "ne", "ult", "sge", "sle", "ugt"]);
                        let a = operand(&mut g, &values, ty);
                        let c = operand(&mut g, &values, ty);
                        (format!("icmp {pred} {ty} {a}, {c}"), "i1")
                    }
                    3 => {
                        let ty = *g.pick(&["float", "double"]);
                        let pred = *g.pick(&["oeq", "une", "olt", "uno", "true"]);
                        let a = operand(&mut g, &values, ty);
                        let c = operand(&mut g, &values, ty);
                        (format!("fcmp {pred} {ty} {a}, {c}"), "i1")
                    }
                    4 => {
                        let (op, from, to) = *g.pick(&[
                            ("zext nneg", "i8", "i32"),
                            ("sext", "i1", "i64"),
                            ("trunc nuw", "i64", "i8"),
                            ("sitofp", "i32", "double"),
                            ("fptoui", "float", "i64"),
                            ("fpext", "float", "double"),
                            ("bitcast", "i64", "double"),
                            ("ptrtoint", "ptr", "i64"),
                            ("inttoptr", "i32", "ptr"),
                        ]);
                        let a = operand(&mut g, &values, from);
                        (format!("{op} {from} {a} to {to}"), to)
                    }
                    5 => {
                        let ty = *g.pick(ALL_TYPES);
                        let c = operand(&mut g, &values, "i1");
                        let a = operand(&mut g, &values, ty);
                        let d = operand(&mut g, &values, ty);
                        (format!("select i1 {c}, {ty} {a}, {ty} {d}"), ty)
                    }
                    6 => {
                        let ty = *g.pick(ALL_TYPES);
                        let p = operand(&mut g, &values, "ptr");
                        (format!("load {ty}, ptr {p}, align 4"), ty)
                    }
                    7 => {
                        let ty = *g.pick(ALL_TYPES);
                        let v = operand(&mut g, &values, ty);
                        let p = operand(&mut g, &values, "ptr");
                        out.push_str(&format!("  store {ty} {v}, ptr {p}{total}\n"));
                        continue;
                    }
                    8 => {
                        let p = operand(&mut g, &values, "ptr");
                        let i = operand(&mut g, &values, "i64");
                        (
                            format!("getelementptr inbounds [4 x i32], ptr {p}, i64 0, i64 {i}"),
                            "ptr",
                        )
                    }
                    9 => {
                        let a = operand(&mut g, &values, "i32");
                        let p = operand(&mut g, &values, "ptr");
                        let call = *g.pick(&["@ext(i32 A, ptr P)", "@pllvm.thread_id()"]);
                        (
                            format!("call i32 {}", call.replace('A', &a).replace('P', &p)),
                            "i32",
                        )
                    }
                    _ => {
                        if g.chance(50) {
                            ("mask()".to_string(), "i1")
                        } else {
                            (format!("alloca i32, align {}", 1 << g.below(5)), "ptr")
                        }
                    }
                };
                out.push_str(&format!("  %{name} = {text}{total}\n"));
                values.push((name, ty));
            }
            let target = |g: &mut Gen| format!("label %{}", g.pick(&labels));
            let term = match g.below(5) {
                0 => format!("br {}", target(&mut g)),
                1 => {
                    let c = operand(&mut g, &values, "i1");
                    let t = target(&mut g);
                    let e = target(&mut g);
                    format!("br i1 {c}, {t}, {e}")
                }
                2 => {
                    let c = operand(&mut g, &values, "i32");
                    let d = target(&mut g);
                    let cases: Vec<String> = (0..g.below(3))
                        .map(|k| format!("    i32 {}, {}", k as i64 - 1, target(&mut g)))
                        .collect();
                    format!("switch i32 {c}, {d} [\n{}\n  ]", cases.join("\n"))
                }
                3 => "unreachable".to_string(),
                _ => match ret {
                    "void" => "ret void".to_string(),
                    t => format!("ret {t} {}", operand(&mut g, &values, t)),
                },
            };
            out.push_str(&format!("  {term}\n"));
        }
        out.push_str("}\n\n");
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn generated_modules_roundtrip(seed in any::<u64>()) {
        let src = gen_module(seed);
        check_roundtrip(&format!("generated module (seed {seed})"), &src);
    }
}

/// The `convergent` function attribute is read as a word or through an
/// attribute group anywhere in the file, and printed back as the word; other
/// groups do not make a function convergent. `token none` prints back.
#[test]
fn convergent_attribute_and_token_none_roundtrip() {
    let src = "declare i32 @g(i32) #0\n\
               declare i32 @plain(i32) #1\n\
               declare token @llvm.experimental.convergence.anchor()\n\
               define i32 @f(i32 %x) convergent {\n\
               entry:\n  %r = call i32 @g(i32 %x) [ \"tag\"(token none) ]\n  ret i32 %r\n}\n\
               define i32 @h(i32 %x) #1 {\nentry:\n  %r = call i32 @plain(i32 %x)\n  ret i32 %r\n}\n\
               attributes #0 = { nounwind convergent }\n\
               attributes #1 = { nounwind }\n";
    let m = parse_ok("convergent", src);
    let convergent = |name: &str| {
        m.functions
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(_, f)| f.convergent)
    };
    assert_eq!(convergent("g"), Some(true));
    assert_eq!(convergent("f"), Some(true));
    assert_eq!(convergent("plain"), Some(false));
    assert_eq!(convergent("h"), Some(false));
    let printed = print_module(&m);
    assert!(
        printed.contains("declare i32 @g(i32) convergent\n"),
        "{printed}"
    );
    assert!(printed.contains("(token none)"), "{printed}");
    assert!(printed.contains("define i32 @h(i32 %x) {"), "{printed}");
    check_roundtrip("convergent", src);
    let g = m.function_by_name("g").unwrap_or_else(|| panic!("@g"));
    let plain = m
        .function_by_name("plain")
        .unwrap_or_else(|| panic!("@plain"));
    assert!(
        pllvm_semantics::theta::is_convergent_call(&m, g)
            && !pllvm_semantics::theta::is_convergent_call(&m, plain)
    );
}
