//! Campaign directories are owned (docs/fuzzing.md "Campaign directories"): one
//! `pllvm fuzz` (or `fuzz merge`) at a time holds `--out`, and `fuzz merge`
//! takes each shard once and never writes into one of them.

use crate::common::{code, pllvm, stderr};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A fresh directory for one test.
fn fresh_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("pllvm-campaign-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the test directory");
    dir
}

/// The arguments of a campaign of the `roundtrip` oracle into `out`.
fn campaign(out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["fuzz", "--oracle", "roundtrip", "--batch", "2", "--out"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(out.display().to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

#[test]
fn a_second_campaign_on_a_held_directory_is_refused() {
    let dir = fresh_dir("two");
    let out = dir.join("out");
    // A campaign refused by its own flags creates nothing (no directory, no lock).
    let o = pllvm(&[
        "fuzz",
        "--oracle",
        "nonsense",
        "--count",
        "1",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        !out.exists(),
        "a refused campaign created {}",
        out.display()
    );
    let mut first = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(campaign(&out, &["--time", "120"]))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the first campaign");
    // Wait until it has written its state (so a resume has something to resume).
    let start = Instant::now();
    while !out.join("state.json").exists() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let args = campaign(&out, &["--resume", "--count", "2"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let second = pllvm(&args);
    let _ = first.kill();
    let _ = first.wait();
    assert_eq!(code(&second), 2, "{}", stderr(&second));
    assert!(
        stderr(&second).contains("is in use by process")
            && stderr(&second).contains(&first.id().to_string()),
        "{}",
        stderr(&second)
    );
    // Killed, the first campaign holds nothing: the directory resumes.
    let second = pllvm(&args);
    assert!(code(&second) <= 1, "{}", stderr(&second));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn merge_refuses_a_shard_twice_and_an_out_among_its_inputs() {
    let dir = fresh_dir("merge");
    let shard = dir.join("shard");
    let args = campaign(&shard, &["--count", "2"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = pllvm(&args);
    assert!(code(&o) <= 1, "{}", stderr(&o));
    let report = std::fs::read_to_string(shard.join("report.json")).expect("report");
    let s = shard.to_str().expect("utf-8");
    let merged = dir.join("merged");
    // The same shard twice, under two spellings.
    let twice = format!("{s}/.");
    let o = pllvm(&[
        "fuzz",
        "merge",
        s,
        &twice,
        "--out",
        merged.to_str().expect("utf-8"),
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("given twice"), "{}", stderr(&o));
    assert!(
        !merged.exists(),
        "a refused merge wrote {}",
        merged.display()
    );
    // --out one of the inputs.
    let other = dir.join("other");
    let args = campaign(&other, &["--count", "2", "--seed", "7"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert!(code(&pllvm(&args)) <= 1);
    let o = pllvm(&[
        "fuzz",
        "merge",
        s,
        other.to_str().expect("utf-8"),
        "--out",
        s,
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("is the input"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(shard.join("report.json")).ok(),
        Some(report),
        "the shard's report was rewritten"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
