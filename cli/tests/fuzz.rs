//! `pllvm fuzz` end to end (docs/fuzzing.md): a campaign's report and files, the
//! external oracle's protocol, replay, shards and merge, and a campaign killed
//! with SIGKILL that loses no finding and resumes where it stopped.
//!
//! Findings come from an external oracle made up for the test (a shell command
//! that fails on every program with a `switch`), so these tests need no seeded
//! bug; `fuzz_seeded.rs` checks that the real oracles find real bugs.

use crate::common;

use common::{code, pllvm, stderr, stdout};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A fresh directory for one test.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pllvm-fuzz-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the test directory");
    dir
}

/// A command for `--oracle-cmd` that fails (exit 1) on a program with a
/// `switch` and otherwise claims nothing.
const SWITCH_HATER: &str = "if grep -q 'switch ' {in}; then exit 1; fi; echo '{}' > {out}";

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json");
    serde_json::from_str(&text).expect("report.json is JSON")
}

fn hits(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("findings/hits.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn a_campaign_writes_its_report_and_shrunk_findings() {
    let dir = fresh_dir("campaign");
    let out = dir.join("out");
    let o = pllvm(&[
        "fuzz",
        "--oracle",
        "external,roundtrip",
        "--oracle-cmd",
        SWITCH_HATER,
        "--count",
        "24",
        "--batch",
        "8",
        "--shrink-time",
        "20",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1, "findings make the exit code 1: {}", stderr(&o));
    let doc: Value = serde_json::from_str(stdout(&o).trim()).expect("one JSON document");
    assert_eq!(doc["schema"], "pllvm-fuzz/1");
    assert_eq!(doc["programs"], 24);
    assert_eq!(doc, report(&out), "--json prints report.json");
    let findings = doc["findings"].as_array().expect("findings");
    assert!(!findings.is_empty(), "no program of 24 had a switch?");
    // Every program with a switch fails the same way: one group.
    let groups = doc["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert_eq!(groups[0]["oracle"], "external");
    assert_eq!(groups[0]["kind"], "command fails");
    for f in findings {
        let file = out.join(f["file"].as_str().unwrap());
        let text = std::fs::read_to_string(&file).expect("the finding file");
        assert!(text.contains(";; oracle: external"));
        assert!(text.contains(";; reproduce: pllvm fuzz --replay"));
        assert!(text.contains(";; run it: pllvm run "));
        assert!(text.contains("; run: --threads"));
        // Shrunk: a switch needs only itself and its operand.
        assert!(
            f["shrunk_instructions"].as_u64().unwrap() <= 2,
            "{f}:\n{text}"
        );
        // Runnable: `pllvm run FILE` with its `; run:` line's options.
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("; run:"))
            .expect("a `; run:` line");
        let mut run_args = vec!["run", file.to_str().unwrap()];
        run_args.extend(line.split_whitespace());
        let run = pllvm(&run_args);
        // It runs to an outcome (the external tool failed on it; whether the
        // shrunk program's run returns is not the point).
        assert!(
            code(&run) <= 1 && stdout(&run).contains("outcome:"),
            "{}{}",
            stdout(&run),
            stderr(&run)
        );
        // Replay reproduces it.
        let replay = pllvm(&[
            "fuzz",
            "--replay",
            file.to_str().unwrap(),
            "--oracle-cmd",
            SWITCH_HATER,
        ]);
        assert_eq!(code(&replay), 1, "{}", stdout(&replay));
        assert!(stdout(&replay).contains("external: fail"));
    }
    // roundtrip found nothing and is counted.
    let oracles = doc["oracles"].as_array().unwrap();
    let rt = oracles.iter().find(|o| o["name"] == "roundtrip").unwrap();
    assert_eq!(rt["counts"]["checked"], 24);
    assert_eq!(rt["counts"]["failed"], 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `pllvm fuzz --oracle external --oracle-cmd CMD --count COUNT --json` into
/// `out`: its one JSON document.
fn external_campaign(cmd: &str, count: &str, out: &Path) -> Value {
    let o = pllvm(&[
        "fuzz",
        "--oracle",
        "external",
        "--oracle-cmd",
        cmd,
        "--count",
        count,
        "--shrink-time",
        "2",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    serde_json::from_str(stdout(&o).trim()).expect("JSON")
}

/// Whether the report `doc` has a group of findings of `kind`.
fn has_group(doc: &Value, kind: &str) -> bool {
    doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["kind"] == kind)
}

#[test]
fn the_external_protocol_checks_lanes_and_uniform_claims() {
    let dir = fresh_dir("protocol");
    // A tool that claims every lane returns 12345: refuted on some program.
    let lanes = "echo '{\"lanes\": [\"12345\", \"12345\", \"12345\", \"12345\"]}' > {out}";
    let doc = external_campaign(lanes, "4", &dir.join("lanes"));
    assert!(has_group(&doc, "lanes differ"), "{doc}");
    // A tool that claims the thread id uniform.
    let uniform = "names=$(grep -o '%tid[0-9]*' {in} | sort -u | sed 's/.*/\"&\"/' | paste -sd, -); echo \"{\\\"uniform\\\": [$names]}\" > {out}";
    let doc = external_campaign(uniform, "8", &dir.join("uniform"));
    assert!(has_group(&doc, "uniform claim refuted"), "{doc}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn oracle_selection_errors_are_clear() {
    let o = pllvm(&["fuzz", "--oracle", "nonsense", "--count", "1"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("unknown oracle 'nonsense'"),
        "{}",
        stderr(&o)
    );
    let o = pllvm(&["fuzz", "--oracle", "external", "--count", "1"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--oracle-cmd"), "{}", stderr(&o));
    let o = pllvm(&["fuzz", "--shard", "3/3", "--count", "1"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

#[test]
fn shards_are_disjoint_and_merge_into_one_report() {
    let dir = fresh_dir("shards");
    let mut dirs = Vec::new();
    for k in 0..2 {
        let out = dir.join(format!("shard{k}"));
        let o = pllvm(&[
            "fuzz",
            "--oracle",
            "external",
            "--oracle-cmd",
            SWITCH_HATER,
            "--count",
            "10",
            "--shard",
            &format!("{k}/2"),
            "--seed",
            "1000",
            "--shrink-time",
            "2",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(code(&o) <= 1, "{}", stderr(&o));
        dirs.push(out);
    }
    // Shard k checks seeds 1000 + k, 1000 + k + 2, ...
    for (k, d) in dirs.iter().enumerate() {
        for h in hits(d) {
            let seed: u64 = h["seed"].as_str().unwrap().parse().unwrap();
            assert_eq!((seed - 1000) % 2, k as u64, "{h}");
        }
    }
    let merged = dir.join("merged");
    let o = pllvm(&[
        "fuzz",
        "merge",
        dirs[0].to_str().unwrap(),
        dirs[1].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let doc: Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(doc["programs"], 20);
    let all_hits = hits(&dirs[0]).len() + hits(&dirs[1]).len();
    assert_eq!(hits(&merged).len(), all_hits);
    for f in doc["findings"].as_array().unwrap() {
        assert!(merged.join(f["file"].as_str().unwrap()).exists(), "{f}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_campaign_killed_with_sigkill_loses_nothing_and_resumes() {
    let dir = fresh_dir("kill");
    let out = dir.join("out");
    let args = |extra: &[&str]| {
        let mut a: Vec<String> = [
            "fuzz",
            "--oracle",
            "external,exec",
            "--oracle-cmd",
            SWITCH_HATER,
            "--batch",
            "4",
            "--shrink-time",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(args(&["--count", "100000"]))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start pllvm fuzz");
    // Wait for a few findings and some progress, then SIGKILL.
    let start = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let state: Value = std::fs::read_to_string(out.join("state.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null);
        if hits(&out).len() >= 3 && state["next"].as_u64().unwrap_or(0) >= 8 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no findings after two minutes"
        );
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    // Nothing lost: every hit names a finding file that exists, replays and fails.
    let before = hits(&out);
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("state.json")).unwrap())
            .expect("state.json is whole after SIGKILL");
    let next_before = state["next"].as_u64().unwrap();
    for h in &before {
        let file = out.join("findings").join(h["file"].as_str().unwrap());
        assert!(file.exists(), "{h}");
        let replay = pllvm(&[
            "fuzz",
            "--replay",
            file.to_str().unwrap(),
            "--oracle-cmd",
            SWITCH_HATER,
        ]);
        assert_eq!(code(&replay), 1, "{}", stdout(&replay));
    }
    // Resume: continues after `next` and keeps the old findings.
    let target = next_before + 8;
    let o = pllvm(
        &args(&["--resume", "--count", &target.to_string(), "--json"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(code(&o) <= 1, "{}", stderr(&o));
    let doc: Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(doc["programs"], target);
    let after = hits(&out);
    for h in &before {
        assert!(after.contains(h), "lost {h}");
    }
    // No program's hit recorded twice.
    let mut keys: Vec<(String, String)> = after
        .iter()
        .map(|h| (h["oracle"].to_string(), h["seed"].to_string()))
        .collect();
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), n, "a hit recorded twice");
    // A resumed campaign cannot start over by mistake.
    let o = pllvm(
        &args(&["--count", "1"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--resume"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
