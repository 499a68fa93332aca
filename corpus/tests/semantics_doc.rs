//! The generator of `docs/semantics.md`, the specification reference, and the check
//! that the committed file is what it generates.
//!
//! For each rule of thesis Ch. 4 in [`Rule::ALL`], and each schedule constraint
//! of Ch. 5 in `greedy::CONSTRAINTS`, the reference shows its name and
//! thesis place ([`Rule::name`], [`Rule::thesis`]), the rule in the thesis's notation
//! ([`Rule::notation`]), the function implementing it (the file and function of the
//! `semantics/RULES.md` table, which `tests/tidy.rs` checks against the `/// [NAME]`
//! citations in the source), and the corpus file that exercises it: among the
//! files whose runs apply the rule, as the rules' dispatchers record it in each
//! step (`Checked::rules`), a figure of the semantics chapters
//! (`corpus/semantics/fig*.ll`) first, then another thesis figure, then any
//! file; the smallest (in bytes, then by path) of those. It ends with the
//! "## Readings" section of RULES.md, copied.
//!
//! `UPDATE_SEMANTICS_DOC=1 cargo test -p pllvm-corpus --test tidy semantics_doc::`
//! rewrites the file; without it the test fails when the file differs, with a diff.

use pllvm_corpus::{check_file, corpus_files, corpus_root, diff};
use pllvm_interp::greedy;
use pllvm_semantics::rules::Rule;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The workspace root (the corpus crate's parent).
fn workspace() -> PathBuf {
    corpus_root()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// `rule -> (file, function)` from the table of RULES.md.
fn functions(rules_md: &str) -> BTreeMap<String, (String, String)> {
    rules_md
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| rule") && !l.starts_with("| ---"))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let parts: Vec<&str> = cells
                .get(3)?
                .split('`')
                .filter(|p| !p.trim().is_empty())
                .collect();
            Some((
                cells.get(1)?.to_string(),
                (parts.first()?.to_string(), parts.get(1)?.to_string()),
            ))
        })
        .collect()
}

/// How well a corpus file shows a rule to a reader of the thesis: 0 for a
/// figure of the semantics chapters (`corpus/semantics/fig4.5-...ll`), 1 for
/// another figure of the thesis (`fig6.11a-...ll`), 2 for any other file.
fn rank(path: &Path) -> u8 {
    let figure = path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("fig"));
    let semantics = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "semantics");
    match (figure, semantics) {
        (true, true) => 0,
        (true, false) => 1,
        (false, _) => 2,
    }
}

/// `rule -> corpus file` (relative to the workspace): of the files whose runs
/// apply the rule, the best by [`rank`], then the smallest;
/// likewise for the constraints of Ch. 5 (the files with a run whose given
/// schedule breaks it). A file that does not check is an error (tidy reports it
/// too).
fn exercising_files(root: &Path) -> Result<Exercised, String> {
    let mut files: Vec<(u8, u64, String, PathBuf)> = corpus_files(&corpus_root())
        .into_iter()
        .map(|p| {
            let size = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(u64::MAX);
            let rel = p
                .strip_prefix(root)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            (rank(&p), size, rel, p)
        })
        .collect();
    files.sort();
    let mut out = Exercised::default();
    for (_, _, rel, path) in files {
        let checked =
            check_file(&path, false).map_err(|e| format!("{rel} does not check:\n{e}"))?;
        for rule in checked.rules {
            out.rules.entry(rule).or_insert_with(|| rel.clone());
        }
        for definition in checked.constraints {
            out.constraints
                .entry(definition)
                .or_insert_with(|| rel.clone());
        }
    }
    Ok(out)
}

/// [`exercising_files`] of the workspace, computed once for both tests of this
/// file: checking the whole corpus takes seconds and, for its largest files, more
/// than a GB at its peak, which two tests in parallel would double.
fn exercised() -> &'static Result<Exercised, String> {
    static ONCE: OnceLock<Result<Exercised, String>> = OnceLock::new();
    ONCE.get_or_init(|| exercising_files(&workspace()))
}

/// The corpus file (the best by [`rank`], then the smallest) that applies each rule,
/// and likewise with a run whose given schedule a Ch. 5 constraint rejects (by
/// the definition it cites).
#[derive(Default)]
struct Exercised {
    rules: BTreeMap<&'static str, String>,
    constraints: BTreeMap<&'static str, String>,
}

/// The text of `docs/semantics.md`.
fn generate(root: &Path) -> Result<String, String> {
    let rules_md = std::fs::read_to_string(root.join("semantics/RULES.md"))
        .map_err(|e| format!("semantics/RULES.md: {e}"))?;
    let functions = functions(&rules_md);
    let exercised = exercised().as_ref().map_err(Clone::clone)?;
    let mut s = String::new();
    s.push_str(
        "# The P-LLVM semantics: a reference\n\n\
         <!-- Generated by corpus/tests/semantics_doc.rs from the rule table `enum Rule`\n\
         (semantics/src/rules/rule.rs), semantics/RULES.md and the corpus; do not edit.\n\
         Regenerate: UPDATE_SEMANTICS_DOC=1 cargo test -p pllvm-corpus --test tidy semantics_doc:: -->\n\n\
         Every rule of the lock-step semantics of thesis Ch. 4 (Moll, the RV thesis),\n\
         in the thesis's notation, beside the one function that implements it and the\n\
         corpus program whose run applies it: a figure of Ch. 3-4 where one does, else\n\
         another figure of the thesis, else any program; the smallest of those.\n\
         The rules are listed in the\n\
         order of `Rule::ALL`; the constraints of Ch. 5 that restrict which block\n\
         [LSS-W-STEP] may schedule follow them.\n\n\
         Notation: `𝓘` is the interpretation (FR or OBL, §4.5), `𝒯` the lanes\n\
         (Def. 2), `·^W` a vector of W lane values, `⊤` the undefined value, `□(r)`\n\
         a lane that returned r, `ε` the empty instruction list; premises stand above\n\
         the line, the conclusion below it. `pllvm run --trace json` lists the rules\n\
         each step applied (`rules` of each row); undefined behaviour names the rule\n\
         whose premise failed (`help: [RULE], thesis §…`).\n\n",
    );
    s.push_str("| rule | thesis | function | exercised by |\n| --- | --- | --- | --- |\n");
    for r in Rule::ALL {
        let (file, func) = functions
            .get(r.name())
            .ok_or_else(|| format!("semantics/RULES.md has no row for [{}]", r.name()))?;
        let corpus = exercised
            .rules
            .get(r.name())
            .ok_or_else(|| format!("no corpus file applies [{}]", r.name()))?;
        s.push_str(&format!(
            "| [{name}](#{anchor}) | {thesis} | [`{func}`](../{file}) | [`{corpus}`](../{corpus}) |\n",
            name = r.name(),
            anchor = anchor(r),
            thesis = r.thesis(),
        ));
    }
    for r in Rule::ALL {
        let (file, func) = &functions[r.name()];
        let corpus = &exercised.rules[r.name()];
        s.push_str(&format!(
            "\n## {name}\n\n{thesis}. Implemented by [`{func}`](../{file}) in `{file}`; \
             exercised by [`{corpus}`](../{corpus}).\n\n```text\n{notation}\n```\n",
            name = r.name(),
            thesis = r.thesis(),
            notation = r.notation(),
        ));
    }
    s.push_str(
        "\n## The greedy schedules of Ch. 5\n\n\
         [LSS-W-STEP] runs any block the schedule names (Def. 5). pllvm's schedulers, \
         `explore` and the check of a given `--schedule` admit only greedy schedules \
         (Def. 12): every step makes progress, synchronizes (every block is a barrier), \
         and preserves termination. Each property is decided by one function of \
         `interp/src/greedy.rs` (`greedy::CONSTRAINTS`); the corpus file named is, \
         chosen the same way, one whose given schedule the property rejects.\n\n\
         | definition | property | function | rejects a step of |\n| --- | --- | --- | --- |\n",
    );
    let greedy = "interp/src/greedy.rs";
    for c in greedy::CONSTRAINTS {
        let corpus = exercised
            .constraints
            .get(c.definition)
            .ok_or_else(|| format!("no corpus run's schedule breaks {}", c.definition))?;
        s.push_str(&format!(
            "| {def} | {name} | [`{func}`](../{greedy}) | [`{corpus}`](../{corpus}) |\n",
            def = c.definition,
            name = c.name,
            func = c.function,
        ));
    }
    for c in greedy::CONSTRAINTS {
        s.push_str(&format!(
            "\n### {def}: {name}\n\n```text\n{notation}\n```\n",
            def = c.definition,
            name = c.name,
            notation = c.notation,
        ));
    }
    let readings = rules_md
        .split_once("\n## Readings\n")
        .map(|(_, rest)| rest)
        .ok_or("semantics/RULES.md has no `## Readings` section")?;
    s.push_str(
        "\n## Readings\n\n(From semantics/RULES.md: where the thesis can be read in more than one \
         way, and what pllvm decided.)\n",
    );
    s.push_str(readings);
    if !s.ends_with('\n') {
        s.push('\n');
    }
    Ok(s)
}

/// The markdown anchor of a rule's section (its lowercased name).
fn anchor(r: Rule) -> String {
    r.name().to_lowercase()
}

/// docs/semantics.md is exactly what the generator makes of the code.
#[test]
fn docs_semantics_md_is_generated_from_the_rule_table() {
    let root = workspace();
    let want = generate(&root).unwrap_or_else(|e| panic!("cannot generate docs/semantics.md: {e}"));
    let path = root.join("docs/semantics.md");
    if std::env::var_os("UPDATE_SEMANTICS_DOC").is_some() {
        std::fs::write(&path, &want).expect("write docs/semantics.md");
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/semantics.md differs from what the rule table generates; regenerate it with\n  \
         UPDATE_SEMANTICS_DOC=1 cargo test -p pllvm-corpus --test tidy semantics_doc::\n\n{}",
        diff(&have, &want)
    );
}

/// The generator's pieces are not vacuous: every rule has a row with a function,
/// and the file chosen for a rule does apply it, and no file of a better
/// [`rank`], or of the same rank and smaller, does (checked again here on a rule
/// of the memory, whose files are few, and on [BLS-W-STEP], which every run
/// applies, so a figure of the semantics chapters).
#[test]
fn the_reference_names_a_function_and_a_file_for_every_rule() {
    let root = workspace();
    let rules_md = std::fs::read_to_string(root.join("semantics/RULES.md")).expect("RULES.md");
    let functions = functions(&rules_md);
    assert_eq!(functions.len(), Rule::ALL.len());
    for r in Rule::ALL {
        let (file, func) = &functions[r.name()];
        let text = std::fs::read_to_string(root.join(file)).expect("the rule's file");
        assert!(
            text.contains(&format!("pub fn {func}")),
            "{file} has no `pub fn {func}`"
        );
    }
    let greedy_rs = std::fs::read_to_string(root.join("interp/src/greedy.rs")).expect("greedy.rs");
    for c in greedy::CONSTRAINTS {
        assert!(
            greedy_rs.contains(&format!("pub fn {}(", c.function)),
            "interp/src/greedy.rs has no `pub fn {}`",
            c.function
        );
    }
    let exercised = exercised().as_ref().expect("every corpus file checks");
    assert_eq!(exercised.constraints.len(), greedy::CONSTRAINTS.len());
    for rule in [Rule::WInstStore, Rule::BlsWStep] {
        let chosen = &exercised.rules[rule.name()];
        let path = root.join(chosen);
        let checked = check_file(&path, false).expect("checks");
        assert!(checked.rules.contains(rule.name()));
        let size = std::fs::metadata(&path).expect("size").len();
        for p in corpus_files(&corpus_root()) {
            let smaller = std::fs::metadata(&p).expect("size").len() < size;
            let better = rank(&p) < rank(&path) || rank(&p) == rank(&path) && smaller;
            if better {
                let rules = check_file(&p, false).expect("checks").rules;
                assert!(
                    !rules.contains(rule.name()),
                    "{} would be a better choice than {chosen} for [{}]",
                    p.display(),
                    rule.name()
                );
            }
        }
    }
    assert_eq!(
        rank(Path::new(&exercised.rules[Rule::BlsWStep.name()])),
        0,
        "a figure of the semantics chapters applies [BLS-W-STEP]"
    );
}
