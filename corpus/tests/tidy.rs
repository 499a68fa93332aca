//! Tidy checks over the source tree (docs/design/style.md §3, §6): the rule table
//! `semantics/RULES.md` matches the `/// [NAME]` citations of the rule functions
//! and the type `Rule` (names and thesis places), no rule is cited twice, every
//! rule is applied by some corpus program (as the rules' dispatchers record it in
//! each step), every corpus file runs, and every Rust file opens with a `//!` doc
//! comment.

use pllvm_corpus::{check_file, corpus_files, corpus_root};
use pllvm_semantics::rules::Rule;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    corpus_root()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// `(rule, file, function)` rows of RULES.md.
fn table() -> Vec<(String, String, String)> {
    rows()
        .into_iter()
        .map(|(rule, _, file, func)| (rule, file, func))
        .collect()
}

/// `(rule, thesis, file, function)` rows of RULES.md.
fn rows() -> Vec<(String, String, String, String)> {
    let text = std::fs::read_to_string(workspace().join("semantics/RULES.md")).expect("RULES.md");
    text.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| rule") && !l.starts_with("| ---"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let func = cells[3];
            let parts: Vec<&str> = func.split('`').filter(|p| !p.trim().is_empty()).collect();
            (
                cells[1].to_string(),
                cells[2].to_string(),
                parts.first().unwrap_or(&"").to_string(),
                parts.get(1).unwrap_or(&"").to_string(),
            )
        })
        .collect()
}

/// `rule -> [(file, function)]` for every doc block whose first line is
/// `/// [NAME] …` directly above a `pub fn`.
fn citations() -> BTreeMap<String, Vec<(String, String)>> {
    let dir = workspace().join("semantics/src/rules");
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("rules dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read");
        let rel = format!(
            "semantics/src/rules/{}",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        let lines: Vec<&str> = text.lines().collect();
        for (k, line) in lines.iter().enumerate() {
            let Some(rest) = line.strip_prefix("/// [") else {
                continue;
            };
            if k > 0 && lines[k - 1].starts_with("///") {
                continue;
            }
            let Some((name, _)) = rest.split_once(']') else {
                continue;
            };
            // The item after the doc block, skipping attributes (one or more lines).
            let mut rest = lines[k..].iter().skip_while(|l| l.starts_with("///"));
            let mut item = rest.next();
            while let Some(l) = item.filter(|l| l.starts_with("#[")) {
                if !l.trim_end().ends_with(']') {
                    for more in rest.by_ref() {
                        if more.trim_end().ends_with(")]") {
                            break;
                        }
                    }
                }
                item = rest.next();
            }
            let Some(func) = item
                .and_then(|l| l.strip_prefix("pub fn "))
                .and_then(|l| l.split(['(', '<']).next())
            else {
                continue;
            };
            out.entry(name.to_string())
                .or_default()
                .push((rel.clone(), func.to_string()));
        }
    }
    out
}

#[test]
fn rule_table_matches_citations() {
    let table = table();
    let cites = citations();
    assert!(
        table.len() >= 20,
        "RULES.md lists too few rules: {}",
        table.len()
    );
    for (rule, file, func) in &table {
        let Some(found) = cites.get(rule) else {
            panic!(
                "RULES.md lists [{rule}] but no function's doc comment starts with `/// [{rule}]`"
            );
        };
        assert_eq!(
            found.len(),
            1,
            "[{rule}] is cited by several functions: {found:?}"
        );
        assert_eq!(
            &found[0],
            &(file.clone(), func.clone()),
            "[{rule}]: RULES.md says {file} {func}, the source says {:?}",
            found[0]
        );
    }
    let listed: BTreeSet<&String> = table.iter().map(|(r, _, _)| r).collect();
    for rule in cites.keys() {
        assert!(
            listed.contains(rule),
            "`/// [{rule}]` is cited in the source but missing from RULES.md"
        );
    }
}

/// RULES.md lists exactly the variants of `Rule`, in the order of `Rule::ALL`,
/// with the names and thesis places `Rule::name` and `Rule::thesis` give.
#[test]
fn the_rule_type_matches_the_table() {
    let listed: Vec<(String, String)> = rows()
        .into_iter()
        .map(|(rule, thesis, _, _)| (rule, thesis))
        .collect();
    let typed: Vec<(String, String)> = Rule::ALL
        .iter()
        .map(|r| (r.name().to_string(), r.thesis().to_string()))
        .collect();
    assert_eq!(
        listed, typed,
        "semantics/RULES.md (rule, thesis) and Rule::ALL (name, thesis) in semantics/src/rules/rule.rs differ"
    );
}

/// Every rule of RULES.md is applied by some corpus program: the union of the
/// rules the steps of every run recorded (`Machine::rules_fired`). Every corpus
/// file must check: a file that does not parse, verify, run or meet its
/// expectations fails this test instead of being left out of the union.
#[test]
fn every_rule_is_fired_by_the_corpus() {
    let mut fired = BTreeSet::new();
    let mut broken = Vec::new();
    let files = corpus_files(&corpus_root());
    assert!(
        !files.is_empty(),
        "no corpus files below {:?}",
        corpus_root()
    );
    for path in files {
        match check_file(&path, false) {
            Ok(checked) => fired.extend(checked.rules),
            Err(report) => broken.push(format!("{}:\n{report}", path.display())),
        }
    }
    assert!(
        broken.is_empty(),
        "{} corpus file(s) do not run, so the rules they apply are unknown:\n{}",
        broken.len(),
        broken.join("\n\n")
    );
    let missing: Vec<String> = table()
        .into_iter()
        .map(|(r, _, _)| r)
        .filter(|r| !fired.contains(r.as_str()))
        .collect();
    assert!(missing.is_empty(), "no corpus program applies: {missing:?}");
}

#[test]
fn every_rust_file_opens_with_a_module_doc() {
    let mut stack = vec![workspace()];
    let mut bad = Vec::new();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            if p.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    stack.push(p);
                }
            } else if name.ends_with(".rs") {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                if !text.trim_start().starts_with("//!") {
                    bad.push(p.display().to_string());
                }
            }
        }
    }
    assert!(bad.is_empty(), "files without a leading //! doc: {bad:?}");
}
