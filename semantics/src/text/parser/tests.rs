//! Unit tests of the parser: the symbol tables' hasher, error messages, spans and literals.

use super::cursor::*;
use super::*;
use crate::ir::{BinOp, Block, FuncId, Inst, InstKind, Value};
use num_bigint::BigUint;
use num_traits::One;
use std::borrow::Cow;

/// How a hasher spreads `names` over the buckets of a power-of-two table of
/// `2^bits` slots (the low bits pick the slot, as in `std`'s `HashMap`): the
/// number of distinct slots used and the largest number of names in one slot.
fn bucket_spread<S: std::hash::BuildHasher>(
    hasher: &S,
    names: impl Iterator<Item = String>,
    bits: u32,
) -> (usize, u32) {
    let mask = (1u64 << bits) - 1;
    let mut load = vec![0u32; 1 << bits];
    for name in names {
        let slot = (hasher.hash_one(Cow::<str>::Owned(name)) & mask) as usize;
        load[slot] += 1;
    }
    let used = load.iter().filter(|&&n| n > 0).count();
    (used, load.iter().copied().max().unwrap_or(0))
}

/// The symbol tables' hasher spreads structured names like a random function:
/// 800k names in 2^20 slots use about `2^20 (1 - e^(-800k/2^20))` ≈ 560k slots
/// with at most a handful per slot. The multiply-only hasher it replaced put
/// `x1000000`..`x1799999` (which differ only in a word's high bytes) in a few
/// slots, and `check` on such a file took 40 s instead of half a second.
#[test]
fn name_hasher_spreads_structured_names() {
    let reversed = |i: u32| {
        (1_000_000 + i)
            .to_string()
            .chars()
            .rev()
            .collect::<String>()
    };
    let families = [
        (
            "%x1000000..",
            (0..800_000)
                .map(|i| format!("x{}", 1_000_000 + i))
                .collect::<Vec<_>>(),
        ),
        ("%vN", (0..800_000).map(|i| format!("v{i}")).collect()),
        (
            "reversed digits",
            (0..800_000).map(|i| format!("x{}", reversed(i))).collect(),
        ),
        (
            "long common prefix",
            (0..800_000)
                .map(|i| format!("a.very.long.prefix.{i:08}"))
                .collect(),
        ),
    ];
    for (family, names) in families {
        let (used, max) = bucket_spread(&NameHasher::default(), names.into_iter(), 20);
        assert!(used > 500_000, "{family}: only {used} of 2^20 slots used");
        assert!(max <= 16, "{family}: {max} names share one slot");
    }
}

/// Parses `src`, expecting failure; checks the first error's message and that
/// its span covers exactly `at`, found inside the first occurrence of `context`.
fn check(src: &str, message: &str, context: &str, at: &str) {
    let errors = match parse(src) {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(e) => e,
    };
    let e = &errors[0];
    assert_eq!(e.message, message, "message for:\n{src}");
    let base = src.find(context).unwrap_or(usize::MAX / 2);
    let lo = base + context.find(at).unwrap_or(usize::MAX / 4);
    assert_eq!(
        (e.span.lo as usize, e.span.hi as usize),
        (lo, lo + at.len()),
        "span of '{}' for:\n{src}",
        e.message
    );
}

#[test]
fn undefined_value() {
    check(
        "define i32 @f(i32 %a) {\n  %x = add i32 %a, %t\n  ret i32 %x\n}\n",
        "use of undefined value %t",
        "%t",
        "%t",
    );
}

#[test]
fn undefined_label() {
    check(
        "define void @f() {\nentry:\n  br label %nowhere\n}\n",
        "use of undefined label %nowhere",
        "%nowhere",
        "%nowhere",
    );
}

#[test]
fn redefinition() {
    check(
        "define i32 @f(i32 %a) {\n  %a = add i32 %a, 1\n  ret i32 %a\n}\n",
        "redefinition of %a",
        "%a = ",
        "%a",
    );
}

#[test]
fn type_mismatch() {
    check(
        "define i32 @f(i64 %a) {\n  %x = add i32 %a, 1\n  ret i32 %x\n}\n",
        "%a has type i64, used here as i32",
        "%a, 1",
        "%a",
    );
}

#[test]
fn unsupported_constructs() {
    check(
        "define void @f() {\n  %v = add <vscale x 4 x i32> zeroinitializer, zeroinitializer\n  ret void\n}\n",
        "unsupported construct: vector type <vscale x 4 x i32>",
        "<vscale x 4 x i32>",
        "<vscale x 4 x i32>",
    );
    check(
        "define void @f(ptr %p) {\n  %v = load atomic i32, ptr %p seq_cst, align 4\n  ret void\n}\n",
        "unsupported construct: atomic load",
        "atomic",
        "atomic",
    );
    check(
        "define fp128 @f() {\nentry:\n  ret fp128 0xL0\n}\n",
        "unsupported construct: fp128 type",
        "fp128",
        "fp128",
    );
    check(
        "define half @f() {\nentry:\n  ret half 0xR3F80\n}\n",
        "0xR constant used with type half",
        "0xR3F80",
        "0xR3F80",
    );
    check(
        "define half @f() {\nentry:\n  ret half 0.1\n}\n",
        "floating-point constant is not exactly representable as half",
        "0.1",
        "0.1",
    );
    check(
        "define i64 @f() {\n  ret i64 sub (i64 1, i64 2)\n}\n",
        "unsupported construct: constant expression sub",
        "sub",
        "sub",
    );
    // A value missing at the end of a line is reported there, not at the next
    // line's first word (which is no constant expression).
    check(
        "define i32 @f(i32 %x) {\nentry:\n  %y = add i32 %x,\n  ret i32 %y\n}\n",
        "expected a value after ',' at the end of the line",
        "\n  ret",
        "",
    );
    check(
        "define void @f(ptr %fp) {\n  call void %fp()\n  ret void\n}\n",
        "unsupported construct: indirect call",
        "%fp()",
        "%fp",
    );
}

/// What stays outside the subset around calls (docs/language.md, "Calls and declarations") is refused as
/// an unsupported construct at its position, never as a syntax error.
#[test]
fn unsupported_call_constructs() {
    let cases: [(&str, &str, &str); 5] = [
        (
            "define void @f() {\nentry:\n  callbr void asm \"\", \"!i\"() to label %a [label %b]\na:\n  ret void\nb:\n  ret void\n}\n",
            "unsupported construct: callbr",
            "callbr",
        ),
        (
            "declare void @g()\ndefine void @f() {\nentry:\n  invoke void @g() to label %a unwind label %b\na:\n  ret void\nb:\n  ret void\n}\n",
            "unsupported construct: invoke",
            "invoke",
        ),
        (
            "define void @f() {\nentry:\n  %l = landingpad { ptr, i32 } cleanup\n  ret void\n}\n",
            "unsupported construct: landingpad",
            "landingpad",
        ),
        (
            "define void @f(ptr %a) {\nentry:\n  indirectbr ptr %a, [label %entry]\n}\n",
            "unsupported construct: indirectbr",
            "indirectbr",
        ),
        (
            "define void @f(ptr %ap) {\nentry:\n  %v = va_arg ptr %ap, i32\n  ret void\n}\n",
            "unsupported construct: va_arg",
            "va_arg",
        ),
    ];
    for (src, message, at) in cases {
        check(src, message, at, at);
    }
}

/// The `token` type and operand bundles are kept: parsed, printed back as
/// written, and read again to the same module; the bundle's operands are the
/// call's operands after its arguments (for spans and the SSA checks).
#[test]
fn tokens_and_operand_bundles_are_kept() {
    let src = "define i32 @f(i32 %x) {
entry:
  %t = call token @llvm.experimental.convergence.anchor()
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ \"convergencectrl\"(token %t), \"x\\22y\"() ]
  ret i32 %r
}
";
    let (m, spans) = parse(src).expect("parses");
    let printed = crate::text::print_module(&m);
    assert!(
        printed.contains(
            "%r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ \"convergencectrl\"(token %t), \"x\\22y\"() ]"
        ),
        "{printed}"
    );
    assert!(printed.contains("declare token @llvm.experimental.convergence.anchor()"));
    let (again, _) = parse(&printed).expect("reparses");
    assert_eq!(again, m);
    let f = m.function_by_name("f").expect("f");
    let body = m.functions[f].body.as_ref().expect("body");
    let call = body
        .insts
        .iter()
        .find(|(_, d)| matches!(&d.kind, InstKind::Call { bundles, .. } if !bundles.is_empty()))
        .map(|(i, _)| i)
        .expect("the call with bundles");
    let InstKind::Call { bundles, .. } = &body.insts[call].kind else {
        unreachable!("found above")
    };
    assert_eq!(bundles[0].tag, "convergencectrl");
    assert_eq!(bundles[1].tag, "x\"y");
    assert_eq!(body.insts[call].kind.operands().len(), 2);
    let token_use = spans
        .function(f)
        .operand_uses
        .get(&(call, 1))
        .expect("span");
    assert_eq!(&src[token_use.lo as usize..token_use.hi as usize], "%t");
}

#[test]
fn calls() {
    check(
        "define void @f() {\n  call void @g()\n  ret void\n}\n",
        "call to undeclared function @g",
        "@g",
        "@g",
    );
    assert!(
        parse("define void @f() {\n  %t = call i32 @pllvm.thread_id()\n  ret void\n}\n").is_ok()
    );
}

/// LLVM declares the intrinsics it knows implicitly: a call to one θ defines
/// needs no `declare` (the parser adds it, printed like any other); an unknown
/// `llvm.*` name without one is an error at the name.
#[test]
fn intrinsics_without_declare() {
    let (m, _) = parse("define float @f(float %x) {\n  %s = call float @llvm.sqrt.f32(float %x)\n  ret float %s\n}\n")
        .expect("parses");
    let decl = m.function_by_name("llvm.sqrt.f32").expect("declared");
    assert!(m.functions[decl].body.is_none());
    assert_eq!(m.functions[decl].params.len(), 1);
    assert!(crate::text::print_module(&m).contains("declare float @llvm.sqrt.f32(float)"));
    // An intrinsic θ does not define is declared from the call too, as LLVM's
    // parser declares it: an external function, printed as a `declare`.
    let (m, _) = parse("define void @f(i64 %x) {\n  call void @llvm.amdgcn.s.sleep(i32 1)\n  %c = call i64 @llvm.ctpop.i64(i64 %x)\n  ret void\n}\n")
        .expect("parses");
    let printed = crate::text::print_module(&m);
    assert!(
        printed.contains("declare void @llvm.amdgcn.s.sleep(i32)"),
        "{printed}"
    );
    assert!(
        printed.contains("declare i64 @llvm.ctpop.i64(i64)"),
        "{printed}"
    );
    // Another undeclared function stays an error at its name.
    check(
        "define void @f() {\n  call void @g(i32 1)\n  ret void\n}\n",
        "call to undeclared function @g",
        "@g",
        "@g",
    );
}

const HELPER: &str = "define i32 @f(i32 %a) {
entry:
  %r = call i32 @inc(i32 %a)
  %s = call i32 @inc(i32 %r)
  ret i32 %s
}

define i32 @inc(i32 %x) {
entry:
  %y = add i32 %x, 1
  ret i32 %y
}
";

/// A call to a defined function is inlined: `f` no longer calls, its copies of
/// `inc`'s instructions keep `inc`'s source positions, and printing and parsing
/// again gives the same module (the inlined text has no call left to inline).
#[test]
fn calls_to_defined_functions_are_inlined() {
    let (m, spans) = parse(HELPER).expect("parses");
    let f = m.function_by_name("f").expect("f");
    let body = m.functions[f].body.as_ref().expect("body");
    let calls = body
        .insts
        .values()
        .filter(|i| matches!(i.kind, InstKind::Call { .. }))
        .count();
    assert_eq!(calls, 0);
    let names: Vec<&str> = body
        .layout
        .iter()
        .map(|&b| body.blocks[b].name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "entry",
            "inc.entry",
            "inc.return",
            "inc.entry.1",
            "inc.return.1"
        ]
    );
    let adds: Vec<Inst> = body
        .insts
        .iter()
        .filter(|(_, d)| matches!(d.kind, InstKind::Binary { op: BinOp::Add, .. }))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(adds.len(), 2);
    let callee_line = HELPER.find("%y = add").expect("line");
    for i in adds {
        let span = spans.function(f).insts.get(i);
        assert_eq!(
            span.lo as usize, callee_line,
            "an inlined add points at @inc"
        );
    }
    let printed = crate::text::print_module(&m);
    assert!(printed.contains("%inc.y = add i32 %a, 1"), "{printed}");
    assert!(
        printed.contains("%r = phi i32 [ %inc.y, %inc.entry ]"),
        "{printed}"
    );
    let (again, _) = parse(&printed).expect("reparses");
    assert_eq!(again, m);
}

/// Recursion cannot be inlined: an error at the call closing the cycle.
#[test]
fn recursion_is_refused_with_the_cycle() {
    let src = "define i32 @f(i32 %a) {\n  %r = call i32 @g(i32 %a)\n  ret i32 %r\n}\ndefine i32 @g(i32 %a) {\n  %r = call i32 @f(i32 %a)\n  ret i32 %r\n}\n";
    check(
        src,
        "unsupported construct: recursive call (@f → @g → @f); calls to defined functions are inlined, and a recursive one cannot be",
        "%r = call i32 @f(i32 %a)",
        "%r = call i32 @f(i32 %a)",
    );
}

#[test]
fn constants() {
    check(
        "define float @f() {\n  ret float 0.1\n}\n",
        "floating-point constant is not exactly representable as float",
        "0.1",
        "0.1",
    );
    check(
        "define i32 @f() {\n  ret i32 1.5\n}\n",
        "floating-point constant used with non-floating-point type i32",
        "1.5",
        "1.5",
    );
    check(
        "define i8 @f() {\n  ret i8 true\n}\n",
        "'true' used with type i8, expected i1",
        "true",
        "true",
    );
}

#[test]
fn structure() {
    check(
        "define void @f() {\nentry:\n  %x = add i32 1, 2\n}\n",
        "block does not end in a terminator",
        "}",
        "}",
    );
    check(
        "define void @f() {\na:\n  %x = add i32 1, 2\n  %p = phi i32 [ 1, %a ]\n  ret void\n}\n",
        "phi must come before the commands of its block",
        "%p",
        "%p",
    );
    check(
        "define void @f() {\na:\n  ret void\na:\n  ret void\n}\n",
        "redefinition of label %a",
        "a:\n  ret void\n}",
        "a:",
    );
}

#[test]
fn errors_resume_at_next_item() {
    let src =
        "define void @f() {\n  fence bogus\n  ret void\n}\ndefine void @g() {\n  ret i32 1.5\n}\n";
    let errors = parse(src).err().unwrap_or_default();
    assert_eq!(errors.len(), 2);
}

/// The text of `span` in `src`.
fn at(src: &str, span: Span) -> &str {
    &src[span.lo as usize..span.hi as usize]
}

#[test]
fn source_map_spans() {
    let src = "define i32 @f(i32 %a, i1 %p) {\nentry:\n  br label %b\nb:\n  predicate %p\n  %x = phi i32 [ %a, %entry ] shadow(7)\n  %y = add i32 %x, 1 total\n  ret i32 %y\n}\n";
    let Ok((m, map)) = parse(src) else {
        panic!("does not parse");
    };
    let f = FuncId::from_u32(0);
    let spans = map.function(f);
    let Some(body) = &m.functions[f].body else {
        panic!("no body");
    };
    assert_eq!(at(src, spans.header), "@f");
    let b = Block::from_u32(1);
    assert_eq!(at(src, spans.blocks[b]), "b:");
    assert_eq!(at(src, spans.predicates[b]), "predicate %p");
    assert_eq!(at(src, spans.terms[b]), "ret i32 %y");
    let phi = body.blocks[b].phis[0];
    let add = body.blocks[b].body[0];
    assert_eq!(
        at(src, spans.insts[phi]),
        "%x = phi i32 [ %a, %entry ] shadow(7)"
    );
    assert_eq!(at(src, spans.insts[add]), "%y = add i32 %x, 1 total");
    assert_eq!(
        at(
            src,
            spans
                .operand_uses
                .get(&(phi, 0))
                .copied()
                .unwrap_or_default()
        ),
        "%a"
    );
    assert_eq!(
        at(
            src,
            spans
                .operand_uses
                .get(&(phi, 1))
                .copied()
                .unwrap_or_default()
        ),
        "7"
    );
    assert_eq!(
        at(
            src,
            spans
                .operand_uses
                .get(&(add, 0))
                .copied()
                .unwrap_or_default()
        ),
        "%x"
    );
    assert_eq!(
        at(
            src,
            spans
                .operand_uses
                .get(&(add, 1))
                .copied()
                .unwrap_or_default()
        ),
        "1"
    );
    let y = body.insts[add].result.unwrap_or(Value::from_u32(u32::MAX));
    assert_eq!(at(src, spans.values[y]), "%y");
    assert_eq!(at(src, spans.values[Value::from_u32(1)]), "%p");
}

#[test]
fn lifted_spans() {
    let src = "define i32 @f(i1 %p, i32 %a) {\nentry:\n  br label %h\nh:\n  %x.phi = phi i32 [ %a, %entry ], [ %x, %h ]\n  %x = call i32 @pllvm.shadow.i32(i32 %x.phi, i32 %a)\n  call void @pllvm.predicate(i1 %p)\n  br label %h\n}\n";
    let Ok((m, map)) = parse(src) else {
        panic!("does not parse");
    };
    let spans = map.function(FuncId::from_u32(0));
    let Some(body) = &m.functions[FuncId::from_u32(0)].body else {
        panic!("no body");
    };
    let h = Block::from_u32(1);
    let phi = body.blocks[h].phis[0];
    assert_eq!(
        at(src, spans.predicates[h]),
        "call void @pllvm.predicate(i1 %p)"
    );
    assert_eq!(
        at(
            src,
            spans
                .operand_uses
                .get(&(phi, 2))
                .copied()
                .unwrap_or_default()
        ),
        "%a"
    );
    let x = body.insts[phi].result.unwrap_or(Value::from_u32(u32::MAX));
    assert_eq!(body.values[x].name.as_deref(), Some("x"));
    assert_eq!(at(src, spans.values[x]), "%x");
}

#[test]
fn literals_wrap() {
    assert_eq!(parse_int_literal("-1", 8), BigUint::from(255u32));
    assert_eq!(parse_int_literal("256", 8), BigUint::from(0u32));
    assert_eq!(parse_int_literal("-256", 8), BigUint::from(0u32));
    assert_eq!(
        parse_int_literal("-1", 200),
        (BigUint::one() << 200u32) - BigUint::one()
    );
    assert_eq!(f64_bits_to_f32(0x3FF0000000000000), Some(0x3F80_0000));
    assert_eq!(f64_bits_to_f32(0.1f64.to_bits()), None);
    assert_eq!(f32_bits_to_f64(0x7FC0_0000), 0x7FF8_0000_0000_0000);
}

#[test]
fn nvvm_kernel_annotations_become_the_ptx_kernel_convention() {
    let src = "target triple = \"nvptx64-nvidia-cuda\"\n\
        define void @k(ptr %p) {\nentry:\n  ret void\n}\n\
        define void @helper() {\nentry:\n  ret void\n}\n\
        !nvvm.annotations = !{!0}\n\
        !0 = !{ptr @k, !\"kernel\", i32 1}\n";
    let (m, _) = crate::text::parse_module(src).expect("parses");
    let conv = |name: &str| {
        m.function_by_name(name)
            .and_then(|f| m.functions[f].cconv.clone())
    };
    assert_eq!(conv("k").as_deref(), Some("ptx_kernel"));
    assert_eq!(conv("helper"), None);
    let printed = crate::text::print_module(&m);
    assert!(printed.contains("define ptx_kernel void @k("), "{printed}");
    assert_eq!(crate::text::parse_module(&printed).expect("reparses").0, m);
}

#[test]
fn vectors_and_aggregates() {
    let ok = "define i32 @f(<4 x float> %v, { i32, i1 } %s) {\n  %a = fadd <4 x float> %v, splat (float 1.0)\n  %c = fcmp olt <4 x float> %a, <float 0.0, float 1.0, float 2.0, float 3.0>\n  %m = select <4 x i1> %c, <4 x float> %a, <4 x float> zeroinitializer\n  %e = extractelement <4 x float> %m, i32 1\n  %i = insertelement <4 x float> undef, float %e, i64 0\n  %sh = shufflevector <4 x float> %i, <4 x float> poison, <2 x i32> <i32 0, i32 poison>\n  %x = extractvalue { i32, i1 } %s, 0\n  %t = insertvalue { i32, i1 } { i32 1, i1 false }, i32 %x, 0\n  ret i32 %x\n}\n";
    let (m, _) = parse(ok).unwrap_or_else(|e| panic!("{e:?}"));
    let body = m.functions[m.first_definition().unwrap()]
        .body
        .as_ref()
        .unwrap();
    let sh = body.value_by_name("sh").unwrap();
    assert_eq!(m.types.display(body.values[sh].ty), "<2 x float>");
    let c = body.value_by_name("c").unwrap();
    assert_eq!(m.types.display(body.values[c].ty), "<4 x i1>");
    check(
        "define void @f() {\n  %v = add <4 x i32> <i32 1, i32 2>, zeroinitializer\n  ret void\n}\n",
        "constant has 2 elements, type <4 x i32> has 4",
        "<i32 1, i32 2>",
        "<i32 1, i32 2>",
    );
    check(
        "define void @f() {\n  %v = add <2 x i32> <i32 1, float 2.0>, zeroinitializer\n  ret void\n}\n",
        "constant element has type float, expected i32",
        "float 2.0",
        "float",
    );
    check(
        "define void @f() {\n  %v = add <0 x i32> zeroinitializer, zeroinitializer\n  ret void\n}\n",
        "vector length must be between 1 and 65536",
        "0 x",
        "0",
    );
    check(
        "define void @f() {\n  %v = add <2 x [2 x i8]> zeroinitializer, zeroinitializer\n  ret void\n}\n",
        "vector element type must be an integer, floating-point or pointer type, found [2 x i8]",
        "<2 x [2 x i8]>",
        "<2 x [2 x i8]>",
    );
    check(
        "define void @f(i32 %x) {\n  %v = extractelement i32 %x, i32 0\n  ret void\n}\n",
        "extractelement needs a vector type, found i32",
        "i32 %x, i32 0",
        "i32",
    );
    check(
        "define void @f(<2 x i32> %x) {\n  %v = shufflevector <2 x i32> %x, <2 x i32> %x, <2 x i32> %x\n  ret void\n}\n",
        "shufflevector mask must be a constant of i32 elements, undef or poison",
        "%x\n",
        "%x",
    );
    check(
        "define void @f({ i32, i1 } %s) {\n  %v = extractvalue { i32, i1 } %s, 2\n  ret void\n}\n",
        "indices do not name an element of { i32, i1 }",
        ", 2",
        "2",
    );
    check(
        "define void @f() {\n  %v = add i32 splat (i32 1), 1\n  ret void\n}\n",
        "'splat' used with non-vector type i32",
        "splat",
        "splat",
    );
}

#[test]
fn atomics() {
    let ok = "define i32 @f(ptr %p) {\n  %a = atomicrmw volatile uinc_wrap ptr %p, i32 1 syncscope(\"agent\") seq_cst, align 4\n  %b = cmpxchg weak ptr %p, i32 0, i32 1 acquire monotonic\n  fence syncscope(\"workgroup\") acq_rel\n  %x = extractvalue { i32, i1 } %b, 0\n  ret i32 %x\n}\n";
    assert!(parse(ok).is_ok());
    check(
        "define void @f(ptr %p) {\n  %a = atomicrmw frob ptr %p, i32 1 seq_cst\n  ret void\n}\n",
        "expected an atomicrmw operation, found 'frob'",
        "frob",
        "frob",
    );
    check(
        "define void @f(ptr %p) {\n  %a = atomicrmw add ptr %p, i32 1\n  ret void\n}\n",
        "expected an atomic ordering, found 'ret'",
        "ret void",
        "ret",
    );
    check(
        "define void @f(ptr %p) {\n  %b = cmpxchg ptr %p, i32 0, i64 1 seq_cst seq_cst\n  ret void\n}\n",
        "cmpxchg operands have different types",
        "i64",
        "i64",
    );
    check(
        "define void @f() {\n  fence syncscope(agent) seq_cst\n  ret void\n}\n",
        "expected a quoted scope name, found 'agent'",
        "agent",
        "agent",
    );
}

/// Constant expressions (docs/language.md, "Constant expressions"), each in the
/// positions LLVM allows: instruction operands, phi incomings, call arguments and
/// global initializers, nested; printed back as written (LLVM 22's spelling).
#[test]
fn constant_expressions_parse_and_print_back() {
    let src = "\
@s = internal addrspace(3) global [4 x i32] zeroinitializer
@q = global ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(3) @s to ptr), i64 4)
@t = global [2 x i64] [i64 ptrtoint (ptr @q to i64), i64 0]
@r = global { i32, ptr } { i32 0, ptr getelementptr nusw nuw inrange(-4, 12) ({ i32, [4 x i32] }, ptr null, i64 0, i32 1, i64 2) }

declare void @use(ptr, i16)

define i32 @f(i64 %i, i1 %c) {
entry:
  %p = getelementptr inbounds [4 x i32], ptr addrspacecast (ptr addrspace(3) @s to ptr), i64 0, i64 %i
  store i32 5, ptr getelementptr inbounds ([4 x i32], ptr addrspacecast (ptr addrspace(3) @s to ptr), i64 0, i64 3)
  call void @use(ptr inttoptr (i64 64 to ptr), i16 trunc (i64 ptrtoint (ptr @q to i64) to i16))
  br i1 %c, label %a, label %b

a:
  br label %b

b:
  %m = phi ptr [ %p, %entry ], [ bitcast (ptr @q to ptr), %a ]
  %v = load i32, ptr %m
  ret i32 %v
}
";
    let (m, _) = parse(src).expect("parses");
    assert_eq!(crate::text::print_module(&m), src);
    let body = m.functions[m.function_by_name("f").expect("@f")]
        .body
        .as_ref()
        .expect("a body");
    let exprs = body
        .values
        .values()
        .filter(|v| {
            matches!(
                v.def,
                crate::ir::ValueDef::Const(crate::ir::ConstData::Expr(_))
            )
        })
        .count();
    assert_eq!(exprs, 5, "the constant expressions of @f are constants");
}

/// A bad constant expression is an error at its position (file:line:column is
/// rendered from the span), naming the rule it breaks.
#[test]
fn bad_constant_expressions() {
    let g = "@g = global [4 x i32] zeroinitializer\n";
    let cases: [(String, &str, &str, &str); 8] = [
        (
            format!("{g}define i64 @f() {{\n  ret i64 zext (i32 0 to i64)\n}}\n"),
            "'zext' is not a constant expression since LLVM 18 (LLVM 22 keeps trunc, ptrtoint, \
             inttoptr, bitcast, addrspacecast and getelementptr): compute it with a 'zext' \
             instruction",
            "zext",
            "zext",
        ),
        (
            format!("{g}define i64 @f() {{\n  ret i64 trunc (i32 7 to i64)\n}}\n"),
            "invalid constant expression: trunc from i32 to i64: the result must be narrower",
            "trunc (i32 7 to i64)",
            "trunc (i32 7 to i64)",
        ),
        (
            format!("{g}define i32 @f() {{\n  ret i32 ptrtoint (ptr @g to i64)\n}}\n"),
            "constant expression has type i64, used here as i32",
            "to i64",
            "i64",
        ),
        (
            format!(
                "{g}define ptr @f() {{\n  ret ptr addrspacecast (ptr @g to ptr addrspace(1))\n}}\n"
            ),
            "constant expression has type ptr addrspace(1), used here as ptr",
            "to ptr addrspace(1))",
            "ptr addrspace(1)",
        ),
        (
            format!(
                "{g}define ptr @f() {{\n  ret ptr getelementptr ({{ i32, i32 }}, ptr @g, i64 0, i32 2)\n}}\n"
            ),
            "a getelementptr index into { i32, i32 } is an i32 constant below 2",
            " 2)",
            "2",
        ),
        (
            format!("{g}define ptr @f() {{\n  ret ptr getelementptr (i32, i64 7, i64 0)\n}}\n"),
            "the base of a getelementptr constant is a pointer, not i64",
            "i64 7",
            "i64",
        ),
        (
            format!(
                "{g}define ptr @f() {{\n  ret ptr getelementptr ([4 x i32], ptr @g, i64 0, inrange i64 1)\n}}\n"
            ),
            "'inrange' before an index is LLVM 18 syntax: write 'getelementptr inrange(lo, hi) \
             (...)' with byte offsets",
            "inrange",
            "inrange",
        ),
        (
            format!(
                "{g}define ptr @f(i64 %i) {{\n  ret ptr getelementptr (i32, ptr @g, i64 %i)\n}}\n"
            ),
            "expected a value, found '%i'",
            "%i)\n",
            "%i",
        ),
    ];
    for (src, message, context, at) in cases {
        check(&src, message, context, at);
    }
    // Nesting is bounded: 200 nested casts are an error, not a stack overflow.
    let mut c = "ptr @g".to_string();
    for _ in 0..200 {
        c = format!("ptr bitcast ({c} to ptr)");
    }
    let src = format!("{g}define ptr @f() {{\n  ret {c}\n}}\n");
    let errors = parse(&src).expect_err("too deep");
    assert_eq!(errors[0].message, "constant expression nested too deeply");
}

/// Typed pointers, in each spelling LLVM 14 had, are refused over the whole
/// spelling with what to write instead.
#[test]
fn typed_pointers_are_refused_with_the_opaque_spelling() {
    let message = "typed pointers are LLVM 14 syntax; write `ptr` (or `ptr addrspace(N)`)";
    for (src, at) in [
        ("define void @f(i32* %p) {\nentry:\n  ret void\n}\n", "i32*"),
        (
            "define void @f(ptr addrspace(1)* %p) {\nentry:\n  ret void\n}\n",
            "ptr addrspace(1)*",
        ),
        (
            "define void @f(i32 addrspace(1)* %p) {\nentry:\n  ret void\n}\n",
            "i32 addrspace(1)*",
        ),
        (
            "define i32 @f(ptr %p) {\nentry:\n  %v = load i32, float* %p\n  ret i32 %v\n}\n",
            "float*",
        ),
        ("@g = global [2 x i8]* null\n", "[2 x i8]*"),
    ] {
        check(src, message, at, at);
    }
}

/// `poison` and `undef` stand wherever a value may (every operand position of
/// instructions, terminators, phis, calls and global initializers), and read
/// back to the same module.
#[test]
fn poison_and_undef_in_every_operand_position() {
    let src = "@g = global i32 poison\n@h = global [2 x i32] [i32 undef, i32 poison]\ndeclare void @ext(i32, ptr)\ndefine i32 @f(i32 %x) {\nentry:\n  %a = add i32 poison, undef\n  %b = select i1 undef, i32 poison, i32 %x\n  %p = getelementptr inbounds i32, ptr poison, i64 undef\n  %c = icmp eq ptr undef, poison\n  %v = insertelement <2 x i32> poison, i32 undef, i32 poison\n  %e = extractelement <2 x i32> undef, i64 poison\n  %s = shufflevector <2 x i32> poison, <2 x i32> undef, <2 x i32> <i32 poison, i32 0>\n  %f = freeze i32 poison\n  %k = zext i8 poison to i32\n  call void @ext(i32 poison, ptr undef)\n  %r = atomicrmw add ptr @g, i32 poison seq_cst\n  %q = cmpxchg ptr @g, i32 undef, i32 poison seq_cst seq_cst\n  store i32 poison, ptr @g\n  %ld = load i32, ptr @g\n  %iv = insertvalue { i32, i32 } poison, i32 undef, 0\n  %xv = extractvalue { i32, i32 } undef, 1\n  switch i32 poison, label %d [ i32 1, label %z ]\nd:\n  %m = phi i32 [ poison, %entry ], [ undef, %d ]\n  br i1 poison, label %d, label %z\nz:\n  ret i32 poison\n}\n";
    let (m, _) = parse(src).expect("parses");
    let printed = crate::text::print_module(&m);
    let (again, _) = parse(&printed).expect("the printed module parses");
    assert_eq!(again, m, "{printed}");
    for word in ["poison", "undef"] {
        assert!(printed.matches(word).count() >= 10, "{printed}");
    }
}

/// Inline assembly callees are read with their flags, strings and constraints,
/// printed back as written at their calls (no `declare`), placed after every
/// other function, and their constraints are there for the analyses.
#[test]
fn inline_asm_is_read_and_printed_back() {
    let src = "\
define i32 @f(i32 %x) {
entry:
  %a = call i32 asm sideeffect \"v_mov_b32 $0, $1\", \"=v,v\"(i32 %x)
  %b = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %a)
  %c = call i32 asm \"s_mov_b32 $0, $1\", \"=s,s\"(i32 %b)
  call void asm sideeffect alignstack inteldialect \"nop \\22q\\22\", \"~{memory}\"()
  ret i32 %c
}

declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
";
    let (m, _) = parse(src).expect("parses");
    assert_eq!(crate::text::print_module(&m), src);
    let names: Vec<&str> = m.functions.values().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["f", "llvm.amdgcn.readfirstlane.i32", "asm", "asm", "asm"]
    );
    let outputs: Vec<Vec<&str>> = m.inline_asm.values().map(|a| a.outputs()).collect();
    assert_eq!(outputs, [vec!["v"], vec!["s"], vec![]]);
    let last = m.inline_asm.values().last().expect("three");
    assert_eq!(last.text, "nop \"q\"");
    assert_eq!(last.constraint_codes(), ["~{memory}"]);
    assert!(last.sideeffect && last.alignstack && last.inteldialect && !last.unwind);
    // The implicitly declared intrinsic comes before the asm callees in both
    // reads, whichever the file names first.
    let implicit = src.replace("\ndeclare i32 @llvm.amdgcn.readfirstlane.i32(i32)\n", "");
    let (m2, _) = parse(&implicit).expect("parses");
    assert_eq!(m2, m);
}
