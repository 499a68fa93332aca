//! `pllvm run FILE --trace html -o F` (docs/tracing.md, "The HTML page"): the page of thesis
//! Fig. 4.5's run opened in headless Chromium, stepped with the keyboard, and
//! checked after each step against the Fig. 4.5b table of the corpus file's
//! comment; a screenshot of each step is saved as a test artifact.

#[path = "trace_html/cdp.rs"]
mod cdp;
use crate::common;

use common::{
    DIVISION_INPUTS, FIG45_INPUTS, code, corpus, pllvm, pllvm_on, require, stderr, stdout,
};
use serde_json::Value;
use std::path::PathBuf;

/// Fig. 4.5's program with its run flags (the file's `; run fr:` line).
const FIG45: &str = "semantics/fig4.5-control-mechanics.ll";

/// The arguments of Fig. 4.5's run.
fn fig45_args(file: &str) -> Vec<String> {
    [&["run", file][..], &FIG45_INPUTS, &["--trace", "html"]]
        .concat()
        .into_iter()
        .map(String::from)
        .collect()
}

/// One row of the Fig. 4.5b table: the cells `sc | in | next | cmask | pmask |
/// amask | i`, lanes separated by spaces.
type Row = [String; 7];

/// The rows of the `; expect trace:` table in the comment of `file`.
fn expected_trace(file: &str) -> Vec<Row> {
    let text = std::fs::read_to_string(file).expect("the corpus file");
    let rows: Vec<Row> = text
        .lines()
        .skip_while(|l| !l.starts_with("; expect trace:"))
        .skip(2)
        .take_while(|l| l.starts_with(";   "))
        .map(|l| {
            let cells: Vec<String> = l
                .trim_start_matches(';')
                .split('|')
                .map(|c| c.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect();
            cells.try_into().expect("seven columns")
        })
        .collect();
    assert_eq!(rows.len(), 5, "Fig. 4.5b has five rows");
    rows
}

/// What the page shows now: the step line, ℓ_sc, the highlighted CFG nodes and
/// the lane table's rows, each row's lanes joined by spaces.
const SHOWN: &str = r##"JSON.stringify({
  step: document.getElementById("step").textContent,
  sc: document.getElementById("sc").textContent,
  highlighted: [...document.querySelectorAll("#cfg g.node.scheduled")]
    .map((g) => g.querySelector("title").textContent),
  rows: ["in", "next", "cmask", "pmask", "amask", "i"].map((id) =>
    [...document.querySelectorAll("#row-" + id + " td")].map((td) => td.textContent).join(" ")),
  badges: [...document.querySelectorAll("#cfg g.node")]
    .map((g) => g.querySelector("title").textContent + ":" + g.querySelector(".badge").textContent),
})"##;

/// Checks that the page shows step `n` (1-based) of the five, as `expected`.
fn check_step(browser: &mut cdp::Chromium, expected: &[Row], n: usize) {
    let shown: Value =
        serde_json::from_str(browser.eval(SHOWN).as_str().expect("a string")).expect("JSON");
    let row = &expected[n - 1];
    assert_eq!(shown["step"], format!("step {n} of 5"), "{shown}");
    assert_eq!(shown["sc"], row[0], "ℓsc of step {n}: {shown}");
    assert_eq!(
        shown["highlighted"],
        serde_json::json!([row[0]]),
        "the scheduled block is the one highlighted: {shown}"
    );
    let rows: Vec<&str> = shown["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r.as_str().expect("text"))
        .collect();
    assert_eq!(rows, row[1..], "step {n} against Fig. 4.5b");
    // The badge of each block lists the lanes whose ℓnext it is.
    let next: Vec<&str> = row[2].split(' ').collect();
    for badge in shown["badges"].as_array().expect("badges") {
        let (block, text) = badge.as_str().unwrap().split_once(':').unwrap();
        let lanes: Vec<String> = (0..next.len())
            .filter(|&t| next[t] == block)
            .map(|t| t.to_string())
            .collect();
        let want = if lanes.is_empty() {
            String::new()
        } else {
            format!("→ {}", lanes.join(" "))
        };
        assert_eq!(text, want, "the badge of {block} at step {n}");
    }
}

/// Where the screenshots go: `target/test-artifacts/` of the workspace.
fn artifacts() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/test-artifacts");
    std::fs::create_dir_all(&dir).expect("the artifacts folder");
    dir.canonicalize().unwrap_or(dir)
}

#[test]
fn fig45_page_steps_with_the_keyboard_and_shows_the_fig45b_table() {
    require("dot", "graphviz");
    require("chromium", "chromium");
    let dir = std::env::temp_dir().join(format!("pllvm-trace-html-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let page = dir.join("trace.html");
    let file = corpus(FIG45);
    let mut args = fig45_args(&file);
    args.extend(["-o".to_string(), page.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = pllvm(&args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // The report still goes to standard output; the page to the file.
    assert!(stdout(&o).contains("result: [1, 3]"), "{}", stdout(&o));
    let expected = expected_trace(&file);

    let mut browser = cdp::Chromium::start(&dir.join("chromium"));
    browser.open(&format!("file://{}", page.display()));
    browser.wait_for("window.pllvmTraceReady === true");
    let shots = artifacts();
    let shoot = |browser: &mut cdp::Chromium, n: usize| {
        let png = browser.screenshot();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
        let path = shots.join(format!("trace-fig4.5-step-{n}.png"));
        std::fs::write(&path, png).expect("write the screenshot");
        println!("screenshot: {}", path.display());
    };
    check_step(&mut browser, &expected, 1);
    shoot(&mut browser, 1);
    for n in 2..=5 {
        browser.press("ArrowRight", "ArrowRight", 39);
        check_step(&mut browser, &expected, n);
        shoot(&mut browser, n);
    }
    // Past the end the page stays at the last step; the outcome is shown.
    browser.press("ArrowRight", "ArrowRight", 39);
    check_step(&mut browser, &expected, 5);
    let outcome = browser.eval(r#"document.getElementById("outcome").textContent"#);
    assert_eq!(outcome, "outcome of the run: returned; result: [1, 3]");
    browser.press("ArrowLeft", "ArrowLeft", 37);
    check_step(&mut browser, &expected, 4);
    browser.press("k", "KeyK", 75);
    check_step(&mut browser, &expected, 3);
    browser.press("j", "KeyJ", 74);
    check_step(&mut browser, &expected, 4);
    browser.press("Home", "Home", 36);
    check_step(&mut browser, &expected, 1);
    browser.press("ArrowLeft", "ArrowLeft", 37);
    check_step(&mut browser, &expected, 1);
    browser.press("End", "End", 35);
    check_step(&mut browser, &expected, 5);
    // The buttons step too.
    browser.eval(r#"document.getElementById("prev").click(); true"#);
    check_step(&mut browser, &expected, 4);
    // The rules and the values written at step 1 (A: %p = x == 0).
    browser.press("Home", "Home", 36);
    let rules = browser.eval(r#"document.getElementById("rules").textContent"#);
    assert!(rules.as_str().unwrap().contains("[PC-ACTIVE]"), "{rules}");
    let writes = browser.eval(r#"document.getElementById("writes").textContent"#);
    assert_eq!(writes, "%p[1, 0]");
    drop(browser);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn trace_html_with_json_is_refused() {
    let file = corpus(FIG45);
    let mut args = fig45_args(&file);
    args.push("--json".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = pllvm(&args);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(
        stderr(&o).contains("use --trace json with it, not --trace html"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
}

#[test]
fn output_without_trace_html_is_refused() {
    let file = corpus(FIG45);
    let o = pllvm(&["run", &file, "--trace", "table", "-o", "x.html"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("use it with --trace html"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn without_o_the_page_alone_goes_to_standard_output() {
    require("dot", "graphviz");
    let file = corpus(FIG45);
    let args = fig45_args(&file);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = pllvm(&args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(page.trim_end().ends_with("</html>"));
    assert!(!page.contains("outcome: returned\n"));
}

/// The JSON object a page embeds.
fn embedded(page: &str) -> Value {
    let open = "<script type=\"application/json\" id=\"trace-data\">";
    let start = page.find(open).expect("the data element") + open.len();
    let len = page[start..].find("</script>").expect("closed");
    serde_json::from_str(&page[start..start + len]).expect("valid JSON")
}

#[test]
fn the_page_of_undefined_behaviour_names_the_rule_and_the_position() {
    require("dot", "graphviz");
    // Lane 1 divides by zero in line 3: [W-INST-LLVM].
    let file = common::temp_file("division.ll", common::DIVISION);
    let o = pllvm_on("run", &file, &DIVISION_INPUTS, &["--trace", "html"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let data = embedded(&stdout(&o));
    let ub = &data["outcome"]["undefined"];
    assert_eq!(ub["rule"], "W-INST-LLVM", "{data}");
    assert_eq!(
        (ub["line"].as_u64(), ub["col"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(ub["lane"], 1);
    assert!(
        data["outcome"]["text"]
            .as_str()
            .unwrap()
            .starts_with("undefined: [W-INST-LLVM]")
    );
}

#[test]
fn a_trace_limit_keeps_the_first_rows_and_the_latest_with_its_own_step_number() {
    require("dot", "graphviz");
    let file = corpus(FIG45);
    let mut args = fig45_args(&file);
    args.extend(["--trace-limit".to_string(), "2".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = pllvm(&args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let data = embedded(&stdout(&o));
    let steps: Vec<u64> = data["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["n"].as_u64().unwrap())
        .collect();
    // As --trace table: rows A and B, "… 2 rows omitted", then E.
    assert_eq!(steps, [1, 2, 5]);
    assert_eq!(data["steps"], 5);
    assert_eq!(data["omitted"], 2);
    assert_eq!(data["rows"][2]["sc"], 4, "E");
}

#[test]
fn without_graphviz_the_page_is_an_error_naming_the_package_and_no_file_is_left() {
    let file = corpus(FIG45);
    let page = common::temp_file("no-dot.html", "");
    std::fs::remove_file(&page).expect("a fresh path");
    let mut args = fig45_args(&file);
    args.extend(["-o".to_string(), page.clone()]);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(&args)
        .env("PATH", "/nonexistent")
        .output()
        .expect("run pllvm");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("apt-get install graphviz"),
        "{}",
        stderr(&o)
    );
    assert!(!std::path::Path::new(&page).exists(), "no half page");
}
