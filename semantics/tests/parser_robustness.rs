//! The parser never panics: not on arbitrary bytes, not on mutated versions of the
//! inline examples and corpus files (byte flips, deletions, insertions of
//! interesting tokens, token swaps, line splices). Whatever it accepts also prints,
//! reparses to the same module, and exports.
//!
//! Errors render with one `error:` prefix, a long source line cut around the caret
//! and a position for a byte that is not UTF-8; names that differ only in their
//! last digits parse like any others.
//!
//! The default run checks 10^5 mutants; `PLLVM_FUZZ_CASES=N` sets the count for a
//! long run by hand.

use crate::examples;

use pllvm_semantics::diag::{Diagnostic, MAX_SHOWN_CHARS, render_all};
use pllvm_semantics::text::{decode_source, export_llvm, parse_module, print_module};
use proptest::prelude::*;
use std::path::Path;

/// Tokens worth inserting: the grammar's punctuation and keywords, and extremes.
const INTERESTING: &[&str] = &[
    "%",
    "@",
    "\"",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    "(",
    ")",
    ",",
    "=",
    ":",
    ":=",
    "!",
    "#",
    "...",
    ";",
    "\n",
    " ",
    "-",
    "0x",
    "0xK",
    "c\"",
    "total",
    "predicate",
    "predicate true",
    "shadow(",
    "shadow(%x)",
    "mask()",
    "phi",
    "phi i32 [ 0, %entry ]",
    "label",
    "br",
    "ret",
    "switch",
    "i1",
    "i0",
    "i99999999",
    "i65536",
    "ptr",
    "addrspace(",
    "void",
    "<4 x i32>",
    "[4 x i32]",
    "{ i32, float }",
    "99999999999999999999999999999",
    "-1",
    "1.5",
    "1e400",
    "0x7FF8000000000000",
    "@pllvm.predicate",
    "@pllvm.mask",
    "@pllvm.shadow.i32",
    "@pllvm.any",
    "call",
    "declare",
    "define",
    "%0",
    "%1",
    "0:",
    "1:",
    "entry:",
    "!pllvm.total",
    "!0",
    "undef",
    "poison",
    "null",
    "zeroinitializer",
    "type",
    "%T = type { %T }",
    "x",
    "align 4",
    "inbounds",
    "nuw",
    "nsw",
    "\u{e9}",
    "\u{1F600}",
    "\\",
    "\\22",
];

/// A deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One random mutation of `src`; `donors` supplies lines to splice in.
fn mutate(rng: &mut Rng, src: &str, donors: &[String]) -> String {
    let mut bytes = src.as_bytes().to_vec();
    match rng.below(6) {
        0 if !bytes.is_empty() => {
            let i = rng.below(bytes.len());
            bytes[i] ^= 1 << rng.below(8);
        }
        1 if !bytes.is_empty() => {
            let i = rng.below(bytes.len());
            let n = (1 + rng.below(8)).min(bytes.len() - i);
            bytes.drain(i..i + n);
        }
        2 => {
            let i = rng.below(bytes.len() + 1);
            let t = INTERESTING[rng.below(INTERESTING.len())];
            bytes.splice(i..i, t.bytes());
        }
        3 => {
            let mut words: Vec<&str> = src.split(' ').collect();
            if words.len() > 1 {
                let a = rng.below(words.len());
                let b = rng.below(words.len());
                words.swap(a, b);
            }
            return words.join(" ");
        }
        4 => {
            let donor = &donors[rng.below(donors.len())];
            let lines: Vec<&str> = donor.lines().collect();
            let line = lines.get(rng.below(lines.len())).copied().unwrap_or("");
            let mut own: Vec<&str> = src.lines().collect();
            let at = rng.below(own.len() + 1);
            own.insert(at, line);
            return own.join("\n");
        }
        _ => {
            let mut lines: Vec<&str> = src.lines().collect();
            if !lines.is_empty() {
                let i = rng.below(lines.len());
                lines.remove(i);
            }
            return lines.join("\n");
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Parses `src`; if accepted, the printed form must reparse to the same module
/// and the export must parse. Returns whether it was accepted.
fn check_input(src: &str) -> bool {
    let outcome = std::panic::catch_unwind(|| {
        let Ok((m, _)) = parse_module(src) else {
            return false;
        };
        let printed = print_module(&m);
        match parse_module(&printed) {
            Ok((m2, _)) => assert!(m2 == m, "reparse differs; printed:\n{printed}"),
            Err(e) => panic!("printed form does not parse: {e:?}\nprinted:\n{printed}"),
        }
        let exported = export_llvm(&m);
        if let Err(e) = parse_module(&exported) {
            panic!("export does not parse: {e:?}\nexported:\n{exported}");
        }
        true
    });
    match outcome {
        Ok(accepted) => accepted,
        Err(_) => panic!("parser failed on input:\n-----\n{src}\n-----"),
    }
}

/// The seeds: inline examples and every corpus file.
fn seeds() -> Vec<String> {
    let mut seeds: Vec<String> = examples::EXAMPLES
        .iter()
        .map(|(_, s, _, _)| s.to_string())
        .collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut stack = vec![root];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ll") {
                files.push(p);
            }
        }
    }
    files.sort();
    for f in files {
        if let Ok(s) = std::fs::read_to_string(&f) {
            seeds.push(s);
        }
    }
    seeds
}

/// The seed programs, built once for all cases.
fn shared_seeds() -> &'static [String] {
    static SEEDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(seeds)
}

/// Mutated cases in the default run (10^5); `PLLVM_FUZZ_CASES` changes it.
fn mutant_cases() -> u32 {
    std::env::var("PLLVM_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000)
}

/// One to three stacked mutations of one seed, chosen by `rng_seed`.
fn mutant(rng_seed: u64) -> String {
    let seeds = shared_seeds();
    let mut rng = Rng(rng_seed | 1);
    let seed = &seeds[rng.below(seeds.len())];
    let mut text = mutate(&mut rng, seed, seeds);
    for _ in 0..rng.below(3) {
        text = mutate(&mut rng, &text, seeds);
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: mutant_cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]
    #[test]
    fn mutants_never_panic(rng_seed in any::<u64>()) {
        check_input(&mutant(rng_seed));
    }
}

#[test]
fn the_mutator_also_makes_acceptable_programs() {
    // Some mutants (comment edits, harmless swaps) must still be accepted, or the
    // mutator only tests the error paths.
    let cases = 2_000u64;
    let accepted = (1..=cases)
        .filter(|k| check_input(&mutant(k.wrapping_mul(0x9E37_79B9_7F4A_7C15))))
        .count() as u64;
    assert!(
        accepted * 50 > cases,
        "only {accepted} of {cases} mutants accepted"
    );
}

#[test]
fn unmutated_seeds_are_accepted() {
    for (name, src, _, _) in examples::EXAMPLES {
        assert!(check_input(src), "{name} rejected");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check_input(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn arbitrary_token_soup_never_panics(picks in proptest::collection::vec(0..INTERESTING.len(), 0..60)) {
        let text: Vec<&str> = picks.iter().map(|&i| INTERESTING[i]).collect();
        check_input(&format!("define void @f() {{\n{}\n}}", text.join(" ")));
    }
}

/// Renders the errors `src` gets from the parser as the CLI does.
fn rendered_errors(src: &str) -> Option<String> {
    let errors = parse_module(src).err()?;
    let diags: Vec<Diagnostic> = errors.iter().map(|e| e.to_diagnostic()).collect();
    Some(render_all(&diags, "m.ll", src))
}

#[test]
fn every_rendered_parse_error_has_one_error_prefix() {
    let mut rejected = 0;
    for k in 0..3000u64 {
        let src = mutant(k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let Some(rendered) = rendered_errors(&src) else {
            continue;
        };
        rejected += 1;
        let n = parse_module(&src).err().map_or(0, |e| e.len());
        let headers: Vec<&str> = rendered
            .lines()
            .filter(|l| l.starts_with("m.ll:"))
            .collect();
        assert_eq!(headers.len(), n, "one header per error:\n{rendered}");
        for h in headers {
            let message = h.split_once(": error: ").map(|(_, m)| m);
            assert!(
                message.is_some_and(|m| !m.to_lowercase().starts_with("error")),
                "{h}"
            );
        }
    }
    assert!(rejected > 1000, "only {rejected} mutants rejected");
}

#[test]
fn a_long_line_is_shown_cut_around_the_caret() {
    // A 10k-character line whose undefined operand sits in its middle.
    let long = "v".repeat(5000);
    let src = format!(
        "define i32 @f(i32 %a) {{\n  %{long} = add i32 %a, 1\n  %x = add i32 %{long}, %t ; {}\n  ret i32 %x\n}}\n",
        "c".repeat(5000)
    );
    let rendered = rendered_errors(&src).expect("undefined %t is an error");
    let lines: Vec<&str> = rendered.lines().collect();
    assert_eq!(lines[0], "m.ll:3:5019: error: use of undefined value %t");
    assert!(
        lines[1].chars().count() <= MAX_SHOWN_CHARS + 2,
        "{}",
        lines[1]
    );
    assert!(lines[1].starts_with('…') && lines[1].ends_with('…'));
    let caret = lines[2].chars().take_while(|&c| c != '^').count();
    let under: String = lines[1].chars().skip(caret).take(2).collect();
    assert_eq!(under, "%t", "{rendered}");
}

#[test]
fn a_byte_that_is_not_utf8_is_an_error_at_its_position() {
    let mut bytes = b"define i32 @f() {\n  ret i32 0 ".to_vec();
    bytes.push(0xff);
    bytes.extend_from_slice(b"\n}\n");
    let e = decode_source(bytes).expect_err("0xff is not UTF-8");
    assert_eq!(e.error.message, "invalid UTF-8 byte 0xff");
    let rendered = e.error.to_diagnostic().render("m.ll", &e.text);
    assert_eq!(
        rendered,
        "m.ll:2:13: error: invalid UTF-8 byte 0xff\n  ret i32 0 \u{fffd}\n            ^"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn arbitrary_bytes_decode_or_name_their_first_bad_byte(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        match (decode_source(bytes.clone()), std::str::from_utf8(&bytes)) {
            (Ok(text), Ok(s)) => prop_assert_eq!(text, s),
            (Err(e), Err(u)) => {
                let at = u.valid_up_to();
                prop_assert_eq!(e.error.span.lo as usize, at);
                prop_assert_eq!(&e.error.message, &format!("invalid UTF-8 byte 0x{:02x}", bytes[at]));
                let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
                let rendered = e.error.to_diagnostic().render("m.ll", &e.text);
                let expected = format!("m.ll:{line}:");
                prop_assert!(rendered.starts_with(&expected), "{}", rendered);
            }
            (got, want) => prop_assert!(false, "decode {:?} vs from_utf8 {:?}", got, want),
        }
    }
}

#[test]
fn names_differing_in_their_last_digits_parse() {
    // 200k values `%x1000000`..: the multiply-only hasher put them in a few buckets
    // (the spread itself is checked in the parser's unit tests).
    let n = 200_000;
    let mut src = String::from("define i32 @f(i32 %a) {\nentry:\n  %x1000000 = add i32 %a, 1\n");
    for i in 1_000_001..1_000_000 + n {
        src.push_str(&format!("  %x{i} = add i32 %x{}, 1\n", i - 1));
    }
    src.push_str(&format!("  ret i32 %x{}\n}}\n", 1_000_000 + n - 1));
    let (m, _) = parse_module(&src).expect("parses");
    let body = m
        .functions
        .values()
        .find_map(|f| f.body.as_ref())
        .expect("a body");
    let named = body.values.values().filter(|v| v.name.is_some()).count();
    assert_eq!(named, n + 1, "one value per name and %a");
}
