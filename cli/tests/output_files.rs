//! The files `pllvm` writes (docs/cli.md "Conventions", output files): written
//! atomically, a failed run leaves an existing file as it was and removes
//! nothing it did not create, a target that is not a regular file is written in
//! place, and `compile` without `-o` never writes over its input or a file it did
//! not write.

use crate::common::{code, corpus, pllvm, require, stderr};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A fresh directory for one test.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pllvm-output-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the test directory");
    dir
}

/// `pllvm ARGS` with a `PATH` that holds no program at all: Graphviz's `dot`
/// is missing, so `run --trace html` cannot make its page.
fn pllvm_without_dot(dir: &Path, args: &[&str]) -> std::process::Output {
    let empty = dir.join("empty-path");
    std::fs::create_dir_all(&empty).expect("empty PATH folder");
    Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(args)
        .env("PATH", &empty)
        .stdin(Stdio::null())
        .output()
        .expect("run pllvm")
}

/// The Fig. 4.5 run as `run --trace html -o OUT`.
fn html_run(out: &Path) -> Vec<String> {
    let fig = corpus("semantics/fig4.5-control-mechanics.ll");
    [
        "run",
        &fig,
        "--threads",
        "2",
        "--arg",
        "x=0,1",
        "--trace",
        "html",
        "-o",
        out.to_str().expect("utf-8 path"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The names in `dir` besides the ones a test made.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_page_that_cannot_be_made_leaves_the_existing_file_as_it_was() {
    let dir = fresh_dir("html-keep");
    let page = dir.join("page.html");
    std::fs::write(&page, "the page of an earlier run\n").expect("write");
    let args = html_run(&page);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = pllvm_without_dot(&dir, &args);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("dot"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&page).ok().as_deref(),
        Some("the page of an earlier run\n"),
        "the earlier page must survive a failed run"
    );
    // No temporary file is left beside it.
    assert_eq!(names(&dir), ["empty-path", "page.html"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_target_that_is_not_a_regular_file_is_written_in_place_and_never_removed() {
    // As `-o /dev/full` run by root: a failed page must not remove the node. A
    // FIFO stands in for the device (removing a FIFO harms no other test).
    let dir = fresh_dir("html-fifo");
    let fifo = dir.join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    // A reader, so that opening the FIFO for writing does not wait forever.
    let mut reader = Command::new("cat")
        .arg(&fifo)
        .stdout(Stdio::null())
        .spawn()
        .expect("cat");
    let args = html_run(&fifo);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = pllvm_without_dot(&dir, &args);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::symlink_metadata(&fifo).map(|m| m.file_type().is_fifo());
    assert!(
        matches!(kind, Ok(true)),
        "the FIFO is gone or replaced: {kind:?}"
    );
    // The reader ends at the end of what pllvm wrote; if pllvm never opened the
    // FIFO it is still waiting.
    let _ = reader.kill();
    let _ = reader.wait();
    // The page goes to /dev/null in place (the run works when dot is there).
    require("dot", "graphviz");
    let args = html_run(Path::new("/dev/null"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = pllvm(&args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(Path::new("/dev/null").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `pllvm compile FILE --target scalar-c --emit EMIT` run in `dir`, without `-o`.
fn compile_in(dir: &Path, file: &str, emit: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(["compile", file, "--target", "scalar-c", "--emit", emit])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run pllvm")
}

#[test]
fn compile_without_o_never_writes_over_its_input() {
    require("gcc", "gcc");
    let dir = fresh_dir("compile-input");
    let ir = std::fs::read_to_string(corpus("kernels/logstar.ll")).expect("logstar");
    // An IR file without `.ll`: its stem is its whole name.
    std::fs::write(dir.join("kernel"), &ir).expect("write");
    let o = compile_in(&dir, "kernel", "exe");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("kernel")).ok(),
        Some(ir.clone())
    );
    assert!(dir.join("kernel.exe").exists(), "{:?}", names(&dir));
    // `spin.c.ll` beside the C file it was made from: `spin.c` stays.
    std::fs::write(dir.join("spin.c"), "int main(void) { return 0; }\n").expect("write");
    std::fs::write(dir.join("spin.c.ll"), &ir).expect("write");
    let o = compile_in(&dir, "spin.c.ll", "object");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("spin.c")).ok().as_deref(),
        Some("int main(void) { return 0; }\n")
    );
    assert!(dir.join("spin.c.o").exists(), "{:?}", names(&dir));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compile_without_o_replaces_only_its_own_earlier_output() {
    require("gcc", "gcc");
    let dir = fresh_dir("compile-foreign");
    let ir = std::fs::read_to_string(corpus("kernels/logstar.ll")).expect("logstar");
    std::fs::write(dir.join("k.ll"), &ir).expect("write");
    // Twice: the second run replaces the first one's object.
    for _ in 0..2 {
        let o = compile_in(&dir, "k.ll", "object");
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    // A file pllvm did not write is refused (exit 2), named, and kept.
    std::fs::write(dir.join("k.o"), "my notes\n").expect("write");
    let o = compile_in(&dir, "k.ll", "object");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("k.o") && stderr(&o).contains("-o"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("k.o")).ok().as_deref(),
        Some("my notes\n")
    );
    // `-o` names it: then it is replaced.
    let o = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args([
            "compile", "k.ll", "--target", "scalar-c", "--emit", "object", "-o", "k.o",
        ])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .expect("run pllvm");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        std::fs::read(dir.join("k.o"))
            .unwrap_or_default()
            .starts_with(b"\x7fELF")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compile_without_o_refuses_a_fifo_in_its_way_without_reading_it() {
    require("gcc", "gcc");
    let dir = fresh_dir("compile-fifo");
    let ir = std::fs::read_to_string(corpus("kernels/logstar.ll")).expect("logstar");
    std::fs::write(dir.join("k.ll"), &ir).expect("write");
    let made = Command::new("mkfifo")
        .arg(dir.join("k.o"))
        .status()
        .expect("mkfifo");
    assert!(made.success());
    // Reading a FIFO with no writer blocks: a `compile` that read it to see
    // whether it was its own earlier output would never end.
    let mut child = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args([
            "compile", "k.ll", "--target", "scalar-c", "--emit", "object",
        ])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run pllvm");
    let mut waited = 0;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for pllvm") {
            break status;
        }
        if waited >= 600 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("compile is still reading the FIFO k.o after 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        waited += 1;
    };
    let o = child.wait_with_output().expect("pllvm's output");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(err.contains("k.o") && err.contains("-o"), "{err}");
    assert!(
        std::fs::symlink_metadata(dir.join("k.o")).is_ok_and(|m| !m.is_file()),
        "the FIFO stays as it was"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
