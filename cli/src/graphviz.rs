//! Graphviz's `dot`, the layout engine behind every picture pllvm draws
//! (`analyze --svg`, `transform --svg`, the CFG of `run --trace html`).
//!
//! pllvm writes the graph in the DOT language itself (`render::dot` and the
//! writers beside it); `dot -Tsvg` only lays it out. A missing `dot` is an error
//! that names the Debian package, never a picture left out silently.
//!
//! `dot`'s layout is not linear, and not in the number of blocks alone: a long
//! edge becomes a chain of virtual nodes, one per rank it crosses, and the
//! crossing minimization works on those (BENCHMARKS.md, "Nested control flow").
//! Nested ifs of depth d have 2d + 3 blocks but about d² crossed ranks, and
//! `dot` took 3 s at depth 40 and a minute at depth 60. [`Size`] estimates both
//! numbers from the CFG and refuses a picture above either bound, before `dot`
//! runs.

use pllvm_codegen::native::{ToolError, run_tool};
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::Body;
use std::process::Command;

/// Most blocks one picture draws (every cluster counted): at 1,000 blocks in a
/// chain `dot` takes about half a second (BENCHMARKS.md, "Pictures").
pub(crate) const MAX_BLOCKS: usize = 1_000;

/// Most ranks the long edges of one picture cross ([`crossed_ranks`]): about
/// nested ifs of depth 31, which `dot` lays out in under a second (depth 40,
/// 1,560 ranks: 3 s; BENCHMARKS.md, "Nested control flow").
pub(crate) const MAX_CROSSED_RANKS: usize = 1_000;

/// What one picture asks of the layout: its blocks and the ranks its long
/// edges cross, summed over the CFGs drawn in it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Size {
    /// Blocks drawn.
    pub blocks: usize,
    /// Ranks crossed by edges longer than one rank ([`crossed_ranks`]).
    pub crossed: usize,
}

impl Size {
    /// Adds the CFG of `body`, drawn once.
    pub(crate) fn add(&mut self, body: &Body) {
        self.blocks += body.layout.len();
        self.crossed += crossed_ranks(body);
    }

    /// Why a picture of this size is refused, if it is: the numbers and the
    /// bound they pass (the caller names what to use instead).
    pub(crate) fn refusal(&self) -> Option<String> {
        if self.blocks > MAX_BLOCKS {
            Some(format!(
                "{} blocks are too large to draw (at most {MAX_BLOCKS} per picture: Graphviz's layout grows faster than linearly)",
                self.blocks
            ))
        } else if self.crossed > MAX_CROSSED_RANKS {
            Some(format!(
                "{} blocks whose edges cross {} ranks are too deeply nested to draw (at most {MAX_CROSSED_RANKS} crossed ranks per picture: Graphviz's layout of nested control flow grows with the square of the depth and faster)",
                self.blocks, self.crossed
            ))
        } else {
            None
        }
    }
}

/// The ranks crossed by the edges of `body`'s CFG as `dot` would rank it,
/// estimated: blocks ranked by the longest path from the entry over the edges
/// that are not retreating (`dot` reverses those), and each edge spanning `k`
/// ranks crossing `k - 1` of them (the virtual nodes `dot` puts on it).
/// Unreachable blocks sit on rank 0. Linear in the CFG.
pub(crate) fn crossed_ranks(body: &Body) -> usize {
    let cfg = Cfg::new(body);
    let mut rank = vec![0usize; cfg.len()];
    let mut position = vec![usize::MAX; cfg.len()];
    let rpo = cfg.reverse_postorder();
    for (k, &b) in rpo.iter().enumerate() {
        position[b.as_u32() as usize] = k;
    }
    // In reverse postorder every edge that is not retreating goes forward.
    let forward = |from: usize, to: usize| position[from] < position[to];
    for &b in &rpo {
        let from = b.as_u32() as usize;
        for &t in cfg.succs(b) {
            let to = t.as_u32() as usize;
            if forward(from, to) {
                rank[to] = rank[to].max(rank[from] + 1);
            }
        }
    }
    body.layout
        .iter()
        .flat_map(|&b| cfg.succs(b).iter().map(move |&t| (b, t)))
        .map(|(b, t)| {
            let (x, y) = (rank[b.as_u32() as usize], rank[t.as_u32() as usize]);
            x.abs_diff(y).saturating_sub(1)
        })
        .sum()
}

/// The command run: Graphviz's `dot` on the `PATH`.
pub(crate) const DOT: &str = "dot";

/// The SVG drawing of the graph `source` (DOT language), laid out by `dot -Tsvg`;
/// `file` is the user's file the picture is of, which `dot`'s errors are
/// reported against ([`dot_error`]).
///
/// The SVG starts at its `<svg` element: the XML declaration and DOCTYPE that
/// `dot` prints before it are dropped, so the result can be written as a file
/// or put inline in an HTML page as it is.
pub(crate) fn svg(source: &str, file: &str) -> Result<String, String> {
    svg_until(source, file, None)
}

/// [`svg`] that `deadline` ends (`analyze --svg --time`, `transform --svg
/// --time`): `dot` is killed when it comes (`run_tool`), and the answer is an
/// error saying so.
pub(crate) fn svg_until(
    source: &str,
    file: &str,
    deadline: Option<std::time::Instant>,
) -> Result<String, String> {
    let mut command = Command::new(DOT);
    command.arg("-Tsvg");
    // `dot` reads all its input before it writes: `run_tool` writes it from a
    // thread, so a large graph cannot deadlock on a full pipe either way.
    let out = match run_tool(&mut command, Some(source.as_bytes()), deadline) {
        Ok(out) => out,
        Err(ToolError::Start(e)) => {
            return Err(format!(
                "cannot run Graphviz's `{DOT}` ({e}): install it (Debian: apt-get install graphviz)"
            ));
        }
        Err(ToolError::Input(e)) => return Err(format!("writing to `{DOT}`: {e}")),
        Err(ToolError::Stopped) => {
            return Err(format!(
                "Graphviz's `{DOT} -Tsvg` was stopped at the time limit before it ended"
            ));
        }
    };
    if !out.status.success() {
        return Err(dot_error(
            source,
            file,
            &out.status.to_string(),
            &String::from_utf8_lossy(&out.stderr),
        ));
    }
    let text = String::from_utf8(out.stdout).map_err(|_| format!("`{DOT}` wrote non-UTF-8"))?;
    match text.find("<svg") {
        Some(start) => Ok(text[start..].to_owned()),
        None => Err(format!("`{DOT} -Tsvg` wrote no <svg> element")),
    }
}

/// `dot`'s failure as the user can act on it: against `file`, naming the node
/// (a block, `@f/analysis/block` or `before/block` in a picture of several) of
/// the DOT line `dot` complained about, never the `<stdin>` and line number of
/// a text the user never saw.
fn dot_error(source: &str, file: &str, status: &str, stderr: &str) -> String {
    let message = stderr
        .trim()
        .replace("<stdin>: ", "")
        .replace("<stdin>", "");
    let node = line_number(&message)
        .and_then(|n| source.lines().nth(n.checked_sub(1)?))
        .and_then(first_id);
    let at = node.map_or(String::new(), |id| format!(" at {id}"));
    format!("{file}: Graphviz's `{DOT} -Tsvg` could not draw the picture{at} ({status}): {message}")
}

/// The number after "line " in `dot`'s message.
fn line_number(message: &str) -> Option<usize> {
    let rest = &message[message.find("line ")? + "line ".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The first quoted id of a DOT line, as written (quotes and escapes kept), so
/// that it reads as the node it names.
fn first_id(line: &str) -> Option<String> {
    let start = line.find('"')?;
    let mut end = None;
    let mut escaped = false;
    for (k, c) in line[start + 1..].char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => {
                end = Some(start + 1 + k);
                break;
            }
            _ => {}
        }
    }
    Some(line[start..=end?].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_two_node_graph_becomes_an_svg_element_with_both_nodes() {
        let svg = svg("digraph g { entry -> exit; }", "f.ll").expect("Graphviz's dot is installed");
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains(">entry</text>") && svg.contains(">exit</text>"));
        assert!(!svg.contains("<?xml") && !svg.contains("<!DOCTYPE"));
    }

    #[test]
    fn a_syntax_error_is_reported_with_what_dot_said() {
        let e = svg("digraph { -> }", "f.ll").unwrap_err();
        assert!(e.contains("dot -Tsvg` could not draw"), "{e}");
    }

    #[test]
    fn an_error_is_reported_against_the_file_and_the_node_never_stdin() {
        // A name ending in an unescaped backslash, as DOT text used to carry it.
        let source = "digraph g {\n  \"entry\";\n  \"a\\\" -> \"b\";\n}\n";
        let e = svg(source, "nested.ll").unwrap_err();
        assert!(e.starts_with("nested.ll: "), "{e}");
        assert!(e.contains("at \"a\\\" -> \""), "{e}");
        assert!(!e.contains("<stdin>"), "{e}");
    }

    #[test]
    fn nested_ifs_cross_about_the_square_of_their_depth_in_ranks() {
        let source = |depth: usize| {
            let mut s = String::from("define void @f(i1 %c) {\nentry:\n  br label %i0\n");
            for k in 0..depth {
                s += &format!("i{k}:\n  br i1 %c, label %i{}, label %j{k}\n", k + 1);
            }
            s += &format!("i{depth}:\n  br label %j{}\n", depth - 1);
            for k in (0..depth).rev() {
                let next = if k == 0 {
                    "exit".to_string()
                } else {
                    format!("j{}", k - 1)
                };
                s += &format!("j{k}:\n  br label %{next}\n");
            }
            s + "exit:\n  ret void\n}\n"
        };
        let crossed = |depth| {
            let (m, _) = pllvm_semantics::text::parse_module(&source(depth)).expect("parses");
            let body = m.functions.iter().find_map(|(_, f)| f.body.as_ref());
            crossed_ranks(body.expect("a body"))
        };
        // The edge iK -> jK spans 2(d - K) ranks: the sum of 2(d - K) - 1.
        assert_eq!(crossed(3), 5 + 3 + 1);
        assert_eq!(crossed(100), 100 * 100);
        let size = Size {
            blocks: 83,
            crossed: crossed(40),
        };
        assert!(size.refusal().is_some_and(|r| r.contains("1600 ranks")));
    }
}
