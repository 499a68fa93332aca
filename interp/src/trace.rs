//! Traces: one row per scheduled block with the control state before it ran, the
//! three masks, the successor indices and (optionally) the values written. Printed
//! as a text table laid out like thesis Fig. 4.5b (plus pmask / amask columns, as in
//! Fig. 4.6b) and as JSON.

use pllvm_semantics::ir::{Block, Body, Value};
use pllvm_semantics::rules::{Next, RuleSet, Succ};
use pllvm_semantics::types::TypeTable;
use pllvm_semantics::value::Val;
use serde_json::json;

/// One scheduled block.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceRow {
    /// ℓ_sc.
    pub scheduled: Block,
    /// ℓ_in^W before the block.
    pub incoming: Vec<Option<Block>>,
    /// ℓ_next^W before the block.
    pub next: Vec<Next>,
    /// cmsk^W.
    pub cmask: Vec<bool>,
    /// pmsk^W (`None`: predicate ⊤).
    pub pmask: Vec<Option<bool>>,
    /// amsk^W.
    pub active: Vec<bool>,
    /// i^W.
    pub succ: Vec<Succ>,
    /// Assignments, when recorded.
    pub written: Option<Vec<(Value, Vec<Val>)>>,
    /// The rules this step applied (`semantics/RULES.md`), as the rules'
    /// dispatchers recorded them ([`pllvm_semantics::rules::step::BlockStep::rules`]).
    pub rules: RuleSet,
}

fn block_name(body: &Body, b: Block) -> String {
    body.blocks
        .get(b)
        .map_or_else(|| format!("{b:?}"), |d| d.name.clone())
}

fn incoming_text(body: &Body, b: &Option<Block>) -> String {
    b.map_or_else(|| "⊥".to_string(), |b| block_name(body, b))
}

fn next_text(body: &Body, n: &Next) -> String {
    match n {
        Next::Block(b) => block_name(body, *b),
        Next::Any => "⊤".into(),
        Next::Done(_) => "□".into(),
    }
}

fn succ_text(s: &Succ) -> String {
    match s {
        Succ::Index(i) => i.to_string(),
        Succ::Any => "⊤".into(),
        Succ::Ret(_) => "□".into(),
    }
}

fn bits(m: &[bool]) -> String {
    m.iter()
        .map(|&b| if b { "1" } else { "0" })
        .collect::<Vec<_>>()
        .join(" ")
}

fn pbits(m: &[Option<bool>]) -> String {
    m.iter()
        .map(|b| match b {
            Some(true) => "1",
            Some(false) => "0",
            None => "⊤",
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The value of every lane as `[a, b, …]`, integers of `int_width` bits in signed
/// decimal (as results and corpus expectations write them; `i1` true prints `1`).
pub fn lanes_text_typed(values: &[Val], int_width: Option<u32>) -> String {
    match int_width {
        None => lanes_text(values),
        Some(w) => format!(
            "[{}]",
            values
                .iter()
                .map(|v| pllvm_semantics::value::display_signed(v, w))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The value of every lane as `[a, b, …]`.
pub fn lanes_text(values: &[Val]) -> String {
    format!(
        "[{}]",
        values
            .iter()
            .map(Val::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The cells of one row, in column order.
fn cells(body: &Body, row: &TraceRow) -> [String; 7] {
    let join = |v: Vec<String>| v.join(" ");
    [
        block_name(body, row.scheduled),
        join(
            row.incoming
                .iter()
                .map(|b| incoming_text(body, b))
                .collect(),
        ),
        join(row.next.iter().map(|n| next_text(body, n)).collect()),
        bits(&row.cmask),
        pbits(&row.pmask),
        bits(&row.active),
        join(row.succ.iter().map(succ_text).collect()),
    ]
}

/// The default number of trace rows a run keeps (`pllvm run --trace-limit`, the
/// REPL's trace): 10,000 rows, fewer for wide thread arrays so that rows × W stays
/// within [`TRACE_LANE_ROWS`] (256 rows at W = 4096). A row costs host memory in
/// every lane (ℓ_in, ℓ_next, three masks, i), so the bound is on lane-rows.
pub fn default_limit(width: usize) -> usize {
    (TRACE_LANE_ROWS / width.max(1)).clamp(1, 10_000)
}

/// Most lane-rows (rows × W) of a trace kept by default: 2^20.
pub const TRACE_LANE_ROWS: usize = 1 << 20;

/// The host bytes one trace row of `width` lanes holds when each row records
/// `written` values ([`TraceRow::written`]): per lane ℓ_in, ℓ_next, the three
/// masks and i, and per value its lanes. An estimate from below: a lane whose
/// value is a vector or an aggregate also holds its elements on the heap. A
/// front end divides the host memory it may use by it to cap a trace limit
/// (`pllvm run --trace-limit`, docs/cli.md "Traces and reports").
pub fn row_bytes(width: usize, written: usize) -> usize {
    use std::mem::size_of;
    let lane = size_of::<Option<Block>>()
        + size_of::<Next>()
        + 2 * size_of::<bool>()
        + size_of::<Option<bool>>()
        + size_of::<Succ>();
    let value = size_of::<(Value, Vec<Val>)>() + width.saturating_mul(size_of::<Val>());
    size_of::<TraceRow>()
        .saturating_add(width.saturating_mul(lane))
        .saturating_add(written.saturating_mul(value))
}

/// The note in place of the rows a bounded trace did not keep.
pub fn omitted_note(omitted: u64) -> String {
    format!(
        "… {omitted} row{} omitted",
        if omitted == 1 { "" } else { "s" }
    )
}

/// [`table`] of a bounded trace (`Machine::trace_limit`): `rows` are the first
/// rows and the latest one, and `omitted` rows ran between them (0: `rows` is the
/// whole trace). The gap is one line, [`omitted_note`].
///
/// Built as one string; [`write_table_bounded`] writes the same text without
/// holding it (this is its reference: a test checks that both agree).
pub fn table_bounded(
    types: &TypeTable,
    body: &Body,
    rows: &[TraceRow],
    writes: bool,
    omitted: u64,
) -> String {
    let text = table(types, body, rows, writes);
    let Some(last) = rows.last().filter(|_| omitted > 0) else {
        return text;
    };
    // The header and the first rows (each followed by its writes) come before
    // the gap, the latest row (and its writes) after it.
    let lines: Vec<&str> = text.lines().collect();
    let last_lines = 1 + if writes {
        last.written.as_ref().map_or(0, Vec::len)
    } else {
        0
    };
    let cut = lines.len().saturating_sub(last_lines);
    let note = omitted_note(omitted);
    let mut out: Vec<&str> = lines[..cut].to_vec();
    out.push(&note);
    out.extend(&lines[cut..]);
    out.join("\n")
}

/// Writes [`table_bounded`] to `out` (no newline after the last line) holding
/// one row's text at a time instead of the table's: a first pass over the rows
/// measures the columns' widths, a second writes each row padded to them,
/// followed by its writes. So the host holds the trace and one line, not the
/// table several times over (its cells, its lines, their join, and the lines
/// again around the gap): a 20,002-step Mandelbrot trace at W = 64 with its
/// values printed 132 MB of table from 729 MB of peak memory that way.
pub fn write_table_bounded(
    out: &mut dyn std::io::Write,
    types: &TypeTable,
    body: &Body,
    rows: &[TraceRow],
    writes: bool,
    omitted: u64,
) -> std::io::Result<()> {
    let header = ["sc", "in", "next", "cmask", "pmask", "amask", "i"].map(String::from);
    let mut widths = header.clone().map(|h| h.chars().count());
    for r in rows {
        for (w, c) in widths.iter_mut().zip(cells(body, r)) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |r: &[String; 7]| {
        let mut text = String::new();
        for (k, (c, w)) in r.iter().zip(widths).enumerate() {
            if k > 0 {
                text.push_str(" | ");
            }
            text.push_str(c);
            text.extend(std::iter::repeat_n(' ', w - c.chars().count()));
        }
        text.truncate(text.trim_end().len());
        text
    };
    write!(out, "{}", line(&header))?;
    let last = rows.len().saturating_sub(1);
    for (k, row) in rows.iter().enumerate() {
        if k == last && omitted > 0 {
            write!(out, "\n{}", omitted_note(omitted))?;
        }
        write!(out, "\n{}", line(&cells(body, row)))?;
        if writes {
            for (v, vals) in row.written.iter().flatten() {
                let name = body.value_name(*v).unwrap_or("?");
                let width = body.values.get(*v).and_then(|d| types.int_width(d.ty));
                write!(out, "\n    %{name} = {}", lanes_text_typed(vals, width))?;
            }
        }
    }
    Ok(())
}

/// Writes [`to_json`] of a bounded trace, pretty-printed, one row at a time
/// (the host holds one row's JSON, not the whole trace's): when `omitted` rows ran
/// between the first rows and the latest one, an object `{"omitted": N}` stands in
/// their place.
pub fn write_json_bounded(
    out: &mut dyn std::io::Write,
    body: &Body,
    rows: &[TraceRow],
    omitted: u64,
) -> std::io::Result<()> {
    let gap = json!({ "omitted": omitted });
    let at = rows.len().saturating_sub(1);
    let mut first = true;
    write!(out, "[")?;
    for (k, row) in rows.iter().enumerate() {
        let item = to_json(body, std::slice::from_ref(row));
        let items = [(k == at && omitted > 0).then_some(&gap), item.get(0)];
        for item in items.into_iter().flatten() {
            let text = serde_json::to_string_pretty(item).map_err(std::io::Error::other)?;
            writeln!(out, "{}", if first { "" } else { "," })?;
            first = false;
            for (n, line) in text.lines().enumerate() {
                write!(out, "{}  {line}", if n == 0 { "" } else { "\n" })?;
            }
        }
    }
    write!(out, "{}]", if first { "" } else { "\n" })
}

/// The trace as a text table: `sc | in | next | cmask | pmask | amask | i`, columns
/// padded, lanes in lane order separated by spaces. With `writes`, each row is
/// followed by the assignments the block made, indented (integers in signed decimal).
pub fn table(types: &TypeTable, body: &Body, rows: &[TraceRow], writes: bool) -> String {
    let header = ["sc", "in", "next", "cmask", "pmask", "amask", "i"].map(String::from);
    let all: Vec<[String; 7]> = rows.iter().map(|r| cells(body, r)).collect();
    let mut widths = header.clone().map(|h| h.chars().count());
    for r in &all {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |r: &[String; 7]| {
        r.iter()
            .zip(widths)
            .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
            .collect::<Vec<_>>()
            .join(" | ")
            .trim_end()
            .to_string()
    };
    let mut out = vec![line(&header)];
    for (row, r) in rows.iter().zip(&all) {
        out.push(line(r));
        if writes {
            for (v, vals) in row.written.iter().flatten() {
                let name = body.value_name(*v).unwrap_or("?");
                let width = body.values.get(*v).and_then(|d| types.int_width(d.ty));
                out.push(format!("    %{name} = {}", lanes_text_typed(vals, width)));
            }
        }
    }
    out.join("\n")
}

/// The trace as JSON: an array of rows with block names and lane vectors.
pub fn to_json(body: &Body, rows: &[TraceRow]) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let written: Vec<serde_json::Value> = r
                .written
                .iter()
                .flatten()
                .map(|(v, vals)| {
                    json!({
                        "value": format!("%{}", body.value_name(*v).unwrap_or("?")),
                        "lanes": vals.iter().map(Val::to_string).collect::<Vec<_>>(),
                    })
                })
                .collect();
            json!({
                "sc": block_name(body, r.scheduled),
                "in": r.incoming.iter().map(|b| incoming_text(body, b)).collect::<Vec<_>>(),
                "next": r.next.iter().map(|n| next_text(body, n)).collect::<Vec<_>>(),
                "cmask": r.cmask,
                "pmask": r.pmask,
                "amask": r.active,
                "i": r.succ.iter().map(succ_text).collect::<Vec<_>>(),
                "written": written,
                "rules": r.rules.names(),
            })
        })
        .collect();
    serde_json::Value::Array(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Machine, RunConfig};

    /// A divergent loop whose lanes leave at different trips, writing an `i32`
    /// counter, an `i1` and a `double` per trip, and a value of a quoted name.
    const LOOP: &str = "define i32 @f(i32 %n) {
entry:
  %t = call i32 @pllvm.thread_id()
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i.next, %head ]
  %x = phi double [ 1.0, %entry ], [ %\"x two\", %head ]
  %\"x two\" = fmul double %x, 2.0
  %i.next = add i32 %i, 1
  %bound = add i32 %n, %t
  %again = icmp slt i32 %i.next, %bound
  br i1 %again, label %head, label %exit
exit:
  ret i32 %i.next
}
";

    /// The streamed table equals the string table, with and without values, for
    /// whole traces and traces bounded to their first rows and the latest one.
    #[test]
    fn the_written_table_is_the_string_table() {
        let (module, _) = match pllvm_semantics::text::parse_module(LOOP) {
            Ok(parsed) => parsed,
            Err(e) => panic!("the test program does not parse: {e:?}"),
        };
        let mut config = RunConfig {
            threads: 5,
            ..Default::default()
        };
        config.args.insert(
            "n".into(),
            crate::config::ArgValue::Uniform(crate::config::Scalar::Int(7)),
        );
        for limit in [None, Some(0), Some(1), Some(3)] {
            let mut machine =
                Machine::new(&module, &config).unwrap_or_else(|e| panic!("sets up: {e}"));
            machine.record_writes = true;
            machine.trace_limit = limit;
            machine
                .run_to_end()
                .unwrap_or_else(|e| panic!("runs: {e:?}"));
            let body = machine.program.body;
            for writes in [false, true] {
                let expect = table_bounded(
                    &module.types,
                    body,
                    &machine.trace,
                    writes,
                    machine.trace_omitted,
                );
                let mut got = Vec::new();
                write_table_bounded(
                    &mut got,
                    &module.types,
                    body,
                    &machine.trace,
                    writes,
                    machine.trace_omitted,
                )
                .unwrap_or_else(|e| panic!("writes: {e}"));
                assert_eq!(String::from_utf8_lossy(&got), expect, "{limit:?} {writes}");
                assert!(expect.lines().count() >= 3);
            }
            if limit == Some(1) {
                assert!(machine.trace_omitted > 0);
            }
        }
    }
}
