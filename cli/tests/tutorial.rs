//! Runs every command of `docs/tutorial.md` so that the
//! tutorial cannot rot. The conventions the markdown follows:
//!
//! - A fenced block whose info string has `file=NAME` (```` ```llvm file=logstar.ll ````,
//!   ```` ```text file=session.txt ````) writes its contents to `NAME` in the
//!   tutorial's working directory (a fresh temporary folder) at that point of the
//!   document; later commands read it.
//! - A ```` ```console ```` block is a session: each line starting with `$ ` is a
//!   command, and the lines up to the next `$ ` line (or the end of the block)
//!   are its expected standard output followed by its standard error (blank
//!   lines at the end of the output are not shown). A command is
//!   `pllvm ARGS`, optionally with `< FILE` (standard input from a file the
//!   tutorial wrote); arguments are split at blanks, and `'...'` or `"..."` quote
//!   one. Any other command makes the test fail: it cannot be run, and a command the
//!   test does not run is a command that can rot.
//! - Expected output is compared line by line, exactly (trailing blanks ignored),
//!   except that a line holding only `...` stands for any number of lines (the
//!   elision marker). A last line `[exit N]` says the command exits with code N;
//!   without it the command must exit 0.
//! - A ```` ```sh ```` block holds the installation commands, which build and test
//!   the whole workspace and so cannot run inside a test: each of its lines must be
//!   one of the commands of the README's "The two commands" block, which CI runs
//!   (`.ci/run`). Any other fenced block with a shell-like language fails the test.
//!
//! A command of `compile` or `diff-exec` needs the native toolchain: `llc-19` for
//! the vector targets and `gcc` for the runner and the scalar-lane C (`require`
//! fails the test, naming the package, when one is missing).

use crate::common;

use common::require;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One fenced block of the markdown: its info string, its first line number
/// (1-based, the line of the opening fence) and its lines.
struct Block {
    info: String,
    line: usize,
    lines: Vec<String>,
}

/// The fenced blocks of `text`, in order.
fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (k, line) in text.lines().enumerate() {
        match open.take() {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    open = Some(Block {
                        info: info.trim().to_string(),
                        line: k + 1,
                        lines: Vec::new(),
                    });
                }
            }
            Some(mut b) => {
                if line.trim_end() == "```" {
                    out.push(b);
                } else {
                    b.lines.push(line.to_string());
                    open = Some(b);
                }
            }
        }
    }
    assert!(
        open.is_none(),
        "docs/tutorial.md: a fenced block is not closed"
    );
    out
}

/// The words of a command line: split at blanks, `'...'` and `"..."` quote.
fn words(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            None => cur.push(c),
        }
    }
    if quote.is_some() {
        return Err(format!("unclosed quote in `{line}`"));
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    Ok(out)
}

/// Whether `actual` matches `expected`, where an expected line `...` stands for
/// any number of actual lines.
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "..." => (0..=actual.len()).any(|k| matches(rest, &actual[k..])),
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| a.trim_end() == e.trim_end() && matches(rest, more)),
    }
}

/// A unified diff of the expected and actual output.
fn diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .header("expected (docs/tutorial.md)", "actual")
        .to_string()
}

/// Runs one `$ pllvm ...` command in `dir` and checks it against `expected`.
fn run_command(dir: &Path, at: usize, command: &str, expected: &[String]) -> Result<(), String> {
    let here = format!("docs/tutorial.md:{at}: `{command}`");
    let mut argv = words(command).map_err(|e| format!("{here}: {e}"))?;
    let mut stdin_file = None;
    if let Some(k) = argv.iter().position(|w| w == "<") {
        let file = argv
            .get(k + 1)
            .ok_or_else(|| format!("{here}: `<` without a file"))?;
        stdin_file = Some(dir.join(file));
        if argv.len() != k + 2 {
            return Err(format!("{here}: only `< FILE` may follow the arguments"));
        }
        argv.truncate(k);
    }
    if argv.first().map(String::as_str) != Some("pllvm") {
        return Err(format!(
            "{here}: the test can only run `pllvm ...` commands (see the conventions in cli/tests/tutorial.rs)"
        ));
    }
    let sub = argv.get(1).map(String::as_str).unwrap_or("");
    if sub == "compile" || sub == "diff-exec" {
        require("gcc", "gcc");
        if argv.iter().any(|a| a == "avx2" || a == "avx512") {
            require("llc-19", "llvm-19");
        }
    }
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pllvm"));
    cmd.args(&argv[1..]).current_dir(dir);
    match &stdin_file {
        Some(f) => {
            let file =
                std::fs::File::open(f).map_err(|e| format!("{here}: {}: {e}", f.display()))?;
            cmd.stdin(Stdio::from(file));
        }
        None => {
            cmd.stdin(Stdio::null());
        }
    }
    let out = cmd
        .output()
        .map_err(|e| format!("{here}: cannot run: {e}"))?;
    let mut want: Vec<String> = expected.to_vec();
    let mut want_code = 0;
    if let Some(n) = want
        .last()
        .and_then(|l| l.trim().strip_prefix("[exit "))
        .and_then(|l| l.strip_suffix(']'))
    {
        want_code = n
            .parse()
            .map_err(|_| format!("{here}: bad exit line `[exit {n}]`"))?;
        want.pop();
    }
    let got = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut got_lines: Vec<&str> = got.lines().collect();
    while got_lines.last().is_some_and(|l| l.trim().is_empty()) {
        got_lines.pop();
    }
    let code = out.status.code();
    if code != Some(want_code) || !matches(&want, &got_lines) {
        let shown = code.map_or("none (killed by a signal)".to_string(), |c| c.to_string());
        return Err(format!(
            "{here}: exit code {shown} (expected {want_code}); the output against the tutorial's \
             (a `...` line in the tutorial stands for any lines):\n{}",
            diff(&(want.join("\n") + "\n"), &got)
        ));
    }
    Ok(())
}

/// The lines of the README's "The two commands" block, which CI runs.
fn readme_commands(root: &Path) -> Vec<String> {
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let section = readme
        .split("## The two commands")
        .nth(1)
        .expect("README.md has a `## The two commands` section");
    let block = blocks(section).into_iter().next().expect("a block there");
    block
        .lines
        .iter()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Runs the whole tutorial in a fresh folder; collects every failure.
fn run_tutorial(root: &Path, text: &str, dir: &Path) -> Vec<String> {
    let install = readme_commands(root);
    let mut failures = Vec::new();
    let mut commands = 0;
    for b in blocks(text) {
        let mut info = b.info.split_whitespace();
        let lang = info.next().unwrap_or("");
        if let Some(name) = info.find_map(|w| w.strip_prefix("file=")) {
            let mut body = b.lines.join("\n");
            body.push('\n');
            std::fs::write(dir.join(name), body).expect("write a tutorial file");
            continue;
        }
        match lang {
            "console" => {
                let mut k = 0;
                while k < b.lines.len() {
                    let Some(command) = b.lines[k].strip_prefix("$ ") else {
                        failures.push(format!(
                            "docs/tutorial.md:{}: output before any `$ ` command in a console block",
                            b.line + 1 + k
                        ));
                        break;
                    };
                    let at = b.line + 1 + k;
                    k += 1;
                    let start = k;
                    while k < b.lines.len() && !b.lines[k].starts_with("$ ") {
                        k += 1;
                    }
                    commands += 1;
                    if let Err(e) = run_command(dir, at, command, &b.lines[start..k]) {
                        failures.push(e);
                    }
                }
            }
            "sh" => {
                for (k, l) in b.lines.iter().enumerate() {
                    let l = l.split('#').next().unwrap_or("").trim();
                    if !l.is_empty() && !install.iter().any(|c| c == l) {
                        failures.push(format!(
                            "docs/tutorial.md:{}: `{l}` is not one of the README's two commands, \
                             and a sh block is not run: write it as a console session",
                            b.line + 1 + k
                        ));
                    }
                }
            }
            "bash" | "shell" | "zsh" | "shell-session" => failures.push(format!(
                "docs/tutorial.md:{}: a ```{lang} block is neither run nor checked: use console",
                b.line
            )),
            _ => {}
        }
    }
    if commands < 10 {
        failures.push(format!(
            "docs/tutorial.md has only {commands} commands: the conventions are not followed"
        ));
    }
    failures
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
        .to_path_buf()
}

/// Every command of the tutorial runs and prints what the tutorial shows.
#[test]
fn every_tutorial_command_prints_what_the_tutorial_shows() {
    let root = workspace();
    let text = std::fs::read_to_string(root.join("docs/tutorial.md")).expect("docs/tutorial.md");
    let dir = std::env::temp_dir().join(format!("pllvm-tutorial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let failures = run_tutorial(&root, &text, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} tutorial command(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The checker is not vacuous: a changed output line, a command it cannot run, a
/// missing exit line and an unknown install command each make it fail, while
/// `...` elides lines.
#[test]
fn the_checker_rejects_a_wrong_tutorial() {
    let root = workspace();
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    assert!(matches(&lines("a\n...\nd"), &["a", "b", "c", "d"]));
    assert!(matches(&lines("a\n...\nd"), &["a", "d"]));
    assert!(!matches(&lines("a\n...\nd"), &["a", "b"]));
    assert!(!matches(&lines("a\nb"), &["a", "c"]));
    assert_eq!(
        words(r#"pllvm run 'a b' "c" d"#).expect("words"),
        ["pllvm", "run", "a b", "c", "d"]
    );
    let file = "```llvm file=f.ll\ndefine i32 @f() {\nA:\n  ret i32 7\n}\n```\n";
    let good = "$ pllvm run f.ll --threads 2\noutcome: returned\nresult: [7, 7]\n";
    let cases = [
        // A wrong value.
        "$ pllvm run f.ll --threads 2\noutcome: returned\nresult: [7, 8]\n",
        // Not a pllvm command.
        "$ ls\n",
        // A failing command without its `[exit N]` line.
        "$ pllvm run nosuch.ll\n...\n",
    ];
    let padding = good.repeat(10);
    let dir = std::env::temp_dir().join(format!("pllvm-tutorial-neg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ok = format!("{file}```console\n{padding}```\n");
    assert_eq!(run_tutorial(&root, &ok, &dir), Vec::<String>::new());
    for case in cases {
        let doc = format!("{file}```console\n{padding}{case}```\n");
        let failures = run_tutorial(&root, &doc, &dir);
        assert_eq!(failures.len(), 1, "{case:?} should fail once: {failures:?}");
    }
    let doc = format!("{file}```console\n{padding}```\n```sh\nrm -rf /\n```\n");
    assert_eq!(run_tutorial(&root, &doc, &dir).len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}
