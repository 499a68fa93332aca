//! Bare CFGs as programs: [`skeleton_text`] turns a successor list into P-LLVM text
//! (tests and the exhaustive small-CFG checks of `proofs`).

/// The text of a function `@skeleton(i1 %c, i32 %x)` whose CFG is `succs`: block
/// `i` is named `names[i]`, and its terminator is `ret void` without successors,
/// `br label` with one, `br i1 %c` with two and `switch i32 %x` with more (case
/// `k` to successor `k`). Used by tests and the exhaustive checks to turn a bare
/// graph into a program; blocks carry no instructions.
pub fn skeleton_text(names: &[String], succs: &[Vec<usize>]) -> String {
    let mut text = String::from("define void @skeleton(i1 %c, i32 %x) {\n");
    for (i, name) in names.iter().enumerate() {
        let targets: Vec<&str> = succs
            .get(i)
            .map(|s| {
                s.iter()
                    .filter_map(|&t| names.get(t))
                    .map(String::as_str)
                    .collect()
            })
            .unwrap_or_default();
        text.push_str(name);
        text.push_str(":\n  ");
        match targets.as_slice() {
            [] => text.push_str("ret void"),
            [only] => text.push_str(&format!("br label %{only}")),
            [yes, no] => text.push_str(&format!("br i1 %c, label %{yes}, label %{no}")),
            [default, cases @ ..] => {
                text.push_str(&format!("switch i32 %x, label %{default} ["));
                for (k, case) in cases.iter().enumerate() {
                    text.push_str(&format!(" i32 {}, label %{case}", k + 1));
                }
                text.push_str(" ]");
            }
        }
        text.push('\n');
    }
    text.push_str("}\n");
    text
}
