//! The golden corpus runner: every `corpus/**/*.ll` file is one trial (libtest-mimic),
//! so `cargo test -p pllvm-corpus -- semantics/` filters by path.
//!
//! A file with `; error:` comments on its lines is a verifier test: the parser and
//! verifier must report errors on exactly those lines, each message containing the
//! comment's text. Any other file must verify cleanly and is run once per `; run:`
//! directive; every `; expect` line is checked against every run it applies to
//! (they were derived by hand from the spec: tools never rewrite them). `; out[NAME]:`
//! blocks are snapshots the tool owns: `BLESS=1 cargo test -p pllvm-corpus`
//! rewrites only those.

use libtest_mimic::{Arguments, Failed, Trial};
use pllvm_corpus::{Checked, check_file, corpus_files, corpus_root};

fn main() {
    let args = Arguments::from_args();
    let root = corpus_root();
    let bless = std::env::var_os("BLESS").is_some();
    let trials: Vec<Trial> = corpus_files(&root)
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            Trial::test(name, move || match check_file(&path, bless) {
                Ok(Checked { .. }) => Ok(()),
                Err(message) => Err(Failed::from(message)),
            })
        })
        .collect();
    if trials.is_empty() {
        eprintln!("no corpus files found under {}", root.display());
        std::process::exit(1);
    }
    libtest_mimic::run(&args, trials).exit();
}
