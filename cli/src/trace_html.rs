//! `pllvm run FILE --trace html`: the trace of a run as one self-contained HTML
//! page that steps through the execution of the thread array, a block at a time.
//!
//! Each step is one trace row ([`TraceRow`]) shown as thesis Fig. 4.5b lays it
//! out: the scheduled block ℓ_sc, then per lane its control state before the
//! block (ℓ_in, ℓ_next), the three masks of Def. 6 (control mask cmsk, predicate
//! mask pmsk with ⊤, active mask amsk = cmsk ∧ pmsk) as lane rows, the successor
//! indices i, the rules the step applied and the values the block wrote. The CFG
//! is drawn by Graphviz ([`crate::graphviz::svg`]) from the divergence analysis's
//! DOT ([`render::dot`], thesis Fig. 7.2 colours: divergent branches, sync and
//! temporal joins); the page's script highlights ℓ_sc and puts lane badges on the
//! blocks the lanes' ℓ_next name.
//!
//! The page embeds the trace as one JSON object (schema [`SCHEMA`]) in a
//! `<script type="application/json" id="trace-data">` element and renders from
//! it; it loads nothing (no network, fonts or images: inline CSS, script and
//! SVG only). Per-step data are compact: masks are strings of `0`/`1` (`⊤` in
//! pmsk), control locations are indices into the block list.

use crate::graphviz;
use pllvm_analysis::render;
use pllvm_analysis::result::{AnalysisKind, InitShapes, Uniformity};
use pllvm_analysis::uniformity::analyze_for_width;
use pllvm_interp::trace::TraceRow;
use pllvm_semantics::ir::{Block, Body, FuncId, Module};
use pllvm_semantics::rules::{Next, Succ};
use serde_json::json;
use std::collections::HashMap;
use std::io::Write;

/// The version of the JSON object the page embeds: it changes when a field is
/// renamed or removed or its meaning changes, not when a field is added.
pub(crate) const SCHEMA: &str = "pllvm-trace-html/1";

/// The page template: `{{TITLE}}`, `{{SVG}}` and `{{DATA}}` are filled in.
const TEMPLATE: &str = include_str!("trace_html/page.html");

/// What the page shows: the run's program, its trace and its outcome.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Run<'a> {
    /// The module that ran.
    pub module: &'a Module,
    /// The function that ran.
    pub func: FuncId,
    /// The file name as the user gave it.
    pub file: &'a str,
    /// The interpretation, `FR` or `OBL` (thesis §4.5).
    pub interp: &'a str,
    /// W, the number of lanes.
    pub width: usize,
    /// The trace rows kept (`Machine::trace`): all rows, or with `omitted > 0`
    /// the first rows and the latest.
    pub rows: &'a [TraceRow],
    /// Rows that ran between the first rows and the latest one and were not kept
    /// (`--trace-limit`).
    pub omitted: u64,
    /// The outcome: `text` (its `Display`), and `result` / `undefined` when the
    /// run has them (as in `run --json`).
    pub outcome: &'a serde_json::Value,
}

/// Writes the page of `run` to `out`, the trace a row at a time (the host
/// never holds the page, only the trace and one row's text); the error says
/// why it could not be drawn (Graphviz's `dot` missing or failing) or written.
pub(crate) fn write_page(run: &Run<'_>, out: &mut dyn Write) -> Result<(), String> {
    let body = run.module.functions[run.func]
        .body
        .as_ref()
        .ok_or_else(|| "the function has no body to draw".to_string())?;
    let mut size = graphviz::Size::default();
    size.add(body);
    if let Some(why) = size.refusal() {
        return Err(format!(
            "{}: @{}: {why}; the trace is in `--trace json` and the CFG in `pllvm analyze FILE --dot`",
            run.file, run.module.functions[run.func].name
        ));
    }
    let analysis = thesis_analysis(run.module, run.func, run.width);
    let dot = match &analysis {
        Ok(r) => render::dot(run.module, r),
        Err(_) => plain_dot(body),
    };
    let svg = inline_svg(&graphviz::svg(&dot, run.file)?);
    fill(&title(run), &svg, out, &mut |out| {
        write_data(run, body, analysis.as_ref(), out)
    })
    .and_then(|()| out.flush())
    .map_err(|e| format!("writing the page: {e}"))
}

/// [`write_page`] into a string.
#[cfg(test)]
pub(crate) fn page(run: &Run<'_>) -> Result<String, String> {
    let mut out = Vec::new();
    write_page(run, &mut out)?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// The thesis divergence analysis (Ch. 6) of `func` for W lanes, with the
/// parameters as `pllvm analyze` takes them by default (varying, except the
/// arguments of a GPU kernel); the error names why it could not run (e.g.
/// irreducible control flow).
fn thesis_analysis(module: &Module, func: FuncId, width: usize) -> Result<Uniformity, String> {
    let init = InitShapes::for_function(module, func, &[]).map_err(|e| e.to_string())?;
    let width = u32::try_from(width).ok();
    analyze_for_width(module, func, AnalysisKind::Thesis, &init, width).map_err(|e| e.to_string())
}

/// The CFG as Graphviz text without analysis colours, for a function the
/// analysis cannot handle.
fn plain_dot(body: &Body) -> String {
    let mut s = String::from("digraph cfg {\n  node [shape=box, fontname=\"monospace\"];\n");
    for &b in &body.layout {
        s.push_str(&format!("  {};\n", render::dot_id(&body.blocks[b].name)));
    }
    for &b in &body.layout {
        for (k, t) in body.successors(b).into_iter().enumerate() {
            s.push_str(&format!(
                "  {} -> {} [label=\"{k}\"];\n",
                render::dot_id(&body.blocks[b].name),
                render::dot_id(&body.blocks[t].name)
            ));
        }
    }
    s.push_str("}\n");
    s
}

/// Graphviz's `<svg>` made fit to sit inline in HTML: the namespace
/// declarations (URLs, though nothing is fetched) are not needed there and go.
fn inline_svg(svg: &str) -> String {
    svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "")
        .replace(" xmlns:xlink=\"http://www.w3.org/1999/xlink\"", "")
}

/// The page's title: function, file, W and interpretation.
fn title(run: &Run<'_>) -> String {
    format!(
        "pllvm trace: @{} of {} (W = {}, {})",
        run.module.functions[run.func].name, run.file, run.width, run.interp
    )
}

/// Writes the template with its holes filled in one pass (a hole's text is
/// never read as a hole): the title HTML-escaped, the SVG as it is, the data
/// by `data`.
fn fill(
    title: &str,
    svg: &str,
    out: &mut dyn Write,
    data: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let title = escape_html(title);
    let mut rest = TEMPLATE;
    while let Some(at) = rest.find("{{") {
        out.write_all(&rest.as_bytes()[..at])?;
        let (hole, after) = rest[at + 2..]
            .split_once("}}")
            .unwrap_or((&rest[at + 2..], ""));
        match hole {
            "TITLE" => out.write_all(title.as_bytes())?,
            "SVG" => out.write_all(svg.as_bytes())?,
            "DATA" => data(out)?,
            _ => out.write_all(&rest.as_bytes()[at..rest.len() - after.len()])?,
        }
        rest = after;
    }
    out.write_all(rest.as_bytes())
}

/// JSON text made safe inside a `<script>` element: every `<` written as
/// `\u003c` (it only occurs inside JSON strings), so no `</script>` closes it.
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// `text` with `&`, `<`, `>` and `"` escaped for HTML.
fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Writes the object the page embeds (schema [`SCHEMA`]): the block names, the
/// analysis's colouring, one entry per kept row and the outcome.
///
/// A row is `{n, sc, in, next, c, p, a, i, w, r}`: the step number (1-based;
/// after omitted rows the latest row keeps its own number), ℓ_sc as a block
/// index, ℓ_in per lane (a block index, −1 for ⊥), ℓ_next per lane (a block
/// index, −1 for ⊤, −2 for □: terminated), cmsk, pmsk and amsk as strings with
/// one character per lane (`1`, `0`, `⊤`), i per lane (an index, −1 for ⊤,
/// −2 for □), the writes `[[name, [lane values]]]` and the index of the step's
/// rule names in `rule_sets` (a run repeats a few sets of rules). A lane
/// vector whose lanes are all equal (a uniform ℓ_in, ℓ_next, i or value, the
/// common case) is written once, as a single number or string, not an array.
fn write_data(
    run: &Run<'_>,
    body: &Body,
    analysis: Result<&Uniformity, &String>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let index: HashMap<Block, i64> = body
        .layout
        .iter()
        .enumerate()
        .map(|(k, &b)| (b, k as i64))
        .collect();
    let block = |b: Block| index.get(&b).copied().unwrap_or(-1);
    let blocks: Vec<&str> = body
        .layout
        .iter()
        .map(|&b| body.blocks[b].name.as_str())
        .collect();
    let names = |set: &mut dyn Iterator<Item = Block>| -> Vec<String> {
        set.map(|b| body.blocks[b].name.clone()).collect()
    };
    let analysis = match analysis {
        Ok(r) => json!({
            "name": "thesis",
            "divergent_branches": names(&mut r.divergent_branches(body).into_iter()),
            "sync_joins": names(&mut body.layout.iter().copied().filter(|b| r.sync_joins.contains(b))),
            "temporal_joins": names(&mut body.layout.iter().copied().filter(|b| r.temporal_joins.contains(b))),
            "divergent_loops": names(&mut body.layout.iter().copied().filter(|b| r.divergent_loops.contains(b))),
        }),
        Err(why) => json!({ "name": null, "why": why }),
    };
    let kept = run.rows.len() as u64;
    let head = json!({
        "schema": SCHEMA,
        "function": run.module.functions[run.func].name,
        "file": run.file,
        "threads": run.width,
        "interp": run.interp,
        "blocks": blocks,
        "analysis": analysis,
        "steps": kept + run.omitted,
        "omitted": run.omitted,
        "outcome": run.outcome,
    })
    .to_string();
    // The head's fields, then the rows one at a time, then the rule sets.
    let head = head.strip_suffix('}').unwrap_or(&head);
    out.write_all(script_safe(head).as_bytes())?;
    out.write_all(b",\"rows\":[")?;
    // The distinct rule sets, in order of first use; a row names its set's index.
    let mut rule_sets: Vec<Vec<&str>> = Vec::new();
    for (k, row) in run.rows.iter().enumerate() {
        let last = k + 1 == run.rows.len();
        let n = k as u64 + 1 + if last { run.omitted } else { 0 };
        let names = row.rules.names();
        let set = match rule_sets.iter().position(|s| *s == names) {
            Some(at) => at,
            None => {
                rule_sets.push(names);
                rule_sets.len() - 1
            }
        };
        if k > 0 {
            out.write_all(b",")?;
        }
        let text = row_json(run, body, row, n, set, &block).to_string();
        out.write_all(script_safe(&text).as_bytes())?;
    }
    let sets = script_safe(&json!(rule_sets).to_string());
    write!(out, "],\"rule_sets\":{sets}}}")
}

/// One trace row in the compact form of [`write_data`].
fn row_json(
    run: &Run<'_>,
    body: &Body,
    row: &TraceRow,
    n: u64,
    rule_set: usize,
    block: &dyn Fn(Block) -> i64,
) -> serde_json::Value {
    let mask = |m: &[bool]| -> String { m.iter().map(|&b| if b { '1' } else { '0' }).collect() };
    let pmask: String = row
        .pmask
        .iter()
        .map(|p| match p {
            Some(true) => '1',
            Some(false) => '0',
            None => '⊤',
        })
        .collect();
    let incoming: Vec<i64> = row.incoming.iter().map(|b| b.map_or(-1, block)).collect();
    let incoming = lanes(incoming);
    let next: Vec<i64> = row
        .next
        .iter()
        .map(|n| match n {
            Next::Block(b) => block(*b),
            Next::Any => -1,
            Next::Done(_) => -2,
        })
        .collect();
    let next = lanes(next);
    let succ: Vec<i64> = row
        .succ
        .iter()
        .map(|s| match s {
            Succ::Index(i) => *i as i64,
            Succ::Any => -1,
            Succ::Ret(_) => -2,
        })
        .collect();
    let succ = lanes(succ);
    let written: Vec<serde_json::Value> = row
        .written
        .iter()
        .flatten()
        .map(|(v, vals)| {
            let width = body
                .values
                .get(*v)
                .and_then(|d| run.module.types.int_width(d.ty));
            let lanes: Vec<String> = vals
                .iter()
                .map(|val| match width {
                    Some(w) => pllvm_semantics::value::display_signed(val, w),
                    None => val.to_string(),
                })
                .collect();
            json!([
                format!("%{}", body.value_name(*v).unwrap_or("?")),
                self::lanes(lanes)
            ])
        })
        .collect();
    json!({
        "n": n,
        "sc": block(row.scheduled),
        "in": incoming,
        "next": next,
        "c": mask(&row.cmask),
        "p": pmask,
        "a": mask(&row.active),
        "i": succ,
        "w": written,
        "r": rule_set,
    })
}

/// A lane vector in the compact form of [`write_data`]: one value when every lane has
/// it, the array otherwise.
fn lanes<T: PartialEq + Into<serde_json::Value>>(mut values: Vec<T>) -> serde_json::Value {
    let uniform = values.windows(2).all(|w| w[0] == w[1]);
    match values.pop() {
        Some(one) if uniform => one.into(),
        last => {
            values.extend(last);
            serde_json::Value::Array(values.into_iter().map(Into::into).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pllvm_interp::{Machine, RunConfig};

    /// Fig. 4.5's program (corpus/semantics/fig4.5-control-mechanics.ll), run on
    /// its schedule with `x = [0, 1]`, and its page.
    fn fig45_page() -> String {
        let src = include_str!("../../corpus/semantics/fig4.5-control-mechanics.ll");
        let (module, _) = pllvm_semantics::text::parse_module(src).expect("parses");
        let mut config = RunConfig {
            threads: 2,
            ..RunConfig::default()
        };
        config.add_arg("x=0,1").expect("an argument");
        let mut machine = Machine::new(&module, &config).expect("sets up");
        machine.record_trace = true;
        machine.record_writes = true;
        let schedule: Vec<String> = "A,B,C,D,E".split(',').map(String::from).collect();
        let outcome = machine.run_schedule(&schedule).expect("runs");
        let outcome = json!({ "text": outcome.to_string(), "result": machine.result_text() });
        page(&Run {
            module: &module,
            func: machine.program.func,
            file: "fig4.5.ll",
            interp: "FR",
            width: 2,
            rows: &machine.trace,
            omitted: 0,
            outcome: &outcome,
        })
        .expect("Graphviz's dot is installed")
    }

    /// The JSON object between the page's `<script type="application/json">` tags.
    fn embedded(page: &str) -> serde_json::Value {
        let open = "<script type=\"application/json\" id=\"trace-data\">";
        let start = page.find(open).expect("the data element") + open.len();
        let len = page[start..].find("</script>").expect("closed");
        serde_json::from_str(&page[start..start + len]).expect("valid JSON")
    }

    #[test]
    fn the_page_embeds_fig45s_trace_as_json() {
        let data = embedded(&fig45_page());
        assert_eq!(data["schema"], SCHEMA);
        assert_eq!(data["blocks"], json!(["A", "B", "C", "D", "E"]));
        let rows = data["rows"].as_array().expect("rows");
        // Fig. 4.5b: sc, cmask and amask of each step; B is step 2 with in = A A,
        // next = B C.
        let sc: Vec<i64> = rows.iter().map(|r| r["sc"].as_i64().unwrap()).collect();
        assert_eq!(sc, [0, 1, 2, 3, 4]);
        let cmask: Vec<&str> = rows.iter().map(|r| r["c"].as_str().unwrap()).collect();
        assert_eq!(cmask, ["11", "10", "01", "01", "11"]);
        assert_eq!(rows[1]["in"], json!(0), "uniform: written once");
        assert_eq!(rows[1]["next"], json!([1, 2]));
        assert_eq!(rows[0]["in"], json!(-1));
        assert_eq!(rows[4]["i"], json!(-2));
        assert_eq!(rows[0]["i"], json!([0, 1]));
        assert_eq!(rows[0]["w"], json!([["%p", ["1", "0"]]]));
        assert!(
            data["rule_sets"][rows[0]["r"].as_u64().unwrap() as usize]
                .as_array()
                .unwrap()
                .contains(&json!("PC-ACTIVE"))
        );
        // The thesis analysis: A's branch on the varying %x diverges.
        assert_eq!(data["analysis"]["name"], "thesis");
        assert!(
            data["analysis"]["divergent_branches"]
                .as_array()
                .unwrap()
                .contains(&json!("A"))
        );
        assert_eq!(data["outcome"]["result"], "[1, 3]");
    }

    #[test]
    fn the_page_is_self_contained() {
        let page = fig45_page();
        assert!(page.starts_with("<!DOCTYPE html>"));
        for outside in ["http://", "https://", " src=", "@import", "url("] {
            assert!(!page.contains(outside), "the page refers to {outside}");
        }
        // The thesis analysis's colours: A's divergent branch has a red border.
        assert!(page.contains("stroke=\"red\""));
        // The CFG is inline: one node group per block, found by its title.
        assert!(page.contains("<svg"));
        for b in ["A", "B", "C", "D", "E"] {
            assert!(page.contains(&format!("<title>{b}</title>")), "{b}");
        }
    }

    #[test]
    fn top_is_shown_as_top_and_markup_in_names_stays_text() {
        // An OBL run of a passive lane leaves ⊤ in a variable (thesis §4.5).
        let src = "define i32 @f(i32 %x) {\nA:\n  %p = icmp eq i32 %x, 0\n  br i1 %p, label %B, label %E\nB:\n  %y = add i32 %x, 1\n  br label %E\nE:\n  ret i32 %x\n}\n";
        let (module, _) = pllvm_semantics::text::parse_module(src).expect("parses");
        let mut config = RunConfig {
            threads: 2,
            interp: pllvm_semantics::rules::Interp::Oblivious,
            ..RunConfig::default()
        };
        config.add_arg("x=0,1").expect("an argument");
        let mut machine = Machine::new(&module, &config).expect("sets up");
        machine.record_trace = true;
        machine.record_writes = true;
        machine.run_to_end().expect("runs");
        let outcome = json!({ "text": "</script><b>x</b>" });
        let html = page(&Run {
            module: &module,
            func: machine.program.func,
            file: "{{DATA}}<top>.ll",
            interp: "OBL",
            width: 2,
            rows: &machine.trace,
            omitted: 0,
            outcome: &outcome,
        })
        .expect("Graphviz's dot is installed");
        assert!(!html.contains("</script><b>"));
        // The file name is the title's text, and a hole's name in it stays text.
        assert!(
            html.contains("<title>pllvm trace: @f of {{DATA}}&lt;top&gt;.ll (W = 2, OBL)</title>")
        );
        let data = embedded(&html);
        assert_eq!(data["outcome"]["text"], "</script><b>x</b>");
        let writes: Vec<&serde_json::Value> = data["rows"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["w"].as_array().unwrap())
            .collect();
        assert!(
            writes.contains(&&json!(["%y", ["1", "⊤"]])),
            "lane 1 is passive in B under OBL: {writes:?}"
        );
    }

    #[test]
    fn an_irreducible_cfg_is_drawn_without_colours_and_says_why() {
        // a and b form a cycle entered at both: no analysis of thesis Ch. 6-7.
        let src = "define i32 @f(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\na:\n  br i1 %c, label %b, label %exit\nb:\n  br i1 %c, label %a, label %exit\nexit:\n  ret i32 0\n}\n";
        let (module, _) = pllvm_semantics::text::parse_module(src).expect("parses");
        let func = module.function_by_name("f").expect("@f");
        let outcome = json!({ "text": "returned" });
        let html = page(&Run {
            module: &module,
            func,
            file: "irreducible.ll",
            interp: "FR",
            width: 2,
            rows: &[],
            omitted: 0,
            outcome: &outcome,
        })
        .expect("Graphviz's dot is installed");
        let data = embedded(&html);
        assert_eq!(data["analysis"]["name"], serde_json::Value::Null);
        let why = data["analysis"]["why"].as_str().expect("why");
        assert!(why.contains("irreducible"), "{why}");
        assert_eq!(data["rows"], json!([]));
        for b in ["entry", "a", "b", "exit"] {
            assert!(html.contains(&format!("<title>{b}</title>")), "{b}");
        }
        // No red border of a divergent branch (Fig. 4.5's page has one, on A).
        assert!(!html.contains("stroke=\"red\""), "no analysis colours");
    }
}
