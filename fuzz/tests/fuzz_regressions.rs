//! Fixed `pllvm fuzz` findings stay fixed (docs/fuzzing.md, "Regressions"): every file of
//! `corpus/regressions/` with a `; fuzz-oracle: NAME` and `; fuzz-expect: pass`
//! line (what `pllvm fuzz promote` writes) is read back as a case and its
//! oracle must pass on it. (The corpus runner, `corpus/tests/corpus.rs`, runs
//! the same files' `; run:` lines like any corpus file.) An oracle this machine
//! cannot run (no opt-22, no AVX-512) fails the test, naming what is missing:
//! scripts/test-all.sh installs the tools.

use pllvm_fuzz::oracles::{Case, Host, Verdict, builtin, guarded};
use std::path::PathBuf;

#[test]
fn every_promoted_finding_passes_its_oracle() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions");
    let host = Host::probe();
    let oracles = builtin();
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus/regressions")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .collect();
    entries.sort();
    for path in entries {
        let src = std::fs::read_to_string(&path).expect("readable");
        let Some(name) = src.lines().find_map(|l| l.strip_prefix("; fuzz-oracle:")) else {
            continue;
        };
        let name = name.trim();
        assert!(
            src.lines().any(|l| l.trim() == "; fuzz-expect: pass"),
            "{}: a promoted finding without `; fuzz-expect: pass`",
            path.display()
        );
        let case = Case::from_file(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let oracle = oracles
            .iter()
            .find(|o| o.name() == name)
            .unwrap_or_else(|| panic!("{}: no oracle {name}", path.display()));
        if let Err(why) = oracle.available(&host) {
            panic!("{}: oracle {name} cannot run here: {why}", path.display());
        }
        checked += 1;
        match guarded(|| oracle.check(&case)) {
            Verdict::Pass => {}
            other => failures.push(format!("{}: {name}: {other:?}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{checked} promoted findings pass their oracles");
}
