//! The module graphs of the workspace's crates have no cycles: no module imports a
//! module that imports it back, directly or through others (ARCHITECTURE.md,
//! "Module graphs"). Every member the root `Cargo.toml` lists is checked, so a crate
//! added later is covered without touching this file.
//!
//! The graph is built from the sources (read through `CARGO_MANIFEST_DIR`): each
//! file under `src/` is a module (`lib.rs`, or `main.rs` for a binary crate, the
//! crate root, `a/mod.rs` and `a.rs` module `a`, `a/b.rs` module `a::b`), and each
//! inline `mod name { .. }` a module nested in it. A module imports another when it
//! names a path into it: `crate::…`, `super::…`, `self::…`, or a path starting with
//! one of its own child modules, in a `use` tree or anywhere in the code. The longest
//! prefix of the path that names a module is the imported module. Comments (doc
//! comments and their intra-doc links included), string and character literals are
//! not code and make no edge; a child module is not imported by its parent's `mod`
//! declaration, only by a path.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`""` for the crate root, `a::b` otherwise) to the modules it imports.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// A token of Rust source, with comments and literals already dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The tokens of `src` that matter for paths: identifiers, `::`, punctuation.
fn tokens(src: &str) -> Vec<Tok> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            // Block comments nest in Rust.
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || (next == Some('#') && raw_string_at(&chars, i)))
        {
            // A raw string r"…" or r#"…"#.
            let mut hashes = 0;
            i += 1;
            while chars.get(i) == Some(&'#') {
                hashes += 1;
                i += 1;
            }
            i += 1;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && is_ident_char(chars[i]) {
                    i += 1;
                }
            }
        } else if is_ident_char(c) && !c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
            out.push(Tok::Ident(chars[start..i].iter().collect()));
        } else if c == ':' && next == Some(':') {
            out.push(Tok::PathSep);
            i += 2;
        } else if c.is_ascii_digit() {
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
        } else {
            if !c.is_whitespace() {
                out.push(Tok::Punct(c));
            }
            i += 1;
        }
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Whether `r#` at `i` opens a raw string (`r#"`, `r##"`) rather than a raw
/// identifier (`r#type`).
fn raw_string_at(chars: &[char], i: usize) -> bool {
    let mut k = i + 1;
    while chars.get(k) == Some(&'#') {
        k += 1;
    }
    chars.get(k) == Some(&'"')
}

fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_string()
    } else {
        format!("{parent}::{child}")
    }
}

fn parent_of(module: &str) -> Option<String> {
    if module.is_empty() {
        return None;
    }
    Some(
        module
            .rsplit_once("::")
            .map_or(String::new(), |(p, _)| p.to_string()),
    )
}

/// The module path of a file, relative to `src/`.
fn module_of_file(relative: &Path) -> String {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().unwrap_or_default();
    let stem = file.trim_end_matches(".rs");
    if !(parts.is_empty() && (stem == "lib" || stem == "main")) && stem != "mod" {
        parts.push(stem.to_string());
    }
    parts.join("::")
}

/// The tokens of one file with the module each token belongs to (inline
/// `mod name { .. }` blocks open nested modules).
fn scoped_tokens(file_module: &str, src: &str) -> Vec<(String, Tok)> {
    let toks = tokens(src);
    let mut scopes: Vec<(String, usize)> = vec![(file_module.to_string(), 0)];
    let mut depth = 0;
    let mut out = Vec::new();
    for (k, tok) in toks.iter().enumerate() {
        let current = scopes.last().map(|(m, _)| m.clone()).unwrap_or_default();
        match tok {
            Tok::Punct('{') => {
                depth += 1;
                if let (Some(Tok::Ident(name)), Some(Tok::Ident(kw))) = (
                    k.checked_sub(1).map(|j| &toks[j]),
                    k.checked_sub(2).map(|j| &toks[j]),
                ) && kw == "mod"
                {
                    scopes.push((join(&current, name), depth));
                    continue;
                }
            }
            Tok::Punct('}') => {
                if scopes.len() > 1 && scopes.last().is_some_and(|(_, d)| *d == depth) {
                    scopes.pop();
                }
                depth -= 1;
            }
            _ => {}
        }
        out.push((current, tok.clone()));
    }
    out
}

/// The paths of a `use` tree starting at `toks[0]`, up to its `;`; returns them and
/// the number of tokens read.
fn use_paths(toks: &[(String, Tok)]) -> (Vec<Vec<String>>, usize) {
    fn tree(
        toks: &[(String, Tok)],
        mut k: usize,
        prefix: &[String],
        out: &mut Vec<Vec<String>>,
    ) -> usize {
        let mut path: Vec<String> = prefix.to_vec();
        while k < toks.len() {
            match &toks[k].1 {
                Tok::Ident(s) if s == "as" => {
                    // `as name` renames; the path is already complete.
                    k += 2;
                    out.push(path.clone());
                    return k;
                }
                // `{self, ..}` names the prefix itself.
                Tok::Ident(s) if s == "self" && !path.is_empty() => k += 1,
                Tok::Ident(s) => {
                    path.push(s.clone());
                    k += 1;
                }
                Tok::PathSep => k += 1,
                Tok::Punct('*') => k += 1,
                Tok::Punct('{') => {
                    k += 1;
                    loop {
                        match toks.get(k).map(|t| &t.1) {
                            Some(Tok::Punct('}')) => return k + 1,
                            Some(Tok::Punct(',')) => k += 1,
                            None => return k,
                            Some(_) => k = tree(toks, k, &path, out),
                        }
                    }
                }
                _ => break,
            }
        }
        out.push(path);
        k
    }
    let mut out = Vec::new();
    let end = tree(toks, 0, &[], &mut out);
    (out, end)
}

/// The module `path`, named in `current`, leads to (`None`: outside the crate).
fn resolve(current: &str, path: &[String], modules: &BTreeSet<String>) -> Option<String> {
    let mut base = current.to_string();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            base = String::new();
            rest = &path[1..];
        }
        Some("super") | Some("self") => {
            while let Some(first) = rest.first() {
                match first.as_str() {
                    "super" => base = parent_of(&base)?,
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        Some(first) if modules.contains(&join(current, first)) => {}
        _ => return None,
    }
    let mut target = base.clone();
    for segment in rest {
        let deeper = join(&target, segment);
        if modules.contains(&deeper) {
            target = deeper;
        } else {
            break;
        }
    }
    Some(target)
}

/// The module graph of a crate given as (file path relative to `src/`, source).
fn graph_of(files: &[(PathBuf, String)]) -> Graph {
    let scoped: Vec<Vec<(String, Tok)>> = files
        .iter()
        .map(|(path, src)| scoped_tokens(&module_of_file(path), src))
        .collect();
    let modules: BTreeSet<String> = files
        .iter()
        .map(|(path, _)| module_of_file(path))
        .chain(scoped.iter().flatten().map(|(m, _)| m.clone()))
        .collect();
    let mut graph: Graph = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for toks in &scoped {
        let mut k = 0;
        while k < toks.len() {
            let (current, tok) = &toks[k];
            let after_sep_or_dollar =
                k > 0 && matches!(toks[k - 1].1, Tok::PathSep | Tok::Punct('$'));
            let mut paths = Vec::new();
            match tok {
                Tok::Ident(kw) if kw == "use" => {
                    let (found, read) = use_paths(&toks[k + 1..]);
                    paths = found;
                    k += read;
                }
                Tok::Ident(_)
                    if !after_sep_or_dollar
                        && toks.get(k + 1).is_some_and(|t| t.1 == Tok::PathSep) =>
                {
                    let mut path = Vec::new();
                    while let Some((_, Tok::Ident(s))) = toks.get(k) {
                        path.push(s.clone());
                        if toks.get(k + 1).is_some_and(|t| t.1 == Tok::PathSep) {
                            k += 2;
                        } else {
                            break;
                        }
                    }
                    paths.push(path);
                }
                _ => {}
            }
            for path in paths {
                if let Some(target) = resolve(current, &path, &modules)
                    && &target != current
                {
                    graph.entry(current.clone()).or_default().insert(target);
                }
            }
            k += 1;
        }
    }
    graph
}

/// Every `.rs` file under `dir`, relative to it.
fn rust_files(dir: &Path, under: &Path, out: &mut Vec<(PathBuf, String)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir.join(under))
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.join(under).display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for entry in entries {
        let name = entry.file_name().expect("a file name").to_owned();
        let relative = under.join(&name);
        if entry.is_dir() {
            rust_files(dir, &relative, out);
        } else if entry.extension().is_some_and(|e| e == "rs") {
            let src = std::fs::read_to_string(&entry).expect("a readable source file");
            out.push((relative, src));
        }
    }
}

/// The module graph of the crate in `crate_dir` (relative to the workspace root).
/// A library's root is `src/lib.rs`, a binary's `src/main.rs`; where a crate has
/// both, `main.rs` (and `src/bin/`) is another crate, so the graph is the library's.
fn crate_graph(crate_dir: &str) -> Graph {
    let src = workspace_root().join(crate_dir).join("src");
    let mut files = Vec::new();
    rust_files(&src, Path::new(""), &mut files);
    if src.join("lib.rs").is_file() {
        files.retain(|(path, _)| path != Path::new("main.rs") && !path.starts_with("bin"));
    }
    graph_of(&files)
}

pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The members of the workspace, as the root `Cargo.toml` lists them
/// (`members = [..]`; a `dir/*` entry stands for every crate directory in `dir`).
pub(crate) fn workspace_members() -> Vec<String> {
    let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml"))
        .expect("the workspace's Cargo.toml");
    let at = manifest
        .find("members")
        .expect("a members list in the workspace's Cargo.toml");
    let list = &manifest[at..];
    let list = &list[list.find('[').expect("members = [")..];
    let list = &list[1..list.find(']').expect("the end of the members list")];
    let mut members = Vec::new();
    for entry in list.split(',') {
        let entry = entry.trim().trim_matches('"');
        if entry.is_empty() {
            continue;
        }
        if let Some(dir) = entry.strip_suffix("/*") {
            let mut found: Vec<String> = std::fs::read_dir(workspace_root().join(dir))
                .expect("a members directory")
                .map(|e| e.expect("a directory entry").path())
                .filter(|p| p.join("Cargo.toml").is_file())
                .map(|p| format!("{dir}/{}", p.file_name().expect("a name").to_string_lossy()))
                .collect();
            found.sort();
            members.extend(found);
        } else {
            members.push(entry.to_string());
        }
    }
    members
}

/// The strongly connected components of `graph` with more than one module (Tarjan),
/// each with the shortest cycle through its first module.
fn cycles(graph: &Graph) -> Vec<(Vec<String>, Vec<String>)> {
    struct Tarjan<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        components: Vec<Vec<String>>,
    }
    impl<'g> Tarjan<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.reverse();
                    self.components.push(component);
                }
            }
        }
    }
    let mut t = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.components
        .into_iter()
        .map(|c| {
            let cycle = cycle_in(graph, &c);
            (c, cycle)
        })
        .collect()
}

/// One cycle through the first module of a strongly connected `component`, as a
/// path that returns to its start (breadth-first, so the shortest such cycle).
fn cycle_in(graph: &Graph, component: &[String]) -> Vec<String> {
    let inside: BTreeSet<&String> = component.iter().collect();
    let start = &component[0];
    let mut parent: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in graph.get(v).into_iter().flatten() {
            if !inside.contains(w) {
                continue;
            }
            if w == start {
                let mut path = vec![start.clone()];
                let mut at = v;
                while at != start {
                    path.push(at.clone());
                    at = parent[at];
                }
                path.push(start.clone());
                path.reverse();
                return path;
            }
            if !parent.contains_key(w) {
                parent.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    component.to_vec()
}

fn name(module: &str) -> &str {
    if module.is_empty() {
        "(crate root)"
    } else {
        module
    }
}

/// The cycles of `graph`, each named with every import among its modules; empty
/// when the graph is acyclic.
fn describe_cycles(graph: &Graph) -> Vec<String> {
    cycles(graph)
        .iter()
        .map(|(members, cycle)| {
            let within: Vec<String> = members
                .iter()
                .flat_map(|m| {
                    graph[m]
                        .iter()
                        .filter(|t| members.contains(t))
                        .map(move |t| format!("{} -> {}", name(m), name(t)))
                })
                .collect();
            format!(
                "cycle {}\n    (all imports among these modules: {})",
                cycle
                    .iter()
                    .map(|m| name(m))
                    .collect::<Vec<_>>()
                    .join(" -> "),
                within.join(", ")
            )
        })
        .collect()
}

fn assert_acyclic(krate: &str, graph: &Graph) {
    let shown = describe_cycles(graph);
    assert!(
        shown.is_empty(),
        "{krate}: modules import each other in cycles:\n  {}",
        shown.join("\n  ")
    );
}

/// The cycles [`cycles`] reports, without their components.
fn only_cycles(graph: &Graph) -> Vec<Vec<String>> {
    cycles(graph).into_iter().map(|(_, cycle)| cycle).collect()
}

fn edges(graph: &Graph) -> usize {
    graph.values().map(BTreeSet::len).sum()
}

fn has_edge(graph: &Graph, from: &str, to: &str) -> bool {
    graph.get(from).is_some_and(|t| t.contains(to))
}

#[test]
fn analysis_has_no_import_cycles() {
    let graph = crate_graph("analysis");
    // Not vacuous: the graph holds the modules and the imports it should.
    assert!(graph.len() > 25 && edges(&graph) > 40, "{graph:#?}");
    assert!(has_edge(&graph, "engine", "transfer"), "{graph:#?}");
    assert!(has_edge(&graph, "llvm", "llvm::branch"), "{graph:#?}");
    assert!(has_edge(&graph, "popl::tests", "uniformity"), "{graph:#?}");
    assert_acyclic("analysis", &graph);
}

#[test]
fn interp_has_no_import_cycles() {
    let graph = crate_graph("interp");
    assert!(graph.len() > 5 && edges(&graph) > 5, "{graph:#?}");
    assert_acyclic("interp", &graph);
}

/// Every member of the workspace, read from the root `Cargo.toml`, has an acyclic
/// module graph; the failure names the cycles of every crate that has some.
#[test]
fn every_workspace_member_has_no_import_cycles() {
    let members = workspace_members();
    // Not vacuous: the members list is read, and holds the crates checked above.
    assert!(
        members.len() >= 7
            && ["analysis", "interp", "semantics", "cli"]
                .iter()
                .all(|m| members.iter().any(|n| n == m)),
        "{members:?}"
    );
    let mut failures = Vec::new();
    for krate in &members {
        let graph = crate_graph(krate);
        assert!(!graph.is_empty(), "{krate}: no modules read");
        let shown = describe_cycles(&graph);
        if !shown.is_empty() {
            failures.push(format!("{krate}:\n  {}", shown.join("\n  ")));
        }
    }
    assert!(
        failures.is_empty(),
        "modules import each other in cycles:\n{}",
        failures.join("\n")
    );
}

#[test]
fn a_binary_crates_root_is_main_rs() {
    let graph = check(&[
        ("main.rs", "mod a; mod b; fn main() { a::f(); }"),
        ("a.rs", "pub fn f() { crate::b::g(); }"),
        ("b.rs", "pub fn g() {}"),
    ]);
    assert!(cycles(&graph).is_empty(), "{graph:#?}");
    assert!(
        has_edge(&graph, "", "a") && has_edge(&graph, "a", "b"),
        "{graph:#?}"
    );
}

fn check(files: &[(&str, &str)]) -> Graph {
    let files: Vec<(PathBuf, String)> = files
        .iter()
        .map(|(p, s)| (PathBuf::from(p), s.to_string()))
        .collect();
    graph_of(&files)
}

#[test]
fn a_cycle_of_three_is_found_and_named() {
    let graph = check(&[
        ("lib.rs", "mod a; mod b; mod c;"),
        ("a.rs", "use crate::b::Thing;"),
        ("b.rs", "fn f() { crate::c::g(); }"),
        ("c.rs", "use crate::{a, d as e};"),
    ]);
    assert_eq!(only_cycles(&graph), vec![vec!["a", "b", "c", "a"]]);
}

#[test]
fn a_cycle_through_nested_modules_and_super_is_found() {
    let graph = check(&[
        ("lib.rs", "mod x;"),
        ("x/mod.rs", "mod y; use y::Y;"),
        ("x/y.rs", "mod z { use super::super::X; }"),
        // x::y::z imports x, which imports x::y: no cycle, as x::y does not import
        // x::y::z. Adding x::y -> x closes one.
    ]);
    assert!(cycles(&graph).is_empty(), "{graph:#?}");
    assert!(has_edge(&graph, "x", "x::y") && has_edge(&graph, "x::y::z", "x"));
    let graph = check(&[
        ("lib.rs", "mod x;"),
        ("x/mod.rs", "mod y; pub(crate) use self::y::Y; struct X;"),
        ("x/y.rs", "pub struct Y(super::X);"),
    ]);
    assert_eq!(only_cycles(&graph), vec![vec!["x", "x::y", "x"]]);
}

#[test]
fn comments_strings_and_foreign_paths_make_no_edge() {
    let graph = check(&[
        ("lib.rs", "mod a; mod b;"),
        (
            "a.rs",
            "//! See [`crate::b`].\n/* crate::b::f() /* nested */ crate::b */\n\
             fn f() -> &'static str { let _c = 'x'; \"crate::b::g\" }\n\
             fn g() { other_crate::b::h(); r#\"crate::b\"#; }",
        ),
        ("b.rs", "use crate::a::f;"),
    ]);
    assert!(cycles(&graph).is_empty(), "{graph:#?}");
    assert_eq!(edges(&graph), 1, "{graph:#?}");
}

#[test]
fn the_crate_root_is_a_module_like_any_other() {
    let graph = check(&[
        ("lib.rs", "mod a; pub use a::A; pub struct Shared;"),
        ("a.rs", "use crate::Shared; pub struct A;"),
    ]);
    assert_eq!(only_cycles(&graph), vec![vec!["", "a", ""]]);
}
/// The table of `crate`'s module graph in ARCHITECTURE.md (between
/// `<!-- module-graph: crate -->` and `<!-- /module-graph -->`): module to imports.
fn documented_graph(krate: &str) -> Graph {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path).expect("ARCHITECTURE.md");
    let start = format!("<!-- module-graph: {krate} -->");
    let from = text
        .find(&start)
        .unwrap_or_else(|| panic!("no {start} in ARCHITECTURE.md"));
    let rest = &text[from + start.len()..];
    let table = &rest[..rest.find("<!-- /module-graph -->").expect("the end marker")];
    let mut graph = Graph::new();
    for line in table.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let module = cells[1].trim_matches('`');
        let module = if module == "(crate root)" { "" } else { module };
        let imports: BTreeSet<String> = cells[2]
            .split(',')
            .map(|t| t.trim().trim_matches('`'))
            .filter(|t| !t.is_empty() && *t != "-")
            .map(|t| {
                if t == "(crate root)" {
                    String::new()
                } else {
                    t.to_string()
                }
            })
            .collect();
        graph.insert(module.to_string(), imports);
    }
    graph
}

/// The markdown table of `graph` as ARCHITECTURE.md holds it.
fn table_of(graph: &Graph) -> String {
    let mut out = String::from("| module | imports |\n| --- | --- |\n");
    for (module, imports) in graph {
        let shown: Vec<String> = imports.iter().map(|t| format!("`{}`", name(t))).collect();
        let shown = if shown.is_empty() {
            "-".to_string()
        } else {
            shown.join(", ")
        };
        out.push_str(&format!("| `{}` | {shown} |\n", name(module)));
    }
    out
}

/// Replaces the text between `krate`'s module-graph markers in ARCHITECTURE.md
/// by `table`. The tests of every crate rewrite the one file, in threads of one
/// process or (under nextest) in processes of their own: an exclusive lock on the
/// file makes each read-modify-write whole, so no table overwrites another.
fn rewrite_table(krate: &str, table: &str) {
    use std::io::{Read as _, Seek as _, Write as _};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ARCHITECTURE.md");
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .expect("open ARCHITECTURE.md");
    file.lock().expect("lock ARCHITECTURE.md");
    let mut text = String::new();
    file.read_to_string(&mut text)
        .expect("read ARCHITECTURE.md");
    let start = format!("<!-- module-graph: {krate} -->\n");
    let from = text.find(&start).expect("the start marker") + start.len();
    let to = from
        + text[from..]
            .find("<!-- /module-graph -->")
            .expect("the end marker");
    let updated = format!("{}{}{}", &text[..from], table, &text[to..]);
    file.set_len(0).expect("truncate ARCHITECTURE.md");
    file.rewind().expect("rewind ARCHITECTURE.md");
    file.write_all(updated.as_bytes())
        .expect("write ARCHITECTURE.md");
    // The lock ends with the file handle.
}

/// ARCHITECTURE.md's table of `krate`'s modules equals the graph of its sources.
/// With `UPDATE_ARCHITECTURE_MD=1` the table is rewritten from the sources
/// instead (the prose around it is the reader's to keep true).
fn assert_documented(krate: &str) {
    // Unit-test modules (`mod tests`) are left out of the document.
    let real: Graph = crate_graph(krate)
        .into_iter()
        .filter(|(m, _)| !m.ends_with("tests"))
        .collect();
    if std::env::var_os("UPDATE_ARCHITECTURE_MD").is_some() {
        rewrite_table(krate, &table_of(&real));
    }
    let documented = documented_graph(krate);
    let show = |g: &Graph| {
        g.iter()
            .map(|(m, t)| format!("{} -> {:?}", name(m), t))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        show(&documented),
        show(&real),
        "ARCHITECTURE.md's module table of {krate} differs from the sources \
         (regenerate: UPDATE_ARCHITECTURE_MD=1 cargo test -p pllvm-analysis --test analysis \
         module_graph::)"
    );
}

#[test]
fn architecture_md_shows_the_module_graph_of_analysis() {
    assert_documented("analysis");
}

#[test]
fn architecture_md_shows_the_module_graph_of_interp() {
    assert_documented("interp");
}

#[test]
fn architecture_md_shows_the_module_graph_of_semantics() {
    assert_documented("semantics");
}

#[test]
fn architecture_md_shows_the_module_graph_of_the_other_crates() {
    for krate in ["codegen", "differential", "fuzz", "corpus", "proofs", "cli"] {
        assert_documented(krate);
    }
}
