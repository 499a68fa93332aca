//! What the REPL prints: lane vectors (⊤ for undef, passive lanes marked), the
//! control state ℓ_in / ℓ_next of every lane (Def. 3), the masks of the candidate
//! blocks (Def. 6-8), memory objects, and small text-layout helpers that keep
//! tables readable in 80 columns. Trace rows are printed by
//! `pllvm_interp::trace::table`, the printer `pllvm run` and the corpus use.

use super::style::{Role, Style};
use pllvm_interp::Machine;
use pllvm_semantics::ir::{Block, Body, Value};
use pllvm_semantics::memory::{Byte, ObjectKind};
use pllvm_semantics::rules::masks::cmask_w;
use pllvm_semantics::rules::step::bls_w_step;
use pllvm_semantics::rules::{Next, Program, Scratch, State, StepError};
use pllvm_semantics::value::{Val, display_signed};

/// The name of `block`.
pub(super) fn block_name(program: &Program<'_>, block: Block) -> String {
    program.block_name(block).to_string()
}

/// One lane's value: signed decimal for `iN`, ⊤ for undef.
pub(super) fn lane_value(v: &Val, int_width: Option<u32>) -> String {
    match int_width {
        Some(w) => display_signed(v, w),
        None => v.to_string(),
    }
}

/// `[a, b, …]` with the lanes that are not in `active` shown as `(v)`.
pub(super) fn lanes(values: &[Val], int_width: Option<u32>, active: Option<&[bool]>) -> String {
    let cells: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(lane, v)| {
            let text = lane_value(v, int_width);
            match active.and_then(|a| a.get(lane)) {
                Some(false) => format!("({text})"),
                _ => text,
            }
        })
        .collect();
    format!("[{}]", cells.join(", "))
}

/// `%name : type = [lanes]`, the line `print` shows for one value.
pub(super) fn value_line(
    program: &Program<'_>,
    state: &State,
    value: Value,
    active: Option<&[bool]>,
    style: &Style,
) -> String {
    let body = program.body;
    let ty = body.values[value].ty;
    let types = program.types();
    let name = format!("%{}", body.value_name(value).unwrap_or("?"));
    format!(
        "{} : {} = {}",
        style.paint(Role::Value, &name),
        types.display(ty),
        lanes(&state.env.get(value), types.int_width(ty), active)
    )
}

/// Every named value in program order: parameters, then phis and commands block by
/// block (layout order).
pub(super) fn named_values(body: &Body) -> Vec<Value> {
    let mut out: Vec<Value> = body
        .values
        .iter()
        .filter(|(_, d)| {
            matches!(d.def, pllvm_semantics::ir::ValueDef::Param(_)) && d.name.is_some()
        })
        .map(|(v, _)| v)
        .collect();
    for &b in &body.layout {
        let block = &body.blocks[b];
        for &inst in block.phis.iter().chain(&block.body) {
            if let Some(v) = body.insts[inst].result
                && body.value_name(v).is_some()
            {
                out.push(v);
            }
        }
    }
    out
}

/// ℓ_in of one lane (⊥ before its first block).
pub(super) fn incoming_text(program: &Program<'_>, b: Option<Block>) -> String {
    b.map_or_else(|| "⊥".to_string(), |b| block_name(program, b))
}

/// ℓ_next of one lane: a block, ⊤, or □ with the return value.
pub(super) fn next_text(program: &Program<'_>, n: &Next, ret_width: Option<u32>) -> String {
    match n {
        Next::Block(b) => block_name(program, *b),
        Next::Any => "⊤".into(),
        Next::Done(r) => format!("□ {}", lane_value(r, ret_width)),
    }
}

/// ℓ_next of every lane, separated by spaces (□ without the value).
pub(super) fn next_row(program: &Program<'_>, state: &State) -> String {
    state
        .next
        .iter()
        .map(|n| match n {
            Next::Done(_) => "□".to_string(),
            n => next_text(program, n, None),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Pads the columns of `rows` (the first row is the header) and joins them with
/// ` | `, as the trace table does.
pub(super) fn table(rows: &[Vec<String>], style: &Style) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns];
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    rows.iter()
        .enumerate()
        .map(|(k, r)| {
            let line = r
                .iter()
                .zip(&widths)
                .map(|(c, &w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
                .collect::<Vec<_>>()
                .join(" | ")
                .trim_end()
                .to_string();
            if k == 0 {
                style.paint(Role::Heading, &line)
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `state` command: ℓ_in and ℓ_next of every lane (Def. 3).
pub(super) fn state_table(program: &Program<'_>, state: &State, style: &Style) -> String {
    let ret_ty = program.module.functions[program.func].ret_ty;
    let ret_width = program.types().int_width(ret_ty);
    let mut rows = vec![vec!["lane".into(), "in".into(), "next".into()]];
    for (lane, (i, n)) in state.incoming.iter().zip(&state.next).enumerate() {
        rows.push(vec![
            lane.to_string(),
            incoming_text(program, *i),
            next_text(program, n, ret_width),
        ]);
    }
    table(&rows, style)
}

/// The `masks` command: for every block some lane's control mask admits, the
/// masks [BLS-W-STEP] computes if it is scheduled now, found by executing the
/// block on a copy of the state (so a predicate computed by the block's phis or
/// commands shows its real value).
pub(super) fn masks_table(machine: &Machine<'_>, style: &Style) -> String {
    let program = &machine.program;
    let state = &machine.state;
    let bits = |m: &[bool]| {
        m.iter()
            .map(|&b| if b { "1" } else { "0" })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut rows = vec![vec![
        "block".into(),
        "cmask".into(),
        "pmask".into(),
        "amask".into(),
    ]];
    let mut notes = Vec::new();
    for &b in &program.body.layout {
        let cmask = cmask_w(program, &state.incoming, &state.next, b);
        if !cmask.iter().any(|&c| c) {
            continue;
        }
        let mut copy = state.clone();
        let mut scratch = Scratch::default();
        let step = bls_w_step(
            program,
            machine.interp,
            machine.exec,
            b,
            &mut copy,
            &mut scratch,
            false,
        );
        match step {
            Ok(step) => {
                let pmask = step
                    .pmask
                    .iter()
                    .map(|p| match p {
                        Some(true) => "1",
                        Some(false) => "0",
                        None => "⊤",
                    })
                    .collect::<Vec<_>>()
                    .join(" ");
                rows.push(vec![
                    block_name(program, b),
                    bits(&step.cmask),
                    pmask,
                    bits(&step.active),
                ]);
            }
            Err(e) => {
                rows.push(vec![
                    block_name(program, b),
                    bits(&cmask),
                    "-".into(),
                    "-".into(),
                ]);
                notes.push(format!(
                    "{}: scheduling it now is {}",
                    block_name(program, b),
                    match e {
                        StepError::Undefined(ub) => format!("undefined: {ub}"),
                        other => other.to_string(),
                    }
                ));
            }
        }
    }
    if rows.len() == 1 {
        return "no block is pending: every lane has terminated".into();
    }
    let mut out = table(&rows, style);
    for n in notes {
        out.push('\n');
        out.push_str(&style.paint(Role::Error, &n));
    }
    out
}

/// The `mem` command with no argument: every object of 𝕄.
pub(super) fn objects_table(machine: &Machine<'_>, style: &Style) -> String {
    let mut rows = vec![vec![
        "object".into(),
        "kind".into(),
        "bytes".into(),
        "state".into(),
    ]];
    for (id, object) in machine.state.mem.objects() {
        let kind = match &object.kind {
            ObjectKind::Global { name } => format!("global @{name}"),
            ObjectKind::Input { name } => format!("input {name}"),
            ObjectKind::Alloca { lane, site } => format!("alloca {site} of lane {lane}"),
        };
        let status = match (object.live, object.read_only) {
            (false, _) => "dead",
            (true, true) => "live, read-only",
            (true, false) => "live",
        };
        rows.push(vec![
            format!("#{}", id.0),
            kind,
            object.size().to_string(),
            status.into(),
        ]);
    }
    if rows.len() == 1 {
        return "memory is empty: the program has no globals and has allocated nothing".into();
    }
    table(&rows, style)
}

/// Bytes as hex, 16 a line, `..` for an uninitialized byte, each line headed by
/// the offset of its first byte.
pub(super) fn hex_dump(bytes: &[Byte], first_offset: u64) -> String {
    if bytes.is_empty() {
        return "(no bytes)".into();
    }
    bytes
        .chunks(16)
        .enumerate()
        .map(|(k, chunk)| {
            let cells: Vec<String> = chunk
                .iter()
                .map(|b| {
                    b.bits()
                        .map_or_else(|| "..".to_string(), |v| format!("{v:02x}"))
                })
                .collect();
            format!("  +{:<5} {}", first_offset + 16 * k as u64, cells.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Wraps `text` to lines of at most `width` characters, every line after the
/// first indented by `indent` spaces.
pub(super) fn wrap(text: &str, width: usize, indent: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let limit = if lines.is_empty() {
            width
        } else {
            width.saturating_sub(indent)
        };
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > limit {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines.join(&format!("\n{}", " ".repeat(indent)))
}
