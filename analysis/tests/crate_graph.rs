//! The crate graph is the one ARCHITECTURE.md draws: every edge between the
//! workspace's crates that a `Cargo.toml` declares (normal and dev-dependencies)
//! is listed there, and every edge listed there is declared.
//!
//! The members are read from the root `Cargo.toml` (as the module-graph test
//! reads them), so a crate added later is
//! covered without changing this test; the edges are the `pllvm-*` entries of each
//! member's `[dependencies]` and `[dev-dependencies]` (the workspace's own crates
//! are only ever named so). ARCHITECTURE.md holds the graph between the markers
//! `<!-- crate-graph -->` and `<!-- /crate-graph -->`, one line per crate:
//! `NAME → DEP, DEP [dev: DEP, DEP]`, a parenthesized list of outside crates
//! allowed at the end.

use crate::module_graph::{workspace_members, workspace_root};
use std::collections::{BTreeMap, BTreeSet};

/// A crate (its folder name) to its normal and its dev edges.
type CrateGraph = BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>;

/// The workspace crates a member's manifest depends on: (normal, dev), as folder
/// names (`pllvm-interp` is the folder `interp`, the binary `pllvm` is `cli`).
fn declared_edges(manifest: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut normal = BTreeSet::new();
    let mut dev = BTreeSet::new();
    let mut section = String::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        let Some(name) = line.strip_prefix("pllvm-") else {
            continue;
        };
        let name: String = name
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        match section.as_str() {
            "[dependencies]" => normal.insert(name),
            "[dev-dependencies]" => dev.insert(name),
            _ => false,
        };
    }
    (normal, dev)
}

/// The graph the manifests declare.
fn declared_graph() -> CrateGraph {
    let root = workspace_root();
    workspace_members()
        .into_iter()
        .map(|m| {
            let text = std::fs::read_to_string(root.join(&m).join("Cargo.toml"))
                .unwrap_or_else(|e| panic!("{m}/Cargo.toml: {e}"));
            let edges = declared_edges(&text);
            (m, edges)
        })
        .collect()
}

/// The names of a comma-separated list, `-` for none.
fn names(list: &str) -> BTreeSet<String> {
    list.split(',')
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty() && n != "-")
        .collect()
}

/// The graph between the markers of `text`.
fn documented_graph(text: &str) -> Result<CrateGraph, String> {
    let start = text
        .find("<!-- crate-graph -->")
        .ok_or("ARCHITECTURE.md has no <!-- crate-graph --> marker")?;
    let end = text
        .find("<!-- /crate-graph -->")
        .ok_or("ARCHITECTURE.md has no <!-- /crate-graph --> marker")?;
    let mut graph = CrateGraph::new();
    for line in text[start..end].lines().skip(1) {
        let line = line.trim();
        if line.is_empty() || line.starts_with("```") {
            continue;
        }
        // Outside crates, in parentheses at the end, are not edges.
        let line = match line.find('(') {
            Some(i) => line[..i].trim(),
            None => line,
        };
        let (name, rest) = match line.split_once('→') {
            Some((n, r)) => (n.trim(), r.trim()),
            None => (line, ""),
        };
        let (normal, dev) = match rest.split_once("[dev:") {
            Some((n, d)) => (n, d.trim_end_matches(']')),
            None => (rest, ""),
        };
        let previous = graph.insert(name.to_string(), (names(normal), names(dev)));
        if previous.is_some() {
            return Err(format!("ARCHITECTURE.md lists {name} twice"));
        }
    }
    Ok(graph)
}

/// What differs between the declared and the documented graph, one line each.
fn differences(declared: &CrateGraph, documented: &CrateGraph) -> Vec<String> {
    let mut out = Vec::new();
    let crates: BTreeSet<&String> = declared.keys().chain(documented.keys()).collect();
    for c in crates {
        let (Some(d), Some(a)) = (declared.get(c), documented.get(c)) else {
            let missing = if declared.contains_key(c) {
                "is a member but ARCHITECTURE.md does not list it"
            } else {
                "is listed in ARCHITECTURE.md but is no member"
            };
            out.push(format!("crate {c} {missing}"));
            continue;
        };
        for (kind, decl, doc) in [("", &d.0, &a.0), ("dev ", &d.1, &a.1)] {
            for e in decl.difference(doc) {
                out.push(format!(
                    "{c} → {e}: a {kind}dependency ARCHITECTURE.md does not list"
                ));
            }
            for e in doc.difference(decl) {
                out.push(format!(
                    "{c} → {e}: listed as a {kind}dependency in ARCHITECTURE.md but not declared"
                ));
            }
        }
    }
    out
}

#[test]
fn architecture_md_lists_every_crate_edge_and_no_other() {
    let text =
        std::fs::read_to_string(workspace_root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let documented = documented_graph(&text).unwrap_or_else(|e| panic!("{e}"));
    let diff = differences(&declared_graph(), &documented);
    assert!(diff.is_empty(), "{}", diff.join("\n"));
}

#[test]
fn the_crate_graph_has_no_cycle() {
    let graph = declared_graph();
    // Depth-first search over normal and dev edges alike: a dev edge back into a
    // crate that depends on it would build that crate twice.
    fn visit(
        c: &str,
        graph: &CrateGraph,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == c) {
            return Some(path[i..].to_vec());
        }
        if done.contains(c) {
            return None;
        }
        path.push(c.to_string());
        if let Some((normal, dev)) = graph.get(c) {
            for d in normal.iter().chain(dev) {
                if let Some(cycle) = visit(d, graph, path, done) {
                    return Some(cycle);
                }
            }
        }
        path.pop();
        done.insert(c.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for c in graph.keys() {
        let cycle = visit(c, &graph, &mut Vec::new(), &mut done);
        assert!(cycle.is_none(), "crate cycle: {:?}", cycle);
    }
}

#[test]
fn an_undocumented_edge_and_a_stale_one_are_both_named() {
    let declared: CrateGraph = [
        ("a".to_string(), (names(""), names(""))),
        ("b".to_string(), (names("a"), names(""))),
    ]
    .into_iter()
    .collect();
    let documented = documented_graph(
        "<!-- crate-graph -->\n```text\na   (serde)\nb → -  [dev: a]\n```\n<!-- /crate-graph -->",
    )
    .expect("parses");
    assert_eq!(
        differences(&declared, &documented),
        vec![
            "b → a: a dependency ARCHITECTURE.md does not list".to_string(),
            "b → a: listed as a dev dependency in ARCHITECTURE.md but not declared".to_string(),
        ]
    );
}
