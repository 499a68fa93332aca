//! Output of the divergence analyses (`pllvm analyze`): the program annotated with
//! each value's, terminator's and block's shape (thesis §6.1 notation `x : s`,
//! Fig. 6.2), a JSON report, and a Graphviz picture of the CFG with divergent
//! branches, sync and temporal joins (thesis Fig. 7.2) and divergent loops.
//!
//! Every output is deterministic: blocks and values appear in layout order.

use crate::facts::CfgFacts;
use crate::postdom::PostDomTree;
use crate::reconverging::check_reconverging;
use crate::result::Uniformity;
use crate::shape::Shape;
use pllvm_semantics::ir::{Block, Body, FuncId, InstKind, Module, Value};
use pllvm_semantics::text;
use serde::Serialize;

/// The annotation of one shape for several analyses: the word when they agree,
/// `thesis: …, popl: …` when they do not.
fn annotation(shapes: &[(&str, Shape)]) -> String {
    let words: Vec<(&str, String)> = shapes
        .iter()
        .map(|(n, s)| (*n, s.word().to_string()))
        .collect();
    annotation_words(&words)
}

/// [`annotation`] over words (the `sa` analysis writes `stride(4) align(16)`).
fn annotation_words(words: &[(&str, String)]) -> String {
    let first = words.first().map(|s| &s.1);
    if words.iter().all(|s| Some(&s.1) == first) {
        first.cloned().unwrap_or_default()
    } else {
        words
            .iter()
            .map(|(n, s)| format!("{n}: {s}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The word for `value` under `r`: its stride-alignment shape (thesis Fig. 10.4)
/// for `sa`, its basic shape otherwise.
fn value_word(r: &Uniformity, value: Value) -> String {
    match r.strides.get(&value) {
        Some(s) => s.word(),
        None => r.values[value].word().to_string(),
    }
}

/// Appends `; note` to `line`, aligned at column 44.
fn with_comment(line: &str, note: &str) -> String {
    if note.is_empty() {
        return line.to_string();
    }
    let width = line.chars().count();
    let pad = if width < 44 { 44 - width } else { 1 };
    format!("{line}{}; {note}", " ".repeat(pad))
}

/// The block's tags: activation, and whether it is a sync join, a temporal join or
/// the header of a divergent loop (per analysis when they disagree).
fn block_note(results: &[&Uniformity], b: Block) -> String {
    let mut parts = vec![format!(
        "activation {}",
        annotation(
            &results
                .iter()
                .map(|r| (r.analysis.name(), r.activation[b]))
                .collect::<Vec<_>>()
        )
    )];
    let tag = |name: &str, has: &dyn Fn(&Uniformity) -> bool| -> Option<String> {
        let which: Vec<&str> = results
            .iter()
            .filter(|r| has(r))
            .map(|r| r.analysis.name())
            .collect();
        if which.is_empty() {
            None
        } else if which.len() == results.len() {
            Some(name.to_string())
        } else {
            Some(format!("{name} ({})", which.join(", ")))
        }
    };
    parts.extend(tag("sync join", &|r| r.sync_joins.contains(&b)));
    parts.extend(tag("temporal join", &|r| r.temporal_joins.contains(&b)));
    parts.extend(tag("divergent loop", &|r| r.divergent_loops.contains(&b)));
    parts.join(", ")
}

/// The function of `results` printed canonically, each line annotated with the
/// shapes all `results` give it (one analysis, or several side by side).
pub fn annotate(module: &Module, results: &[&Uniformity]) -> String {
    let Some(first) = results.first() else {
        return String::new();
    };
    let func = first.func;
    let Some(body) = module.functions[func].body.as_ref() else {
        return text::print_function(module, func);
    };
    let printed = text::print_function(module, func);
    let lines: Vec<&str> = printed.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut k = 0;
    // The header line.
    if let Some(h) = lines.first() {
        let params: Vec<String> = module.functions[func]
            .params
            .iter()
            .map(|p| {
                format!(
                    "{} {}",
                    text::print_value(module, body, p.value),
                    annotation_words(
                        &results
                            .iter()
                            .map(|r| (r.analysis.name(), value_word(r, p.value)))
                            .collect::<Vec<_>>()
                    )
                )
            })
            .collect();
        let names: Vec<&str> = results.iter().map(|r| r.analysis.name()).collect();
        out.push(format!(
            "; analysis: {}{}",
            names.join(", "),
            if params.is_empty() {
                String::new()
            } else {
                format!("; parameters: {}", params.join(", "))
            }
        ));
        out.push((*h).to_string());
        k = 1;
    }
    for (n, &b) in body.layout.iter().enumerate() {
        if n > 0 && lines.get(k).is_some_and(|l| l.is_empty()) {
            out.push(String::new());
            k += 1;
        }
        // The label.
        if let Some(l) = lines.get(k) {
            out.push(with_comment(l, &block_note(results, b)));
            k += 1;
        }
        let data = &body.blocks[b];
        if data.predicate.is_some()
            && let Some(l) = lines.get(k)
        {
            out.push((*l).to_string());
            k += 1;
        }
        for &i in data.phis.iter().chain(&data.body) {
            let Some(l) = lines.get(k) else { break };
            k += 1;
            let inst = &body.insts[i];
            let note = if matches!(inst.kind, InstKind::Alloca { .. }) {
                format!(
                    "object {}",
                    annotation(
                        &results
                            .iter()
                            .map(|r| (r.analysis.name(), r.inst(body, i)))
                            .collect::<Vec<_>>()
                    )
                )
            } else if let Some(v) = inst.result {
                annotation_words(
                    &results
                        .iter()
                        .map(|r| (r.analysis.name(), value_word(r, v)))
                        .collect::<Vec<_>>(),
                )
            } else {
                String::new()
            };
            out.push(with_comment(l, &note));
        }
        if let Some(l) = lines.get(k) {
            let note = if data.term.is_branch_on_value()
                || (data.predicate.is_some() && data.term.successors().len() > 1)
            {
                annotation(
                    &results
                        .iter()
                        .map(|r| (r.analysis.name(), r.terminators[b]))
                        .collect::<Vec<_>>(),
                )
            } else {
                String::new()
            };
            out.push(with_comment(l, &note));
            k += 1;
        }
    }
    for l in &lines[k.min(lines.len())..] {
        out.push((*l).to_string());
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// One named thing and its shape, for the JSON report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// `%x` for a value, the label for a block.
    pub name: String,
    /// The block it belongs to.
    pub block: String,
    /// Its shape.
    pub shape: Shape,
    /// `sa` only: its stride-alignment shape (thesis Fig. 10.4), e.g.
    /// `stride(4) align(16)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sa: Option<String>,
}

/// One analysis' result as plain data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AnalysisReport {
    /// `thesis` or `popl`.
    pub analysis: String,
    /// Parameters and instruction results.
    pub values: Vec<Entry>,
    /// Terminators (by block).
    pub terminators: Vec<Entry>,
    /// Block activations.
    pub activation: Vec<Entry>,
    /// Stack objects, by their `alloca`.
    pub allocas: Vec<Entry>,
    /// Loop exits: `varying` when temporally divergent.
    pub loop_exits: Vec<Entry>,
    /// `sdep*`.
    pub sync_joins: Vec<String>,
    /// `tdep*`.
    pub temporal_joins: Vec<String>,
    /// Headers of loops with a temporally divergent exit.
    pub divergent_loops: Vec<String>,
    /// Whether the CFG is reconverging (poster, Definition 1) under this analysis.
    pub reconverging: bool,
    /// Why not.
    pub reconverging_violations: Vec<String>,
}

/// The version of the JSON report's shape: [`ModuleReport::schema`]. It changes when a
/// field is renamed or removed or its meaning changes, not when a field is added.
/// Version 2: the document holds one report per function analysed
/// (`functions`); version 1 was the report of one function.
pub const REPORT_SCHEMA: &str = "pllvm-analyze/2";

/// The JSON document of `pllvm analyze --json`: the report of every function
/// analysed, in module order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModuleReport {
    /// [`REPORT_SCHEMA`]: which shape of document this is.
    pub schema: &'static str,
    /// One report per function.
    pub functions: Vec<Report>,
}

impl ModuleReport {
    /// The document of `functions`.
    pub fn new(functions: Vec<Report>) -> Self {
        ModuleReport {
            schema: REPORT_SCHEMA,
            functions,
        }
    }
}

/// The JSON report of one function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The function's name.
    pub function: String,
    /// One entry per analysis run.
    pub analyses: Vec<AnalysisReport>,
    /// Analyses asked for that did not run (one that assumes reducible control
    /// flow, on an irreducible function), set by the caller.
    pub not_analysed: Vec<String>,
}

/// The report of `results` (all for one function).
pub fn report(module: &Module, results: &[&Uniformity]) -> Report {
    let func = results.first().map_or(FuncId::from_u32(0), |r| r.func);
    let fdata = &module.functions[func];
    let mut analyses = Vec::new();
    if let Some(body) = fdata.body.as_ref() {
        let postdom = PostDomTree::compute(body);
        for r in results {
            analyses.push(analysis_report(module, body, &postdom, r));
        }
    }
    Report {
        function: fdata.name.clone(),
        analyses,
        not_analysed: Vec::new(),
    }
}

fn analysis_report(
    module: &Module,
    body: &Body,
    postdom: &PostDomTree,
    r: &Uniformity,
) -> AnalysisReport {
    let bname = |b: Block| body.blocks[b].name.clone();
    let mut values = Vec::new();
    let mut allocas = Vec::new();
    let func = &module.functions[r.func];
    let entry_name = body.entry().map(bname).unwrap_or_default();
    for p in &func.params {
        values.push(Entry {
            name: text::print_value(module, body, p.value),
            block: entry_name.clone(),
            shape: r.values[p.value],
            sa: r.strides.get(&p.value).map(|s| s.word()),
        });
    }
    let mut terminators = Vec::new();
    let mut activation = Vec::new();
    for &b in &body.layout {
        let data = &body.blocks[b];
        for &i in data.phis.iter().chain(&data.body) {
            let Some(v) = body.insts[i].result else {
                continue;
            };
            let entry = Entry {
                name: text::print_value(module, body, v),
                block: bname(b),
                shape: r.inst(body, i),
                sa: None,
            };
            if matches!(body.insts[i].kind, InstKind::Alloca { .. }) {
                allocas.push(entry.clone());
            }
            values.push(Entry {
                shape: r.values[v],
                sa: r.strides.get(&v).map(|s| s.word()),
                ..entry
            });
        }
        terminators.push(Entry {
            name: bname(b),
            block: bname(b),
            shape: r.terminators[b],
            sa: None,
        });
        activation.push(Entry {
            name: bname(b),
            block: bname(b),
            shape: r.activation[b],
            sa: None,
        });
    }
    let violations = check_reconverging(body, postdom, r);
    AnalysisReport {
        analysis: r.analysis.name().to_string(),
        values,
        terminators,
        activation,
        allocas,
        loop_exits: r
            .loop_exits
            .iter()
            .map(|(&b, &s)| Entry {
                name: bname(b),
                block: bname(b),
                shape: s,
                sa: None,
            })
            .collect(),
        sync_joins: r.sync_joins.iter().map(|&b| bname(b)).collect(),
        temporal_joins: r.temporal_joins.iter().map(|&b| bname(b)).collect(),
        divergent_loops: r.divergent_loops.iter().map(|&b| bname(b)).collect(),
        reconverging: violations.is_empty(),
        reconverging_violations: violations.iter().map(|v| v.message(body)).collect(),
    }
}

/// Quotes `name` as a Graphviz ID that stands for exactly that text: any name
/// LLVM allows (a quoted name holds any character, `%"a\5Cb"` a backslash),
/// so the DOT text stays well formed and a label shows the name as written.
/// Inside a quoted ID only `\"` is an escape, and a label reads `\\` as one
/// backslash (Graphviz's "DOT language" and "escString"); the ID of a node
/// keeps the doubled backslash (it is the SVG `<title>`).
pub fn dot_id(name: &str) -> String {
    format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
}

/// `text` escaped to sit inside a quoted Graphviz label next to escapes of the
/// caller's (`\n`, `\l`): backslashes doubled, quotes escaped, a line break
/// written `\n`.
pub fn dot_text(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The fill of a sync join (`sdep*`, thesis Fig. 7.2) in the CFG drawings.
pub const SYNC_JOIN_FILL: &str = "lightblue";
/// The fill of a temporal join (`tdep*`, thesis Fig. 7.2).
pub const TEMPORAL_JOIN_FILL: &str = "orange";
/// The fill of the blocks of a loop with a temporally divergent exit.
pub const DIVERGENT_LOOP_FILL: &str = "pink";
/// The border (and out-edges) of a block whose terminator is divergent: a
/// divergent branch.
pub const DIVERGENT_BRANCH_COLOR: &str = "red";

/// The CFG of `r`'s function as Graphviz text: divergent branches with a red
/// border, sync joins filled blue, temporal joins filled orange, the blocks of
/// divergent loops filled pink, blocks with a varying activation drawn dashed,
/// back edges dashed (after thesis Fig. 7.2).
pub fn dot(module: &Module, r: &Uniformity) -> String {
    let fdata = &module.functions[r.func];
    let mut s = format!("digraph {} {{\n", dot_id(&fdata.name));
    s.push_str("  // red border: divergent terminator; blue: sync join (sdep*); orange: temporal join (tdep*);\n");
    s.push_str("  // pink: block of a loop with a temporally divergent exit; dashed box: varying activation\n");
    s.push_str("  node [shape=box, fontname=\"monospace\"];\n");
    s.push_str(&cfg_statements(
        module,
        r.func,
        Some(r),
        &ClusterMarks::default(),
        "  ",
    ));
    s.push_str("}\n");
    s
}

/// How [`dot_cluster`] marks a CFG inside a larger picture.
#[derive(Default)]
pub struct ClusterMarks<'a> {
    /// Put before every node id, so that several CFGs in one digraph keep their
    /// nodes apart (`@f/thesis/`); the label stays the block's name.
    pub prefix: &'a str,
    /// Per block name: a note shown under the name and the font colour it is
    /// drawn in (`pllvm transform --svg`: blocks a transform added or removed).
    pub notes: Vec<(String, &'static str, &'static str)>,
}

/// The CFG of `func` as a Graphviz cluster `subgraph cluster_NAME` labelled
/// `label`, to put with others in one digraph (`pllvm analyze --svg`, `pllvm
/// transform --svg`): coloured as [`dot`] does by `r` when given (thesis
/// Fig. 7.2), plain otherwise; node ids start with `marks.prefix`.
pub fn dot_cluster(
    module: &Module,
    func: FuncId,
    r: Option<&Uniformity>,
    name: &str,
    label: &str,
    marks: &ClusterMarks<'_>,
) -> String {
    let mut s = format!("  subgraph {} {{\n", dot_id(&format!("cluster_{name}")));
    s.push_str(&format!(
        "    label={}; labeljust=l; fontname=\"monospace\";\n",
        dot_id(label)
    ));
    s.push_str(&cfg_statements(module, func, r, marks, "    "));
    s.push_str("  }\n");
    s
}

/// A Graphviz cluster that says what the colours of [`dot`] and
/// [`dot_cluster`] mean, one sample node per mark, and the `extra` marks
/// (label, node attributes) of the caller.
pub fn dot_legend(extra: &[(&str, &str)]) -> String {
    let mut s = String::from(
        "  subgraph \"cluster_legend\" {\n    label=\"legend\"; labeljust=l; fontname=\"monospace\";\n",
    );
    let mut entries: Vec<(String, String)> = vec![
        (
            "divergent branch (varying terminator)".into(),
            format!("color={DIVERGENT_BRANCH_COLOR}, penwidth=2"),
        ),
        (
            "sync join (sdep*)".into(),
            format!("style=filled, fillcolor={SYNC_JOIN_FILL}"),
        ),
        (
            "temporal join (tdep*)".into(),
            format!("style=filled, fillcolor={TEMPORAL_JOIN_FILL}"),
        ),
        (
            "block of a divergent loop".into(),
            format!("style=filled, fillcolor={DIVERGENT_LOOP_FILL}"),
        ),
        ("varying activation".into(), "style=dashed".into()),
        ("back edge: dashed arrow".into(), String::new()),
    ];
    entries.extend(extra.iter().map(|(l, a)| (l.to_string(), a.to_string())));
    let ids: Vec<String> = (0..entries.len()).map(|k| format!("legend {k}")).collect();
    for ((label, attrs), id) in entries.iter().zip(&ids) {
        let sep = if attrs.is_empty() { "" } else { ", " };
        s.push_str(&format!(
            "    {} [label={}{sep}{attrs}];\n",
            dot_id(id),
            dot_id(label)
        ));
    }
    // Invisible edges stack the samples in one column.
    for pair in ids.windows(2) {
        s.push_str(&format!(
            "    {} -> {} [style=invis];\n",
            dot_id(&pair[0]),
            dot_id(&pair[1])
        ));
    }
    s.push_str("  }\n");
    s
}

/// The node and edge statements of `func`'s CFG, each line starting with
/// `indent`: coloured by `r` when given.
fn cfg_statements(
    module: &Module,
    func: FuncId,
    r: Option<&Uniformity>,
    marks: &ClusterMarks<'_>,
    indent: &str,
) -> String {
    let mut s = String::new();
    let Some(body) = module.functions[func].body.as_ref() else {
        return s;
    };
    let facts = CfgFacts::compute(body).ok();
    let in_divergent_loop = |r: &Uniformity, b: Block| {
        facts.as_ref().is_some_and(|f| {
            f.loops
                .ancestors(b)
                .into_iter()
                .any(|l| r.divergent_loops.contains(&f.loops.header(l)))
        })
    };
    let id = |b: Block| dot_id(&format!("{}{}", marks.prefix, body.blocks[b].name));
    for &b in &body.layout {
        let name = &body.blocks[b].name;
        let note = marks.notes.iter().find(|(n, _, _)| n == name);
        // The name and the values are the user's text; `\n` and `\l` are ours.
        let mut label = dot_text(name);
        if let Some((_, text, _)) = note {
            label.push_str(&format!("\\n({text})"));
        }
        let mut attrs = Vec::new();
        let mut styles = Vec::new();
        if let Some(r) = r {
            // `sa`: one line per integer or pointer value of the block with its
            // stride-alignment shape.
            let data = &body.blocks[b];
            let strided: String = data
                .phis
                .iter()
                .chain(&data.body)
                .filter_map(|&i| body.insts[i].result)
                .filter_map(|v| {
                    r.strides.get(&v).map(|s| {
                        let value = text::print_value(module, body, v);
                        format!("\\l{} : {}", dot_text(&value), dot_text(&s.to_string()))
                    })
                })
                .collect();
            label.push_str(&format!(
                "\\nactivation {}{strided}",
                r.activation[b].symbol()
            ));
            let fill = if r.sync_joins.contains(&b) {
                Some(SYNC_JOIN_FILL)
            } else if r.temporal_joins.contains(&b) {
                Some(TEMPORAL_JOIN_FILL)
            } else if in_divergent_loop(r, b) {
                Some(DIVERGENT_LOOP_FILL)
            } else {
                None
            };
            if let Some(f) = fill {
                styles.push("filled");
                attrs.push(format!("fillcolor={f}"));
            }
            if r.activation[b].is_varying() {
                styles.push("dashed");
            }
        }
        attrs.insert(0, format!("label=\"{label}\""));
        if !styles.is_empty() {
            attrs.push(format!("style={}", dot_id(&styles.join(","))));
        }
        if r.is_some_and(|r| r.terminators[b].is_varying()) {
            attrs.push(format!("color={DIVERGENT_BRANCH_COLOR}, penwidth=2"));
        }
        if let Some((_, _, colour)) = note {
            attrs.push(format!("fontcolor={colour}"));
        }
        s.push_str(&format!("{indent}{} [{}];\n", id(b), attrs.join(", ")));
    }
    for &b in &body.layout {
        for (k, t) in body.successors(b).into_iter().enumerate() {
            let back = facts.as_ref().is_some_and(|f| f.loops.is_back_edge(b, t));
            let mut attrs = vec![format!("label=\"{k}\"")];
            if back {
                attrs.push("style=dashed".into());
            }
            if r.is_some_and(|r| r.terminators[b].is_varying()) {
                attrs.push(format!("color={DIVERGENT_BRANCH_COLOR}"));
            }
            s.push_str(&format!(
                "{indent}{} -> {} [{}];\n",
                id(b),
                id(t),
                attrs.join(", ")
            ));
        }
    }
    s
}
