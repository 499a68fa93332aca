//! What a campaign keeps on disk (`pllvm fuzz`, docs/fuzzing.md), all of it written so that a
//! SIGKILL at any moment loses nothing already found:
//!
//! - `state.json`: the campaign's parameters and the next program index of its
//!   shard below which every program was checked, with the counts so far;
//!   written to a temporary file and renamed over the old one after each batch.
//! - `findings/<oracle>-<hash>.ll`: one runnable corpus file per distinct shrunk
//!   case (temporary file + rename), written before the state advances past
//!   the program that found it.
//! - `findings/hits.jsonl`: one line per failing program (the oracle, the
//!   failure kind, the seed, the finding's file): duplicates of one finding are
//!   its repeated lines. A torn last line (a kill mid-write) is ignored.
//! - `report.json`: the report (`--json` prints the same document).
//! - `lock`: held (an advisory exclusive lock, [`lock`]) by the one `pllvm fuzz`
//!   or `pllvm fuzz merge` writing the directory, and holding its process id;
//!   the kernel releases the lock when that process ends, however it ends.

use anyhow::{Context, Result, anyhow};
use serde_json::{Value as Json, json};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The schema of `report.json` and `--json`.
pub(super) const SCHEMA: &str = "pllvm-fuzz/1";

/// Writes `text` to `path` atomically (`crate::output`: a temporary file
/// beside it, synced, renamed over `path`).
pub(super) fn write_atomic(path: &Path, text: &str) -> Result<()> {
    crate::output::write_bytes(path, text.as_bytes())
}

/// The hold of one process on a campaign directory ([`lock`]); the lock goes
/// with the value (or with the process).
#[derive(Debug)]
pub(super) struct DirLock {
    /// The open `lock` file that holds the lock.
    _file: std::fs::File,
}

/// Takes the campaign directory `dir` (created if missing) for this process
/// (docs/fuzzing.md "Campaign directories"): an exclusive advisory lock on
/// `dir/lock`, which then holds this process's id. A directory another process
/// holds is a usage error naming that process, so two campaigns never
/// interleave their state and findings.
pub(super) fn lock(dir: &Path) -> Result<DirLock> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join("lock");
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {
            // Only the holder writes the file; a stale id from a killed holder
            // is overwritten here.
            file.set_len(0)
                .and_then(|()| file.write_all(format!("{}\n", std::process::id()).as_bytes()))
                .with_context(|| format!("cannot write {}", path.display()))?;
            Ok(DirLock { _file: file })
        }
        Err(std::fs::TryLockError::WouldBlock) => {
            let holder = std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| t.trim().parse::<u32>().ok())
                .map_or_else(
                    || "another process".to_string(),
                    |pid| format!("process {pid}"),
                );
            Err(anyhow!(crate::errors::Usage(format!(
                "{} is in use by {holder} (pllvm fuzz or fuzz merge, which locks {}): wait for it to end, or choose another --out",
                dir.display(),
                path.display()
            ))))
        }
        Err(std::fs::TryLockError::Error(e)) => {
            // A file system without locks (some network mounts) keeps the
            // campaign going, said once.
            eprintln!(
                "warning: cannot lock {}: {}: nothing keeps a second campaign out of {}",
                path.display(),
                crate::output::io_message(&e),
                dir.display()
            );
            Ok(DirLock { _file: file })
        }
    }
}

/// Per-oracle counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    /// Programs checked.
    pub checked: u64,
    /// Passed.
    pub passed: u64,
    /// Said nothing (skipped).
    pub skipped: u64,
    /// Failed.
    pub failed: u64,
    /// Skips by reason (the reason's first line, at most [`MAX_REASONS`]
    /// distinct ones, the rest under `other`).
    pub skips: BTreeMap<String, u64>,
    /// The mix of programs checked: how many hold each construct the generator
    /// counts (`pllvm_fuzz::Stats::named`).
    pub mix: BTreeMap<String, u64>,
}

/// Most distinct skip reasons kept per oracle.
pub(super) const MAX_REASONS: usize = 16;

impl Counts {
    fn json(&self) -> Json {
        let mut j = json!({"checked": self.checked, "passed": self.passed, "skipped": self.skipped, "failed": self.failed});
        if !self.skips.is_empty() {
            j["skips"] = json!(self.skips);
        }
        if !self.mix.is_empty() {
            j["mix"] = json!(self.mix);
        }
        j
    }

    fn of(j: &Json) -> Counts {
        let n = |k: &str| j[k].as_u64().unwrap_or(0);
        let map = |k: &str| -> BTreeMap<String, u64> {
            j[k].as_object()
                .map(|m| {
                    m.iter()
                        .map(|(r, v)| (r.clone(), v.as_u64().unwrap_or(0)))
                        .collect()
                })
                .unwrap_or_default()
        };
        Counts {
            checked: n("checked"),
            passed: n("passed"),
            skipped: n("skipped"),
            failed: n("failed"),
            skips: map("skips"),
            mix: map("mix"),
        }
    }

    /// Counts a skip for `why` (its first line, 120 characters at most).
    pub(super) fn skip(&mut self, why: &str) {
        self.skipped += 1;
        let reason: String = why.lines().next().unwrap_or("").chars().take(120).collect();
        let key = if self.skips.contains_key(&reason) || self.skips.len() < MAX_REASONS {
            reason
        } else {
            "other".to_string()
        };
        *self.skips.entry(key).or_default() += 1;
    }

    /// Counts the constructs of one program checked (`stats`).
    pub(super) fn program(&mut self, stats: &pllvm_fuzz::Stats) {
        for (name, n) in stats.named() {
            if n > 0 {
                *self.mix.entry(name.to_string()).or_default() += 1;
            }
        }
    }

    /// Adds `other`.
    pub(super) fn add(&mut self, other: &Counts) {
        self.checked += other.checked;
        self.passed += other.passed;
        self.skipped += other.skipped;
        self.failed += other.failed;
        for (r, n) in &other.skips {
            let key = if self.skips.contains_key(r) || self.skips.len() < MAX_REASONS {
                r.clone()
            } else {
                "other".to_string()
            };
            *self.skips.entry(key).or_default() += n;
        }
        for (r, n) in &other.mix {
            *self.mix.entry(r.clone()).or_default() += n;
        }
    }
}

/// The resumable state of one campaign directory.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct State {
    /// The base seed: program i has seed `base + i`.
    pub base_seed: u64,
    /// K of `--shard K/N`.
    pub shard: u64,
    /// N of `--shard K/N`.
    pub shards: u64,
    /// The oracles run, by name.
    pub oracles: Vec<String>,
    /// The next j: program indices `shard + shards * j` below it are done.
    pub next: u64,
    /// Counts per oracle.
    pub counts: BTreeMap<String, Counts>,
    /// Seconds spent over all sessions.
    pub seconds: f64,
}

impl State {
    /// `state.json` of `dir`.
    pub(super) fn path(dir: &Path) -> PathBuf {
        dir.join("state.json")
    }

    /// The state as JSON.
    pub(super) fn json(&self) -> Json {
        json!({
            "schema": SCHEMA,
            "base_seed": self.base_seed.to_string(),
            "shard": format!("{}/{}", self.shard, self.shards),
            "oracles": self.oracles,
            "next": self.next,
            "seconds": self.seconds,
            "counts": self.counts.iter().map(|(k, c)| (k.clone(), c.json())).collect::<serde_json::Map<_, _>>(),
        })
    }

    /// Reads `dir/state.json`.
    pub(super) fn load(dir: &Path) -> Result<State> {
        let path = State::path(dir);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {} (nothing to resume)", path.display()))?;
        let j: Json = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a state file", path.display()))?;
        let (shard, shards) = parse_shard(j["shard"].as_str().unwrap_or("0/1"))
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        Ok(State {
            base_seed: j["base_seed"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| anyhow!("{}: no base_seed", path.display()))?,
            shard,
            shards,
            oracles: j["oracles"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|o| o.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default(),
            next: j["next"].as_u64().unwrap_or(0),
            seconds: j["seconds"].as_f64().unwrap_or(0.0),
            counts: j["counts"]
                .as_object()
                .map(|m| m.iter().map(|(k, v)| (k.clone(), Counts::of(v))).collect())
                .unwrap_or_default(),
        })
    }

    /// Writes `dir/state.json` atomically.
    pub(super) fn save(&self, dir: &Path) -> Result<()> {
        write_atomic(&State::path(dir), &format!("{:#}\n", self.json()))
    }
}

/// `K/N` with K < N.
pub(super) fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let (k, n) = text
        .split_once('/')
        .ok_or_else(|| format!("'{text}' is not K/N"))?;
    let k: u64 = k
        .trim()
        .parse()
        .map_err(|_| format!("'{text}': K is not a number"))?;
    let n: u64 = n
        .trim()
        .parse()
        .map_err(|_| format!("'{text}': N is not a number"))?;
    if n == 0 || k >= n {
        return Err(format!("'{text}': need 0 <= K < N"));
    }
    Ok((k, n))
}

/// One failing program, as `hits.jsonl` records it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Hit {
    /// The oracle.
    pub oracle: String,
    /// The failure kind.
    pub kind: String,
    /// The program's seed.
    pub seed: u64,
    /// The finding's file name (in `findings/`).
    pub file: String,
    /// Instructions before shrinking.
    pub original: usize,
    /// Instructions after.
    pub shrunk: usize,
    /// The failure on the shrunk case.
    pub detail: String,
}

impl Hit {
    fn json(&self) -> Json {
        json!({
            "oracle": self.oracle, "kind": self.kind, "seed": self.seed.to_string(),
            "file": self.file, "original_instructions": self.original,
            "shrunk_instructions": self.shrunk, "detail": self.detail,
        })
    }

    fn of(j: &Json) -> Option<Hit> {
        Some(Hit {
            oracle: j["oracle"].as_str()?.into(),
            kind: j["kind"].as_str()?.into(),
            seed: j["seed"].as_str()?.parse().ok()?,
            file: j["file"].as_str()?.into(),
            original: j["original_instructions"].as_u64()? as usize,
            shrunk: j["shrunk_instructions"].as_u64()? as usize,
            detail: j["detail"].as_str().unwrap_or("").into(),
        })
    }
}

/// The findings directory of a campaign directory.
pub(super) fn findings_dir(dir: &Path) -> PathBuf {
    dir.join("findings")
}

/// Appends `hit` to `findings/hits.jsonl` (one line, synced).
pub(super) fn append_hit(dir: &Path, hit: &Hit) -> Result<()> {
    let path = findings_dir(dir).join("hits.jsonl");
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    f.write_all(format!("{}\n", hit.json()).as_bytes())?;
    f.sync_all()?;
    Ok(())
}

/// Every hit recorded in `dir` (torn lines ignored).
pub(super) fn load_hits(dir: &Path) -> Vec<Hit> {
    std::fs::read_to_string(findings_dir(dir).join("hits.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Json>(l).ok())
        .filter_map(|j| Hit::of(&j))
        .collect()
}

/// The report of a campaign directory: its state, its hits grouped by finding
/// file and by (oracle, kind), and the oracles it skipped.
pub(super) fn report(
    state: &State,
    hits: &[Hit],
    skipped_oracles: &[(String, String)],
    session_seconds: f64,
    session_programs: u64,
) -> Json {
    let mut by_file: BTreeMap<&str, Vec<&Hit>> = BTreeMap::new();
    for h in hits {
        by_file.entry(h.file.as_str()).or_default().push(h);
    }
    let findings: Vec<Json> = by_file
        .iter()
        .map(|(file, hs)| {
            let first = hs[0];
            json!({
                "file": format!("findings/{file}"),
                "oracle": first.oracle,
                "kind": first.kind,
                "seed": first.seed.to_string(),
                "original_instructions": first.original,
                "shrunk_instructions": first.shrunk,
                "hits": hs.len(),
                "seeds": hs.iter().map(|h| h.seed.to_string()).collect::<Vec<_>>(),
                "detail": first.detail,
            })
        })
        .collect();
    let mut groups: BTreeMap<(&str, &str), (usize, Vec<&str>)> = BTreeMap::new();
    for (file, hs) in &by_file {
        let g = groups
            .entry((hs[0].oracle.as_str(), hs[0].kind.as_str()))
            .or_default();
        g.0 += hs.len();
        g.1.push(file);
    }
    let programs: u64 = state.next;
    let minutes = state.seconds / 60.0;
    json!({
        "schema": SCHEMA,
        "base_seed": state.base_seed.to_string(),
        "shard": format!("{}/{}", state.shard, state.shards),
        "programs": programs,
        "seconds": state.seconds,
        "programs_per_minute": if minutes > 0.0 { programs as f64 / minutes } else { 0.0 },
        "session": {
            "programs": session_programs,
            "seconds": session_seconds,
        },
        "oracles": state.oracles.iter().map(|o| {
            let c = state.counts.get(o).cloned().unwrap_or_default();
            json!({"name": o, "ran": true, "counts": c.json()})
        }).chain(skipped_oracles.iter().map(|(o, why)| json!({"name": o, "ran": false, "why": why})))
        .collect::<Vec<_>>(),
        "findings": findings,
        "groups": groups.iter().map(|((o, k), (n, files))| json!({
            "oracle": o, "kind": k, "hits": n,
            "files": files.iter().map(|f| format!("findings/{f}")).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// Distinct findings (files) per oracle, for the progress display.
pub(super) fn load_hits_count(dir: &Path) -> BTreeMap<String, usize> {
    let mut files: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for h in load_hits(dir) {
        files.entry(h.oracle).or_default().insert(h.file);
    }
    files.into_iter().map(|(o, f)| (o, f.len())).collect()
}

/// Rewrites `findings/hits.jsonl` of `dir` with `hits` (atomically).
pub(super) fn save_hits(dir: &Path, hits: &[Hit]) -> Result<()> {
    let text: String = hits.iter().map(|h| format!("{}\n", h.json())).collect();
    write_atomic(&findings_dir(dir).join("hits.jsonl"), &text)
}
