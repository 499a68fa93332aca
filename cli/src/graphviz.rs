//! Graphviz's `dot`, the layout engine behind every picture pllvm draws
//! (`analyze --svg`, `transform --svg`, the CFG of `run --trace html`).
//!
//! pllvm writes the graph in the DOT language itself (`render::dot` and the
//! writers beside it); `dot -Tsvg` only lays it out. A missing `dot` is an error
//! that names the Debian package, never a picture left out silently.

use std::io::Write;
use std::process::{Command, Stdio};

/// The command run: Graphviz's `dot` on the `PATH`.
pub(crate) const DOT: &str = "dot";

/// The SVG drawing of the graph `source` (DOT language), laid out by `dot -Tsvg`.
///
/// The SVG starts at its `<svg` element: the XML declaration and DOCTYPE that
/// `dot` prints before it are dropped, so the result can be written as a file
/// or put inline in an HTML page as it is.
pub(crate) fn svg(source: &str) -> Result<String, String> {
    let mut child = Command::new(DOT)
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "cannot run Graphviz's `{DOT}` ({e}): install it (Debian: apt-get install graphviz)"
            )
        })?;
    // `dot` reads all its input before it writes: write it from a thread so a
    // large graph cannot deadlock on a full pipe either way.
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = source.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("`{DOT} -Tsvg` failed: {e}"))?;
    let written = writer.join().map_err(|_| format!("writing to `{DOT}`"))?;
    if !out.status.success() {
        return Err(format!(
            "`{DOT} -Tsvg` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    written.map_err(|e| format!("writing to `{DOT}`: {e}"))?;
    let text = String::from_utf8(out.stdout).map_err(|_| format!("`{DOT}` wrote non-UTF-8"))?;
    match text.find("<svg") {
        Some(start) => Ok(text[start..].to_owned()),
        None => Err(format!("`{DOT} -Tsvg` wrote no <svg> element")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_two_node_graph_becomes_an_svg_element_with_both_nodes() {
        let svg = svg("digraph g { entry -> exit; }").expect("Graphviz's dot is installed");
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains(">entry</text>") && svg.contains(">exit</text>"));
        assert!(!svg.contains("<?xml") && !svg.contains("<!DOCTYPE"));
    }

    #[test]
    fn a_syntax_error_is_reported_with_what_dot_said() {
        let e = svg("digraph { -> }").unwrap_err();
        assert!(e.contains("dot -Tsvg` failed"), "{e}");
    }
}
