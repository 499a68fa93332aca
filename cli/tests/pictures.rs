//! The pictures (docs/analyses.md and docs/transforms.md, "Pictures"): `pllvm analyze
//! --svg` (the annotated CFG, thesis Fig. 7.2 colouring), `pllvm explore --dot`/`--svg`
//! (the explored states of the greedy schedules, Def. 12, and their outcomes) and
//! `pllvm transform --svg` (the CFG before and after a transform), on corpus files. The
//! SVGs are laid out by Graphviz's `dot`, which these tests require.

use crate::common;
use common::{code, corpus, pllvm, require, stderr, stdout, temp_file};

/// One element of an SVG document: its name, attributes (raw text) and children,
/// with the text directly inside it.
#[derive(Debug)]
struct Element {
    name: String,
    attrs: String,
    text: String,
    children: Vec<Element>,
}

impl Element {
    /// Every element below (and including) this one, depth first.
    fn all(&self) -> Vec<&Element> {
        let mut out = vec![self];
        for c in &self.children {
            out.extend(c.all());
        }
        out
    }

    /// The value of attribute `name`.
    fn attr(&self, name: &str) -> Option<&str> {
        let key = format!(" {name}=\"");
        let start = format!(" {}", self.attrs).find(&key)? + key.len() - 1;
        let rest = &self.attrs[start..];
        rest.find('"').map(|end| &rest[..end])
    }
}

/// Parses `text` as one XML document (after an optional declaration, DOCTYPE
/// and comments): exactly one root element, every element closed in order,
/// nothing but white space after the root. Panics with what is wrong.
fn parse_xml(text: &str) -> Element {
    let mut stack: Vec<Element> = vec![Element {
        name: "#document".into(),
        attrs: String::new(),
        text: String::new(),
        children: Vec::new(),
    }];
    let mut rest = text;
    while let Some(lt) = rest.find('<') {
        let before = &rest[..lt];
        if stack.len() == 1 {
            assert!(
                before.trim().is_empty(),
                "text outside the root: {before:?}"
            );
        }
        stack.last_mut().expect("document").text.push_str(before);
        rest = &rest[lt..];
        let (end_mark, skip) = if rest.starts_with("<!--") {
            ("-->", true)
        } else if rest.starts_with("<?") || rest.starts_with("<!") {
            (">", true)
        } else {
            (">", false)
        };
        let end = rest
            .find(end_mark)
            .unwrap_or_else(|| panic!("unclosed markup at {:?}", &rest[..rest.len().min(40)]));
        let tag = &rest[1..end];
        rest = &rest[end + end_mark.len()..];
        if skip {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let done = stack.pop().expect("an open element");
            assert_eq!(done.name, name.trim(), "</{name}> closes <{}>", done.name);
            assert!(!stack.is_empty(), "</{name}> without an open element");
            stack.last_mut().expect("parent").children.push(done);
            continue;
        }
        let closed = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let (name, attrs) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
        let element = Element {
            name: name.to_string(),
            attrs: attrs.split_whitespace().collect::<Vec<_>>().join(" "),
            text: String::new(),
            children: Vec::new(),
        };
        if closed {
            stack.last_mut().expect("parent").children.push(element);
        } else {
            stack.push(element);
        }
    }
    assert!(rest.trim().is_empty(), "text after the root: {rest:?}");
    assert_eq!(stack.len(), 1, "unclosed elements: {:?}", {
        stack.iter().map(|e| e.name.clone()).collect::<Vec<_>>()
    });
    let mut document = stack.pop().expect("document");
    assert_eq!(document.children.len(), 1, "not exactly one root element");
    document.children.pop().expect("root")
}

/// The SVG node groups (`<g class="node">`) by their `<title>`, with the
/// group's elements.
fn nodes(svg: &Element) -> Vec<(String, &Element)> {
    svg.all()
        .into_iter()
        .filter(|e| e.name == "g" && e.attr("class") == Some("node"))
        .filter_map(|g| {
            let title = g.children.iter().find(|c| c.name == "title")?;
            Some((unescape(&title.text), g))
        })
        .collect()
}

/// Undoes the entity escapes Graphviz writes in text.
fn unescape(s: &str) -> String {
    s.replace("&#45;", "-")
        .replace("&gt;", ">")
        .replace("&lt;", "<")
        .replace("&amp;", "&")
        .replace("&quot;", "\"")
}

/// The node titled `title`, or a panic listing the titles there are.
fn node<'a>(all: &'a [(String, &'a Element)], title: &str) -> &'a Element {
    all.iter()
        .find(|(t, _)| t == title)
        .map(|(_, g)| *g)
        .unwrap_or_else(|| {
            panic!(
                "no node {title}: {:?}",
                all.iter().map(|(t, _)| t).collect::<Vec<_>>()
            )
        })
}

/// The stroke and fill of a node's box.
fn paint(g: &Element) -> (String, String) {
    let shape = g
        .children
        .iter()
        .find(|c| c.name == "polygon" || c.name == "path" || c.name == "ellipse")
        .expect("a node has a shape");
    (
        shape.attr("stroke").unwrap_or("").to_string(),
        shape.attr("fill").unwrap_or("").to_string(),
    )
}

/// The text lines drawn in a node.
fn texts(g: &Element) -> Vec<String> {
    g.children
        .iter()
        .filter(|c| c.name == "text")
        .map(|c| unescape(&c.text))
        .collect()
}

/// What `pllvm analyze --json` says of one (function, analysis).
struct Facts {
    function: String,
    analysis: String,
    /// Every block, in layout order.
    blocks: Vec<String>,
    /// Blocks whose terminator is varying.
    divergent: Vec<String>,
    temporal_joins: Vec<String>,
}

/// `pllvm analyze --json`'s facts for every function and analysis.
fn analysis_facts(file: &str, extra: &[&str]) -> Vec<Facts> {
    let mut args = vec!["analyze", file, "--json"];
    args.extend(extra);
    let out = pllvm(&args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let names = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .expect("array")
            .iter()
            .map(|e| {
                e.as_str().map_or_else(
                    || e["name"].as_str().expect("name").to_string(),
                    str::to_string,
                )
            })
            .collect()
    };
    let mut out = Vec::new();
    for f in json["functions"].as_array().expect("functions") {
        for a in f["analyses"].as_array().expect("analyses") {
            let divergent: Vec<String> = a["terminators"]
                .as_array()
                .expect("terminators")
                .iter()
                .filter(|t| t["shape"] == "varying")
                .map(|t| t["name"].as_str().expect("name").to_string())
                .collect();
            out.push(Facts {
                function: f["function"].as_str().expect("function").to_string(),
                analysis: a["analysis"].as_str().expect("analysis").to_string(),
                blocks: names(&a["activation"]),
                divergent,
                temporal_joins: names(&a["temporal_joins"]),
            });
        }
    }
    out
}

#[test]
fn analyze_svg_draws_every_analysis_of_every_block_with_the_divergence_colours() {
    require("dot", "graphviz");
    for (file, extra) in [
        (corpus("transforms/dlt-logstar.ll"), vec![]),
        (corpus("semantics/fig4.5-control-mechanics.ll"), vec![]),
        (
            corpus("divergence/fig6.11a-store-varying-value.ll"),
            vec!["--analysis", "thesis,popl"],
        ),
    ] {
        let mut args = vec!["analyze", file.as_str(), "--svg"];
        args.extend(&extra);
        let out = pllvm(&args);
        assert_eq!(code(&out), 0, "{file}: {}", stderr(&out));
        let svg = parse_xml(&stdout(&out));
        assert_eq!(svg.name, "svg", "{file}");
        let all = nodes(&svg);
        let facts = analysis_facts(&file, &extra);
        assert!(!facts.is_empty());
        let mut divergent_seen = 0;
        for Facts {
            function,
            analysis,
            blocks,
            divergent,
            temporal_joins: temporal,
        } in &facts
        {
            for b in blocks {
                let g = node(&all, &format!("@{function}/{analysis}/{b}"));
                assert_eq!(
                    texts(g).first(),
                    Some(b),
                    "{file}: the node is labelled {b}"
                );
                let (stroke, fill) = paint(g);
                assert_eq!(
                    stroke == "red",
                    divergent.contains(b),
                    "{file} {analysis}: {b} is drawn {stroke}, divergent branches {divergent:?}"
                );
                divergent_seen += usize::from(stroke == "red");
                if temporal.contains(b) {
                    assert_eq!(fill, "orange", "{file} {analysis}: temporal join {b}");
                }
            }
        }
        // The legend names each colour once.
        let legend: Vec<String> = all
            .iter()
            .filter(|(t, _)| t.starts_with("legend"))
            .flat_map(|(_, g)| texts(g))
            .collect();
        assert!(
            legend.iter().any(|t| t.contains("divergent branch")),
            "{legend:?}"
        );
        assert!(
            legend.iter().any(|t| t.contains("temporal join")),
            "{legend:?}"
        );
        if file.ends_with("dlt-logstar.ll") {
            // B's loop exit branch is divergent under every analysis, C a temporal join.
            assert_eq!(divergent_seen, facts.len(), "{file}");
            assert_eq!(paint(node(&all, "@logstar/thesis/C")).1, "orange");
        }
    }
}

#[test]
fn analyze_svg_refuses_other_formats_and_reports_parse_errors_at_their_position() {
    for other in ["--json", "--dot", "--summary", "--compare-llvm"] {
        let out = pllvm(&[
            "analyze",
            &corpus("transforms/dlt-logstar.ll"),
            "--svg",
            other,
        ]);
        assert_eq!(code(&out), 2, "{other}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("cannot be used with"),
            "{}",
            stderr(&out)
        );
    }
    let file = temp_file("broken.ll", "define i32 @f() {\nA:\n  ret i32 %nope\n}\n");
    for args in [
        vec!["analyze", file.as_str(), "--svg"],
        vec!["transform", file.as_str(), "--pass", "dlt", "--svg"],
        vec!["explore", file.as_str(), "--dot"],
    ] {
        let out = pllvm(&args);
        assert_eq!(code(&out), 1, "{args:?}");
        assert!(
            stderr(&out).starts_with(&format!("{file}:3:")),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(stdout(&out).is_empty(), "{args:?}");
    }
}

/// Two lanes part at A and store different values to @g in B and C: the order
/// of B and C decides @g, so the greedy schedules end in two outcomes.
const RACE: &str = "@g = global i32 0

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %z = icmp eq i32 %t, 0
  br i1 %z, label %B, label %C
B:
  store i32 1, ptr @g
  br label %D
C:
  store i32 2, ptr @g
  br label %D
D:
  %v = load i32, ptr @g
  ret i32 %v
}
";

/// The number after `prefix` on the line of `report` that starts with it.
fn count_after(report: &str, prefix: &str) -> usize {
    report
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.trim_end_matches(',').parse().ok())
        .unwrap_or_else(|| panic!("no '{prefix}' in {report}"))
}

/// The `"FROM" -> "TO" [label="L"...]` edges of a DOT text.
fn dot_edges(dot: &str) -> Vec<(String, String, String)> {
    dot.lines()
        .filter_map(|l| {
            let (from, rest) = l.trim().split_once(" -> ")?;
            let (to, attrs) = rest.split_once(" [label=\"")?;
            let label = attrs.split('"').next()?;
            Some((
                from.trim_matches('"').to_string(),
                to.trim_matches('"').to_string(),
                label.to_string(),
            ))
        })
        .collect()
}

#[test]
fn explore_dot_has_a_node_per_state_and_outcome_and_edges_named_by_blocks() {
    let race = temp_file("race.ll", RACE);
    let fig45 = corpus("semantics/fig4.5-control-mechanics.ll");
    for (file, args, blocks) in [
        (race.as_str(), vec!["-w", "2"], vec!["A", "B", "C", "D"]),
        (
            fig45.as_str(),
            vec!["-w", "2", "--arg", "x=0,1"],
            vec!["A", "B", "C", "D", "E"],
        ),
        (
            fig45.as_str(),
            vec!["-w", "2"],
            vec!["A", "B", "C", "D", "E"],
        ),
    ] {
        let mut report_args = vec!["explore", file];
        report_args.extend(&args);
        let report = stdout(&pllvm(&report_args));
        let mut dot_args = report_args.clone();
        dot_args.push("--dot");
        let out = pllvm(&dot_args);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let dot = stdout(&out);
        assert!(
            dot.starts_with("digraph") && dot.trim_end().ends_with('}'),
            "{dot}"
        );
        let states = count_after(&report, "explored ");
        let outcomes = count_after(&report, "outcomes: ");
        let transitions = report
            .lines()
            .next()
            .and_then(|l| l.split(", ").nth(1))
            .and_then(|t| t.split_whitespace().next())
            .and_then(|n| n.parse::<usize>().ok())
            .expect("transitions");
        let node_count = |prefix: &str| {
            dot.lines()
                .filter(|l| {
                    l.trim_start().starts_with(&format!("\"{prefix}")) && !l.contains(" -> ")
                })
                .count()
        };
        assert_eq!(node_count("s"), states, "{file}: {dot}");
        assert_eq!(node_count("o"), outcomes, "{file}: {dot}");
        let edges = dot_edges(&dot);
        // Every transition followed is an edge named by its block, and every
        // returned state leads to an outcome.
        let by_block: Vec<_> = edges
            .iter()
            .filter(|e| blocks.contains(&e.2.as_str()))
            .collect();
        assert_eq!(by_block.len(), transitions, "{file}: {dot}");
        for k in 0..outcomes {
            assert!(
                edges.iter().any(|e| e.1 == format!("o{k}")),
                "{file}: o{k} unreached"
            );
        }
        for e in &edges {
            assert!(
                blocks.contains(&e.2.as_str()) || e.2 == "returned" || e.2 == "blocked",
                "{file}: edge {e:?}"
            );
        }
    }
    // The race: two outcomes, @g = 1 and @g = 2, after B,C and C,B.
    let dot = stdout(&pllvm(&["explore", &race, "-w", "2", "--dot"]));
    assert!(
        dot.contains("@g = [1]") && dot.contains("@g = [2]"),
        "{dot}"
    );
    assert!(
        dot.contains("Cnb: {B, C}") || dot.contains("Cnb: {C, B}"),
        "{dot}"
    );
}

#[test]
fn explore_dot_cut_by_max_states_says_so_and_exits_3() {
    let fig45 = corpus("semantics/fig4.5-control-mechanics.ll");
    let out = pllvm(&[
        "explore",
        &fig45,
        "-w",
        "2",
        "--arg",
        "x=0,1",
        "--max-states",
        "3",
        "--dot",
    ]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let dot = stdout(&out);
    assert!(dot.contains("truncated: more than 3 states"), "{dot}");
    let cuts: Vec<_> = dot_edges(&dot)
        .into_iter()
        .filter(|e| e.1 == "cut0")
        .collect();
    assert!(!cuts.is_empty(), "{dot}");
    assert!(
        dot.contains(
            "\"cut0\" [shape=octagon, style=dashed, label=\"not explored: more than 3 states\"]"
        ),
        "{dot}"
    );
}

#[test]
fn explore_svg_is_one_document_with_the_states_and_outcomes() {
    require("dot", "graphviz");
    let race = temp_file("race.ll", RACE);
    let out = pllvm(&["explore", &race, "-w", "2", "--svg"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let svg = parse_xml(&stdout(&out));
    let all = nodes(&svg);
    let titles: Vec<&str> = all.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        titles.iter().filter(|t| t.starts_with('o')).count(),
        2,
        "{titles:?}"
    );
    assert_eq!(
        titles.iter().filter(|t| t.starts_with('s')).count(),
        8,
        "{titles:?}"
    );
    assert_eq!(paint(node(&all, "o0")).1, "palegreen");
}

#[test]
fn transform_svg_shows_the_cfg_before_and_after_with_added_blocks_marked() {
    require("dot", "graphviz");
    for (file, pass) in [
        (corpus("transforms/dlt-logstar.ll"), "dlt"),
        (corpus("transforms/pl-fig8.2-dag.ll"), "pl"),
    ] {
        let cfg = stdout(&pllvm(&["transform", &file, "--pass", pass, "--cfg"]));
        let after: Vec<String> = cfg
            .lines()
            .filter(|l| l.starts_with("  "))
            .filter_map(|l| l.trim().split([' ', '[']).next())
            .map(str::to_string)
            .collect();
        let before: Vec<String> = analysis_facts(&file, &["--analysis", "thesis"])[0]
            .blocks
            .clone();
        assert!(!after.is_empty() && !before.is_empty());
        let svg_file = temp_file("out.svg", "");
        let out = pllvm(&[
            "transform",
            &file,
            "--pass",
            pass,
            "--analysis",
            "thesis",
            "--svg",
            "-o",
            &svg_file,
        ]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(stdout(&out).is_empty());
        let svg = parse_xml(&std::fs::read_to_string(&svg_file).expect("the SVG was written"));
        let all = nodes(&svg);
        for b in &before {
            let lines = texts(node(&all, &format!("before/{b}")));
            assert_eq!(lines.first(), Some(b));
            assert_eq!(
                lines.iter().any(|l| l == "(removed)"),
                !after.contains(b),
                "{b}: {lines:?}"
            );
        }
        for b in &after {
            let lines = texts(node(&all, &format!("after/{b}")));
            assert_eq!(
                lines.iter().any(|l| l == "(added)"),
                !before.contains(b),
                "{b}: {lines:?}"
            );
        }
        // The title names the pass route; the original's divergent branch is red.
        let all_text: Vec<String> = svg
            .all()
            .iter()
            .filter(|e| e.name == "text")
            .map(|e| unescape(&e.text))
            .collect();
        assert!(
            all_text
                .iter()
                .any(|t| t.contains(&format!("--pass {pass}"))),
            "{all_text:?}"
        );
        assert!(
            all_text.iter().any(|t| t == &format!("after {pass}")),
            "{all_text:?}"
        );
        let divergent = &analysis_facts(&file, &["--analysis", "thesis"])[0].divergent;
        assert!(!divergent.is_empty(), "{file}");
        for b in divergent {
            assert_eq!(
                paint(node(&all, &format!("before/{b}"))).0,
                "red",
                "{file}: {b}"
            );
        }
    }
    // dlt adds blocks: the test above saw some.
    let cfg = stdout(&pllvm(&[
        "transform",
        &corpus("transforms/dlt-logstar.ll"),
        "--pass",
        "dlt",
        "--cfg",
    ]));
    assert!(cfg.contains("B.newh"), "{cfg}");
}

/// A chain of `n` diamonds branching on the parameter `%x`: `4n + 2` blocks.
fn diamonds(n: usize) -> String {
    let mut s =
        String::from("define i32 @f(i32 %x) {\ne:\n  %c = icmp slt i32 %x, 2\n  br label %h0\n");
    for i in 0..n {
        s += &format!(
            "h{i}:\n  br i1 %c, label %l{i}, label %r{i}\nl{i}:\n  br label %j{i}\nr{i}:\n  br label %j{i}\nj{i}:\n  br label %h{}\n",
            i + 1
        );
    }
    s + &format!("h{n}:\n  ret i32 %x\n}}\n")
}

#[test]
fn a_cfg_too_large_for_graphviz_is_refused_with_a_message() {
    // 1,002 blocks: over the limit of one picture; two analyses of 502 too.
    let big = temp_file("big.ll", diamonds(250));
    let half = temp_file("half.ll", diamonds(125));
    for args in [
        vec!["analyze", big.as_str(), "--analysis", "thesis", "--svg"],
        vec![
            "analyze",
            half.as_str(),
            "--analysis",
            "thesis,popl",
            "--svg",
        ],
        vec!["transform", big.as_str(), "--pass", "pl", "--svg"],
    ] {
        let out = pllvm(&args);
        assert_eq!(code(&out), 1, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("too large to draw"),
            "{}",
            stderr(&out)
        );
        assert!(stdout(&out).is_empty());
    }
    // `--dot` has no limit.
    let out = pllvm(&["analyze", &big, "--analysis", "thesis", "--dot"]);
    assert_eq!(code(&out), 0);
    assert_eq!(stdout(&out).matches(" -> ").count(), 250 * 5 + 1);
}

#[test]
fn explore_dot_greys_out_the_states_termination_preservation_rules_out() {
    // From the state after L the loop never ends though the schedule through C
    // does (§5.3): `explore` rules out the transition into it.
    let file = corpus("schedules/termination-doomed-loop.ll");
    let args = ["explore", file.as_str(), "-w", "2", "--arg", "x=0"];
    let report = stdout(&pllvm(&args));
    let pruned = count_after(&report, "termination preservation (§5.3) rules out ");
    let dot = stdout(&pllvm(&[&args[..], &["--dot"]].concat()));
    let off: Vec<&str> = dot
        .lines()
        .filter(|l| l.contains("no end reachable (§5.3)"))
        .collect();
    assert_eq!(off.len(), 1, "{dot}");
    assert!(off[0].contains("color=gray50"), "{dot}");
    let greyed = dot
        .lines()
        .filter(|l| l.contains(" -> ") && l.contains("color=gray50"))
        .count();
    // The ruled-out transitions, and the off-limits state's own loop.
    assert_eq!(greyed, pruned + 1, "{dot}");
}

/// `depth` ifs nested in one another on the thread id (as
/// `scripts/nested-cfg.py ifs DEPTH` writes them): `2 depth + 3` blocks, and
/// the edge `iK -> jK` spans `2 (depth - K)` ranks of the layout.
fn nested_ifs(depth: usize) -> String {
    let mut s = String::from(
        "define i32 @nested(i32 %n) {\nentry:\n  %tid = call i32 @pllvm.thread_id()\n  br label %i0\n",
    );
    for k in 0..depth {
        s += &format!(
            "i{k}:\n  %c{k} = icmp sgt i32 %tid, {k}\n  br i1 %c{k}, label %i{}, label %j{k}\n",
            k + 1
        );
    }
    s += &format!(
        "i{depth}:\n  %body = add i32 %n, 1\n  br label %j{}\n",
        depth - 1
    );
    let mut inner = "%body".to_string();
    for k in (0..depth).rev() {
        let from = if k + 1 == depth {
            format!("%i{depth}")
        } else {
            format!("%j{}", k + 1)
        };
        let next = if k == 0 {
            "exit".to_string()
        } else {
            format!("j{}", k - 1)
        };
        s += &format!(
            "j{k}:\n  %x{k} = phi i32 [ {inner}, {from} ], [ {k}, %i{k} ]\n  br label %{next}\n"
        );
        inner = format!("%x{k}");
    }
    s + &format!("exit:\n  ret i32 {inner}\n}}\n")
}

#[test]
fn nested_ifs_too_deep_for_graphviz_are_refused_at_once_naming_dot() {
    require("dot", "graphviz");
    // Depth 100: 203 blocks, far under the block bound, but Graphviz took over
    // five minutes on them; the refusal comes before `dot` runs.
    let deep = temp_file("nested-ifs-100.ll", nested_ifs(100));
    let out = pllvm(&["analyze", &deep, "--analysis", "thesis", "--svg"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("203 blocks whose edges cross 10000 ranks")
            && stderr(&out).contains("use --dot"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
    let page = temp_file("nested-ifs-100.html", "");
    let out = pllvm(&[
        "run",
        &deep,
        "--threads",
        "4",
        "--arg",
        "n=1",
        "--trace",
        "html",
        "-o",
        &page,
    ]);
    assert_ne!(code(&out), 0, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("too deeply nested to draw")
            && stderr(&out).contains("pllvm analyze FILE --dot"),
        "{}",
        stderr(&out)
    );
    let out = pllvm(&["transform", &deep, "--pass", "pl", "--svg"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("too deeply nested to draw"),
        "{}",
        stderr(&out)
    );
    // `--dot` has no bound; depth 20 (400 ranks crossed) is drawn.
    let out = pllvm(&["analyze", &deep, "--analysis", "thesis", "--dot"]);
    assert_eq!(code(&out), 0);
    assert_eq!(stdout(&out).matches(" -> ").count(), 3 * 100 + 2);
    let shallow = temp_file("nested-ifs-20.ll", nested_ifs(20));
    let out = pllvm(&["analyze", &shallow, "--analysis", "thesis", "--svg"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The blocks and the six samples of the legend.
    assert_eq!(nodes(&parse_xml(&stdout(&out))).len(), 2 * 20 + 3 + 6);
}

#[test]
fn block_names_with_backslashes_and_quotes_are_drawn_as_written() {
    require("dot", "graphviz");
    // `\5C` is a backslash and `\22` a quote in an LLVM quoted name.
    let src = temp_file(
        "backslash.ll",
        "define i32 @f(i32 %n) {\nentry:\n  %c = icmp sgt i32 %n, 0\n  br i1 %c, label %\"a\\5Cb\", label %\"c\\5C\"\n\
         \"a\\5Cb\":\n  br label %\"q\\22x\"\n\"c\\5C\":\n  br label %\"q\\22x\"\n\"q\\22x\":\n  ret i32 %n\n}\n",
    );
    let out = pllvm(&["analyze", &src, "--analysis", "thesis", "--svg"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let svg = parse_xml(&stdout(&out));
    let all = nodes(&svg);
    // The title is the DOT ID, whose backslashes are doubled; the label is
    // the name as written.
    for (title, label) in [
        ("@f/thesis/a\\\\b", "a\\b"),
        ("@f/thesis/c\\\\", "c\\"),
        ("@f/thesis/q\"x", "q\"x"),
    ] {
        let texts = texts(node(&all, title));
        assert_eq!(texts.first().map(String::as_str), Some(label), "{texts:?}");
    }
    let out = pllvm(&["transform", &src, "--pass", "pl", "--svg"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let page = temp_file("backslash.html", "");
    let out = pllvm(&[
        "run",
        &src,
        "--threads",
        "2",
        "--arg",
        "n=0,1",
        "--trace",
        "html",
        "-o",
        &page,
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).expect("the page was written");
    assert!(
        html.contains("<title>c\\\\</title>"),
        "the node of c\\ is drawn"
    );
}
