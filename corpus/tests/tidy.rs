//! Tidy checks over the source tree (docs/design/style.md §3, §6): the rule table
//! `semantics/RULES.md` matches the `/// [NAME]` citations of the rule functions
//! and the type `Rule` (names and thesis places), no rule is cited twice, every
//! rule is applied by some corpus program (as the rules' dispatchers record it in
//! each step), every corpus file runs, every Rust file opens with a `//!` doc
//! comment, and no file cites an issue by number or holds an absolute path of a
//! machine (docs/design/style.md §6).

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

/// Every file below the workspace root that the citation checks read: the
/// tracked sources and documents. `target/` (build output), `.git` (a folder, or
/// in a worktree a file naming the repository's folder on this machine) and
/// `fuzz-out/` (the default output of `pllvm fuzz`, never committed) are
/// skipped; so is a file that is not UTF-8 text.
fn text_files() -> Vec<(String, String)> {
    let root = workspace();
    let mut stack = vec![root.clone()];
    let mut out = Vec::new();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            if matches!(name.as_str(), "target" | ".git" | "fuzz-out") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(text) = std::fs::read_to_string(&p) {
                let rel = p.strip_prefix(&root).unwrap_or(&p);
                out.push((rel.display().to_string(), text));
            }
        }
    }
    out.sort();
    out
}

/// Files that may cite the project's issue tracker by number: changelog-like
/// files, whose subject is the history of the tracker. The repository has none
/// today; a file whose name starts with one of these (case-insensitive) would be.
const CHANGELOG_PREFIXES: &[&str] = &["changelog", "changes", "history"];

/// The lines (0-based) of `lines` that cite an issue by number: the word
/// `issue` (any case, not part of a longer word such as `issues` or `issued`),
/// then white space, then an optional `#`, then a digit. The white space may be
/// a line break: then the next line's comment leader (`//!`, `///`, `//`, `;;`,
/// `#`, `*`, `--`, `>`) is skipped before the number.
fn issue_citations(lines: &[&str]) -> Vec<usize> {
    let mut hits = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        let low = line.to_ascii_lowercase();
        for (at, word) in low.match_indices("issue") {
            let before = low[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &low[at + word.len()..];
            if rest.chars().next().is_some_and(|c| !c.is_whitespace()) {
                continue;
            }
            let mut next = rest.trim_start();
            if next.is_empty() {
                let following = lines.get(k + 1).copied().unwrap_or("").trim_start();
                next = ["//!", "///", "//", ";;", ";", "#", "*", "--", ">"]
                    .iter()
                    .find_map(|lead| following.strip_prefix(lead))
                    .unwrap_or(following)
                    .trim_start();
            }
            if next
                .trim_start_matches('#')
                .starts_with(|c: char| c.is_ascii_digit())
            {
                hits.push(k);
                break;
            }
        }
    }
    hits
}

/// The roots under which a path names one machine's files: users' homes, build
/// and scratch folders, temporary folders. Paths a program or a test means on
/// every machine stay allowed: `/usr/bin/time`, `/bin/sh`, `/dev/null`,
/// `/proc/cpuinfo`, `/sys/kernel/…`, a made-up `/nonexistent/…`, a container's
/// mount point in a documented job file.
const MACHINE_ROOTS: &[&str] = &[
    "home",
    "root",
    "work",
    "tmp",
    "Users",
    "mnt",
    "media",
    "scratch",
    "builds",
    "var/tmp",
    "var/folders",
    "private/tmp",
];

/// The lines (0-based) of `lines` that hold an absolute path of a machine: `/`,
/// one of [`MACHINE_ROOTS`], `/` and at least one more path character (a letter,
/// digit, `_`, `.`, `-`, `$`, `%` or `{`), where the first `/` starts the path:
/// it is at the start of the line or after a character that cannot precede a
/// path's first slash inside a longer path, a URL or a variable (not a letter,
/// digit, `_`, `.`, `-`, `/`, `~`, `:`, `$`, `}` or `%`). So `cd /<root>/alice`
/// is a hit, while `$HOME/<root>/x`, `https://host/<root>/x`, `./<root>/x` and a
/// root named alone (`/<root>/` in prose) are not.
fn machine_paths(lines: &[&str]) -> Vec<usize> {
    let starts_path = |c: char| c.is_ascii_alphanumeric() || "_.-$%{".contains(c);
    let in_path = |c: char| c.is_alphanumeric() || "_.-/~:$}%".contains(c);
    let mut hits = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        let hit = MACHINE_ROOTS.iter().any(|root| {
            let pattern = format!("/{root}/");
            line.match_indices(&pattern).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + pattern.len()..].chars().next();
                !before.is_some_and(in_path) && after.is_some_and(starts_path)
            })
        });
        if hit {
            hits.push(k);
        }
    }
    hits
}

/// The matchers on made-up lines (assembled at run time, so that this file does
/// not trip its own check).
#[test]
fn citation_matchers() {
    let issue = |text: String| issue_citations(&text.lines().collect::<Vec<_>>());
    let word = "issue";
    assert_eq!(issue(format!("see {word} 17.")), vec![0]);
    assert_eq!(issue(format!("({} #19)", word.to_uppercase())), vec![0]);
    assert_eq!(
        issue(format!("where the checks live ({word}\n//! 20).")),
        vec![0]
    );
    assert_eq!(
        issue(format!("{word}s 0.33x of it; {word}d 3")),
        Vec::<usize>::new()
    );
    assert_eq!(
        issue(format!("an {word} with the text")),
        Vec::<usize>::new()
    );
    assert_eq!(issue(format!("tissue {}", 5)), Vec::<usize>::new());
    let paths = |text: String| machine_paths(&text.lines().collect::<Vec<_>>());
    for bad in [
        "home/alice/x.ll",
        "tmp/out",
        "work/shared/spec",
        "root/.cargo",
    ] {
        assert_eq!(paths(format!("see `/{bad}`")), vec![0], "{bad}");
        assert_eq!(paths(format!("/{bad}")), vec![0], "{bad}");
    }
    for good in [
        "/usr/bin/time -v",
        "read /proc/cpuinfo",
        "-f /dev/null",
        "/nonexistent/file.ll",
        "$HOME/work/x",
        "https://example.invalid/tmp/x",
        "./tmp/x",
        "the /tmp/ folder",
        "target/tmp/x",
    ] {
        assert_eq!(paths(good.to_string()), Vec::<usize>::new(), "{good}");
    }
}

/// No file cites the project's issue tracker by number (code and documents name
/// the feature or the document instead: docs/design/style.md §6), except a
/// changelog ([`CHANGELOG_PREFIXES`]; there is none), and no file holds an
/// absolute path of a machine ([`machine_paths`]). Fails naming `file:line`.
#[test]
fn no_issue_numbers_nor_machine_paths() {
    let files = text_files();
    assert!(
        files.iter().any(|(p, _)| p == "README.md"),
        "the walk from {:?} found no README.md",
        workspace()
    );
    let mut bad = Vec::new();
    for (path, text) in &files {
        let lines: Vec<&str> = text.lines().collect();
        let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
        if !CHANGELOG_PREFIXES.iter().any(|p| name.starts_with(p)) {
            for k in issue_citations(&lines) {
                bad.push(format!(
                    "{path}:{}: issue number: {}",
                    k + 1,
                    lines[k].trim()
                ));
            }
        }
        for k in machine_paths(&lines) {
            bad.push(format!(
                "{path}:{}: machine path: {}",
                k + 1,
                lines[k].trim()
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} line(s) cite an issue by number or hold a machine's absolute path \
         (name the feature or its document; make the path relative):\n{}",
        bad.len(),
        bad.join("\n")
    );
}
