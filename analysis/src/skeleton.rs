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
        text.push_str(&terminator_text(&targets));
        text.push('\n');
    }
    text.push_str("}\n");
    text
}

/// The terminator [`skeleton_text`] gives a block with successors `targets`:
/// `ret void`, `br label`, `br i1 %c` or `switch i32 %x` (case `k` to
/// `targets[k]`).
pub fn terminator_text<S: AsRef<str>>(targets: &[S]) -> String {
    let name = |k: usize| targets[k].as_ref();
    match targets.len() {
        0 => "ret void".to_string(),
        1 => format!("br label %{}", name(0)),
        2 => format!("br i1 %c, label %{}, label %{}", name(0), name(1)),
        n => {
            let mut text = format!("switch i32 %x, label %{} [", name(0));
            for k in 1..n {
                text.push_str(&format!(" i32 {k}, label %{}", name(k)));
            }
            text.push_str(" ]");
            text
        }
    }
}
