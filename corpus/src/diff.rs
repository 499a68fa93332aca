//! The unified diff a failed golden file prints (docs/design/style.md §4: a
//! failure shows `path:line`, a unified diff and the bless command).

/// A unified diff of expected and actual text.
pub fn diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(&format!("{expected}\n"), &format!("{actual}\n"))
        .unified_diff()
        .header("expected", "actual")
        .to_string()
}
