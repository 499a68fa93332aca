//! The parser never panics: not on arbitrary bytes, not on mutated versions of the
//! inline examples and corpus files (byte flips, deletions, insertions of
//! interesting tokens, token swaps, line splices). Whatever it accepts also prints,
//! reparses to the same module, and exports.
//!
//! The default run checks 10^5 mutants; `PLLVM_FUZZ_CASES=N` sets the count for a
//! long run by hand.

#[path = "common/examples.rs"]
mod examples;

use pllvm_semantics::text::{export_llvm, parse_module, print_module};
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
