//! Text-level tests of the verifier (thesis §4.10, Def. 11): one test per error kind
//! on inline P-LLVM text, checking message and `line:col`, and a check that the
//! files of `corpus/verifier/` follow the `; error: <substring>` convention (every
//! reported error sits on a line that announces it, and every announced error is
//! reported).

use pllvm_semantics::diag::{Diagnostic, LineIndex};
use pllvm_semantics::text::parse_module;
use pllvm_semantics::verify::{VerifyReport, verify_module};
use std::collections::BTreeMap;
use std::path::Path;

/// Parses and verifies `src`; panics (test input only) if it does not parse.
fn report_of(src: &str) -> VerifyReport {
    let (module, spans) = match parse_module(src) {
        Ok(parsed) => parsed,
        Err(errors) => panic!("test input does not parse: {errors:?}"),
    };
    verify_module(&module, &spans)
}

/// `line:col: message` of each diagnostic.
fn located(diags: &[Diagnostic], src: &str) -> Vec<String> {
    let index = LineIndex::new(src);
    diags
        .iter()
        .map(|d| {
            let (line, col) = index.line_col(src, d.span.lo);
            format!("{line}:{col}: {}", d.message)
        })
        .collect()
}

/// Verifies `src` and compares every error, as `line:col: message`, with `expect`.
fn check(src: &str, expect: &[&str]) {
    let report = report_of(src);
    assert_eq!(located(&report.errors, src), expect, "\n{src}");
}

#[test]
fn well_formed_program_has_no_errors() {
    check(
        "define i32 @f(i1 %c, i32 %n) {
entry:
  br i1 %c, label %a, label %j
a:
  %x = add i32 %n, 1
  br label %j
j:
  %p = phi i32 [ %x, %a ], [ 0, %entry ]
  ret i32 %p
}
",
        &[],
    );
}

#[test]
fn use_not_dominated() {
    check(
        "define i32 @f(i1 %c, i32 %n) {
entry:
  br i1 %c, label %a, label %j
a:
  %x = add i32 %n, 1
  br label %j
j:
  %y = add i32 %x, 1
  ret i32 %y
}
",
        &["8:16: use of %x is not dominated by its definition (SSA, thesis §2.2)"],
    );
}

#[test]
fn use_before_definition_in_the_same_block() {
    check(
        "define i32 @f(i32 %n) {
entry:
  %u = mul i32 %v, 2
  %v = add i32 %n, 3
  ret i32 %u
}
",
        &["3:16: use of %v is not dominated by its definition (SSA, thesis §2.2)"],
    );
}

#[test]
fn terminator_use_not_dominated() {
    check(
        "define i32 @f(i1 %c, i32 %n) {
entry:
  br i1 %c, label %a, label %j
a:
  %x = add i32 %n, 1
  br label %j
j:
  ret i32 %x
}
",
        &["8:3: use of %x is not dominated by its definition (SSA, thesis §2.2)"],
    );
}

#[test]
fn unreachable_uses_are_exempt() {
    check(
        "define void @f(i32 %n) {
entry:
  ret void
dead:
  %z = add i32 %w, 1
  %w = add i32 %z, 1
  ret void
}
",
        &[],
    );
}

#[test]
fn phi_edge_not_dominated() {
    check(
        "define i32 @f(i1 %c, i32 %n) {
entry:
  br i1 %c, label %a, label %b
a:
  %x = add i32 %n, 1
  br label %j
b:
  br label %j
j:
  %q = phi i32 [ 0, %a ], [ %x, %b ]
  ret i32 %q
}
",
        &[
            "10:29: use of %x on the edge from %b is not dominated by its definition (SSA, thesis §2.2)",
        ],
    );
}

#[test]
fn phi_entries_follow_predecessor_edges() {
    check(
        "define i32 @f(i32 %s) {
entry:
  switch i32 %s, label %j [ i32 1, label %j i32 2, label %k ]
k:
  br label %j
j:
  %ok = phi i32 [ 1, %entry ], [ 1, %entry ], [ 2, %k ]
  %once = phi i32 [ 1, %entry ], [ 2, %k ]
  %differ = phi i32 [ 1, %entry ], [ 3, %entry ], [ 2, %k ]
  %missing = phi i32 [ 1, %entry ], [ 1, %entry ]
  %stranger = phi i32 [ 1, %entry ], [ 1, %entry ], [ 2, %k ], [ 4, %j ]
  ret i32 %ok
}
",
        &[
            "8:3: phi has 1 entries for %entry, which has 2 edges to %j: one entry per edge, as in LLVM (SSA, thesis §2.2)",
            "9:3: phi has different values for the same predecessor %entry (SSA, thesis §2.2)",
            "10:3: phi has no entry for predecessor %k (SSA, thesis §2.2)",
            "11:3: phi lists %j, which is not a predecessor of %j (SSA, thesis §2.2)",
        ],
    );
}

#[test]
fn entry_has_no_predecessors() {
    check(
        "define void @f(i1 %c) {
entry:
  br label %loop
loop:
  br i1 %c, label %entry, label %exit
exit:
  ret void
}
",
        &["5:3: branch to the entry block %entry, which has no predecessors in LLVM (Def. 1)"],
    );
}

#[test]
fn opcode_needs_matching_type_kind() {
    check(
        "define void @f(i32 %i, float %x) {
entry:
  %a = add float %x, %x
  %b = fcmp olt i32 %i, %i
  ret void
}
",
        &[
            "3:3: add needs an integer type, found float (LLVM LangRef: add)",
            "4:3: fcmp needs a floating-point type, found i32 (LLVM LangRef: fcmp)",
        ],
    );
}

#[test]
fn illegal_cast() {
    check(
        "define void @f(i32 %i) {
entry:
  %a = zext i32 %i to i8
  ret void
}
",
        &[
            "3:3: zext from i32 to i8 is not a legal cast: the result must be wider (LLVM LangRef: zext)",
        ],
    );
}

#[test]
fn conditions_are_i1_and_cases_unique() {
    check(
        "define i32 @f(i32 %n) {
entry:
  %s = select i32 %n, i32 1, i32 2
  br i32 %n, label %a, label %b
a:
  switch i32 %n, label %b [ i32 1, label %b i32 1, label %b ]
b:
  ret i32 %s
}
",
        &[
            "3:19: %n has type i32, but select expects i1 (LLVM LangRef: select)",
            "4:3: %n has type i32, but br expects i1 (LLVM LangRef: br)",
            "6:3: switch lists case 1 twice (LLVM LangRef: switch)",
        ],
    );
}

#[test]
fn gep_struct_index() {
    check(
        "define void @f(ptr %p, i32 %j) {
entry:
  %var = getelementptr { i32, double }, ptr %p, i64 0, i32 %j
  %deep = getelementptr { i32, double }, ptr %p, i64 0, i32 1, i32 0
  ret void
}
",
        &[
            "3:60: getelementptr struct index into { i32, double } must be an i32 constant below 2 (LLVM LangRef: getelementptr)",
            "4:68: getelementptr cannot index into double (LLVM LangRef: getelementptr)",
        ],
    );
}

#[test]
fn ret_matches_function() {
    check(
        "define i32 @f() {
entry:
  ret void
}
",
        &["3:3: ret without a value in function returning i32 (LLVM LangRef: ret)"],
    );
}

#[test]
fn call_matches_declaration() {
    check(
        "declare float @sqrtf(float)
define void @f(double %d) {
entry:
  %arg = call float @sqrtf(double %d)
  ret void
}
",
        &["4:35: %d has type double, but call expects float (LLVM LangRef: call)"],
    );
}

#[test]
fn predicate_must_dominate() {
    check(
        "define void @f(i1 %p) {
entry:
  br i1 %p, label %a, label %j
a:
  %q = xor i1 %p, true
  br label %j
j:
  predicate %q
  ret void
}
",
        &[
            "8:3: predicate %q of %j is defined in %a, which does not dominate %j (Def. 11.1, dominating predicate)",
        ],
    );
}

#[test]
fn predicate_in_own_block_needs_total_commands() {
    check(
        "define void @f(i32 %n) {
entry:
  predicate %k
  %t = add i32 %n, 1
  %k = icmp eq i32 %t, 0
  ret void
}
",
        &[
            "4:3: add runs before the block predicate %k is defined, so it must be total (Def. 11.1, dominating predicate)",
            "5:3: block predicate %k is defined in its own block, so its definition must be total (Def. 11.1, dominating predicate)",
        ],
    );
    check(
        "define void @f(i32 %n) {
entry:
  predicate %k
  %t := add i32 %n, 1
  %k = icmp eq i32 %t, 0 total
  ret void
}
",
        &[],
    );
}

#[test]
fn callee_not_in_theta() {
    // A declared external function is accepted (undefined only if executed);
    // the reserved `pllvm.*` names must be θ's.
    check(
        "declare void @mystery()
declare void @pllvm.mystery()
define void @f() {
entry:
  call void @mystery()
  call void @pllvm.mystery()
  ret void
}
",
        &[
            "6:3: call to @pllvm.mystery, which is not in the function map θ (Def. 11.2, defined functions): the pllvm.* names are θ's own",
        ],
    );
}

#[test]
fn no_calls_to_pllvm_functions() {
    // A matching call is inlined by the parser; a mismatched one stays and is
    // reported twice: the mismatch, and that it is a call to a defined function.
    check(
        "define void @g() {
entry:
  ret void
}
define void @f() {
entry:
  call void @g()
  ret void
}
",
        &[],
    );
    check(
        "define void @g() {
entry:
  ret void
}
define void @f() {
entry:
  call void @g(i32 1)
  ret void
}
",
        &[
            "7:3: call to @g passes 1 arguments, but it takes 0 (LLVM LangRef: call)",
            "7:3: call to @g: P-LLVM has no calls to P-LLVM functions (thesis §4.9.2, Def. 11.2); the parser inlines calls that match their definition (docs/language.md)",
        ],
    );
}

#[test]
fn mask_cannot_be_total() {
    check(
        "define void @f() {
entry:
  %m := mask()
  ret void
}
",
        &["3:3: mask() cannot use the total modifier (thesis §4.9, [W-CMD-MASK])"],
    );
}

#[test]
fn phi_cannot_be_total() {
    check(
        "define void @f(i1 %c) {
entry:
  br label %next
next:
  %x := phi i1 [ %c, %entry ]
  ret void
}
",
        &["5:3: a phi cannot be total: the modifier applies to commands (thesis Fig. 4.2)"],
    );
}

#[test]
fn irreducible_function_gets_a_note() {
    let src = "define void @f(i1 %c) {
entry:
  br i1 %c, label %x, label %y
x:
  br i1 %c, label %y, label %exit
y:
  br label %x
exit:
  ret void
}
";
    let report = report_of(src);
    assert!(report.errors.is_empty());
    assert_eq!(report.reducible.len(), 1);
    assert!(!report.reducible[0].1);
    assert_eq!(
        located(&report.notes, src),
        ["1:13: function @f is irreducible (allowed)"]
    );
}

/// The `; error:` substrings announced on each line of a corpus file (prose lines,
/// which start with `;;`, announce nothing).
fn announced_errors(src: &str) -> BTreeMap<usize, Vec<String>> {
    let mut announced = BTreeMap::new();
    for (number, line) in src.lines().enumerate() {
        if line.trim_start().starts_with(";;") {
            continue;
        }
        let mut parts = line.split("; error:");
        parts.next();
        let substrings: Vec<String> = parts.map(|s| s.trim().to_string()).collect();
        if !substrings.is_empty() {
            announced.insert(number + 1, substrings);
        }
    }
    announced
}

/// What is wrong with one corpus file, if anything.
fn corpus_file_problems(path: &Path) -> Vec<String> {
    let name = path.display();
    let src = match std::fs::read_to_string(path) {
        Ok(src) => src,
        Err(e) => return vec![format!("{name}: cannot read: {e}")],
    };
    let mut problems = Vec::new();
    if !src.starts_with(";;") {
        problems.push(format!("{name}: the first line is not a `;;` line"));
    }
    let (module, spans) = match parse_module(&src) {
        Ok(parsed) => parsed,
        Err(errors) => return vec![format!("{name}: does not parse: {errors:?}")],
    };
    let report = verify_module(&module, &spans);
    let index = LineIndex::new(&src);
    let mut reported: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for d in &report.errors {
        let (line, _) = index.line_col(&src, d.span.lo);
        reported.entry(line).or_default().push(d.message.clone());
    }
    let announced = announced_errors(&src);
    for (line, messages) in &reported {
        let substrings = announced.get(line).map_or(&[][..], Vec::as_slice);
        for message in messages {
            if !substrings.iter().any(|s| message.contains(s.as_str())) {
                problems.push(format!("{name}:{line}: unannounced error: {message}"));
            }
        }
    }
    for (line, substrings) in &announced {
        let messages = reported.get(line).map_or(&[][..], Vec::as_slice);
        for substring in substrings {
            if !messages.iter().any(|m| m.contains(substring.as_str())) {
                problems.push(format!(
                    "{name}:{line}: announced error not reported: {substring} (got {messages:?})"
                ));
            }
        }
    }
    problems
}

#[test]
fn corpus_verifier_files_follow_the_error_convention() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/verifier");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "ll"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "expected the verifier corpus in {}",
        dir.display()
    );
    let problems: Vec<String> = files.iter().flat_map(|f| corpus_file_problems(f)).collect();
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn convention_checker_catches_mismatches() {
    // The checker itself: an announced error that is not reported, and the reverse.
    assert_eq!(
        announced_errors("  ret void ; error: a ; error: b\n;; prose ; error: no\n"),
        BTreeMap::from([(1, vec!["a".to_string(), "b".to_string()])])
    );
    let dir = std::env::temp_dir().join(format!("pllvm-verify-convention-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("temp dir: {e}"));
    let path = dir.join("wrong.ll");
    let src = ";; wrong on purpose\ndefine i32 @f() {\nentry:\n  ret void\n}\ndefine void @g() {\nentry:\n  ret void ; error: something\n}\n";
    std::fs::write(&path, src).unwrap_or_else(|e| panic!("write: {e}"));
    let problems = corpus_file_problems(&path);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains(":4: unannounced error: ret without a value"));
    assert!(problems[1].contains(":8: announced error not reported: something"));
}
